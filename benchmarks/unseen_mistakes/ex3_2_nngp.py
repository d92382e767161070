import numpy as np
from scipy import special


def _um_erf_k(K11, K22, K12, sigma_w=1.0):
    return sigma_w * 2 / np.pi * np.arcsin(2 * K12 / np.sqrt((1 + 2 * K11) * (1 + 2 * K22)))


def _um_relu_k(K11, K22, K12, sigma_w=2.0):
    K11, K22, K12 = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (K11, K22, K12)))
    n = np.sqrt(K11 * K22)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.clip(np.where(n > 0, K12 / np.where(n > 0, n, 1), 0.0), -1, 1)
    t = np.arccos(c)
    return np.where(n > 0, sigma_w / (2 * np.pi) * n * (np.sin(t) + (np.pi - t) * np.cos(t)), 0.0)


# %% mistake: erf kernel without the factor 2 in the arcsine
# function: erf_kernel
# kind: factor
# truth: the arcsine argument is 2 K12 / sqrt((1 + 2 K11)(1 + 2 K22)); the factor 2 in the numerator is missing.
def erf_kernel(K11, K22, K12, sigma_w=1):
    return sigma_w * 2 / np.pi * np.arcsin(K12 / np.sqrt((1 + 2 * K11) * (1 + 2 * K22)))


# %% mistake: angle from the unnormalized covariance
# function: relu_kernel
# kind: concept
# truth: the angle is computed as arccos(K12) instead of arccos(K12 / sqrt(K11 K22)): the covariance is used as if it were the correlation.
def relu_kernel(K11, K22, K12, sigma_w=2):
    K11, K22, K12 = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (K11, K22, K12)))
    n = np.sqrt(K11 * K22)
    t = np.arccos(np.clip(K12, -1, 1))
    out = np.where(n > 0, sigma_w / (2 * np.pi) * n * (np.sin(t) + (np.pi - t) * np.cos(t)), 0.0)
    return float(out) if out.ndim == 0 else out


# %% mistake: bias only in the first layer
# function: nngp_kernel
# kind: term
# truth: sigma_b is added to the first-layer kernel only; the recursion K <- sigma_w F(K) + sigma_b drops the bias term in the hidden layers.
def nngp_kernel(X, depth, activation, sigma_w, sigma_b):
    X = np.asarray(X, dtype=float)
    K = sigma_w * X @ X.T / X.shape[1] + sigma_b
    for _ in range(depth):
        d = np.diag(K)
        F = _um_erf_k if activation == "erf" else _um_relu_k
        K = F(d[:, None], d[None, :], K, sigma_w)
    return K


# %% mistake: first-layer Gram matrix transposed
# function: nngp_kernel
# kind: transpose
# truth: the first-layer kernel is built as X^T X / d (a d x d matrix over coordinates) instead of X X^T / d (n x n over inputs).
def nngp_kernel(X, depth, activation, sigma_w, sigma_b):
    X = np.asarray(X, dtype=float)
    K = sigma_w * X.T @ X / X.shape[1] + sigma_b
    for _ in range(depth):
        d = np.diag(K)
        F = _um_erf_k if activation == "erf" else _um_relu_k
        K = F(d[:, None], d[None, :], K, sigma_w) + sigma_b
    return K


# %% mistake: generator re-created for every network
# function: sample_network_outputs
# kind: reseed
# truth: np.random.default_rng(rng) is called inside the loop over networks, so with an int seed every network gets the same weights and all M rows are identical.
def sample_network_outputs(x, x2, N, M, rng, sigma_w=1.0):
    x, x2 = np.asarray(x, dtype=float), np.asarray(x2, dtype=float)
    d = x.shape[0]
    out = np.empty((M, 2))
    for k in range(M):
        g = np.random.default_rng(rng)
        a = g.normal(0.0, np.sqrt(sigma_w), size=(N, d))
        c = g.normal(0.0, np.sqrt(sigma_w), size=N)
        out[k, 0] = c @ special.erf(a @ x / np.sqrt(d)) / np.sqrt(N)
        out[k, 1] = c @ special.erf(a @ x2 / np.sqrt(d)) / np.sqrt(N)
    return out


# %% mistake: population variance across initializations
# function: stochastic_kernel_variance
# kind: bessel
# truth: the variance over the M initializations uses ddof=0 (divides by M) instead of the sample variance with ddof=1, biased low by (M-1)/M.
def stochastic_kernel_variance(N, M, rng, x=None, x2=None):
    rng = np.random.default_rng(rng)
    if x is None or x2 is None:
        x, x2 = exercise_inputs()
    x, x2 = np.asarray(x, dtype=float), np.asarray(x2, dtype=float)
    d = x.shape[0]
    vals = np.empty((M, 3))
    for k in range(M):
        a = rng.standard_normal((N, d))
        e1, e2 = special.erf(a @ x / np.sqrt(d)), special.erf(a @ x2 / np.sqrt(d))
        vals[k] = [e1 @ e1 / N, e2 @ e2 / N, e1 @ e2 / N]
    return np.var(vals, axis=0)
