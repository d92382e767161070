import numpy as np
from scipy import special


# %% mistake: erf kernel without sigma_w
# function: erf_kernel
# kind: ignored-arg
# truth: the next-layer kernel is sigma_w (2/pi) arcsin(...); the weight variance sigma_w is never multiplied in, so the result is right only for sigma_w = 1.
def erf_kernel(K11, K22, K12, sigma_w=1):
    return (2 / np.pi) * np.arcsin(2 * K12 / np.sqrt((1 + 2 * K11) * (1 + 2 * K22)))


# %% mistake: zero-variance input gives nan
# function: relu_kernel
# kind: branch
# truth: where K11 * K22 == 0 the kernel must be 0; the code divides K12 by sqrt(K11 K22) = 0 and returns nan there.
def relu_kernel(K11, K22, K12, sigma_w=2):
    K11, K22, K12 = (np.asarray(v, dtype=float) for v in (K11, K22, K12))
    s = np.sqrt(K11 * K22)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.clip(K12 / s, -1, 1)
    th = np.arccos(c)
    out = sigma_w / (2 * np.pi) * s * (np.sin(th) + (np.pi - th) * np.cos(th))
    return float(out) if out.ndim == 0 else out


# %% mistake: arc-cosine kernel over pi instead of 2 pi
# function: relu_kernel
# kind: factor
# truth: the ReLU kernel has the prefactor sigma_w / (2 pi); with sigma_w / pi it is twice too large (He initialization no longer preserves the diagonal).
def relu_kernel(K11, K22, K12, sigma_w=2):
    K11, K22, K12 = (np.asarray(v, dtype=float) for v in (K11, K22, K12))
    s = np.sqrt(K11 * K22)
    safe = np.where(s > 0, s, 1.0)
    th = np.arccos(np.clip(K12 / safe, -1, 1))
    out = np.where(s > 0, sigma_w / np.pi * s * (np.sin(th) + (np.pi - th) * np.cos(th)), 0.0)
    return float(out) if out.ndim == 0 else out


# %% mistake: one layer map too many
# function: nngp_kernel
# kind: off-by-one
# truth: the layer map is applied depth + 1 times (range(depth + 1)); it should be applied depth times after K1, so depth 0 is the linear model.
def nngp_kernel(X, depth, activation, sigma_w, sigma_b):
    X = np.asarray(X, dtype=float)
    K = sigma_w * X @ X.T / X.shape[1] + sigma_b
    f = erf_kernel if activation == "erf" else relu_kernel
    for _ in range(depth + 1):
        d = np.diag(K)
        K = f(d[:, None], d[None, :], K, sigma_w) + sigma_b
    return K


# %% mistake: weights drawn with standard deviation sigma_w
# function: sample_network_outputs
# kind: concept
# truth: sigma_w is the weight variance; the code draws a_ij and c_i with scale=sigma_w (standard deviation sigma_w), so for sigma_w != 1 the outputs have the wrong spread (scale should be sqrt(sigma_w)).
def sample_network_outputs(x, x2, N, M, rng, sigma_w=1.0):
    rng = np.random.default_rng(rng)
    x, x2 = np.asarray(x, dtype=float), np.asarray(x2, dtype=float)
    d = x.shape[0]
    out = np.empty((M, 2))
    block = max(1, 2_000_000 // (N * d))
    for s in range(0, M, block):
        m = min(block, M - s)
        a = rng.normal(0.0, sigma_w, size=(m, N, d))
        c = rng.normal(0.0, sigma_w, size=(m, N))
        h = a @ np.stack([x, x2], axis=1) / np.sqrt(d)
        out[s:s + m] = np.einsum("mn,mnk->mk", c, special.erf(h)) / np.sqrt(N)
    return out
