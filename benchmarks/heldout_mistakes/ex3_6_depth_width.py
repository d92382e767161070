import numpy as np
from scipy import special


# %% mistake: layers divided by N instead of sqrt(N)
# function: dln_outputs
# kind: factor
# truth: each layer is w z / sqrt(N); dividing by N shrinks every layer by another 1/sqrt(N), so E f_i^2 = N**-(L+2) instead of 1/N.
def dln_outputs(L, N, M, rng):
    rng = as_generator(rng)
    z = np.zeros((M, N))
    z[:, 0] = 1.0
    for _ in range(L + 1):
        W = rng.standard_normal((M, N, N))
        z = np.einsum("mij,mj->mi", W, z) / N
    return z


# %% mistake: mean of log |f|^2 with a plus sign
# function: lognormal_prediction
# kind: term
# truth: the mean of log |f|^2 is -L/N (E|f|^2 = 1 with a log-normal spread forces a negative mean); the code returns +L/N.
def lognormal_prediction(L, N):
    L, N = np.asarray(L, dtype=float), np.asarray(N, dtype=float)
    mean, var = L / N, 2 * L / N
    if mean.ndim == 0:
        return float(mean), float(var)
    return mean, var


# %% mistake: exponent counts weight matrices
# function: kappa4_ratio_exact
# kind: off-by-one
# truth: the ratio is (1 + 2/N)**L - 1 with L the number of hidden layers; the code uses the number of weight matrices L + 1 as the exponent.
def kappa4_ratio_exact(L, N):
    L, N = np.asarray(L, dtype=float), np.asarray(N, dtype=float)
    out = np.expm1((L + 1) * np.log1p(2 / N))
    return float(out) if out.ndim == 0 else out


# %% mistake: diagonal pairs kept in the four-point sum
# function: kappa4_ratio_estimate
# kind: term
# truth: khat_4 sums F_mi^2 F_mj^2 over i != j only; the code sums over all (i, j) including i = j (the F^4 terms) before dividing by K(K-1).
def kappa4_ratio_estimate(F):
    F = np.asarray(F, dtype=float)
    M, K = F.shape
    k2 = np.mean(F ** 2)
    S = np.sum(F ** 2, axis=1)
    pair = np.mean(S ** 2 / (K * (K - 1)))
    return float((pair - k2 ** 2) / k2 ** 2)
