import numpy as np
from scipy import special


# %% mistake: beta left out of the Boltzmann weight
# function: free_energy
# kind: ignored-arg
# truth: free_energy integrates exp(-E + J O): the inverse temperature beta is never used, so F does not change with beta (it should be -log int exp(-beta E + J O)).
def free_energy(energy, observable, beta, J, grid):
    grid = np.asarray(grid, dtype=float)
    E = energy(grid) if callable(energy) else np.asarray(energy, dtype=float)
    O = observable(grid) if callable(observable) else np.asarray(observable, dtype=float)
    Js = np.atleast_1d(np.asarray(J, dtype=float))
    out = np.empty(Js.shape)
    for i, j in enumerate(Js):
        expo = -E + j * O
        m = expo.max()
        out[i] = -(m + np.log(np.trapezoid(np.exp(expo - m), grid)))
    return float(out[0]) if np.ndim(J) == 0 else out.reshape(np.shape(J))


# %% mistake: uniform spacing taken from the first interval
# function: free_energy
# kind: concept
# truth: the integral is a Riemann sum with the width grid[1] - grid[0] of the first interval for every point, which is wrong on a non-uniform grid; use each interval's own width (np.trapezoid(y, grid)).
def free_energy(energy, observable, beta, J, grid):
    grid = np.asarray(grid, dtype=float)
    E = energy(grid) if callable(energy) else np.asarray(energy, dtype=float)
    O = observable(grid) if callable(observable) else np.asarray(observable, dtype=float)
    dx = grid[1] - grid[0]
    Js = np.atleast_1d(np.asarray(J, dtype=float))
    out = np.empty(Js.shape)
    for i, j in enumerate(Js):
        expo = -beta * E + j * O
        m = expo.max()
        out[i] = -(m + np.log(np.sum(np.exp(expo - m)) * dx))
    return float(out[0]) if np.ndim(J) == 0 else out.reshape(np.shape(J))


# %% mistake: cumulant loop stops one order early
# function: cumulants_from_free_energy
# kind: off-by-one
# truth: the loop over orders runs range(2, order), so the array has order - 1 entries and the highest cumulant kappa_order is missing.
def cumulants_from_free_energy(energy, observable, beta, grid, order):
    grid = np.asarray(grid, dtype=float)
    E = np.asarray(energy, dtype=float)
    O = np.asarray(observable, dtype=float)
    w = np.exp(-beta * (E - E.min()))
    p = w / np.trapezoid(w, grid)
    mean = np.trapezoid(p * O, grid)
    mu = [1.0] + [np.trapezoid(p * (O - mean) ** k, grid) for k in range(1, order + 1)]
    kap = [0.0, 0.0]          # kap[1] of the centred variable is 0
    for n in range(2, order):
        s = mu[n]
        for m in range(1, n):
            s -= special.comb(n - 1, m - 1) * kap[m] * mu[n - m]
        kap.append(s)
    return np.array([mean] + kap[2:])


# %% mistake: 6 m2 m1^2 instead of 12
# function: kappa4_from_moments
# kind: factor
# truth: the m2 m1^2 term of kappa_4 has coefficient 12, not 6.
def kappa4_from_moments(m1, m2, m3, m4):
    return m4 - 4 * m3 * m1 - 3 * m2 ** 2 + 6 * m2 * m1 ** 2 - 6 * m1 ** 4


# %% mistake: sign of the m2 m1 term in kappa3
# function: kappa3_from_moments
# kind: term
# truth: the m2 m1 term of kappa_3 enters with -3, not +3 (kappa_3 = m3 - 3 m2 m1 + 2 m1^3).
def kappa3_from_moments(m1, m2, m3):
    return m3 + 3 * m2 * m1 + 2 * m1 ** 3
