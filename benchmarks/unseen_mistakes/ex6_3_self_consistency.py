import numpy as np
from numpy.polynomial import polynomial as P
from scipy import integrate


# %% mistake: variance without the factor 2
# function: linearized_variance
# kind: factor
# truth: the stationary variance of the linearized process is D / (-2 f'); the factor 2 in the denominator is missing.
def linearized_variance(fprime, D):
    return D / (-fprime)


# %% mistake: shift with the sign of the variance flipped
# function: mean_shift
# kind: term
# truth: the shift is (1/2)(f''/f')(D/(2 f')) = f'' D / (4 f'^2) > 0 for f'' > 0; writing the variance as D/(-2 f') inside this product flips the sign of the shift.
def mean_shift(f1, f2, D):
    f1, f2, D = (np.asarray(a, dtype=float) for a in (f1, f2, D))
    out = 0.5 * (f2 / f1) * (D / (-2 * f1))
    return float(out) if out.ndim == 0 else out


# %% mistake: density exp(-2U/D)
# function: stationary_moments
# kind: concept
# truth: with U' = f the stationary density is exp(+2U/D) (U is minus the potential); exp(-2U/D) puts the weight where the drift repels.
def stationary_moments(f, D):
    U = P.polyint(f)
    x = np.linspace(-60, 60, 400001)
    e = -2 * P.polyval(x, U) / D
    e = e - e.max()
    w = np.exp(e)
    Z = integrate.trapezoid(w, x)
    m = integrate.trapezoid(x * w, x) / Z
    v = integrate.trapezoid((x - m) ** 2 * w, x) / Z
    return float(m), float(v)


# %% mistake: root of G outside the stable interval
# function: self_consistent_point
# kind: branch
# truth: it returns the root of G = 4 f f' - D f'' closest to x0 among all points with f' < 0, without restricting to the stable interval of x0, so when the branch has disappeared it jumps to another well instead of returning (nan, nan).
def self_consistent_point(f, fp, fpp, D, x0):
    f = np.asarray(f, dtype=float)
    fp = P.polyder(f) if fp is None else np.asarray(fp, dtype=float)
    fpp = P.polyder(f, 2) if fpp is None else np.asarray(fpp, dtype=float)
    if P.polyval(x0, fp) >= 0:
        return float("nan"), float("nan")
    G = P.polysub(4 * P.polymul(f, fp), D * fpp)
    r = P.polyroots(G)
    r = np.real(r[np.abs(np.imag(r)) < 1e-9])
    r = r[P.polyval(r, fp) < 0]
    if r.size == 0:
        return float("nan"), float("nan")
    xs = float(r[np.argmin(np.abs(r - x0))])
    return xs, float(D / (-2 * P.polyval(xs, fp)))
