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
# # ex2_2_first_order: Anatomy of a first-order transition at finite N
#
# *Notes: Section 2.5 and Exercise 2.2; background in Section 2.3 (free energy, sources and
# cumulants) and Section 2.4 (saddle points).*
#
# **Setup.** A system with $N$ degrees of freedom and a control parameter $B$ (a field, an
# inverse temperature, the load $\alpha$ of Section 2.6) has partition function
# $Z(B)=\int d\theta\,e^{-NE(\theta,B)}$ and free-energy density
# $$
# \varphi(B) = -\frac1N\log Z(B).
# $$
# If $E(\cdot,B)$ has two isolated minima $\theta_1,\theta_2$, then at large $N$ the integral
# is a sum over two *phases* (basins $U_1,U_2$),
# $$
# Z(B)\simeq e^{-N\varphi_1(B)}+e^{-N\varphi_2(B)},\qquad
# \varphi_i(B)=-\frac1N\log\int_{U_i}d\theta\,e^{-NE(\theta,B)}=E(\theta_i,B)+o(1), \tag{2.33}
# $$
# and we assume that the branches cross at $B_c$: $\varphi_1(B_c)=\varphi_2(B_c)$ with
# $\varphi_1'(B_c)\neq\varphi_2'(B_c)$ (a prime is $\partial_B$). Write
# $\Delta\varphi:=\varphi_1-\varphi_2$ and $\Delta\varphi':=\varphi_1'-\varphi_2'$.
#
# **The minimal model** (part (d)), used by all the code: the branches are straight lines,
# $$
# \varphi_1(B)=a\,(B-B_c),\qquad \varphi_2(B)=0,\qquad\text{so}\qquad
# \varphi(B)=-\frac1N\log\!\Big(e^{-Na(B-B_c)}+1\Big).
# $$
# It is *exactly* a two-state system: $\theta\in\{1,2\}$ with energies $E(1,B)=a(B-B_c)$,
# $E(2,B)=0$. For $a>0$ basin 1 wins below $B_c$ and basin 2 above; $a<0$ is allowed too
# ($a\neq0$).
#
# **Conventions.** `log` is the natural logarithm. $B$ may be a float or a numpy array (the
# functions work elementwise and return the shape of `B`); $N\ge1$ may be as large as
# $10^6$ (and a float such as `1e6`). "Basin 1" is always the branch
# $\varphi_1=a(B-B_c)$.
#
# **What you implement** (graded, hidden tests):
#
# | part | function | returns |
# |---|---|---|
# | (d) | `two_phase_free_energy(B, N, a, Bc)` | $\varphi(B)$, computed stably |
# | (a) | `basin_occupation(B, N, a, Bc)` | $p_1(B)$ |
# | (b) | `dphi_dB(B, N, a, Bc)` | $\partial_B\varphi$ |
# | (c) | `susceptibility(B, N, a, Bc)` | $-\partial_B^2\varphi$ |
# | (c) | `peak_height_and_width(N, a, Bc)` | height and full width at half maximum of the peak of $-\partial_B^2\varphi$, *measured* |
# | (c) | `scaling_exponents(Ns, a, Bc)` | the exponents of height and width in $N$, *fitted* |
#
# The derivations (a)-(c) are written answers, graded by hand.

# %% tags=["setup"]
import numpy as np
from scipy import optimize, special

# %% tags=["params"]
def draw_params(rng):
    """This year's slope a of the first branch, critical field Bc, and the sizes N of the figures."""
    return {"a": round(float(rng.uniform(0.6, 1.8)), 2),
            "Bc": round(float(rng.uniform(-0.8, 0.8)), 2),
            "Ns": [int(n) * k for n, k in zip([rng.integers(4, 9)] * 3, [1, 4, 16])]}


# %% [markdown]
# ## (d) The free energy, computed stably
#
# $\varphi(B)=-\frac1N\log\big(e^{-Na(B-B_c)}+1\big)$ cannot be evaluated as written: at
# $N=10^6$ and $a(B-B_c)=-1$ the exponential is $e^{10^6}$, far beyond the largest double
# ($\approx e^{709.8}$), and `np.exp` returns `inf`. Use the identity
# $$
# \log\big(e^{x}+e^{y}\big)=\max(x,y)+\log\!\big(1+e^{-|x-y|}\big)
# $$
# (`np.logaddexp`, or `scipy.special.logsumexp`, do exactly this): the exponent is never
# positive, so nothing overflows. As $N\to\infty$, $\varphi\to\min(\varphi_1,\varphi_2)$, with
# a kink at $B_c$.
#
# **Task.** Implement `two_phase_free_energy`.

# %% tags=["graded"]
def two_phase_free_energy(B, N, a, Bc):
    """Free-energy density of the two-branch minimal model (notes, Ex 2.2(d), eq. (2.33)).

    phi(B) = -(1/N) log( exp(-N phi_1(B)) + exp(-N phi_2(B)) ),
    with phi_1(B) = a (B - Bc) and phi_2(B) = 0. Natural log.

    Args:
        B: float or np.ndarray, the control parameter.
        N: number of degrees of freedom, N >= 1 (int or float, up to 1e6 and beyond).
        a: float, nonzero slope of branch 1 (either sign).
        Bc: float, the critical value where the branches cross.
    Returns:
        float or np.ndarray of the shape of B. Finite for every finite input: computed
        stably (log-sum-exp), never as exp(...) of a large number. phi(Bc) = -log(2)/N, and
        phi -> min(a (B - Bc), 0) as N -> infinity.
    """
    x = N * a * (np.asarray(B, dtype=float) - Bc)      # N (phi_1 - phi_2)
    return -np.logaddexp(-x, 0.0) / N


# %% tags=["check"]
@check
def check_two_phase_free_energy():
    "phi(Bc) = -log(2)/N, phi is finite at N = 1e6, and tends to min(phi_1, phi_2)"
    assert np.isclose(two_phase_free_energy(0.3, 10, 1.0, 0.3), -np.log(2) / 10)
    B = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
    phi = np.asarray(two_phase_free_energy(B, 1e6, 1.0, 0.0))
    assert phi.shape == B.shape, "phi should have the shape of B"
    assert np.all(np.isfinite(phi)), "overflow: use a numerically stable log(e^x + e^y)"
    assert np.allclose(phi, np.minimum(B, 0.0), atol=1e-5), "at large N, phi -> min(a(B-Bc), 0)"


# %% [markdown]
# ## (a) Occupation of the basins
#
# The probability of finding the system in basin $i$ is its share of $Z$,
# $p_i=e^{-N\varphi_i}/(e^{-N\varphi_1}+e^{-N\varphi_2})$, so
# $$
# p_1(B)=\frac{1}{1+e^{N\,\Delta\varphi(B)}}\;\simeq\;\frac{1}{1+e^{N\,\Delta\varphi'\,(B-B_c)}},
# \qquad p_2=1-p_1,
# $$
# a logistic function of $N\Delta\varphi'\,(B-B_c)$ (exact in the minimal model, where
# $\Delta\varphi=a(B-B_c)$).
#
# **Task.** Implement `basin_occupation` (stably: for $N=10^6$ the naive formula produces
# `inf/inf`). Then answer: over what window of $B$ does the system switch allegiance?

