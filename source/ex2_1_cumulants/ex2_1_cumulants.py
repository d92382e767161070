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
# # ex2_1_cumulants: Partition functions, sources, and cumulants
#
# *Notes: Section 2.3 and Exercise 2.1.*
#
# **Setup.** A Boltzmann distribution $p_\beta(\theta)=e^{-\beta E(\theta)}/Z$ over one real
# parameter $\theta$, an observable $\mathcal O(\theta)$, and the *sourced* partition function
# and free energy
# $$
# Z(\beta,J)=\int d\theta\;e^{-\beta E(\theta)+J\,\mathcal O(\theta)},\qquad
# F(\beta,J)=-\log Z(\beta,J). \tag{2.13}
# $$
# All expectations $\mathbb E(\cdot)$ are in $p_\beta$, i.e. at $J=0$. Differentiating under
# the integral sign,
# $$
# -\partial_JF=\frac{\int d\theta\,\mathcal O\,e^{-\beta E+J\mathcal O}}{Z}=\mathbb E_J(\mathcal O),
# \qquad
# -\partial_J^2F=\mathbb E_J(\mathcal O^2)-\mathbb E_J(\mathcal O)^2=\mathrm{Var}_J(\mathcal O), \tag{2.14}
# $$
# where $\mathbb E_J$ is the expectation in the *tilted* distribution
# $p_{\beta,J}\propto e^{-\beta E+J\mathcal O}$, and in general the $p$-th derivative at
# $J=0$ defines the $p$-th **cumulant**,
# $$
# \kappa_p(\mathcal O)=-\frac{\partial^pF}{\partial J^p}\bigg|_{J=0}. \tag{2.15}
# $$
# So $-F(J)+F(0)=\log\mathbb E\big(e^{J\mathcal O}\big)=\sum_{p\ge1}\kappa_p\,J^p/p!$ is the
# cumulant generating function. If the only observable is the energy, $\beta$ itself is the
# source (with a minus sign), and
# $$
# \mathbb E(E)=\partial_\beta F,\qquad \mathrm{Var}(E)=-\partial_\beta^2F . \tag{2.16}
# $$
#
# **Numerical conventions (all graded functions).** Functions of $\theta$ are given by their
# values on a grid: `grid` is a strictly increasing 1-d array $\theta_0<\dots<\theta_{G-1}$
# (not necessarily uniform), and `energy`, `observable` are arrays of the same shape holding
# $E(\theta_g)$ and $\mathcal O(\theta_g)$ (a callable, evaluated on the grid, is accepted too).
# Integrals over $\theta$ are approximated by a quadrature rule on the grid (the trapezoidal
# rule is the reference; any rule of similar or better accuracy is fine). The grid is assumed
# to cover the region where $e^{-\beta E}$ is not negligible. `log` is the natural logarithm.
#
# **What you implement** (graded, hidden tests):
#
# | part | function |
# |---|---|
# | (a) | `free_energy(energy, observable, beta, J, grid)` |
# | (a), (b) | `cumulants_from_free_energy(energy, observable, beta, grid, order)` |
# | (b) | `kappa3_from_moments(m1, m2, m3)` |
# | (c) | `kappa4_from_moments(m1, m2, m3, m4)` |
#
# Derivations are written answers, graded by hand.

# %% tags=["setup"]
import numpy as np
from scipy import special

# %% tags=["params"]
def draw_params(rng):
    """This year's anharmonic energy E = t^2/2 + g3 t^3/3 + g4 t^4/4 (a single well) and beta."""
    g4 = round(float(rng.uniform(0.15, 0.8)), 2)
    g3 = round(float(rng.uniform(0.3, 0.7) * rng.choice([-1, 1]) * 2 * g4**0.5), 2)   # g3^2 < 4 g4
    return {"g3": g3, "g4": g4, "beta": round(float(rng.uniform(0.6, 2.0)), 2)}


# %% tags=["reference"]
def _on_grid(f, grid):
    """Values of f on the grid: f itself (an array of the grid's shape) or f(grid) if callable."""
    values = f(grid) if callable(f) else f
    values = np.asarray(values, dtype=float)
    if values.shape != grid.shape:
        values = np.broadcast_to(values, grid.shape).astype(float)
    return values


def _trapezoid_weights(grid):
    """Weights w_g with sum_g w_g f(theta_g) = trapezoidal rule on a (non-uniform) grid."""
    dx = np.diff(grid)
    w = np.zeros_like(grid)
    w[:-1] += dx / 2
    w[1:] += dx / 2
    return w


def _cumulants_from_central_moments(mean, mu):
    """[kappa_1, ..., kappa_p] from the mean and central moments mu[k] = E[(O - mean)^k], k = 0..p.

    kappa_n = mu_n - sum_{m=2}^{n-2} binom(n-1, m-1) kappa_m mu_{n-m}   (the raw-moment
    recursion with mu_1 = 0, kappa_1 = 0 for the centred variable).
    """
    p = len(mu) - 1
    kappa = [mean] + [0.0] * (p - 1)
    for n in range(2, p + 1):
        kappa[n - 1] = mu[n] - sum(special.comb(n - 1, m - 1, exact=True) * kappa[m - 1] * mu[n - m]
                                   for m in range(2, n - 1))
    return np.array(kappa[:p], dtype=float)


# %% [markdown]
# ## (a) The free energy, and the first two cumulants
#
# **Task 1.** Implement `free_energy`. For $J$ an array, return $F$ at every $J$. Two things
# to watch:
#
# * *Underflow/overflow.* $F$ is extensive: energies of a few hundred in units of $1/\beta$
#   are ordinary, and $e^{-\beta E}$ underflows to $0$ once $\beta E\gtrsim745$ (overflows to
#   `inf` once $\beta E\lesssim-710$). Pull out the largest exponent before exponentiating,
#   $\log\sum_gw_ge^{x_g}=x_{\max}+\log\sum_gw_ge^{x_g-x_{\max}}$
#   (`scipy.special.logsumexp(x, b=w)` does it). Note that $F(E+c)=F(E)+\beta c$ exactly.
# * *The grid may be non-uniform:* use the spacings of `grid`.
#
# **Task 2.** Implement `cumulants_from_free_energy`, returning
# $[\kappa_1,\dots,\kappa_{\rm order}]$ *to quadrature accuracy*, i.e. the exact derivatives
# of $-F$ and not a finite-difference estimate. The trick: derivatives of $\log Z$ in $J$ are
# polynomials in the moments $\mathbb E(\mathcal O^k)$, and moments are integrals, so compute the
# moments by the same quadrature (in the normalized distribution $p_\beta$ on the grid) and
# convert them to cumulants. For accuracy, compute the *central* moments
# $\mu_k=\mathbb E[(\mathcal O-\mathbb E\mathcal O)^k]$ first (raw moments of an observable with a large
# mean cancel catastrophically), and use the recursion for the centred variable
# $$
# \kappa_1=\mathbb E\mathcal O,\qquad
# \kappa_n=\mu_n-\sum_{m=2}^{n-2}\binom{n-1}{m-1}\kappa_m\,\mu_{n-m}\quad(n\ge2),
# $$
# (prove it if you like: with $M(J)=\mathbb E\,e^{J\mathcal O}$ and $K=\log M$, differentiate
# $M'=K'M$ $n-1$ times with Leibniz' rule and set $J=0$; for the centred variable $\mu_1=\kappa_1=0$).
# *Why not finite differences of $F$?* A $p$-th difference with step $h$ has a truncation
# error $\propto h^2$ and a round-off error $\propto\epsilon_{\rm mach}|F|/h^p$; for $p=4$ the
# best compromise leaves only 3-4 correct digits, and beyond that nothing. The figure after
# part (c) shows this.

