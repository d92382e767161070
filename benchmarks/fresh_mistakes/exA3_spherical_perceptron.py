import numpy as np
from scipy import optimize, special


# %% mistake: exponent (N-2)/2 instead of (N-3)/2
# function: overlap_density
# kind: off-by-one
# truth: overlap_density raises (1 - R^2) to the power (N-2)/2 instead of (N-3)/2 (the slice of the sphere at overlap R is an (N-2)-sphere of radius sqrt(1 - R^2), times the Jacobian 1/sqrt(1 - R^2)), so the density is not normalized (N = 3 is no longer uniform).
def overlap_density(R, N):
    R = np.asarray(R, dtype=float)
    logc = special.gammaln(N / 2) - 0.5 * np.log(np.pi) - special.gammaln((N - 1) / 2)
    out = np.exp(logc + (N - 2) / 2 * np.log1p(-R**2))
    return out if out.ndim else float(out)


# %% mistake: entropy term with a plus sign
# function: spherical_annealed_action
# kind: term
# truth: spherical_annealed_action adds +1/2 log(1 - R^2) instead of -1/2 log(1 - R^2); the action is minus the log of the slice volume, so the entropic term must be -1/2 log(1 - R^2) (+inf at R = +-1).
def spherical_annealed_action(R, alpha):
    R, alpha = np.broadcast_arrays(np.asarray(R, dtype=float), np.asarray(alpha, dtype=float))
    eps = np.arccos(np.clip(R, -1.0, 1.0)) / np.pi
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = 0.5 * np.log1p(-R**2)
        data = np.where(alpha == 0, 0.0, -alpha * np.log1p(-eps))
    out = ent + data
    return out if out.ndim else float(out)


# %% mistake: error probability where the success probability belongs
# function: stationary_load
# kind: concept
# truth: stationary_load uses eps(R) where the formula has 1 - eps(R), the probability that the student agrees with the teacher: alpha(R) = pi R (1 - eps(R)) / sqrt(1 - R^2).
def stationary_load(R):
    R = np.asarray(R, dtype=float)
    eps = np.arccos(R) / np.pi
    out = np.pi * R * eps / np.sqrt(1 - R**2)
    return out if out.ndim else float(out)


# %% mistake: angle returned instead of angle / pi
# function: annealed_learning_curve
# kind: factor
# truth: annealed_learning_curve returns the angle phi* that solves (pi - phi) cot(phi) = alpha, but the generalization error is eps = phi*/pi, so every value is pi times too large (pi/2 at alpha = 0).
def annealed_learning_curve(alpha):
    a_arr = np.asarray(alpha, dtype=float)
    out = np.empty(a_arr.shape)
    for idx, a in np.ndenumerate(a_arr):
        if a == 0:
            out[idx] = np.pi / 2
            continue
        # solve (pi - phi) cos(phi) - a sin(phi) = 0 on (0, pi/2]
        f = lambda p: (np.pi - p) * np.cos(p) - a * np.sin(p)  # noqa: E731
        lo = np.pi / (2 * (a + 1))
        while f(lo) < 0:
            lo /= 2
        out[idx] = optimize.brentq(f, lo, np.pi / 2, xtol=1e-300, rtol=1e-15, maxiter=500)
    return float(out) if out.ndim == 0 else out
