import numpy as np
from scipy import special


def _hm_values(f, grid):
    return np.asarray(f(grid) if callable(f) else f, dtype=float)


def _hm_trap_weights(grid):
    grid = np.asarray(grid, dtype=float)
    w = np.zeros_like(grid)
    dx = np.diff(grid)
    w[:-1] += dx / 2
    w[1:] += dx / 2
    return w


# %% mistake: source multiplied by beta
# function: free_energy
# kind: factor
# truth: free_energy puts the source inside the Boltzmann factor as exp(-beta (E - J O)), so J is multiplied by beta; in eq. 2.13 the source term is J O with no beta, Z = int exp(-beta E + J O).
def free_energy(energy, observable, beta, J, grid):
    grid = np.asarray(grid, dtype=float)
    E = _hm_values(energy, grid)
    O = _hm_values(observable, grid)
    w = _hm_trap_weights(grid)
    Js = np.atleast_1d(np.asarray(J, dtype=float))
    out = np.empty(Js.shape)
    for i, j in enumerate(Js):
        x = -beta * (E - j * O)
        out[i] = -special.logsumexp(x, b=w)
    if np.ndim(J) == 0:
        return float(out[0])
    return out.reshape(np.shape(J))


# %% mistake: last cumulant never computed
# function: cumulants_from_free_energy
# kind: off-by-one
# truth: in cumulants_from_free_energy the recursion loop runs over range(2, order) instead of range(2, order + 1), so the highest cumulant kappa_order is left at its initial value 0 (kappa_2 is missing when order=2, kappa_4 when order=4).
def cumulants_from_free_energy(energy, observable, beta, grid, order):
    grid = np.asarray(grid, dtype=float)
    E = _hm_values(energy, grid)
    O = _hm_values(observable, grid)
    w = _hm_trap_weights(grid)
    logp = -beta * E
    logp = logp - special.logsumexp(logp, b=w)
    p = w * np.exp(logp)
    mean = np.sum(p * O)
    d = O - mean
    mu = [1.0, 0.0] + [np.sum(p * d**k) for k in range(2, order + 1)]
    kappa = np.zeros(order)
    kappa[0] = mean
    for n in range(2, order):
        s = mu[n]
        for m in range(2, n - 1):
            s -= special.comb(n - 1, m - 1) * kappa[m - 1] * mu[n - m]
        kappa[n - 1] = s
    return kappa


# %% mistake: mu_4 missing its m1^4 term
# function: kappa4_from_moments
# kind: term
# truth: kappa4_from_moments builds mu_4 by expanding E[(O - m1)^4] but drops the last +m1^4 term (mu_4 = m4 - 4 m3 m1 + 6 m2 m1^2 - 4 m1^4 instead of ... - 3 m1^4), so kappa_4 is wrong by -m1^4 whenever the mean is nonzero.
def kappa4_from_moments(m1, m2, m3, m4):
    mu2 = m2 - m1**2
    mu4 = m4 - 4 * m3 * m1 + 6 * m2 * m1**2 - 4 * m1**4
    return mu4 - 3 * mu2**2
