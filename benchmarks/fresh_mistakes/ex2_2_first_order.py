import numpy as np
from scipy import optimize, special


# %% mistake: lower branch picked as if a were positive
# function: two_phase_free_energy
# kind: branch
# truth: two_phase_free_energy takes branch 1 as the lower one for B < Bc, which holds only for a > 0; for a negative slope it picks the wrong minimum, so phi does not tend to min(a (B - Bc), 0) — use np.minimum(a (B - Bc), 0) in the log-sum-exp.
def two_phase_free_energy(B, N, a, Bc):
    B = np.asarray(B, dtype=float)
    phi1 = a * (B - Bc)
    low = np.where(B < Bc, phi1, 0.0)
    phi = low - np.log1p(np.exp(-N * np.abs(phi1))) / N
    return phi if phi.ndim else float(phi)


# %% mistake: susceptibility with a instead of a squared
# function: susceptibility
# kind: factor
# truth: susceptibility multiplies by a instead of a^2 (the square of the jump phi_1' - phi_2'), so -phi'' has the wrong size and turns negative for a < 0; it should be N a^2 p_1 (1 - p_1).
def susceptibility(B, N, a, Bc):
    p1 = special.expit(-N * a * (np.asarray(B, dtype=float) - Bc))
    chi = N * a * p1 * (1.0 - p1)
    return chi if np.ndim(chi) else float(chi)


# %% mistake: half width returned as the full width
# function: peak_height_and_width
# kind: factor
# truth: peak_height_and_width returns the distance from the peak to one half-maximum point (the half width), not the distance between the two half-maximum points, so the width is half the FWHM.
def peak_height_and_width(N, a, Bc):
    scale = N * abs(a)

    def chi_u(u):
        return float(susceptibility(Bc + u / scale, N, a, Bc))

    res = optimize.minimize_scalar(lambda u: -chi_u(u), bounds=(-5.0, 5.0), method="bounded",
                                   options={"xatol": 1e-10})
    u0 = res.x
    height = chi_u(u0)
    u_right = optimize.brentq(lambda u: chi_u(u) - height / 2, u0, u0 + 30.0, xtol=1e-13)
    width = (u_right - u0) / scale
    return float(height), float(width)


# %% mistake: intercept taken instead of slope from polyfit
# function: scaling_exponents
# kind: off-by-one
# truth: scaling_exponents reads element [1] of np.polyfit's result, which is the intercept; polyfit returns the highest power first, so the slope (the exponent) is element [0].
def scaling_exponents(Ns, a, Bc):
    Ns = np.asarray(Ns, dtype=float)
    hw = np.array([peak_height_and_width(N, a, Bc) for N in Ns])
    logN = np.log(Ns)
    e_h = np.polyfit(logN, np.log(hw[:, 0]), 1)[1]
    e_w = np.polyfit(logN, np.log(hw[:, 1]), 1)[1]
    return float(e_h), float(e_w)
