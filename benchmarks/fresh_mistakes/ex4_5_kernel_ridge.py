import numpy as np


# %% mistake: ridge beta I instead of I / beta
# function: posterior_mean
# kind: concept
# truth: posterior_mean adds beta * I to K, but beta is the noise precision, so the ridge is the noise variance I / beta; with beta I the posterior interpolates at small beta and shrinks to 0 at large beta, the wrong way round.
def posterior_mean(K, y, beta):
    K = np.asarray(K, dtype=float)
    n = K.shape[0]
    if np.isinf(beta):
        return K @ np.linalg.solve(K + 1e-300 * np.eye(n), np.asarray(y, dtype=float))
    return K @ np.linalg.solve(K + beta * np.eye(n), np.asarray(y, dtype=float))


# %% mistake: lambda beta / (lambda beta + 1) gives nan at beta = inf
# function: mode_filter
# kind: branch
# truth: mode_filter writes the filter as lambda beta / (lambda beta + 1), which is inf/inf = nan at beta = inf; write it as lambda / (lambda + 1/beta) (1/inf = 0) or treat beta = inf separately.
def mode_filter(eigenvalues, beta):
    lam = np.asarray(eigenvalues, dtype=float)
    out = lam * beta / (lam * beta + 1.0)
    return out if out.ndim else float(out)


# %% mistake: expm1 without the minus sign
# function: early_stopping_filter
# kind: term
# truth: early_stopping_filter returns np.expm1(-eta_t lambda) = exp(-x) - 1, which is minus the filter; 1 - exp(-x) is -np.expm1(-x).
def early_stopping_filter(eigenvalues, eta_t):
    lam = np.asarray(eigenvalues, dtype=float)
    out = np.expm1(-eta_t * lam)
    return out if out.ndim else float(out)


# %% mistake: K_test_train used where its transpose K_X* belongs
# function: posterior_predict
# kind: transpose
# truth: posterior_predict solves (K + I/beta) against K_test_train (m, n) instead of its transpose K_X* (n, m), so the covariance term has the wrong shape (it fails when m != n and is wrong when m == n); use solve(A, K_test_train.T).
def posterior_predict(K_test_train, K_train, K_test_test, y, beta):
    Ks = np.asarray(K_test_train, dtype=float)
    A = np.asarray(K_train, dtype=float) + (0.0 if np.isinf(beta) else 1.0 / beta) * np.eye(len(y))
    mean = Ks @ np.linalg.solve(A, np.asarray(y, dtype=float))
    cov = np.asarray(K_test_test, dtype=float) - Ks @ np.linalg.solve(A, Ks)
    return mean, 0.5 * (cov + cov.T)