# %% tags=["graded"]
def free_energy(energy, observable, beta, J, grid):
    """Sourced free energy F(beta, J) = -log Z, Z = int dtheta exp(-beta E + J O) (notes, eq. 2.13).

    Args:
        energy: np.ndarray of shape (G,), the values E(theta_g) on the grid (or a callable
            E(theta), evaluated on the grid).
        observable: np.ndarray of shape (G,), the values O(theta_g) (or a callable).
        beta: float > 0, inverse temperature.
        J: float, or 1-d np.ndarray of sources.
        grid: np.ndarray of shape (G,), strictly increasing (not necessarily uniform).
    Returns:
        float if J is a float, else np.ndarray of the shape of J: F = -log Z (natural log),
        with the integral computed by a quadrature rule on the grid (trapezoidal in the
        reference). Must stay accurate when beta*E is large (hundreds or thousands) or
        large and negative: no under/overflow. F(E + c) = F(E) + beta c.
        Each source J[i] is its own integral: with an array of sources, shift each one's
        exponent by its own maximum (a shift shared by all sources underflows to F = +inf for
        those whose exponents lie hundreds below the largest). F(O + c) = F(O) - J c.
    """
    grid = np.asarray(grid, dtype=float)
    E, O = _on_grid(energy, grid), _on_grid(observable, grid)
    w = _trapezoid_weights(grid)
    Js = np.asarray(J, dtype=float)
    exponent = -beta * E[None, :] + Js.reshape(-1, 1) * O[None, :]      # (number of J, G)
    F = -special.logsumexp(exponent, b=w[None, :], axis=1)
    return float(F[0]) if Js.ndim == 0 else F.reshape(Js.shape)


# %% tags=["graded"]
def cumulants_from_free_energy(energy, observable, beta, grid, order):
    """Cumulants kappa_p = -d^p F / dJ^p at J = 0, p = 1..order (notes, eq. 2.15, Ex 2.1).

    Exact derivatives (to quadrature accuracy), not finite differences: the moments of O
    in p_beta(theta) = exp(-beta E)/Z are computed by quadrature on the grid (central
    moments about the mean), then converted to cumulants.

    Args:
        energy, observable, grid: as in free_energy (arrays of shape (G,)).
        beta: float > 0.
        order: int >= 1, the highest cumulant wanted.
    Returns:
        np.ndarray of shape (order,): [kappa_1, ..., kappa_order] = [mean, variance,
        third central moment, kappa_4, ...] of O under p_beta.
    """
    grid = np.asarray(grid, dtype=float)
    E, O = _on_grid(energy, grid), _on_grid(observable, grid)
    logp = -beta * E + np.log(_trapezoid_weights(grid))
    p = np.exp(logp - logp.max())
    p /= p.sum()
    mean = p @ O
    d = O - mean
    mu = [1.0, 0.0] + [p @ d**k for k in range(2, order + 1)]
    return _cumulants_from_central_moments(mean, mu)


# %% tags=["check"]
@check
def check_free_energy_gaussian():
    "E = t^2/2, O = t: F(J) = -log sqrt(2 pi/beta) - J^2/(2 beta), also at an array of J"
    t = np.linspace(-12, 12, 2001)
    beta = 1.7
    J = np.array([-1.0, 0.0, 0.5, 2.0])
    F = np.asarray(free_energy(t**2 / 2, t, beta, J, t))
    assert F.shape == J.shape, "F should have the shape of J"
    assert np.allclose(F, -0.5 * np.log(2 * np.pi / beta) - J**2 / (2 * beta), atol=1e-9)
    assert np.ndim(free_energy(t**2 / 2, t, beta, 0.3, t)) == 0, "a float J should give one number"
    u = np.linspace(-1, 1, 4001)
    s = 12 * np.sinh(3 * u) / np.sinh(3)               # a non-uniform grid, dense in the middle
    assert np.allclose(free_energy(s**2 / 2, s, beta, J, s), -0.5 * np.log(2 * np.pi / beta) - J**2 / (2 * beta),
                       atol=1e-6), "on a non-uniform grid, integrate with each interval's own width"
    k = np.asarray(cumulants_from_free_energy(t**2 / 2, t, beta, t, 4))
    assert np.allclose(k, [0.0, 1 / beta, 0.0, 0.0], atol=1e-8), \
        "a Gaussian O has kappa_1 = 0, kappa_2 = 1/beta and no cumulants beyond the second"


@check
def check_free_energy_offset():
    "F(E + c) = F(E) + beta c, even for huge c (no underflow)"
    t = np.linspace(-6, 6, 801)
    E = t**4 / 4 - t**2
    for c in [0.0, 900.0, -900.0]:
        assert np.isclose(free_energy(E + c, np.sin(t), 2.0, 0.4, t),
                          free_energy(E, np.sin(t), 2.0, 0.4, t) + 2.0 * c, rtol=1e-12, atol=1e-9), \
            f"offset c = {c} changes F by more than beta c (under/overflow?)"


@check
def check_free_energy_each_source():
    "each source is its own integral: O + c shifts F by -J c, also for sources whose exponents lie 2000 apart"
    t = np.linspace(-6, 6, 801)
    E = t**4 / 4 - t**2
    J = np.array([-1.0, 0.0, 1.0])
    F = np.asarray(free_energy(E, np.sin(t) + 1000.0, 2.0, J, t))
    want = np.array([free_energy(E, np.sin(t), 2.0, j, t) for j in J]) - 1000.0 * J
    assert np.all(np.isfinite(F)), "F should be finite at every source: one log-sum-exp shift per source"
    assert np.allclose(F, want, rtol=1e-12, atol=1e-9), "F(O + c) should be F(O) - J c at every source"


@check
def check_cumulants_are_derivatives():
    "kappa_1 and kappa_2 agree with central differences of -F in J"
    t = np.linspace(-5, 5, 1001)
    E, O, beta = t**4 / 4 + t**3 / 3 + t**2 / 2, np.cos(t) + t, 1.3
    k = np.asarray(cumulants_from_free_energy(E, O, beta, t, 4))
    assert k.shape == (4,), "order=4 should give 4 cumulants"
    h = 1e-4
    Fm, F0, Fp = (free_energy(E, O, beta, j, t) for j in (-h, 0.0, h))
    assert np.isclose(k[0], -(Fp - Fm) / (2 * h), rtol=1e-6), "kappa_1 is not -dF/dJ"
    assert np.isclose(k[1], -(Fp - 2 * F0 + Fm) / h**2, rtol=1e-4), "kappa_2 is not -d^2F/dJ^2"


# %% [markdown]
# **(a), written.** Show that $\mathbb E(\mathcal O)=-\partial_JF|_{J=0}$ and
# $\mathrm{Var}(\mathcal O)=-\partial_J^2F|_{J=0}$.

# %% [markdown] tags=["answer"] points=2
# *Model answer.* $\partial_JZ=\int d\theta\,\mathcal O\,e^{-\beta E+J\mathcal O}$, so
# $-\partial_JF=\partial_J\log Z=\partial_JZ/Z=\mathbb E_J(\mathcal O)$, which at $J=0$ is $\mathbb E(\mathcal O)$.
# Differentiating once more,
# $-\partial_J^2F=\frac{\partial_J^2Z}{Z}-\Big(\frac{\partial_JZ}{Z}\Big)^2=\mathbb E_J(\mathcal O^2)-\mathbb E_J(\mathcal O)^2$,
# the variance in the tilted distribution, $\mathrm{Var}(\mathcal O)$ at $J=0$. (Differentiation
# under the integral is legitimate when $e^{-\beta E}$ decays fast enough that
# $\int|\mathcal O|^ke^{-\beta E+J\mathcal O}<\infty$ near $J=0$.) In particular
# $-\partial_J^2F\ge0$: $-F$ is convex in $J$.
#
# *Rubric (2 pts):* 1 for each derivative, with the normalization $Z$ differentiated correctly.

# %% [markdown]
# ## (b) The third cumulant
#
# Continuing, $-\partial_J^3F=\partial_J\big[\mathbb E_J(\mathcal O^2)-\mathbb E_J(\mathcal O)^2\big]$ with
# $\partial_J\mathbb E_J(\mathcal O^k)=\mathbb E_J(\mathcal O^{k+1})-\mathbb E_J(\mathcal O^k)\mathbb E_J(\mathcal O)$ gives
# $$
# \kappa_3=\mathbb E(\mathcal O^3)-3\,\mathbb E(\mathcal O^2)\,\mathbb E(\mathcal O)+2\,\mathbb E(\mathcal O)^3
# =\mathbb E\big[(\mathcal O-\mathbb E\mathcal O)^3\big].
# $$
#
# **Task.** Implement `kappa3_from_moments(m1, m2, m3)` with $m_k=\mathbb E(\mathcal O^k)$ the
# *raw* moments. It must work elementwise on arrays of moments (numpy broadcasting).

