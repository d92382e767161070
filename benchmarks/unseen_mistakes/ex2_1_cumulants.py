import numpy as np


# %% mistake: source sign flipped
# function: free_energy
# kind: term
# truth: the source enters the Boltzmann weight as exp(-beta E - J O) instead of exp(-beta E + J O), so F(J) is mirrored in J.
def free_energy(energy, observable, beta, J, grid):
    grid = np.asarray(grid, dtype=float)
    E = energy(grid) if callable(energy) else np.asarray(energy, dtype=float)
    O = observable(grid) if callable(observable) else np.asarray(observable, dtype=float)
    Jarr = np.atleast_1d(np.asarray(J, dtype=float))
    expo = -beta * E[None, :] - Jarr[:, None] * O[None, :]
    m = expo.max(axis=1, keepdims=True)
    Z = np.trapezoid(np.exp(expo - m), grid, axis=1)
    F = -(np.log(Z) + m[:, 0])
    return float(F[0]) if np.ndim(J) == 0 else F.reshape(np.shape(J))


# %% mistake: float source only
# function: free_energy
# kind: array-crash
# truth: free_energy multiplies J directly into the (G,) exponent, so an array of sources fails to broadcast; loop over the sources (or add an axis) so each J[i] gets its own integral.
def free_energy(energy, observable, beta, J, grid):
    grid = np.asarray(grid, dtype=float)
    E = energy(grid) if callable(energy) else np.asarray(energy, dtype=float)
    O = observable(grid) if callable(observable) else np.asarray(observable, dtype=float)
    expo = -beta * E + J * O
    m = np.max(expo)
    Z = np.trapezoid(np.exp(expo - m), grid)
    return float(-(np.log(Z) + m))


# %% mistake: kappa4 as fourth central moment
# function: cumulants_from_free_energy
# kind: concept
# truth: the fourth entry returned is the central moment mu_4, not the cumulant kappa_4 = mu_4 - 3 mu_2^2.
def cumulants_from_free_energy(energy, observable, beta, grid, order):
    grid = np.asarray(grid, dtype=float)
    E = np.asarray(energy, dtype=float)
    O = np.asarray(observable, dtype=float)
    w = np.exp(-beta * (E - E.min()))
    Z = np.trapezoid(w, grid)
    p = w / Z
    mean = np.trapezoid(p * O, grid)
    mu = [np.trapezoid(p * (O - mean) ** k, grid) for k in range(order + 1)]
    out = [mean]
    for k in range(2, order + 1):
        out.append(mu[k])   # treats every higher cumulant as a central moment
    return np.array(out)


# %% mistake: kappa3 factor on m1 cubed
# function: kappa3_from_moments
# kind: factor
# truth: the last term should be +2 m1^3, not +3 m1^3.
def kappa3_from_moments(m1, m2, m3):
    return m3 - 3 * m2 * m1 + 3 * m1 ** 3


# %% mistake: kappa4 missing the m2 squared term
# function: kappa4_from_moments
# kind: term
# truth: the -3 m2^2 term of kappa_4 is missing.
def kappa4_from_moments(m1, m2, m3, m4):
    return m4 - 4 * m3 * m1 + 12 * m2 * m1 ** 2 - 6 * m1 ** 4
