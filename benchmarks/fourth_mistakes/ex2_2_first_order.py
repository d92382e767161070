import numpy as np
from scipy import optimize


# %% mistake: large-N limit at every N
# function: two_phase_free_energy
# kind: concept
# truth: two_phase_free_energy keeps only the larger exponent of the log-sum-exp, max(x, y), and drops the log(1 + e^{-|x-y|}) correction, so it returns the N = infinity limit min(a (B - Bc), 0) at every N (phi(Bc) = 0 instead of -log(2)/N).
def two_phase_free_energy(B, N, a, Bc):
    B = np.asarray(B, dtype=float)
    x = -N * a * (B - Bc)
    y = np.zeros_like(x)
    phi = -np.maximum(x, y) / N
    return float(phi) if phi.ndim == 0 else phi


# %% mistake: occupation of the wrong basin
# function: basin_occupation
# kind: upstream (basin_occupation)
# truth: basin_occupation computes 1/(1 + exp(-N a (B - Bc))) (the sign of the exponent flipped), which is p_2, the occupation of basin 2, not p_1; dphi_dB, written correctly as a * p_1, inherits the error (it rises from 0 to a instead of falling).
def basin_occupation(B, N, a, Bc):
    B = np.asarray(B, dtype=float)
    x = N * a * (B - Bc)
    p = np.exp(-np.logaddexp(0.0, -x))
    return float(p) if p.ndim == 0 else p


def dphi_dB(B, N, a, Bc):
    return a * basin_occupation(B, N, a, Bc)


# %% mistake: width rescaled without |a|
# function: peak_height_and_width
# kind: factor
# truth: peak_height_and_width works in the rescaled variable u = N |a| (B - Bc) but converts the half-maximum points back with B = Bc + u / N, forgetting the factor 1/|a|, so the width is |a| times too large (right only for |a| = 1).
def peak_height_and_width(N, a, Bc):
    scale = N * abs(a)

    def chi(u):
        return float(susceptibility(Bc + u / scale, N, a, Bc))

    res = optimize.minimize_scalar(lambda u: -chi(u), bounds=(-5.0, 5.0), method="bounded",
                                   options={"xatol": 1e-10})
    u0 = res.x
    height = chi(u0)
    half = height / 2
    u_lo = optimize.brentq(lambda u: chi(u) - half, u0 - 20.0, u0, xtol=1e-14)
    u_hi = optimize.brentq(lambda u: chi(u) - half, u0, u0 + 20.0, xtol=1e-14)
    width = (u_hi - u_lo) / N
    return float(height), float(width)


# %% mistake: intercept taken for the slope
# function: scaling_exponents
# kind: off-by-one
# truth: scaling_exponents takes index [1] of np.polyfit(log N, log y, 1), which is the intercept, not the slope (polyfit returns the highest power first: [slope, intercept]), so it returns the fitted prefactors log(a^2/4) and log(c/|a|) instead of the exponents.
def scaling_exponents(Ns, a, Bc):
    Ns = np.asarray(Ns, dtype=float)
    hw = np.array([peak_height_and_width(N, a, Bc) for N in Ns])
    e_h = np.polyfit(np.log(Ns), np.log(hw[:, 0]), 1)[1]
    e_w = np.polyfit(np.log(Ns), np.log(hw[:, 1]), 1)[1]
    return float(e_h), float(e_w)