# %% tags=["graded"]
def kappa3_from_moments(m1, m2, m3):
    """Third cumulant from the raw moments m_k = E(O^k) (notes, Ex 2.1(b)).

    kappa_3 = m3 - 3 m2 m1 + 2 m1^3  (= the third central moment).

    Args:
        m1, m2, m3: floats or np.ndarrays (broadcast against each other), raw moments.
    Returns:
        float or np.ndarray of the broadcast shape.
    """
    m1, m2, m3 = (np.asarray(m, dtype=float) for m in (m1, m2, m3))
    return m3 - 3.0 * m2 * m1 + 2.0 * m1**3


# %% [markdown]
# ## (c) Gaussians, and the fourth cumulant
#
# For a Gaussian $\mathcal O\sim\mathcal N(\mu,\sigma^2)$,
# $\log\mathbb E\,e^{J\mathcal O}=\mu J+\frac12\sigma^2J^2$ *exactly*: $\kappa_1=\mu$,
# $\kappa_2=\sigma^2$ and $\kappa_p=0$ for all $p\ge3$. The fourth cumulant, in raw moments and
# in central moments $\mu_k$,
# $$
# \kappa_4=m_4-4m_3m_1-3m_2^2+12m_2m_1^2-6m_1^4=\mu_4-3\mu_2^2 ,
# $$
# is **not** the fourth central moment $\mu_4$: it is what is left of $\mu_4$ after subtracting
# the Gaussian (Wick) value $3\mu_2^2$.
#
# **Task.** Implement `kappa4_from_moments(m1, m2, m3, m4)` (raw moments, elementwise).

# %% tags=["graded"]
def kappa4_from_moments(m1, m2, m3, m4):
    """Fourth cumulant from the raw moments m_k = E(O^k) (notes, Ex 2.1(c)).

    kappa_4 = m4 - 4 m3 m1 - 3 m2^2 + 12 m2 m1^2 - 6 m1^4 = mu_4 - 3 mu_2^2 (central
    moments mu_k); it vanishes for a Gaussian and is NOT the fourth central moment mu_4.

    Args:
        m1, m2, m3, m4: floats or np.ndarrays (broadcast against each other), raw moments.
    Returns:
        float or np.ndarray of the broadcast shape.
    """
    m1, m2, m3, m4 = (np.asarray(m, dtype=float) for m in (m1, m2, m3, m4))
    return m4 - 4.0 * m3 * m1 - 3.0 * m2**2 + 12.0 * m2 * m1**2 - 6.0 * m1**4


# %% tags=["check"]
@check
def check_gaussian_moments_give_zero():
    "raw moments of N(mu, s^2) give kappa_3 = kappa_4 = 0"
    mu, s2 = np.array([0.0, 1.5, -3.0]), np.array([1.0, 0.25, 4.0])
    m1, m2 = mu, mu**2 + s2
    m3, m4 = mu**3 + 3 * mu * s2, mu**4 + 6 * mu**2 * s2 + 3 * s2**2
    assert np.allclose(kappa3_from_moments(m1, m2, m3), 0.0, atol=1e-10)
    assert np.allclose(kappa4_from_moments(m1, m2, m3, m4), 0.0, atol=1e-10)


@check
def check_cumulants_shift_invariant():
    "kappa_3 and kappa_4 do not change when O is shifted by a constant"
    x = np.random.default_rng(3).exponential(size=2000)
    for c in [0.0, 2.5]:
        m = [np.mean((x + c) ** k) for k in range(1, 5)]
        assert np.isclose(kappa3_from_moments(*m[:3]), np.mean((x - x.mean()) ** 3), rtol=1e-8)
        k4 = kappa4_from_moments(*m)
        assert np.isclose(k4, np.mean((x - x.mean()) ** 4) - 3 * np.var(x) ** 2, rtol=1e-8)


# %% [markdown]
# **(b), (c), written.** (b) Derive $\kappa_3$ in terms of the moments and show it equals the
# third central moment. (c) Show that $\log Z(J)$ is exactly quadratic for a Gaussian
# $\mathcal O$; compute $\kappa_4$ in central moments and explain in one sentence why it is not
# $\mu_4$. Why can't $\kappa_4$ be "the fourth central moment" for *every* distribution?

# %% [markdown] tags=["answer"] points=3
# *Model answer.* (b) With $\partial_J\mathbb E_J(\mathcal O^k)=\mathbb E_J(\mathcal O^{k+1})-\mathbb E_J(\mathcal O^k)\mathbb E_J(\mathcal O)$,
# $-\partial_J^3F=\partial_J(m_2-m_1^2)=(m_3-m_2m_1)-2m_1(m_2-m_1^2)=m_3-3m_2m_1+2m_1^3$.
# Expanding $\mathbb E(\mathcal O-m_1)^3=m_3-3m_1m_2+3m_1^2m_1-m_1^3=m_3-3m_1m_2+2m_1^3$: the same.
#
# (c) If $\mathcal O\sim\mathcal N(\mu,\sigma^2)$ under $p_\beta$, then
# $Z(J)/Z(0)=\mathbb E\,e^{J\mathcal O}=\int\frac{dx}{\sqrt{2\pi\sigma^2}}e^{-(x-\mu)^2/2\sigma^2+Jx}
# =e^{\mu J+\sigma^2J^2/2}$ (complete the square), so $-F(J)+F(0)=\mu J+\frac12\sigma^2J^2$ is a
# polynomial of degree 2 and every derivative of order $\ge3$ vanishes. One more derivative of
# $\kappa_3=\mathbb E_J(\mathcal O-m_1)^3$ gives $\kappa_4=\mu_4-3\mu_2^2$ (in raw moments as above).
# For a Gaussian, $\mu_4=3\sigma^4\neq0$ while $\kappa_4=0$: the fourth central moment is
# *determined* by the variance in the Gaussian (Wick) pattern, and $\kappa_4$ measures only the
# departure from it. $\kappa_4$ cannot be $\mu_4$ in general, since $\mu_4>0$ for every
# non-degenerate distribution while $\kappa_4$ can have either sign (uniform: $\kappa_4=-\frac{1}{120}$
# on $[0,1]$); cumulants of independent sums add, central moments of order $\ge4$ do not.
#
# *Rubric (3 pts):* 1 for (b) with both forms; 1 for the completed square in (c); 1 for
# $\kappa_4=\mu_4-3\mu_2^2$ with the Wick/independence explanation.

# %% [markdown]
# ## (d) The energy as its own observable
#
# The public check below verifies (2.16) numerically with your two functions: $\partial_\beta F$
# by a central difference against $\kappa_1$ of the observable $E$ itself.

# %% tags=["check"]
@check
def check_energy_cumulants():
    "(2.16): E(E) = dF/dbeta and Var(E) = -d^2F/dbeta^2, with the energy as the observable"
    t = np.linspace(-4, 4, 1601)
    E = t**4 / 4 - 0.3 * t**3 + t**2 / 2
    beta, h = 1.2, 1e-4
    F = [free_energy(E, t, b, 0.0, t) for b in (beta - h, beta, beta + h)]
    k1, k2 = np.asarray(cumulants_from_free_energy(E, E, beta, t, 2))
    assert np.isclose((F[2] - F[0]) / (2 * h), k1, rtol=1e-6), "E(E) should be dF/dbeta"
    assert np.isclose(-(F[2] - 2 * F[1] + F[0]) / h**2, k2, rtol=1e-4), "Var(E) should be -d2F/dbeta2"


# %% [markdown]
# **(d), written.** Verify (2.16), $\mathbb E(E)=\partial_\beta F$ and $\mathrm{Var}(E)=-\partial_\beta^2F$,
# and give the general formula for the cumulants of $E$ as derivatives of $F$ in $\beta$. What
# does the sign of $\partial_\beta^2F$ say about the heat capacity?

