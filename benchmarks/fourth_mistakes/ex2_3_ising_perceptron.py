import numpy as np
from scipy import optimize, special


# %% mistake: overlap taken as fraction agreeing
# function: annealed_counts
# kind: concept
# truth: annealed_counts evaluates the generalization error at R_k = k/N (the fraction of components that agree) instead of the overlap R_k = 2k/N - 1, so every count except k = N (and all counts at n = 0) uses a too-small error.
def annealed_counts(N, n):
    k = np.arange(N + 1)
    R = k / N
    return special.comb(N, k) * (1.0 - generalization_error(R)) ** n


# %% mistake: error clipped away from 1
# function: annealed_action
# kind: branch
# truth: annealed_action clips eps(R) to at most 1 - 1e-12 "to avoid log(0)", so at R = -1 with alpha > 0 it returns a large finite number (log 2 + 27.6 alpha) instead of +inf (the anti-teacher is never consistent).
def annealed_action(R, alpha):
    R = np.asarray(R, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    eps = np.clip(generalization_error(R), 0.0, 1.0 - 1e-12)
    s = np.log(2) - overlap_entropy(R) - alpha * np.log(1.0 - eps)
    return float(s) if np.ndim(s) == 0 else s


# %% mistake: barrier root instead of the minimum
# function: interior_minimum
# kind: concept
# truth: interior_minimum solves the stationarity condition alpha = pi sqrt(1-R^2) (1-eps(R)) artanh(R) on the bracket (R_sp, 1), right of the maximum of that curve, which is the barrier maximum of s(R); the interior minimum is the root on (0, R_sp), closer to R = 0.
def interior_minimum(alpha):
    if alpha == 0:
        return (0.0, 0.0)

    def load_of(R):
        return np.pi * np.sqrt(1 - R**2) * (1 - np.arccos(R) / np.pi) * np.arctanh(R)

    res = optimize.minimize_scalar(lambda R: -load_of(R), bounds=(1e-9, 1 - 1e-12), method="bounded",
                                   options={"xatol": 1e-13})
    R_sp, alpha_sp = res.x, -res.fun
    if alpha > alpha_sp:
        return (float("nan"), float("nan"))
    R_star = optimize.brentq(lambda R: load_of(R) - alpha, R_sp, 1 - 1e-15, xtol=1e-15)
    return (float(R_star), float(annealed_action(R_star, alpha)))


# %% mistake: last student never enumerated
# function: count_consistent_students
# kind: off-by-one
# truth: count_consistent_students enumerates the students as the bits of np.arange(2**N - 1), which leaves out the last student (all components +1), so its count is missing whenever that student is consistent (e.g. with no data the k for all-ones loses 1).
def count_consistent_students(teacher, X):
    teacher = np.asarray(teacher)
    X = np.asarray(X, dtype=float)
    N = teacher.shape[0]
    idx = np.arange(2**N - 1)
    bits = (idx[:, None] >> np.arange(N)[None, :]) & 1
    students = 2 * bits - 1
    y = np.sign(X @ teacher)
    fields = students @ X.T
    ok = np.all(np.sign(fields) == y[None, :], axis=1)
    agree = np.sum(students[ok] == teacher[None, :], axis=1)
    return np.bincount(agree, minlength=N + 1).astype(int)
