import numpy as np
from numpy.polynomial import polynomial as P
from scipy import integrate


def _hm_self_consistent(f, fp, fpp, D, x0, sign, use_interval):
    f = np.asarray(f, dtype=float)
    fp = P.polyder(f) if fp is None else np.asarray(fp, dtype=float)
    fpp = P.polyder(f, 2) if fpp is None else np.asarray(fpp, dtype=float)
    if P.polyval(x0, fp) >= 0:
        return (np.nan, np.nan)
    G = P.polysub(4.0 * P.polymul(f, fp), sign * D * np.atleast_1d(fpp))
    roots = P.polyroots(np.trim_zeros(G, "b")) if np.any(G != 0) else np.array([])
    roots = np.real(roots[np.abs(np.imag(roots)) < 1e-9])
    lo, hi = -np.inf, np.inf
    if use_interval and len(fp) > 1:
        crit = P.polyroots(np.trim_zeros(fp, "b")) if len(np.trim_zeros(fp, "b")) > 1 else np.array([])
        crit = np.real(crit[np.abs(np.imag(crit)) < 1e-9])
        if np.any(crit < x0):
            lo = crit[crit < x0].max()
        if np.any(crit > x0):
            hi = crit[crit > x0].min()
    cand = [r for r in roots if lo < r < hi and P.polyval(r, fp) < 0]
    if not cand:
        return (np.nan, np.nan)
    xs = float(min(cand, key=lambda r: abs(r - x0)))
    return xs, float(D / (-2.0 * P.polyval(xs, fp)))


# %% mistake: f'(x0) not squared in the mean shift
# function: mean_shift
# kind: factor
# truth: the shift is f''(x0) D / (4 f'(x0)^2) (the slope enters twice, once from solving for <dx> and once in the variance); the code divides by 4 f'(x0), so the result has the wrong power of f' and even the wrong sign for f' < 0.
def mean_shift(f1, f2, D):
    f1, f2, D = (np.asarray(v, dtype=float) for v in (f1, f2, D))
    out = f2 * D / (4 * f1)
    return float(out) if out.ndim == 0 else out


# %% mistake: density integrated on a fixed window around 0
# function: stationary_moments
# kind: branch
# truth: the Boltzmann density must be integrated around its own peak (the maximum of U); the code integrates on the fixed window [-8, 8], which misses a density centred far from the origin (e.g. f = -(x - 20)) and returns nonsense there.
def stationary_moments(f, D):
    f = np.asarray(f, dtype=float)
    U = P.polyint(f)
    x = np.linspace(-8.0, 8.0, 40001)
    e = 2.0 * P.polyval(x, U) / D
    w = np.exp(e - e.max())
    Z = integrate.trapezoid(w, x)
    m = integrate.trapezoid(x * w, x) / Z
    v = integrate.trapezoid((x - m) ** 2 * w, x) / Z
    return float(m), float(v)


# %% mistake: any root with f' < 0, not only the stable interval
# function: self_consistent_point
# kind: branch
# truth: the self-consistent point must be a root of G in the stable interval of x0 (the interval around x0 where f' < 0); the code accepts any real root with f' < 0 anywhere, so after the branch of x0 has disappeared it returns a root in another well instead of nan.
def self_consistent_point(f, fp, fpp, D, x0):
    return _hm_self_consistent(f, fp, fpp, D, x0, sign=1.0, use_interval=False)


# %% mistake: sign of the curvature term in G flipped
# function: self_consistent_point
# kind: term
# truth: eliminating the variance from f + f'' D / (-4 f') = 0 and multiplying by -4 f' gives G = 4 f f' - D f''; the code solves 4 f f' + D f'' = 0, which shifts x* the wrong way (its effective drift f + f'' s*/2 does not vanish).
def self_consistent_point(f, fp, fpp, D, x0):
    return _hm_self_consistent(f, fp, fpp, D, x0, sign=-1.0, use_interval=True)


# %% mistake: linearized variance D / (-f') and the mean shift built on it
# function: linearized_variance
# kind: upstream (linearized_variance)
# truth: the OU variance with the correlator D delta is D / (2k) = D / (-2 f'(x0)); linearized_variance returns D / (-f'(x0)), twice too large (the D_diff convention), and mean_shift, correctly written as -f'' <dx^2> / (2 f') on top of it, inherits the factor 2.
def linearized_variance(fprime, D):
    fprime, D = np.asarray(fprime, dtype=float), np.asarray(D, dtype=float)
    out = D / (-fprime)
    return float(out) if out.ndim == 0 else out


def mean_shift(f1, f2, D):
    f1, f2 = np.asarray(f1, dtype=float), np.asarray(f2, dtype=float)
    out = -f2 * np.asarray(linearized_variance(f1, D)) / (2 * f1)
    return float(out) if out.ndim == 0 else out
