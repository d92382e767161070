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
# # ex2_3_ising_perceptron: The Ising perceptron, a first-order transition to perfect generalization
#
# *Notes: Section 2.6 and Exercise 2.3; background in Sections 2.3 (annealed average),
# 2.4 (entropy $h(m)$, saddle points), 2.5 (first-order transitions, metastability) and
# Exercise 2.2 (finite-$N$ anatomy of a first-order transition).*
#
# **Setup.** A teacher $\theta^*\in\{\pm1\}^N$ labels Gaussian inputs $x\sim\mathcal N(0,I_N)$
# by $y=\mathrm{sign}(\theta^*\cdot x)$. A student $\theta\in\{\pm1\}^N$ predicts
# $\mathrm{sign}(\theta\cdot x)$. From $n=\alpha N$ examples, zero-temperature Bayesian
# learning with a uniform prior puts the posterior uniformly on the *version space*, the
# students that classify every example correctly, and
# $$
# Z=\frac{1}{2^N}\sum_{\theta\in\{\pm1\}^N}\prod_{\mu=1}^n\Theta\big(y^\mu\,\theta\cdot x^\mu\big)
# $$
# is the *fraction* of students consistent with the data. The order parameter is the
# overlap $R(\theta)=\theta\cdot\theta^*/N\in[-1,1]$, the control parameter is the load
# $\alpha=n/N$.
#
# **Conventions.** `log` is the *natural* logarithm everywhere (entropies in nats).
# Functions of $R$ accept scalars or numpy arrays and work elementwise.
#
# **What you implement** (graded, hidden tests) and where it comes from:
#
# | part | function | notes |
# |---|---|---|
# | (b) | `generalization_error(R)` | Ex 2.3(b) |
# | (c) | `overlap_entropy(R)` | Ex 2.3(c), eq. (2.24) of Section 2.4 |
# | (d) | `annealed_counts(N, n)`, `annealed_action(R, alpha)` | Ex 2.3(d), Section 2.3 (annealed average) |
# | (e) | `interior_minimum(alpha)` | Ex 2.3(e), Section 2.4 (saddle points) |
# | (g) | `critical_load()`, `spinodal_load()` | Ex 2.3(g), Section 2.5 (metastability) |
# | brute force | `count_consistent_students(teacher, X)`, `enumerate_version_space(N, alpha, seed)` | Section 2.6, eq. for $Z$ |
#
# Written answers (graded by hand): the latent-heat question of 2.3(g) and the dictionary
# of 2.3(h). Cells marked *public check* print `ok` / `FAIL` and test only internal consistency of
# your own functions; the hidden tests compare with a reference implementation.

# %% tags=["setup"]
import numpy as np
from scipy import optimize, special
import matplotlib.pyplot as plt

LOG2 = np.log(2.0)

# %% tags=["params"]
def draw_params(rng):
    """Parameters of this year's edition, drawn within their valid ranges.

    loads: the loads of the s(R) figure (besides alpha = 0 and alpha_c), one from each
        window: well below alpha_c ~ 1.448, just below it, between alpha_c and the spinodal
        alpha_sp ~ 1.730 (metastable interior minimum), and beyond the spinodal (no
        interior minimum); sorted, 2 decimals.
    sizes, data_sets: the N of the enumeration figure (three from 11..17, and 18) and the
        number of data sets for each, about 8 * 2**((18 - N) / 3) so that every N costs
        about the same (the enumeration cost grows as 2^N).
    first_seed: the seed of the first data set of the enumeration figure.
    """
    windows = [(0.3, 0.9), (0.9, 1.38), (1.50, 1.70), (1.80, 2.4)]
    loads = sorted(round(float(rng.uniform(lo, hi)), 2) for lo, hi in windows)
    sizes = sorted(11 + int(k) for k in rng.choice(7, size=3, replace=False)) + [18]
    data_sets = [int(round(8 * 2 ** ((18 - N) / 3))) for N in sizes]
    return {"loads": loads, "sizes": sizes, "data_sets": data_sets,
            "first_seed": int(rng.integers(0, 10**6))}


# %% tags=["reference"]
# Reference-only helpers (not shown to students).


def _stationary_load(R):
    """alpha(R) solving ds/dR = 0: alpha = pi sqrt(1-R^2) (1-eps(R)) artanh(R), for 0<=R<1."""
    R = np.asarray(R, dtype=float)
    return np.pi * np.sqrt(1.0 - R**2) * (1.0 - np.arccos(R) / np.pi) * np.arctanh(R)


def _stationary_load_slope(R):
    """d alpha(R)/dR; it vanishes exactly where ds/dR and d2s/dR2 vanish together."""
    R = np.asarray(R, dtype=float)
    q = np.sqrt(1.0 - R**2)
    one_minus_eps = 1.0 - np.arccos(R) / np.pi
    return np.pi * (one_minus_eps * (1.0 - R * np.arctanh(R)) / q + np.arctanh(R) / np.pi)


def _spinodal_point():
    """(alpha_sp, R_sp): the maximum of alpha(R) on (0, 1), by root finding on its slope."""
    R_sp = optimize.brentq(_stationary_load_slope, 1e-6, 1.0 - 1e-12, xtol=1e-15)
    return float(_stationary_load(R_sp)), float(R_sp)


