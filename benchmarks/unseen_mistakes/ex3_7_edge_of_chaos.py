import numpy as np
from scipy import integrate, optimize, special


def _um_gauss(f):
    return integrate.quad(lambda z: f(z) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi), -np.inf, np.inf,
                          epsabs=1e-14, epsrel=1e-12, limit=400)[0]


def _um_V(q, sigma_w, sigma_b, phi, relu_factor=0.5):
    q = np.asarray(q, dtype=float)
    if phi == "relu":
        out = sigma_w * relu_factor * q + sigma_b
    elif phi == "erf":
        out = sigma_w * 2 / np.pi * np.arcsin(2 * q / (1 + 2 * q)) + sigma_b
    else:
        out = np.vectorize(lambda qq: sigma_w * _um_gauss(lambda z: np.tanh(np.sqrt(qq) * z) ** 2) + sigma_b)(q)
    return float(out) if np.ndim(out) == 0 else out


def _um_qstar(sigma_w, sigma_b, phi, q0=1.0):
    if phi == "relu":
        if sigma_w < 2:
            return sigma_b / (1 - sigma_w / 2)
        return q0 if (sigma_w == 2 and sigma_b == 0) else float("inf")
    slope0 = 1.0 if phi == "tanh" else 4 / np.pi
    if sigma_b == 0 and sigma_w * slope0 <= 1:
        return 0.0
    f = lambda q: _um_V(q, sigma_w, sigma_b, phi) - q
    lo = 1e-10 if sigma_b == 0 else 0.0
    return float(optimize.brentq(f, lo, sigma_w + sigma_b + 1.0, xtol=1e-14, rtol=1e-13))


def _um_chi1(sigma_w, sigma_b, phi, q=None):
    q = _um_qstar(sigma_w, sigma_b, phi) if q is None else q
    if phi == "relu":
        return sigma_w / 2
    if phi == "erf":
        return sigma_w * (4 / np.pi) / np.sqrt(1 + 4 * q)
    return sigma_w * _um_gauss(lambda z: 1 / np.cosh(np.sqrt(q) * z) ** 4)


# %% mistake: ReLU map without the one half
# function: variance_map
# kind: factor
# truth: for ReLU E[relu(sqrt(q) z)^2] = q/2, so V(q) = sigma_w q/2 + sigma_b; the factor 1/2 is missing.
def variance_map(q, sigma_w, sigma_b, phi):
    return _um_V(q, sigma_w, sigma_b, phi, relu_factor=1.0)


# %% mistake: critical ReLU declared divergent
# function: fixed_point_q
# kind: branch
# truth: for ReLU at sigma_w = 2, sigma_b = 0 every q is a fixed point and q0 should be returned; the case falls into the sigma_w >= 2 branch and returns inf.
def fixed_point_q(sigma_w, sigma_b, phi, q0=1.0):
    if phi == "relu":
        if sigma_w < 2:
            return sigma_b / (1 - sigma_w / 2)
        return float("inf")
    return _um_qstar(sigma_w, sigma_b, phi, q0)


# %% mistake: chi1 at the bias-free fixed point
# function: chi1
# kind: ignored-arg
# truth: sigma_b is ignored: chi_1 is evaluated at the fixed point of the map without bias, q*(sigma_w, 0), instead of q*(sigma_w, sigma_b).
def chi1(sigma_w, sigma_b, phi):
    return float(_um_chi1(sigma_w, 0.0, phi))


# %% mistake: negative depth in the chaotic phase
# function: correlation_depth
# kind: branch
# truth: xi = -1/log(chi_1) is used in both phases; in the chaotic phase (chi_1 > 1) it must be 1/log(chi_1) (the absolute value), so xi comes out negative there.
def correlation_depth(sigma_w, sigma_b, phi):
    c = _um_chi1(sigma_w, sigma_b, phi)
    if c == 1:
        return float("inf")
    return float(-1 / np.log(c))


# %% mistake: erf slope without 4/pi, used on the critical line
# function: chi1
# kind: upstream (chi1)
# truth: chi1 drops the factor 4/pi of E[erf'(sqrt(q) z)^2] = (4/pi)/sqrt(1 + 4q) for erf; critical_sigma_w, which solves chi1 = 1, is right but inherits the error.
def chi1(sigma_w, sigma_b, phi):
    q = _um_qstar(sigma_w, sigma_b, phi)
    if phi == "erf":
        return float(sigma_w / np.sqrt(1 + 4 * q))
    return float(_um_chi1(sigma_w, sigma_b, phi, q))


def critical_sigma_w(sigma_b, phi):
    if phi == "relu":
        return 2.0
    return float(optimize.brentq(lambda s: chi1(s, sigma_b, phi) - 1.0, 0.1, 20.0, xtol=1e-13, rtol=1e-12))
