# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # ex6_3_self_consistency: Self-consistency in the smallest possible example
#
# *Notes: Section 6.3.1 and Exercise 6.3 (after Stapmanns et al. 2020); the OU process of
# Exercise 6.1 is the linearized dynamics.*
#
# **The process.** One degree of freedom with a nonlinear drift and additive white noise,
# in the convention of Section 6.1,
# $$
# \frac{dx}{dt}=f(x)+\xi(t),\qquad \langle\xi(t)\xi(t')\rangle=D\,\delta(t-t')
# \qquad\big(dx=f(x)\,dt+\sqrt D\,dW\big).
# $$
# Let $x_0$ be a stable fixed point of the noiseless dynamics, $f(x_0)=0$, $f'(x_0)<0$. How
# does noise move the mean of $x$ away from $x_0$?
#
# **Drifts as polynomials.** Functions cannot be passed to the graders, so a drift is a
# polynomial given by its coefficients in *increasing* order, the convention of
# `numpy.polynomial.polynomial`:
# `f = [c0, c1, c2, c3]` means $f(x)=c_0+c_1x+c_2x^2+c_3x^3$. Useful tools:
# `P.polyval(x, f)`, `P.polyder(f)`, `P.polyder(f, 2)`, `P.polyint(f)`, `P.polyroots(f)`,
# `P.polymul`, `P.polysub` with `from numpy.polynomial import polynomial as P`.
# Where a function takes the *numbers* $f'(x_0)$, $f''(x_0)$ (parts (a), (b)) it takes plain
# numbers (or arrays of them).
#
# **What you implement** (graded by hidden tests):
#
# | part | function |
# |---|---|
# | (a) | `linearized_variance(fprime, D)` |
# | (b) | `mean_shift(f1, f2, D)` |
# | (c) | `self_consistent_point(f, fp, fpp, D, x0)` |
# | exact | `stationary_moments(f, D)` |
#
# Written answers (graded by hand): the derivations of (a) and (b), and the discussion of (c).

# %% tags=["setup"]
import warnings
import numpy as np
from numpy.polynomial import polynomial as P
from scipy import integrate, optimize
import matplotlib.pyplot as plt

# %% tags=["params"]
def draw_params(rng):
    """This year's drift f(x) = -k x + a x^2 - b x^3 (fixed point x0 = 0, f' < 0 everywhere)."""
    import math
    k, b = rng.uniform(0.8, 1.5), rng.uniform(0.5, 1.5)
    a = rng.uniform(0.5, 0.85) * math.sqrt(3 * k * b)        # a^2 < 3 k b: f is strictly decreasing
    return {"drift": [0.0, -round(float(k), 2), round(float(a), 2), -round(float(b), 2)]}


# %% [markdown]
# The provided simulator below integrates the SDE by Euler–Maruyama and measures the
# stationary mean and variance by averaging over time (after a burn-in) and over
# independent paths; the standard errors come from the spread between paths. It is the
# "experiment" against which all approximations are judged.

# %% tags=["provided"]
def em_stationary_moments(f, D, dt=0.01, steps=4000, n_paths=2000, burn=500, rng=0, x_start=0.0):
    """Stationary mean and variance of dx = f(x) dt + sqrt(D) dW by Euler-Maruyama.

    f: polynomial coefficients (increasing order). Averages over steps burn..steps of
    n_paths independent paths started at x_start. Returns a dict with "mean", "var" and
    their standard errors "se_mean", "se_var" (from the scatter of the per-path averages).
    """
    rng = np.random.default_rng(rng)
    x = np.full(n_paths, float(x_start))
    s1 = np.zeros(n_paths)
    s2 = np.zeros(n_paths)
    amp = np.sqrt(D * dt)
    for i in range(steps):
        x = x + dt * P.polyval(x, f) + amp * rng.standard_normal(n_paths)
        if i >= burn:
            s1 += x
            s2 += x * x
    m_path, q_path = s1 / (steps - burn), s2 / (steps - burn)
    mean = m_path.mean()
    var = q_path.mean() - mean**2
    se_mean = m_path.std(ddof=1) / np.sqrt(n_paths)
    se_var = np.sqrt(np.var(q_path - 2 * mean * m_path, ddof=1) / n_paths)
    return {"mean": float(mean), "var": float(var), "se_mean": float(se_mean), "se_var": float(se_var)}


# %% [markdown]
# ## (a) Linearize: the OU process again
#
# With $x=x_0+\delta x$ and $f(x)=f'(x_0)\delta x+O(\delta x^2)$,
# $$
# \frac{d}{dt}\delta x=f'(x_0)\,\delta x+\xi+O(\delta x^2),
# $$
# an OU process with stiffness $k=-f'(x_0)>0$. By Exercise 6.1(b) its stationary variance is
# $$
# \langle\delta x^2\rangle=\frac{D}{2k}=\frac{D}{-2f'(x_0)}. \tag{1}
# $$
# (In Fourier space: $\langle|\delta x(\omega)|^2\rangle=\frac{D}{\omega^2+f'(x_0)^2}$ and
# $\int\frac{d\omega}{2\pi}\frac{D}{\omega^2+k^2}=\frac{D}{2k}$.)
#
# **Task.** Implement `linearized_variance`.

# %% tags=["graded"]
def linearized_variance(fprime, D):
    """Stationary variance of the linearized dynamics, <dx^2> = D / (-2 f'(x0)) (notes eq. in 6.3.1).

    Args:
        fprime: float or np.ndarray, the slope f'(x0) < 0 at a stable fixed point.
        D: float or np.ndarray >= 0, noise strength (<xi xi> = D delta).
    Returns:
        float or np.ndarray (broadcast of the inputs), positive.
    """
    return np.asarray(D, dtype=float) / (-2.0 * np.asarray(fprime, dtype=float))


# %% tags=["check"]
@check
def check_linearized_variance():
    "the OU process f = -k x has variance D/(2k), and the variance is positive for f' < 0"
    assert np.isclose(linearized_variance(-2.0, 0.8), 0.2)
    assert np.all(np.asarray(linearized_variance(np.array([-0.5, -1.0, -3.0]), 1.0)) > 0)


# %% [markdown]
# **(a), written.** Derive (1), the stationary variance $\langle\delta x^2\rangle=D/(-2f'(x_0))$ of
# the linearized dynamics, by solving the OU process in time or in Fourier space (compare
# Exercise 6.1(b)), and say why $f'(x_0)<0$ is needed.

# %% [markdown] tags=["answer"] points=2
# *Model answer.* Linearizing, $\delta\dot x=-k\,\delta x+\xi$ with $k=-f'(x_0)>0$. In the
# stationary state $\delta x(t)=\int_{-\infty}^te^{-k(t-s)}\xi(s)ds$, so
# $\langle\delta x^2\rangle=D\int_{-\infty}^te^{-2k(t-s)}ds=\frac D{2k}=\frac{D}{-2f'(x_0)}$.
# Equivalently, Itô's formula gives $\frac{d}{dt}\langle\delta x^2\rangle=-2k\langle\delta x^2\rangle+D$,
# whose fixed point is $D/2k$; or $\int\frac{d\omega}{2\pi}\frac{D}{\omega^2+k^2}=\frac{D}{2k}$.
#
# *Rubric (2 pts):* correct linear SDE with $k=-f'(x_0)$ (1); variance with the factor 2
# (1).

