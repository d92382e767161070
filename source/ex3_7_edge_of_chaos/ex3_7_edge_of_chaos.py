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
# # ex3_7_edge_of_chaos: Order, chaos and the edge of chaos in deep networks
#
# *Notes: Section 3.7; the kernel recursion of Sections 3.2 and 3.4 (eqs. (3.26)–(3.30)).*
#
# At infinite width the preactivations of a deep network are Gaussian, and their
# variance and correlations evolve from layer to layer by a deterministic map. Reading the
# depth as time turns initialization into a question about a dynamical system: do two
# inputs stay distinguishable (and gradients stay of order one) over many layers, or do
# they collapse onto each other (order) or decorrelate (chaos)? You will
#
# 1. implement the **variance (length) map** and its **fixed point** $q^*$;
# 2. compute $\chi_1$, the slope of the **correlation map** at $c=1$, and the
#    **correlation depth** $\xi=1/|\log\chi_1|$;
# 3. locate the **critical line** $\chi_1=1$ and reproduce the order/chaos phase diagram of
#    a tanh network (Figure 5 of the notes).
#
# | part | function (graded) | notes |
# |---|---|---|
# | 1 | `variance_map(q, sigma_w, sigma_b, phi)` | (3.2), (3.30) on the diagonal |
# | 1 | `fixed_point_q(sigma_w, sigma_b, phi)` | Section 3.7 |
# | 2 | `chi1(sigma_w, sigma_b, phi)` | Section 3.7 |
# | 2 | `correlation_depth(sigma_w, sigma_b, phi)` | $L_c=-1/\log\chi_1$, Section 3.7 |
# | 3 | `critical_sigma_w(sigma_b, phi)` | the edge of chaos |
#
# **Conventions.** As in Section 3.1: $\mathcal N(0,s)$ has *variance* $s$; weights are
# $\mathcal N(0,\sigma_w)$ and biases $\mathcal N(0,\sigma_b)$, so $\sigma_w,\sigma_b$ are
# *variances* (many papers write $\sigma_w^2,\sigma_b^2$ for the same numbers); the
# fan-in factor $1/\sqrt{N_{\ell-1}}$ is explicit in the network. The activation `phi` is
# passed **by name**, as one of the strings `'tanh'`, `'relu'`, `'erf'` (a string crosses
# into the grader; a Python function would not).
# $\mathcal Dz$ denotes the standard Gaussian measure, $\int\mathcal Dz\,g(z)=\mathbb E_{z\sim\mathcal N(0,1)}[g(z)]$.

# %% tags=["setup"]
import numpy as np
from scipy import integrate, optimize, special
import matplotlib.pyplot as plt

# %% tags=["params"]
def draw_params(rng):
    """The bias variances at which this year's critical line and chi_1 curves are probed."""
    values = sorted(round(float(v), 3) for v in rng.uniform(0.02, 0.6, size=3))
    return {"sigma_b_values": values}


# %% [markdown]
# ## 1. The variance map and its fixed point
#
# At infinite width, every preactivation $z^{(\ell)}_i(x)$ is $\mathcal N(0,q^{(\ell)})$ with
# $q^{(\ell)}=\bar K^{(\ell)}(x,x)$, and the diagonal of the kernel recursion (3.30) (equivalently
# the variance computation of Section 3.2) is the **variance map**
# $$
# q^{(\ell+1)}=V\big(q^{(\ell)}\big),\qquad V(q)=\sigma_w\int\mathcal Dz\;\phi\big(\sqrt q\,z\big)^2+\sigma_b . \tag{3.7.1}
# $$
# Closed forms: for ReLU, $V(q)=\sigma_w q/2+\sigma_b$; for erf,
# $V(q)=\sigma_w\frac2\pi\arcsin\frac{2q}{1+2q}+\sigma_b$ (the diagonal of (3.32)); for tanh
# there is none, and the Gaussian integral must be done numerically.
#
# For tanh and erf, $V$ is increasing, concave (for erf from the closed form, for tanh
# numerically) and bounded by $\sigma_w+\sigma_b$, so the
# iteration converges from any $q^{(0)}>0$ to a unique attracting fixed point $q^*=V(q^*)$:
# $q^*>0$ if $\sigma_b>0$; if $\sigma_b=0$, $q^*=0$ when $\sigma_w\phi'(0)^2\le1$ and $q^*>0$
# otherwise ($\phi'(0)^2=1$ for tanh, $4/\pi$ for erf). For ReLU the map is linear:
# $q^*=\sigma_b/(1-\sigma_w/2)$ for $\sigma_w<2$; for $\sigma_w>2$, or $\sigma_w=2$ with
# $\sigma_b>0$, the iteration diverges ($q^*=\infty$); at $\sigma_w=2,\sigma_b=0$ every $q$
# is a fixed point and the iteration stays at $q^{(0)}$.
#
# **Quadrature accuracy.** Gauss–Hermite quadrature (`numpy.polynomial.hermite_e.hermegauss`,
# weight $e^{-z^2/2}$) with $n$ nodes is exact for polynomials of degree $<2n$, but
# $\tanh(\sqrt q\,z)$ has poles at $z=\pm i\pi/(2\sqrt q)$, which approach the real axis as $q$
# grows, and a fixed $n$ loses accuracy quickly (see the figure below). Your Gaussian
# expectations must be accurate to a relative $10^{-7}$ for $0\le q\le10$: check convergence
# (double $n$), or use adaptive quadrature (`scipy.integrate.quad`) or the trapezoidal rule
# on a fine uniform grid in $z$ (spectrally accurate for such analytic, rapidly decaying
# integrands). For ReLU use the closed forms: its kink defeats polynomial quadrature.

# %% tags=["figure"]
from numpy.polynomial.hermite_e import hermegauss


def _quad_sech4(q):
    g = lambda z: (1.0 / np.cosh(np.sqrt(q) * z)) ** 4 * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)
    return 2 * integrate.quad(g, 0, 40, epsabs=1e-15, epsrel=1e-13, limit=400, points=[1 / np.sqrt(q)])[0]


fig, ax = plt.subplots(figsize=(6.5, 4))
ns = [10, 20, 40, 80, 160]
for q in [0.5, 2.0, 5.0, 10.0]:
    exact = _quad_sech4(q)
    errs = []
    for n in ns:
        zn, wn = hermegauss(n)
        errs.append(abs(wn @ (1.0 / np.cosh(np.sqrt(q) * zn)) ** 4 / np.sqrt(2 * np.pi) - exact) / exact)
    ax.semilogy(ns, np.maximum(errs, 1e-17), "o-", label=f"$q={q}$")
ax.axhline(1e-7, color="k", ls=":", lw=1)
ax.set(xlabel="Gauss-Hermite nodes $n$", ylabel=r"relative error of $\int\mathcal{D}z\,\mathrm{sech}^4(\sqrt{q}z)$",
       title="Gauss-Hermite on tanh-type integrands: slow at large $q$")
ax.legend(fontsize=8)
plt.show()

# %% tags=["reference"]
# Reference-only helpers: Gaussian expectations by the trapezoidal rule on a uniform grid in z
# (error ~ exp(-pi^2 / (sqrt(q) h)) for tanh, below 1e-40 for q <= 100), and the activations.
_Z_GRID = np.linspace(-12.0, 12.0, 2401)
_W_GRID = (_Z_GRID[1] - _Z_GRID[0]) * np.exp(-_Z_GRID**2 / 2) / np.sqrt(2 * np.pi)


def _gauss_expect(fun, q):
    """E_z[fun(sqrt(q) z)], z ~ N(0, 1), elementwise in q (array or scalar)."""
    q = np.asarray(q, dtype=float)
    return fun(np.sqrt(q)[..., None] * _Z_GRID) @ _W_GRID


def _sech2(u):
    e = np.exp(-2.0 * np.abs(u))
    return 4.0 * e / (1.0 + e) ** 2


_ACTIVATIONS = ("tanh", "relu", "erf")
_SLOPE_AT_ZERO_SQ = {"tanh": 1.0, "erf": 4.0 / np.pi, "relu": 0.5}


def _check_phi(phi):
    if phi not in _ACTIVATIONS:
        raise ValueError(f"phi must be one of {_ACTIVATIONS}, not {phi!r}")


# %% [markdown]
# **Tasks.** Implement `variance_map` (vectorized in `q`) and `fixed_point_q` (by root
# finding, e.g. `scipy.optimize.brentq` on $V(q)-q$, bracketed in $[0,\sigma_w+\sigma_b]$ for
# tanh and erf; take care of $\sigma_b=0$, where $q=0$ is always a root).