# %% [markdown] tags=["answer"] points=1
# *Model answer.* $F(\beta)=-\log\int d\theta\,e^{-\beta E}$, so
# $\partial_\beta F=\frac{\int E\,e^{-\beta E}}{Z}=\mathbb E(E)$ and
# $\partial_\beta^2F=\partial_\beta\mathbb E(E)=-\mathbb E(E^2)+\mathbb E(E)^2=-\mathrm{Var}(E)$. In
# general $-\beta$ plays the role of the source $J$ for $\mathcal O=E$: $Z(\beta+\delta)=Z(\beta,J{=}-\delta)$
# with $\mathcal O=E$, so $\kappa_p(E)=(-1)^p\partial_\beta^p\log Z=(-1)^{p+1}\partial_\beta^pF$.
# $\mathrm{Var}(E)=-\partial^2_\beta F\ge0$ is (up to $\beta^2$) the heat capacity, which is
# why a heat capacity can never be negative in equilibrium.
#
# *Rubric (1 pt):* both identities with signs right (general formula a bonus).

# %% [markdown]
# ## Figures: the generating function, and why not finite differences
#
# Left: $p_\beta(\theta)$ for this year's anharmonic energy
# $E(\theta)=\frac{\theta^2}2+\frac{g_3}3\theta^3+\frac{g_4}4\theta^4$, with the density of
# $\mathcal O=\theta$ against the Gaussian of the same mean and variance. Middle: the cumulant
# generating function $-F(J)+F(0)$ of $\mathcal O=\theta$ and its Taylor polynomials
# $\sum_{p\le P}\kappa_pJ^p/p!$ for $P=1,\dots,4$. Right: the error of finite-difference
# estimates of $\kappa_2$ and $\kappa_4$ from `free_energy` as a function of the step $h$:
# truncation error $\propto h^2$ on the right, round-off $\propto h^{-p}$ on the left.

# %% tags=["figure"]
import matplotlib.pyplot as plt   # (imported here: the grader skips figure cells)

g3, g4, beta0 = PARAMS["g3"], PARAMS["g4"], PARAMS["beta"]
t = np.linspace(-9, 9, 3601)
E0 = t**2 / 2 + g3 * t**3 / 3 + g4 * t**4 / 4
kap = np.asarray(cumulants_from_free_energy(E0, t, beta0, t, 6))
fig, axes = plt.subplots(1, 3, figsize=(16, 4.3))
F00 = free_energy(E0, t, beta0, 0.0, t)
p = np.exp(-beta0 * E0 + F00)                          # e^{-beta E} / Z, with Z = e^{-F}
axes[0].plot(t, p, label=r"$p_\beta(\theta)$")
axes[0].plot(t, np.exp(-(t - kap[0]) ** 2 / (2 * kap[1])) / np.sqrt(2 * np.pi * kap[1]), "--",
             label=r"Gaussian, same $\kappa_1,\kappa_2$")
axes[0].set(xlim=(kap[0] - 5 * np.sqrt(kap[1]), kap[0] + 5 * np.sqrt(kap[1])), xlabel=r"$\theta$",
            title=rf"$g_3={g3}$, $g_4={g4}$, $\beta={beta0}$: $\kappa_3={kap[2]:.3f}$, $\kappa_4={kap[3]:.3f}$")
axes[0].legend(fontsize=8)
Js = np.linspace(-2.0, 2.0, 201) / np.sqrt(kap[1])
cgf = F00 - np.asarray(free_energy(E0, t, beta0, Js, t))
axes[1].plot(Js, cgf, "k", lw=2, label=r"$-F(J)+F(0)$")
series = np.zeros_like(Js)
for P in range(1, 5):
    series = series + kap[P - 1] * Js**P / special.factorial(P)
    axes[1].plot(Js, series, "--", label=f"cumulants up to order {P}")
axes[1].set(xlabel="$J$", ylim=(cgf.min() - 0.5, cgf.max() + 0.5), title="cumulant generating function")
axes[1].legend(fontsize=8)
hs = np.logspace(-5, 0, 41) / np.sqrt(kap[1])
F_at = lambda j: free_energy(E0, t, beta0, j, t)
err2, err4 = [], []
for h in hs:
    f = np.asarray(F_at(np.array([-2 * h, -h, 0.0, h, 2 * h])))
    err2.append(abs(-(f[3] - 2 * f[2] + f[1]) / h**2 - kap[1]) / kap[1])
    err4.append(abs(-(f[4] - 4 * f[3] + 6 * f[2] - 4 * f[1] + f[0]) / h**4 - kap[3]) / abs(kap[3]))
axes[2].loglog(hs, err2, "o-", ms=3, label=r"$\kappa_2$, 3-point difference")
axes[2].loglog(hs, err4, "s-", ms=3, label=r"$\kappa_4$, 5-point difference")
axes[2].set(xlabel="step $h$", ylabel="relative error", ylim=(1e-12, 1e3),
            title="finite differences of $F$: few digits at best for $p=4$")
axes[2].legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% tags=["solution"]
# Independent checks. (i) `free_energy` against adaptive quadrature
# (`scipy.integrate.quad`, no grid) for this year's energy at several $J$, and against the
# closed form for a Gaussian; (ii) the cumulants against a *contour integral*: $\log Z(J)$ is
# analytic in $J$, so $\kappa_p=\frac{p!}{2\pi i}\oint\frac{-F(J)}{J^{p+1}}dJ$, evaluated by the
# trapezoidal rule on a circle in the complex $J$-plane (an FFT), which uses no moments at all;
# (iii) the cumulants against $k$-statistics (`scipy.stats.kstat`) of $4\times10^6$ *exact*
# samples of $p_\beta$ drawn by rejection from a Gaussian proposal (no grid), with standard
# errors from batches; (iv) `kappa3_from_moments` and `kappa4_from_moments` against
# distributions with known cumulants (exponential: $(p-1)!$; Poisson: $\lambda$; uniform on
# $[0,1]$: $\kappa_4=-\frac1{120}$) and against `kstat` on data.
from scipy import integrate, stats

# (i) free energy vs adaptive quadrature
E_fun = lambda x: x**2 / 2 + g3 * x**3 / 3 + g4 * x**4 / 4
worst = 0.0
for J in [-1.0, 0.0, 0.7, 1.5]:
    val, _ = integrate.quad(lambda x: np.exp(-beta0 * E_fun(x) + J * x), -np.inf, np.inf, epsabs=0, epsrel=1e-13)
    worst = max(worst, abs(-np.log(val) - free_energy(E0, t, beta0, J, t)))
assert worst < 1e-10
print("(i)   free_energy vs scipy.integrate.quad at 4 sources: max |dF| < 1e-10")   # a bound: round-off is machine-dependent
tg = np.linspace(-15, 15, 3001)
Fg = np.asarray(free_energy(0.5 * 2.0 * (tg - 0.3) ** 2, tg, 0.8, np.array([0.0, 1.0]), tg))
assert np.allclose(Fg, -0.5 * np.log(2 * np.pi / 1.6) - 0.3 * np.array([0.0, 1.0]) - np.array([0.0, 1.0]) / 3.2, atol=1e-12)

# (ii) cumulants by a Cauchy integral of log Z on a circle |J| = r in the complex plane
def log_Z_complex(J, E, O, beta, grid):
    w = _trapezoid_weights(grid)
    x = -beta * E[None, :] + np.outer(J, O)
    shift = np.max(x.real, axis=1, keepdims=True)
    return (shift[:, 0] + np.log(np.sum(w * np.exp(x - shift), axis=1)))


