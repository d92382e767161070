import numpy as np
from scipy import optimize, special

LOG2 = np.log(2.0)


def _um_eps(R):
    return np.arccos(np.clip(R, -1.0, 1.0)) / np.pi


def _um_h(R):
    R = np.asarray(R, dtype=float)
    return LOG2 - special.xlogy((1 - R) / 2, 1 - R) - special.xlogy((1 + R) / 2, 1 + R)


def _um_s(R, alpha):
    R, alpha = np.broadcast_arrays(np.asarray(R, dtype=float), np.asarray(alpha, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        logterm = np.where(alpha == 0, 0.0, alpha * np.log(1 - _um_eps(R)))
    return LOG2 - _um_h(R) - logterm


def _um_students(N):
    k = np.arange(2 ** N)[:, None]
    return 1 - 2 * ((k >> np.arange(N)[None, :]) & 1)   # all of {-1,+1}^N, one per row


# %% mistake: 0 log 0 evaluated as nan
# function: overlap_entropy
# kind: branch
# truth: at R = +-1 the terms (1-R)/2 log(1-R) are 0 * log 0 = nan; the edge case 0 log 0 = 0 is not handled (use xlogy or a mask).
def overlap_entropy(R):
    R = np.asarray(R, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = LOG2 - (1 - R) / 2 * np.log(1 - R) - (1 + R) / 2 * np.log(1 + R)
    return float(h) if h.ndim == 0 else h


# %% mistake: counts stop before the teacher
# function: annealed_counts
# kind: off-by-one
# truth: k runs over range(N) instead of range(N + 1), so the array has N entries and the teacher's entry k = N is missing.
def annealed_counts(N, n):
    k = np.arange(N)
    R = 2 * k / N - 1
    return special.comb(N, k) * (1 - _um_eps(R)) ** n


# %% mistake: load term with the wrong sign
# function: annealed_action
# kind: term
# truth: the load term is added (+ alpha log(1 - eps)) instead of subtracted: s(R) = log 2 - h(R) - alpha log(1 - eps(R)).
def annealed_action(R, alpha):
    R, alpha = np.broadcast_arrays(np.asarray(R, dtype=float), np.asarray(alpha, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        logterm = np.where(alpha == 0, 0.0, alpha * np.log(1 - _um_eps(R)))
    s = LOG2 - _um_h(R) + logterm
    return float(s) if s.ndim == 0 else s


# %% mistake: teacher returned past the spinodal
# function: interior_minimum
# kind: branch
# truth: beyond the spinodal load, where no interior minimum exists, it returns the boundary point (1, log 2) instead of (nan, nan).
def interior_minimum(alpha):
    if alpha == 0:
        return 0.0, 0.0
    R = np.linspace(0.0, 1 - 1e-9, 20001)
    s = _um_s(R, alpha)
    inner = np.where((s[1:-1] < s[:-2]) & (s[1:-1] < s[2:]))[0] + 1
    if len(inner) == 0:
        return 1.0, float(LOG2)
    i = inner[0]
    res = optimize.minimize_scalar(lambda r: float(_um_s(r, alpha)), bounds=(R[i - 1], R[i + 1]),
                                   method="bounded", options={"xatol": 1e-12})
    return float(res.x), float(res.fun)


# %% mistake: histogram by disagreements
# function: count_consistent_students
# kind: concept
# truth: students are binned by the number of components that DIFFER from the teacher (Hamming distance), not by the number k that agree, so the histogram comes out reversed.
def count_consistent_students(teacher, X):
    teacher = np.asarray(teacher)
    X = np.asarray(X, dtype=float).reshape(-1, len(teacher))
    N = len(teacher)
    th = _um_students(N)
    y = np.sign(X @ teacher)
    ok = np.all(np.sign(th @ X.T) == y[None, :], axis=1)
    k = np.sum(th[ok] != teacher[None, :], axis=1)
    return np.bincount(k, minlength=N + 1).astype(int)


# %% mistake: seed argument ignored
# function: enumerate_version_space
# kind: ignored-arg
# truth: the data are drawn from default_rng(PARAMS['first_seed']) instead of default_rng(seed), so every seed gives the same data set.
def enumerate_version_space(N, alpha, seed):
    rng = np.random.default_rng(598258)
    teacher = rng.choice([-1, 1], size=N)
    n = int(round(alpha * N))
    X = rng.standard_normal((n, N))
    th = _um_students(N)
    y = np.sign(X @ teacher)
    ok = np.all(np.sign(th @ X.T) == y[None, :], axis=1)
    k = np.sum(th[ok] == teacher[None, :], axis=1)
    counts = np.bincount(k, minlength=N + 1).astype(int)
    R = 2 * np.arange(N + 1) / N - 1
    Z = int(counts.sum())
    return {"n": n, "R": R, "counts": counts, "Z": Z, "log_Z": float(np.log(Z) / N - LOG2),
            "eps_mean": float(np.sum(counts * _um_eps(R)) / Z)}