# %% tags=["graded"]
def variance_map(q, sigma_w, sigma_b, phi):
    """The variance (length) map V(q) = sigma_w * E_z[phi(sqrt(q) z)^2] + sigma_b, z ~ N(0, 1) (notes, Section 3.7).

    Args:
        q: float or np.ndarray of floats >= 0, the preactivation variance of a layer.
        sigma_w: float > 0, weight variance; sigma_b: float >= 0, bias variance.
        phi: str, the activation: 'tanh', 'relu' or 'erf'.
    Returns:
        float or np.ndarray of the shape of q: the variance of the next layer's preactivations.
        Gaussian expectations are accurate to a relative 1e-7 for 0 <= q <= 10
        (closed forms for 'relu': sigma_w q / 2 + sigma_b, and 'erf':
        sigma_w (2/pi) arcsin(2q / (1 + 2q)) + sigma_b).
    """
    _check_phi(phi)
    q = np.asarray(q, dtype=float)
    if phi == "relu":
        out = sigma_w * q / 2.0 + sigma_b
    elif phi == "erf":
        out = sigma_w * 2.0 / np.pi * np.arcsin(2.0 * q / (1.0 + 2.0 * q)) + sigma_b
    else:
        out = sigma_w * _gauss_expect(lambda u: np.tanh(u) ** 2, q) + sigma_b
    return float(out) if out.ndim == 0 else out


# %% tags=["graded"]
def fixed_point_q(sigma_w, sigma_b, phi, q0=1.0):
    """The fixed point q* = V(q*) reached by iterating the variance map from q0 > 0 (notes, Section 3.7).

    Args:
        sigma_w: float > 0; sigma_b: float >= 0; phi: 'tanh', 'relu' or 'erf'.
        q0: float > 0, the starting variance (it matters only for ReLU at sigma_w = 2,
            sigma_b = 0, where every q is a fixed point).
    Returns:
        float: q* = lim_{l -> inf} V^l(q0).
        tanh, erf: the unique attracting fixed point (q* = 0 if sigma_b = 0 and
        sigma_w phi'(0)^2 <= 1, with phi'(0)^2 = 1 for tanh, 4/pi for erf), to a relative 1e-7
        (the accuracy of the Gaussian expectations; the root itself found to 1e-9 or better).
        relu: sigma_b / (1 - sigma_w / 2) if sigma_w < 2; q0 if sigma_w == 2 and sigma_b == 0;
        float('inf') otherwise (the variance grows without bound).
    """
    _check_phi(phi)
    if phi == "relu":
        if sigma_w < 2.0:
            return float(sigma_b / (1.0 - sigma_w / 2.0))
        if sigma_w == 2.0 and sigma_b == 0.0:
            return float(q0)
        return float("inf")
    gap = lambda q: variance_map(q, sigma_w, sigma_b, phi) - q
    hi = sigma_w + sigma_b          # V(q) < sigma_w + sigma_b because phi^2 < 1
    if sigma_b > 0:
        lo = 0.0
    else:
        slope = sigma_w * _SLOPE_AT_ZERO_SQ[phi]   # V(q) ~ slope * q near 0
        if slope <= 1.0:
            return 0.0
        lo = hi
        while gap(lo) <= 0:        # walk down to a q with V(q) > q
            lo /= 2.0
            if lo < 1e-300:
                return 0.0
    return float(optimize.brentq(gap, lo, hi, xtol=1e-15, rtol=1e-13, maxiter=500))


# %% tags=["check"]
@check
def check_variance_map():
    "closed forms for ReLU and erf, vectorization, monotonicity and the bound for tanh"
    q = np.array([0.0, 0.3, 1.0, 4.0])
    assert np.allclose(variance_map(q, 1.5, 0.2, "relu"), 0.75 * q + 0.2)
    assert np.allclose(variance_map(q, 2.0, 0.1, "erf"), 2 * 2 / np.pi * np.arcsin(2 * q / (1 + 2 * q)) + 0.1)
    v = np.asarray(variance_map(np.linspace(0, 10, 21), 2.0, 0.1, "tanh"))
    assert v.shape == (21,) and np.all(np.diff(v) > 0) and v.max() < 2.1, "V is increasing and bounded by sigma_w + sigma_b"
    assert np.isclose(variance_map(0.0, 2.0, 0.1, "tanh"), 0.1), "V(0) = sigma_b"
    small = 1e-6
    assert np.isclose(variance_map(small, 1.3, 0.0, "tanh") / small, 1.3, rtol=1e-4), "V(q) ~ sigma_w q near 0 for tanh"
    from scipy import integrate
    gauss = lambda f: integrate.quad(lambda z: f(z) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi), -np.inf, np.inf,
                                     epsabs=1e-13, epsrel=1e-12, limit=200)[0]
    assert np.isclose(variance_map(10.0, 1.0, 0.0, "tanh"), gauss(lambda z: np.tanh(np.sqrt(10.0) * z) ** 2),
                      rtol=1e-7), "the Gaussian expectation should be accurate to 1e-7 up to q = 10"
    assert np.shape(variance_map(np.full((2, 3), 0.5), 1.0, 0.1, "tanh")) == (2, 3), "V has the shape of q"


@check
def check_fixed_point_q():
    "q* is a fixed point; ReLU cases; tanh with sigma_b = 0 below and above sigma_w = 1"
    for act in ("tanh", "erf"):
        qs = fixed_point_q(1.7, 0.3, act)
        assert np.isclose(variance_map(qs, 1.7, 0.3, act), qs, rtol=1e-9), f"V(q*) != q* for {act}"
    assert np.isclose(fixed_point_q(1.0, 0.5, "relu"), 1.0)
    assert fixed_point_q(2.5, 0.0, "relu") == np.inf and fixed_point_q(2.0, 0.1, "relu") == np.inf
    assert fixed_point_q(2.0, 0.0, "relu", q0=0.7) == 0.7
    assert abs(fixed_point_q(0.8, 0.0, "tanh")) < 1e-9, "ordered tanh without bias: q* = 0"
    assert fixed_point_q(1.5, 0.0, "tanh") > 0.1, "sigma_w > 1 without bias: q* > 0"
    qs = fixed_point_q(15.0, 2.0, "erf", q0=3.0)
    assert qs > 10 and np.isclose(variance_map(qs, 15.0, 2.0, "erf"), qs, rtol=1e-9), \
        "q* can lie anywhere below sigma_w + sigma_b (here above 10)"


# %% [markdown]
# ## 2. The correlation map, $\chi_1$ and the correlation depth
#
# Now take two inputs, both with variance at the fixed point $q^*$, and let $c^{(\ell)}$ be the
# correlation of their preactivations, $\bar K^{(\ell)}(x,x')=q^*c^{(\ell)}$. The off-diagonal of
# (3.30) gives the **correlation map**
# $$
# c^{(\ell+1)}=C\big(c^{(\ell)}\big),\qquad
# C(c)=\frac{1}{q^*}\Big[\sigma_w\int\mathcal Dz_1\mathcal Dz_2\;\phi(u_1)\phi(u_2)+\sigma_b\Big],\quad
# u_1=\sqrt{q^*}z_1,\ u_2=\sqrt{q^*}\big(cz_1+\sqrt{1-c^2}\,z_2\big). \tag{3.7.2}
# $$
# $C(1)=V(q^*)/q^*=1$: identical inputs stay identical. Whether *nearby* inputs approach or
# separate is decided by the slope at $c=1$; by Price's theorem
# ($\partial_{K_{12}}\mathbb E[\phi(u_1)\phi(u_2)]=\mathbb E[\phi'(u_1)\phi'(u_2)]$, see ex3_2),
# $$
# \chi_1 := \frac{\partial C}{\partial c}\Big|_{c=1} = \sigma_w\int\mathcal Dz\;\phi'\big(\sqrt{q^*}\,z\big)^2 . \tag{3.7.3}
# $$
# * $\chi_1<1$: **ordered phase.** $c=1$ is attracting, $1-c^{(\ell)}\propto\chi_1^{\ell}=e^{-\ell/\xi}$: all
#   inputs collapse onto each other with depth, and back-propagated gradients, whose squared
#   norm is multiplied by $\chi_1$ per layer, vanish.
# * $\chi_1>1$: **chaotic phase.** $c=1$ is repelling, infinitesimally close inputs separate
#   like $\chi_1^{\ell}=e^{\ell/\xi}$ until they decorrelate to a fixed point $c^*<1$; gradients
#   explode.
# * $\chi_1=1$: the **edge of chaos**, where signals and gradients propagate over a depth
#   that is no longer exponentially limited.
#
# The **correlation depth** $\xi=1/|\log\chi_1|$ is the number of layers over which
# correlations (and gradients) change by a factor $e$ in either phase; the notes' critical
# depth $L_c=-1/\log\chi_1$ is this $\xi$ in the ordered phase. (In the chaotic phase
# Schoenholz et al. also use the slope of $C$ at $c^*<1$ for the decay of the correlations
# towards $c^*$; we use $\chi_1$, which sets the growth of small separations and of
# gradients, on both sides.) For ReLU, $\phi'=\Theta$, so $\sigma_w\int\mathcal Dz\,\phi'(\sqrt q z)^2=\sigma_w/2$
# for every $q$: perturbations and gradients are multiplied by $\chi_1=\sigma_w/2$ per layer at
# any variance, and $\chi_1=1$ exactly at He initialization $\sigma_w=2$, where only
# $\sigma_b=0$ keeps $q$ finite. (As the slope of $C$ at $c=1$, $\sigma_w/2$ applies where a finite
# $q^*>0$ exists, i.e. $\sigma_w<2$, $\sigma_b>0$; without bias the ReLU correlation map does
# not depend on $\sigma_w$ at all, see Written (b).)
#
# **Tasks.** Implement `chi1` and `correlation_depth`. For erf,
# $\int\mathcal Dz\,\mathrm{erf}'(\sqrt q z)^2=\frac{4}{\pi}\frac{1}{\sqrt{1+4q}}$ (a Gaussian integral: check it).