# %% tags=["graded"]
def basin_occupation(B, N, a, Bc):
    """Probability p_1 of basin 1 (the branch phi_1 = a (B - Bc)) in the minimal model.

    p_1 = exp(-N phi_1) / (exp(-N phi_1) + exp(-N phi_2)) = 1 / (1 + exp(N a (B - Bc)))
    (notes, Ex 2.2(a)). The occupation of basin 2 is 1 - p_1.

    Args:
        B: float or np.ndarray; N >= 1; a: nonzero float; Bc: float (as in
        two_phase_free_energy).
    Returns:
        float or np.ndarray of the shape of B, values in [0, 1], never nan (stable for
        N = 1e6). p_1(Bc) = 1/2; for a > 0, p_1 -> 1 below Bc and -> 0 above.
    """
    x = N * a * (np.asarray(B, dtype=float) - Bc)
    return special.expit(-x)


# %% tags=["check"]
@check
def check_basin_occupation():
    "p_1(Bc) = 1/2, p_1 is a probability, basin 1 wins below Bc when a > 0, no nan at N = 1e6"
    assert np.isclose(basin_occupation(0.2, 7, 1.3, 0.2), 0.5)
    B = np.linspace(-1, 1, 9)
    p = np.asarray(basin_occupation(B, 1e6, 1.0, 0.1))
    assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1)), "p_1 must be a probability, never nan"
    assert p[0] > 0.99 and p[-1] < 0.01, "with a > 0, basin 1 (phi_1 = a(B - Bc)) wins for B < Bc"


# %% [markdown]
# **(a), written.** Derive $p_1$ from (2.33) as a ratio of Boltzmann weights, and its logistic
# form near $B_c$. Over what window of $B$ does the system switch allegiance from one basin to
# the other, and how does that window depend on $N$ and on the angle $\Delta\varphi'$ at which
# the two branches cross?

# %% [markdown] tags=["answer"] points=2
# *Model answer.* From (2.33), the integral restricted to $U_i$ is $e^{-N\varphi_i}$, so
# $p_1=\frac{e^{-N\varphi_1}}{e^{-N\varphi_1}+e^{-N\varphi_2}}=\frac1{1+e^{N(\varphi_1-\varphi_2)}}$.
# Expanding $\varphi_1-\varphi_2=\Delta\varphi'(B-B_c)+O((B-B_c)^2)$ near the crossing gives the
# logistic form. The occupation goes from $\approx1$ to $\approx0$ while
# $N|\Delta\varphi'||B-B_c|$ goes through a few units: the window is
# $|B-B_c|\lesssim 1/(N|\Delta\varphi'|)$ (e.g. $p_1$ goes from $0.88$ to $0.12$ over
# $|B-B_c|\le2/(N|\Delta\varphi'|)$). It shrinks like $1/N$, and is wider when the two
# branches cross at a shallow angle. (In this window the quadratic term of the expansion is
# $O(1/N^2)$, so the logistic form is asymptotically exact.)
#
# *Rubric (2 pts):* 1 for $p_1$ as a ratio of Boltzmann weights and its logistic form; 1 for
# the window $\sim1/(N|\Delta\varphi'|)$ with both dependences stated.

# %% [markdown]
# ## (b) First derivative: a sigmoid sharpening into a jump
#
# Differentiating $\varphi=-\frac1N\log(e^{-N\varphi_1}+e^{-N\varphi_2})$,
# $$
# \partial_B\varphi=p_1\varphi_1'+p_2\varphi_2',
# $$
# the probability-weighted average of the branch slopes. In the minimal model this is
# $a\,p_1(B)$: a sigmoid of height $|\Delta\varphi'|=|a|$ and width $\sim1/(N|a|)$ which, as
# $N\to\infty$, becomes a jump at $B_c$ (the kink of $\varphi$).
#
# **Task.** Implement `dphi_dB`, then answer the written part below.

# %% tags=["graded"]
def dphi_dB(B, N, a, Bc):
    """First derivative d phi / dB of the minimal model (notes, Ex 2.2(b)).

    d phi/dB = p_1 phi_1' + p_2 phi_2' = a * p_1(B), with p_1 = basin_occupation(B, N, a, Bc).

    Args:
        B: float or np.ndarray; N >= 1; a: nonzero float; Bc: float.
    Returns:
        float or np.ndarray of the shape of B, between 0 and a (a may be negative);
        equal to a/2 at Bc;
        finite (never nan) at N = 1e6.
    """
    return a * basin_occupation(B, N, a, Bc)


# %% tags=["check"]
@check
def check_dphi_dB():
    "dphi/dB is a central difference of phi, and equals a/2 at Bc"
    N, a, Bc = 40, 0.8, -0.1
    B = np.linspace(-0.5, 0.3, 7)
    h = 1e-5
    fd = (np.asarray(two_phase_free_energy(B + h, N, a, Bc)) - np.asarray(two_phase_free_energy(B - h, N, a, Bc))) / (2 * h)
    assert np.allclose(dphi_dB(B, N, a, Bc), fd, atol=1e-7), "dphi_dB does not match the derivative of phi"
    assert np.isclose(dphi_dB(Bc, N, a, Bc), a / 2)


# %% [markdown]
# **(b), written.** Derive $\partial_B\varphi=p_1\varphi_1'+p_2\varphi_2'$ from (2.33), and
# show directly from $Z=\int d\theta\,e^{-NE(\theta,B)}$ that
# $\partial_B\varphi=\mathbb E\big[\partial_BE(\theta,B)\big]$. Which observable jumps when $B$
# is the inverse temperature, and when it is the Ising field?

# %% [markdown] tags=["answer"] points=2
# *Model answer.* $\partial_B\varphi=-\frac1N\frac{\partial_BZ}{Z}
# =-\frac1N\frac{-N\varphi_1'e^{-N\varphi_1}-N\varphi_2'e^{-N\varphi_2}}{e^{-N\varphi_1}+e^{-N\varphi_2}}
# =p_1\varphi_1'+p_2\varphi_2'$. From the integral,
# $\partial_B\varphi=-\frac1N\frac{\int d\theta\,(-N\partial_BE)\,e^{-NE}}{\int d\theta\,e^{-NE}}
# =\mathbb E[\partial_BE(\theta,B)]$, the expectation in the Boltzmann distribution
# $\propto e^{-NE}$: the observable that jumps is the one *conjugate* to the control parameter
# (here $\mathcal O=\partial_BE$ takes the values $\varphi_1'$, $\varphi_2'$ in the two basins,
# and its mean jumps by $\Delta\varphi'$). For $B=\beta$ (with $NE=\beta\cdot$energy) it is the
# energy per degree of freedom and the jump is the **latent heat**; for the Ising model with
# $B$ the field it is (minus) the magnetization, $\mathbb E(m)=-\beta^{-1}\partial_B\varphi$,
# which jumps from $\approx-\bar m$ to $\approx+\bar m$. At finite $N$,
# $\partial_B\varphi$ is a smooth sigmoid of height $\Delta\varphi'$ and width
# $\sim1/(N|\Delta\varphi'|)$; at $N=\infty$ it is a step and $\varphi$ has a kink.
#
# *Rubric (2 pts):* 1 for both derivations; 1 for latent heat / magnetization as the jumping
# conjugate observable.

