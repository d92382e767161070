import numpy as np


# %% mistake: MAE exponent from an O(s) error
# function: manifold_exponent
# kind: concept
# truth: the pointwise error of a linear patch is the Taylor remainder O(s^2), so MAE ~ s^2 ~ P^(-2/d) (half the MSE exponent 4/d); the code takes the error to be O(s) and returns 1/d for MAE.
def manifold_exponent(d, loss="mse"):
    d = np.asarray(d, dtype=float)
    if loss == "mse":
        out = 4.0 / d
    elif loss == "mae":
        out = 1.0 / d
    else:
        raise ValueError(f"unknown loss {loss!r}")
    return float(out) if out.ndim == 0 else out


# %% mistake: residual filter not squared
# function: spectral_learning_curve
# kind: factor
# truth: the test error keeps the square of the unlearned fraction of each mode, sum_k k^-b / (1 + n beta k^-a)^2; the code uses the first power, which overestimates the error of the partly learned modes.
def spectral_learning_curve(n, a, b, beta, n_modes):
    k = np.arange(1.0, n_modes + 1.0)
    nn = np.asarray(n, dtype=float)
    out = np.sum(k ** -b / (1.0 + np.multiply.outer(nn, k ** -a) * beta), axis=-1)
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: beta not passed on to the learning curve
# function: measured_exponent
# kind: ignored-arg
# truth: the fit must use spectral_learning_curve(n, a, b, beta, n_modes) with the given beta; the code calls it with beta = 1.0, so the exponent is fitted on the curve at another inverse temperature (only n beta enters, so the sample sizes are effectively rescaled).
def measured_exponent(a, b, ns, beta=1.0, n_modes=10**6):
    ns = np.asarray(ns, dtype=float)
    L = np.array([spectral_learning_curve(n, a, b, 1.0, n_modes) for n in ns])
    return float(-np.polyfit(np.log(ns), np.log(L), 1)[0])


# %% mistake: labels built from x instead of the eigenfunctions
# function: krr_test_error
# kind: concept
# truth: the target is y(x) = sum_k y_k phi_k(x) with phi_k = x_k / sqrt(lambda_k), so y^mu = sum_k y_k Z_mu,k; the code uses y^mu = sum_k y_k x^mu_k, a different target (coefficients sqrt(lambda_k) y_k), while the error is still measured against y_k.
def krr_test_error(n, a, b, beta, n_modes, seed):
    g = np.random.default_rng(seed)
    k = np.arange(1.0, n_modes + 1.0)
    lam = k ** -a
    yk = k ** (-b / 2.0)
    Z = g.standard_normal((int(n), int(n_modes)))
    X = Z * np.sqrt(lam)
    y = X @ yk
    K = X @ X.T
    alpha = np.linalg.solve(K + np.eye(int(n)) / beta, y)
    mu = np.sqrt(lam) * (X.T @ alpha)
    return float(np.sum((mu - yk) ** 2))
