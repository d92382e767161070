import numpy as np
from scipy import special


# %% mistake: overlap grid with N points instead of N + 1
# function: annealed_counts
# kind: off-by-one
# truth: annealed_counts builds the overlaps with np.linspace(-1, 1, N) and k = 0..N-1, so it returns N entries instead of N + 1 and the R values are not 2k/N - 1; use k = np.arange(N + 1) and R_k = 2k/N - 1.
def annealed_counts(N, n):
    R = np.linspace(-1.0, 1.0, N)
    k = np.arange(N)
    eps = np.arccos(np.clip(R, -1.0, 1.0)) / np.pi
    return special.comb(N, k) * (1.0 - eps) ** n


# %% mistake: entropy added instead of subtracted
# function: annealed_action
# kind: term
# truth: annealed_action adds the entropy h(R) instead of subtracting it; the action is s = log 2 - h(R) - alpha log(1 - eps(R)), so the entropic term has the wrong sign.
def annealed_action(R, alpha):
    R = np.asarray(R, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.log(2) - special.xlogy((1 - R) / 2, 1 - R) - special.xlogy((1 + R) / 2, 1 + R)
        eps = np.arccos(np.clip(R, -1.0, 1.0)) / np.pi
        energy = -special.xlogy(alpha, 1.0 - eps)
    s = np.log(2) + h + energy
    return s if s.ndim else float(s)


# %% mistake: overlap counted against the all-ones vector
# function: count_consistent_students
# kind: concept
# truth: count_consistent_students bins each consistent student by its number of +1 components instead of by the number of components it shares with the teacher, so the histogram is right only when the teacher is all ones.
def count_consistent_students(teacher, X):
    teacher = np.asarray(teacher)
    X = np.asarray(X, dtype=float)
    N = teacher.shape[0]
    y = np.sign(X @ teacher)
    counts = np.zeros(N + 1, dtype=int)
    bits = np.arange(N)
    for start in range(0, 2**N, 1 << 15):
        idx = np.arange(start, min(2**N, start + (1 << 15)))
        S = 1 - 2 * ((idx[:, None] >> bits[None, :]) & 1)
        ok = np.all(np.sign(S @ X.T) == y[None, :], axis=1)
        k = np.sum(S[ok] == 1, axis=1)
        counts += np.bincount(k, minlength=N + 1)
    return counts


# %% mistake: eps_mean averaged over overlaps, not over students
# function: enumerate_version_space
# kind: concept
# truth: enumerate_version_space averages arccos(R)/pi over the overlap values that have at least one consistent student, instead of weighting each overlap by its count of consistent students, so eps_mean is not the mean over the version space.
def enumerate_version_space(N, alpha, seed):
    rng = np.random.default_rng(seed)
    teacher = rng.choice([-1, 1], size=N)
    n = int(round(alpha * N))
    X = rng.standard_normal((n, N))
    counts = count_consistent_students(teacher, X)
    R = 2 * np.arange(N + 1) / N - 1
    Z = int(np.sum(counts))
    eps = np.arccos(np.clip(R, -1, 1)) / np.pi
    eps_mean = float(np.mean(eps[counts > 0]))
    return {"n": n, "R": R, "counts": counts, "Z": Z, "log_Z": float(np.log(Z) / N - np.log(2)),
            "eps_mean": eps_mean}


# %% mistake: 0 log 0 left to numpy in the entropy
# function: overlap_entropy
# kind: upstream (overlap_entropy)
# truth: overlap_entropy evaluates (1 -+ R)/2 log(1 -+ R) directly, which is 0 * (-inf) = nan at R = +-1 instead of 0 (use xlogy or 0 log 0 = 0); annealed_action, which is right, inherits the nan at the teacher R = 1.
def overlap_entropy(R):
    R = np.asarray(R, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.log(2) - (1 - R) / 2 * np.log(1 - R) - (1 + R) / 2 * np.log(1 + R)
    return h if h.ndim else float(h)


def annealed_action(R, alpha):
    R, alpha = np.broadcast_arrays(np.asarray(R, dtype=float), np.asarray(alpha, dtype=float))
    eps = generalization_error(R)
    with np.errstate(divide="ignore", invalid="ignore"):
        energy = np.where(alpha == 0, 0.0, -alpha * np.log1p(-eps))
    s = np.log(2) - overlap_entropy(R) + energy
    return s if s.ndim else float(s)