# %% [markdown]
# ## (b) Second order: the noise shifts the mean
#
# Take the average of the full equation in the stationary state, where
# $\frac{d}{dt}\langle x\rangle=0$: $\langle f(x)\rangle=0$. Expand to second order around $x_0$,
# $$
# 0=\langle f(x)\rangle\approx f(x_0)+f'(x_0)\langle\delta x\rangle+\tfrac12f''(x_0)\langle\delta x^2\rangle,
# $$
# and use the *linearized* variance (1) for $\langle\delta x^2\rangle$:
# $$
# \langle x\rangle-x_0=\langle\delta x\rangle\approx-\frac{f''(x_0)}{2f'(x_0)}\,\frac{D}{-2f'(x_0)}
# =\frac12\,\frac{f''(x_0)}{f'(x_0)}\,\frac{D}{2f'(x_0)}=\frac{f''(x_0)\,D}{4f'(x_0)^2}. \tag{2}
# $$
# A drift that curves upward ($f''>0$) pushes harder back from the left than from the
# right, so the mean moves right. The shift is of the same order $D$ as the variance: the
# expansion point $x_0$ was not the mean after all.
#
# **Task.** Implement `mean_shift` ($\langle x\rangle-x_0$, as a function of the numbers
# $f'(x_0)$, $f''(x_0)$ and $D$).

# %% tags=["graded"]
def mean_shift(f1, f2, D):
    """First-order noise-induced shift of the mean, <x> - x0 = f''(x0) D / (4 f'(x0)^2) (notes 6.3.1).

    Equivalently (1/2) (f2 / f1) (D / (2 f1)).

    Args:
        f1: float or np.ndarray, f'(x0) < 0.
        f2: float or np.ndarray, f''(x0).
        D: float or np.ndarray >= 0.
    Returns:
        float or np.ndarray (broadcast of the inputs): the shift <x> - x0 (not <x> itself).
    """
    f1 = np.asarray(f1, dtype=float)
    f2 = np.asarray(f2, dtype=float)
    return f2 * np.asarray(D, dtype=float) / (4.0 * f1**2)


# %% tags=["check"]
@check
def check_mean_shift():
    "no curvature, no shift; the shift follows the sign of f'' and is linear in D"
    assert np.isclose(mean_shift(-1.0, 0.0, 0.5), 0.0)
    assert mean_shift(-1.0, 2.0, 0.1) > 0 and mean_shift(-1.0, -2.0, 0.1) < 0
    assert np.isclose(mean_shift(-1.5, 0.7, 0.4), 2 * mean_shift(-1.5, 0.7, 0.2))


# %% [markdown]
# **(b), written.** Derive (2): carry the Taylor expansion of $f$ to second order in the stationary
# condition $\langle f(x)\rangle=0$, with the linearized variance (1), and explain why the shift of
# the mean is of the same order $D$ as the variance.

# %% [markdown] tags=["answer"] points=2
# *Model answer.* Stationarity of $\langle x\rangle$ gives $\langle f(x)\rangle=0$ exactly.
# Taylor-expanding to second order, $f(x_0)=0$ and
# $0=f'(x_0)\langle\delta x\rangle+\frac12f''(x_0)\langle\delta x^2\rangle+O(\langle\delta x^3\rangle)$. Since
# $\langle\delta x^2\rangle=O(D)$, inserting the leading-order (linearized) variance
# $D/(-2f'(x_0))$ gives $\langle\delta x\rangle=\frac{f''(x_0)D}{4f'(x_0)^2}$, correct to $O(D)$
# (the neglected terms are $O(D^2)$: $\langle\delta x^3\rangle$, corrections to the variance).
#
# *Rubric (2 pts):* $\langle f(x)\rangle=0$ in the stationary state and the second-order
# expansion (1); the result with correct sign and factors (1).

# %% [markdown]
# ## The exact answer, for comparison
#
# In one dimension every drift is a gradient: $f=U'$ with $U=\int f$ (`P.polyint(f)`). The
# stationary Fokker–Planck equation $0=-\partial_x(fp)+\frac D2\partial_x^2p$ has the
# zero-current solution
# $$
# p(x)\propto\exp\Big(\frac{2U(x)}{D}\Big)=\exp\Big(-\frac{V(x)}{T}\Big),\qquad V=-U,\ T=\frac D2,
# $$
# normalizable when $f$ is confining (odd degree, negative leading coefficient). Its mean
# and variance are one-dimensional integrals.
#
# **Task.** Implement `stationary_moments` by quadrature (for example `scipy.integrate.quad`
# on a window around the maximum of $U$ outside of which $p$ is negligible, or a fine grid).
# Subtract the maximum of $2U/D$ before exponentiating: for small $D$ the exponent is huge.
# Relative accuracy $10^{-7}$ is expected.

# %% tags=["graded"]
def stationary_moments(f, D):
    """Exact stationary mean and variance of dx = f(x) dt + sqrt(D) dW, by quadrature.

    p(x) ~ exp(2 U(x) / D) with U' = f (Boltzmann density at T = D/2).

    Args:
        f: sequence of polynomial coefficients, increasing order (numpy.polynomial), of a
            confining drift: odd degree >= 1 with a negative leading coefficient.
        D: float > 0.
    Returns:
        (mean, variance): tuple of two floats, relative accuracy ~1e-7 or better.
    """
    f = np.trim_zeros(np.asarray(f, dtype=float), "b")
    U = P.polyint(f)
    crit = P.polyroots(f)
    crit = crit[np.abs(crit.imag) < 1e-9].real
    x_max = crit[np.argmax(P.polyval(crit, U))]
    U_max = P.polyval(x_max, U)
    # window: where 2 (U - U_max) / D > -80, found from the outermost real roots of that polynomial
    shifted = 2.0 * P.polysub(U, [U_max]) / D
    edges = P.polyroots(P.polyadd(shifted, [80.0]))
    edges = edges[np.abs(edges.imag) < 1e-7 * (1 + np.abs(edges))].real
    lo, hi = edges.min() - 1e-9, edges.max() + 1e-9
    pts = np.sort(np.concatenate([crit[(crit > lo) & (crit < hi)], [x_max]]))

    def moment(kk, center=0.0):
        val, _ = integrate.quad(lambda x: (x - center) ** kk * np.exp(P.polyval(x, shifted)), lo, hi,
                                points=pts, limit=400, epsabs=0.0, epsrel=1e-11)
        return val

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        Z = moment(0)
        mean = moment(1) / Z
        var = moment(2, mean) / Z
    return float(mean), float(var)


# %% tags=["check"]
@check
def check_stationary_moments_ou():
    "the OU drift -k x gives mean 0 and variance D/(2k) exactly"
    m, v = stationary_moments([0.0, -1.5], 0.6)
    assert abs(m) < 1e-9 and np.isclose(v, 0.2, rtol=1e-8)
    m, v = stationary_moments([20.0, -1.0], 0.5)          # f = -(x - 20): U = 200 at its maximum
    assert np.isclose(m, 20.0, rtol=1e-8) and np.isclose(v, 0.25, rtol=1e-7), \
        "a density far from the origin, with 2U/D = 800 at its peak: integrate around the peak, subtract the maximum"


@check
def check_stationary_moments_small_noise():
    "for small D the exact variance approaches the linearized one and the mean shift approaches (b)"
    f = [0.0, -1.0, 0.8, -1.0]
    D = 1e-3
    m, v = stationary_moments(f, D)
    assert np.isclose(v, linearized_variance(-1.0, D), rtol=1e-2)
    assert np.isclose(m, mean_shift(-1.0, 1.6, D), rtol=2e-2)