def cumulants_by_contour(E, O, beta, grid, order, M=128):
    """kappa_p = p! [J^p] log Z(J), Taylor coefficients from an FFT of log Z on |J| = r."""
    k1, k2 = cumulants_from_free_energy(E, O, beta, grid, 2)
    Oc = O - k1                               # centred: log Z(J) stays near 0 on the circle, no branch jumps
    r = 0.25 / np.sqrt(k2)                    # well inside the disc where Z(J) has no zeros
    J = r * np.exp(2j * np.pi * np.arange(M) / M)
    L = log_Z_complex(J, E, Oc, beta, grid) - log_Z_complex(np.array([0.0]), E, Oc, beta, grid)
    c = np.fft.fft(L) / M                     # Taylor coefficients c_p r^p
    p = np.arange(1, order + 1)
    kappa = (c[1:order + 1] / r**p * special.factorial(p)).real
    kappa[0] += k1
    return kappa


rng_s = np.random.default_rng(1)
worst = 0.0
for trial in range(6):
    c = rng_s.uniform(-1, 1, 5) * [0, 1, 1, 1, 0] + [0, 0, 1.5, 0, 0.3]
    Etr = np.polynomial.polynomial.polyval(t, c)
    Otr = [t, np.sin(2 * t) + t**2 / 4, t**3 / 5][trial % 3]
    bt = rng_s.uniform(0.5, 2.0)
    k_mom = cumulants_from_free_energy(Etr, Otr, bt, t, 6)
    k_con = cumulants_by_contour(Etr, Otr, bt, t, 6)
    scale = k_mom[1] ** (np.arange(1, 7) / 2)
    worst = max(worst, np.max(np.abs(k_mom - k_con) / scale))
assert worst < 1e-9
print("(ii)  cumulants (moments) vs contour integral of log Z, orders 1-6, 6 random problems: "
      "max |diff|/kappa_2^(p/2) < 1e-9")

# (iii) exact samples by rejection from a Gaussian proposal, k-statistics with batch errors
# the single well has its minimum at theta = 0 with E''(0) = 1 (g3^2 < 4 g4); proposal N(0, sig_q^2)
sig_q = 1.3 / np.sqrt(beta0)
# log target - log proposal is bounded above; its maximum on the fine grid, plus a safety margin
Mlog = np.max(-beta0 * E0 + t**2 / (2 * sig_q**2)) + 1e-3
samples = []
while sum(len(s_) for s_ in samples) < 4_000_000:
    x = rng_s.normal(0.0, sig_q, 2_000_000)
    u = rng_s.random(x.size)
    samples.append(x[np.log(u) < -beta0 * E_fun(x) + x**2 / (2 * sig_q**2) - Mlog - 1e-12])
x = np.concatenate(samples)[:4_000_000]
batches = x.reshape(40, -1)
k_exact = cumulants_from_free_energy(E0, t, beta0, t, 4)
for p_ in range(1, 5):
    kb = np.array([stats.kstat(b, p_) for b in batches])
    z = (kb.mean() - k_exact[p_ - 1]) / (kb.std(ddof=1) / np.sqrt(len(kb)))
    print(f"(iii) kappa_{p_}: quadrature {k_exact[p_ - 1]:+.5f}, k-statistic of 4e6 exact samples "
          f"{kb.mean():+.5f} +- {kb.std(ddof=1) / np.sqrt(len(kb)):.5f}  (z = {z:+.2f})")
    assert abs(z) < 4.5

# (iv) known distributions and kstat on data
lam = 2.7
raw_exp = [special.factorial(k) for k in range(1, 5)]             # Exp(1): E x^k = k!
raw_poi = [stats.poisson(lam).moment(k) for k in range(1, 5)]
raw_uni = [1 / (k + 1) for k in range(1, 5)]
assert np.isclose(kappa3_from_moments(*raw_exp[:3]), 2.0) and np.isclose(kappa4_from_moments(*raw_exp), 6.0)
assert np.isclose(kappa3_from_moments(*raw_poi[:3]), lam) and np.isclose(kappa4_from_moments(*raw_poi), lam)
assert np.isclose(kappa3_from_moments(*raw_uni[:3]), 0.0, atol=1e-15)
assert np.isclose(kappa4_from_moments(*raw_uni), -1 / 120)
data = rng_s.gamma(2.0, size=200_000) + 3.0
m = [np.mean(data**k) for k in range(1, 5)]
n = data.size
rel3 = kappa3_from_moments(*m[:3]) * n**2 / ((n - 1) * (n - 2)) / stats.kstat(data, 3) - 1
mc = [np.mean((data - data.mean()) ** k) for k in (2, 4)]
k4_unbiased = n**2 * ((n + 1) * mc[1] - 3 * (n - 1) * mc[0] ** 2) / ((n - 1) * (n - 2) * (n - 3))
rel4 = k4_unbiased / stats.kstat(data, 4) - 1
rel4_plugin = kappa4_from_moments(*m) / stats.kstat(data, 4) - 1
assert abs(rel3) < 1e-9 and abs(rel4) < 1e-9 and abs(rel4_plugin) < 1e-3
print(f"(iv)  known cumulants reproduced; on 2e5 gamma samples: kappa_3 (bias-corrected) vs kstat < 1e-9, "
      f"kappa_4 plug-in vs kstat {rel4_plugin:.1e} (O(1/n) bias), unbiased formula < 1e-9")

# %% tags=["tests"]
from scipy import stats


def _poly_problem(rng, G=2001):
    """A random single- or double-well polynomial energy of degree 4 or 6 on a uniform grid."""
    deg = int(rng.choice([4, 6]))
    c = rng.uniform(-1, 1, deg + 1)
    c[-1] = rng.uniform(0.3, 1.0)
    c[2] = rng.uniform(-0.5, 1.5)
    beta = float(rng.uniform(0.5, 3.0))
    # cover the region where beta (E - E_min) < 60 (it lies well inside the probe interval)
    probe = np.linspace(-10, 10, 8001)
    Ep = np.polynomial.polynomial.polyval(probe, c)
    inside = probe[beta * (Ep - Ep.min()) < 60]
    grid = np.linspace(inside.min() - 0.2, inside.max() + 0.2, G)
    E = np.polynomial.polynomial.polyval(grid, c)
    return E, grid, beta


def _observables(rng, grid):
    return [grid, np.sin(1.3 * grid) + 0.2 * grid**2, grid**3 - rng.uniform(-1, 1) * grid,
            np.exp(0.3 * grid)]


def _scale(E, O, beta, grid, order):
    k2 = ref.cumulants_from_free_energy(E, O, beta, grid, 2)[1]
    return k2 ** (np.arange(1, order + 1) / 2)


@pytest.mark.reference_input  # inputs computed from a reference result
@points(2)
def test_free_energy_random_polynomials(student):
    "free_energy for random polynomial energies and observables, scalar and array sources"
    rng = rng_for("free_energy_random_polynomials")
    for k in range(4):
        E, grid, beta = _poly_problem(rng)
        O = _observables(rng, grid)[k]
        s = np.sqrt(ref.cumulants_from_free_energy(E, O, beta, grid, 2)[1])
        J = rng.uniform(-1, 1, 5) / s
        assert_close(student.free_energy(E, O, beta, J, grid), ref.free_energy(E, O, beta, J, grid),
                     rtol=1e-8, atol=1e-8, name=f"F at 5 sources, problem {k + 1}")
        assert_close(student.free_energy(E, O, beta, float(J[0]), grid), ref.free_energy(E, O, beta, float(J[0]), grid),
                     rtol=1e-8, atol=1e-8, name=f"F at one source, problem {k + 1}")


@points(2)
def test_free_energy_large_energies(student):
    "free_energy when beta*E is in the thousands (positive or negative): no under/overflow"
    rng = rng_for("free_energy_large_energies")
    for offset in [float(rng.uniform(800, 5000)), -float(rng.uniform(800, 5000))]:
        E, grid, beta = _poly_problem(rng)
        E = E + offset / beta
        J = np.array([0.0, 0.3])
        assert_close(student.free_energy(E, grid, beta, J, grid), ref.free_energy(E, grid, beta, J, grid),
                     rtol=1e-9, atol=1e-8, name=f"F with beta*E offset by {offset:.0f}")


