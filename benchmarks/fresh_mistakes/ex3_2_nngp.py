import numpy as np
from scipy import special


# %% mistake: theta cos(theta) instead of (pi - theta) cos(theta)
# function: relu_kernel
# kind: term
# truth: relu_kernel uses sin(theta) + theta cos(theta); the arc-cosine kernel is sin(theta) + (pi - theta) cos(theta), so the kernel is wrong for every pair of inputs except orthogonal ones.
def relu_kernel(K11, K22, K12, sigma_w=2):
    K11, K22, K12 = (np.asarray(a, dtype=float) for a in (K11, K22, K12))
    norm = np.sqrt(K11 * K22)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.clip(np.where(norm > 0, K12 / np.where(norm > 0, norm, 1.0), 0.0), -1.0, 1.0)
    theta = np.arccos(c)
    out = sigma_w / (2 * np.pi) * norm * (np.sin(theta) + theta * np.cos(theta))
    out = np.where(norm > 0, out, 0.0)
    return out if out.ndim else float(out)


# %% mistake: kernel updated in place, entry by entry
# function: nngp_kernel
# kind: concept
# truth: nngp_kernel overwrites K entry by entry inside the double loop, so later entries are computed from variances K[i, i], K[j, j] of the new layer instead of the previous one; compute the whole new layer from a copy (or vectorised from the old diagonal).
def nngp_kernel(X, depth, activation, sigma_w, sigma_b):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    K = sigma_w * X @ X.T / d + sigma_b
    fn = erf_kernel if activation == "erf" else relu_kernel
    for _ in range(depth):
        for i in range(n):
            for j in range(i, n):
                K[i, j] = sigma_w * fn(K[i, i], K[j, j], K[i, j], 1.0) + sigma_b
                K[j, i] = K[i, j]
    return K


# %% mistake: sigma_w used as the standard deviation of the weights
# function: sample_network_outputs
# kind: concept
# truth: sample_network_outputs draws the weights with standard deviation sigma_w, but sigma_w is their variance; use scale sqrt(sigma_w), otherwise the outputs are wrong for every sigma_w != 1.
def sample_network_outputs(x, x2, N, M, rng, sigma_w=1.0):
    rng = np.random.default_rng(rng)
    X = np.stack([np.asarray(x, dtype=float), np.asarray(x2, dtype=float)])   # (2, d)
    d = X.shape[1]
    out = np.empty((M, 2))
    block = max(1, 200_000 // (N * d))
    for s in range(0, M, block):
        b = min(block, M - s)
        a = rng.normal(0.0, sigma_w, size=(b, N, d))
        c = rng.normal(0.0, sigma_w, size=(b, N))
        h = special.erf(a @ X.T / np.sqrt(d))                # (b, N, 2)
        out[s:s + b] = np.einsum("bn,bnk->bk", c, h) / np.sqrt(N)
    return out


# %% mistake: given inputs ignored, this year's inputs always used
# function: stochastic_kernel_variance
# kind: ignored-arg
# truth: stochastic_kernel_variance always evaluates the kernel at exercise_inputs(), ignoring the x and x2 it is given; use them and fall back on exercise_inputs() only when they are None.
def stochastic_kernel_variance(N, M, rng, x=None, x2=None):
    rng = np.random.default_rng(rng)
    x, x2 = exercise_inputs()
    X = np.stack([np.asarray(x, dtype=float), np.asarray(x2, dtype=float)])
    d = X.shape[1]
    K = np.empty((M, 3))
    block = max(1, 200_000 // (N * d))
    for s in range(0, M, block):
        b = min(block, M - s)
        a = rng.standard_normal((b, N, d))
        h = special.erf(a @ X.T / np.sqrt(d))
        K[s:s + b, 0] = np.mean(h[..., 0] ** 2, axis=1)
        K[s:s + b, 1] = np.mean(h[..., 1] ** 2, axis=1)
        K[s:s + b, 2] = np.mean(h[..., 0] * h[..., 1], axis=1)
    return np.var(K, axis=0, ddof=1)
