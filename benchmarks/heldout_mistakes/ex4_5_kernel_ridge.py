import numpy as np
import scipy.linalg


# %% mistake: beta used as the ridge instead of 1/beta
# function: posterior_mean
# kind: concept
# truth: beta is the noise precision, so the ridge in mu = K (K + I/beta)^{-1} y is 1/beta; the code adds beta I, which shrinks most at large beta (the low-noise limit) and interpolates as beta -> 0, the opposite of the posterior.
def posterior_mean(K, y, beta):
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    n = K.shape[0]
    if np.isinf(beta):
        return K @ np.linalg.solve(K, y)
    return K @ np.linalg.solve(K + beta * np.eye(n), y)


# %% mistake: observation noise added to the predictive covariance
# function: posterior_predict
# kind: term
# truth: the covariance asked for is that of the latent function, K_** - K_*X (K + I/beta)^{-1} K_X*; the code adds the observation noise I/beta on the diagonal, which is the covariance of a new noisy label.
def posterior_predict(K_test_train, K_train, K_test_test, y, beta):
    Ks = np.asarray(K_test_train, dtype=float)
    K = np.asarray(K_train, dtype=float)
    Kss = np.asarray(K_test_test, dtype=float)
    y = np.asarray(y, dtype=float)
    ridge = 0.0 if np.isinf(beta) else 1.0 / beta
    L = np.linalg.cholesky(K + ridge * np.eye(K.shape[0]))
    V = scipy.linalg.solve_triangular(L, Ks.T, lower=True)
    a = scipy.linalg.cho_solve((L, True), y)
    mean = Ks @ a
    cov = Kss - V.T @ V + ridge * np.eye(Kss.shape[0])
    return mean, 0.5 * (cov + cov.T)


# %% mistake: effective ridge with exp - 1 and no lambda = 0 limit
# function: effective_ridge
# kind: branch
# truth: lambda / (exp(eta_t lambda) - 1) must be evaluated with expm1 and given its limit 1/eta_t at lambda = 0; np.exp(x) - 1 loses digits for tiny eta_t lambda and 0/0 gives nan at lambda = 0.
def effective_ridge(eigenvalue, eta_t):
    lam = np.asarray(eigenvalue, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = lam / (np.exp(eta_t * lam) - 1.0)
    return float(out) if out.ndim == 0 else out


# %% mistake: mode filter returns the unlearned fraction
# function: mode_filter
# kind: concept
# truth: the filter is the learned fraction lambda / (lambda + 1/beta) = beta lambda / (1 + beta lambda) of (3); the code returns the residual fraction 1 / (1 + beta lambda) (what the posterior leaves of y_k), which falls instead of rising with lambda.
def mode_filter(eigenvalues, beta):
    lam = np.asarray(eigenvalues, dtype=float)
    if np.isinf(beta):
        out = np.zeros_like(lam)
    else:
        out = 1.0 / (1.0 + beta * lam)
    return float(out) if out.ndim == 0 else out
