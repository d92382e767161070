import numpy as np


def _um_curve(n, a, b, beta, n_modes, power=2):
    k = np.arange(1.0, n_modes + 1.0)
    n_arr = np.asarray(n, dtype=float)
    out = np.sum(k ** -b / (1 + n_arr[..., None] * beta * k ** -a) ** power, axis=-1)
    return float(out) if out.ndim == 0 else out


# %% mistake: unknown loss treated as MSE
# function: manifold_exponent
# kind: branch
# truth: every loss other than "mae" falls into the MSE branch, so an unknown loss returns 4/d instead of raising ValueError.
def manifold_exponent(d, loss="mse"):
    d = np.asarray(d, dtype=float)
    out = 2.0 / d if loss == "mae" else 4.0 / d
    return float(out) if out.ndim == 0 else out


# %% mistake: float() of the dimension
# function: manifold_dimension
# kind: array-crash
# truth: the result is wrapped in float(), which only works for a scalar alpha_P; an array of exponents raises.
def manifold_dimension(alpha_P, loss="mse"):
    if loss == "mse":
        return float(4.0 / alpha_P)
    if loss == "mae":
        return float(2.0 / alpha_P)
    raise ValueError(loss)


# %% mistake: filter not squared
# function: spectral_learning_curve
# kind: factor
# truth: the residual of mode k is (1 - filter)^2 y_k^2 = k^-b / (1 + n beta k^-a)^2; the square of the denominator is missing.
def spectral_learning_curve(n, a, b, beta, n_modes):
    return _um_curve(n, a, b, beta, n_modes, power=1)


# %% mistake: beta not passed on
# function: measured_exponent
# kind: ignored-arg
# truth: beta is ignored: the learning curve is evaluated at beta = 1 instead of the beta given.
def measured_exponent(a, b, ns, beta=1.0, n_modes=10**6):
    ns = np.asarray(ns, dtype=float)
    L = _um_curve(ns, a, b, 1.0, n_modes)
    return float(-np.polyfit(np.log(ns), np.log(L), 1)[0])


# %% mistake: inputs drawn with unit variance
# function: krr_test_error
# kind: concept
# truth: the inputs are drawn as x_k ~ N(0, 1) instead of N(0, k^-a): the kernel's spectrum lambda_k = k^-a comes from the input variances, so the data set is drawn from the wrong law.
def krr_test_error(n, a, b, beta, n_modes, seed):
    rng = np.random.default_rng(seed)
    k = np.arange(1.0, n_modes + 1.0)
    lam = k ** -a
    c = k ** (-b / 2) / np.sqrt(lam)
    X = rng.standard_normal((n, n_modes))
    y = X @ c
    alpha = np.linalg.solve(X @ X.T + np.eye(n) / beta, y)
    w = X.T @ alpha
    return float(np.sum(lam * (w - c) ** 2))