# %% [markdown]
# ## (c) Second derivative: a nascent delta function
#
# With $\partial_Bp_1=-\partial_Bp_2=-Np_1p_2\,\Delta\varphi'$ (differentiate the logistic
# function),
# $$
# -\partial_B^2\varphi = N\,p_1p_2\,(\Delta\varphi')^2-\big(p_1\varphi_1''+p_2\varphi_2''\big),
# $$
# and in the minimal model ($\varphi_i''=0$) simply $-\partial_B^2\varphi=N a^2p_1p_2$.
# Since $p_1p_2=\frac1{4\cosh^2(x/2)}$ with $x=Na(B-B_c)$, this is a peak at $B_c$ of height
# $Na^2/4$ whose width shrinks like $1/(N|a|)$, while its area stays $|a|$, the height of the
# jump of $\partial_B\varphi$: it converges to $|a|\,\delta(B-B_c)$.
#
# **Tasks.**
# 1. Implement `susceptibility` $=-\partial_B^2\varphi$ (finite at $N=10^6$).
# 2. Implement `peak_height_and_width(N, a, Bc)`: **measure** the maximum of
#    `susceptibility` and its full width at half maximum numerically, with a maximizer and a
#    root finder (not from the closed forms above, which you then use to check yourself).
#    Careful: at $N=10^6$ the peak is $\sim10^{-6}$ wide; a fixed grid in $B$ will not see
#    it. Use the scale $1/(N|a|)$ to bracket.
# 3. Implement `scaling_exponents(Ns, a, Bc)`: fit straight lines to $\log(\text{height})$ and
#    $\log(\text{width})$ against $\log N$ (least squares) and return the two slopes. The
#    notes claim height $\propto N$ and width $\propto1/N$.

# %% tags=["graded"]
def susceptibility(B, N, a, Bc):
    """Minus the second derivative, -d^2 phi / dB^2, of the minimal model (notes, Ex 2.2(c)).

    -phi'' = N p_1 p_2 (phi_1' - phi_2')^2 - (p_1 phi_1'' + p_2 phi_2'') = N a^2 p_1 (1 - p_1)
    = N Var(dE/dB) >= 0, with p_1 = basin_occupation(B, N, a, Bc).

    Args:
        B: float or np.ndarray; N >= 1; a: nonzero float; Bc: float.
    Returns:
        float or np.ndarray of the shape of B, >= 0, finite at N = 1e6 (far from Bc it
        underflows harmlessly to 0). Maximum N a^2 / 4 at B = Bc.
    """
    x = N * a * (np.asarray(B, dtype=float) - Bc)
    # p_1 p_2 = 1 / (4 cosh^2(x/2)) = exp(-|x|) / (1 + exp(-|x|))^2, with no overflow
    e = np.exp(-np.abs(x))
    return N * a**2 * e / (1.0 + e) ** 2


# %% tags=["graded"]
def peak_height_and_width(N, a, Bc):
    """Height and full width at half maximum of the peak of susceptibility(B, N, a, Bc).

    Measured numerically (notes, Ex 2.2(c)-(d)): maximize susceptibility over B with a
    bounded scalar maximizer, then find the two half-maximum points with a root finder,
    using brackets of size ~ 1/(N |a|) around Bc (best: in the rescaled variable
    u = N |a| (B - Bc), since optimizer tolerances are relative to |B| ~ 1).

    Args:
        N: number of degrees of freedom, 1 <= N <= 1e7 (int or float).
        a: nonzero float (either sign); Bc: float.
    Returns:
        (height, width): tuple of two positive floats, the maximum of -phi''(B) and the
        distance between the two values of B where -phi'' equals height / 2. Relative
        accuracy about 1e-6.
    """
    scale = 1.0 / (N * abs(a))
    # work in the rescaled variable u = (B - Bc) / scale: the optimizer's tolerances are
    # relative to |x|, and B itself is O(1) while the peak is O(1/N) wide
    chi = lambda u: susceptibility(Bc + u * scale, N, a, Bc)
    res = optimize.minimize_scalar(lambda u: -chi(u), bounds=(-3.0, 4.0), method="bounded",
                                   options={"xatol": 1e-10})
    u_peak, height = float(res.x), float(chi(res.x))
    half = lambda u: chi(u) - height / 2
    u_right = optimize.brentq(half, u_peak, u_peak + 30.0, xtol=1e-13)
    u_left = optimize.brentq(half, u_peak - 30.0, u_peak, xtol=1e-13)
    return height, float((u_right - u_left) * scale)


# %% tags=["graded"]
def scaling_exponents(Ns, a, Bc):
    """Fitted exponents of the peak height and width of -phi'' in N (notes, Ex 2.2(c), Section 2.5).

    For each N in Ns, measure (height, width) with peak_height_and_width(N, a, Bc); then fit
    log(height) = c_h + e_h log(N) and log(width) = c_w + e_w log(N) by least squares.

    Args:
        Ns: sequence (list or 1-d array) of at least two distinct sizes N >= 1.
        a: nonzero float; Bc: float.
    Returns:
        (e_h, e_w): tuple of two floats, the fitted slopes (the notes predict +1 and -1).
    """
    logN = np.log(np.asarray(Ns, dtype=float))
    hw = np.array([peak_height_and_width(N, a, Bc) for N in Ns])
    e_h = np.polyfit(logN, np.log(hw[:, 0]), 1)[0]
    e_w = np.polyfit(logN, np.log(hw[:, 1]), 1)[0]
    return float(e_h), float(e_w)


# %% tags=["check"]
@check
def check_susceptibility():
    "-phi'' is a second difference of phi, a derivative of -dphi/dB, and finite at N = 1e6"
    N, a, Bc = 25, -1.2, 0.4
    B = np.linspace(0.25, 0.55, 7)
    h = 1e-4
    fd2 = -(np.asarray(two_phase_free_energy(B + h, N, a, Bc)) - 2 * np.asarray(two_phase_free_energy(B, N, a, Bc))
            + np.asarray(two_phase_free_energy(B - h, N, a, Bc))) / h**2
    assert np.allclose(susceptibility(B, N, a, Bc), fd2, rtol=1e-4, atol=1e-5), "not -d^2 phi/dB^2"
    fd1 = -(np.asarray(dphi_dB(B + h, N, a, Bc)) - np.asarray(dphi_dB(B - h, N, a, Bc))) / (2 * h)
    assert np.allclose(susceptibility(B, N, a, Bc), fd1, rtol=1e-6, atol=1e-6), "not -d(dphi/dB)/dB"
    big = np.asarray(susceptibility(np.array([-1.0, 0.4, 1.0]), 1e6, 1.0, 0.4))
    assert np.all(np.isfinite(big)) and np.all(big >= 0), "susceptibility must be finite and >= 0"