# Each source is an independent problem: one array of sources whose exponents lie far apart (the
# observable carries a constant c of 800-2000, so rows of -beta E + J O differ by up to 2 c), where one
# log-sum-exp shift shared by all the sources underflows to F = +inf. The integrands stay smooth.
@points(1)
def test_free_energy_sources_far_apart(student):
    "free_energy on one array of sources whose exponents lie thousands apart (each source its own integral)"
    rng = rng_for("free_energy_sources_far_apart")
    for _ in range(2):
        E, grid, beta = _poly_problem(rng)
        c = float(rng.choice([-1, 1]) * rng.uniform(800, 2000))
        O = c + np.sin(1.3 * grid)
        J = np.array([-1.0, -0.3, 0.0, 0.4, 1.0]) * float(rng.uniform(0.8, 1.2))
        assert_close(student.free_energy(E, O, beta, J, grid), ref.free_energy(E, O, beta, J, grid),
                     rtol=1e-9, atol=1e-8, name=f"F at sources -1..1 with O = {c:.0f} + sin(1.3 theta)")


@points(1)
def test_free_energy_nonuniform_grid(student):
    "free_energy on a non-uniform grid (denser near the minimum)"
    rng = rng_for("free_energy_nonuniform_grid")
    u = np.linspace(-1, 1, 4001)
    L = float(rng.uniform(3, 5))
    grid = L * np.sinh(2.5 * u) / np.sinh(2.5)
    c4, c2, c1 = rng.uniform(0.3, 1.0), rng.uniform(0.2, 1.0), rng.uniform(-0.5, 0.5)
    beta = float(rng.uniform(1.0, 3.0))
    E = c4 * grid**4 + c2 * grid**2 + c1 * grid
    J = np.array([-0.5, 0.0, 0.5])
    assert_close(student.free_energy(E, np.cos(grid), beta, J, grid), ref.free_energy(E, np.cos(grid), beta, J, grid),
                 rtol=1e-6, atol=1e-6, name="F on a sinh-spaced grid")


@points(3)
def test_cumulants_random_polynomials(student):
    "cumulants_from_free_energy up to order 4-6 for random polynomial energies and observables"
    rng = rng_for("cumulants_random_polynomials")
    for k in range(4):
        E, grid, beta = _poly_problem(rng)
        O = _observables(rng, grid)[k]
        order = int(rng.integers(4, 7))
        scale = _scale(E, O, beta, grid, order)
        got = np.asarray(student.cumulants_from_free_energy(E, O, beta, grid, order), dtype=float)
        assert got.shape == (order,), f"expected {order} cumulants"
        assert_close(got / scale, ref.cumulants_from_free_energy(E, O, beta, grid, order) / scale,
                     rtol=1e-5, atol=1e-6, name=f"kappa_p / kappa_2^(p/2), p = 1..{order}, problem {k + 1}")


@points(2)
def test_cumulants_nonuniform_grid_large_energy(student):
    "cumulants_from_free_energy on a non-uniform grid, with beta*E in the thousands"
    rng = rng_for("cumulants_nonuniform_grid_large_energy")
    u = np.linspace(-1, 1, 4001)
    grid = float(rng.uniform(3, 4)) * np.sinh(2.5 * u) / np.sinh(2.5)
    beta = float(rng.uniform(1.0, 2.0))
    E = rng.uniform(0.3, 1.0) * grid**4 + rng.uniform(-1.0, 1.0) * grid**2 + rng.uniform(-0.5, 0.5) * grid
    for offset in [0.0, float(rng.uniform(1000, 3000))]:
        O = np.sin(grid) + 0.5 * grid
        scale = _scale(E, O, beta, grid, 4)
        got = np.asarray(student.cumulants_from_free_energy(E + offset / beta, O, beta, grid, 4), dtype=float)
        assert_close(got / scale, ref.cumulants_from_free_energy(E, O, beta, grid, 4) / scale, rtol=1e-5, atol=1e-5,
                     name=f"kappa_p / kappa_2^(p/2) on a sinh-spaced grid, beta*E offset {offset:.0f}")


@points(1)
def test_cumulants_low_orders(student):
    "cumulants_from_free_energy with order 1 and 2"
    rng = rng_for("cumulants_low_orders")
    E, grid, beta = _poly_problem(rng)
    O = np.sin(grid) + grid
    for order in (1, 2):
        assert_close(student.cumulants_from_free_energy(E, O, beta, grid, order),
                     ref.cumulants_from_free_energy(E, O, beta, grid, order), rtol=1e-7, atol=1e-9,
                     name=f"cumulants with order={order}")


@points(2)
def test_cumulants_gaussian_vanish(student):
    "a quadratic energy and an affine observable: cumulants beyond the second vanish"
    rng = rng_for("cumulants_gaussian_vanish")
    for _ in range(2):
        k, t0, beta = rng.uniform(0.3, 3.0), rng.uniform(-2, 2), rng.uniform(0.5, 2.0)
        sd = 1 / np.sqrt(beta * k)
        grid = np.linspace(t0 - 13 * sd, t0 + 13 * sd, 3001)
        E = 0.5 * k * (grid - t0) ** 2 + rng.uniform(-5, 5)
        O = rng.uniform(0.5, 3) * rng.choice([-1, 1]) * grid + rng.uniform(-3, 3)
        got = np.asarray(student.cumulants_from_free_energy(E, O, beta, grid, 5), dtype=float)
        scale = _scale(E, O, beta, grid, 5)
        assert_close(got / scale, ref.cumulants_from_free_energy(E, O, beta, grid, 5) / scale,
                     rtol=1e-7, atol=1e-8, name="kappa_p / kappa_2^(p/2), p = 1..5 (Gaussian)")


@points(1)
def test_cumulants_large_mean(student):
    "cumulants of an observable whose mean is large compared with its spread"
    rng = rng_for("cumulants_large_mean")
    E, grid, beta = _poly_problem(rng)
    O = 200.0 + 0.05 * grid + 0.01 * np.sin(3 * grid)
    scale = _scale(E, O, beta, grid, 4)
    assert_close(np.asarray(student.cumulants_from_free_energy(E, O, beta, grid, 4), dtype=float) / scale,
                 ref.cumulants_from_free_energy(E, O, beta, grid, 4) / scale, rtol=1e-5, atol=1e-5,
                 name="kappa_p / kappa_2^(p/2) for O = 200 + small")


def _raw_moments(samples_or_dist, k):
    return [np.mean(samples_or_dist**j) for j in range(1, k + 1)]


@points(2)
def test_kappa3_from_moments(student):
    "kappa3_from_moments on exact moments of random distributions (arrays, broadcasting)"
    rng = rng_for("kappa3_from_moments")
    dists = [stats.gamma(rng.uniform(0.5, 4), loc=rng.uniform(-2, 2)),
             stats.poisson(rng.uniform(0.5, 6)), stats.beta(rng.uniform(0.5, 3), rng.uniform(0.5, 3)),
             stats.lognorm(rng.uniform(0.2, 0.8))]
    m = np.array([[d.moment(k) for d in dists] for k in (1, 2, 3)])
    assert_close(student.kappa3_from_moments(m[0], m[1], m[2]), ref.kappa3_from_moments(m[0], m[1], m[2]),
                 rtol=1e-9, atol=1e-10, name="kappa_3 of four distributions (arrays)")
    assert_close(student.kappa3_from_moments(float(m[0, 0]), float(m[1, 0]), float(m[2, 0])),
                 ref.kappa3_from_moments(m[0, 0], m[1, 0], m[2, 0]), rtol=1e-9, atol=1e-10,
                 name="kappa_3 from scalar moments")


@points(2)
def test_kappa4_from_moments(student):
    "kappa4_from_moments on exact moments of random non-Gaussian distributions"
    rng = rng_for("kappa4_from_moments")
    dists = [stats.gamma(rng.uniform(0.5, 4), loc=rng.uniform(-2, 2)),
             stats.poisson(rng.uniform(0.5, 6)), stats.uniform(rng.uniform(-1, 1), rng.uniform(0.5, 2)),
             stats.laplace(rng.uniform(-1, 1), rng.uniform(0.5, 2))]
    m = np.array([[d.moment(k) for d in dists] for k in (1, 2, 3, 4)])
    assert_close(student.kappa4_from_moments(*m), ref.kappa4_from_moments(*m), rtol=1e-8, atol=1e-10,
                 name="kappa_4 of four distributions (arrays)")


