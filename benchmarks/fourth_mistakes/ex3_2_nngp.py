import numpy as np
from scipy import special


# %% mistake: sigma_w left out of the erf kernel
# function: erf_kernel
# kind: ignored-arg
# truth: erf_kernel returns (2/pi) arcsin(2 K12 / sqrt((1 + 2 K11)(1 + 2 K22))) without the factor sigma_w, so the argument sigma_w is ignored and the kernel is right only at the default sigma_w = 1.
def erf_kernel(K11, K22, K12, sigma_w=1):
    K11, K22, K12 = (np.asarray(a, dtype=float) for a in (K11, K22, K12))
    arg = np.clip(2 * K12 / np.sqrt((1 + 2 * K11) * (1 + 2 * K22)), -1.0, 1.0)
    out = 2 / np.pi * np.arcsin(arg)
    return float(out) if out.ndim == 0 else out


# %% mistake: zero-variance guard with a Python if
# function: relu_kernel
# kind: array-crash
# truth: relu_kernel handles the zero-variance case with a Python `if K11 * K22 == 0: return 0.0`, which raises "truth value of an array is ambiguous" on array arguments; the guard must be elementwise (np.where) so that the kernel broadcasts.
def relu_kernel(K11, K22, K12, sigma_w=2):
    if K11 * K22 == 0:
        return 0.0
    norm = np.sqrt(K11 * K22)
    cos = np.clip(K12 / norm, -1.0, 1.0)
    theta = np.arccos(cos)
    return sigma_w / (2 * np.pi) * norm * (np.sin(theta) + (np.pi - theta) * cos)


# %% mistake: one hidden layer too few
# function: nngp_kernel
# kind: off-by-one
# truth: nngp_kernel applies the layer map for layer in range(1, depth), i.e. depth - 1 times, so the output kernel belongs to a network with one hidden layer less (depth 1 returns the linear kernel K1); the map must be applied depth times.
def nngp_kernel(X, depth, activation, sigma_w, sigma_b):
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    K = sigma_w * X @ X.T / d + sigma_b
    F = {"erf": erf_kernel, "relu": relu_kernel}[activation]
    for _layer in range(1, depth):
        diag = np.diag(K)
        K = np.asarray(F(diag[:, None], diag[None, :], K, sigma_w)) + sigma_b
    return K


# %% mistake: generator re-seeded per initialization
# function: stochastic_kernel_variance
# kind: reseed
# truth: stochastic_kernel_variance calls np.random.default_rng(rng) inside its loop over the M initializations, so with an integer seed every initialization draws the same first layer and the variances come out 0 (the generator must be created once, before the loop).
def stochastic_kernel_variance(N, M, rng, x=None, x2=None):
    if x is None or x2 is None:
        x, x2 = exercise_inputs()
    x, x2 = np.asarray(x, dtype=float), np.asarray(x2, dtype=float)
    d = x.shape[0]
    K = np.empty((M, 3))
    for k in range(M):
        gen = np.random.default_rng(rng)
        a = gen.standard_normal((N, d))
        e1 = special.erf(a @ x / np.sqrt(d))
        e2 = special.erf(a @ x2 / np.sqrt(d))
        K[k] = [np.mean(e1 * e1), np.mean(e2 * e2), np.mean(e1 * e2)]
    return np.var(K, axis=0, ddof=1)
