import numpy as np
from scipy import optimize, special


# %% mistake: logaddexp2 taken for a two-argument logaddexp
# function: two_phase_free_energy
# kind: concept
# truth: np.logaddexp2 is the base-2 log of 2**x + 2**y, not a two-argument np.logaddexp, so phi is wrong wherever both branches matter (phi(Bc) = -1/N instead of -log(2)/N); the notes use the natural log and exp.
def two_phase_free_energy(B, N, a, Bc):
    B = np.asarray(B, dtype=float)
    phi1 = a * (B - Bc)
    out = -np.logaddexp2(-N * phi1, 0.0) / N
    return float(out) if out.ndim == 0 else out


# %% mistake: stable logistic with an if on the sign
# function: basin_occupation
# kind: array-crash
# truth: basin_occupation chooses between the two forms of the logistic with a Python `if x > 0`, which fails ("truth value of an array is ambiguous") when B is an array; use np.where or scipy.special.expit.
def basin_occupation(B, N, a, Bc):
    x = N * a * (B - Bc)
    if x > 0:
        return np.exp(-x) / (1.0 + np.exp(-x))
    return 1.0 / (1.0 + np.exp(x))


# %% mistake: susceptibility without the factor N
# function: susceptibility
# kind: factor
# truth: -phi'' = N a^2 p_1 (1 - p_1): the factor N (the variance of the extensive dE/dB over the density per degree of freedom) is missing, so the peak height is a^2/4 for every N.
def susceptibility(B, N, a, Bc):
    p1 = special.expit(-N * a * (np.asarray(B, dtype=float) - Bc))
    out = a ** 2 * p1 * (1.0 - p1)
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: polyfit intercept read as the slope
# function: scaling_exponents
# kind: off-by-one
# truth: np.polyfit returns [slope, intercept]; the code takes index 1 (the intercept c) instead of index 0 (the exponent).
def scaling_exponents(Ns, a, Bc):
    Ns = np.asarray(Ns, dtype=float)
    hw = np.array([peak_height_and_width(N, a, Bc) for N in Ns])
    e_h = np.polyfit(np.log(Ns), np.log(hw[:, 0]), 1)[1]
    e_w = np.polyfit(np.log(Ns), np.log(hw[:, 1]), 1)[1]
    return float(e_h), float(e_w)


# %% mistake: half width returned
# function: peak_height_and_width
# kind: branch
# truth: only the half-maximum point above Bc is found and its distance to the peak is returned; the full width is the distance between the two half-maximum points (twice that).
def peak_height_and_width(N, a, Bc):
    s = N * abs(a)
    f = lambda u: susceptibility(Bc + u / s, N, a, Bc)
    res = optimize.minimize_scalar(lambda u: -f(u), bounds=(-5.0, 5.0), method="bounded",
                                   options={"xatol": 1e-10})
    u0 = res.x
    h = f(u0)
    u_hi = optimize.brentq(lambda u: f(u) - h / 2, u0, u0 + 20.0, xtol=1e-14)
    return float(h), float((u_hi - u0) / s)
