import numpy as np


# %% mistake: variance passed as the scale of normal
# function: dln_outputs
# kind: concept
# truth: dln_outputs samples each layer as rng.normal(0, |z|^2 / N, size=N), but numpy's normal takes the standard deviation as its scale; the conditional law is N(0, |z|^2/N I), so the scale must be sqrt(|z|^2 / N) (as written the mean of |f|^2 is no longer 1).
def dln_outputs(L, N, M, rng):
    rng = np.random.default_rng(rng)
    out = np.empty((M, N))
    for m in range(M):
        z = np.zeros(N)
        z[0] = 1.0
        for _layer in range(L + 1):
            z = rng.normal(0.0, np.sum(z**2) / N, size=N)
        out[m] = z
    return out


# %% mistake: L chi-square factors instead of L+1
# function: dln_output_norms
# kind: off-by-one
# truth: dln_output_norms multiplies L independent chi^2_N / N factors, one per hidden layer, but the network has L+1 weight matrices and |f|^2 is a product of L+1 factors (at L = 0 it returns exactly 1 instead of chi^2_N / N).
def dln_output_norms(L, N, M, rng):
    rng = np.random.default_rng(rng)
    X = rng.chisquare(N, size=(M, L)) / N
    return np.prod(X, axis=1)


# %% mistake: single-component fourth cumulant
# function: kappa4_ratio_estimate
# kind: factor
# truth: kappa4_ratio_estimate estimates the single-component cumulant E f^4 - 3 (E f^2)^2 = kappa(f_i, f_i, f_i, f_i) = 3 kappa_4 instead of the connected correlator of two different components, E f_i^2 f_j^2 - (E f^2)^2, so the ratio is three times too large.
def kappa4_ratio_estimate(F):
    F = np.asarray(F, dtype=float)
    k2 = np.mean(F**2)
    k4 = np.mean(F**4) - 3 * k2**2
    return float(k4 / k2**2)


# %% mistake: window argument ignored
# function: depth_to_width_table
# kind: ignored-arg
# truth: depth_to_width_table tests 0.005 <= L/N <= 0.01 with the notes' numbers written in, ignoring the window argument, so a caller's window (e.g. (0.0085, 0.0095)) has no effect on "in_window".
def depth_to_width_table(configs, window=(0.005, 0.01)):
    models = [c["model"] for c in configs]
    ratio = np.array([c["n_layers"] / c["d_model"] for c in configs], dtype=float)
    by_family = {}
    for c, r in zip(configs, ratio):
        lo, hi = by_family.get(c["family"], (np.inf, -np.inf))
        by_family[c["family"]] = (min(lo, r), max(hi, r))
    in_window = (ratio >= 0.005) & (ratio <= 0.01)
    return {"model": models, "L_over_N": ratio, "by_family": by_family, "in_window": in_window}