# %% tags=["graded"]
def chi1(sigma_w, sigma_b, phi):
    """chi_1 = sigma_w * E_z[phi'(sqrt(q*) z)^2], the slope of the correlation map at c = 1 (notes, Section 3.7).

    Args:
        sigma_w: float > 0; sigma_b: float >= 0; phi: 'tanh', 'relu' or 'erf'.
    Returns:
        float chi_1 >= 0, evaluated at the fixed point q* = fixed_point_q(sigma_w, sigma_b, phi)
        (relative accuracy 1e-7). For 'relu' chi_1 = sigma_w / 2 exactly, for every q*
        (including q* = inf). For 'erf', E[phi'^2] = (4/pi) / sqrt(1 + 4 q*).
    """
    _check_phi(phi)
    if phi == "relu":
        return float(sigma_w / 2.0)
    q = fixed_point_q(sigma_w, sigma_b, phi)
    if phi == "erf":
        return float(sigma_w * 4.0 / np.pi / np.sqrt(1.0 + 4.0 * q))
    return float(sigma_w * _gauss_expect(lambda u: _sech2(u) ** 2, q))


# %% tags=["graded"]
def correlation_depth(sigma_w, sigma_b, phi):
    """Correlation depth xi = 1 / |log chi_1| (notes, Section 3.7: L_c = -1/log chi_1).

    Args:
        sigma_w: float > 0; sigma_b: float >= 0; phi: 'tanh', 'relu' or 'erf'.
    Returns:
        float xi > 0: -1/log(chi_1) in the ordered phase (chi_1 < 1), 1/log(chi_1) in the
        chaotic phase (chi_1 > 1), and float('inf') at chi_1 == 1 (the edge of chaos).
    """
    c = chi1(sigma_w, sigma_b, phi)
    if c == 1.0:
        return float("inf")
    return float(1.0 / abs(np.log(c)))


# %% tags=["check"]
@check
def check_chi1():
    "ReLU: chi_1 = sigma_w / 2, exactly 1 at He initialization; tanh/erf without bias in the ordered phase"
    assert chi1(2.0, 0.0, "relu") == 1.0, "ReLU at sigma_w = 2 is exactly critical"
    assert np.isclose(chi1(1.2, 0.3, "relu"), 0.6)
    assert np.isclose(chi1(0.9, 0.0, "tanh"), 0.9), "q* = 0: chi_1 = sigma_w phi'(0)^2"
    assert np.isclose(chi1(0.7, 0.0, "erf"), 0.7 * 4 / np.pi)
    assert chi1(1.2, 0.5, "tanh") < 1 < chi1(3.5, 0.05, "tanh"), "expected order at (1.2, 0.5) and chaos at (3.5, 0.05)"


@check
def check_correlation_depth():
    "xi = 1/|log chi_1|, infinite at the edge of chaos"
    assert correlation_depth(2.0, 0.0, "relu") == np.inf
    assert np.isclose(correlation_depth(1.0, 0.0, "relu"), 1 / np.log(2))
    assert np.isclose(correlation_depth(3.0, 0.0, "relu"), 1 / np.log(1.5)), "positive in the chaotic phase too"
    for sw, sb, act in [(1.2, 0.5, "tanh"), (3.5, 0.05, "tanh"), (3.0, 0.2, "erf")]:
        assert np.isclose(correlation_depth(sw, sb, act), 1 / abs(np.log(chi1(sw, sb, act)))), \
            f"xi = 1/|log chi_1| with the bias at the fixed point ({act}, sigma_w={sw}, sigma_b={sb})"


# %% [markdown]
# The figure shows the two maps for tanh in each phase: the variance map converging to its
# fixed point, and the correlation map $C(c)$ (computed with `correlation_map` below, which
# uses your `fixed_point_q`) with its slope $\chi_1$ at $c=1$.

# %% tags=["provided"]
def correlation_map(c, sigma_w, sigma_b, phi, n=120):
    """C(c) of (3.7.2) at the fixed point q*, by 2-d Gauss-Hermite quadrature (smooth phi only)."""
    acts = {"tanh": np.tanh, "erf": special.erf}
    q_star = fixed_point_q(sigma_w, sigma_b, phi)
    zn, wn = np.polynomial.hermite_e.hermegauss(n)
    wn = wn / np.sqrt(2 * np.pi)
    z1, z2 = zn[:, None], zn[None, :]
    out = []
    for cc in np.atleast_1d(c):
        u1 = np.sqrt(q_star) * z1
        u2 = np.sqrt(q_star) * (cc * z1 + np.sqrt(max(1 - cc**2, 0.0)) * z2)
        out.append((sigma_w * np.sum(wn[:, None] * wn[None, :] * acts[phi](u1) * acts[phi](u2)) + sigma_b) / q_star)
    return np.array(out)


# %% tags=["figure"]
try:
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    qs = np.linspace(0, 3, 200)
    cs = np.linspace(-1, 1, 81)
    for (sw, sb), color in zip([(1.2, 0.3), (3.5, 0.05)], ["C0", "C3"]):
        phase = "ordered" if chi1(sw, sb, "tanh") < 1 else "chaotic"
        label = rf"$\sigma_w={sw}$, $\sigma_b={sb}$ ({phase}, $\chi_1={chi1(sw, sb, 'tanh'):.2f}$)"
        axes[0].plot(qs, variance_map(qs, sw, sb, "tanh"), color=color, label=label)
        qstar = fixed_point_q(sw, sb, "tanh")
        axes[0].plot(qstar, qstar, "o", color=color)
        axes[1].plot(cs, correlation_map(cs, sw, sb, "tanh"), color=color, label=label)
        axes[1].plot(cs[-12:], 1 + chi1(sw, sb, "tanh") * (cs[-12:] - 1), "k--", lw=0.8)
    axes[0].plot(qs, qs, "k:", lw=1)
    axes[1].plot(cs, cs, "k:", lw=1)
    axes[0].set(xlabel="$q^{(\\ell)}$", ylabel="$q^{(\\ell+1)}=V(q^{(\\ell)})$", title="variance map (tanh), dots: $q^*$")
    axes[1].set(xlabel="$c^{(\\ell)}$", ylabel="$c^{(\\ell+1)}=C(c^{(\\ell)})$",
                title="correlation map at $q^*$; dashed: slope $\\chi_1$ at $c=1$")
    for ax in axes:
        ax.legend(fontsize=8)
    plt.tight_layout()
    plt.show()
except NotImplementedError:
    print("implement variance_map, fixed_point_q and chi1 first")

# %% [markdown]
# **Written (a).** Derive (3.7.3) from (3.7.2). Then show that the same $\chi_1$ controls
# gradients: for a wide network at the fixed point, the squared norm of
# $\delta z^{(\ell+1)}=\frac{1}{\sqrt N}W^{(\ell+1)}\big(\phi'(z^{(\ell)})\odot\delta z^{(\ell)}\big)$ (a
# perturbation pushed forward, or, transposed, a gradient pulled back) is multiplied by
# $\chi_1$ per layer on average.

# %% [markdown] tags=["answer"] points=2
# *Model answer.* $C(c)=\frac1{q^*}[\sigma_w\mathbb E\phi(u_1)\phi(u_2)+\sigma_b]$ with
# $\mathrm{Cov}(u_1,u_2)=K_{12}=q^*c$. By Price's theorem
# $\partial_{K_{12}}\mathbb E[\phi(u_1)\phi(u_2)] = \mathbb E[\phi'(u_1)\phi'(u_2)]$, so
# $C'(c) = \frac{1}{q^*}\sigma_w\,\mathbb E[\phi'(u_1)\phi'(u_2)]\cdot q^* = \sigma_w\mathbb E[\phi'(u_1)\phi'(u_2)]$,
# and at $c=1$, $u_1=u_2=\sqrt{q^*}z$: $\chi_1=\sigma_w\int\mathcal Dz\,\phi'(\sqrt{q^*}z)^2$.
# (Alternatively: expand $C(1-\epsilon)$ to first order in $\epsilon$.)
#
# Gradients: conditional on layer $\ell$, the entries of $W^{(\ell+1)}$ are independent
# $\mathcal N(0,\sigma_w)$ and independent of $z^{(\ell)}$ and $\delta z^{(\ell)}$, so
# $\mathbb E\big[|\delta z^{(\ell+1)}|^2\big|\,\ell\big] = \frac{N\sigma_w}{N}\sum_j\phi'(z_j^{(\ell)})^2(\delta z_j^{(\ell)})^2$.
# At large width the $z_j$ are i.i.d. $\mathcal N(0,q^*)$ and (mean-field assumption, justified
# since $\delta z_j$ is built from independent weights) decorrelate from $\delta z_j^2$, so the sum is
# $\approx\mathbb E[\phi'(\sqrt{q^*}z)^2]\,|\delta z^{(\ell)}|^2$: the ratio is $\chi_1$ per layer. Back-propagation
# multiplies by $D^{(\ell)}(W^{(\ell+1)})^T/\sqrt N$, the transpose, with the same statistics (in the
# gradient-independence approximation), so $|\partial\mathcal L/\partial z^{(\ell)}|^2\propto\chi_1^{L-\ell}$:
# vanishing gradients in the ordered phase, exploding ones in the chaotic phase. The
# solution notebook measures this growth rate on wide random tanh networks.
#
# *Rubric:* Price's theorem (or the expansion) with the factor $q^*$ cancelling (1); the
# per-layer factor for perturbations/gradients with the independence argument (1).

