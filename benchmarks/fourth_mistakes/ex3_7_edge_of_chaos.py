import math

import numpy as np
from scipy import optimize

_HM_Z = np.linspace(-40.0, 40.0, 16001)
_HM_W = np.full(_HM_Z.shape, _HM_Z[1] - _HM_Z[0]) * np.exp(-_HM_Z**2 / 2) / np.sqrt(2 * np.pi)


def _hm_gauss(f):
    """E_z[f(z)] for z ~ N(0, 1), trapezoid on a fine grid (f maps an array of z to values on the last axis)."""
    return np.asarray(f(_HM_Z)) @ _HM_W


# %% mistake: tanh argument q z instead of sqrt(q) z
# function: variance_map
# kind: upstream (variance_map)
# truth: variance_map evaluates the tanh expectation as E[tanh(q z)^2], scaling the standard normal by the variance q instead of the standard deviation sqrt(q) (the preactivation is sqrt(q) z ~ N(0, q)); fixed_point_q, written correctly by root finding on V(q) - q, inherits a wrong q* for tanh.
def variance_map(q, sigma_w, sigma_b, phi):
    q = np.asarray(q, dtype=float)
    if phi == "relu":
        out = sigma_w * q / 2 + sigma_b
    elif phi == "erf":
        out = sigma_w * 2 / np.pi * np.arcsin(2 * q / (1 + 2 * q)) + sigma_b
    elif phi == "tanh":
        out = sigma_w * _hm_gauss(lambda z: np.tanh(q[..., None] * z) ** 2) + sigma_b
    else:
        raise ValueError(phi)
    return float(out) if np.ndim(out) == 0 else out


def fixed_point_q(sigma_w, sigma_b, phi, q0=1.0):
    if phi == "relu":
        if sigma_w < 2:
            return sigma_b / (1 - sigma_w / 2)
        if sigma_w == 2 and sigma_b == 0:
            return q0
        return float("inf")
    slope0 = sigma_w * (1.0 if phi == "tanh" else 4 / np.pi)
    if sigma_b == 0 and slope0 <= 1:
        return 0.0
    hi = sigma_w + sigma_b
    lo = 0.0 if sigma_b > 0 else 1e-12
    return float(optimize.brentq(lambda q: variance_map(q, sigma_w, sigma_b, phi) - q, lo, hi, xtol=1e-14, rtol=1e-13))


# %% mistake: square of the mean slope
# function: chi1
# kind: concept
# truth: chi1 computes sigma_w (E[phi'(sqrt(q*) z)])^2, the square of the mean derivative, instead of sigma_w E[phi'(sqrt(q*) z)^2], the mean of the squared derivative (3.7.3); the two agree only at q* = 0.
def chi1(sigma_w, sigma_b, phi):
    if phi == "relu":
        return sigma_w / 2
    q = fixed_point_q(sigma_w, sigma_b, phi)
    s = np.sqrt(q)
    if phi == "tanh":
        m = _hm_gauss(lambda z: 1.0 / np.cosh(s * z) ** 2)
    else:
        m = _hm_gauss(lambda z: 2 / np.sqrt(np.pi) * np.exp(-(s * z) ** 2))
    return float(sigma_w * m**2)


# %% mistake: math.log at the edge of chaos
# function: correlation_depth
# kind: branch
# truth: correlation_depth returns 1 / abs(math.log(chi_1)) with no case for chi_1 == 1, so at the edge of chaos (e.g. ReLU at sigma_w = 2) it raises ZeroDivisionError instead of returning float('inf').
def correlation_depth(sigma_w, sigma_b, phi):
    return 1.0 / abs(math.log(chi1(sigma_w, sigma_b, phi)))