@check
def check_peak_is_a_peak():
    "the measured height is the maximum, and the half-maximum points are where they should be"
    N, a, Bc = 300, 0.7, -0.2
    height, width = peak_height_and_width(N, a, Bc)
    B = np.linspace(Bc - 5 * width, Bc + 5 * width, 2001)
    chi = np.asarray(susceptibility(B, N, a, Bc))
    assert height >= chi.max() - 1e-9 * height and height < chi.max() * (1 + 1e-6), "height is not the maximum"
    above = B[chi >= height / 2]
    assert abs((above[-1] - above[0]) - width) < 2 * (B[1] - B[0]), "width is not the full width at half maximum"
    h6, w6 = peak_height_and_width(1e6, -1.5, 0.3)
    assert np.isclose(h6, 1e6 * 1.5**2 / 4, rtol=1e-5), "the peak height is N a^2 / 4 (at N = 1e6 too, a < 0)"
    assert np.isclose(w6 * 1e6 * 1.5, width * N * a, rtol=1e-5), "the width is a number times 1/(N |a|)"


@check
def check_scaling_exponents():
    "the fitted exponents are the notes' +1 (height) and -1 (width), from two or more sizes"
    assert np.allclose(scaling_exponents([10, 1000, 100000], -0.5, 0.2), (1.0, -1.0), atol=1e-4)
    assert np.allclose(scaling_exponents(np.array([3, 50]), 2.0, -0.7), (1.0, -1.0), atol=1e-4)


# %% [markdown]
# **(c), written.** Verify $\partial_Bp_1=-Np_1p_2\Delta\varphi'$, derive the formula for
# $-\partial_B^2\varphi$, and show that $-\partial_B^2\varphi=N\,\mathrm{Var}(\mathcal O)\ge0$
# when $\mathcal O=\partial_BE$ does not depend on $B$. Give the height, the full width at half
# maximum and the area of the peak in the minimal model.

# %% [markdown] tags=["answer"] points=3
# *Model answer.* $p_1=(1+e^{N\Delta\varphi})^{-1}$, so
# $\partial_Bp_1=-\frac{N\Delta\varphi'\,e^{N\Delta\varphi}}{(1+e^{N\Delta\varphi})^2}=-Np_1p_2\,\Delta\varphi'$,
# and $\partial_Bp_2=-\partial_Bp_1$. Differentiating (b),
# $\partial_B^2\varphi=(\partial_Bp_1)\varphi_1'+(\partial_Bp_2)\varphi_2'+p_1\varphi_1''+p_2\varphi_2''
# =-Np_1p_2(\Delta\varphi')^2+p_1\varphi_1''+p_2\varphi_2''$, which is the formula above.
# From the integral: $\partial_B\mathbb E[\mathcal O]=\mathbb E[\partial_B\mathcal O]-N\big(\mathbb E[\mathcal O^2]-\mathbb E[\mathcal O]^2\big)$
# (the derivative hits $\mathcal O$, the weight $e^{-NE}$ and the normalization $Z$), so
# $-\partial_B^2\varphi=N\,\mathrm{Var}(\mathcal O)-\mathbb E[\partial_B\mathcal O]$, which is
# $N\,\mathrm{Var}(\mathcal O)\ge0$ if $\partial_B\mathcal O=0$ (heat capacity for $B=\beta$,
# susceptibility for the field). In the minimal model $\mathcal O$ takes the value $a$ in
# basin 1 and $0$ in basin 2, so $N\mathrm{Var}(\mathcal O)=Na^2p_1p_2$. With
# $p_1p_2=\frac14\cosh^{-2}\frac x2$, $x=Na(B-B_c)$: **height** $Na^2/4$ at $B_c$ (grows like
# $N$); **FWHM** from $\cosh^2\frac x2=2$, $x=\pm2\,\mathrm{arcosh}\sqrt2=\pm2\log(1+\sqrt2)$,
# i.e. $\Delta B=4\log(1+\sqrt2)/(N|a|)\approx3.53/(N|a|)$ (shrinks like $1/N$); **area**
# $\int dB\,Na^2p_1p_2=|a|\int\frac{dx}{4\cosh^2(x/2)}=|a|$, independent of $N$ and equal to the
# jump of $\partial_B\varphi$. Height $\times$ width $=$ const: a nascent
# $|a|\,\delta(B-B_c)$.
#
# *Rubric (3 pts):* 1 for the derivative of $p_1$ and the formula; 1 for $N\mathrm{Var}\ge0$;
# 1 for height $\propto N$, width $\propto1/N$, area fixed.

# %% tags=["solution"]
# Independent checks. (i) The stable $\varphi$ against a 50-digit
# `mpmath` evaluation of the naive formula, including $N=10^6$; (ii) $\partial_B\varphi$ and
# $-\partial_B^2\varphi$ against torch autograd (float64) of a separate implementation of
# $\varphi$, and against high-order finite differences of `two_phase_free_energy`; (iii) the
# measured heights and widths against the closed forms $Na^2/4$ and $4\log(1+\sqrt2)/(N|a|)$,
# and the area of the peak (quadrature) against $|a|$; (iv) the two-branch formula against a
# genuine one-dimensional integral $\int d\theta\,e^{-NE(\theta,B)}$ with a tilted double well,
# whose peak of $N\,\mathrm{Var}(\partial_BE)$ approaches the minimal model's as $N$ grows.
import mpmath
import torch

mpmath.mp.dps = 50
a0, Bc0 = PARAMS["a"], PARAMS["Bc"]

# (i) stable phi vs 50-digit arithmetic of the naive formula
worst = 0.0
for N in [1, 7, 100, 10**4, 10**6, 10**9, 10**12]:
    for B in Bc0 + np.array([-1.5, -0.3, -1e-3, -1e-6, 0.0, 2e-6, 1e-2, 0.7]):
        exact = -mpmath.log1p(mpmath.exp(-N * a0 * (mpmath.mpf(B) - Bc0))) / N
        got = two_phase_free_energy(B, N, a0, Bc0)
        worst = max(worst, abs(float(exact) - got) / (abs(float(exact)) + 1e-280))  # denormals aside
assert worst < 1e-12
print("(i)   phi vs 50-digit mpmath, N up to 1e12: max relative difference < 1e-12")   # residuals as bounds

# (ii) derivatives: torch autograd of an independent log-sum-exp, and finite differences
def phi_torch(B, N, a, Bc):
    x = -N * a * (B - Bc)
    return -torch.logsumexp(torch.stack([x, torch.zeros_like(x)]), dim=0) / N


worst1 = worst2 = 0.0
for N in [3, 50, 2000, 10**6]:
    B_t = torch.tensor(Bc0 + np.linspace(-4, 4, 17) / (N * a0), dtype=torch.float64, requires_grad=True)
    (g1,) = torch.autograd.grad(phi_torch(B_t, N, a0, Bc0).sum(), B_t, create_graph=True)
    (g2,) = torch.autograd.grad(g1.sum(), B_t)
    Bn = B_t.detach().numpy()
    worst1 = max(worst1, np.max(np.abs(g1.detach().numpy() - dphi_dB(Bn, N, a0, Bc0))) / abs(a0))
    worst2 = max(worst2, np.max(np.abs(-g2.numpy() - susceptibility(Bn, N, a0, Bc0))) / (N * a0**2))
