import numpy as np


# %% mistake: any loss but mse treated as mae
# function: manifold_exponent
# kind: branch
# truth: manifold_exponent tests only loss == "mse" and returns the MAE exponent 2/d in the else branch, so an unknown loss such as "cross-entropy" silently gets 2/d instead of raising ValueError.
def manifold_exponent(d, loss="mse"):
    d = np.asarray(d, dtype=float)
    out = 4.0 / d if loss == "mse" else 2.0 / d
    return float(out) if out.ndim == 0 else out


# %% mistake: polyfit slope returned with its sign
# function: measured_exponent
# kind: term
# truth: measured_exponent returns the least-squares slope of log L against log n, which is negative for a decreasing curve, instead of its negative; in the convention L ~ n^-exponent of Ex 7.1 a decreasing learning curve has a positive exponent.
def measured_exponent(a, b, ns, beta=1.0, n_modes=10**6):
    ns = np.asarray(ns, dtype=float)
    L = np.asarray(spectral_learning_curve(ns, a, b, beta, n_modes), dtype=float)
    slope, _ = np.polyfit(np.log(ns), np.log(L), 1)
    return float(slope)


# %% mistake: coefficients of x_k, not of phi_k
# function: krr_test_error
# kind: concept
# truth: krr_test_error takes mu_k = [X^T (K_hat + I/beta)^{-1} y]_k, the coefficient of the raw coordinate x_k, and compares it with y_k; the coefficient of the orthonormal eigenfunction phi_k = x_k / sqrt(lambda_k) is sqrt(lambda_k) times that, so the error is wrong except where lambda_k = 1.
def krr_test_error(n, a, b, beta, n_modes, seed):
    g = np.random.default_rng(seed)
    k = np.arange(1.0, n_modes + 1.0)
    lam = k ** (-a)
    yk = k ** (-b / 2)
    Z = g.standard_normal((n, n_modes))
    X = Z * np.sqrt(lam)[None, :]
    y = Z @ yk
    K = X @ X.T
    alpha = np.linalg.solve(K + np.eye(n) / beta, y)
    mu = X.T @ alpha
    return float(np.sum((mu - yk) ** 2))