# %% tags=["solution"]
# Independent checks. (i) `variance_map` against `scipy.integrate.quad`
# and Gauss–Hermite (moderate $q$) and Monte Carlo; the erf closed forms against quadrature.
# (ii) `fixed_point_q` against plain iteration of the map. (iii) `chi1` against the
# finite-difference slope of the correlation map (3.7.2) at $c=1$, by 2-d quadrature.
# (iv) `chi1` against the measured per-layer growth of $|\delta z|^2$ in wide random tanh
# networks ($N=1000$). (v) `correlation_depth` against the decay (ordered) or growth
# (chaotic) of $1-c^{(\ell)}$ along the iterated correlation map. (vi) ReLU at He
# initialization: a wide random network keeps both $|z|^2$ and $|\delta z|^2$ on average.
rng = np.random.default_rng(12)


def quad_expect(fun, q):
    if q == 0:
        return float(fun(np.array(0.0)))
    g = lambda z: fun(np.sqrt(q) * z) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)
    pts = [-1 / np.sqrt(q), 0.0, 1 / np.sqrt(q)]
    return integrate.quad(g, -40, 40, epsabs=1e-16, epsrel=1e-13, limit=400, points=pts)[0]


# (i) variance map vs quad, GH and Monte Carlo
worst = 0.0
for q in [0.0, 0.01, 0.4, 1.3, 3.0, 6.0, 10.0]:
    for phi, f in [("tanh", lambda u: np.tanh(u) ** 2), ("erf", lambda u: special.erf(u) ** 2),
                   ("relu", lambda u: np.maximum(u, 0) ** 2)]:
        ours = variance_map(q, 1.7, 0.2, phi)
        worst = max(worst, abs(ours - (1.7 * quad_expect(f, q) + 0.2)) / ours)
assert worst < 1e-9
print("(i)   variance_map vs scipy quad for q in [0, 10], all three activations: max rel. difference < 1e-9")   # a bound
zg, wg = hermegauss(160)
for q in [0.3, 1.5]:
    gh = 1.7 * wg @ np.tanh(np.sqrt(q) * zg) ** 2 / np.sqrt(2 * np.pi) + 0.2
    print(f"      q = {q}: Gauss-Hermite (160 nodes) {gh:.12f}, variance_map {variance_map(q, 1.7, 0.2, 'tanh'):.12f}")
    assert abs(gh - variance_map(q, 1.7, 0.2, "tanh")) < 1e-10
zmc = rng.standard_normal(2_000_000)
for q in [0.5, 4.0]:
    sample = 1.7 * np.tanh(np.sqrt(q) * zmc) ** 2 + 0.2
    z_score = (sample.mean() - variance_map(q, 1.7, 0.2, "tanh")) / (sample.std() / np.sqrt(sample.size))
    print(f"      q = {q}: Monte Carlo (2e6 samples) z-score {z_score:+.2f}")
    assert abs(z_score) < 4.5
# erf closed forms (variance map and chi_1 integrand) vs quadrature
for q in [0.2, 2.0, 8.0]:
    assert abs(quad_expect(lambda u: special.erf(u) ** 2, q) - 2 / np.pi * np.arcsin(2 * q / (1 + 2 * q))) < 1e-12
    assert abs(quad_expect(lambda u: (2 / np.sqrt(np.pi) * np.exp(-u**2)) ** 2, q) - 4 / np.pi / np.sqrt(1 + 4 * q)) < 1e-12
print("      erf closed forms for E[erf^2] and E[erf'^2] agree with quad to 1e-12")

# %% tags=["solution"]
# (ii) fixed point vs iteration of the map
for phi in ["tanh", "erf"]:
    for sw, sb in [(1.5, 0.1), (3.0, 0.5), (0.7, 0.05), (2.2, 0.0)]:
        q = 1.0
        for _ in range(1000):
            q = variance_map(q, sw, sb, phi)
        assert abs(q - fixed_point_q(sw, sb, phi)) < 1e-10 * max(q, 1), (phi, sw, sb, q)
for sw, sb in [(1.2, 0.3), (1.9, 0.05)]:
    q = 1.0
    for _ in range(20000):
        q = variance_map(q, sw, sb, "relu")
    assert np.isclose(q, fixed_point_q(sw, sb, "relu"), rtol=1e-9)
print("(ii)  fixed_point_q == limit of iterating the map (tanh, erf, relu)")


# %% tags=["solution"]
# (iii) chi_1 vs finite-difference slope of the correlation map at c = 1, via scipy dblquad-free 2-d GH
def corr_map_gh(c, sw, sb, phi, n=160):
    return correlation_map(c, sw, sb, phi, n=n)[0]


for phi in ["tanh", "erf"]:
    for sw, sb in [(1.2, 0.3), (1.8, 0.05), (3.5, 0.05), (2.5, 0.8)]:
        d = 1e-3
        s1 = (1 - corr_map_gh(1 - d, sw, sb, phi)) / d
        s2 = (1 - corr_map_gh(1 - d / 2, sw, sb, phi)) / (d / 2)
        slope = 2 * s2 - s1                              # Richardson extrapolation
        assert abs(slope - chi1(sw, sb, phi)) < 2e-5 * chi1(sw, sb, phi), (phi, sw, sb, slope, chi1(sw, sb, phi))
print("(iii) chi1 == finite-difference slope of the correlation map at c = 1 (tanh, erf; 8 points, rel. 2e-5)")


# %% tags=["solution"]
# (iv) chi_1 from wide random tanh networks: growth of |dz|^2 per layer at the fixed point.
#      6 independent networks of width 400 and 24 layers (the first 4 discarded), 8 tangent vectors each;
#      the standard error comes from the spread between networks (layers of one network are correlated).
def measured_growth(sw, sb, N=400, layers=24, k=8, rng=rng):
    q = fixed_point_q(sw, sb, "tanh")
    z = np.sqrt(q) * rng.standard_normal(N)
    dz = rng.standard_normal((N, k))
    logs = []
    for _ in range(layers):
        W = rng.standard_normal((N, N)) * np.sqrt(sw / N)
        dz_new = W @ (_sech2(z)[:, None] * dz)
        z = W @ np.tanh(z) + np.sqrt(sb) * rng.standard_normal(N)
        logs.append(np.mean(np.log(np.sum(dz_new**2, axis=0) / np.sum(dz**2, axis=0))))
        dz = dz_new / np.linalg.norm(dz_new, axis=0) * np.sqrt(N)
    return np.mean(logs[4:])


for sw, sb in [(1.2, 0.3), (3.5, 0.05)]:
    runs = [measured_growth(sw, sb) for _ in range(6)]
    m, se = np.mean(runs), np.std(runs, ddof=1) / np.sqrt(len(runs))
    print(f"(iv)  tanh sigma_w={sw}, sigma_b={sb}: measured log-growth of |dz|^2 per layer {m:+.4f} +- {se:.4f}, "
          f"log chi1 = {np.log(chi1(sw, sb, 'tanh')):+.4f}")
    assert abs(m - np.log(chi1(sw, sb, "tanh"))) < 4 * se + 5e-3

# %% tags=["solution"]
# (v) correlation depth from the iterated correlation map. The 2-d quadrature of C has a tiny error at
#     c = 1 too, so we iterate c -> 1 - (C(1) - C(c)), which has the exact fixed point c = 1.
for sw, sb, c0 in [(1.2, 0.3, 0.99), (1.5, 0.2, 0.99), (3.5, 0.05, 1 - 1e-6), (2.5, 0.3, 1 - 1e-6)]:
    top = corr_map_gh(1.0, sw, sb, "tanh")
    cs_it = [c0]
    for _ in range(12):
        cs_it.append(1 - (top - corr_map_gh(cs_it[-1], sw, sb, "tanh")))
    gaps = 1 - np.array(cs_it)
    steps = np.arange(6, 13) if c0 < 0.999 else np.arange(0, 6)    # asymptotic decay / initial growth
    rate = np.polyfit(steps, np.log(gaps[steps]), 1)[0]
    print(f"(v)   sigma_w={sw}, sigma_b={sb}: 1/|fitted log-rate of 1-c| = {1 / abs(rate):.4f}, "
          f"correlation_depth = {correlation_depth(sw, sb, 'tanh'):.4f}")
    assert abs(1 / abs(rate) - correlation_depth(sw, sb, "tanh")) < 0.02 * correlation_depth(sw, sb, "tanh")

# %% tags=["solution"]
# (vi) ReLU at He initialization: |z|^2 and |dz|^2 preserved on average by wide random networks
N = 800
z = rng.standard_normal(N)
dz = rng.standard_normal(N)
ratios_q, ratios_dz = [], []
for _ in range(16):
    W = rng.standard_normal((N, N)) * np.sqrt(2.0 / N)
    z_new, dz_new = W @ np.maximum(z, 0), W @ ((z > 0) * dz)
    ratios_q.append(z_new @ z_new / (z @ z))
    ratios_dz.append(dz_new @ dz_new / (dz @ dz))
    z, dz = z_new, dz_new