assert worst1 < 1e-12 and worst2 < 1e-12
print("(ii)  autograd vs dphi_dB: < 1e-12 (relative to a);  vs susceptibility: < 1e-12 (relative to N a^2)")
# five-point finite differences of phi itself, step ~ 1e-3 of the peak width
for N in [10, 1000]:
    h = 1e-3 / (N * a0)
    Bs = Bc0 + np.linspace(-3, 3, 13) / (N * a0)
    f = lambda k: two_phase_free_energy(Bs + k * h, N, a0, Bc0)
    d1 = (f(-2) - 8 * f(-1) + 8 * f(1) - f(2)) / (12 * h)
    d2 = -(-f(-2) + 16 * f(-1) - 30 * f(0) + 16 * f(1) - f(2)) / (12 * h**2)
    e1 = np.max(np.abs(d1 - dphi_dB(Bs, N, a0, Bc0))) / a0
    e2 = np.max(np.abs(d2 - susceptibility(Bs, N, a0, Bc0))) / (N * a0**2)
    assert e1 < 1e-9 and e2 < 1e-7   # round-off dominated (it grows like 1/h, 1/h^2): printed as bounds
    print(f"      N={N}: five-point differences of phi vs dphi_dB < 1e-9, vs susceptibility < 1e-7")

# (iii) measured peak vs closed forms, and its area
for N in [1, 10, 1e3, 1e6, 1e7]:
    for a in [a0, -2.3]:
        height, width = peak_height_and_width(N, a, Bc0)
        assert abs(height / (N * a**2 / 4) - 1) < 1e-9
        assert abs(width / (4 * np.log(1 + np.sqrt(2)) / (N * abs(a))) - 1) < 1e-8
        Bq = Bc0 + np.linspace(-60, 60, 24001) / (N * abs(a))
        area = np.trapezoid(susceptibility(Bq, N, a, Bc0), Bq)
        assert abs(area - abs(a)) < 1e-9 * abs(a) + 1e-12
print("(iii) height = N a^2/4 and FWHM = 4 log(1+sqrt 2)/(N|a|) to 1e-8 for N up to 1e7; area of the peak = |a|")
e_h, e_w = scaling_exponents([10, 100, 1000, 10**4, 10**5, 10**6], a0, Bc0)
print(f"      fitted exponents: height {e_h:.8f}, width {e_w:.8f}")
assert abs(e_h - 1) < 1e-8 and abs(e_w + 1) < 1e-8


# %% tags=["provided"]
def double_well_susceptibility(B, N, a, Bc):
    """-d^2 phi/dB^2 = N Var(dE/dB) of a genuine 1-d integral Z = int dtheta exp(-N E(theta, B)).

    E(theta, B) = (theta^2 - 1)^2 - (a/2)(B - Bc) theta: two wells at theta = -1 (basin 1,
    E = a(B-Bc)/2) and theta = +1 (basin 2, E = -a(B-Bc)/2), so Delta phi' = a, as in the
    minimal model. dE/dB = -a theta / 2 does not depend on B. Quadrature on a fine grid.
    """
    theta = np.linspace(-2.5, 2.5, 20001)
    Bs = np.atleast_1d(np.asarray(B, dtype=float))
    out = []
    for b in Bs:
        logw = -N * ((theta**2 - 1) ** 2 - 0.5 * a * (b - Bc) * theta)
        w = np.exp(logw - logw.max())
        w /= w.sum()
        O = -0.5 * a * theta
        out.append(N * (w @ O**2 - (w @ O) ** 2))
    return np.array(out).reshape(np.shape(B))


# %% tags=["solution"]
# (iv) the two-branch formula as the large-N limit of a genuine double-well integral
for N in [20, 100, 1000]:
    Bs = PARAMS["Bc"] + np.linspace(-3, 3, 7) / (N * PARAMS["a"])
    dw = double_well_susceptibility(Bs, N, PARAMS["a"], PARAMS["Bc"])
    mm = susceptibility(Bs, N, PARAMS["a"], PARAMS["Bc"])
    print(f"(iv)  N={N:5d}: double well / minimal model at 7 points around Bc: "
          + " ".join(f"{r:.3f}" for r in dw / mm))
    assert np.all(np.abs(dw / mm - 1) < 12.0 / N)

# %% [markdown]
# ## The figure: three curves for several $N$
#
# Top row: $\varphi$, $\partial_B\varphi$ and $-\partial_B^2\varphi$ for this year's sizes
# $N$ (the black lines are $N=\infty$: a kink, a jump). Bottom row: the same curves with the
# axes rescaled by the predicted exponents, $N(B-B_c)$ horizontally and
# $-\partial_B^2\varphi/N$ vertically, collapse onto one curve, and the measured peak heights and
# widths lie on lines of slope $+1$ and $-1$ in a log-log plot. The dashed curves in the third
# panel are a *genuine* double-well integral (`double_well_susceptibility`) with the same
# $\Delta\varphi'$: the minimal model is its large-$N$ limit, the shape is universal.

# %% tags=["figure"]
import matplotlib.pyplot as plt   # (imported here: the grader skips figure cells)

a_f, Bc_f, Ns_f = PARAMS["a"], PARAMS["Bc"], PARAMS["Ns"]
B = Bc_f + np.linspace(-1.0, 1.0, 2001) * 8 / (min(Ns_f) * a_f)
fig, axes = plt.subplots(2, 3, figsize=(15, 8))
for N, color in zip(Ns_f, ["C0", "C1", "C2"]):
    axes[0, 0].plot(B, two_phase_free_energy(B, N, a_f, Bc_f), color=color, label=f"N={N}")
    axes[0, 1].plot(B, dphi_dB(B, N, a_f, Bc_f), color=color, label=f"N={N}")
    axes[0, 2].plot(B, susceptibility(B, N, a_f, Bc_f), color=color, label=f"N={N}")
    x_dw = np.linspace(-8, 8, 61)
    chi_dw = double_well_susceptibility(Bc_f + x_dw / (N * a_f), N, a_f, Bc_f)
    axes[0, 2].plot(Bc_f + x_dw / (N * a_f), chi_dw, "--", color=color, lw=1)
    axes[1, 1].plot(x_dw, chi_dw / N, "--", color=color, lw=1)
    x = N * a_f * (B - Bc_f)
    axes[1, 0].plot(x, np.asarray(dphi_dB(B, N, a_f, Bc_f)) / a_f, color=color, label=f"N={N}")
    axes[1, 1].plot(x, np.asarray(susceptibility(B, N, a_f, Bc_f)) / N, color=color, label=f"N={N}")
axes[1, 0].set_xlim(-10, 10)
axes[1, 1].set_xlim(-10, 10)
axes[0, 0].plot(B, np.minimum(a_f * (B - Bc_f), 0.0), "k", lw=1, label=r"$N=\infty$")
axes[0, 1].plot(B, np.where(B < Bc_f, a_f, 0.0), "k", lw=1, label=r"$N=\infty$")
axes[0, 0].set(xlabel="$B$", ylabel=r"$\varphi$", title=r"free energy density: a kink")
axes[0, 1].set(xlabel="$B$", ylabel=r"$\partial_B\varphi$", title="first derivative: a jump")
axes[0, 2].set(xlabel="$B$", ylabel=r"$-\partial_B^2\varphi$",
               title="second derivative: a growing peak\n(dashed: genuine double well)")
