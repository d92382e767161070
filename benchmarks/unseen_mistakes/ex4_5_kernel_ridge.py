import numpy as np


# %% mistake: ridge beta instead of 1/beta
# function: posterior_mean
# kind: factor
# truth: the ridge added to K is beta I instead of I/beta (the noise variance is 1/beta), so the regularization goes the wrong way with beta.
def posterior_mean(K, y, beta):
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    if np.isinf(beta):
        return K @ np.linalg.solve(K, y)
    return K @ np.linalg.solve(K + beta * np.eye(len(y)), y)


# %% mistake: scalar branch on an array
# function: early_stopping_filter
# kind: array-crash
# truth: the small-argument branch `if x < 1e-8` only works for a float; an array of eigenvalues raises (ambiguous truth value). Use -np.expm1(-x) elementwise.
def early_stopping_filter(eigenvalues, eta_t):
    x = eta_t * eigenvalues
    if x < 1e-8:
        return x - x * x / 2
    return 1 - np.exp(-x)


# %% mistake: effective ridge nan at zero eigenvalue
# function: effective_ridge
# kind: branch
# truth: at lambda = 0 the formula lambda / expm1(eta_t lambda) is 0/0 = nan; the limit 1/eta_t is not handled.
def effective_ridge(eigenvalue, eta_t):
    lam = np.asarray(eigenvalue, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = lam / np.expm1(eta_t * lam)
    return float(out) if out.ndim == 0 else out


# %% mistake: K_test_train used where its transpose belongs
# function: posterior_predict
# kind: transpose
# truth: the covariance uses K_*X (K + I/beta)^-1 K_*X instead of K_*X (K + I/beta)^-1 K_X* with K_X* = K_test_train.T: the last factor must be transposed.
def posterior_predict(K_test_train, K_train, K_test_test, y, beta):
    Ks = np.asarray(K_test_train, dtype=float)
    K = np.asarray(K_train, dtype=float)
    A = K if np.isinf(beta) else K + np.eye(K.shape[0]) / beta
    mean = Ks @ np.linalg.solve(A, np.asarray(y, dtype=float))
    cov = np.asarray(K_test_test, dtype=float) - Ks @ np.linalg.solve(A, Ks)
    return mean, cov