print(f"(vi)  ReLU, sigma_w = 2: mean per-layer ratio |z|^2 {np.mean(ratios_q):.4f}, |dz|^2 {np.mean(ratios_dz):.4f} "
      f"(chi1 = {chi1(2.0, 0.0, 'relu')})")
assert abs(np.mean(ratios_q) - 1) < 0.04 and abs(np.mean(ratios_dz) - 1) < 0.04

# %% [markdown]
# ## 3. The edge of chaos and the phase diagram
#
# At fixed $\sigma_b$, $\chi_1$ increases with $\sigma_w$ (for tanh and erf; checked numerically
# over the range of the figure), so the critical
# line $\chi_1(\sigma_w,\sigma_b)=1$ is a graph $\sigma_w=\sigma_w^c(\sigma_b)$, starting at
# $\sigma_w^c(0)=1/\phi'(0)^2$ ($1$ for tanh, $\pi/4$ for erf). Below it the network is
# ordered, above it chaotic.
#
# **Task.** Implement `critical_sigma_w(sigma_b, phi)` by root finding on
# $\chi_1(\sigma_w,\sigma_b)-1$ in $\sigma_w$. A bracket: $\chi_1\le\sigma_w\phi'(0)^2$ gives
# $\chi_1\le1$ at $\sigma_w=1/\phi'(0)^2$; double the upper end until $\chi_1>1$.

# %% tags=["graded"]
def critical_sigma_w(sigma_b, phi):
    """The weight variance on the edge of chaos, chi_1(sigma_w, sigma_b, phi) = 1 (notes, Section 3.7).

    Args:
        sigma_b: float >= 0, the bias variance.
        phi: 'tanh', 'relu' or 'erf'.
    Returns:
        float sigma_w^c(sigma_b) (relative accuracy 1e-7): 1 for tanh and pi/4 for erf at
        sigma_b = 0, increasing with sigma_b; 2 for 'relu' (chi_1 = sigma_w / 2 for every sigma_b).
    """
    _check_phi(phi)
    if phi == "relu":
        return 2.0
    lo = 1.0 / _SLOPE_AT_ZERO_SQ[phi]
    if sigma_b == 0:
        return float(lo)
    hi = 2.0 * lo
    while chi1(hi, sigma_b, phi) <= 1.0:
        hi *= 2.0
    return float(optimize.brentq(lambda s: chi1(s, sigma_b, phi) - 1.0, lo, hi, xtol=1e-13, rtol=1e-12))


# %% tags=["check"]
@check
def check_critical_sigma_w():
    "chi_1 = 1 on the line; the line starts at 1 (tanh) and pi/4 (erf), and rises with sigma_b"
    for act in ("tanh", "erf"):
        s = critical_sigma_w(0.2, act)
        assert np.isclose(chi1(s, 0.2, act), 1.0, atol=1e-6), f"chi_1 != 1 on the {act} critical line"
        assert critical_sigma_w(0.4, act) > s > critical_sigma_w(0.0, act)
    assert np.isclose(critical_sigma_w(0.0, "tanh"), 1.0) and np.isclose(critical_sigma_w(0.0, "erf"), np.pi / 4)
    assert critical_sigma_w(0.3, "relu") == 2.0


# %% [markdown]
# **The phase diagram (Figure 5 of the notes).** The correlation depth
# $\xi=1/|\log\chi_1|$ of a tanh network over the $(\sigma_w,\sigma_b)$ plane, with the critical
# line; the depth to which a network is trainable is a few $\xi$ (about $6\xi$ in Schoenholz
# et al.), so only a band around the line supports deep networks. The dashed lines are this
# year's $\sigma_b$ values (`PARAMS["sigma_b_values"]`), for which the right panel shows
# $\chi_1(\sigma_w)$. The grid is coarse so that the figure takes a few seconds; set
# `FINE = True` for a finer one.

# %% tags=["figure"]
FINE = False
try:
    sw_grid = np.linspace(0.5, 4.0, 71 if FINE else 36)
    sb_grid = np.linspace(0.0, 1.0, 51 if FINE else 26)
    depth = np.array([[correlation_depth(sw, sb, "tanh") for sw in sw_grid] for sb in sb_grid])
    sb_line = np.linspace(0.0, 1.0, 21)
    sw_line = np.array([critical_sigma_w(sb, "tanh") for sb in sb_line])
    fig, axes = plt.subplots(1, 2, figsize=(14, 5))
    ax = axes[0]
    mesh = ax.pcolormesh(sw_grid, sb_grid, np.log10(np.minimum(depth, 1e3)), shading="auto", cmap="magma")
    fig.colorbar(mesh, ax=ax, label=r"$\log_{10}\xi$, $\xi=1/|\log\chi_1|$ (capped at $10^3$)")
    ax.plot(sw_line, sb_line, "w-", lw=2, label=r"edge of chaos $\chi_1=1$")
    for sb in PARAMS["sigma_b_values"]:
        ax.axhline(sb, color="c", ls="--", lw=1)
    ax.text(0.7, 0.8, "ordered\n$\\chi_1<1$", color="w", fontsize=12)
    ax.text(3.0, 0.15, "chaotic\n$\\chi_1>1$", color="w", fontsize=12)
    ax.set(xlabel=r"weight variance $\sigma_w$", ylabel=r"bias variance $\sigma_b$", title="tanh: order/chaos phase diagram")
    ax.legend(loc="upper right", fontsize=8)
    ax = axes[1]
    sws = np.linspace(0.5, 4.0, 60)
    for k, sb in enumerate(PARAMS["sigma_b_values"]):
        ax.plot(sws, [chi1(s, sb, "tanh") for s in sws], color=f"C{k}", label=rf"tanh, $\sigma_b={sb}$")
        ax.axvline(critical_sigma_w(sb, "tanh"), color=f"C{k}", ls=":", lw=1)
    ax.plot(sws, [chi1(s, 0.0, "relu") for s in sws], "k--", label=r"ReLU (any $\sigma_b$): $\sigma_w/2$")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set(xlabel=r"$\sigma_w$", ylabel=r"$\chi_1$", title=r"$\chi_1$ across the transition; dotted: $\sigma_w^c(\sigma_b)$")
    ax.legend(fontsize=8)
    plt.tight_layout()
    plt.show()
    for sb in PARAMS["sigma_b_values"]:
        print(f"sigma_b = {sb}: critical sigma_w (tanh) = {critical_sigma_w(sb, 'tanh'):.6f}, "
              f"(erf) = {critical_sigma_w(sb, 'erf'):.6f}")
except NotImplementedError:
    print("implement the graded functions first")

# %% tags=["solution"]
# Independent check. (vii) The critical line by a second route:
# $\chi_1$ recomputed with `scipy.integrate.quad` and a fixed point found by bisection (no
# code shared with the reference, which uses a trapezoidal rule and Brent's method) must
# change sign within $\pm10^{-6}$ (relative) of `critical_sigma_w`, at this year's $\sigma_b$
# values; (viii) the known value from Schoenholz et al.: at $\sigma_b=0.05$ the tanh critical
# weight variance is $\approx1.76$.
def chi1_independent(sw, sb, phi):
    f2 = {"tanh": lambda u: np.tanh(u) ** 2, "erf": lambda u: special.erf(u) ** 2}[phi]
    d2 = {"tanh": lambda u: (1 / np.cosh(u)) ** 4, "erf": lambda u: 4 / np.pi * np.exp(-2 * u**2)}[phi]
    lo, hi = 0.0, sw + sb                 # V(q) - q > 0 at 0 (sigma_b > 0), < 0 at sw + sb
    for _ in range(48):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if sw * quad_expect(f2, mid) + sb > mid else (lo, mid)
    return sw * quad_expect(d2, 0.5 * (lo + hi))


for phi, sbs in [("tanh", PARAMS["sigma_b_values"]), ("erf", PARAMS["sigma_b_values"][1:2])]:
    for sb in sbs:
        sc = critical_sigma_w(sb, phi)
        below, above = chi1_independent(sc * (1 - 1e-6), sb, phi), chi1_independent(sc * (1 + 1e-6), sb, phi)
        print(f"(vii) {phi}, sigma_b = {sb}: critical_sigma_w = {sc:.8f}; independent chi1 at -/+ 1e-6: "
              f"{below - 1:+.2e}, {above - 1:+.2e}")
        assert below < 1 < above
print(f"(viii) tanh, sigma_b = 0.05: critical sigma_w = {critical_sigma_w(0.05, 'tanh'):.4f} (Schoenholz et al.: ~1.76)")
assert abs(critical_sigma_w(0.05, "tanh") - 1.76) < 0.01

# %% [markdown]
# **Written (b).** ReLU: explain why its edge of chaos is the single point
# $(\sigma_w,\sigma_b)=(2,0)$, and describe what a deep ReLU network does for $\sigma_w<2$,
# for $\sigma_w>2$, and for $\sigma_w=2$ with $\sigma_b>0$.
#
# **Written (c).** You must initialize a tanh network with 500 layers and bias variance
# $\sigma_b=0.05$. Where in the phase diagram do you put $\sigma_w$, and how precisely must it
# be tuned? Why does a larger $\sigma_b$ push the critical $\sigma_w$ up?