# %% [markdown]
# ## (c) The self-consistent repair
#
# Expand instead around a point $x_*$ chosen so that the *effective* drift vanishes,
# with the variance evaluated at the same point:
# $$
# f(x_*)+\tfrac12f''(x_*)\,\langle\delta x^2\rangle_*=0,\qquad
# \langle\delta x^2\rangle_*=\frac{D}{-2f'(x_*)},\qquad f'(x_*)<0. \tag{3}
# $$
# Two coupled equations, each an input to the other, like the Curie–Weiss condition of
# Section 5.1. For a polynomial drift, eliminating the variance and multiplying by
# $-4f'(x_*)>0$ turns (3) into a *polynomial* equation,
# $$
# G(x_*)\equiv4f(x_*)f'(x_*)-D\,f''(x_*)=0\quad\text{with}\quad f'(x_*)<0,
# $$
# so all candidate points are real roots of $G$. Take the roots in the *stable interval* of
# the noiseless fixed point $x_0$, the largest interval around $x_0$ on which $f'<0$, and among
# them the one closest to $x_0$. (At the ends of that interval $f'\to0^-$ and the effective
# drift $f-\frac{Df''}{4f'}$ diverges, so as $D$ grows from 0 roots can only appear or
# disappear there in pairs: the branch that continues $x_0$ stays in the interval until it
# merges with a partner.) If there is none, the self-consistent point has ceased to exist: the
# noise, filtered through the curvature, has pushed the expansion out of the stable region.
#
# **Task.** Implement `self_consistent_point`. The arguments `fp` and `fpp` (coefficients of
# $f'$ and $f''$) may be `None`, in which case you differentiate `f` yourself.

# %% tags=["graded"]
def self_consistent_point(f, fp, fpp, D, x0):
    """Self-consistent expansion point x* and variance of notes Ex 6.3(c).

    Solves f(x*) + (1/2) f''(x*) s* = 0 with s* = D / (-2 f'(x*)) and f'(x*) < 0, i.e. finds the
    real roots of G = 4 f f' - D f'' that lie in the stable interval of x0 (the largest
    interval containing x0 on which f' < 0), and returns the one closest to x0.

    Args:
        f: polynomial coefficients of the drift, increasing order (numpy.polynomial).
        fp: coefficients of f' (same convention), or None to differentiate f.
        fpp: coefficients of f'', or None to differentiate f twice.
        D: float >= 0, noise strength.
        x0: float with f'(x0) < 0: the noiseless stable fixed point (or a point near it).
    Returns:
        (x_star, var_star): tuple of two floats, var_star = D / (-2 f'(x_star)). If the stable
        interval of x0 contains no root of G (the self-consistent branch has disappeared), or
        f'(x0) >= 0, returns (nan, nan). At D = 0, x_star is the root of f in that interval.
    """
    f = np.asarray(f, dtype=float)
    fp = P.polyder(f) if fp is None else np.asarray(fp, dtype=float)
    fpp = P.polyder(f, 2) if fpp is None else np.asarray(fpp, dtype=float)
    nan = (float("nan"), float("nan"))
    if not P.polyval(x0, fp) < 0:
        return nan
    # the stable interval (lo, hi) around x0: between the neighbouring real roots of f'
    crit = P.polyroots(np.trim_zeros(fp, "b")) if np.count_nonzero(fp) > 1 else np.array([])
    crit = crit[np.abs(crit.imag) < 1e-9 * (1 + np.abs(crit))].real
    lo = crit[crit < x0].max(initial=-np.inf)
    hi = crit[crit > x0].min(initial=np.inf)
    G = np.trim_zeros(P.polysub(4.0 * P.polymul(f, fp), D * fpp), "b")
    roots = P.polyroots(G) if G.size > 1 else np.array([])
    roots = roots[np.abs(roots.imag) < 1e-7 * (1 + np.abs(roots))].real
    roots = roots[(roots > lo) & (roots < hi) & (P.polyval(roots, fp) < 0)]
    if roots.size == 0:
        return nan
    x_star = roots[np.argmin(np.abs(roots - x0))]
    # polish by Newton on the effective drift f - D f''/(4 f'): the eigenvalue roots of G lose digits
    # when its coefficients are large (a fixed point far from the origin)
    fppp = P.polyder(fpp)
    for _ in range(3):
        fpx = P.polyval(x_star, fp)
        F = P.polyval(x_star, f) - D * P.polyval(x_star, fpp) / (4.0 * fpx)
        dF = fpx - D * (P.polyval(x_star, fppp) * fpx - P.polyval(x_star, fpp) ** 2) / (4.0 * fpx**2)
        step = F / dF
        if np.isfinite(step) and lo < x_star - step < hi and P.polyval(x_star - step, fp) < 0:
            x_star -= step
    return float(x_star), float(D / (-2.0 * P.polyval(x_star, fp)))


# %% tags=["check"]
@check
def check_self_consistent_point():
    "(3) holds at the returned point; D = 0 gives the fixed point; f, fp, fpp or f alone agree"
    f = [0.1, -1.0, 0.9, -0.7]
    x_s, v_s = self_consistent_point(f, None, None, 0.3, 0.1)
    assert abs(P.polyval(x_s, f) + 0.5 * P.polyval(x_s, P.polyder(f, 2)) * v_s) < 1e-9, "effective drift"
    assert np.isclose(v_s, 0.3 / (-2 * P.polyval(x_s, P.polyder(f)))), "variance at x*"
    x_0, v_0 = self_consistent_point(f, None, None, 0.0, 0.1)
    assert abs(P.polyval(x_0, f)) < 1e-10 and v_0 == 0
    assert np.allclose(self_consistent_point(f, P.polyder(f), P.polyder(f, 2), 0.3, 0.1), (x_s, v_s))
    odd = [0.0, -2.0, 0.0, -1.0]                      # f = -2x - x^3: f'' = 0 at x = 0, no shift
    assert np.allclose(self_consistent_point(odd, None, None, 0.4, 0.3), (0.0, 0.1), atol=1e-12), \
        "an odd drift keeps x* = 0 (the root closest to x0 in the stable interval), with variance D / (-2 f'(0))"
    assert np.all(np.isnan(self_consistent_point([0.0, 1.0], None, None, 0.1, 0.5))), "f'(x0) >= 0: (nan, nan)"
    assert np.all(np.isnan(self_consistent_point([1.0, 0.0, 0.0, -1 / 3], None, None, 0.1, 0.0))), \
        "a marginal start, f'(x0) = 0, is not stable: (nan, nan)"
    assert np.all(np.isnan(self_consistent_point([0.0, -1.0, 1.9, -1.0], None, None, 0.3, 0.0))), \
        "the soft shoulder at D = 0.3: no root of G in the stable interval of x0"
    tilted = [0.26, 1.0, 0.0, -1.0]                   # a shallow left well near -0.83 and a deep right one
    assert np.all(np.isnan(self_consistent_point(tilted, None, None, 0.3, -0.8))), \
        "the left well's branch is gone at D = 0.3: a root in the right well belongs to another fixed point"


# %% [markdown]
# ### The comparison
#
# This year's drift (`PARAMS["drift"]`, $x_0=0$): the mean and the variance against $D$,
# exact (quadrature), perturbative ($x_0$ + (2), and (1)), self-consistent (3), and
# Euler–Maruyama simulation (dots, $\pm$ 2 standard errors).

# %% tags=["figure"]
f_lab = PARAMS["drift"]
D_grid = np.linspace(0.01, 1.0, 40)
D_sim = [0.1, 0.3, 0.6, 1.0]
f1_lab, f2_lab = P.polyval(0.0, P.polyder(f_lab)), P.polyval(0.0, P.polyder(f_lab, 2))
exact = np.array([stationary_moments(f_lab, D) for D in D_grid])
sc = np.array([self_consistent_point(f_lab, None, None, D, 0.0) for D in D_grid])
sims = [em_stationary_moments(f_lab, D, rng=i) for i, D in enumerate(D_sim)]
fig, axes = plt.subplots(1, 2, figsize=(13, 4.3))
axes[0].plot(D_grid, exact[:, 0], "k", label="exact (quadrature)")
axes[0].plot(D_grid, mean_shift(f1_lab, f2_lab, D_grid), "C0--", label=r"perturbative $x_0+\frac{f''D}{4f'^2}$")
axes[0].plot(D_grid, sc[:, 0], "C1-.", label=r"self-consistent $x_*$")
axes[0].errorbar(D_sim, [s["mean"] for s in sims], [2 * s["se_mean"] for s in sims], fmt="o", color="C3",
                 label="Euler-Maruyama")
