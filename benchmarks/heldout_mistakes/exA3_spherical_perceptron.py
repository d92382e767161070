import numpy as np
from scipy import integrate, optimize, special


# %% mistake: slice area without the band width
# function: overlap_density
# kind: factor
# truth: the density is the area of the slice, (1 - R^2)^((N-2)/2), times the band width 1/sqrt(1 - R^2) from the coarea formula, i.e. (1 - R^2)^((N-3)/2); the code keeps the power (N-2)/2, so with the (A.7) normalization it no longer integrates to 1 (N = 3 is not uniform).
def overlap_density(R, N):
    R = np.asarray(R, dtype=float)
    log_norm = special.gammaln(N / 2) - 0.5 * np.log(np.pi) - special.gammaln((N - 1) / 2)
    out = np.exp(log_norm + (N - 2) / 2 * np.log1p(-R * R))
    return float(out) if out.ndim == 0 else out


# %% mistake: nan at R = -1 for zero load
# function: spherical_annealed_action
# kind: branch
# truth: at R = -1 the error is eps = 1 and log(1 - eps) = -inf, so at alpha = 0 the data term 0 * (-inf) is nan and the action comes out nan instead of +inf; the data term must be taken as 0 when alpha = 0 (0 log 0 = 0).
def spherical_annealed_action(R, alpha):
    R = np.asarray(R, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    eps = np.arccos(np.clip(R, -1.0, 1.0)) / np.pi
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -0.5 * np.log1p(-R * R) - alpha * np.log1p(-eps)
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: stationary load without the factor 1 - eps
# function: stationary_load
# kind: term
# truth: S' = 0 gives alpha(R) = pi R (1 - eps(R)) / sqrt(1 - R^2), the factor 1 - eps coming from differentiating log(1 - eps); the code drops it and returns pi R / sqrt(1 - R^2), too large by 1/(1 - eps) (a factor 2 near R = 0).
def stationary_load(R):
    R = np.asarray(R, dtype=float)
    out = np.pi * R / np.sqrt(1.0 - R * R)
    return float(out) if out.ndim == 0 else out


# %% mistake: learning curve solved for one load at a time
# function: annealed_learning_curve
# kind: array-crash
# truth: solving (pi - phi) cot(phi) = alpha for the angle is right, but the code tests `if alpha == 0` and calls brentq on a scalar, so an array of loads makes it raise; loop (or vectorize) over the loads.
def annealed_learning_curve(alpha):
    if alpha == 0:
        return 0.5

    def _hm_gap(phi):
        return (np.pi - phi) / np.tan(phi) - alpha

    phi = optimize.brentq(_hm_gap, 1e-14, np.pi / 2, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    return phi / np.pi


# %% mistake: sign of the 1/alpha^2 correction
# function: learning_curve_asymptotics
# kind: term
# truth: 1/eps - 1 - pi^2 eps/3 + ... = alpha gives 1/eps = alpha + 1 + O(1/alpha), so eps = 1/alpha - 1/alpha^2: B = -1; the code inverts with the wrong sign and returns B = +1 (c = 2/pi and A = 1 are right).
def learning_curve_asymptotics():
    return 2.0 / np.pi, 1.0, 1.0