axes[1, 0].set(xlabel=r"$Na(B-B_c)$", ylabel=r"$\partial_B\varphi/a$", title="collapse of the sigmoids")
axes[1, 1].set(xlabel=r"$Na(B-B_c)$", ylabel=r"$-\partial_B^2\varphi/N$",
               title="collapse of the peaks (dashed: double well)")
Ns_fit = np.unique(np.logspace(0, 6, 13).astype(int))
hw = np.array([peak_height_and_width(N, a_f, Bc_f) for N in Ns_fit])
e_h, e_w = scaling_exponents(Ns_fit, a_f, Bc_f)
axes[1, 2].loglog(Ns_fit, hw[:, 0], "o-", label=f"height, slope {e_h:.3f}")
axes[1, 2].loglog(Ns_fit, hw[:, 1], "s-", label=f"width (FWHM), slope {e_w:.3f}")
axes[1, 2].set(xlabel="$N$", title="measured peak height and width")
for ax in axes.flat:
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# **(d), written.** Why is "the peak grows with $N$ rather than saturating" the diagnostic of
# a true transition? What would you expect to see in the same plots for a smooth crossover,
# e.g. $\varphi(B)=\log\cosh(B-B_c)$ for every $N$? Connect to the "emergent capabilities"
# of models of growing size (Section 7.6).

# %% [markdown] tags=["answer"] points=2
# *Model answer.* At any finite $N$ the partition function is a finite sum (or integral) of
# analytic functions of $B$, so $\varphi$ is analytic and every finite-$N$ plot is smooth:
# smoothness alone cannot tell a transition from a crossover. What distinguishes them is the
# *$N$-dependence*. Near a first-order transition $-\partial_B^2\varphi=N\,\mathrm{Var}(\mathcal O)$
# with $\mathrm{Var}(\mathcal O)\to(\Delta\varphi')^2/4$ at $B_c$, because the conjugate observable is
# bimodal (it takes two macroscopically different values with comparable probability): the
# peak grows like $N$ and narrows like $1/N$, with fixed area $|\Delta\varphi'|$, and converges
# to a delta function, the derivative of a jump. For a crossover whose $\varphi(B)$ does not depend
# on $N$ (like $\log\cosh(B-B_c)$), $-\partial_B^2\varphi$ is an $N$-independent bump: the
# curves for different $N$ lie on top of each other, the fitted exponents of height and width are
# $0$, and no rescaling by $N$ collapses them. So one plots the peak height against $N$ on
# log-log axes: slope $1$ (here) means a first-order transition, saturation means a crossover
# (continuous transitions give intermediate, non-trivial exponents). For "emergent
# capabilities", a sharp-looking jump in a metric as model size grows is, by the same logic,
# evidence of a genuine transition only if it sharpens systematically with the relevant size
# parameter; a sigmoid of fixed width in log-size (or one produced by a discontinuous metric
# applied to a smooth underlying quantity) is a crossover, a point made in Section 7.6.
#
# *Rubric (2 pts):* 1 for analyticity at finite $N$ and the $N$-scaling diagnostic; 1 for the
# crossover counterpart (no growth, no collapse) and a sensible link to emergence.

# %% tags=["tests"]
@points(2)
def test_free_energy_moderate_N(student):
    "two_phase_free_energy on random fields, slopes and sizes N <= 500"
    rng = rng_for("free_energy_moderate_N")
    for N in [1, int(rng.integers(5, 50)), int(rng.integers(100, 500))]:
        a = float(rng.choice([-1, 1]) * rng.uniform(0.3, 2.5))
        Bc = float(rng.uniform(-1, 1))
        B = Bc + rng.uniform(-3, 3, 12) / N
        assert_close(student.two_phase_free_energy(B, N, a, Bc), ref.two_phase_free_energy(B, N, a, Bc),
                     rtol=1e-9, atol=1e-13, name=f"phi(B) at N={N}")


@points(2)
def test_free_energy_no_overflow(student):
    "two_phase_free_energy at N = 1e4 and 1e6, fields on both sides of Bc, both signs of a"
    rng = rng_for("free_energy_no_overflow")
    for N, a in [(1e4, ref.PARAMS["a"]), (1e6, -float(rng.uniform(0.5, 2)))]:
        Bc = float(rng.uniform(-1, 1))
        B = np.concatenate([Bc + rng.uniform(-2, 2, 8), [Bc, Bc + 1e-6, Bc - 3e-6]])
        assert_close(student.two_phase_free_energy(B, N, a, Bc), ref.two_phase_free_energy(B, N, a, Bc),
                     rtol=1e-9, atol=1e-15, name=f"phi(B) at N={N:g}")


@points(1)
def test_free_energy_scalar(student):
    "two_phase_free_energy with a scalar field returns one number"
    rng = rng_for("free_energy_scalar")
    Bc = float(rng.uniform(-1, 1))
    for B, N in [(Bc, 3), (Bc + 0.2, 20), (Bc - 0.5, 10**6)]:
        assert_close(student.two_phase_free_energy(B, N, ref.PARAMS["a"], Bc),
                     ref.two_phase_free_energy(B, N, ref.PARAMS["a"], Bc), rtol=1e-9, atol=1e-15,
                     name=f"phi at one field, N={N}")


@points(2)
def test_basin_occupation(student):
    "basin_occupation: the probability of basin 1, random fields and sizes up to 1e6"
    rng = rng_for("basin_occupation")
    for N in [2, 60, 10**6]:
        a = float(rng.choice([-1, 1]) * rng.uniform(0.3, 2.5))
        Bc = float(rng.uniform(-1, 1))
        B = np.concatenate([Bc + rng.uniform(-4, 4, 10) / (N * abs(a)), Bc + rng.uniform(-1, 1, 4)])
        assert_close(student.basin_occupation(B, N, a, Bc), ref.basin_occupation(B, N, a, Bc),
                     rtol=1e-8, atol=1e-12, name=f"p_1(B) at N={N}, a={a:.2f}")


@points(2)
def test_dphi_dB(student):
    "dphi_dB: random fields near and far from Bc, sizes up to 1e6, both signs of a"
    rng = rng_for("dphi_dB")
    for N in [4, 300, 10**6]:
        a = float(rng.choice([-1, 1]) * rng.uniform(0.3, 2.5))
        Bc = float(rng.uniform(-1, 1))
        B = np.concatenate([Bc + rng.uniform(-4, 4, 10) / (N * abs(a)), Bc + rng.uniform(-1, 1, 4)])
        assert_close(student.dphi_dB(B, N, a, Bc), ref.dphi_dB(B, N, a, Bc),
                     rtol=1e-8, atol=1e-12, name=f"dphi/dB at N={N}, a={a:.2f}")