@points(1)
def test_kappa4_gaussian_zero(student):
    "kappa4_from_moments (and kappa3) of Gaussian moments vanish"
    rng = rng_for("kappa4_gaussian_zero")
    mu, s2 = rng.uniform(-2, 2, 5), rng.uniform(0.2, 3, 5)
    m = [mu, mu**2 + s2, mu**3 + 3 * mu * s2, mu**4 + 6 * mu**2 * s2 + 3 * s2**2]
    assert_close(student.kappa4_from_moments(*m), np.zeros(5), rtol=0, atol=1e-9, name="kappa_4 (Gaussian)")
    assert_close(student.kappa3_from_moments(*m[:3]), np.zeros(5), rtol=0, atol=1e-9, name="kappa_3 (Gaussian)")


# False-fail budget 1e-4 (any course seed): not a statistical test. On the same data the plug-in
# cumulants and the unbiased k-statistics differ by O(1/n) relative terms: 3/n of kappa_3 and at
# most about 7 mu_4/n + 6 mu_2^2/n for kappa_4, i.e. below 1e-4 sd^3 and 1e-3 sd^4 for these
# three distributions unless the sample kurtosis of 1e5 draws exceeds 25 (far beyond 1e-4).
@points(2)
def test_kappas_match_kstat_on_samples(student):
    "plug-in kappa_3 and kappa_4 from sample moments agree with scipy.stats.kstat (up to O(1/n))"
    rng = rng_for("kappas_match_kstat_on_samples")
    n = 100_000
    for data in [rng.exponential(rng.uniform(0.5, 2), n) + rng.uniform(-1, 1),
                 rng.gamma(rng.uniform(1, 3), size=n), rng.uniform(-1, 2, n)]:
        m = _raw_moments(data, 4)
        k3, k4 = stats.kstat(data, 3), stats.kstat(data, 4)
        sd = np.std(data)
        # the unbiased k-statistics differ from the plug-in values by O(1/n) relative terms
        assert_close(student.kappa3_from_moments(*m[:3]), k3, rtol=1e-3, atol=1e-3 * sd**3, name="kappa_3 vs kstat")
        assert_close(student.kappa4_from_moments(*m), k4, rtol=2e-3, atol=2e-3 * sd**4, name="kappa_4 vs kstat")


@points(1)
def test_free_energy_source_shapes(student):
    "free_energy: a float source (zero included) gives a float, an array of sources (one or none) an array of its shape"
    rng = rng_for("free_energy_source_shapes")
    E, grid, beta = _poly_problem(rng)
    O = np.sin(grid) + 0.5 * grid
    for J in [0.0, float(rng.uniform(0.1, 0.5))]:
        got = student.free_energy(E, O, beta, J, grid)
        assert np.ndim(got) == 0, "a float J should give one number (a float), not an array"
        assert_close(got, ref.free_energy(E, O, beta, J, grid), rtol=1e-9, atol=1e-9, name="F at one float source")
    for J in [np.zeros(1), rng.uniform(-0.5, 0.5, 1), np.zeros(0)]:
        got = np.asarray(student.free_energy(E, O, beta, J, grid), dtype=float)
        assert got.shape == J.shape, f"an array of {J.size} source(s) should give an array of shape {J.shape}"
        assert_close(got, ref.free_energy(E, O, beta, J, grid), rtol=1e-9, atol=1e-9,
                     name=f"F at an array of {J.size} source(s)")


@points(1)
def test_free_energy_callables_and_beta_range(student):
    "free_energy with callable energy and observable, at small and large beta"
    rng = rng_for("free_energy_callables_and_beta_range")
    # E = cos(theta) on one period [0, 2 pi] (minimum at pi), O = sin(theta); the grid resolves
    # the well of width 1/sqrt(beta) at the largest beta with hundreds of points
    grid = np.linspace(0.0, 2 * np.pi, 20001)
    for beta in [float(rng.uniform(0.01, 0.05)), float(rng.uniform(1.0, 3.0)), float(rng.uniform(100.0, 300.0))]:
        J = rng.uniform(-1, 1, 3) * np.sqrt(beta)
        assert_close(student.free_energy(Fn("cos"), Fn("sin"), beta, J, grid),
                     ref.free_energy(Fn("cos").resolve(), Fn("sin").resolve(), beta, J, grid),
                     rtol=1e-8, atol=1e-8, name=f"F with callable E and O, beta = {beta:.3g}")
        assert_close(student.free_energy(np.cos(grid), np.sin(grid), beta, J, grid),
                     ref.free_energy(np.cos(grid), np.sin(grid), beta, J, grid),
                     rtol=1e-8, atol=1e-8, name=f"F with arrays E and O, beta = {beta:.3g}")


@points(1)
def test_cumulants_shape_and_high_order(student):
    "cumulants_from_free_energy returns an array of `order` values, for order 1 and up to 8"
    rng = rng_for("cumulants_shape_and_high_order")
    E, grid, beta = _poly_problem(rng)
    O = grid + 0.3 * np.sin(grid)
    for order in (1, int(rng.integers(7, 9))):
        got = np.asarray(student.cumulants_from_free_energy(E, O, beta, grid, order), dtype=float)
        assert got.shape == (order,), f"order={order} should give an array of shape ({order},)"
        scale = _scale(E, O, beta, grid, order)
        assert_close(got / scale, ref.cumulants_from_free_energy(E, O, beta, grid, order) / scale,
                     rtol=1e-5, atol=1e-5, name=f"kappa_p / kappa_2^(p/2), p = 1..{order}")


@points(1)
def test_kappas_broadcast_and_float(student):
    "kappa3_from_moments and kappa4_from_moments broadcast moments of different shapes; floats give a float"
    rng = rng_for("kappas_broadcast_and_float")
    mu, s2, g = rng.uniform(-2, 2, (2, 1)), rng.uniform(0.3, 2, 3), float(rng.uniform(-1, 1))
    # the formulas are polynomials in the moments: any numbers are valid inputs
    m1, m2 = mu, mu**2 + s2
    m3, m4 = float(g), mu**4 + 6 * mu**2 * s2 + 3 * s2**2 + g
    assert_close(student.kappa3_from_moments(m1, m2, m3), ref.kappa3_from_moments(m1, m2, m3),
                 rtol=1e-9, atol=1e-10, name="kappa_3 from moments of shapes (2, 1), (3,) and a float")
    assert_close(student.kappa4_from_moments(m1, m2, m3, m4), ref.kappa4_from_moments(m1, m2, m3, m4),
                 rtol=1e-9, atol=1e-10, name="kappa_4 from moments of shapes (2, 1), (3,), a float and (2, 3)")
    f = [float(rng.uniform(-1, 1)), float(rng.uniform(1, 2)), float(rng.uniform(-1, 1)), float(rng.uniform(2, 5))]
    for got, name in [(student.kappa3_from_moments(*f[:3]), "kappa_3"), (student.kappa4_from_moments(*f), "kappa_4")]:
        assert np.ndim(got) == 0, f"{name} of float moments should be one number"
    assert_close(student.kappa4_from_moments(*f), ref.kappa4_from_moments(*f), rtol=1e-9, atol=1e-10,
                 name="kappa_4 of float moments")


# %% tags=["wrong"]
# wrong: kappa_4 taken to be the fourth central moment
# hint: κ4 is not the fourth central moment: the fourth cumulant subtracts the Gaussian (Wick) part, κ4
#   = μ4 − 3μ2², with μ2 the variance (Exercise 2.1(c), from the fourth J-derivative of −F, eq.
#   (2.15)).
def kappa4_from_moments(m1, m2, m3, m4):
    m1, m2, m3, m4 = (np.asarray(m, dtype=float) for m in (m1, m2, m3, m4))
    return m4 - 4 * m3 * m1 + 6 * m2 * m1**2 - 3 * m1**4


