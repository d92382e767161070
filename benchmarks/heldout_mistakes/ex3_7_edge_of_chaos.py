import numpy as np
from scipy import integrate, optimize, special


# %% mistake: physicists' Gauss-Hermite nodes used as standard normal nodes
# function: variance_map
# kind: concept
# truth: hermgauss integrates against exp(-x^2), so E_z[g(z)] = sum w g(sqrt(2) x) / sqrt(pi); the code evaluates tanh at sqrt(q) x, which is the expectation at variance q/2.
def variance_map(q, sigma_w, sigma_b, phi):
    q = np.asarray(q, dtype=float)
    if phi == "relu":
        out = sigma_w * q / 2 + sigma_b
    elif phi == "erf":
        out = sigma_w * (2 / np.pi) * np.arcsin(2 * q / (1 + 2 * q)) + sigma_b
    else:
        x, w = np.polynomial.hermite.hermgauss(200)
        vals = np.tanh(np.sqrt(q)[..., None] * x) ** 2
        out = sigma_w * (vals @ w) / np.sqrt(np.pi) + sigma_b
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: critical ReLU with a bias kept finite
# function: fixed_point_q
# kind: branch
# truth: for ReLU at sigma_w = 2 the variance stays at q0 only when sigma_b = 0; with sigma_b > 0 it grows by sigma_b every layer and q* = inf, but the code returns q0 whenever sigma_w == 2.
def fixed_point_q(sigma_w, sigma_b, phi, q0=1.0):
    if phi == "relu":
        if sigma_w < 2:
            return sigma_b / (1 - sigma_w / 2)
        if sigma_w == 2:
            return float(q0)
        return float("inf")
    slope = 1.0 if phi == "tanh" else 4 / np.pi
    if sigma_b == 0 and sigma_w * slope <= 1:
        return 0.0
    f = lambda q: variance_map(q, sigma_w, sigma_b, phi) - q
    hi = 1.0
    while f(hi) > 0:
        hi *= 2
    return float(optimize.brentq(f, 1e-300 if sigma_b == 0 else 0.0, hi, xtol=1e-14, rtol=1e-13))


# %% mistake: erf slope with sqrt(1 + 2 q*)
# function: chi1
# kind: factor
# truth: for erf, E[phi'(sqrt(q*) z)^2] = (4/pi) / sqrt(1 + 4 q*); the code uses sqrt(1 + 2 q*) (the factor of the erf kernel itself).
def chi1(sigma_w, sigma_b, phi):
    if phi == "relu":
        return sigma_w / 2
    q = fixed_point_q(sigma_w, sigma_b, phi)
    if phi == "erf":
        return float(sigma_w * (4 / np.pi) / np.sqrt(1 + 2 * q))
    x, w = np.polynomial.hermite_e.hermegauss(200)
    return float(sigma_w * np.sum(w * (1 / np.cosh(np.sqrt(q) * x)) ** 4) / np.sqrt(2 * np.pi))


# %% mistake: math.log at the edge of chaos
# function: correlation_depth
# kind: branch
# truth: at chi_1 == 1 (e.g. ReLU at sigma_w = 2) log chi_1 = 0 and the code divides by zero (ZeroDivisionError); the edge of chaos must return float('inf').
def correlation_depth(sigma_w, sigma_b, phi):
    import math
    c = chi1(sigma_w, sigma_b, phi)
    return 1.0 / abs(math.log(c))
