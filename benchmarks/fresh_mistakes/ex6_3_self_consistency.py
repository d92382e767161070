import numpy as np
from numpy.polynomial import polynomial as P
from scipy import integrate


# %% mistake: factor 2 dropped from the linearized variance
# function: linearized_variance
# kind: factor
# truth: linearized_variance returns D / (-f'(x0)) without the factor 2; the OU variance of the linearized dynamics is D / (-2 f'(x0)) (D/(2k) for f = -k x).
def linearized_variance(fprime, D):
    out = np.asarray(D, dtype=float) / (-np.asarray(fprime, dtype=float))
    return out if out.ndim else float(out)


# %% mistake: positive variance plugged in for D/(2 f1)
# function: mean_shift
# kind: term
# truth: mean_shift computes (1/2)(f2/f1) times the variance D/(-2 f1) instead of times D/(2 f1), so the shift has the wrong sign: it must be f''(x0) D / (4 f'(x0)^2), with the sign of f''.
def mean_shift(f1, f2, D):
    f1, f2, D = (np.asarray(a, dtype=float) for a in (f1, f2, D))
    s = D / (-2 * f1)
    out = 0.5 * (f2 / f1) * s
    return out if out.ndim else float(out)


# %% mistake: Boltzmann weight at temperature D instead of D/2
# function: stationary_moments
# kind: concept
# truth: stationary_moments weights with exp(U(x)/D), i.e. at temperature D, but the noise <xi xi> = D delta gives T = D/2 and p ~ exp(2 U / D), so the variance comes out about twice too large.
def stationary_moments(f, D):
    f = np.asarray(f, dtype=float)
    U = P.polyint(f)
    # locate the peak of U on a grid, then integrate around it
    crit = P.polyroots(f) if len(f) > 1 else np.array([])
    crit = np.real(crit[np.abs(np.imag(crit)) < 1e-9]) if np.size(crit) else np.array([0.0])
    if crit.size == 0:
        crit = np.array([0.0])
    x_peak = crit[np.argmax(P.polyval(crit, U))]
    Umax = P.polyval(x_peak, U)
    width = 1.0
    while P.polyval(x_peak + width, U) - Umax > -40 * D or P.polyval(x_peak - width, U) - Umax > -40 * D:
        width *= 1.5
    lo, hi = min(crit.min(), x_peak) - width, max(crit.max(), x_peak) + width

    def w(x):
        return np.exp((P.polyval(x, U) - Umax) / D)

    pts = list(np.sort(crit))
    opts = dict(epsabs=0.0, epsrel=1e-11, limit=500, points=pts if lo < min(pts) and max(pts) < hi else None)
    Z = integrate.quad(w, lo, hi, **opts)[0]
    m = integrate.quad(lambda x: x * w(x), lo, hi, **opts)[0] / Z
    v = integrate.quad(lambda x: (x - m) ** 2 * w(x), lo, hi, **opts)[0] / Z
    return float(m), float(v)


# %% mistake: closest root of G taken from any stable region
# function: self_consistent_point
# kind: branch
# truth: self_consistent_point returns the root of G = 4 f f' - D f'' closest to x0 among all roots with f' < 0, without restricting to the stable interval of x0, so when x0's branch has disappeared it returns a point in another well instead of (nan, nan).
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
    x = float(r[np.argmin(np.abs(r - x0))])
    return x, float(D / (-2 * P.polyval(x, fp)))
