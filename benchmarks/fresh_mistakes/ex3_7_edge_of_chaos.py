import numpy as np
from scipy import integrate, optimize, special


def _hm_gauss(f):
    """E_z f(z), z ~ N(0, 1), by adaptive quadrature."""
    g = lambda z: f(z) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)  # noqa: E731
    return 2 * integrate.quad(g, 0, 40, epsabs=1e-14, epsrel=1e-12, limit=400)[0] if f(1.0) == f(-1.0) \
        else integrate.quad(g, -40, 40, epsabs=1e-14, epsrel=1e-12, limit=400)[0]


# %% mistake: sigma_w left out of the erf closed form
# function: variance_map
# kind: ignored-arg
# truth: variance_map's erf branch returns (2/pi) arcsin(2q/(1+2q)) + sigma_b without the factor sigma_w, so the erf map is right only at sigma_w = 1.
def variance_map(q, sigma_w, sigma_b, phi):
    q = np.asarray(q, dtype=float)
    if phi == "relu":
        out = sigma_w * q / 2 + sigma_b
    elif phi == "erf":
        out = 2 / np.pi * np.arcsin(2 * q / (1 + 2 * q)) + sigma_b
    else:
        flat = [sigma_w * _hm_gauss(lambda z, s=np.sqrt(qq): np.tanh(s * z) ** 2) + sigma_b for qq in q.ravel()]
        out = np.array(flat).reshape(q.shape)
    return out if out.ndim else float(out)


# %% mistake: ReLU fixed point formula used above sigma_w = 2
# function: fixed_point_q
# kind: branch
# truth: fixed_point_q returns sigma_b / (1 - sigma_w/2) for every ReLU sigma_w != 2, which is negative in the chaotic phase sigma_w > 2; there the variance grows without bound and q* is inf.
def fixed_point_q(sigma_w, sigma_b, phi, q0=1.0):
    if phi == "relu":
        if sigma_w == 2 and sigma_b == 0:
            return float(q0)
        if sigma_w == 2:
            return float("inf")
        return sigma_b / (1 - sigma_w / 2)
    slope0 = 1.0 if phi == "tanh" else 4 / np.pi
    if sigma_b == 0 and sigma_w * slope0 <= 1:
        return 0.0
    f = lambda q: variance_map(q, sigma_w, sigma_b, phi) - q  # noqa: E731
    lo = 1e-10
    return float(optimize.brentq(f, lo, sigma_w + sigma_b + 1.0, xtol=1e-14, rtol=1e-13))


# %% mistake: phi' not squared for tanh
# function: chi1
# kind: factor
# truth: chi1 for tanh averages phi'(u) = 1 - tanh(u)^2 instead of its square phi'(u)^2, so chi_1 is too large whenever q* > 0 (it is right only at q* = 0, where both are 1).
def chi1(sigma_w, sigma_b, phi):
    if phi == "relu":
        return sigma_w / 2
    q = fixed_point_q(sigma_w, sigma_b, phi)
    if phi == "erf":
        return float(sigma_w * (4 / np.pi) / np.sqrt(1 + 4 * q))
    s = np.sqrt(q)
    return float(sigma_w * _hm_gauss(lambda z: 1 - np.tanh(s * z) ** 2))


# %% mistake: ordered-phase formula used in the chaotic phase
# function: correlation_depth
# kind: branch
# truth: correlation_depth returns -1/log(chi_1) in both phases, which is negative in the chaotic phase chi_1 > 1; the depth is 1/|log chi_1| (and inf at chi_1 = 1).
def correlation_depth(sigma_w, sigma_b, phi):
    c = chi1(sigma_w, sigma_b, phi)
    if c == 1:
        return float("inf")
    return float(-1 / np.log(c))


# %% mistake: iteration stopped when successive iterates differ by 1e-6
# function: fixed_point_q
# kind: upstream (fixed_point_q)
# truth: fixed_point_q iterates the variance map until two successive iterates differ by less than 1e-6, but where the slope V'(q*) is close to 1 (near the edge of chaos) the distance to the fixed point is about 1e-6 / (1 - V'(q*)), far more than the required 1e-7 relative accuracy; chi1, which is right, inherits the wrong q*.
def fixed_point_q(sigma_w, sigma_b, phi, q0=1.0):
    if phi == "relu":
        if sigma_w < 2:
            return sigma_b / (1 - sigma_w / 2)
        if sigma_w == 2 and sigma_b == 0:
            return float(q0)
        return float("inf")
    q = float(q0)
    while True:
        q_new = float(variance_map(q, sigma_w, sigma_b, phi))
        if abs(q_new - q) < 1e-6:
            return q_new
        q = q_new


def chi1(sigma_w, sigma_b, phi):
    if phi == "relu":
        return sigma_w / 2
    q = fixed_point_q(sigma_w, sigma_b, phi)
    if phi == "erf":
        return float(sigma_w * (4 / np.pi) / np.sqrt(1 + 4 * q))
    s = np.sqrt(q)
    return float(sigma_w * _hm_gauss(lambda z: (1 - np.tanh(s * z) ** 2) ** 2))
