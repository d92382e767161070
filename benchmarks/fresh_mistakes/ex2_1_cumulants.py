import numpy as np
from scipy import special


# %% mistake: callable observable not evaluated on the grid
# function: free_energy
# kind: branch
# truth: free_energy evaluates a callable energy on the grid but not a callable observable, so with O given as a function it multiplies J by the function object and fails; evaluate observable(grid) too.
def free_energy(energy, observable, beta, J, grid):
    grid = np.asarray(grid, dtype=float)
    E = energy(grid) if callable(energy) else np.asarray(energy, dtype=float)
    O = np.asarray(observable, dtype=float)
    scalar = np.ndim(J) == 0
    Js = np.atleast_1d(np.asarray(J, dtype=float))
    expo = -beta * E[None, :] + Js[:, None] * O[None, :]
    shift = expo.max(axis=1, keepdims=True)
    Z = np.trapezoid(np.exp(expo - shift), grid, axis=1)
    F = -(np.log(Z) + shift[:, 0])
    return float(F[0]) if scalar else F.reshape(np.shape(J))


# %% mistake: sixth cumulant misses the -10 mu3^2 term
# function: cumulants_from_free_energy
# kind: term
# truth: in cumulants_from_free_energy the sixth cumulant is mu6 - 15 mu4 mu2 - 10 mu3^2 + 30 mu2^3, but the code leaves out the -10 mu3^2 term, so kappa_6 is wrong for any skewed distribution.
def cumulants_from_free_energy(energy, observable, beta, grid, order):
    grid = np.asarray(grid, dtype=float)
    E = np.asarray(energy, dtype=float)
    O = np.asarray(observable, dtype=float)
    a = -beta * E
    w = np.exp(a - a.max())
    w = w / np.trapezoid(w, grid)
    mean = np.trapezoid(w * O, grid)
    mu = [0.0] + [np.trapezoid(w * (O - mean) ** p, grid) for p in range(1, max(order, 6) + 1)]
    k = [mean, mu[2], mu[3], mu[4] - 3 * mu[2] ** 2, mu[5] - 10 * mu[3] * mu[2],
         mu[6] - 15 * mu[4] * mu[2] + 30 * mu[2] ** 3]
    if order > 6:
        # general recursion on central moments for the higher orders
        for n in range(7, order + 1):
            kn = mu[n] if n < len(mu) else np.trapezoid(w * (O - mean) ** n, grid)
            for m in range(2, n - 1):
                kn -= special.comb(n - 1, m - 1) * k[m - 1] * mu[n - m]
            k.append(kn)
    return np.array(k[:order], dtype=float)


# %% mistake: early return when the mean is zero
# function: kappa3_from_moments
# kind: array-crash
# truth: kappa3_from_moments takes a shortcut `if m1 == 0: return m3`, which raises "truth value of an array is ambiguous" when the moments are arrays; just evaluate m3 - 3 m2 m1 + 2 m1^3, which broadcasts.
def kappa3_from_moments(m1, m2, m3):
    if m1 == 0:
        return m3
    return m3 - 3 * m2 * m1 + 2 * m1**3


# %% mistake: raw second moment in the 3 mu_2^2 correction
# function: kappa4_from_moments
# kind: concept
# truth: kappa4_from_moments computes the central mu_4 correctly but subtracts 3 m2^2 with the raw second moment instead of 3 mu_2^2 with the variance m2 - m1^2, so kappa_4 is wrong whenever the mean is not zero.
def kappa4_from_moments(m1, m2, m3, m4):
    mu4 = m4 - 4 * m3 * m1 + 6 * m2 * m1**2 - 3 * m1**4
    return mu4 - 3 * m2**2