@points(3)
def test_susceptibility(student):
    "susceptibility: random fields in the peak region, sizes up to 1e6, both signs of a"
    rng = rng_for("susceptibility")
    for N in [1, 7, 250, 10**6]:
        a = float(rng.choice([-1, 1]) * rng.uniform(0.3, 2.5))
        Bc = float(rng.uniform(-1, 1))
        B = np.concatenate([Bc + rng.uniform(-6, 6, 12) / (N * abs(a)), [Bc], Bc + rng.uniform(-1, 1, 3)])
        assert_close(student.susceptibility(B, N, a, Bc), ref.susceptibility(B, N, a, Bc),
                     rtol=1e-7, atol=1e-9 * N * a**2, name=f"-phi''(B) at N={N}, a={a:.2f}")


@points(2)
def test_peak_height_and_width(student):
    "peak_height_and_width for sizes from 1 to 1e6, both signs of a"
    rng = rng_for("peak_height_and_width")
    for N in [1, int(rng.integers(10, 100)), 10**4, 10**6]:
        a = float(rng.choice([-1, 1]) * rng.uniform(0.3, 2.5))
        Bc = float(rng.uniform(-1, 1))
        assert_close(student.peak_height_and_width(N, a, Bc), ref.peak_height_and_width(N, a, Bc),
                     rtol=2e-6, atol=0.0, name=f"(height, width) at N={N}, a={a:.2f}")


@points(1)
def test_peak_height_and_width_extreme_slopes(student):
    "peak_height_and_width for very shallow and very steep branch crossings"
    rng = rng_for("peak_height_and_width_extreme_slopes")
    for N, a in [(int(rng.integers(20, 200)), float(rng.uniform(0.01, 0.03))),
                 (int(rng.integers(2, 9)), -float(rng.uniform(20.0, 40.0)))]:
        Bc = float(rng.uniform(-1, 1))
        assert_close(student.peak_height_and_width(N, a, Bc), ref.peak_height_and_width(N, a, Bc),
                     rtol=2e-6, atol=0.0, name=f"(height, width) at N={N}, a={a:.3f}")


@points(2)
def test_scaling_exponents(student):
    "scaling_exponents over sizes spanning several decades (up to 1e6)"
    rng = rng_for("scaling_exponents")
    a = -float(rng.uniform(0.4, 2.0))
    Bc = float(rng.uniform(-1, 1))
    Ns = [10, 100, 1000, 10**4, 10**5, 10**6]
    assert_close(student.scaling_exponents(Ns, ref.PARAMS["a"], ref.PARAMS["Bc"]),
                 ref.scaling_exponents(Ns, ref.PARAMS["a"], ref.PARAMS["Bc"]), rtol=0, atol=2e-3,
                 name="(height exponent, width exponent), this year's a and Bc")
    Ns = sorted(int(n) for n in rng.integers(50, 50_000, 4))
    assert_close(student.scaling_exponents(Ns, a, Bc), ref.scaling_exponents(Ns, a, Bc), rtol=0, atol=2e-3,
                 name=f"(height exponent, width exponent), a={a:.2f}")


@points(1)
def test_scalar_field_gives_float(student):
    "two_phase_free_energy, basin_occupation, dphi_dB, susceptibility: a float field B (B = Bc = 0.0 included) gives one number"
    rng = rng_for("scalar_field_gives_float")
    a = float(rng.choice([-1, 1]) * rng.uniform(0.3, 2.5))
    cases = [(0.0, 0.0, int(rng.integers(2, 50))), (float(rng.uniform(-1, 1)), 0.0, 1e6),
             (float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1)), float(rng.integers(1, 30)))]
    for B, Bc, N in cases:
        for fn in ["two_phase_free_energy", "basin_occupation", "dphi_dB", "susceptibility"]:
            got = getattr(student, fn)(B, N, a, Bc)
            assert np.ndim(got) == 0, f"{fn} of a float B should be one number (a float), not an array"
            expected = getattr(ref, fn)(B, N, a, Bc)
            assert_close(got, expected, rtol=1e-9, atol=1e-15 * max(1.0, N * a * a),
                         name=f"{fn} at one field, N={N:g}, Bc={Bc:g}")


@points(1)
def test_huge_N(student):
    "two_phase_free_energy, basin_occupation, dphi_dB, susceptibility: at N = 1e9 and 1e12 (beyond 1e6), Bc = 0, both signs of a"
    rng = rng_for("huge_N")
    for N in [1e9, 1e12]:
        a = float(rng.choice([-1, 1]) * rng.uniform(0.3, 2.5))
        B = np.concatenate([rng.uniform(-6, 6, 8) / (N * abs(a)), [0.0], rng.uniform(-1, 1, 3)])
        for fn, atol in [("two_phase_free_energy", 1e-15 / N), ("basin_occupation", 1e-12),
                         ("dphi_dB", 1e-12), ("susceptibility", 1e-9 * N * a * a)]:
            assert_close(getattr(student, fn)(B, N, a, 0.0), getattr(ref, fn)(B, N, a, 0.0),
                         rtol=1e-8, atol=atol, name=f"{fn} at N={N:g}, a={a:.2f}")


@points(1)
def test_peak_height_and_width_largest_N(student):
    "peak_height_and_width at the top of the promised range of N (up to 1e7), to the promised accuracy"
    rng = rng_for("peak_height_and_width_largest_N")
    for N in [1e7, int(rng.integers(2 * 10**6, 10**7))]:
        a = float(rng.choice([-1, 1]) * rng.uniform(0.3, 2.5))
        Bc = float(rng.uniform(-1, 1))
        got = student.peak_height_and_width(N, a, Bc)
        assert np.ndim(got[0]) == 0 and np.ndim(got[1]) == 0, "expected (height, width), two numbers"
        assert_close(got, ref.peak_height_and_width(N, a, Bc), rtol=2e-6, atol=0.0,
                     name=f"(height, width) at N={N:g}, a={a:.2f}")


@points(1)
def test_scaling_exponents_two_sizes(student):
    "scaling_exponents from an array of just two sizes, from N = 1 to the largest N"
    rng = rng_for("scaling_exponents_two_sizes")
    a = float(rng.choice([-1, 1]) * rng.uniform(0.3, 2.5))
    Bc = float(rng.uniform(-1, 1))
    for Ns in [np.array([1, int(rng.integers(2, 20))]), np.array([int(rng.integers(10, 1000)), 10**7])]:
        assert_close(student.scaling_exponents(Ns, a, Bc), ref.scaling_exponents(Ns, a, Bc), rtol=0, atol=2e-3,
                     name=f"(height exponent, width exponent) from two sizes, a={a:.2f}")


# %% tags=["wrong"]
# wrong: naive log(exp(x) + 1), overflows for large N on one side of Bc
# hint: For large N the exponent N a (B − B_c) is huge on one side of B_c and e^{…} overflows: write
#   φ(B) with log1p/logaddexp, or factor out the larger of the two exponentials (Exercise 2.2(d)).
def two_phase_free_energy(B, N, a, Bc):
    with np.errstate(over="ignore"):
        return -np.log(np.exp(-N * a * (np.asarray(B, dtype=float) - Bc)) + 1.0) / N


# %% tags=["wrong"]
# wrong: occupation of the other basin (sign of the exponent flipped)
# hint: p_1 is the occupation of basin 1, the branch φ_1 = a(B − B_c): it is close to 1 where φ_1 is the
#   lower branch (below B_c for a > 0). Check the sign of the exponent (Exercise 2.2(a)).
def basin_occupation(B, N, a, Bc):
    return special.expit(N * a * (np.asarray(B, dtype=float) - Bc))