axes[0].set(xlabel="$D$", ylabel=r"$\langle x\rangle$", title=f"mean, f = {f_lab}")
axes[1].plot(D_grid, exact[:, 1], "k", label="exact")
axes[1].plot(D_grid, linearized_variance(f1_lab, D_grid), "C0--", label=r"linearized $D/(-2f'(x_0))$")
axes[1].plot(D_grid, sc[:, 1], "C1-.", label=r"self-consistent $D/(-2f'(x_*))$")
axes[1].errorbar(D_sim, [s["var"] for s in sims], [2 * s["se_var"] for s in sims], fmt="o", color="C3",
                 label="Euler-Maruyama")
axes[1].set(xlabel="$D$", ylabel=r"$\langle\delta x^2\rangle$", title="variance")
for ax in axes:
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% tags=["solution"]
# Independent checks.
# 1. `stationary_moments` against long Euler–Maruyama runs (small step, $\Delta t=0.004$) for
#    three drifts, one of them bistable, within a few standard errors (plus the $O(\Delta t)$
#    bias); and against a second quadrature (dense trapezoid on a wide grid).
# 2. (1) and (2) as the exact small-$D$ limits: $\lim_{D\to0}\mathrm{var}/D$ and
#    $\lim_{D\to0}(\langle x\rangle-x_0)/D$ from the exact moments by Richardson extrapolation.
# 3. `self_consistent_point` by other routes: a generic 2-d root finder (`fsolve`) on the two
#    coupled equations (3) for $(x_*,s_*)$, started at $(x_0, D/(-2f'(x_0)))$, and `brentq` on
#    $f(x)-\frac{D f''(x)}{4f'(x)}$ in the stable interval. (A naive alternating iteration
#    $x\leftarrow x-\frac{f+f''s/2}{f'}$, $s\leftarrow\frac{D}{-2f'(x)}$ can oscillate: solving coupled
#    self-consistency equations by plain iteration, as one is tempted to do for DMFT, needs damping.)
# 4. Orders: the errors of the perturbative and self-consistent means are both $O(D^2)$
#    (they agree to first order); a Gaussian (Hartree) closure, which also corrects the
#    variance self-consistently, does better (see the answer to (c)).
drifts = {"PARAMS drift": f_lab, "asymmetric cubic": [0.2, -1.2, 0.6, -0.8],
          "bistable": [0.0, 1.0, 0.3, -1.0]}
for j, (name, f_c) in enumerate(drifts.items()):
    for D, seed in [(0.2, 10 * j + 1), (0.7, 10 * j + 2)]:
        sim = em_stationary_moments(f_c, D, dt=0.004, steps=7500, n_paths=1000, burn=1250, rng=seed, x_start=0.3)
        m, v = stationary_moments(f_c, D)
        zm, zv = (sim["mean"] - m) / sim["se_mean"], (sim["var"] - v) / sim["se_var"]
        # dense trapezoid on a wide grid as a second quadrature
        xs = np.linspace(-8, 8, 400001)
        lw = 2 * P.polyval(xs, P.polyint(f_c)) / D
        w = np.exp(lw - lw.max())
        m2 = np.trapezoid(xs * w, xs) / np.trapezoid(w, xs)
        v2 = np.trapezoid((xs - m2) ** 2 * w, xs) / np.trapezoid(w, xs)
        assert abs(zm) < 5 and abs(zv) < 5 and abs(m2 - m) < 1e-10 and abs(v2 - v) < 1e-10
        # the trapezoid rule is spectrally accurate here: what is left is round-off, printed as a bound
        print(f"{name:17s} D={D}: exact mean {m:+.5f}, var {v:.5f} | EM {sim['mean']:+.5f} (z {zm:+.1f}), "
              f"{sim['var']:.5f} (z {zv:+.1f}) | trapezoid diff < 1e-10, < 1e-10")
# the edges of the contract: a fixed point far from the origin (2U/D ~ 1e5 there), very large and
# very small noise; trapezoid on a grid centred on the fixed point r, as wide as the density needs
for r, D in [(30.0, 0.5), (-25.0, 1.0), (0.0, 200.0), (3.0, 1e-4)]:
    u = [-r, 1.0]                                   # f = -(x - r) + 0.5 (x - r)^2 - 0.7 (x - r)^3
    f_c = P.polyadd(P.polyadd(-np.asarray(u), 0.5 * P.polymul(u, u)), -0.7 * P.polymul(P.polymul(u, u), u))
    half = max(20 * np.sqrt(D), 8 * D**0.25) + 1
    xs = np.linspace(r - half, r + half, 400001)
    lw = 2 * P.polyval(xs, P.polyint(f_c)) / D
    w = np.exp(lw - lw.max())
    m2 = np.trapezoid(xs * w, xs) / np.trapezoid(w, xs)
    v2 = np.trapezoid((xs - m2) ** 2 * w, xs) / np.trapezoid(w, xs)
    m, v = stationary_moments(f_c, D)
    assert abs(m2 - m) < 1e-8 * abs(m2) + 1e-12 and abs(v2 - v) < 1e-8 * v2
    print(f"fixed point {r:+.0f}, D={D:g}: exact mean {m:+.6f}, var {v:.6g} | centred trapezoid: "
          f"relative differences < 1e-8, < 1e-8")

# %% tags=["solution"]
# 2. small-D limits by Richardson extrapolation
for f_c in [f_lab, [0.2, -1.2, 0.6, -0.8]]:
    x0_c = self_consistent_point(f_c, None, None, 0.0, 0.0)[0]
    f1_c, f2_c = P.polyval(x0_c, P.polyder(f_c)), P.polyval(x0_c, P.polyder(f_c, 2))
    h = 1e-3
    (m1, v1), (m2, v2) = stationary_moments(f_c, h), stationary_moments(f_c, 2 * h)
    slope_m = 2 * (m1 - x0_c) / h - (m2 - x0_c) / (2 * h)      # removes the O(D) term of (m - x0)/D
    slope_v = 2 * v1 / h - v2 / (2 * h)
    print(f"f = {f_c}: d<x>/dD at 0: {slope_m:.6f} vs (2) {mean_shift(f1_c, f2_c, 1.0):.6f}; "
          f"dvar/dD at 0: {slope_v:.6f} vs (1) {linearized_variance(f1_c, 1.0):.6f}")
    assert abs(slope_m - mean_shift(f1_c, f2_c, 1.0)) < 1e-3 * (1 + abs(slope_m))
    assert abs(slope_v - linearized_variance(f1_c, 1.0)) < 1e-3 * slope_v

# 3. the coupled equations by fixed-point iteration, and brentq on the effective drift
for f_c, D in [(f_lab, 0.3), (f_lab, 0.9), ([0.2, -1.2, 0.6, -0.8], 0.5)]:
    fp_c, fpp_c = P.polyder(f_c), P.polyder(f_c, 2)
    x0_c = self_consistent_point(f_c, None, None, 0.0, 0.0)[0]
    x, s = optimize.fsolve(lambda v: [P.polyval(v[0], f_c) + 0.5 * P.polyval(v[0], fpp_c) * v[1],
                                      v[1] + D / (2 * P.polyval(v[0], fp_c))],
                           [x0_c, linearized_variance(P.polyval(x0_c, fp_c), D)], xtol=1e-14)
    F = lambda z: P.polyval(z, f_c) - D * P.polyval(z, fpp_c) / (4 * P.polyval(z, fp_c))
    crit = np.sort(P.polyroots(fp_c).real) if np.all(np.abs(P.polyroots(fp_c).imag) < 1e-12) else None
    lo, hi = (x0_c - 3, x0_c + 3) if crit is None else (crit[0] + 1e-9, crit[1] - 1e-9)
    x_b = optimize.brentq(F, max(lo, x0_c - 3), min(hi, x0_c + 3), xtol=1e-14)
    x_s, v_s = self_consistent_point(f_c, None, None, D, x0_c)
    print(f"f = {f_c}, D = {D}: roots of G {x_s:.12f}, fsolve on the coupled pair (x, s) {x:.12f}, brentq {x_b:.12f}")
    assert abs(x - x_s) < 1e-10 and abs(x_b - x_s) < 1e-10 and abs(s - v_s) < 1e-10

