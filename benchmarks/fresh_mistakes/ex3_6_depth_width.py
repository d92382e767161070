import math

import numpy as np


# %% mistake: generator rebuilt from the seed for every network
# function: dln_outputs
# kind: reseed
# truth: dln_outputs calls np.random.default_rng(rng) inside the loop over networks, so with an integer seed every network gets the same weights and the M outputs are identical copies; make the generator once, before the loop.
def dln_outputs(L, N, M, rng):
    out = np.empty((M, N))
    x = np.zeros(N)
    x[0] = 1.0
    for m in range(M):
        g = np.random.default_rng(rng)
        z = x
        for _ in range(L + 1):
            z = g.standard_normal((N, N)) @ z / np.sqrt(N)
        out[m] = z
    return out


# %% mistake: L chi-square factors instead of L + 1
# function: dln_output_norms
# kind: off-by-one
# truth: dln_output_norms multiplies L independent chi^2_N / N factors, one per hidden layer, but the network has L + 1 weight matrices, so one factor is missing (at L = 0 it returns exactly 1).
def dln_output_norms(L, N, M, rng):
    rng = np.random.default_rng(rng)
    r = np.ones(M)
    for _ in range(L):
        r = r * rng.chisquare(N, size=M) / N
    return r


# %% mistake: math.expm1 and math.log1p on arrays
# function: kappa4_ratio_exact
# kind: array-crash
# truth: kappa4_ratio_exact uses math.expm1(L * math.log1p(2/N)), which is accurate but only takes scalars and raises for an array of L or N; use np.expm1 and np.log1p.
def kappa4_ratio_exact(L, N):
    return math.expm1(L * math.log1p(2.0 / N))


# %% mistake: divided by khat_2 instead of khat_2 squared
# function: kappa4_ratio_estimate
# kind: factor
# truth: kappa4_ratio_estimate divides khat_4 by khat_2 instead of khat_2^2, so the ratio is not scale invariant (it scales like F^2).
def kappa4_ratio_estimate(F):
    F = np.asarray(F, dtype=float)
    M, K = F.shape
    F2 = F**2
    k2 = F2.mean()
    s = F2.sum(axis=1)
    pairs = (s**2 - (F2**2).sum(axis=1)) / (K * (K - 1))
    k4 = pairs.mean() - k2**2
    return float(k4 / k2)


# %% mistake: family range taken over all models
# function: depth_to_width_table
# kind: concept
# truth: depth_to_width_table gives every family the (min, max) of L/N over all the models in configs rather than over that family's own models; filter the ratios by family first.
def depth_to_width_table(configs, window=(0.005, 0.01)):
    models = [c["model"] for c in configs]
    r = np.array([c["n_layers"] / c["d_model"] for c in configs], dtype=float)
    by_family = {}
    for c in configs:
        by_family[c["family"]] = (float(r.min()), float(r.max()))
    lo, hi = window
    return {"model": models, "L_over_N": r, "by_family": by_family, "in_window": (r >= lo) & (r <= hi)}