def dphi_dB(B, N, a, Bc):
    return a * special.expit(-N * a * (np.asarray(B, dtype=float) - Bc))


# %% tags=["wrong"]
# wrong: naive occupation exp(-x) / (1 + exp(-x)), nan (inf/inf) at large N
# hint: At large N the ratio e^{−x}/(1 + e^{−x}) becomes inf/inf = nan: use the logistic function
#   (scipy.special.expit) or divide through by the larger exponential (Exercise 2.2(a)).
def basin_occupation(B, N, a, Bc):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(-N * a * (np.asarray(B, dtype=float) - Bc))
        return e / (1.0 + e)


def dphi_dB(B, N, a, Bc):
    return a * basin_occupation(B, N, a, Bc)


# %% tags=["wrong"]
# wrong: susceptibility without the factor N (the variance of O, not N times it)
# hint: The susceptibility −∂²_B φ is N times the variance of the order parameter in the two-state
#   model: a factor N comes out of differentiating e^{−N a (B − B_c)} (Exercise 2.2(c)).
def susceptibility(B, N, a, Bc):
    p = special.expit(-N * a * (np.asarray(B, dtype=float) - Bc))
    return a**2 * p * (1.0 - p)


# %% tags=["rewrite"]
# rewrite: the variance of the two-state order parameter without the factor N, written as a derivative of dphi_dB
def susceptibility(B, N, a, Bc):
    B = np.asarray(B, dtype=float)
    x = N * a * (B - Bc)
    return a * a * np.exp(-np.logaddexp(0.0, x) - np.logaddexp(0.0, -x))


# %% tags=["wrong"]
# wrong: susceptibility as +phi'' (sign), so the peak points down
# hint: The susceptibility is −∂²_B φ, a variance times N, so it is positive and peaks upwards at B_c:
#   check the sign (Exercise 2.2(c), eq. (2.14)).
def susceptibility(B, N, a, Bc):
    p = special.expit(-N * a * (np.asarray(B, dtype=float) - Bc))
    return -N * a**2 * p * (1.0 - p)


# %% tags=["wrong"]
# wrong: width as the half width at half maximum
# hint: The width asked for is the full width at half maximum: the distance between the two points where
#   the susceptibility equals half its peak value (Exercise 2.2(c)).
_phw_right = peak_height_and_width


def peak_height_and_width(N, a, Bc):
    height, width = _phw_right(N, a, Bc)
    return height, width / 2


# %% tags=["wrong"]
# wrong: peak located on a fixed grid of B with spacing 1e-3 (cannot resolve large N)
# hint: The peak has width of order 1/(N|a|): a fixed grid of B cannot resolve it at large N. Locate the
#   half-maximum points by root finding on a scale set by 1/(N|a|) (Exercise 2.2(c)).
def peak_height_and_width(N, a, Bc):
    B = np.linspace(-3.0, 3.0, 6001)
    chi = susceptibility(B, N, a, Bc)
    height = chi.max()
    above = B[chi >= height / 2]
    return float(height), float(above[-1] - above[0] + (B[1] - B[0]))


# %% tags=["wrong"]
# wrong: width from the half-maximum points found with a bracket that ignores the sign of a
# hint: With a < 0 the scale 1/(N a) is negative, so a bracket built from it is upside down: use |a|
#   when you set the search interval for the half-maximum points (Exercise 2.2(c), a < 0 is
#   allowed).
def peak_height_and_width(N, a, Bc):
    s = 1.0 / (N * a)
    height = float(susceptibility(Bc, N, a, Bc))
    f = lambda B: susceptibility(B, N, a, Bc) - height / 2
    right = optimize.brentq(f, Bc, Bc + 30 * s)
    left = optimize.brentq(f, Bc - 30 * s, Bc)
    return height, float(right - left)


# %% tags=["wrong"]
# wrong: exponents taken from the intercepts of the fits (np.polyfit(...)[1]) instead of the slopes
# hint: The exponents are the slopes of log(height) and log(width) against log N, not the intercepts:
#   np.polyfit returns the highest power first, [slope, intercept] (Exercise 2.2(c)).
def scaling_exponents(Ns, a, Bc):
    logN = np.log(np.asarray(Ns, dtype=float))
    hw = np.array([peak_height_and_width(N, a, Bc) for N in Ns])
    return float(np.polyfit(logN, np.log(hw[:, 0]), 1)[1]), float(np.polyfit(logN, np.log(hw[:, 1]), 1)[1])


# %% tags=["wrong"]
# wrong: log-sum-exp with one shift for the whole array of fields (the largest exponent over all B)
# hint: Each field B is its own log-sum-exp: factor out the larger of the two exponentials at that B
#   (np.logaddexp does), not one maximum over the whole array of fields; at large N the fields far from the
#   largest exponent underflow to log 0 (Exercise 2.2(d)).
def two_phase_free_energy(B, N, a, Bc):
    x = -N * a * (np.asarray(B, dtype=float) - Bc)
    m = max(float(np.max(x)), 0.0)
    with np.errstate(divide="ignore"):
        return -(m + np.log(np.exp(x - m) + np.exp(-m))) / N


# %% tags=["alternative"]
# alternative: tanh/cosh closed forms with log1p, peak by golden section on the rescaled variable and bisection, exponents by lstsq
def two_phase_free_energy(B, N, a, Bc):
    x = N * a * (np.asarray(B, dtype=float) - Bc)
    return (np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x)))) / N


def basin_occupation(B, N, a, Bc):
    x = N * a * (np.asarray(B, dtype=float) - Bc)
    return 0.5 * (1.0 - np.tanh(x / 2))


def dphi_dB(B, N, a, Bc):
    return a * basin_occupation(B, N, a, Bc)


def susceptibility(B, N, a, Bc):
    x = N * a * (np.asarray(B, dtype=float) - Bc)
    with np.errstate(over="ignore"):
        return N * a**2 / (4.0 * np.cosh(x / 2) ** 2)


def peak_height_and_width(N, a, Bc):
    s = 1.0 / (N * abs(a))
    chi_u = lambda u: susceptibility(Bc + u * s, N, a, Bc)      # u = distance in units of 1/(N|a|)
    res = optimize.minimize_scalar(lambda u: -chi_u(u), bracket=(-1.0, 0.3, 2.0), tol=1e-12)
    h = float(chi_u(res.x))

    def bisect(lo, hi):
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if (chi_u(mid) - h / 2) * (chi_u(lo) - h / 2) > 0:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)

    return h, float((bisect(res.x, res.x + 40) - bisect(res.x - 40, res.x)) * s)


def scaling_exponents(Ns, a, Bc):
    logN = np.log(np.asarray(Ns, dtype=float))
    A = np.stack([logN, np.ones_like(logN)], axis=1)
    hw = np.log(np.array([peak_height_and_width(N, a, Bc) for N in Ns]))
    coef = np.linalg.lstsq(A, hw, rcond=None)[0]
    return float(coef[0, 0]), float(coef[0, 1])