def _all_spins(m):
    """All 2^m vectors in {-1,+1}^m as an int8 matrix of shape (2^m, m)."""
    bits = (np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1
    return (2 * bits - 1).astype(np.int8)


# %% [markdown]
# ## (a) The overlap is a magnetization
#
# With $s_i=\theta_i\theta_i^*\in\{\pm1\}$, $R=\frac1N\sum_i s_i$: the overlap is the
# magnetization of the alignment spins, and learning the teacher means magnetizing them to
# $R=1$. (Nothing to code.)
#
# ## (b) Generalization error
#
# Project $x$ onto the plane of $\theta$ and $\theta^*$: the projection is an isotropic 2-d
# Gaussian, the two decision boundaries are lines through the origin at angle
# $\arccos R$, and the labels disagree on two opposite wedges of total angle $2\arccos R$
# out of $2\pi$. Hence $\varepsilon(R)=\arccos(R)/\pi$.
#
# **Task.** Implement `generalization_error`.

# %% tags=["graded"]
def generalization_error(R):
    """Probability that a student at overlap R misclassifies a fresh Gaussian input.

    eps(R) = arccos(R) / pi  (notes, Exercise 2.3(b)).

    Args:
        R: overlap, a float or numpy array with entries in [-1, 1].
    Returns:
        float or np.ndarray of the same shape as R, with values in [0, 1]:
        eps(1) = 0 (the teacher), eps(0) = 1/2, eps(-1) = 1.
    """
    R = np.clip(np.asarray(R, dtype=float), -1.0, 1.0)
    return np.arccos(R) / np.pi


# %% tags=["check"]
@check
def check_generalization_error():
    "eps(1)=0, eps(0)=1/2, eps(-1)=1, and eps decreases with R"
    assert np.allclose(generalization_error(np.array([1.0, 0.0, -1.0])), [0.0, 0.5, 1.0])
    R = np.linspace(-1, 1, 11)
    assert np.all(np.diff(generalization_error(R)) < 0), "eps(R) should decrease with R"


# %% [markdown]
# ## (c) Entropy: the same $h$ as the magnet
#
# A student at overlap $R$ agrees with the teacher on $k=\frac{1+R}{2}N$ components, so there
# are $\binom{N}{k}$ of them, and by Stirling (Section 2.4, eq. (2.24))
# $$
# \frac1N\log\binom{N}{\frac{1+R}{2}N}\;\to\;h(R)=\log2-\frac{1-R}{2}\log(1-R)-\frac{1+R}{2}\log(1+R).
# $$
# At the endpoints use $0\log0=0$: $h(\pm1)=\log 2-\log 2=0$ (one single student), and
# your function must return exactly that, not `nan` (`scipy.special.xlogy` helps).
#
# **Task.** Implement `overlap_entropy`.

# %% tags=["graded"]
def overlap_entropy(R):
    """Entropy per weight (nats) of the students at overlap R with the teacher.

    h(R) = log 2 - (1-R)/2 log(1-R) - (1+R)/2 log(1+R), natural log, with 0 log 0 = 0
    (notes, Exercise 2.3(c); the magnet's h(m) of Section 2.4).

    Args:
        R: overlap, a float or numpy array with entries in [-1, 1].
    Returns:
        float or np.ndarray of the same shape as R. h(0) = log 2 and h(+-1) = 0 exactly
        (a finite 0, never nan).
    """
    R = np.asarray(R, dtype=float)
    return LOG2 - 0.5 * special.xlogy(1.0 - R, 1.0 - R) - 0.5 * special.xlogy(1.0 + R, 1.0 + R)


# %% tags=["check"]
@check
def check_overlap_entropy():
    "h(0)=log 2, h(+-1)=0 without nan, h even in R"
    assert np.isclose(overlap_entropy(0.0), np.log(2)), "h(0) should be log 2 (natural log)"
    ends = overlap_entropy(np.array([-1.0, 1.0]))
    assert np.all(np.isfinite(ends)) and np.allclose(ends, 0.0), "h(+-1) should be 0, not nan"
    R = np.linspace(-0.9, 0.9, 7)
    assert np.allclose(overlap_entropy(R), overlap_entropy(-R))


# %% tags=["solution"]
# Independent check: $h(R)$ against the exact count
# $\frac1N\log\binom{N}{k}$ from `scipy.special.gammaln` at large $N$, including the
# next Stirling correction $-\frac{1}{2N}\log\big(\pi N(1-R^2)/2\big)$; and $\varepsilon(R)$
# against a Monte Carlo estimate with Gaussian inputs for an actual pair of binary
# vectors.
# Independent check 1: h(R) against exact binomial counts (gammaln), N large.
N_big = 10**6
k = np.array([N_big // 20, N_big // 4, N_big // 2, 3 * N_big // 4, 19 * N_big // 20])
R_k = 2 * k / N_big - 1
log_binom = (special.gammaln(N_big + 1) - special.gammaln(k + 1) - special.gammaln(N_big - k + 1)) / N_big
stirling_next = -np.log(np.pi * N_big * (1 - R_k**2) / 2) / (2 * N_big)
dev_leading = np.max(np.abs(log_binom - overlap_entropy(R_k)))
dev_corrected = np.max(np.abs(log_binom - overlap_entropy(R_k) - stirling_next))
assert dev_leading < 1e-4 and dev_corrected < 1e-11
print(f"h(R) vs (1/N) log binom at N=1e6: |diff| = {dev_leading:.2e} (leading), "
      f"< 1e-11 (with the 1/N log N correction)")   # what is left is O(1/(N k)) and round-off: a bound

# Independent check 2: eps(R) against Monte Carlo with Gaussian inputs and binary vectors.
rng_mc = np.random.default_rng(0)
N_mc, n_mc = 40, 200_000
teacher_mc = np.ones(N_mc)
for n_flip in [0, 4, 10, 20, 30]:
    student_mc = teacher_mc.copy()
    student_mc[:n_flip] = -1
    R_mc = student_mc @ teacher_mc / N_mc
    x_mc = rng_mc.standard_normal((n_mc, N_mc))
    err_mc = np.mean(np.sign(x_mc @ student_mc) != np.sign(x_mc @ teacher_mc))
    sigma = np.sqrt(max(err_mc * (1 - err_mc), 1e-12) / n_mc)
    print(f"R = {R_mc:+.2f}: Monte Carlo eps = {err_mc:.4f} +- {sigma:.4f}, "
          f"arccos(R)/pi = {generalization_error(R_mc):.4f}")
    assert abs(err_mc - generalization_error(R_mc)) < 5 * sigma + 1e-12


# %% [markdown]
# ## (d) Push forward to one variable: the annealed action
#
# Average $Z$ over the data. The $n$ examples are independent and a student at overlap $R$
# classifies each correctly with probability $1-\varepsilon(R)$, so, grouping the students
# by the number $k$ of components on which they agree with the teacher
# ($R_k=2k/N-1$, $\binom Nk$ students each),
# $$
# \mathbb E_x Z=\frac1{2^N}\sum_\theta\big(1-\varepsilon(R(\theta))\big)^n
# =\frac1{2^N}\sum_{k=0}^{N}\binom Nk\big(1-\varepsilon(R_k)\big)^n
# \qquad\text{(exact, any }N\text{)}.
# $$
# The summand $\binom Nk(1-\varepsilon(R_k))^n$ is the *expected number of consistent
# students at overlap $R_k$* (this is exact at every $N$, not an approximation).
# Now use (c), $\binom Nk\simeq e^{Nh(R_k)}$, and $n=\alpha N$; the spacing of $R_k$ is $2/N$, so
# the sum becomes an integral,
# $$
# \boxed{\;\mathbb E_x Z\;\simeq\;\frac N2\int_{-1}^{1}dR\;e^{-N s(R)},\qquad
# s(R)=\log2-h(R)-\alpha\log\big(1-\varepsilon(R)\big)\;}
# $$
# up to factors subexponential in $N$. This is the annealed action: entropy $h$ (counting
# students) against a data "field" $-\alpha\log(1-\varepsilon)$ that rewards alignment.
# Sanity checks: $s(0)=0$ at $\alpha=0$ (all students consistent, $\mathbb E Z=1$), and
# $s(1)=\log 2$ for every $\alpha$ (one student, the teacher, always consistent).
# By the saddle point (Section 2.4), $\frac1N\log\mathbb E_xZ\to-\min_R s(R)$.
#
# **Tasks.** Implement `annealed_counts` (the exact finite-$N$ summand above) and
# `annealed_action`.

# %% tags=["graded"]
def annealed_counts(N, n):
    """Expected number of consistent students at each overlap, exactly, for finite N.

    E_x[#{theta consistent with n examples, with k components equal to the teacher's}]
        = binom(N, k) * (1 - eps(R_k))**n,   R_k = 2k/N - 1,   k = 0, ..., N
    (notes, Exercise 2.3(d) before the large-N limit). Summing over k and dividing by
    2**N gives E_x Z exactly.

    Args:
        N: int >= 1, number of weights.
        n: int >= 0, number of examples.
    Returns:
        np.ndarray of floats, shape (N + 1,); entry k belongs to overlap R_k = 2k/N - 1
        (so the last entry, k = N, is the teacher and equals 1).
    """
    k = np.arange(N + 1)
    R_k = 2.0 * k / N - 1.0
    return special.comb(N, k) * (1.0 - generalization_error(R_k)) ** n


# %% tags=["graded"]
def annealed_action(R, alpha):
    """Annealed action s(R) = log 2 - h(R) - alpha log(1 - eps(R)), natural log.

    E_x Z ~ integral dR exp(-N s(R)) at load alpha = n/N (notes, Exercise 2.3(d)).

    Args:
        R: overlap, float or np.ndarray with entries in (-1, 1] (s = +inf at R = -1 when
            alpha > 0).
        alpha: load, float or np.ndarray, >= 0. R and alpha are broadcast against each
            other with the usual numpy rules (e.g. R of shape (m,) with a scalar alpha,
            or R[:, None] with alpha[None, :] for a table).
    Returns:
        float or np.ndarray of the broadcast shape. s(1) = log 2 for every alpha, and
        s(0) = 0 at alpha = 0.
    """
    R = np.asarray(R, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        return LOG2 - overlap_entropy(R) - alpha * np.log1p(-generalization_error(R))


# %% tags=["check"]
@check
def check_annealed_action():
    "s(1)=log 2 for all loads, s(0)=0 at alpha=0, and broadcasting works"
    assert np.allclose(annealed_action(1.0, np.array([0.0, 0.7, 3.0])), np.log(2))
    assert np.isclose(annealed_action(0.0, 0.0), 0.0)
    assert annealed_action(-1.0, 0.5) == np.inf, "s(-1) = +inf at a positive load (the anti-teacher is never consistent)"
    table = annealed_action(np.linspace(-0.5, 0.9, 5)[:, None], np.array([0.5, 1.0, 2.0])[None, :])
    assert np.shape(table) == (5, 3), "R[:, None] and alpha[None, :] should give a (5, 3) table"


@check
def check_annealed_counts():
    "n=0 gives the binomial coefficients; the action is the large-N limit of the counts"
    assert np.allclose(annealed_counts(6, 0), [1, 6, 15, 20, 15, 6, 1])
    assert np.isclose(annealed_counts(9, 13)[-1], 1.0), "the teacher (k = N) is always consistent"
    # (1/N) log of the expected count at overlap R approaches log2 - s(R) as N grows
    N, alpha = 400, 1.0
    c = annealed_counts(N, int(alpha * N))
    k = 3 * N // 4
    R = 2 * k / N - 1
    assert abs(np.log(c[k]) / N - (np.log(2) - annealed_action(R, alpha))) < 0.02


# %% [markdown]
# ## (e) The action for several loads and its critical points
#
# Setting $\partial_R s=0$ with $h'(R)=-\operatorname{artanh}R$ and
# $\varepsilon'(R)=-1/(\pi\sqrt{1-R^2})$ gives
# $$
# \operatorname{artanh}R=\frac{\alpha}{\pi\sqrt{1-R^2}\,\big(1-\varepsilon(R)\big)} .
# $$
# *Hint:* this is easy to solve for $\alpha$ as a function of $R$; sketch that function on
# $(0,1)$. For $R<0$ and $\alpha>0$ the action is decreasing, so all interior critical
# points lie in $[0,1)$. For small enough $\alpha$ there are two of them: a minimum (the
# interior basin, $R^*(\alpha)$) and, closer to $R=1$, a maximum (the barrier).
#
# **Task.** Implement `interior_minimum(alpha)`: the interior *minimum* (not the barrier
# maximum), accurate to about $10^{-6}$ in $R$. Use a root finder or a bounded minimizer;
# a coarse grid alone is not accurate enough.

# %% tags=["graded"]
def interior_minimum(alpha):
    """Interior local minimum of the annealed action at load alpha (notes, Ex 2.3(e)).

    Args:
        alpha: float >= 0, the load.
    Returns:
        (R_star, s_star): a tuple of two floats, the location 0 <= R_star < 1 of the local
        minimum of s(R) = annealed_action(R, alpha) inside (-1, 1) (not the barrier
        maximum, and not the boundary point R = 1) and its value s(R_star).
        At alpha = 0 this is (0.0, 0.0). If the interior minimum does not exist (alpha
        beyond the spinodal load), return (nan, nan).
    """
    alpha = float(alpha)
    if alpha == 0.0:
        return 0.0, 0.0
    alpha_sp, R_sp = _spinodal_point()
    if alpha >= alpha_sp:
        return float("nan"), float("nan")
    # On (0, R_sp) the stationary load alpha(R) increases from 0 to alpha_sp; the root
    # there is the minimum (the other root, on (R_sp, 1), is the barrier maximum).
    R_star = optimize.brentq(lambda R: _stationary_load(R) - alpha, 0.0, R_sp,
                             xtol=1e-15)
    return float(R_star), float(annealed_action(R_star, alpha))


# %% tags=["check"]
@check
def check_interior_minimum():
    "R* is a stationary point of s with positive curvature, and moves right with alpha"
    R1, s1 = interior_minimum(0.8)
    d = 1e-4
    left, mid, right = annealed_action(np.array([R1 - d, R1, R1 + d]), 0.8)
    assert np.isclose(s1, mid), "s_star should be s(R_star)"
    assert abs(right - left) / (2 * d) < 1e-4, "ds/dR should vanish at R_star"
    assert right + left - 2 * mid > 0, "that is a maximum, not a minimum"
    assert interior_minimum(1.2)[0] > R1, "R* should drift toward 1 as alpha grows"
    assert np.allclose(interior_minimum(0.0), 0.0), "at alpha = 0 the minimum is R* = 0 with s = 0"


# %% [markdown]
# ## (f) The teacher basin
#
# $s(1)=\log2-0-\alpha\log 1=\log 2$ for every $\alpha$. With $\delta=1-R\to0$,
# $h(1-\delta)\simeq\frac\delta2\log\frac{2e}{\delta}$ and
# $\varepsilon(1-\delta)\simeq\sqrt{2\delta}/\pi$, so
# $$
# s(1-\delta)-s(1)\simeq-\frac\delta2\log\frac{2e}\delta+\frac{\alpha\sqrt{2\delta}}{\pi}>0
# $$
# for $\delta$ small enough at any $\alpha>0$: $\sqrt\delta\gg\delta\log(1/\delta)$. So $R=1$ is
# always a local minimum (at the edge of the domain, with a square-root cusp: $\partial_R s\to-\infty$
# as $R\to1$), unlike the magnet's aligned state. The public check below tests this with
# your `annealed_action`.

# %% tags=["check"]
@check
def check_teacher_is_a_local_minimum():
    "s(1)=log 2 and s(1-delta) > s(1) for small delta, at several loads"
    for alpha in [0.2, 1.0, 3.0]:
        assert np.isclose(annealed_action(1.0, alpha), np.log(2))
        delta = 1e-7
        assert annealed_action(1 - delta, alpha) > np.log(2), f"R=1 is not a local min at alpha={alpha}"


# %% tags=["solution"]
# Independent check 3: R = 1 is a local minimum at every load, and the small-delta expansion.
for alpha in [0.05, 0.5, 1.0, 1.448, 2.0, 5.0]:
    delta = np.logspace(-14, -9, 6) if alpha < 0.1 else np.logspace(-10, -5, 6)
    excess = annealed_action(1 - delta, alpha) - np.log(2)
    expansion = -delta / 2 * np.log(2 * np.e / delta) + alpha * np.sqrt(2 * delta) / np.pi
    assert np.all(excess > 0), alpha
    assert np.allclose(excess, expansion, rtol=2e-3), (alpha, excess / expansion)
print("R=1 is a local minimum for all tested loads; expansion of s(1-delta) agrees to 0.2%")

# %% [markdown]
# ## (g) The interior basin, the crossing, and the transition
#
# At $\alpha=0$ the interior minimum $R^*=0$ has $s=0<\log2=s(1)$: the cloud of typical
# students dominates. As $\alpha$ grows, $R^*(\alpha)$ drifts toward 1 and $s(R^*)$ rises
# (by the envelope theorem $\frac{d}{d\alpha}s(R^*(\alpha),\alpha)=-\log(1-\varepsilon(R^*))>0$).
# The basins exchange dominance at the *critical load* $\alpha_c$ where
# $s(R^*(\alpha_c))=s(1)=\log2$. The interior minimum survives as a metastable state up to
# the *spinodal load* $\alpha_{sp}$, where it merges with the barrier maximum
# ($\partial_Rs=\partial_R^2s=0$ together) and disappears.
#
# **Tasks.** Implement `critical_load()` and `spinodal_load()` by root finding, to about
# $10^{-6}$ relative accuracy. The notes quote $\alpha_c\approx1.45$, $R^*\approx0.70$,
# $\varepsilon^*\approx0.25$.

# %% tags=["graded"]
def critical_load():
    """The annealed critical load, where the interior basin and the teacher exchange dominance.

    alpha_c solves s(R*(alpha), alpha) = s(1) = log 2, with R*(alpha) the interior minimum
    (notes, Exercise 2.3(g)).

    Returns:
        (alpha_c, R_star, eps_star): tuple of three floats; R_star = R*(alpha_c) is the
        interior minimum at the transition and eps_star = arccos(R_star)/pi its
        generalization error. Computed by root finding (relative accuracy ~1e-6).
    """
    alpha_sp, _ = _spinodal_point()

    def gap(alpha):
        return interior_minimum(alpha)[1] - LOG2

    alpha_c = optimize.brentq(gap, 1e-3, alpha_sp * (1 - 1e-12), xtol=1e-14)
    R_star = interior_minimum(alpha_c)[0]
    return float(alpha_c), float(R_star), float(generalization_error(R_star))


# %% tags=["graded"]
def spinodal_load():
    """The load where the interior minimum of s(R) disappears (upper spinodal).

    There ds/dR and d2s/dR2 vanish together at some R in (0, 1): the interior minimum
    merges with the barrier maximum (notes, Exercise 2.3(g), Section 2.5 metastability).
    For larger alpha the only minimum of s is R = 1.

    Returns:
        alpha_sp: float, computed by root finding / optimization (relative accuracy ~1e-6).
    """
    return _spinodal_point()[0]


# %% tags=["check"]
@check
def check_critical_and_spinodal():
    "at alpha_c the interior minimum is degenerate with R=1; alpha_c < alpha_sp; notes' values"
    alpha_c, R_c, eps_c = critical_load()
    assert np.isclose(interior_minimum(alpha_c)[1], np.log(2), atol=1e-8), "s(R*) should equal s(1)"
    assert np.isclose(eps_c, generalization_error(R_c))
    assert abs(alpha_c - 1.45) < 0.01 and abs(R_c - 0.70) < 0.01, "notes: alpha_c ~ 1.45, R* ~ 0.70"
    alpha_sp = spinodal_load()
    assert alpha_sp > alpha_c, "the spinodal lies above the critical load"
    assert np.isfinite(interior_minimum(0.999 * alpha_sp)[0]), "interior minimum exists just below"
    assert np.isnan(interior_minimum(1.001 * alpha_sp)[0]), "...and is gone just above"


# %% [markdown]
# The figure below shows $s(R)$ for several loads, with the interior minima (dots) and the
# teacher $R=1$ (squares). 

# %% tags=["figure"]
alpha_c_fig, _, _ = critical_load()
alpha_sp_fig = spinodal_load()
R_grid = np.linspace(-0.995, 1.0, 800)
fig, ax = plt.subplots(figsize=(7, 4.5))
loads_fig = sorted([0.0, *PARAMS["loads"], alpha_c_fig])   # this year's loads, plus 0 and alpha_c
for a, color in zip(loads_fig, plt.cm.viridis(np.linspace(0, 0.9, len(loads_fig)))):
    label = rf"$\alpha={a:.2f}$" + (r" $=\alpha_c$" if a == alpha_c_fig else "")
    ax.plot(R_grid, annealed_action(R_grid, a), color=color, label=label)
    R_s, s_s = interior_minimum(a)
    if np.isfinite(R_s):
        ax.plot(R_s, s_s, "o", color=color)
    ax.plot(1.0, annealed_action(1.0, a), "s", color=color)
ax.axhline(np.log(2), color="grey", ls=":", lw=1)
ax.set(xlabel="overlap $R$", ylabel="$s(R)$ (nats)", ylim=(-0.05, 1.2),
       title="Annealed action; dots: interior minimum, squares: teacher $R=1$")
ax.legend(fontsize=8)
plt.show()

# %% tags=["solution"]
# Independent checks. (i) $\alpha_c$ by a second route:
# `scipy.optimize.fsolve` on the pair $\{\partial_R s=0,\ s=\log 2\}$ in $(R,\alpha)$ with
# finite-difference derivatives of `annealed_action`; (ii) $\alpha_c$ by a third route: a
# dense grid in $R$ for the global minimizer of $s$, bisected in $\alpha$ for the switch to
# $R=1$; (iii) the spinodal by bisecting in $\alpha$ on a dense-grid count of interior
# local minima of $s$, and by `fsolve` on $\{\partial_Rs=0,\ \partial_R^2s=0\}$ (finite
# differences); (iv) the interior minimum vs a bounded golden-section minimizer.
(alpha_c, R_c, eps_c), alpha_sp = critical_load(), spinodal_load()
print(f"root finding:  alpha_c = {alpha_c:.8f}, R* = {R_c:.8f}, eps* = {eps_c:.8f}, "
      f"alpha_sp = {alpha_sp:.8f}")
latent = -np.log1p(-eps_c)
print(f"latent heat  -log(1-eps*) = {latent:.5f};  alpha_c * latent = {alpha_c * latent:.6f} "
      f"= h(R*) = {overlap_entropy(R_c):.6f}")
assert abs(alpha_c * latent - overlap_entropy(R_c)) < 1e-9


def ds_dR(R, alpha, d=1e-6):
    return (annealed_action(R + d, alpha) - annealed_action(R - d, alpha)) / (2 * d)


def d2s_dR2(R, alpha, d=1e-4):
    return (annealed_action(R + d, alpha) - 2 * annealed_action(R, alpha)
            + annealed_action(R - d, alpha)) / d**2


# (i) fsolve on {ds/dR = 0, s = log 2}
R_i, a_i = optimize.fsolve(lambda v: [ds_dR(v[0], v[1]), annealed_action(v[0], v[1]) - np.log(2)],
                           x0=[0.6, 1.3], xtol=1e-13)
assert abs(a_i - alpha_c) < 1e-9 and abs(R_i - R_c) < 1e-9
print(f"(i)   fsolve:           alpha_c = {a_i:.8f}, R* = {R_i:.8f}  (|diff| < 1e-9, < 1e-9)")

# (ii) dense grid for the global minimizer, bisection in alpha for the jump to R = 1
R_dense = np.linspace(0.0, 1.0, 400_001)


def global_minimizer_is_teacher(alpha):
    s_vals = annealed_action(R_dense, alpha)
    return np.argmin(s_vals) == len(R_dense) - 1


lo, hi = 1.0, 1.7
for _ in range(40):
    mid = 0.5 * (lo + hi)
    lo, hi = (lo, mid) if global_minimizer_is_teacher(mid) else (mid, hi)
alpha_c_grid = 0.5 * (lo + hi)
s_grid = annealed_action(R_dense, alpha_c_grid)
R_c_grid = R_dense[np.argmin(s_grid[:-1000])]
assert abs(alpha_c_grid - alpha_c) < 1e-9 and abs(R_c_grid - R_c) < 1e-4
print(f"(ii)  grid + bisection: alpha_c = {alpha_c_grid:.8f}, R* = {R_c_grid:.8f}  "
      f"(|diff| < 1e-9, {abs(R_c_grid - R_c):.1e})")

# (iii) spinodal: count interior local minima on a dense grid; and fsolve on s' = s'' = 0
R_open = np.linspace(0.0, 0.9999, 400_001)


def has_interior_minimum(alpha):
    s_vals = annealed_action(R_open, alpha)
    return np.any((s_vals[1:-1] < s_vals[:-2]) & (s_vals[1:-1] < s_vals[2:]))


lo, hi = 1.0, 3.0
for _ in range(40):
    mid = 0.5 * (lo + hi)
    lo, hi = (mid, hi) if has_interior_minimum(mid) else (lo, mid)
alpha_sp_grid = 0.5 * (lo + hi)
R_sp_f, a_sp_f = optimize.fsolve(lambda v: [ds_dR(v[0], v[1]), d2s_dR2(v[0], v[1])],
                                 x0=[0.85, 1.7], xtol=1e-12)
assert abs(alpha_sp_grid - alpha_sp) < 1e-8 and abs(a_sp_f - alpha_sp) < 1e-8
print(f"(iii) spinodal: grid scan {alpha_sp_grid:.8f}, fsolve {a_sp_f:.8f} at R = {R_sp_f:.5f}  (|diff| < 1e-8, < 1e-8)")
scan = np.linspace(0.01, 3.0, 60)
assert [has_interior_minimum(a) for a in scan] == [a < alpha_sp for a in scan]

# (iv) interior minimum against a bounded golden-section minimizer
for a in [0.1, 0.5, 1.0, alpha_c, 1.7]:
    res = optimize.minimize_scalar(lambda R: annealed_action(R, a), bounds=(-0.5, 0.85 if a > 1.6 else 0.8),
                                   method="bounded", options={"xatol": 1e-10})
    R_m, s_m = interior_minimum(a)
    assert abs(res.x - R_m) < 1e-6 and abs(res.fun - s_m) < 1e-12, (a, res.x, R_m)
print("(iv)  interior_minimum agrees with a bounded minimizer to < 1e-6 in R")

# %% [markdown]
# ### The jump, and what $\alpha$ is conjugate to
#
# The left panel shows the generalization error of the global minimizer: it follows the
# interior branch up to $\alpha_c$ and then jumps to $0$. Dashed: the metastable branches,
# the interior one (until the spinodal) and the teacher ($\varepsilon=0$, a local minimum
# at every load). In the language of Exercise 2.2 with $\alpha$ as the control parameter,
# $\varphi(\alpha)=-\frac1N\log\mathbb E_xZ$ and
# $\partial_\alpha\varphi=\mathbb E\big[-\log(1-\varepsilon(R))\big]$. The middle and right
# panels compute it *exactly at finite $N$* from the annealed sum of part (d) (continuous
# $\alpha$): a sigmoid that sharpens into a jump, and a peak of
# $-\partial_\alpha^2\varphi=N\,\mathrm{Var}[-\log(1-\varepsilon)]$ growing like $N$.

# %% tags=["figure"]
alpha_c, R_c, eps_c = critical_load()
alpha_sp = spinodal_load()
alphas = np.linspace(0.0, 2.4, 241)
eps_interior = np.array([generalization_error(interior_minimum(a)[0]) for a in alphas])
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
ax = axes[0]
stable = alphas <= alpha_c
ax.plot(alphas[stable], eps_interior[stable], "C0", lw=2, label="global minimizer")
ax.plot([alpha_c, alphas[-1]], [0, 0], "C0", lw=2)
meta = (alphas > alpha_c) & np.isfinite(eps_interior)
ax.plot(alphas[meta], eps_interior[meta], "C0--", label="metastable interior basin")
ax.plot([0, alpha_c], [0, 0], "C1--", label="metastable teacher $R=1$")
ax.plot([alpha_c, alpha_c], [0, eps_c], "C0:", lw=1)
ax.axvline(alpha_c, color="k", lw=0.8)
ax.axvline(alpha_sp, color="r", lw=0.8)
ax.text(alpha_c, 0.45, rf" $\alpha_c={alpha_c:.3f}$")
ax.text(alpha_sp, 0.38, rf" $\alpha_{{sp}}={alpha_sp:.3f}$", color="r")
ax.set(xlabel=r"load $\alpha$", ylabel=r"$\varepsilon$", title="generalization error (annealed)")
ax.legend(fontsize=8)

alpha_fine = np.linspace(1.0, 2.0, 801)
for N in [50, 200, 1000]:
    k = np.arange(N + 1)
    R_k = 2 * k / N - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        cost = -np.log1p(-generalization_error(R_k))      # -log(1-eps), the conjugate observable
    log_w = (special.gammaln(N + 1) - special.gammaln(k + 1) - special.gammaln(N - k + 1))[None, :] \
        - N * alpha_fine[:, None] * cost[None, :]
    w = np.exp(log_w - log_w.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    cost = np.where(np.isfinite(cost), cost, 0.0)         # R=-1 carries zero weight
    mean = w @ cost
    var = w @ cost**2 - mean**2
    axes[1].plot(alpha_fine, mean, label=f"N={N}")
    axes[2].plot(alpha_fine, N * var, label=f"N={N}")
phi_prime = np.where(alpha_fine < alpha_c, -np.log1p(-generalization_error(
    np.array([interior_minimum(a)[0] if a < alpha_c else 1.0 for a in alpha_fine]))), 0.0)
axes[1].plot(alpha_fine, phi_prime, "k--", label=r"$N=\infty$")
axes[1].set(xlabel=r"$\alpha$", ylabel=r"$\partial_\alpha\varphi=\langle-\log(1-\varepsilon)\rangle$",
            title="first derivative: a jump")
axes[2].set(xlabel=r"$\alpha$", ylabel=r"$-\partial^2_\alpha\varphi$", title="second derivative: a growing peak")
for ax in axes[1:]:
    ax.axvline(alpha_c, color="k", lw=0.8)
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# **(g), written.** What do $\partial_\alpha\varphi$ and $-\partial^2_\alpha\varphi$ look
# like at finite $N$, what plays the role of the latent heat, and what happens between
# $\alpha_c$ and the spinodal?

# %% [markdown] tags=["answer"] points=1
# *Model answer.* With $\varphi(\alpha)=-\frac1N\log\mathbb E_xZ\to\min_Rs(R,\alpha)$, the
# observable conjugate to the load is $\partial_\alpha s=-\log(1-\varepsilon(R))$, the
# log-inverse probability that a student fits one more example (the data cost per example).
# At finite $N$, $\partial_\alpha\varphi=\mathbb E[-\log(1-\varepsilon)]$ is a sigmoid
# between $-\log(1-\varepsilon^*)\approx0.29$ (interior phase) and $0$ (teacher phase) of
# width $\sim1/(N\Delta)$ around $\alpha_c$, sharpening into a jump as $N\to\infty$, and
# $-\partial_\alpha^2\varphi=N\,\mathrm{Var}[-\log(1-\varepsilon)]\ge0$ is a peak of
# height $\sim N\Delta^2/4$ at $\alpha_c$, a nascent delta function (the analogue of the
# heat capacity / susceptibility of Exercise 2.2). The **latent heat** is the jump
# $\Delta=\Delta\,\partial_\alpha\varphi=-\log(1-\varepsilon^*)=\log\frac{1}{1-\varepsilon^*}\approx0.29$
# nats per example: the discontinuity of the conjugate observable, which in the
# generalization language is the jump of the error from $\varepsilon^*\approx0.25$ to $0$.
# Equivalently (Clausius–Clapeyron-like, since $s(R^*)=\log 2$ at $\alpha_c$),
# $\alpha_c\Delta=h(R^*)\approx0.42$: the entropy per weight of the interior basin,
# released in the jump to a single student. Between $\alpha_c\approx1.45$ and the spinodal
# $\alpha_{sp}\approx1.73$ the interior basin is metastable: it is no longer the global
# minimum, but local dynamics (e.g. single-weight-flip sampling of the version space)
# started among typical students must cross a barrier of height $\propto N$ to reach the
# teacher, which takes a time exponential in $N$. So in practice the student stays at
# $\varepsilon\approx\varepsilon(R^*(\alpha))>0$ until the spinodal, where the interior
# minimum merges with the barrier and disappears and the system falls to $R=1$: the
# observed transition lags the thermodynamic one (hysteresis, delayed generalization).
# In the other direction there is no lower spinodal: $R=1$ is a local minimum at every load.

# %% [markdown]
# ## Brute force: enumerate the version space
#
# For $N\le20$ we can count consistent students exactly. Build all $2^N$ students as a
# $\pm1$ matrix (in chunks, or split $\theta=(\theta_a,\theta_b)$ so that
# $\theta\cdot x=\theta_a\cdot x_a+\theta_b\cdot x_b$), compute their fields on the inputs,
# and keep those that agree in sign with the teacher on every input. Vectorize: $N=18$
# should take well under a second per data set.
#
# **Tasks.** Implement `count_consistent_students(teacher, X)` (deterministic: given data,
# an exact histogram of the version space by overlap) and `enumerate_version_space(N,
# alpha, seed)` (draws the data and summarizes). Then compare with the annealed theory:
# the *mean* of the histogram over data sets is exactly `annealed_counts` (part (d)), while
# $\frac1N\mathbb E\log Z$ (quenched) lies below $\frac1N\log\mathbb E Z$ (annealed) by Jensen.

# %% tags=["graded"]
def count_consistent_students(teacher, X):
    """Histogram, by overlap with the teacher, of all students consistent with the data.

    Labels are y = sign(X @ teacher). A student theta in {-1,+1}^N is consistent if
    sign(X @ theta) == y for every row of X. All 2^N students are enumerated (N <= 20).

    Args:
        teacher: np.ndarray of shape (N,) with entries +-1.
        X: np.ndarray of shape (n, N), one input per row (n may be 0).
    Returns:
        np.ndarray of ints, shape (N + 1,): entry k is the number of consistent students
        that agree with the teacher on exactly k components (overlap R = 2k/N - 1). The
        teacher itself is counted in the last entry, which is therefore 1. With n = 0 the
        entries are the binomial coefficients binom(N, k).
    """
    teacher = np.asarray(teacher, dtype=float)
    X = np.asarray(X, dtype=float).reshape(-1, teacher.size)
    N = teacher.size
    Zin = X * np.sign(X @ teacher)[:, None]           # y^mu x^mu: consistent iff theta.z > 0
    Na = N // 2
    Sa, Sb = _all_spins(Na), _all_spins(N - Na)
    agree_a = (Sa == teacher[:Na]).sum(axis=1)
    agree_b = (Sb == teacher[Na:]).sum(axis=1)
    Fa = Sa @ Zin[:, :Na].T                           # (2^Na, n) partial fields
    Fb = Sb @ Zin[:, Na:].T                           # (2^Nb, n)
    counts = np.zeros(N + 1, dtype=np.int64)
    chunk = max(1, 2**20 // Sb.shape[0])
    for start in range(0, Sa.shape[0], chunk):
        ok = np.ones((min(chunk, Sa.shape[0] - start), Sb.shape[0]), dtype=bool)
        fa = Fa[start:start + chunk]
        for mu in range(Zin.shape[0]):
            ok &= (fa[:, mu, None] + Fb[None, :, mu]) > 0
            if not ok.any():
                break
        ia, ib = np.nonzero(ok)
        counts += np.bincount(agree_a[start + ia] + agree_b[ib], minlength=N + 1)
    return counts


# %% tags=["graded"]
def enumerate_version_space(N, alpha, seed):
    """Draw one data set at load alpha and enumerate its version space exactly (N <= 20).

    Data: rng = np.random.default_rng(seed); teacher = rng.choice([-1, 1], size=N);
    X = rng.standard_normal((n, N)) with n = round(alpha * N) (nearest integer).
    (The hidden tests do not depend on this exact random stream.)

    Args:
        N: int, 1 <= N <= 20.
        alpha: float >= 0, the load.
        seed: int, seed of the data.
    Returns:
        dict with keys
          "n": int, the number of examples round(alpha * N);
          "R": np.ndarray (N + 1,), the overlaps 2k/N - 1, k = 0..N;
          "counts": np.ndarray of ints (N + 1,), count_consistent_students(teacher, X);
          "Z": int, the number of consistent students (sum of counts, >= 1);
          "log_Z": float, (1/N) log(Z / 2**N), the log of the *fraction* of consistent
                   students per weight as in the notes (between -log 2 and 0);
          "eps_mean": float, the mean of arccos(R)/pi over the consistent students.
    """
    rng = np.random.default_rng(seed)
    n = int(round(alpha * N))
    teacher = rng.choice([-1, 1], size=N)
    X = rng.standard_normal((n, N))
    counts = count_consistent_students(teacher, X)
    R = 2.0 * np.arange(N + 1) / N - 1.0
    Z = int(counts.sum())
    return {
        "n": n,
        "R": R,
        "counts": counts,
        "Z": Z,
        "log_Z": float(np.log(Z) / N - LOG2),
        "eps_mean": float(counts @ generalization_error(R) / Z),
    }


# %% tags=["check"]
@check
def check_count_consistent_students():
    "small N against a plain loop over all students"
    import itertools
    rng = np.random.default_rng(1)
    N, n = 7, 6
    teacher, X = rng.choice([-1, 1], size=N), rng.standard_normal((n, N))
    y = np.sign(X @ teacher)
    expected = np.zeros(N + 1, dtype=int)
    for theta in itertools.product([-1, 1], repeat=N):
        theta = np.array(theta)
        if np.all(np.sign(X @ theta) == y):
            expected[int(np.sum(theta == teacher))] += 1
    assert np.array_equal(count_consistent_students(teacher, X), expected)
    assert np.array_equal(count_consistent_students(teacher, X[:0]), [1, 7, 21, 35, 35, 21, 7, 1])
    assert np.array_equal(count_consistent_students(-teacher, X), expected), \
        "the teacher -theta* labels every x the other way: its students are the -theta, with the same counts"


@check
def check_enumerate_version_space_without_data():
    "alpha = 0: every student is consistent, counts are binomials, log_Z = 0 and eps_mean = 1/2"
    out = enumerate_version_space(8, 0.0, seed=5)
    assert out["n"] == 0 and out["Z"] == 2**8 and np.isclose(out["log_Z"], 0.0)
    assert np.array_equal(out["counts"], [1, 8, 28, 56, 70, 56, 28, 8, 1])
    assert np.isclose(out["eps_mean"], 0.5), "eps(R) + eps(-R) = 1: the mean over all students is 1/2"


@check
def check_enumerate_version_space():
    "the teacher is always consistent, and the summary is self-consistent"
    out = enumerate_version_space(10, 1.5, seed=3)
    assert out["n"] == 15 and out["counts"][-1] == 1 and out["Z"] == np.sum(out["counts"])
    assert np.isclose(out["log_Z"], np.log(out["Z"]) / 10 - np.log(2))


# %% tags=["solution"]
# Independent checks. (v) `count_consistent_students` against a plain
# loop over all students (itertools) for $N=9$ on several data sets; (vi) the mean
# histogram over 300 data sets at $N=14$ against the exact annealed expectation
# `annealed_counts` (difference in units of its standard error); (vii) the exact finite-$N$
# annealed sum against the saddle point $-\min_R s$ at $N=2\cdot10^4$.
import itertools

# (v) plain loop
rng_v = np.random.default_rng(5)
for trial in range(3):
    N_v, n_v = 9, int(rng_v.integers(3, 15))
    teacher_v = rng_v.choice([-1, 1], size=N_v)
    X_v = rng_v.standard_normal((n_v, N_v))
    y_v = np.sign(X_v @ teacher_v)
    thetas = np.array(list(itertools.product([-1, 1], repeat=N_v)))
    ok = np.all(np.sign(X_v @ thetas.T) == y_v[:, None], axis=0)
    expected = np.bincount((thetas[ok] == teacher_v).sum(axis=1), minlength=N_v + 1)
    assert np.array_equal(count_consistent_students(teacher_v, X_v), expected)
print("(v)   count_consistent_students == plain loop on 3 data sets (N=9)")

# (vi) mean histogram over data sets vs the exact annealed expectation
N_vi, alpha_vi, seeds_vi = 14, 1.0, 300
hist = np.array([enumerate_version_space(N_vi, alpha_vi, s)["counts"] for s in range(seeds_vi)])
expected_counts = annealed_counts(N_vi, round(alpha_vi * N_vi))
Z_samples = hist.sum(axis=1)
z_score = (Z_samples.mean() - expected_counts.sum()) / (Z_samples.std(ddof=1) / np.sqrt(seeds_vi))
print(f"(vi)  N={N_vi}, alpha={alpha_vi}: mean Z = {Z_samples.mean():.1f}, "
      f"exact E Z = {expected_counts.sum():.1f}, z-score {z_score:+.2f}")
assert abs(z_score) < 4
k_mid = slice(N_vi // 2, N_vi + 1)
se = hist[:, k_mid].std(axis=0, ddof=1) / np.sqrt(seeds_vi) + 1e-9
assert np.all(np.abs(hist[:, k_mid].mean(axis=0) - expected_counts[k_mid]) < 4.5 * se + 1e-9)

# (vii) finite-N annealed sum -> saddle point
N_vii = 20_000
k = np.arange(N_vii + 1)
R_k = 2 * k / N_vii - 1
log_binom = special.gammaln(N_vii + 1) - special.gammaln(k + 1) - special.gammaln(N_vii - k + 1)
for a in [0.5, 1.0, 1.4, 1.5, 2.0]:
    with np.errstate(divide="ignore"):
        terms = log_binom + round(a * N_vii) * np.log1p(-generalization_error(R_k))
    exact = (special.logsumexp(terms) - N_vii * np.log(2)) / N_vii
    R_min, s_min_a = interior_minimum(a)
    saddle = -min(np.log(2), s_min_a if np.isfinite(s_min_a) else np.inf)
    print(f"(vii) alpha={a}: (1/N) log E Z = {exact:+.5f} (N=2e4), -min s = {saddle:+.5f}")
    assert abs(exact - saddle) < 1e-3

# %% [markdown]
# The figure compares enumeration (averages over data sets) with the annealed theory.
# Left: $\frac1N\log Z$, quenched average $\frac1N\langle\log Z\rangle$ (dots) and
# $\frac1N\log\langle Z\rangle$ (crosses) for several $N$, against the exact finite-$N$
# annealed value (thin lines, from `annealed_counts`) and the $N\to\infty$ annealed value
# $-\min_Rs$ (black). The crosses estimate the annealed average directly and scatter
# around the thin lines; the dots, the
# typical (quenched) value, lie below them, as Jensen's inequality requires. Right: the
# generalization error averaged over the version space and then over data sets (dots),
# against the annealed ratio $\sum_k\mathbb E[\#_k]\,\varepsilon(R_k)/\sum_k\mathbb E[\#_k]$
# (thin lines, from `annealed_counts`) and its $N\to\infty$ limit, which jumps at
# $\alpha_c$. At these sizes the transition is a broad crossover (Exercise 2.2), and the
# enumerated students generalize somewhat earlier than the annealed prediction: the annealed
# average overweights weakly constraining data sets, and the exact (quenched) transition
# sits at the lower load $\alpha_c\approx1.245$ (Appendix A).

# %% tags=["figure"]
sizes = PARAMS["sizes"]
alpha_bf = np.linspace(0.0, 3.0, 13)
n_seeds = dict(zip(sizes, PARAMS["data_sets"]))   # data sets per size (enumeration cost grows as 2^N)
alpha_th = np.linspace(0.0, 3.0, 301)
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
for N, color in zip(sizes, ["C0", "C1", "C2", "C3"]):
    mean_logZ, logmeanZ, mean_eps = [], [], []
    for a in alpha_bf:
        runs = [enumerate_version_space(N, a, PARAMS["first_seed"] + seed) for seed in range(n_seeds[N])]
        mean_logZ.append(np.mean([r["log_Z"] for r in runs]))
        logmeanZ.append(np.log(np.mean([r["Z"] for r in runs])) / N - np.log(2))
        mean_eps.append(np.mean([r["eps_mean"] for r in runs]))
    axes[0].plot(alpha_bf, mean_logZ, "o", color=color, label=f"N={N}: quenched")
    axes[0].plot(alpha_bf, logmeanZ, "x", color=color)
    axes[1].plot(alpha_bf, mean_eps, "o-", color=color, label=f"N={N}: enumeration")
    # exact finite-N annealed theory at the integer n = round(alpha N)
    n_vals = np.arange(0, int(3.0 * N) + 1)
    table = np.array([annealed_counts(N, n) for n in n_vals])
    R_N = 2 * np.arange(N + 1) / N - 1
    axes[0].plot(n_vals / N, np.log(table.sum(axis=1)) / N - np.log(2), "-", color=color, lw=0.8)
    axes[1].plot(n_vals / N, table @ generalization_error(R_N) / table.sum(axis=1), "-", color=color, lw=0.8)
alpha_c, R_c, eps_c = critical_load()
s_min = np.array([np.fmin(np.log(2), interior_minimum(a)[1]) for a in alpha_th])   # fmin ignores nan
axes[0].plot(alpha_th, -s_min, "k", lw=2, label=r"annealed, $N=\infty$")
eps_inf = np.array([generalization_error(interior_minimum(a)[0]) if a < alpha_c else 0.0 for a in alpha_th])
axes[1].plot(alpha_th, eps_inf, "k", lw=2, label=r"annealed, $N=\infty$")
axes[0].axhline(-np.log(2), color="grey", ls=":")
axes[0].set(xlabel=r"$\alpha$", ylabel=r"$\frac{1}{N}\log Z$",
            title=r"dots: $\langle\log Z\rangle/N$, crosses: $\log\langle Z\rangle/N$, thin: exact annealed")
axes[1].set(xlabel=r"$\alpha$", ylabel=r"mean $\varepsilon$ of consistent students",
            title="thin lines: exact finite-N annealed")
for ax in axes:
    ax.axvline(alpha_c, color="k", lw=0.6)
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## (h) The dictionary
#
# Complete the table (copy it into your answer) and articulate one structural difference
# between the magnet and the perceptron: in the magnet the two competing minima are
# symmetry partners; what are they here, and which ingredient of (c) made a sharp
# transition possible at all? What would change for spherical weights?

# %% [markdown] tags=["answer"] points=1
# *Model answer.*
#
# | **Ising magnet** | **Ising perceptron** |
# | --- | --- |
# | spins $s_i\in\{\pm1\}$ | alignments $s_i=\theta_i\theta_i^*\in\{\pm1\}$ |
# | magnetization $m$ | overlap $R$ |
# | entropy $h(m)$ | entropy $h(R)$ (the same function) |
# | aligning field $B$ | the data: the term $-\alpha\log(1-\varepsilon(R))$, a field of strength $\alpha$ that rewards alignment |
# | knob swept across the transition | the load $\alpha=n/N$ (amount of data per weight) |
# | ordered phase $\mathbb E(m)\approx\pm1$ | perfect generalization: $R=1$, the student is the teacher, $\varepsilon=0$ |
# | jump in $\mathbb E(m)$ as a function of $B$ | jump of $R$ from $R^*\approx0.70$ to $1$ (of $\varepsilon$ from $\approx0.25$ to $0$) at $\alpha_c\approx1.45$ |
#
# *Difference.* In the magnet the competing minima $\pm\bar m$ are mirror images under
# $s\to-s$, degenerate at $B=0$ and tilted by the field. Here no symmetry relates them:
# one is a broad interior basin of exponentially many imperfect students
# (entropy $h(R^*)>0$, data cost $>0$), the other a single state at the edge of the
# domain, the teacher (zero entropy, zero data cost). The transition is entropy against
# data fit. What made it possible is that binary weights give the aligned state a
# *finite* entropy, $h(1)=0$ (one state, costing only $\log 2$ per weight in $s$), while the
# data cost near $R=1$ vanishes like $\sqrt{1-R}$, so $R=1$ is a separate local minimum that
# can win. For spherical weights the slice entropy $\frac12\log(1-R^2)\to-\infty$ as
# $R\to1$: the aligned state is infinitely penalized, the minimum always sits in the
# interior and slides continuously toward $R=1$ as $\alpha$ grows, and there is no phase
# transition (Appendix A.3), only a smooth learning curve.

# %% tags=["tests"]
@points(1)
def test_generalization_error(student):
    "generalization_error on random overlaps in [-1, 1], endpoints included"
    rng = rng_for("generalization_error")
    R = np.concatenate([rng.uniform(-1, 1, 20), [-1.0, 0.0, 1.0]])
    assert_close(student.generalization_error(R), ref.generalization_error(R),
                 rtol=1e-9, atol=1e-12, name="generalization_error(R)")


@points(1)
def test_overlap_entropy(student):
    "overlap_entropy on random overlaps in (-1, 1)"
    rng = rng_for("overlap_entropy")
    R = rng.uniform(-0.999, 0.999, 25)
    assert_close(student.overlap_entropy(R), ref.overlap_entropy(R),
                 rtol=1e-9, atol=1e-12, name="overlap_entropy(R)")


@points(1)
def test_overlap_entropy_endpoints(student):
    "overlap_entropy at R = -1, 0, 1 is finite and correct"
    R = np.array([-1.0, 0.0, 1.0])
    assert_close(student.overlap_entropy(R), ref.overlap_entropy(R),
                 rtol=1e-9, atol=1e-12, name="overlap_entropy at the endpoints (0 log 0 = 0)")


@points(1)
def test_annealed_counts(student):
    "annealed_counts for a few (N, n), including n = 0"
    rng = rng_for("annealed_counts")
    for N, n in [(int(rng.integers(5, 12)), 0), (int(rng.integers(8, 15)), int(rng.integers(5, 25))),
                 (int(rng.integers(15, 30)), int(rng.integers(10, 60)))]:
        assert_close(student.annealed_counts(N, n), ref.annealed_counts(N, n),
                     rtol=1e-9, atol=1e-12, name=f"annealed_counts(N={N}, n={n})")


@points(2)
def test_annealed_action(student):
    "annealed_action on random arrays of overlaps and loads, with broadcasting"
    rng = rng_for("annealed_action")
    R = rng.uniform(-0.99, 1.0, 30)
    alpha = rng.uniform(0.0, 3.0, 30)
    assert_close(student.annealed_action(R, alpha), ref.annealed_action(R, alpha),
                 rtol=1e-9, atol=1e-12, name="annealed_action(R, alpha), same shapes")
    a = float(rng.uniform(0.5, 2.5))
    assert_close(student.annealed_action(R, a), ref.annealed_action(R, a),
                 rtol=1e-9, atol=1e-12, name="annealed_action(R array, scalar alpha)")
    table_R, table_a = R[:6, None], alpha[None, :4]
    assert_close(student.annealed_action(table_R, table_a), ref.annealed_action(table_R, table_a),
                 rtol=1e-9, atol=1e-12, name="annealed_action(R[:, None], alpha[None, :])")
    assert_close(student.annealed_action(np.ones(3), alpha[:3]), ref.annealed_action(np.ones(3), alpha[:3]),
                 rtol=1e-9, atol=1e-12, name="annealed_action at R = 1")
    # entries are independent problems: one table whose overlaps and loads lie far apart in scale
    table_R = np.array([-1 + 1e-9, -0.5, 0.0, 1e-6, 0.9, 1 - 1e-12, 1.0])[:, None]
    table_a = np.array([0.0, 1e-3, 1.0, 1e3])[None, :]
    assert_close(student.annealed_action(table_R, table_a), ref.annealed_action(table_R, table_a),
                 rtol=1e-9, atol=1e-12, name="annealed_action on one table of R near -1 to 1 and alpha from 0 to 1000")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(2)
def test_interior_minimum(student):
    "interior_minimum at random loads below the spinodal (the minimum, not the barrier)"
    rng = rng_for("interior_minimum")
    alpha_sp = ref.spinodal_load()
    for alpha in np.concatenate([rng.uniform(0.05, 0.95 * alpha_sp, 4), [0.0]]):
        assert_close(student.interior_minimum(float(alpha)), ref.interior_minimum(float(alpha)),
                     rtol=1e-6, atol=5e-6, name=f"interior_minimum(alpha={alpha:.3f})")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_interior_minimum_beyond_spinodal(student):
    "interior_minimum returns (nan, nan) when the interior minimum does not exist"
    rng = rng_for("interior_minimum_beyond_spinodal")
    alpha_sp = ref.spinodal_load()
    for alpha in [1.02 * alpha_sp, float(rng.uniform(1.1 * alpha_sp, 4.0))]:
        R_star, s_star = student.interior_minimum(float(alpha))
        assert np.isnan(R_star) and np.isnan(s_star), \
            f"interior_minimum({alpha:.3f}) should be (nan, nan) beyond the spinodal"


@points(3)
def test_critical_load(student):
    "critical_load: alpha_c, R* and eps* at the transition"
    expected = ref.critical_load()
    actual = student.critical_load()
    names = ["alpha_c", "R_star", "eps_star"]
    assert len(actual) == 3, "critical_load should return (alpha_c, R_star, eps_star)"
    for a, e, name in zip(actual, expected, names):
        assert_close(a, e, rtol=3e-6, atol=0.0, name=name)


@points(2)
def test_spinodal_load(student):
    "spinodal_load: the load where the interior minimum disappears"
    assert_close(student.spinodal_load(), ref.spinodal_load(), rtol=3e-6, atol=0.0, name="spinodal_load")


@points(3)
def test_count_consistent_students(student):
    "count_consistent_students on generated data sets (random teacher, even and odd N)"
    rng = rng_for("count_consistent_students")
    for N, n in [(10, 12), (13, 9), (12, 30), (11, 4)]:
        teacher = rng.choice([-1, 1], size=N)
        X = rng.standard_normal((n, N))
        assert_close(student.count_consistent_students(teacher, X), ref.count_consistent_students(teacher, X),
                     rtol=0.0, atol=0.0, name=f"counts for N={N}, n={n}")


@points(1)
def test_count_consistent_students_no_data(student):
    "count_consistent_students with no examples at all"
    rng = rng_for("count_consistent_students_no_data")
    N = int(rng.integers(6, 12))
    teacher = rng.choice([-1, 1], size=N)
    X = np.zeros((0, N))
    assert_close(student.count_consistent_students(teacher, X), ref.count_consistent_students(teacher, X),
                 rtol=0.0, atol=0.0, name=f"counts for N={N}, n=0")


@points(2)
def test_enumerate_version_space_structure(student):
    "enumerate_version_space returns a consistent summary (keys, n, counts, Z, log_Z, eps_mean)"
    rng = rng_for("enumerate_version_space_structure")
    for N, alpha in [(10, 1.37), (13, 0.62), (12, 2.0)]:   # alpha * N not a half-integer
        seed = int(rng.integers(0, 2**31))
        out = student.enumerate_version_space(N, alpha, seed)
        want = ref.enumerate_version_space(N, alpha, seed)
        assert isinstance(out, dict) and set(want) <= set(out), f"keys should include {sorted(want)}"
        assert out["n"] == want["n"], "n should be the nearest integer to alpha * N"
        assert_close(out["R"], want["R"], rtol=0, atol=1e-12, name="R")
        counts = np.asarray(out["counts"])
        assert counts.shape == (N + 1,) and counts[-1] == 1, "the teacher must be the only student at R = 1"
        assert np.all(counts >= 0) and np.all(counts <= ref.annealed_counts(N, 0) + 0.5)
        assert out["Z"] == counts.sum(), "Z should be the total number of consistent students"
        assert_close(out["log_Z"], np.log(out["Z"]) / N - np.log(2), rtol=1e-9, atol=1e-12, name="log_Z")
        assert_close(out["eps_mean"], counts @ ref.generalization_error(want["R"]) / counts.sum(),
                     rtol=1e-9, atol=1e-12, name="eps_mean")


# False-fail budget 1e-4 (any stream, any course seed): two checks, each a 48-sample mean minus a
# 400-sample mean of one data set's log_Z or eps_mean at N = 12, alpha = 1. Over 6000 reference
# data sets their standard deviations are 0.0784 and 0.105 (skewness -0.02 and -0.76, so a mean of
# 48 is close to Gaussian), giving standard errors 0.0120 and 0.0160 for the difference: the
# tolerances 0.06 and 0.08 are 5.0 standard errors, P(fail) < 2e-6 for the two together (union
# bound); 200000 resampled differences never came within 3.5 standard errors of them.
@points(2)
def test_enumerate_version_space_statistics(student):
    "enumerate_version_space: averages of log_Z and eps_mean over many data sets (statistical)"
    rng = rng_for("enumerate_version_space_statistics")
    N, alpha = 12, 1.0
    seeds = [int(s) for s in rng.integers(0, 2**31, 400)]
    want = [ref.enumerate_version_space(N, alpha, s) for s in seeds]
    got = [student.enumerate_version_space(N, alpha, s) for s in seeds[:48]]
    # The student may use another random stream: compare a 48-sample mean with the
    # reference's 400-sample mean (its seeds drawn with the course seed).
    for key, tol in [("log_Z", 0.06), ("eps_mean", 0.08)]:
        assert_close(np.mean([g[key] for g in got]), np.mean([w[key] for w in want]), rtol=0, atol=tol,
                     name=f"mean of {key} over 48 data sets (Gaussian inputs, n = round(alpha N))")


@points(1)
def test_scalar_overlap_gives_float(student):
    "generalization_error, overlap_entropy and annealed_action of floats (0.0 and +-1.0 included) give one number"
    rng = rng_for("scalar_overlap_gives_float")
    for R in [0.0, 1.0, -1.0, float(rng.uniform(-0.99, 0.99))]:
        for fn in ["generalization_error", "overlap_entropy"]:
            got = getattr(student, fn)(R)
            assert np.ndim(got) == 0, f"{fn} of a float R should be one number (a float), not an array"
            assert_close(got, getattr(ref, fn)(R), rtol=1e-9, atol=1e-12, name=f"{fn}({R:g})")
    for R, alpha in [(0.0, 0.0), (1.0, float(rng.uniform(0.1, 3))), (float(rng.uniform(-0.99, 0.99)), 0.0),
                     (float(rng.uniform(-0.99, 0.99)), float(rng.uniform(0.1, 3)))]:
        got = student.annealed_action(R, alpha)
        assert np.ndim(got) == 0, "annealed_action of a float R and a float alpha should be one number"
        assert_close(got, ref.annealed_action(R, alpha), rtol=1e-9, atol=1e-12,
                     name=f"annealed_action(R={R:.3g}, alpha={alpha:.3g})")


@points(1)
def test_annealed_action_at_the_edges(student):
    "annealed_action at R = -1 (alpha > 0), at alpha = 0 and at large loads"
    rng = rng_for("annealed_action_at_the_edges")
    alpha = np.concatenate([rng.uniform(0.01, 3.0, 3), rng.uniform(50.0, 1000.0, 2)])
    assert_close(student.annealed_action(-np.ones(5), alpha), ref.annealed_action(-np.ones(5), alpha),
                 rtol=1e-9, atol=1e-12, name="annealed_action at R = -1, alpha > 0 (every input misclassified)")
    R = np.concatenate([rng.uniform(-0.999, 0.999, 6), [0.0, 1.0]])
    assert_close(student.annealed_action(R, 0.0), ref.annealed_action(R, 0.0), rtol=1e-9, atol=1e-12,
                 name="annealed_action at alpha = 0")
    assert_close(student.annealed_action(R[:6], alpha[3]), ref.annealed_action(R[:6], alpha[3]),
                 rtol=1e-9, atol=1e-12, name="annealed_action at a large load")


@points(1)
def test_annealed_counts_edges(student):
    "annealed_counts at N = 1, and with many examples (tiny expected counts)"
    rng = rng_for("annealed_counts_edges")
    for N, n in [(1, 0), (1, int(rng.integers(1, 5))), (int(rng.integers(15, 25)), int(rng.integers(200, 400)))]:
        got = np.asarray(student.annealed_counts(N, n), dtype=float)
        assert got.shape == (N + 1,), f"annealed_counts(N={N}, n={n}) should have N + 1 entries"
        assert_close(got, ref.annealed_counts(N, n), rtol=1e-9, atol=1e-300, name=f"annealed_counts(N={N}, n={n})")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_interior_minimum_edges(student):
    "interior_minimum at small loads, on the metastable branch up to the spinodal, and just beyond it"
    rng = rng_for("interior_minimum_edges")
    alpha_sp, alpha_c = ref.spinodal_load(), ref.critical_load()[0]
    for alpha in [float(rng.uniform(1e-3, 1e-2)), float(rng.uniform(1.01 * alpha_c, 0.98 * alpha_sp)),
                  0.995 * alpha_sp]:
        assert_close(student.interior_minimum(alpha), ref.interior_minimum(alpha), rtol=1e-6, atol=5e-6,
                     name=f"interior_minimum(alpha={alpha:.4f})")
    R_star, s_star = student.interior_minimum(1.005 * alpha_sp)
    assert np.isnan(R_star) and np.isnan(s_star), "interior_minimum should be (nan, nan) just beyond the spinodal"


@points(1)
def test_count_consistent_students_sizes(student):
    "count_consistent_students at the ends of the range of N (1, 2 and up to 20)"
    rng = rng_for("count_consistent_students_sizes")
    for N, n in [(1, int(rng.integers(1, 4))), (2, int(rng.integers(1, 5))),
                 (int(rng.integers(18, 21)), int(rng.integers(8, 16)))]:
        teacher = rng.choice([-1, 1], size=N)
        X = rng.standard_normal((n, N))
        assert_close(student.count_consistent_students(teacher, X), ref.count_consistent_students(teacher, X),
                     rtol=0.0, atol=0.0, name=f"counts for N={N}, n={n}")


@points(1)
def test_enumerate_version_space_zero_load_and_one_weight(student):
    "enumerate_version_space at alpha = 0 (no data) and at N = 1"
    rng = rng_for("enumerate_version_space_zero_load_and_one_weight")
    # every draw gives the same summary here: all 2^N students at alpha = 0; only the teacher at N = 1, n >= 1
    for N, alpha in [(int(rng.integers(6, 13)), 0.0), (1, 0.0), (1, float(rng.uniform(1.6, 4.4)))]:
        seed = int(rng.integers(0, 2**31))
        out = student.enumerate_version_space(N, alpha, seed)
        want = ref.enumerate_version_space(N, alpha, seed)
        assert isinstance(out, dict) and set(want) <= set(out), f"keys should include {sorted(want)}"
        assert out["n"] == want["n"], "n should be the nearest integer to alpha * N"
        assert np.ndim(out["Z"]) == 0 and float(out["Z"]).is_integer(), "Z should be one integer"
        assert_close(out["counts"], want["counts"], rtol=0, atol=0, name=f"counts at N={N}, alpha={alpha:.2f}")
        for key in ["Z", "log_Z", "eps_mean"]:
            assert_close(out[key], want[key], rtol=1e-9, atol=1e-12, name=f"{key} at N={N}, alpha={alpha:.2f}")

@points(2)
def test_figure_loads(student):
    "annealed_action and interior_minimum at this year's loads of the s(R) figure"
    R = np.concatenate([np.linspace(-0.99, 0.99, 45), [1.0]])
    for alpha in ref.PARAMS["loads"]:
        assert_close(student.annealed_action(R, alpha), ref.annealed_action(R, alpha),
                     rtol=1e-9, atol=1e-12, name=f"annealed_action(R, alpha={alpha})")
        expected = ref.interior_minimum(float(alpha))
        actual = student.interior_minimum(float(alpha))
        if np.isnan(expected[0]):
            assert len(actual) == 2 and np.isnan(actual[0]) and np.isnan(actual[1]), \
                f"interior_minimum({alpha}) should be (nan, nan) beyond the spinodal"
        else:
            assert_close(actual, expected, rtol=1e-6, atol=5e-6, name=f"interior_minimum(alpha={alpha})")


# %% tags=["wrong"]
# wrong: generalization error arccos(R)/(2 pi), counting only one of the two wedges
# hint: The two decision boundaries disagree on two opposite wedges, of total angle 2 arccos R out of
#   2π: count both (Exercise 2.3(b)).
def generalization_error(R):
    return np.arccos(np.clip(np.asarray(R, dtype=float), -1.0, 1.0)) / (2 * np.pi)


# %% tags=["rewrite"]
# rewrite: one wedge written with arcsin, (1/2 - arcsin(R)/pi) / 2
def generalization_error(R):
    R = np.clip(np.asarray(R, dtype=float), -1.0, 1.0)
    return 0.25 - 0.5 * np.arcsin(R) / np.pi


# %% tags=["wrong"]
# wrong: entropy in bits (log base 2) instead of nats, and without the 0 log 0 = 0 convention
# hint: Entropies here are in nats (natural log), and h(±1) must be exactly 0 by the convention 0 log 0
#   = 0 (scipy.special.xlogy); see Exercise 2.3(c) and eq. (2.24).
def overlap_entropy(R):
    R = np.asarray(R, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 - (1 - R) / 2 * np.log2(1 - R) - (1 + R) / 2 * np.log2(1 + R)


# %% tags=["wrong"]
# wrong: entropy without the factors 1/2
# hint: Redo the Stirling limit of (1/N) log binom(N, k) with k = (1+R)N/2: each of the two terms
#   carries a factor 1/2 (Section 2.4, eq. (2.24)).
def overlap_entropy(R):
    R = np.asarray(R, dtype=float)
    return LOG2 - special.xlogy(1.0 - R, 1.0 - R) - special.xlogy(1.0 + R, 1.0 + R)


# %% tags=["wrong"]
# wrong: interior_minimum returns the barrier maximum (the other root of ds/dR = 0)
# hint: Below the spinodal ds/dR = 0 has two roots in (0, 1): the interior minimum R*(α) is the one
#   nearer R = 0; the one nearer R = 1 is the barrier maximum (Exercise 2.3(e)).
def interior_minimum(alpha):
    alpha = float(alpha)
    alpha_sp, R_sp = _spinodal_point()
    if alpha == 0.0:
        return 0.0, 0.0
    if alpha >= alpha_sp:
        return float("nan"), float("nan")
    R_max = optimize.brentq(lambda R: _stationary_load(R) - alpha, R_sp, 1 - 1e-15)
    return float(R_max), float(annealed_action(R_max, alpha))


# %% tags=["wrong"]
# wrong: critical load taken where the interior minimum disappears (the spinodal), not at the crossing
# hint: The first-order transition α_c is where the interior minimum's action s(R*) reaches s(1) = log
#   2, i.e. where the two minima cross; the interior minimum disappears only later, at the spinodal
#   (Section 2.5, Exercise 2.3(g)).
def critical_load():
    alpha = spinodal_load()
    R = _spinodal_point()[1]
    return alpha, R, float(generalization_error(R))


# %% tags=["wrong"]
# wrong: spinodal located where ds/dR = 0 at a fixed R near 1 instead of where the minimum merges with the barrier
# hint: The spinodal is the largest load at which ds/dR = 0 still has an interior solution: the maximum
#   of α(R) over (0, 1), where the minimum merges with the barrier (hint of Exercise 2.3(e), Section
#   2.5).
def spinodal_load():
    return float(_stationary_load(0.99))


# %% tags=["wrong"]
# wrong: histogram indexed by the number of disagreements with the teacher (reversed)
# hint: Entry k of the histogram counts the consistent students that agree with the teacher on k
#   components (overlap R_k = 2k/N − 1), so the teacher is the last entry (Section 2.6).
_count_right = count_consistent_students


def count_consistent_students(teacher, X):
    return _count_right(teacher, X)[::-1]


# %% tags=["wrong"]
# wrong: n = floor(alpha N) instead of the nearest integer, and log_Z forgets the 1/2^N
# hint: The number of examples is the nearest integer to αN, and Z is the fraction of consistent
#   students, with the 1/2^N of its definition: log_Z = (1/N) log(count) − log 2 (Section 2.6).
_enumerate_right = enumerate_version_space


def enumerate_version_space(N, alpha, seed):
    out = _enumerate_right(N, np.floor(alpha * N) / N, seed)
    out["log_Z"] = float(np.log(out["Z"]) / N)
    return out


# %% tags=["wrong"]
# wrong: inputs drawn uniformly in [0, 1)^N instead of Gaussian (all inputs in one orthant)
# hint: The inputs are Gaussian, x ~ N(0, I_N); inputs drawn in [0, 1)^N all lie in one orthant and make
#   every label the same (Section 2.6, setup).
def enumerate_version_space(N, alpha, seed):
    rng = np.random.default_rng(seed)
    n = int(round(alpha * N))
    teacher = rng.choice([-1, 1], size=N)
    counts = count_consistent_students(teacher, rng.random((n, N)))
    R = 2.0 * np.arange(N + 1) / N - 1.0
    Z = int(counts.sum())
    return {"n": n, "R": R, "counts": counts, "Z": Z, "log_Z": float(np.log(Z) / N - LOG2),
            "eps_mean": float(counts @ generalization_error(R) / Z)}


# %% tags=["wrong"]
# wrong: annealed action with log eps (the probability of disagreeing) instead of log(1 - eps)
# hint: A student is consistent with an example when it agrees with the teacher on it, which happens
#   with probability 1 − ε(R): the energy term is −α log(1 − ε(R)), not −α log ε(R) (Exercise 2.3(d)).
def annealed_action(R, alpha):
    R = np.asarray(R, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return LOG2 - overlap_entropy(R) - alpha * np.log(generalization_error(R))


# %% tags=["wrong"]
# wrong: overlap of a student agreeing on k components taken as k/N instead of 2k/N - 1
# hint: A student that agrees with the teacher on k of the N components has overlap
#   R_k = (k − (N − k))/N = 2k/N − 1: each disagreeing component counts −1 (Exercise 2.3(d)).
def annealed_counts(N, n):
    k = np.arange(N + 1)
    return special.comb(N, k) * (1.0 - generalization_error(k / N)) ** n


# %% tags=["wrong"]
# wrong: the metastable interior minimum dropped: (nan, nan) already beyond the critical load
# hint: Between α_c and the spinodal load the interior minimum still exists, as a metastable local
#   minimum above s(1) = log 2: return it, and (nan, nan) only beyond α_sp, where it merges with the
#   barrier (Exercise 2.3(g)).
_interior_minimum_right = interior_minimum
_alpha_c_right = critical_load()[0]


def interior_minimum(alpha):
    if float(alpha) > _alpha_c_right:
        return float("nan"), float("nan")
    return _interior_minimum_right(alpha)


# %% tags=["wrong"]
# wrong: log(1 - eps) regularized with a small constant, so s stays finite at R = -1
# hint: At R = −1 the student disagrees with the teacher on every input, ε = 1, and s(−1) = +∞ for
#   α > 0: don't add a small constant inside log(1 − ε) (Exercise 2.3(d)).
def annealed_action(R, alpha):
    R = np.asarray(R, dtype=float)
    return LOG2 - overlap_entropy(R) - np.asarray(alpha, dtype=float) * np.log(1.0 - generalization_error(R) + 1e-12)


# %% tags=["alternative"]
# alternative: arcsin form of eps, entropy via p log p, landscape by grid + bounded golden section, spinodal by bisection on the grid
def generalization_error(R):
    return 0.5 - np.arcsin(np.clip(np.asarray(R, dtype=float), -1, 1)) / np.pi


def overlap_entropy(R):
    p = (1 + np.asarray(R, dtype=float)) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log(p), 0.0) - np.where(p < 1, (1 - p) * np.log(1 - p), 0.0)


def annealed_counts(N, n):
    import math
    k = np.arange(N + 1)
    binom = np.array([math.comb(N, int(j)) for j in k], dtype=float)
    return binom * (1 - generalization_error(2 * k / N - 1)) ** n


def annealed_action(R, alpha):
    with np.errstate(divide="ignore"):
        return np.log(2) - overlap_entropy(R) - alpha * np.log(1 - generalization_error(R))


def _bracket_of_interior_minimum(alpha):
    R = np.linspace(-0.5, 0.999, 3000)
    s = annealed_action(R, alpha)
    i = np.nonzero((s[1:-1] < s[:-2]) & (s[1:-1] < s[2:]))[0]
    return None if len(i) == 0 else (R[i[0]], R[i[0] + 2])


def interior_minimum(alpha):
    if alpha == 0:
        return (0.0, 0.0)
    bracket = _bracket_of_interior_minimum(alpha)
    if bracket is None:
        return (float("nan"), float("nan"))
    res = optimize.minimize_scalar(lambda r: annealed_action(r, alpha), bounds=bracket, method="bounded")
    return (float(res.x), float(res.fun))


def spinodal_load():
    lo, hi = 1.0, 3.0
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _bracket_of_interior_minimum(mid) is not None else (lo, mid)
    return (lo + hi) / 2


def critical_load():
    a = optimize.brentq(lambda a: interior_minimum(a)[1] - np.log(2), 1.0, spinodal_load() - 1e-3)
    R = interior_minimum(a)[0]
    return a, R, float(generalization_error(R))


# %% tags=["alternative"]
# alternative: enumeration as one chunked matrix product over all 2^N students in another order, another random stream
def count_consistent_students(teacher, X):
    teacher = np.asarray(teacher)
    X = np.asarray(X, dtype=float)
    N = len(teacher)
    y = np.sign(X @ teacher)
    counts = np.zeros(N + 1, dtype=int)
    for start in range(0, 2**N, 2**14):
        b = np.arange(start, min(start + 2**14, 2**N))
        S = 1 - 2 * ((b[:, None] >> np.arange(N)) & 1)
        ok = np.all(np.sign(S @ X.T) == y, axis=1)
        counts += np.bincount((S[ok] == teacher).sum(axis=1), minlength=N + 1)
    return counts


def enumerate_version_space(N, alpha, seed):
    rng = np.random.default_rng([seed, 7])
    n = int(np.rint(alpha * N))
    X = rng.standard_normal((n, N))
    teacher = 2 * rng.integers(0, 2, N) - 1
    c = count_consistent_students(teacher, X)
    Z = int(c.sum())
    R = 2 * np.arange(N + 1) / N - 1
    return dict(n=n, R=R, counts=c, Z=Z, log_Z=np.log(Z) / N - np.log(2),
                eps_mean=float(c @ generalization_error(R) / Z))
