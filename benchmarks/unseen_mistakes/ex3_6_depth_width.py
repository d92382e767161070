import math

import numpy as np


# %% mistake: one weight matrix too few
# function: dln_outputs
# kind: off-by-one
# truth: the loop applies L weight matrices instead of L + 1 (range(L) for layers 1..L+1), so L = 0 returns the input itself.
def dln_outputs(L, N, M, rng):
    rng = np.random.default_rng(rng)
    z = np.zeros((M, N))
    z[:, 0] = 1.0
    for _ in range(L):
        W = rng.standard_normal((M, N, N))
        z = np.einsum("mij,mj->mi", W, z) / np.sqrt(N)
    return z


# %% mistake: generator re-made at every layer
# function: dln_output_norms
# kind: reseed
# truth: as_generator(rng) is called inside the layer loop, so with an int seed every layer draws the same chi^2_N/N factors and the L+1 factors are identical instead of independent.
def dln_output_norms(L, N, M, rng):
    r = np.ones(M)
    for _ in range(L + 1):
        g = as_generator(rng)
        r = r * g.chisquare(N, size=M) / N
    return r


# %% mistake: standard deviation instead of variance
# function: lognormal_prediction
# kind: concept
# truth: the second entry is the standard deviation sqrt(2 L/N), not the variance 2 L/N.
def lognormal_prediction(L, N):
    L, N = np.asarray(L, dtype=float), np.asarray(N, dtype=float)
    mean, var = -L / N, np.sqrt(2 * L / N)
    if mean.ndim == 0:
        return float(mean), float(var)
    return mean, var


# %% mistake: math.log1p on arrays
# function: kappa4_ratio_exact
# kind: array-crash
# truth: math.expm1/math.log1p only take scalars, so an array of depths or widths raises; use np.expm1(L * np.log1p(2/N)).
def kappa4_ratio_exact(L, N):
    return math.expm1(L * math.log1p(2 / N))


# %% mistake: off-diagonal sum divided by K squared
# function: kappa4_ratio_estimate
# kind: bessel
# truth: the sum over the K(K-1) pairs i != j is divided by K^2 instead of K(K-1), so the pair average is low by (K-1)/K.
def kappa4_ratio_estimate(F):
    F = np.asarray(F, dtype=float)
    M, K = F.shape
    k2 = np.mean(F**2)
    s = F**2
    pair = (s.sum(axis=1) ** 2 - (s**2).sum(axis=1)) / K**2
    k4 = pair.mean() - k2**2
    return float(k4 / k2**2)


# %% mistake: window endpoints excluded
# function: depth_to_width_table
# kind: branch
# truth: the window test uses strict inequalities low < L/N < high, but the window includes its endpoints.
def depth_to_width_table(configs, window=(0.005, 0.01)):
    names = [c["model"] for c in configs]
    r = np.array([c["n_layers"] / c["d_model"] for c in configs], dtype=float)
    fam = {}
    for c, v in zip(configs, r):
        lo, hi = fam.get(c["family"], (np.inf, -np.inf))
        fam[c["family"]] = (min(lo, v), max(hi, v))
    low, high = window
    return {"model": names, "L_over_N": r, "by_family": fam, "in_window": (r > low) & (r < high)}