# %% [markdown] tags=["answer"] points=4
# *Model answer.* **(b)** For ReLU, $\chi_1=\sigma_w/2$ independently of $q$, and the variance
# map is linear, $V(q)=\sigma_wq/2+\sigma_b$. Criticality for correlations/gradients needs
# $\chi_1=1$, i.e. $\sigma_w=2$, but then $V(q)=q+\sigma_b$ has a fixed point only if
# $\sigma_b=0$ (then every $q$ is fixed: the norm is preserved exactly on average). So both
# conditions hold only at $(2,0)$. For $\sigma_w<2$: $q\to\sigma_b/(1-\sigma_w/2)$ (to $0$
# without bias), $\chi_1<1$, correlations converge to 1 and gradients vanish like
# $(\sigma_w/2)^L$: ordered. For $\sigma_w>2$: $q$ grows like $(\sigma_w/2)^\ell$ and gradients
# explode like $(\sigma_w/2)^L$. For $\sigma_w=2,\sigma_b>0$: $q^{(\ell)}=q^{(0)}+\ell\sigma_b$ grows
# linearly; the bias, common to all inputs, adds the same $\sigma_b$ to every entry of the
# kernel, so correlations are driven to $1$ and inputs become indistinguishable at depth
# $\gg q^{(0)}/\sigma_b$. Even at $(2,0)$ correlations still converge to $1$, but only as a
# power law (the ReLU correlation map has slope $1$ at $c=1$; ex3_2's figure). In fact, without
# bias the ReLU kernel map is homogeneous of degree one, so $c^{(\ell+1)}=J(c^{(\ell)})$ with
# $J(c)=\frac1\pi\big(\sqrt{1-c^2}+(\pi-\arccos c)\,c\big)$ for *every* $\sigma_w$: with $\sigma_b=0$ the
# phases of ReLU differ in the norms and the gradients ($\propto(\sigma_w/2)^\ell$), not in the
# correlations, which always creep to $1$.
#
# **(c)** On the critical line: $\sigma_w\approx\sigma_w^c(0.05)\approx1.76$. Trainability needs
# $L\lesssim6\xi$, i.e. $\xi\gtrsim80$, i.e. $|\log\chi_1|\lesssim1/80$: $\chi_1$ within about
# $1\%$ of $1$. Since $\partial\chi_1/\partial\sigma_w\approx0.21$ on the line at $\sigma_b=0.05$
# (compare the slopes in the right panel), $\sigma_w$ must be tuned to about $\pm0.06$, i.e.
# $3\%$; a ten times deeper network needs a ten times finer tuning. A larger
# $\sigma_b$ raises $q^*$ (the bias adds variance at every layer), which pushes the
# preactivations into the saturated region of tanh where $\phi'$ is small, lowering
# $\mathbb E[\phi'^2]$; a larger $\sigma_w$ is then needed to bring $\chi_1=\sigma_w\mathbb E[\phi'^2]$
# back to 1. Equivalently, a common bias correlates all inputs and pushes towards order,
# which stronger weights (chaos) must compensate.
#
# *Rubric:* (b) why a point, with both conditions (1); the three regimes (1). (c) the line
# and the tuning estimate via $L\sim6\xi$ (1); saturation argument for the slope of the line (1).

# %% tags=["tests"]
@points(2)
def test_variance_map_closed_forms(student):
    "variance_map for ReLU and erf on arrays of q in [0, 10]"
    rng = rng_for("variance_map_closed_forms")
    q = rng.uniform(0.0, 10.0, size=15)
    for phi in ["relu", "erf"]:
        sw, sb = float(rng.uniform(0.5, 4.0)), float(rng.uniform(0.0, 1.0))
        assert_close(student.variance_map(q, sw, sb, phi), ref.variance_map(q, sw, sb, phi),
                     rtol=1e-7, atol=1e-12, name=f"variance_map(q, {sw:.3f}, {sb:.3f}, {phi!r})")


@points(2)
def test_variance_map_tanh(student):
    "variance_map for tanh on arrays of moderate q in [0, 2.5], and on a scalar"
    rng = rng_for("variance_map_tanh")
    q = np.concatenate([[0.0], rng.uniform(0.0, 2.5, size=12)])
    sw, sb = float(rng.uniform(0.5, 4.0)), float(rng.uniform(0.0, 1.0))
    assert_close(student.variance_map(q, sw, sb, "tanh"), ref.variance_map(q, sw, sb, "tanh"),
                 rtol=1e-6, atol=1e-12, name="variance_map(q, ..., 'tanh')")
    assert_close(student.variance_map(float(q[3]), sw, sb, "tanh"), ref.variance_map(float(q[3]), sw, sb, "tanh"),
                 rtol=1e-6, atol=1e-12, name="variance_map on a scalar q")


@points(1)
def test_variance_map_quadrature_accuracy(student):
    "variance_map for tanh at large q in [4, 10] to the stated quadrature accuracy"
    rng = rng_for("variance_map_quadrature_accuracy")
    q = rng.uniform(4.0, 10.0, size=6)
    assert_close(student.variance_map(q, 1.0, 0.0, "tanh"), ref.variance_map(q, 1.0, 0.0, "tanh"),
                 rtol=1e-7, atol=0, name="E[tanh(sqrt(q) z)^2] at large q")


@points(1)
def test_variance_map_shapes_and_edges(student):
    "variance_map: a float for a scalar q, the shape of q for arrays, V(0) = sigma_b, with and without bias"
    rng = rng_for("variance_map_shapes_and_edges")
    q2 = rng.uniform(0.0, 10.0, size=(2, 3))
    for phi in ["tanh", "relu", "erf"]:
        sw, sb = float(rng.uniform(0.5, 4.0)), float(rng.uniform(0.05, 1.0))
        for b in [sb, 0.0]:
            v0 = student.variance_map(0.0, sw, b, phi)
            assert np.shape(v0) == (), f"variance_map(0.0, ..., {phi!r}) should be a float for a scalar q"
            assert_close(v0, ref.variance_map(0.0, sw, b, phi), rtol=1e-9, atol=1e-15,
                         name=f"variance_map(0, {sw:.3f}, {b:.3f}, {phi!r})")
        out = student.variance_map(q2, sw, sb, phi)
        assert np.shape(out) == q2.shape, f"variance_map on a 2-d array of q should keep its shape ({phi!r})"
        assert_close(out, ref.variance_map(q2, sw, sb, phi), rtol=1e-7, atol=1e-12,
                     name=f"variance_map(2-d q, {sw:.3f}, {sb:.3f}, {phi!r})")


@points(1)
def test_variance_map_range_endpoints(student):
    "variance_map for tanh and erf without bias at the ends of 0 <= q <= 10 (tiny q and q = 10), to the stated relative accuracy"
    rng = rng_for("variance_map_range_endpoints")
    q = np.array([10.0, float(rng.uniform(1e-7, 1e-6)), float(rng.uniform(1e-4, 1e-3))])
    for phi in ["tanh", "erf"]:
        sw = float(rng.uniform(0.5, 4.0))
        assert_close(student.variance_map(q, sw, 0.0, phi), ref.variance_map(q, sw, 0.0, phi), rtol=5e-7, atol=0,
                     name=f"variance_map(q, {sw:.3f}, 0, {phi!r}) at q = 10 and at tiny q")


@points(1)
def test_fixed_point_far_from_origin(student):
    "fixed_point_q and chi1 for tanh and erf with large weight and bias variances (q* far beyond 10)"
    rng = rng_for("fixed_point_far_from_origin")
    for sw, sb in [(float(rng.uniform(20.0, 40.0)), float(rng.uniform(5.0, 15.0))),
                   (float(rng.uniform(100.0, 200.0)), float(rng.uniform(50.0, 100.0)))]:
        for phi in ["tanh", "erf"]:
            assert_close(student.fixed_point_q(sw, sb, phi), ref.fixed_point_q(sw, sb, phi), rtol=1e-6, atol=0,
                         name=f"fixed_point_q({sw:.2f}, {sb:.2f}, {phi!r})")
            assert_close(student.chi1(sw, sb, phi), ref.chi1(sw, sb, phi), rtol=1e-6, atol=0,
                         name=f"chi1({sw:.2f}, {sb:.2f}, {phi!r})")


@points(1)
def test_no_bias_both_branches(student):
    "chi1 and correlation_depth without bias for tanh and erf, on both sides of sigma_w phi'(0)^2 = 1"
    rng = rng_for("no_bias_both_branches")
    for phi, sws in [("tanh", [float(rng.uniform(0.3, 0.95)), float(rng.uniform(1.1, 3.0))]),
                     ("erf", [float(rng.uniform(0.3, 0.75)), float(rng.uniform(0.85, 3.0))])]:
        for sw in sws:
            assert_close(student.chi1(sw, 0.0, phi), ref.chi1(sw, 0.0, phi), rtol=1e-6, atol=1e-12,
                         name=f"chi1({sw:.3f}, 0, {phi!r})")
            assert_close(student.correlation_depth(sw, 0.0, phi), ref.correlation_depth(sw, 0.0, phi),
                         rtol=1e-5, atol=1e-9, name=f"correlation_depth({sw:.3f}, 0, {phi!r})")


