import numpy as np


# %% mistake: A = K aliases K before A += I/beta
# function: posterior_mean
# kind: concept
# truth: posterior_mean writes A = K (a second name for the same array, not a copy) and then A += I/beta in place, so K itself becomes K + I/beta and mu = K @ solve(A, y) returns y for every beta (and the caller's kernel matrix is modified); A must be a new array, A = K + I/beta.
def posterior_mean(K, y, beta):
    y = np.asarray(y, dtype=float)
    ridge = 0.0 if np.isinf(beta) else 1.0 / beta
    A = K
    A += ridge * np.eye(A.shape[0])
    return K @ np.linalg.solve(A, y)


# %% mistake: unlearned fraction returned
# function: mode_filter
# kind: concept
# truth: mode_filter returns 1/(1 + beta lambda), the fraction of the mode that is NOT learned (the residual factor of (3)), instead of the learned fraction lambda/(lambda + 1/beta) = beta lambda/(1 + beta lambda); it decreases with lambda and beta where it should increase.
def mode_filter(eigenvalues, beta):
    lam = np.asarray(eigenvalues, dtype=float)
    out = 1.0 / (1.0 + beta * lam) if not np.isinf(beta) else np.zeros_like(lam)
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: limit eta t instead of 1/(eta t)
# function: effective_ridge
# kind: branch
# truth: effective_ridge handles lambda = 0 with the limit eta_t, but lambda / expm1(eta_t lambda) -> lambda / (eta_t lambda) = 1/eta_t as lambda -> 0, so the zero-eigenvalue case returns eta_t instead of 1/eta_t (the nonzero eigenvalues are right).
def effective_ridge(eigenvalue, eta_t):
    lam = np.asarray(eigenvalue, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(lam == 0, eta_t, lam / np.expm1(eta_t * np.where(lam == 0, 1.0, lam)))
    return float(out) if out.ndim == 0 else out