# 4. orders in D, and the Gaussian (Hartree) closure
f_c = f_lab
fp_c, fpp_c, fppp_c = P.polyder(f_c), P.polyder(f_c, 2), P.polyder(f_c, 3)


def gaussian_closure(D):
    """<f(x)> = 0 and s = D / (-2 <f'(x)>) with x ~ N(m, s): exact Gaussian averages for a cubic f."""
    def eqs(v):
        m, s = v
        return [P.polyval(m, f_c) + 0.5 * P.polyval(m, fpp_c) * s,
                s + D / (2 * (P.polyval(m, fp_c) + 0.5 * P.polyval(m, fppp_c) * s))]
    return optimize.fsolve(eqs, [mean_shift(f1_lab, f2_lab, D), linearized_variance(f1_lab, D)], xtol=1e-13)


Ds = np.array([0.01, 0.02, 0.04, 0.08])
err_pert = np.array([abs(mean_shift(f1_lab, f2_lab, D) - stationary_moments(f_c, D)[0]) for D in Ds])
err_sc = np.array([abs(self_consistent_point(f_c, None, None, D, 0.0)[0] - stationary_moments(f_c, D)[0]) for D in Ds])
err_g = np.array([abs(gaussian_closure(D)[0] - stationary_moments(f_c, D)[0]) for D in Ds])
p_pert, p_sc, p_g = (np.polyfit(np.log(Ds), np.log(e), 1)[0] for e in (err_pert, err_sc, err_g))
print(f"error of the mean ~ D^p: perturbative p = {p_pert:.2f}, self-consistent p = {p_sc:.2f}, "
      f"Gaussian closure p = {p_g:.2f}")
for D in [0.3, 1.0]:
    m_e, v_e = stationary_moments(f_c, D)
    x_s, v_s = self_consistent_point(f_c, None, None, D, 0.0)
    m_g, v_g = gaussian_closure(D)
    print(f"D = {D}: exact ({m_e:.4f}, {v_e:.4f}); perturbative ({mean_shift(f1_lab, f2_lab, D):.4f}, "
          f"{linearized_variance(f1_lab, D):.4f}); self-consistent ({x_s:.4f}, {v_s:.4f}); Gaussian ({m_g:.4f}, {v_g:.4f})")
assert 1.7 < p_pert < 2.3 and 1.7 < p_sc < 2.3

# %% [markdown]
# ### When the self-consistent point disappears
#
# For a drift with a soft shoulder, $f(x)=-x+1.9x^2-x^3$ ($f'$ becomes positive on an
# interval to the right of $x_0=0$), the root of $G$ that continues $x_0$ exists only below a
# critical noise level: there it merges with another root and the pair leaves the real
# axis (a saddle-node, the analogue of a spinodal). Above it, `self_consistent_point` returns
# `nan`, although the exact stationary state of course still exists.

# %% tags=["figure"]
f_sh = [0.0, -1.0, 1.9, -1.0]
D_sh = np.linspace(0.0, 0.3, 121)
x_sh = np.array([self_consistent_point(f_sh, None, None, D, 0.0)[0] for D in D_sh])
m_sh = np.array([stationary_moments(f_sh, D)[0] if D > 0 else 0.0 for D in D_sh])
fig, ax = plt.subplots(figsize=(6.5, 4))
ax.plot(D_sh, m_sh, "k", label=r"exact $\langle x\rangle$")
ax.plot(D_sh, x_sh, "C1-.", label=r"self-consistent $x_*$")
ax.plot(D_sh, mean_shift(-1.0, 3.8, D_sh), "C0--", label="perturbative")
valid = np.isfinite(x_sh)
if valid.any() and not valid.all():
    ax.axvline(D_sh[valid][-1], color="grey", lw=0.8)