@points(2)
def test_fixed_point_q_tanh_erf(student):
    "fixed_point_q for tanh and erf at random (sigma_w, sigma_b) with a bias"
    rng = rng_for("fixed_point_q_tanh_erf")
    for phi in ["tanh", "erf"]:
        for _ in range(3):
            sw, sb = float(rng.uniform(0.5, 4.0)), float(rng.uniform(0.02, 1.0))
            assert_close(student.fixed_point_q(sw, sb, phi), ref.fixed_point_q(sw, sb, phi),
                         rtol=1e-6, atol=1e-12, name=f"fixed_point_q({sw:.3f}, {sb:.3f}, {phi!r})")


@points(1)
def test_fixed_point_q_no_bias(student):
    "fixed_point_q without bias, on both sides of sigma_w phi'(0)^2 = 1"
    rng = rng_for("fixed_point_q_no_bias")
    for phi, sw in [("tanh", float(rng.uniform(0.3, 0.95))), ("tanh", float(rng.uniform(1.1, 1.9))),
                    ("erf", float(rng.uniform(0.3, 0.75))), ("erf", float(rng.uniform(0.85, 1.25))),
                    ("erf", float(rng.uniform(1.5, 3.0)))]:
        assert_close(student.fixed_point_q(sw, 0.0, phi), ref.fixed_point_q(sw, 0.0, phi),
                     rtol=1e-6, atol=1e-9, name=f"fixed_point_q({sw:.3f}, 0, {phi!r})")


@points(2)
def test_fixed_point_q_relu(student):
    "fixed_point_q for ReLU: finite, divergent and marginal cases"
    rng = rng_for("fixed_point_q_relu")
    sw, sb = float(rng.uniform(0.3, 1.9)), float(rng.uniform(0.05, 1.0))
    assert_close(student.fixed_point_q(sw, sb, "relu"), ref.fixed_point_q(sw, sb, "relu"),
                 rtol=1e-9, atol=1e-12, name="fixed_point_q for sigma_w < 2")
    for args in [(float(rng.uniform(2.1, 4.0)), sb), (2.0, sb), (float(rng.uniform(2.1, 4.0)), 0.0)]:
        assert_close(student.fixed_point_q(*args, "relu"), np.inf, rtol=0, atol=0,
                     name=f"fixed_point_q{args + ('relu',)} (divergent)")
    q0 = float(rng.uniform(0.2, 3.0))
    assert_close(student.fixed_point_q(2.0, 0.0, "relu", q0), q0, rtol=1e-12, atol=0,
                 name="fixed_point_q(2, 0, 'relu', q0)")
    assert_close(student.fixed_point_q(2.0, 0.0, "relu"), 1.0, rtol=1e-12, atol=0,
                 name="fixed_point_q(2, 0, 'relu') with the default q0")


@points(2)
def test_chi1_relu(student):
    "chi1 for ReLU, exactly critical at sigma_w = 2, sigma_b = 0, and in the divergent regime"
    rng = rng_for("chi1_relu")
    assert_close(student.chi1(2.0, 0.0, "relu"), 1.0, rtol=0, atol=1e-12, name="chi1(2, 0, 'relu')")
    for sw, sb in [(float(rng.uniform(0.3, 1.9)), float(rng.uniform(0.0, 1.0))), (float(rng.uniform(2.1, 4.0)), 0.3)]:
        assert_close(student.chi1(sw, sb, "relu"), ref.chi1(sw, sb, "relu"), rtol=1e-9, atol=1e-12,
                     name=f"chi1({sw:.3f}, {sb:.3f}, 'relu')")


@points(3)
def test_chi1_tanh(student):
    "chi1 for tanh at random points in the ordered and chaotic phases"
    rng = rng_for("chi1_tanh")
    for sw, sb in [(float(rng.uniform(0.6, 1.3)), float(rng.uniform(0.2, 1.0))),
                   (float(rng.uniform(2.5, 4.0)), float(rng.uniform(0.01, 0.2))),
                   (float(rng.uniform(1.0, 3.0)), float(rng.uniform(0.0, 0.6))), (0.8, 0.0)]:
        assert_close(student.chi1(sw, sb, "tanh"), ref.chi1(sw, sb, "tanh"), rtol=1e-6, atol=1e-12,
                     name=f"chi1({sw:.3f}, {sb:.3f}, 'tanh')")


@points(1)
def test_chi1_erf(student):
    "chi1 for erf at random points"
    rng = rng_for("chi1_erf")
    for _ in range(3):
        sw, sb = float(rng.uniform(0.5, 4.0)), float(rng.uniform(0.0, 1.0))
        assert_close(student.chi1(sw, sb, "erf"), ref.chi1(sw, sb, "erf"), rtol=1e-6, atol=1e-12,
                     name=f"chi1({sw:.3f}, {sb:.3f}, 'erf')")


@points(2)
def test_correlation_depth(student):
    "correlation_depth in both phases and at the ReLU edge of chaos"
    rng = rng_for("correlation_depth")
    assert_close(student.correlation_depth(2.0, 0.0, "relu"), np.inf, rtol=0, atol=0,
                 name="correlation_depth(2, 0, 'relu')")
    cases = [(float(rng.uniform(0.5, 1.9)), 0.1, "relu"), (float(rng.uniform(2.2, 4.0)), 0.0, "relu"),
             (1.2, float(rng.uniform(0.3, 0.8)), "tanh"), (float(rng.uniform(3.0, 4.0)), 0.05, "tanh"),
             (float(rng.uniform(0.5, 1.0)), 0.2, "erf")]
    for sw, sb, phi in cases:
        assert_close(student.correlation_depth(sw, sb, phi), ref.correlation_depth(sw, sb, phi),
                     rtol=1e-5, atol=1e-9, name=f"correlation_depth({sw:.3f}, {sb:.3f}, {phi!r})")


@points(3)
def test_critical_sigma_w_tanh(student):
    "critical_sigma_w for tanh at this year's bias variances and at sigma_b = 0"
    for sb in ref.PARAMS["sigma_b_values"] + [0.0]:
        assert_close(student.critical_sigma_w(sb, "tanh"), ref.critical_sigma_w(sb, "tanh"),
                     rtol=1e-6, atol=1e-9, name=f"critical_sigma_w({sb}, 'tanh')")


@points(1)
def test_critical_sigma_w_erf_relu(student):
    "critical_sigma_w for erf at random bias variances, and for ReLU"
    rng = rng_for("critical_sigma_w_erf_relu")
    for sb in [float(rng.uniform(0.02, 1.0)), 0.0]:
        assert_close(student.critical_sigma_w(sb, "erf"), ref.critical_sigma_w(sb, "erf"),
                     rtol=1e-6, atol=1e-9, name=f"critical_sigma_w({sb:.3f}, 'erf')")
    assert_close(student.critical_sigma_w(0.4, "relu"), 2.0, rtol=1e-12, atol=0, name="critical_sigma_w for ReLU")


# %% tags=["wrong"]
# wrong: sigma_w, sigma_b read as standard deviations (sigma_w^2 E[phi^2] + sigma_b^2)
# hint: σ_w and σ_b are variances in these notes (weights N(0, σ_w), Section 3.1): the variance map is q
#   ← σ_w E[φ(√q z)²] + σ_b, with no squares (many papers write σ_w² for the same number).
_vm_right = variance_map


def variance_map(q, sigma_w, sigma_b, phi):
    return _vm_right(q, sigma_w**2, sigma_b**2, phi)


# %% tags=["rewrite"]
# rewrite: the same standard-deviation reading, with the squares written into each closed form
def variance_map(q, sigma_w, sigma_b, phi):
    q = np.asarray(q, dtype=float)
    sw, sb = sigma_w * sigma_w, sigma_b * sigma_b
    if phi == "relu":
        out = sw * q / 2.0 + sb
    elif phi == "erf":
        out = sw * 2.0 / np.pi * np.arcsin(2.0 * q / (1.0 + 2.0 * q)) + sb
    else:
        out = sw * _gauss_expect(lambda u: 1.0 - _sech2(u), q) + sb
    return float(out) if out.ndim == 0 else out


# %% tags=["wrong"]
# wrong: Gauss-Hermite quadrature with a fixed 20 nodes for tanh (inaccurate at large q)
# hint: A fixed low-order Gauss–Hermite rule is not accurate for tanh at large q, where tanh(√q z) is
#   almost a step: use an adaptive integral (scipy.integrate.quad) or many more nodes (Section 3.7).
def variance_map(q, sigma_w, sigma_b, phi):
    q = np.asarray(q, dtype=float)
    if phi == "relu":
        return sigma_w * q / 2 + sigma_b
    if phi == "erf":
        return sigma_w * 2 / np.pi * np.arcsin(2 * q / (1 + 2 * q)) + sigma_b
    z, w = np.polynomial.hermite_e.hermegauss(20)
    return sigma_w * (np.tanh(np.sqrt(q)[..., None] * z) ** 2 @ w) / np.sqrt(2 * np.pi) + sigma_b