# %% tags=["wrong"]
# wrong: kappa_3 without the 2 m1^3 term
# hint: Take the third J-derivative of log E[e^{JO}] again: κ3 has a term in m1³ as well. Check your
#   formula on a shifted observable: κ3 must not change under O → O + c (Exercise 2.1(b)).
def kappa3_from_moments(m1, m2, m3):
    return np.asarray(m3) - 3 * np.asarray(m2) * np.asarray(m1)


# %% tags=["rewrite"]
# rewrite: the same kappa_3, written through the variance, m3 - 3 m1 (var + m1^2)
def kappa3_from_moments(m1, m2, m3):
    m1, m2, m3 = (np.asarray(m, dtype=float) for m in (m1, m2, m3))
    var = m2 - m1 * m1
    return m3 - 3 * m1 * (var + m1 * m1)


# %% tags=["wrong"]
# wrong: kappa_4 with the Wick term 3 mu_2^2 built from the raw second moment
# hint: In κ4 = μ4 − 3μ2² the Gaussian term is built from the central second moment, the variance m2 −
#   m1², not from the raw moment m2 (Exercise 2.1(c)).
def kappa4_from_moments(m1, m2, m3, m4):
    m1, m2, m3, m4 = (np.asarray(m, dtype=float) for m in (m1, m2, m3, m4))
    return m4 - 4 * m3 * m1 + 6 * m2 * m1**2 - 3 * m1**4 - 3 * m2**2


# %% tags=["wrong"]
# wrong: naive exp of -beta E (underflows when beta E is large)
# hint: At large βE the weights e^{−βE+JO} underflow and log Z becomes −inf (or loses all accuracy):
#   factor out the largest exponent before integrating (log-sum-exp), as for eq. (2.13).
def free_energy(energy, observable, beta, J, grid):
    grid = np.asarray(grid, dtype=float)
    Js = np.asarray(J, dtype=float)
    with np.errstate(divide="ignore", over="ignore"):
        Z = np.trapezoid(np.exp(-beta * np.asarray(energy)[None, :] + Js.reshape(-1, 1) * np.asarray(observable)[None, :]),
                         grid, axis=1)
        F = -np.log(Z)
    return float(F[0]) if Js.ndim == 0 else F.reshape(Js.shape)


# %% tags=["wrong"]
# wrong: Riemann sum with the first spacing (assumes a uniform grid)
# hint: The grid need not be uniform: integrate with the actual spacings (the trapezoidal rule with each
#   interval's own width), not with one spacing for every point.
def free_energy(energy, observable, beta, J, grid):
    grid = np.asarray(grid, dtype=float)
    Js = np.asarray(J, dtype=float)
    x = -beta * np.asarray(energy)[None, :] + Js.reshape(-1, 1) * np.asarray(observable)[None, :]
    F = -(special.logsumexp(x, axis=1) + np.log(grid[1] - grid[0]))
    return float(F[0]) if Js.ndim == 0 else F.reshape(Js.shape)


# %% tags=["wrong"]
# wrong: free energy with the sign of the source flipped (exp(-beta E - J O))
# hint: The source enters the Boltzmann weight as e^{−βE + J O} (eq. (2.13)), so that −∂_J F = E_J(O)
#   (eq. (2.14)): check the sign of the J O term.
_free_energy_right = free_energy


def free_energy(energy, observable, beta, J, grid):
    return _free_energy_right(energy, -np.asarray(observable, dtype=float), beta, J, grid)


# %% tags=["wrong"]
# wrong: cumulants by forward finite differences of F with a fixed step
# hint: Finite differences of F with a fixed step lose accuracy quickly with the order of the
#   derivative: compute the cumulants at J = 0 from the moments of O in p_β (eqs. (2.14)-(2.15)), or
#   with a far more accurate derivative.
def cumulants_from_free_energy(energy, observable, beta, grid, order):
    h = 1e-2
    f = np.array([free_energy(energy, observable, beta, k * h, grid) for k in range(order + 1)])
    return np.array([-np.diff(f, n=p)[0] / h**p for p in range(1, order + 1)])


# %% tags=["wrong"]
# wrong: returns the central moments instead of the cumulants
# hint: The cumulants are the J-derivatives of −F at J = 0 (eq. (2.15)), not the central moments: they
#   coincide up to order 3, but κ4 = μ4 − 3μ2² (Exercise 2.1(c)).
def cumulants_from_free_energy(energy, observable, beta, grid, order):
    grid = np.asarray(grid, dtype=float)
    logp = -beta * np.asarray(energy) + np.log(_trapezoid_weights(grid))
    p = np.exp(logp - logp.max())
    p /= p.sum()
    O = np.asarray(observable, dtype=float)
    mean = p @ O
    return np.array([mean] + [p @ (O - mean) ** k for k in range(2, order + 1)])


# %% tags=["wrong"]
# wrong: one log-sum-exp shift shared by all the sources (the maximum over the whole (J, grid) array)
# hint: Each source J is its own integral: shift each row of −βE + J·O by its own maximum (log-sum-exp per
#   source, eq. (2.13)); one shift shared by all the sources underflows to F = +inf for the sources whose
#   exponents lie hundreds below the largest.
def free_energy(energy, observable, beta, J, grid):
    grid = np.asarray(grid, dtype=float)
    E, O = _on_grid(energy, grid), _on_grid(observable, grid)
    Js = np.asarray(J, dtype=float)
    x = -beta * E[None, :] + Js.reshape(-1, 1) * O[None, :]
    shift = x.max()
    with np.errstate(divide="ignore"):
        F = -(np.log(np.exp(x - shift) @ _trapezoid_weights(grid)) + shift)
    return float(F[0]) if Js.ndim == 0 else F.reshape(Js.shape)


# %% tags=["alternative"]
# alternative: Simpson's rule, cumulants from the Taylor coefficients of log Z by a contour integral (FFT), moments via central moments
from scipy import integrate


def free_energy(energy, observable, beta, J, grid):
    grid = np.asarray(grid, dtype=float)
    E = np.asarray(energy(grid) if callable(energy) else energy, dtype=float)
    O = np.asarray(observable(grid) if callable(observable) else observable, dtype=float)
    out = []
    for j in np.atleast_1d(np.asarray(J, dtype=float)).ravel():
        x = -beta * E + j * O
        top = x.max()
        out.append(-(top + np.log(integrate.simpson(np.exp(x - top), x=grid))))
    out = np.array(out)
    return float(out[0]) if np.ndim(J) == 0 else out.reshape(np.shape(J))


def cumulants_from_free_energy(energy, observable, beta, grid, order):
    grid = np.asarray(grid, dtype=float)
    E = np.asarray(energy, dtype=float)
    O = np.asarray(observable, dtype=float)
    x0 = -beta * E
    w = np.exp(x0 - x0.max())
    mean = integrate.simpson(w * O, x=grid) / integrate.simpson(w, x=grid)
    sd = np.sqrt(integrate.simpson(w * (O - mean) ** 2, x=grid) / integrate.simpson(w, x=grid))
    Oc = (O - mean) / sd                                  # standardized observable
    M = 128
    r = 0.25
    Js = r * np.exp(2j * np.pi * np.arange(M) / M)
    x = x0[None, :] - x0.max() + Js[:, None] * Oc[None, :]
    logZ = np.log(integrate.simpson(np.exp(x), x=grid, axis=1)) - np.log(integrate.simpson(w, x=grid))
    c = np.fft.fft(logZ) / M
    p = np.arange(1, order + 1)
    kappa = (c[1:order + 1] / r**p).real * special.factorial(p) * sd**p
    kappa[0] = mean
    return kappa


def kappa3_from_moments(m1, m2, m3):
    m1, m2, m3 = np.broadcast_arrays(*(np.asarray(m, dtype=float) for m in (m1, m2, m3)))
    var = m2 - m1**2
    return m3 - m1**3 - 3 * m1 * var


def kappa4_from_moments(m1, m2, m3, m4):
    m1, m2, m3, m4 = (np.asarray(m, dtype=float) for m in (m1, m2, m3, m4))
    mu2 = m2 - m1**2
    mu4 = m4 - 4 * m1 * m3 + 6 * m1**2 * m2 - 3 * m1**4
    return mu4 - 3 * mu2**2