ax.set(xlabel="$D$", ylabel="mean", title=r"$f=-x+1.9x^2-x^3$: the self-consistent branch ends", ylim=(-0.02, 0.45))
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **(c), written.** Why is (3) a repair, what does it get right and what wrong (compare the
# figures above), and what would you do next?

# %% [markdown] tags=["answer"] points=3
# *Model answer.* The naive expansion assumes $\langle x\rangle=x_0$ and then predicts
# $\langle x\rangle\neq x_0$: it contradicts its own input. (3) chooses the expansion point
# so that the averaged (effective) drift vanishes there, with the fluctuations that feed the
# effective drift computed around that same point: the output (mean) is consistent with the
# input (expansion point), and mean and variance are determined together, like $m$ and the
# field in Curie–Weiss, or $C$ and $R$ in DMFT. To first order in $D$ it agrees with (2)
# (both errors are $O(D^2)$). At larger $D$ it keeps the mean inside the stable region and
# is better than (2) for this drift, but it is still not exact: the variance is the
# linearized one evaluated at $x_*$, and $\langle\delta x^3\rangle$, the correction to the
# variance from $f'''$, and all higher cumulants are ignored. The next step is to close on
# the variance too: a Gaussian (Hartree, 2PI-like) closure $\langle f(x)\rangle_{\mathcal N(m,s)}=0$,
# $s=D/(-2\langle f'(x)\rangle_{\mathcal N(m,s)})$, which for a cubic drift adds the term
# $\frac12f'''(m)s$ to $f'$ and is markedly more accurate (solution notebook). A
# self-consistent solution can also cease to exist (saddle-node of the effective drift,
# figure above): there the Gaussian picture of small fluctuations around one point fails
# altogether.
#
# *Rubric (3 pts):* states the inconsistency and how (3) removes it (1); agreement to
# $O(D)$ and remaining errors identified (variance/cumulants not self-consistent) (1); a
# sensible improvement (Gaussian/Hartree closure, higher-order or 2PI effective action) or
# the breakdown of the self-consistent branch discussed (1).

# %% tags=["tests"]
P = ref.P   # numpy.polynomial.polynomial


def _random_stable_cubic(rng):
    """f = c0 + c1 x + c2 x^2 + c3 x^3 with f' < 0 everywhere (a^2 < 3 k b) and random offset."""
    k, b = rng.uniform(0.6, 2.0), rng.uniform(0.3, 1.5)
    a = rng.uniform(-0.85, 0.85) * np.sqrt(3 * k * b)
    return [float(rng.uniform(-0.5, 0.5)), -k, a, -b]


def _cubic_around(rng, r):
    """f = -k u + a u^2 - b u^3 with u = x - r: fixed point r, f' < 0 everywhere (a^2 < 3 k b)."""
    k, b = rng.uniform(0.6, 2.0), rng.uniform(0.3, 1.5)
    a = rng.uniform(-0.85, 0.85) * np.sqrt(3 * k * b)
    u = [-r, 1.0]
    f = P.polyadd(P.polyadd(-k * np.asarray(u), a * P.polymul(u, u)), -b * P.polymul(P.polymul(u, u), u))
    return [float(c) for c in f]


@points(1)
def test_linearized_variance(student):
    "linearized_variance on arrays of slopes and noise strengths"
    rng = rng_for("linearized_variance")
    fprime, D = -rng.uniform(0.1, 4, 12), rng.uniform(0.01, 3, 12)
    assert_close(student.linearized_variance(fprime, D), ref.linearized_variance(fprime, D),
                 rtol=1e-9, atol=1e-12, name="<dx^2>")


@points(1)
def test_linearized_variance_edges(student):
    "linearized_variance without noise (D = 0), and a scalar slope broadcast against an array of D"
    rng = rng_for("linearized_variance_edges")
    fprime, D = -float(rng.uniform(0.1, 4)), np.concatenate([[0.0], rng.uniform(0.01, 3, 5)])
    out = np.asarray(student.linearized_variance(fprime, D), dtype=float)
    assert out.shape == D.shape, "the result should broadcast the inputs"
    assert_close(out, ref.linearized_variance(fprime, D), rtol=1e-9, atol=1e-15, name="<dx^2> (D = 0 first)")
    v = student.linearized_variance(fprime, 0.0)
    assert np.ndim(v) == 0, "floats in, a float out (not an array)"
    assert_close(v, 0.0, rtol=0, atol=1e-15, name="<dx^2> at D = 0")


@points(2)
def test_mean_shift(student):
    "mean_shift on arrays of slopes, curvatures of both signs and noise strengths"
    rng = rng_for("mean_shift")
    f1, f2, D = -rng.uniform(0.1, 4, 12), rng.uniform(-3, 3, 12), rng.uniform(0.01, 3, 12)
    assert_close(student.mean_shift(f1, f2, D), ref.mean_shift(f1, f2, D), rtol=1e-9, atol=1e-12,
                 name="<x> - x0")


@points(1)
def test_mean_shift_edges(student):
    "mean_shift without noise (D = 0) or curvature (f'' = 0), and scalars broadcast against arrays"
    rng = rng_for("mean_shift_edges")
    f1, f2 = -float(rng.uniform(0.1, 4)), rng.uniform(-3, 3, 6)
    D = np.concatenate([[0.0], rng.uniform(0.01, 3, 5)])
    out = np.asarray(student.mean_shift(f1, f2, D), dtype=float)
    assert out.shape == D.shape, "the result should broadcast the inputs"
    assert_close(out, ref.mean_shift(f1, f2, D), rtol=1e-9, atol=1e-15, name="<x> - x0 (D = 0 first)")
    m = student.mean_shift(f1, 0.0, float(D[1]))
    assert np.ndim(m) == 0, "floats in, a float out (not an array)"
    assert_close(m, 0.0, rtol=0, atol=1e-15, name="shift at f'' = 0")


@points(2)
def test_stationary_moments_random(student):
    "stationary_moments for random confining cubic drifts and noise strengths"
    rng = rng_for("stationary_moments_random")
    for _ in range(3):
        f = _random_stable_cubic(rng)
        D = float(rng.uniform(0.05, 1.5))
        assert_close(student.stationary_moments(f, D), ref.stationary_moments(f, D), rtol=5e-7, atol=1e-9,
                     name=f"(mean, variance) for f={np.round(f, 3).tolist()}, D={D:.3f}")


@points(1)
def test_stationary_moments_small_noise(student):
    "stationary_moments at small noise (a sharply peaked density)"
    rng = rng_for("stationary_moments_small_noise")
    f = _random_stable_cubic(rng)
    D = float(rng.uniform(1e-3, 5e-3))
    assert_close(student.stationary_moments(f, D), ref.stationary_moments(f, D), rtol=5e-7, atol=1e-10,
                 name="(mean, variance) at small D")


@points(1)
def test_stationary_moments_bistable_and_quintic(student):
    "stationary_moments for a bistable cubic and a quintic drift"
    rng = rng_for("stationary_moments_bistable")
    for f, D in [([float(rng.uniform(-0.2, 0.2)), 1.0, 0.0, -1.0], float(rng.uniform(0.2, 0.8))),
                 ([0.1, -0.5, 0.3, 0.2, 0.0, -0.4], float(rng.uniform(0.2, 1.0)))]:
        assert_close(student.stationary_moments(f, D), ref.stationary_moments(f, D), rtol=5e-7, atol=1e-9,
                     name=f"(mean, variance) for f={np.round(f, 3).tolist()}")


@points(1)
def test_stationary_moments_far_fixed_point(student):
    "stationary_moments when the fixed point is far from the origin (2U/D is huge there)"
    rng = rng_for("stationary_moments_far_fixed_point")
    for sign in [-1, 1]:
        f = _cubic_around(rng, sign * float(rng.uniform(15, 40)))
        D = float(rng.uniform(0.1, 1.5))
        assert_close(student.stationary_moments(f, D), ref.stationary_moments(f, D), rtol=5e-7, atol=1e-9,
                     name=f"(mean, variance) with the fixed point far to the {'left' if sign < 0 else 'right'}, D={D:.3f}")


@points(1)
def test_stationary_moments_noise_extremes(student):
    "stationary_moments at very large and very small noise, and for a linear (OU) drift"
    rng = rng_for("stationary_moments_noise_extremes")
    f = _random_stable_cubic(rng)
    for D in [float(rng.uniform(50, 200)), float(rng.uniform(1e-5, 1e-4))]:
        assert_close(student.stationary_moments(f, D), ref.stationary_moments(f, D), rtol=5e-7, atol=1e-12,
                     name=f"(mean, variance) at D={D:.3g}")
    f = [float(rng.uniform(-1, 1)), -float(rng.uniform(0.5, 2))]
    D = float(rng.uniform(0.1, 2))
    out = student.stationary_moments(f, D)
    assert len(out) == 2 and all(np.ndim(v) == 0 for v in out), "a tuple of two floats (mean, variance)"
    assert_close(out, ref.stationary_moments(f, D), rtol=5e-7, atol=1e-12,
                 name="(mean, variance) of the OU drift f = c0 + c1 x")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(3)
def test_self_consistent_point_random(student):
    "self_consistent_point for random cubic drifts (f' and f'' given), several noise levels"
    rng = rng_for("self_consistent_point_random")
    for _ in range(4):
        f = _random_stable_cubic(rng)
        fp, fpp = P.polyder(f), P.polyder(f, 2)
        x0 = ref.self_consistent_point(f, fp, fpp, 0.0, 0.0)[0]
        D = float(rng.uniform(0.05, 1.2))
        assert_close(student.self_consistent_point(f, fp, fpp, D, x0), ref.self_consistent_point(f, fp, fpp, D, x0),
                     rtol=1e-7, atol=1e-9, name=f"(x*, var*) for f={np.round(f, 3).tolist()}, D={D:.3f}")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_self_consistent_point_derivatives_omitted(student):
    "self_consistent_point differentiates f itself when fp and fpp are None"
    rng = rng_for("self_consistent_point_none")
    f = _random_stable_cubic(rng)
    x0 = ref.self_consistent_point(f, None, None, 0.0, 0.0)[0]
    assert_close(student.self_consistent_point(f, None, None, 0.4, x0), ref.self_consistent_point(f, None, None, 0.4, x0),
                 rtol=1e-7, atol=1e-9, name="(x*, var*)")


@points(1)
def test_self_consistent_point_branch(student):
    "self_consistent_point picks the branch of the requested fixed point in a bistable drift"
    rng = rng_for("self_consistent_point_branch")
    f = [float(rng.uniform(-0.15, 0.15)), 1.0, 0.0, -1.0]          # stable points near -1 and +1
    D = float(rng.uniform(0.05, 0.3))
    for x0 in [-1.0, 1.0]:
        assert_close(student.self_consistent_point(f, None, None, D, x0), ref.self_consistent_point(f, None, None, D, x0),
                     rtol=1e-7, atol=1e-9, name=f"(x*, var*) near x0 = {x0}")


@points(1)
def test_self_consistent_point_zero_noise(student):
    "self_consistent_point at D = 0 started near the fixed point, with only one of fp, fpp given"
    rng = rng_for("self_consistent_point_zero_noise")
    r = float(rng.uniform(-2, 2))
    f = _cubic_around(rng, r)
    x0 = r + float(rng.uniform(-0.05, 0.05))
    out = student.self_consistent_point(f, None, None, 0.0, x0)
    assert len(out) == 2 and all(np.ndim(v) == 0 for v in out), "a tuple of two floats (x*, var*)"
    assert_close(out, ref.self_consistent_point(f, None, None, 0.0, x0), rtol=1e-7, atol=1e-9, name="(x*, var*) at D = 0")
    D = float(rng.uniform(0.05, 1.0))
    for fp, fpp in [(P.polyder(f), None), (None, P.polyder(f, 2))]:
        assert_close(student.self_consistent_point(f, fp, fpp, D, x0), ref.self_consistent_point(f, fp, fpp, D, x0),
                     rtol=1e-7, atol=1e-9, name="(x*, var*) with one derivative given")


@points(1)
def test_self_consistent_point_far_fixed_point(student):
    "self_consistent_point for a drift whose fixed point is far from the origin"
    rng = rng_for("self_consistent_point_far_fixed_point")
    r = float(rng.choice([-1, 1]) * rng.uniform(15, 40))
    f = _cubic_around(rng, r)
    D = float(rng.uniform(0.05, 1.0))
    # the eigenvalue roots of G (the notes' route) lose up to ~3e-5 relative here unless polished:
    # the test asks for the right root of the right branch, not for the last digits
    assert_close(student.self_consistent_point(f, None, None, D, r), ref.self_consistent_point(f, None, None, D, r),
                 rtol=3e-4, atol=1e-9, name="(x*, var*) far from the origin")


@points(1)
def test_self_consistent_point_stable_interval(student):
    "self_consistent_point looks for x* only in the stable interval of x0 (lost branch next to a surviving one)"
    rng = rng_for("self_consistent_point_stable_interval")
    f = [float(rng.uniform(0.22, 0.3)), 1.0, 0.0, -1.0]    # tilted double well: a shallow left well
    D = float(rng.uniform(0.12, 0.3))
    out = student.self_consistent_point(f, None, None, D, -0.8)
    assert len(out) == 2 and np.all(np.isnan(np.asarray(out, dtype=float))), \
        "the branch of the left well is lost: a root in the other stable interval does not continue it"
    assert_close(student.self_consistent_point(f, None, None, D, 1.0), ref.self_consistent_point(f, None, None, D, 1.0),
                 rtol=1e-7, atol=1e-9, name="(x*, var*) of the right well")


@points(1)
def test_self_consistent_point_marginal_start(student):
    "self_consistent_point returns (nan, nan) when f'(x0) = 0 exactly (the edge of a stable interval)"
    rng = rng_for("self_consistent_point_marginal_start")
    c = float(rng.uniform(0.5, 1.5))
    out = student.self_consistent_point([c, 0.0, 0.0, -c / 3], None, None, float(rng.uniform(0.05, 0.2)), 0.0)
    assert len(out) == 2 and np.all(np.isnan(np.asarray(out, dtype=float))), \
        "expected (nan, nan) when f'(x0) >= 0, f'(x0) = 0 included"


@points(1)
def test_self_consistent_point_unstable_start(student):
    "self_consistent_point returns (nan, nan) when x0 is not in a stable region"
    rng = rng_for("self_consistent_point_unstable_start")
    f = [0.0, float(rng.uniform(0.3, 0.8)), 0.0, -1.0]             # f'(0) > 0: 0 is unstable
    out = student.self_consistent_point(f, None, None, 0.2, 0.0)
    assert len(out) == 2 and np.all(np.isnan(np.asarray(out, dtype=float))), \
        "expected (nan, nan) when f'(x0) >= 0"


@points(1)
def test_self_consistent_point_lost(student):
    "self_consistent_point returns (nan, nan) when no self-consistent point exists"
    out = student.self_consistent_point([0.0, -1.0, 1.9, -1.0], None, None, 0.5, 0.0)
    assert len(out) == 2 and np.all(np.isnan(np.asarray(out, dtype=float))), \
        "expected (nan, nan): no root of the effective drift with f' < 0"


# %% tags=["wrong"]
# wrong: variance D / (-f'(x0)) (missing the factor 2 of the OU variance)
# hint: The linearized dynamics is an OU process with k = −f'(x0), whose variance is D/(2k) =
#   D/(−2f'(x0)): the 2 comes from ⟨ξξ⟩ = D δ (Exercise 6.1, Exercise 6.3(a)).
def linearized_variance(fprime, D):
    return np.asarray(D, dtype=float) / (-np.asarray(fprime, dtype=float))


# %% tags=["rewrite"]
# rewrite: the same missing 2, written with the relaxation rate -f' and a negative power
def linearized_variance(fprime, D):
    rate = -np.asarray(fprime, dtype=float)
    return D * rate ** -1.0


# %% tags=["wrong"]
# wrong: mean shift with the opposite sign (f'' D / (4 f'^2) read as -(1/2)(f''/f') D/(2 f'))
# hint: Average the Taylor expansion of the drift around x0: 0 = f'(x0) δ + ½ f''(x0) σ², so δ =
#   −f''σ²/(2f'); with f' < 0 and σ² > 0, check the sign of your result (Exercise 6.3(b)).
def mean_shift(f1, f2, D):
    f1, f2 = np.asarray(f1, dtype=float), np.asarray(f2, dtype=float)
    return -f2 * np.asarray(D, dtype=float) / (4.0 * f1**2)


# %% tags=["wrong"]
# wrong: mean shift without the 1/2 of the Taylor expansion
# hint: The second-order term of the Taylor expansion is ½ f''(x0)(x − x0)²: keep the ½ when you average
#   it (Exercise 6.3(b)).
def mean_shift(f1, f2, D):
    f1, f2 = np.asarray(f1, dtype=float), np.asarray(f2, dtype=float)
    return f2 * np.asarray(D, dtype=float) / (2.0 * f1**2)


# %% tags=["wrong"]
# wrong: Boltzmann weight exp(U/D) instead of exp(2U/D) (temperature D instead of D/2)
# hint: The stationary density of dx = f dt + √D dW is proportional to e^{2U(x)/D} with U' = f: the
#   temperature is D/2, not D (Section 6.1).
def stationary_moments(f, D):
    U = P.polyint(np.asarray(f, dtype=float))
    xs = np.linspace(-10, 10, 400001)
    lw = P.polyval(xs, U) / D
    w = np.exp(lw - lw.max())
    m = np.trapezoid(xs * w, xs) / np.trapezoid(w, xs)
    return float(m), float(np.trapezoid((xs - m) ** 2 * w, xs) / np.trapezoid(w, xs))


# %% tags=["wrong"]
# wrong: quadrature on a fixed window [-8, 8] (misses a density far from the origin or spread by large noise)
# hint: The stationary density is concentrated around the maximum of U = ∫f, which need not be near the
#   origin, and spreads as D grows: choose the integration window from U and D, e.g. where 2(U − U_max)/D
#   is above −80 (Section 6.3.1, the exact answer for comparison).
def stationary_moments(f, D):
    U = P.polyint(np.asarray(f, dtype=float))
    xs = np.linspace(-8, 8, 400001)
    lw = 2 * P.polyval(xs, U) / D
    w = np.exp(lw - lw.max())
    m = np.trapezoid(xs * w, xs) / np.trapezoid(w, xs)
    return float(m), float(np.trapezoid((xs - m) ** 2 * w, xs) / np.trapezoid(w, xs))


# %% tags=["wrong"]
# wrong: exp(2U/D) without subtracting its maximum (overflows when U is large at its maximum)
# hint: Subtract the maximum of 2U/D before exponentiating: far from the origin or at small D the exponent
#   is huge and e^{2U/D} overflows (Section 6.3.1, the exact answer for comparison).
def stationary_moments(f, D):
    f = np.asarray(f, dtype=float)
    U = P.polyint(f)
    crit = P.polyroots(f)
    crit = crit[np.abs(crit.imag) < 1e-9].real
    half = 12 * np.sqrt(D) + 4 * D**0.25 + 1
    xs = np.linspace(crit.min() - half, crit.max() + half, 400001)
    with np.errstate(over="ignore", invalid="ignore"):
        w = np.exp(2 * P.polyval(xs, U) / D)
        m = np.trapezoid(xs * w, xs) / np.trapezoid(w, xs)
        return float(m), float(np.trapezoid((xs - m) ** 2 * w, xs) / np.trapezoid(w, xs))


# %% tags=["wrong"]
# wrong: not self-consistent: variance frozen at f'(x0) while solving for x* (one step of the repair)
# hint: Self-consistency means that the variance is evaluated at the point being solved for, σ² =
#   D/(−2f'(x*)), together with f(x*) + ½ f''(x*) σ² = 0, not frozen at x0 (Section 6.3.1, Exercise
#   6.3(c)).
def self_consistent_point(f, fp, fpp, D, x0):
    f = np.asarray(f, dtype=float)
    fp = P.polyder(f) if fp is None else np.asarray(fp, dtype=float)
    fpp = P.polyder(f, 2) if fpp is None else np.asarray(fpp, dtype=float)
    s0 = D / (-2 * P.polyval(x0, fp))
    G = P.polyadd(f, 0.5 * s0 * fpp)
    roots = P.polyroots(G)
    roots = roots[np.abs(roots.imag) < 1e-9].real
    roots = roots[P.polyval(roots, fp) < 0]
    if roots.size == 0:
        return float("nan"), float("nan")
    x = roots[np.argmin(np.abs(roots - x0))]
    return float(x), float(s0)


# %% tags=["wrong"]
# wrong: Newton from x0 on the effective drift without checking f' < 0 (returns a spurious root when the branch is lost)
# hint: A root of the effective drift is a self-consistent point only where f'(x*) < 0, so that the
#   variance is positive: when no such root is left the branch is lost, and the answer is (nan, nan)
#   (Exercise 6.3(c)).
def self_consistent_point(f, fp, fpp, D, x0):
    f = np.asarray(f, dtype=float)
    fp = P.polyder(f) if fp is None else np.asarray(fp, dtype=float)
    fpp = P.polyder(f, 2) if fpp is None else np.asarray(fpp, dtype=float)
    G = P.polysub(4.0 * P.polymul(f, fp), D * fpp)
    roots = P.polyroots(G)
    roots = roots[np.abs(roots.imag) < 1e-9].real
    x = roots[np.argmin(np.abs(roots - x0))]
    return float(x), float(D / (-2.0 * P.polyval(x, fp)))


# %% tags=["wrong"]
# wrong: any root of G with f' < 0, not only those in the stable interval of x0
# hint: x* must continue the branch of x0: look only in the stable interval of x0 (the largest interval
#   around x0 on which f' < 0); a root in another stable interval belongs to another fixed point, and
#   when none is left in x0's interval the branch is lost: (nan, nan) (Exercise 6.3(c)).
def self_consistent_point(f, fp, fpp, D, x0):
    f = np.asarray(f, dtype=float)
    fp = P.polyder(f) if fp is None else np.asarray(fp, dtype=float)
    fpp = P.polyder(f, 2) if fpp is None else np.asarray(fpp, dtype=float)
    if not P.polyval(x0, fp) < 0:
        return float("nan"), float("nan")
    G = np.trim_zeros(P.polysub(4.0 * P.polymul(f, fp), D * fpp), "b")
    roots = P.polyroots(G)
    roots = roots[np.abs(roots.imag) < 1e-7 * (1 + np.abs(roots))].real
    roots = roots[P.polyval(roots, fp) < 0]
    if roots.size == 0:
        return float("nan"), float("nan")
    x = roots[np.argmin(np.abs(roots - x0))]
    return float(x), float(D / (-2.0 * P.polyval(x, fp)))


# %% tags=["wrong"]
# wrong: stability of x0 tested with f'(x0) > 0 instead of >= 0 (a marginal start accepted)
# hint: x0 must be strictly stable, f'(x0) < 0: at f'(x0) = 0 there is no stable interval around x0
#   and the answer is (nan, nan) (Exercise 6.3(c)).
def self_consistent_point(f, fp, fpp, D, x0):
    f = np.asarray(f, dtype=float)
    fp = P.polyder(f) if fp is None else np.asarray(fp, dtype=float)
    fpp = P.polyder(f, 2) if fpp is None else np.asarray(fpp, dtype=float)
    if P.polyval(x0, fp) > 0:
        return float("nan"), float("nan")
    crit = P.polyroots(np.trim_zeros(fp, "b")) if np.count_nonzero(fp) > 1 else np.array([])
    crit = crit[np.abs(crit.imag) < 1e-9 * (1 + np.abs(crit))].real
    lo = crit[crit < x0].max(initial=-np.inf)
    hi = crit[crit > x0].min(initial=np.inf)
    G = np.trim_zeros(P.polysub(4.0 * P.polymul(f, fp), D * fpp), "b")
    roots = P.polyroots(G)
    roots = roots[np.abs(roots.imag) < 1e-7 * (1 + np.abs(roots))].real
    roots = roots[(roots > lo) & (roots < hi) & (P.polyval(roots, fp) < 0)]
    if roots.size == 0:
        return float("nan"), float("nan")
    x = roots[np.argmin(np.abs(roots - x0))]
    return float(x), float(D / (-2.0 * P.polyval(x, fp)))


# %% tags=["alternative"]
# alternative: Newton on the coupled equations (x, s) from x0 with a continuation in D; moments on a dense grid with log-sum-exp
def self_consistent_point(f, fp, fpp, D, x0):
    f = np.asarray(f, dtype=float)
    fp = P.polyder(f) if fp is None else np.asarray(fp, dtype=float)
    fpp = P.polyder(f, 2) if fpp is None else np.asarray(fpp, dtype=float)
    fppp = P.polyder(fpp)
    x = float(x0)
    for _ in range(60):                                  # polish the noiseless fixed point first
        x -= P.polyval(x, f) / P.polyval(x, fp)
    for Dk in np.linspace(0, D, 41)[1:]:                 # follow the branch as D grows
        for _ in range(60):
            F = P.polyval(x, f) - Dk * P.polyval(x, fpp) / (4 * P.polyval(x, fp))
            dF = P.polyval(x, fp) - Dk * (P.polyval(x, fppp) * P.polyval(x, fp)
                                          - P.polyval(x, fpp) ** 2) / (4 * P.polyval(x, fp) ** 2)
            step = F / dF
            if not np.isfinite(step) or np.any(P.polyval(np.linspace(x, x - step, 64), fp) >= 0):
                return float("nan"), float("nan")            # the branch would leave its stable interval
            x -= step
            if abs(step) < 1e-11 * (1 + abs(x)):         # round-off of F grows with |x|^3
                break
        else:
            return float("nan"), float("nan")
    return float(x), float(D / (-2 * P.polyval(x, fp)))


def stationary_moments(f, D):
    f = np.asarray(f, dtype=float)
    U = P.polyint(f)
    crit = P.polyroots(f)
    crit = crit[np.abs(crit.imag) < 1e-6].real
    top = np.max(P.polyval(crit, U))
    half = np.sqrt(D)                                    # grow the window until the weight is negligible
    while max(P.polyval(crit.min() - half, U), P.polyval(crit.max() + half, U)) > top - 45 * D:
        half *= 1.5
    xs = np.linspace(crit.min() - half, crit.max() + half, 800001)
    lw = 2 * P.polyval(xs, U) / D
    lw -= lw.max()
    w = np.exp(lw)
    Z = integrate.simpson(w, x=xs)
    m = integrate.simpson(xs * w, x=xs) / Z
    return float(m), float(integrate.simpson((xs - m) ** 2 * w, x=xs) / Z)


def linearized_variance(fprime, D):
    return -0.5 * np.divide(D, fprime)


def mean_shift(f1, f2, D):
    return 0.5 * (np.asarray(f2) / np.asarray(f1)) * (np.asarray(D) / (2 * np.asarray(f1)))
