import numpy as np
from numpy.polynomial import polynomial as P


def _hm_moments(f, D, temperature):
    """Mean and variance of p ~ exp(U / temperature), U' = f, by the trapezoid rule on a window."""
    U = P.polyint(np.asarray(f, dtype=float))
    crit = P.polyroots(np.asarray(f, dtype=float))
    crit = crit[np.abs(crit.imag) < 1e-9].real
    Umax = np.max(P.polyval(crit, U))
    shifted = U.copy()
    shifted[0] -= Umax - 40.0 * temperature
    ends = P.polyroots(shifted)
    ends = ends[np.abs(ends.imag) < 1e-7].real
    lo, hi = ends.min(), ends.max()
    x = np.linspace(lo, hi, 400001)
    w = np.exp((P.polyval(x, U) - Umax) / temperature)
    w[0] *= 0.5
    w[-1] *= 0.5
    w /= w.sum()
    m = w @ x
    return float(m), float(w @ (x - m) ** 2)


# %% mistake: Boltzmann weight at temperature D
# function: stationary_moments
# kind: factor
# truth: stationary_moments uses p ~ exp(U / D) instead of exp(2 U / D): the temperature of the noise <xi xi> = D delta is T = D/2, so the density is twice as wide in variance (the OU drift -k x gets variance D/k instead of D/(2k)).
def stationary_moments(f, D):
    return _hm_moments(f, D, temperature=D)


# %% mistake: variance D/(2 f') with the sign of f'
# function: mean_shift
# kind: term
# truth: mean_shift uses the linearized variance as D/(2 f'(x0)), which is negative for a stable point, instead of D/(-2 f'(x0)), so the shift comes out as -f'' D / (4 f'^2): the right size with the wrong sign (the mean moves away from the steeper side).
def mean_shift(f1, f2, D):
    f1, f2, D = (np.asarray(v, dtype=float) for v in (f1, f2, D))
    var = D / (2 * f1)
    out = -f2 * var / (2 * f1)
    return float(out) if out.ndim == 0 else out


# %% mistake: closest root anywhere with f' < 0
# function: self_consistent_point
# kind: branch
# truth: self_consistent_point keeps every real root of G = 4 f f' - D f'' with f'(x*) < 0 and returns the one closest to x0, without restricting to the stable interval of x0; when the branch of x0 has disappeared it returns a root in another well (e.g. the deep right well of a tilted drift) instead of (nan, nan).
def self_consistent_point(f, fp, fpp, D, x0):
    f = np.asarray(f, dtype=float)
    fp = P.polyder(f) if fp is None else np.asarray(fp, dtype=float)
    fpp = P.polyder(f, 2) if fpp is None else np.asarray(fpp, dtype=float)
    if P.polyval(x0, fp) >= 0:
        return (float("nan"), float("nan"))
    G = P.polysub(4 * P.polymul(f, fp), D * fpp)
    roots = P.polyroots(G)
    roots = roots[np.abs(roots.imag) < 1e-9].real
    roots = roots[P.polyval(roots, fp) < 0]
    if roots.size == 0:
        return (float("nan"), float("nan"))
    x = float(roots[np.argmin(np.abs(roots - x0))])
    return (x, float(D / (-2 * P.polyval(x, fp))))
