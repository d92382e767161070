import numpy as np
from scipy import optimize, special

LOG2 = np.log(2.0)


# %% mistake: arccos over 2 pi
# function: generalization_error
# kind: factor
# truth: eps(R) = arccos(R) / pi; dividing by 2 pi halves every error (eps(0) should be 1/2, eps(-1) = 1).
def generalization_error(R):
    return np.arccos(R) / (2 * np.pi)


# %% mistake: log of the error instead of the success probability
# function: annealed_action
# kind: concept
# truth: a consistent student must classify each example correctly, with probability 1 - eps(R); the load term is -alpha log(1 - eps(R)), not -alpha log(eps(R)).
def annealed_action(R, alpha):
    R = np.asarray(R, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    eps = np.arccos(np.clip(R, -1, 1)) / np.pi
    with np.errstate(divide="ignore", invalid="ignore"):
        load = np.where(alpha == 0, 0.0, -alpha * np.log(eps))
    out = LOG2 - overlap_entropy(R) + load
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: overlap k/N without the shift
# function: annealed_counts
# kind: term
# truth: the overlap of entry k is R_k = 2k/N - 1; the code uses R_k = 2k/N (the -1 is missing), so the success probability 1 - eps(R_k) is wrong for every k.
def annealed_counts(N, n):
    k = np.arange(N + 1)
    R = np.clip(2 * k / N, -1, 1)
    return special.comb(N, k) * (1 - np.arccos(R) / np.pi) ** n


# %% mistake: student loop misses the last bit pattern
# function: count_consistent_students
# kind: off-by-one
# truth: the enumeration runs over range(2**N - 1), so the last student (all weights +1) is never counted; loop over range(2**N).
def count_consistent_students(teacher, X):
    teacher = np.asarray(teacher)
    X = np.asarray(X, dtype=float).reshape(-1, teacher.size)
    N = teacher.size
    y = np.sign(X @ teacher)
    counts = np.zeros(N + 1, dtype=int)
    for i in range(2 ** N - 1):
        theta = np.array([1 if (i >> b) & 1 else -1 for b in range(N)])
        if np.all(np.sign(X @ theta) == y):
            counts[int(np.sum(theta == teacher))] += 1
    return counts


# %% mistake: log Z not divided by the number of students
# function: enumerate_version_space
# kind: term
# truth: log_Z should be (1/N) log(Z / 2**N), the log of the fraction of consistent students; the code returns (1/N) log Z, missing the -log 2 term.
def enumerate_version_space(N, alpha, seed):
    rng = np.random.default_rng(seed)
    teacher = rng.choice([-1, 1], size=N)
    n = int(round(alpha * N))
    X = rng.standard_normal((n, N))
    counts = np.asarray(count_consistent_students(teacher, X))
    R = 2 * np.arange(N + 1) / N - 1
    Z = int(counts.sum())
    return {"n": n, "R": R, "counts": counts, "Z": Z,
            "log_Z": float(np.log(Z) / N),
            "eps_mean": float(np.sum(counts * np.arccos(R) / np.pi) / Z)}
