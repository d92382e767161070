import numpy as np
from scipy import special


# %% mistake: density exponent (N-2)/2
# function: overlap_density
# kind: factor
# truth: the power of (1 - R^2) is (N-3)/2, not (N-2)/2, so the density is not normalized (N = 3 is not uniform).
def overlap_density(R, N):
    R = np.asarray(R, dtype=float)
    logc = special.gammaln(N / 2) - 0.5 * np.log(np.pi) - special.gammaln((N - 1) / 2)
    out = np.exp(logc + (N - 2) / 2 * np.log1p(-R * R))
    return float(out) if out.ndim == 0 else out


# %% mistake: nan at R = -1 with zero load
# function: spherical_annealed_action
# kind: branch
# truth: at alpha = 0 and R = -1 the data term is 0 * log(0) = nan, so S comes out nan instead of +inf; the zero-load case must drop the data term.
def spherical_annealed_action(R, alpha):
    R, alpha = np.broadcast_arrays(np.asarray(R, dtype=float), np.asarray(alpha, dtype=float))
    eps = np.arccos(np.clip(R, -1, 1)) / np.pi
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -0.5 * np.log1p(-R * R) - alpha * np.log1p(-eps)
    return float(out) if out.ndim == 0 else out


# %% mistake: error instead of success probability in alpha(R)
# function: stationary_load
# kind: concept
# truth: alpha(R) = pi R (1 - eps(R)) / sqrt(1 - R^2); it uses eps(R), the error probability, in place of 1 - eps(R).
def stationary_load(R):
    R = np.asarray(R, dtype=float)
    eps = np.arccos(R) / np.pi
    out = np.pi * R * eps / np.sqrt(1 - R * R)
    return float(out) if out.ndim == 0 else out


# %% mistake: sign of the second-order coefficient
# function: learning_curve_asymptotics
# kind: term
# truth: from 1/eps = alpha + 1 + O(1/alpha), eps = 1/alpha - 1/alpha^2: the coefficient B is -1, not +1.
def learning_curve_asymptotics():
    return 2 / np.pi, 1.0, 1.0