def chi1(sigma_w, sigma_b, phi):
    if phi == "relu":
        return sigma_w / 2
    q = fixed_point_q(sigma_w, sigma_b, phi)
    if phi == "erf":
        return sigma_w * 4 / np.pi / np.sqrt(1 + 4 * q)
    z, w = np.polynomial.hermite_e.hermegauss(20)
    return float(sigma_w * (1 / np.cosh(np.sqrt(q) * z) ** 4) @ w / np.sqrt(2 * np.pi))


# %% tags=["wrong"]
# wrong: generic Gauss-Hermite with an odd number of nodes also for ReLU (phi'(0) = 0 at the node z = 0)
# hint: For ReLU, φ'(u) jumps at u = 0, exactly where an odd Gauss–Hermite rule puts a node: use the
#   closed form of E[φ'(√q z)²] for ReLU, or a rule that handles the step (Section 3.7).
def chi1(sigma_w, sigma_b, phi):
    q = fixed_point_q(sigma_w, sigma_b, phi)
    q = 1.0 if not np.isfinite(q) else q
    z, w = np.polynomial.hermite_e.hermegauss(101)
    w = w / np.sqrt(2 * np.pi)
    u = np.sqrt(q) * z
    dphi = {"tanh": _sech2(u), "erf": 2 / np.sqrt(np.pi) * np.exp(-u**2), "relu": (u > 0).astype(float)}[phi]
    return float(sigma_w * w @ dphi**2)


# %% tags=["wrong"]
# wrong: chi_1 evaluated at q = 1 instead of at the fixed point q*
# hint: χ1 = σ_w E[φ'(√q* z)²] is evaluated at the fixed point q* of the variance map, not at q = 1
#   (Section 3.7).
def chi1(sigma_w, sigma_b, phi):
    if phi == "relu":
        return sigma_w / 2
    if phi == "erf":
        return sigma_w * 4 / np.pi / np.sqrt(5.0)
    return float(sigma_w * _gauss_expect(lambda u: _sech2(u) ** 2, 1.0))


# %% tags=["wrong"]
# wrong: chi_1 taken as the slope dV/dq of the variance map at q* (stability of the length, not of correlations)
# hint: χ1 is the slope of the correlation map at c = 1, σ_w E[φ'(√q* z)²], which decides whether nearby
#   inputs separate; the slope of the variance map only decides the stability of the length q*
#   (Section 3.7).
def chi1(sigma_w, sigma_b, phi):
    q = fixed_point_q(sigma_w, sigma_b, phi)
    if phi == "relu":
        return sigma_w / 2
    h = 1e-6 * max(q, 1e-3)
    return float((variance_map(q + h, sigma_w, sigma_b, phi) - variance_map(max(q - h, 0), sigma_w, sigma_b, phi))
                 / (q + h - max(q - h, 0)))


# %% tags=["wrong"]
# wrong: ReLU fixed point from the formula sigma_b / (1 - sigma_w/2) for every sigma_w (negative beyond 2)
# hint: For ReLU the variance map q ← σ_w q/2 + σ_b is linear: σ_b/(1 − σ_w/2) is its attracting fixed
#   point only for σ_w < 2; beyond, the variance grows without bound (Section 3.7).
_fp_right = fixed_point_q


def fixed_point_q(sigma_w, sigma_b, phi, q0=1.0):
    if phi == "relu" and sigma_w != 2.0:
        return sigma_b / (1 - sigma_w / 2)
    return _fp_right(sigma_w, sigma_b, phi, q0)


# %% tags=["wrong"]
# wrong: without bias, the root finder bracket starts at q = 0 and returns the unstable fixed point q = 0
# hint: Without bias q = 0 is always a fixed point, but for σ_w φ'(0)² > 1 it is unstable: q* is the
#   attracting fixed point, the limit of iterating V from q0 > 0 (Section 3.7).
_fp_right = fixed_point_q


def fixed_point_q(sigma_w, sigma_b, phi, q0=1.0):
    if phi != "relu" and sigma_b == 0.0:
        return 0.0
    return _fp_right(sigma_w, sigma_b, phi, q0)


# %% tags=["wrong"]
# wrong: fixed point searched only on 0 <= q <= 10, the range where the quadrature is accurate
# hint: q* can lie far from the origin: V(q) < σ_w + σ_b for tanh and erf, so search for the root of
#   V(q) − q on [0, σ_w + σ_b] (or iterate the map), not on a fixed interval (Section 3.7).
_fp_right = fixed_point_q


def fixed_point_q(sigma_w, sigma_b, phi, q0=1.0):
    if phi == "relu":
        return _fp_right(sigma_w, sigma_b, phi, q0)
    res = optimize.minimize_scalar(lambda q: (variance_map(q, sigma_w, sigma_b, phi) - q) ** 2,
                                   bounds=(0.0, 10.0), method="bounded", options={"xatol": 1e-12})
    return float(res.x) if sigma_b > 0 or sigma_w * _SLOPE_AT_ZERO_SQ[phi] > 1 else 0.0


# %% tags=["wrong"]
# wrong: a scalar-only loop over q.ravel(): a 2-d array of q comes back flattened
# hint: The variance map acts on each q separately: return an array of the shape of q (a float for a
#   scalar q), whatever the shape of q (Section 3.7).
_vm_right2 = variance_map


def variance_map(q, sigma_w, sigma_b, phi):
    qa = np.asarray(q, dtype=float)
    out = np.array([_vm_right2(float(v), sigma_w, sigma_b, phi) for v in qa.ravel()])
    return float(out[0]) if qa.ndim == 0 else out


# %% tags=["wrong"]
# wrong: correlation depth -1/log(chi_1) without the absolute value (negative in the chaotic phase)
# hint: The correlation depth is ξ = 1/|log χ1|, with the absolute value: it is positive in both phases
#   and diverges at χ1 = 1 (Section 3.7).
def correlation_depth(sigma_w, sigma_b, phi):
    c = chi1(sigma_w, sigma_b, phi)
    return float("inf") if c == 1 else float(-1 / np.log(c))


# %% tags=["wrong"]
# wrong: edge of chaos located where q* leaves 0 (sigma_w phi'(0)^2 = 1), ignoring the bias
# hint: The edge of chaos is where χ1 = 1 at the fixed point q*(σ_w, σ_b), and q* depends on the bias:
#   for σ_b > 0 it is not at σ_w φ'(0)² = 1 (Section 3.7, Figure 5).
def critical_sigma_w(sigma_b, phi):
    return {"tanh": 1.0, "erf": np.pi / 4, "relu": 2.0}[phi]


# %% tags=["alternative"]
# alternative: scipy.integrate.quad for every Gaussian expectation, fixed point by iteration + Newton, critical line by bisection
def _quad_gauss(fun, q):
    if q == 0:
        return float(fun(0.0))
    g = lambda z: fun(np.sqrt(q) * z) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)
    edges = [-1 / np.sqrt(q), 0.0, 1 / np.sqrt(q)]
    return integrate.quad(g, -40, 40, epsabs=1e-15, epsrel=1e-12, limit=400, points=edges)[0]


_SQ = {"tanh": lambda u: np.tanh(u) ** 2, "erf": lambda u: special.erf(u) ** 2, "relu": lambda u: max(u, 0.0) ** 2}
_DSQ = {"tanh": lambda u: 1 / np.cosh(u) ** 4, "erf": lambda u: 4 / np.pi * np.exp(-2 * u * u),
        "relu": lambda u: float(u > 0)}


def variance_map(q, sigma_w, sigma_b, phi):
    qa = np.asarray(q, dtype=float)
    out = np.array([sigma_w * _quad_gauss(_SQ[phi], float(v)) + sigma_b for v in qa.ravel()]).reshape(qa.shape)
    return float(out) if qa.ndim == 0 else out


def fixed_point_q(sigma_w, sigma_b, phi, q0=1.0):
    if phi == "relu":
        if sigma_w < 2:
            return sigma_b / (1 - sigma_w / 2)
        return q0 if (sigma_w == 2 and sigma_b == 0) else np.inf
    if sigma_b == 0 and sigma_w * (1.0 if phi == "tanh" else 4 / np.pi) <= 1:
        return 0.0
    q = sigma_w + sigma_b
    for _ in range(30):              # contraction towards q*, then Newton with a numerical derivative
        q = variance_map(q, sigma_w, sigma_b, phi)
    for _ in range(8):
        h = 1e-6 * q
        g = variance_map(q, sigma_w, sigma_b, phi) - q
        dg = (variance_map(q + h, sigma_w, sigma_b, phi) - variance_map(q - h, sigma_w, sigma_b, phi)) / (2 * h) - 1
        q -= g / dg
    return q


def chi1(sigma_w, sigma_b, phi):
    if phi == "relu":
        return sigma_w / 2
    return sigma_w * _quad_gauss(_DSQ[phi], fixed_point_q(sigma_w, sigma_b, phi))


def correlation_depth(sigma_w, sigma_b, phi):
    x = np.log(chi1(sigma_w, sigma_b, phi))
    return np.inf if x == 0 else 1 / np.abs(x)


def critical_sigma_w(sigma_b, phi):
    if phi == "relu":
        return 2.0
    lo = 1.0 if phi == "tanh" else np.pi / 4
    if sigma_b == 0:
        return lo
    hi = 8.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if chi1(mid, sigma_b, phi) < 1 else (lo, mid)
    return (lo + hi) / 2
