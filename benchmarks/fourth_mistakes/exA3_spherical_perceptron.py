import numpy as np
from scipy import optimize


def _hm_phi_star(alpha):
    """The angle phi* in (0, pi/2] solving (pi - phi) cot(phi) = alpha (scalar alpha)."""
    if alpha == 0:
        return np.pi / 2
    lo = min(1e-3, 0.5 * np.pi / (alpha + 1.0))
    return optimize.brentq(lambda p: (np.pi - p) / np.tan(p) - alpha, lo, np.pi / 2, xtol=1e-300, rtol=1e-15)


# %% mistake: slice entropy without its 1/2
# function: spherical_annealed_action
# kind: factor
# truth: spherical_annealed_action uses -log(1 - R^2) for the slice entropy; the large-N rate of p_N(R) ~ (1 - R^2)^(N/2) is (1/2) log(1 - R^2), so the entropic term is twice too strong (the minimizer sits too close to R = 0).
def spherical_annealed_action(R, alpha):
    R, alpha = np.broadcast_arrays(np.asarray(R, dtype=float), np.asarray(alpha, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.log1p(-R**2)
        data = np.where(alpha == 0, 0.0, -alpha * np.log1p(-generalization_error(R)))
    out = ent + data
    return float(out) if out.ndim == 0 else out


# %% mistake: overlap from the angle with sin
# function: spherical_minimizer
# kind: concept
# truth: spherical_minimizer solves (pi - phi) cot(phi) = alpha for the angle correctly but converts it with R = sin(phi) instead of R = cos(phi) (phi = arccos R is the angle to the teacher), so R* goes to 0 instead of 1 at large loads and R* = 1 at alpha = 0.
def spherical_minimizer(alpha):
    if alpha == 0:
        return (0.0, 0.0)
    phi = _hm_phi_star(alpha)
    R = float(np.sin(phi))
    return (R, float(spherical_annealed_action(R, alpha)))


# %% mistake: one brentq for an array of loads
# function: annealed_learning_curve
# kind: array-crash
# truth: annealed_learning_curve passes the whole alpha to one scalar brentq call (and tests alpha == 0 with a Python if), which raises for an array of loads; each load needs its own root (a loop or np.vectorize).
def annealed_learning_curve(alpha):
    if alpha == 0:
        return 0.5
    lo = min(1e-3, 0.5 * np.pi / (alpha + 1.0))
    phi = optimize.brentq(lambda p: (np.pi - p) / np.tan(p) - alpha, lo, np.pi / 2, xtol=1e-300, rtol=1e-15)
    return float(phi / np.pi)
