import numpy as np
from scipy import special


# %% mistake: free energy not divided by N
# function: two_phase_free_energy
# kind: factor
# truth: the log-sum-exp is not divided by N, so phi is the total free energy N phi instead of the density.
def two_phase_free_energy(B, N, a, Bc):
    B = np.asarray(B, dtype=float)
    phi = -np.logaddexp(-N * a * (B - Bc), 0.0)
    return float(phi) if phi.ndim == 0 else phi


# %% mistake: critical point Bc ignored
# function: two_phase_free_energy
# kind: ignored-arg
# truth: Bc is ignored: branch 1 is written a B instead of a (B - Bc), so the branches cross at B = 0.
def two_phase_free_energy(B, N, a, Bc):
    B = np.asarray(B, dtype=float)
    phi = -np.logaddexp(-N * a * B, 0.0) / N
    return float(phi) if phi.ndim == 0 else phi


# %% mistake: occupation of the wrong basin
# function: basin_occupation
# kind: term
# truth: the sign in the exponent is flipped: 1/(1 + exp(-N a (B - Bc))) is the occupation p_2 of basin 2, not p_1.
def basin_occupation(B, N, a, Bc):
    B = np.asarray(B, dtype=float)
    p = special.expit(N * a * (B - Bc))
    return float(p) if p.ndim == 0 else p


# %% mistake: susceptibility with a instead of a squared
# function: susceptibility
# kind: factor
# truth: the susceptibility is N a^2 p_1 (1 - p_1); the slope a enters squared, not to the first power.
def susceptibility(B, N, a, Bc):
    B = np.asarray(B, dtype=float)
    p = special.expit(-N * a * (B - Bc))
    chi = N * abs(a) * p * (1 - p)
    return float(chi) if chi.ndim == 0 else chi


# %% mistake: half width at half maximum
# function: peak_height_and_width
# kind: factor
# truth: the width returned is the half width (from Bc to one half-maximum point), half the full width at half maximum.
def peak_height_and_width(N, a, Bc):
    height = N * a * a / 4
    s = 1 / np.sqrt(2)
    p_half = (1 + s) / 2                     # p(1 - p) = 1/8 at the half maximum
    u = np.log(p_half / (1 - p_half))        # |N a (B - Bc)| at the half-maximum points
    width = u / (N * abs(a))
    return float(height), float(width)


# %% mistake: basin occupation ignores N, used by dphi_dB
# function: basin_occupation
# kind: upstream (basin_occupation)
# truth: basin_occupation drops N from the exponent (1/(1 + exp(a (B - Bc)))), so the crossover never sharpens; dphi_dB and susceptibility, which use it, inherit the error.
def basin_occupation(B, N, a, Bc):
    B = np.asarray(B, dtype=float)
    p = special.expit(-a * (B - Bc))
    return float(p) if p.ndim == 0 else p


def dphi_dB(B, N, a, Bc):
    return a * np.asarray(basin_occupation(B, N, a, Bc))


def susceptibility(B, N, a, Bc):
    p = np.asarray(basin_occupation(B, N, a, Bc))
    return N * a * a * p * (1 - p)
