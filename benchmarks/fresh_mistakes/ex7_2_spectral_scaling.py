import numpy as np


# %% mistake: error per piece not squared for MSE
# function: manifold_exponent
# kind: concept
# truth: manifold_exponent takes the interpolation error ~ s^2 = P^(-2/d) as the MSE exponent, forgetting that the mean squared error squares it: alpha_P = 4/d for MSE and 2/d for MAE (the code gives 2/d and 1/d).
def manifold_exponent(d, loss="mse"):
    d = np.asarray(d, dtype=float)
    if loss == "mse":
        out = 2.0 / d
    elif loss == "mae":
        out = 1.0 / d
    else:
        raise ValueError(f"unknown loss {loss!r}")
    return out if out.ndim else float(out)


# %% mistake: MSE inversion used for both losses
# function: manifold_dimension
# kind: ignored-arg
# truth: manifold_dimension returns 4 / alpha_P whatever the loss, ignoring the loss argument; for an exponent measured in MAE the inversion is d = 2 / alpha_P.
def manifold_dimension(alpha_P, loss="mse"):
    out = 4.0 / np.asarray(alpha_P, dtype=float)
    return out if out.ndim else float(out)


# %% mistake: filter factor not squared
# function: spectral_learning_curve
# kind: factor
# truth: spectral_learning_curve divides k^-b by (1 + n beta k^-a) instead of its square; the residual of each mode after the filter is squared, L(n) = sum_k k^-b / (1 + n beta k^-a)^2.
def spectral_learning_curve(n, a, b, beta, n_modes):
    n_arr = np.asarray(n, dtype=float)
    k = np.arange(1, n_modes + 1, dtype=float)
    out = np.array([np.sum(k**-b / (1 + nn * beta * k**-a)) for nn in n_arr.ravel()]).reshape(n_arr.shape)
    return float(out) if out.ndim == 0 else out


# %% mistake: coefficient error not weighted by the mode variance
# function: krr_test_error
# kind: concept
# truth: krr_test_error sums (v_k - w_k)^2 over the weight vectors of x, but the inputs have variance k^-a per mode, so the population error is sum_k k^-a (v_k - w_k)^2 (equivalently sum_k (mu_k - y_k)^2 in the normalized coefficients).
def krr_test_error(n, a, b, beta, n_modes, seed):
    rng = np.random.default_rng(seed)
    k = np.arange(1, n_modes + 1, dtype=float)
    lam = k**-a
    w = k ** (-b / 2) / np.sqrt(lam)
    X = rng.standard_normal((n, n_modes)) * np.sqrt(lam)
    y = X @ w
    coef = np.linalg.solve(X @ X.T + np.eye(n) / beta, y)
    v = X.T @ coef
    return float(np.sum((v - w) ** 2))
