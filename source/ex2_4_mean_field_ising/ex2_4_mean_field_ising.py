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
# # ex2_4_mean_field_ising: The mean-field Ising magnet and the Curie–Weiss model
#
# *Notes: Sections 2.4–2.5 (Figures 1–4), Section 5.1.1 and Exercise 5.1.*
#
# **The model** (Section 2.4). Spins $s_i\in\{\pm1\}$ on a graph where every vertex has $d$
# neighbours, with energy and Boltzmann weight
# $$
# E(s)=-J\sum_{\langle ij\rangle}s_is_j-B\sum_is_i,\qquad p_\beta(s)=\frac{e^{-\beta E(s)}}{Z},\qquad
# m(s)=\frac1N\sum_is_i . \tag{2.19}
# $$
# The mean-field approximation replaces each neighbour by the average, so that
# $\sum_{\langle ij\rangle}s_is_j\approx\frac{Nd}2m^2$ and
# $$
# E\approx-N\Big(\frac{dJ}{2}m^2+Bm\Big). \tag{2.22}
# $$
# On the complete graph with couplings $J/N$ (the **Curie–Weiss** magnet of Section 5.1.1,
# $E_N=-\frac1{2N}\sum_{i,j}s_is_j-B\sum_is_i$) this is *exact*, with $dJ\to1$.
#
# **Entropy and the one-dimensional integral.** A magnetization $m$ is realized by
# $\Omega(m)=\binom{N}{\frac{1+m}2N}$ states, and Stirling's formula gives
# $\frac1N\log\Omega(m)\to h(m)$ with
# $$
# h(m)=\log2-\frac{1-m}2\log(1-m)-\frac{1+m}2\log(1+m). \tag{2.24}
# $$
# Replacing the sum over $m$ (spacing $2/N$) by an integral,
# $$
# Z\simeq\frac N2\int_{-1}^{1}dm\;e^{-N\beta s(m)},\qquad
# s(m)=-\frac{dJ}2m^2-Bm-\frac1\beta h(m), \tag{2.25}
# $$
# the effective **action** (free-energy density at fixed $m$: energy minus temperature
# times entropy). At large $N$, $\varphi=-\frac1N\log Z\to\beta\min_ms(m)$, and the
# minimizer $\bar m$ solves $s'(\bar m)=0$; with $h'(m)=-\operatorname{artanh}(m)$,
# $$
# \bar m=\tanh\big(\beta(dJ\,\bar m+B)\big). \tag{2.27}
# $$
#
# **Sign conventions** (as in the notes): $B>0$ favours $m>0$; $dJ\ge0$ (ferromagnet);
# $T=1/\beta$; $T_c=dJ$; `log` is the natural logarithm (entropies in nats); the
# expected magnetization is $\mathbb E(m)=-\frac1\beta\partial_B\varphi$ and the susceptibility
# $\chi=\partial_B\mathbb E(m)=N\beta\,\mathrm{Var}(m)$.
#
# **What you implement** (graded, hidden tests):
#
# | part | function |
# |---|---|
# | 2.4 | `binary_entropy(m)`, `ising_action(m, beta, dJ, B)` |
# | 2.4–2.5 | `mean_field_magnetization(beta, dJ, B)` (the *global* minimizer of $s$) |
# | 5.1, Ex 5.1 | `curie_weiss_iterate(beta, B, m0, steps)`, `curie_weiss_fixed_points(beta, B)` |
# | 2.5, Fig. 3 | `finite_N_magnetization(B, N, beta, dJ)`, `finite_N_susceptibility(B, N, beta, dJ)` |
# | 2.5, Fig. 4 | `critical_exponent_fit(dJ, reduced_temperatures)` |
#
# Written answers (graded by hand) follow the figures.

# %% tags=["setup"]
import numpy as np
from scipy import optimize, special

# %% tags=["params"]
def draw_params(rng):
    """This year's coupling, temperatures, fields and sizes for the figures and Exercise 5.1."""
    dJ = round(float(rng.uniform(0.6, 1.6)), 2)
    n = int(rng.integers(8, 16))
    return {
        "dJ": dJ,                                                   # T_c = dJ
        "beta_dJ_ordered": round(float(rng.uniform(1.3, 1.8)), 2),  # Figures 1-3 (notes: 1.5)
        "beta_dJ_disordered": round(float(rng.uniform(0.4, 0.8)), 2),
        "B_over_dJ": round(float(rng.uniform(0.05, 0.15)), 3),     # the tilting field of Figures 1-2
        "Ns": [n, 3 * n, 10 * n],                                   # Figure 3
        "T_over_Tc": [round(float(rng.uniform(1.15, 1.4)), 2), 1.0, round(float(rng.uniform(0.7, 0.85)), 2)],
        "cw_betas": [round(float(rng.uniform(0.5, 0.9)), 2), round(float(rng.uniform(1.6, 3.0)), 2)],
        "cw_field": round(float(rng.uniform(0.03, 0.1)), 3),        # Exercise 5.1: B = 0, +b, -b
    }


# %% tags=["reference"]
def _u_grid(N):
    """Uniform grid in u = artanh(m) on [-20, 20] (tanh(20) = 1 to double precision).

    In u the weight exp(-N beta s(m)) (1 - m^2) is smooth (analytic) up to m = +-1, where s'(m)
    diverges, so the trapezoid rule converges spectrally; every peak has a width in u of at
    least 1/sqrt(N) (the curvature of N beta s in u is N (1 - m^2)(1 - beta dJ (1 - m^2)) <= N),
    and the spacing is a quarter of that (and at most 1e-2).
    """
    h = min(1e-2, 0.25 / np.sqrt(N))
    return np.linspace(-20.0, 20.0, int(np.ceil(40.0 / h)) + 1)


def _finite_N_mean_var(B, N, beta, dJ):
    """Mean and variance of m under exp(-N beta s(m)) on [-1, 1] (trapezoid in u = artanh m, log-sum-exp)."""
    Bs = np.asarray(B, dtype=float)
    flat = np.atleast_1d(Bs).ravel()
    u = _u_grid(N)
    m = np.tanh(u)
    log_jac = 2.0 * np.log(2.0) - np.logaddexp(0.0, 2.0 * u) - np.logaddexp(0.0, -2.0 * u)   # log(1 - m^2)
    mean, var = np.empty(flat.size), np.empty(flat.size)
    chunk = max(1, 4_000_000 // m.size)
    for start in range(0, flat.size, chunk):
        b = flat[start:start + chunk, None]
        logp = -N * beta * ising_action(m[None, :], beta, dJ, b) + log_jac
        p = np.exp(logp - logp.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        mu = p @ m
        mean[start:start + chunk] = mu
        var[start:start + chunk] = np.sum(p * (m[None, :] - mu[:, None]) ** 2, axis=1)
    return mean.reshape(Bs.shape), var.reshape(Bs.shape)


# %% [markdown]
# ## 2.4 The entropy and the action
#
# **Tasks.** Implement `binary_entropy` (2.24) and `ising_action` (2.25). At $m=\pm1$ use
# $0\log0=0$: $h(\pm1)=0$ exactly (one state), a finite number, never `nan`
# (`scipy.special.xlogy` helps). Both work elementwise on arrays, with numpy broadcasting.

# %% tags=["graded"]
def binary_entropy(m):
    """Entropy per spin at magnetization m, h(m) (notes, eq. 2.24), natural log.

    h(m) = log 2 - (1 - m)/2 log(1 - m) - (1 + m)/2 log(1 + m), with 0 log 0 = 0.
    It is the Stirling limit of (1/N) log binom(N, (1 + m) N / 2).

    Args:
        m: float or np.ndarray with entries in [-1, 1].
    Returns:
        float or np.ndarray of the shape of m: h(0) = log 2, h(+-1) = 0 exactly (finite).
    """
    m = np.asarray(m, dtype=float)
    return np.log(2.0) - 0.5 * special.xlogy(1.0 - m, 1.0 - m) - 0.5 * special.xlogy(1.0 + m, 1.0 + m)


# %% tags=["graded"]
def ising_action(m, beta, dJ, B):
    """Mean-field action s(m) = -dJ m^2/2 - B m - h(m)/beta (notes, eq. 2.25).

    Z ~ (N/2) int_{-1}^{1} dm exp(-N beta s(m)); the free-energy density at fixed m.

    Args:
        m: float or np.ndarray in [-1, 1].
        beta: inverse temperature > 0; dJ: coupling times coordination number (>= 0);
        B: external field. All arguments broadcast against each other (numpy rules).
    Returns:
        float or np.ndarray of the broadcast shape; finite at m = +-1 (s(+-1) = -dJ/2 -+ B).
    """
    m = np.asarray(m, dtype=float)
    return -0.5 * dJ * m**2 - B * m - binary_entropy(m) / beta


# %% tags=["check"]
@check
def check_entropy_and_action():
    "h(0)=log 2, h(+-1)=0 (finite), h even; s(+-1) finite; s' = 0 at a solution of m = tanh(beta(dJ m + B))"
    assert np.isclose(binary_entropy(0.0), np.log(2)), "h(0) should be log 2 (natural log)"
    ends = np.asarray(binary_entropy(np.array([-1.0, 1.0])))
    assert np.all(np.isfinite(ends)) and np.allclose(ends, 0), "h(+-1) should be exactly 0, not nan"
    m = np.linspace(-0.95, 0.95, 9)
    assert np.allclose(binary_entropy(m), binary_entropy(-m))
    assert np.all(np.isfinite(ising_action(np.array([-1.0, 1.0]), 2.0, 1.0, 0.1)))
    # a fixed point of the tanh map is a stationary point of s
    beta, dJ, B, x = 0.7, 1.2, 0.3, 0.5
    for _ in range(200):
        x = np.tanh(beta * (dJ * x + B))
    d = 1e-6
    assert abs(ising_action(x + d, beta, dJ, B) - ising_action(x - d, beta, dJ, B)) / (2 * d) < 1e-7


# %% [markdown]
# ## 2.4–2.5 The mean-field magnetization: the global minimizer
#
# The minimizer of $s$ is a solution of (2.27), but (2.27) may have three solutions, and then
# the middle one is a maximum and only one of the outer two is the *global* minimum. For
# $dJ\ge0$ and $B>0$ the global minimum is the unique solution in $(0,1]$ (the positive
# well is always the deeper one: $s(|m|)<s(-|m|)$), and symmetrically for $B<0$. So:
#
# * $B\neq0$: $\bar m$ has the sign of $B$; solve (2.27) for $|\bar m|$ in $(0,1]$ with $|B|$
#   by a bracketing root finder (`scipy.optimize.brentq`), not by iteration from an arbitrary
#   start (which can land on the *metastable* branch).
# * $B=0$, $\beta dJ\le1$: $\bar m=0$.
# * $B=0$, $\beta dJ>1$: the two minima $\pm\bar m$ are exactly degenerate (a tie).
#   **Convention: return $+\bar m$**, the limit $B\to0^+$. Careful: $m=0$ also solves (2.27)
#   here, but it is the maximum. Divide by $m$ (solve $\tanh(\beta dJ\,m)/m=1$) to get rid of it.
#
# Accuracy: about $10^{-12}$ absolute, also very close to $T_c$ (needed for the exponent fit
# below) and very close to $|\bar m|=1$ at low temperature.

# %% tags=["graded"]
def mean_field_magnetization(beta, dJ, B):
    """Global minimizer m_bar of the mean-field action s(m) (notes, eqs. 2.25, 2.27).

    m_bar = tanh(beta (dJ m_bar + B)), the solution that is the GLOBAL minimum of s on [-1, 1]:
    it has the sign of B. At B = 0 with beta*dJ > 1 the two minima +-m_bar are degenerate and
    the convention is to return +m_bar (the limit B -> 0+); at B = 0 with beta*dJ <= 1, 0.

    Args:
        beta: float > 0; dJ: float >= 0; B: float (scalars only).
    Returns:
        float in [-1, 1], accurate to ~1e-12.
    """
    beta, dJ, B = float(beta), float(dJ), float(B)
    if B == 0.0:
        if beta * dJ <= 1.0:
            return 0.0
        # nonzero root of tanh(beta dJ m) = m: divide out the trivial root m = 0
        q = lambda m: np.tanh(beta * dJ * m) / m - 1.0
        return float(optimize.brentq(q, 1e-300, 1.0, xtol=1e-16, rtol=4 * np.finfo(float).eps))
    b = abs(B)
    f = lambda m: np.tanh(beta * (dJ * m + b)) - m          # concave on [0, 1], f(0) > 0 >= f(1)
    root = optimize.brentq(f, 0.0, 1.0, xtol=1e-16, rtol=4 * np.finfo(float).eps)
    return float(np.copysign(root, B))


# %% tags=["check"]
@check
def check_mean_field_magnetization():
    "tanh self-consistency, sign follows B, m = 0 above T_c at B = 0, and the global minimum"
    for beta, dJ, B in [(0.5, 1.0, 0.2), (2.0, 1.0, -0.05), (1.5, 0.8, 0.4), (3.0, 1.0, 1e-9)]:
        m = mean_field_magnetization(beta, dJ, B)
        assert abs(m - np.tanh(beta * (dJ * m + B))) < 1e-10, "not a solution of m = tanh(beta(dJ m + B))"
        assert np.sign(m) == np.sign(B), "m_bar should have the sign of B"
        grid = np.linspace(-1, 1, 20001)
        assert ising_action(m, beta, dJ, B) <= np.min(ising_action(grid, beta, dJ, B)) + 1e-12, \
            "not the global minimum of s"
    assert mean_field_magnetization(0.8, 1.0, 0.0) == 0.0, "beta dJ < 1, B = 0: m_bar = 0"
    assert mean_field_magnetization(2.0, 1.0, 0.0) > 0.5, "B = 0 below T_c: return the positive minimum"


# %% [markdown]
# ## 5.1 Curie–Weiss by fixed-point iteration (Exercise 5.1)
#
# For the Curie–Weiss magnet ($dJ=1$), iterate
# $m^{(k+1)}=g(m^{(k)})$, $g(m)=\tanh\big(\beta(m^{(k)}+B)\big)$. A fixed point $m^*$ is
# (linearly) *stable* for the iteration when $|g'(m^*)|<1$, with
# $g'(m)=\beta\big(1-\tanh^2\beta(m+B)\big)=\beta\big(1-(m^*)^2\big)$ at a fixed point.
#
# **Tasks.**
# 1. `curie_weiss_iterate(beta, B, m0, steps)`: the whole trajectory $m^{(0)},\dots,m^{(\rm steps)}$;
#    `m0` may be an array of starting points (iterate them all at once).
# 2. `curie_weiss_fixed_points(beta, B)`: *all* solutions of $m=\tanh(\beta(m+B))$ in
#    $[-1,1]$, sorted, and for each whether it is stable. Find them robustly: $g(m)-m$ has at
#    most two turning points, where $\beta\,\mathrm{sech}^2\beta(m+B)=1$, i.e.
#    $m=-B\pm\operatorname{arcosh}(\sqrt\beta)/\beta$ (for $\beta>1$); bracket a root in each
#    monotone piece. (Exactly at a spinodal two fixed points merge; you need not handle that
#    non-generic case.)

# %% tags=["graded"]
def curie_weiss_iterate(beta, B, m0, steps):
    """Fixed-point iteration m_{k+1} = tanh(beta (m_k + B)) of the Curie-Weiss magnet (notes, eq. 5.2, Ex 5.1).

    Args:
        beta: float > 0; B: float; m0: float or np.ndarray of starting points in [-1, 1];
        steps: int >= 0, number of iterations.
    Returns:
        np.ndarray of shape (steps + 1,) + np.shape(m0): row k is m_k (row 0 is m0 itself).
    """
    m = np.asarray(m0, dtype=float)
    out = np.empty((steps + 1,) + m.shape)
    out[0] = m
    for k in range(steps):
        out[k + 1] = np.tanh(beta * (out[k] + B))
    return out


# %% tags=["graded"]
def curie_weiss_fixed_points(beta, B):
    """All fixed points of m -> tanh(beta (m + B)) in [-1, 1] and their stability (notes, Ex 5.1).

    Stable means |g'(m*)| < 1 for g(m) = tanh(beta (m + B)), i.e. beta (1 - m*^2) < 1: the
    iteration converges to m* from nearby starts. (These are exactly the local minima of s.)

    Args:
        beta: float > 0; B: float.
    Returns:
        (points, stable): points is a sorted np.ndarray of floats (1 or 3 entries; accurate to
        ~1e-12), stable an np.ndarray of bools of the same length.
    """
    beta, B = float(beta), float(B)
    f = lambda m: np.tanh(beta * (m + B)) - m
    cuts = [-1.0, 1.0]
    if beta > 1.0:
        u = np.arccosh(np.sqrt(beta)) / beta
        cuts += [c for c in (-B - u, -B + u) if -1.0 < c < 1.0]
    cuts = sorted(cuts)
    roots = []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        flo, fhi = f(lo), f(hi)
        if flo == 0.0:
            roots.append(lo)
        elif flo * fhi < 0:
            roots.append(optimize.brentq(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps))
    if f(cuts[-1]) == 0.0:
        roots.append(cuts[-1])
    points = np.unique(np.round(np.array(roots), 14))
    stable = beta * (1.0 - points**2) < 1.0
    return points, stable


# %% tags=["check"]
@check
def check_curie_weiss():
    "the iteration converges to stable fixed points; three fixed points below T_c at small B"
    traj = np.asarray(curie_weiss_iterate(2.0, 0.05, np.array([-0.9, 0.9]), 300))
    assert traj.shape == (301, 2), "trajectory shape should be (steps + 1,) + shape(m0)"
    assert np.allclose(traj[0], [-0.9, 0.9]), "row 0 should be the starting points"
    pts, stable = curie_weiss_fixed_points(2.0, 0.05)
    pts, stable = np.asarray(pts), np.asarray(stable, dtype=bool)
    assert len(pts) == 3 and np.all(np.diff(pts) > 0), "three sorted fixed points expected"
    assert np.allclose(np.tanh(2.0 * (pts + 0.05)), pts, atol=1e-10), "not fixed points"
    assert np.allclose(np.sort(traj[-1]), pts[stable], atol=1e-8), "iteration should end at the stable ones"
    pts1, st1 = curie_weiss_fixed_points(0.5, 0.3)
    assert len(np.atleast_1d(pts1)) == 1 and bool(np.all(st1)), "above T_c: one stable fixed point"
    traj = np.asarray(curie_weiss_iterate(0.5, -0.2, 0.7, 3))
    assert traj.shape == (4,), "a float m0 gives shape (steps + 1,)"
    assert np.allclose(traj[1:], np.tanh(0.5 * (traj[:-1] - 0.2))), "m_(k+1) = tanh(beta (m_k + B))"
    assert np.allclose(curie_weiss_iterate(1.5, 0.1, np.array([0.2, -0.4]), 0), [[0.2, -0.4]]), "steps = 0: just m0"


# %% [markdown]
# ## 2.5 Finite $N$: the expected magnetization from the one-dimensional integral
#
# At finite $N$ the magnetization is not $\bar m$ but its expectation in $e^{-N\beta s(m)}$,
# $$
# \mathbb E_N(m)=\frac{\int_{-1}^1dm\;m\,e^{-N\beta s(m)}}{\int_{-1}^1dm\;e^{-N\beta s(m)}},\qquad
# \chi_N=\partial_B\mathbb E_N(m)=N\beta\,\mathrm{Var}_N(m),
# $$
# with $s$ the action (2.25) *as it stands* (Stirling's $h(m)$, no further corrections). This
# is what Figure 3 of the notes plots. (The exact Curie–Weiss magnet is a *sum* over
# $k=\frac{1+m}2N$ with weights $\binom Nk$; it differs from the integral by $O(1/N)$.)
#
# **Tasks.** Implement `finite_N_magnetization` and `finite_N_susceptibility` by quadrature on
# $[-1,1]$. They must be *stable for large $N$* ($N$ up to $10^6$): $N\beta s$ is in the
# hundreds of thousands, so use log-sum-exp (subtract the largest exponent before
# exponentiating), and choose the grid fine enough to resolve peaks of width
# $\sim(N\beta s'')^{-1/2}$ (at $N=10^6$ and low temperature, $\sim10^{-4}$). Target accuracy
# about $10^{-7}$ in $\mathbb E_N(m)$ and $10^{-6}$ (relative) in $\chi_N$ for $\beta(dJ+|B|)\le3$.
# Near the top of that range the weight at $m=\pm1$ is no longer negligible, and there
# $s'(m)$ diverges: the trapezoid rule on a uniform grid in $m$ converges only like $h^2\log h$.
# A much finer grid works; the substitution $m=\tanh u$, $dm=(1-m^2)\,du$, which makes the
# integrand smooth on the whole line, works better.

# %% tags=["graded"]
def finite_N_magnetization(B, N, beta, dJ):
    """Expected magnetization at finite N from the 1-d integral (notes, eqs. 2.25, 2.30, Fig. 3).

    E_N(m) = int_{-1}^{1} m exp(-N beta s(m)) dm / int_{-1}^{1} exp(-N beta s(m)) dm,
    s = ising_action(m, beta, dJ, B) with the Stirling entropy h(m). Quadrature on [-1, 1]
    with log-sum-exp; no overflow for N up to 1e6.

    Args:
        B: float or np.ndarray of fields; N: size (int or float, 1 <= N <= 1e6);
        beta: float > 0; dJ: float >= 0 (beta (dJ + |B|) <= 3 for the stated accuracy).
    Returns:
        float or np.ndarray of the shape of B, in (-1, 1), odd in B; accuracy ~1e-7.
        As N -> infinity it tends to mean_field_magnetization(beta, dJ, B) for B != 0.
    """
    mean, _ = _finite_N_mean_var(B, N, beta, dJ)
    return float(mean) if np.ndim(B) == 0 else mean


# %% tags=["graded"]
def finite_N_susceptibility(B, N, beta, dJ):
    """Susceptibility chi_N = d E_N(m) / dB = N beta Var_N(m) at finite N (notes, eq. 2.31, Fig. 3).

    Var_N(m) is the variance of m under exp(-N beta s(m)) on [-1, 1] (same integral as
    finite_N_magnetization).

    Args:
        B: float or np.ndarray; N, beta, dJ as in finite_N_magnetization.
    Returns:
        float or np.ndarray of the shape of B, > 0; relative accuracy ~1e-6.
    """
    _, var = _finite_N_mean_var(B, N, beta, dJ)
    return float(N * beta * var) if np.ndim(B) == 0 else N * beta * var


# %% tags=["check"]
@check
def check_finite_N():
    "odd in B, between -1 and 1, sharpens with N, chi is dE(m)/dB, no overflow at N = 1e6"
    beta, dJ = 1.5, 1.0
    B = np.array([-0.05, -0.01, 0.0, 0.01, 0.05])
    m10, m100 = np.asarray(finite_N_magnetization(B, 10, beta, dJ)), np.asarray(finite_N_magnetization(B, 100, beta, dJ))
    assert m10.shape == B.shape
    assert np.allclose(m10, -m10[::-1], atol=1e-9) and abs(m10[2]) < 1e-9, "E_N(m) should be odd in B"
    assert np.all(np.abs(m100[[0, 1, 3, 4]]) > np.abs(m10[[0, 1, 3, 4]])), "the sigmoid should sharpen with N"
    h = 1e-5
    fd = (finite_N_magnetization(0.02 + h, 30, beta, dJ) - finite_N_magnetization(0.02 - h, 30, beta, dJ)) / (2 * h)
    assert np.isclose(finite_N_susceptibility(0.02, 30, beta, dJ), fd, rtol=1e-4), "chi should be dE(m)/dB"
    big = np.asarray(finite_N_magnetization(np.array([-0.1, 0.1]), 1e6, beta, dJ))
    assert np.all(np.isfinite(big)), "overflow at N = 1e6: use log-sum-exp"
    far = np.asarray(finite_N_magnetization(np.array([0.0, 1e-6, 0.2]), 1e6, beta, dJ))
    assert np.all(np.isfinite(far)) and abs(far[0]) < 1e-9 and far[2] > 0.5, \
        "each field is its own integral: fields far apart need their own log-sum-exp shift"


@check
def check_finite_N_large_N_limit():
    "as N grows, E_N(m) tends to the mean-field m_bar and chi_N to d m_bar / dB (B != 0), with or without coupling"
    for beta, dJ, B in [(0.5, 2.0, 0.3), (0.8, 0.0, -0.4)]:
        mN = finite_N_magnetization(B, 1e5, beta, dJ)
        assert abs(mN - mean_field_magnetization(beta, dJ, B)) < 1e-3, f"E_N(m) -> m_bar at beta={beta}, dJ={dJ}"
        h = 1e-5
        dm = (mean_field_magnetization(beta, dJ, B + h) - mean_field_magnetization(beta, dJ, B - h)) / (2 * h)
        assert abs(finite_N_susceptibility(B, 1e5, beta, dJ) / dm - 1) < 1e-2, f"chi_N -> d m_bar/dB at beta={beta}"


# %% [markdown]
# ## 2.5 The critical exponent
#
# At $B=0$, expanding the action in powers of $m$ (a Landau theory; $T=1/\beta$),
# $$
# s(m)=-T\log2+\frac{T-dJ}2m^2+\frac{T}{12}m^4-Bm+O(m^6), \tag{2.29}
# $$
# the quadratic coefficient changes sign at $T_c=dJ$, and below it the minima sit at
# $$
# \bar m=\pm\sqrt{\frac{3(T_c-T)}{T}}\;\propto\;(T_c-T)^{1/2}. \tag{2.32}
# $$
# **Task.** Implement `critical_exponent_fit(dJ, reduced_temperatures)`: for each reduced
# temperature $t=(T_c-T)/T_c$ (so $T=T_c(1-t)$, $\beta=1/T$), compute $\bar m$ at $B=0$ with
# your `mean_field_magnetization`, and fit $\log\bar m=\log A+b\log t$ by least squares.
# Return $(b, A)$. Measure $b$ close to $T_c$ and farther away: how fast does it approach
# $\frac12$, and what is $A$?

# %% tags=["graded"]
def critical_exponent_fit(dJ, reduced_temperatures):
    """Fitted critical exponent and amplitude of m_bar ~ A t^b at B = 0 (notes, eq. 2.32, Fig. 4).

    For each t in reduced_temperatures, T = T_c (1 - t) with T_c = dJ, beta = 1/T and
    m_bar = mean_field_magnetization(beta, dJ, 0.0); then least squares of log(m_bar) on log(t).

    Args:
        dJ: float > 0 (T_c = dJ).
        reduced_temperatures: 1-d array of at least two distinct t in (0, 1).
    Returns:
        (b, A): tuple of floats, slope and exp(intercept) of the log-log fit.
    """
    t = np.asarray(reduced_temperatures, dtype=float)
    T = dJ * (1.0 - t)
    m = np.array([mean_field_magnetization(1.0 / Ti, dJ, 0.0) for Ti in T])
    b, logA = np.polyfit(np.log(t), np.log(m), 1)
    return float(b), float(np.exp(logA))


# %% tags=["check"]
@check
def check_critical_exponent_fit():
    "the fit reproduces m_bar at the fitted points and the exponent is below 1"
    t = np.array([1e-3, 1e-2, 1e-1])
    b, A = critical_exponent_fit(1.3, t)
    m = np.array([mean_field_magnetization(1 / (1.3 * (1 - ti)), 1.3, 0.0) for ti in t])
    assert 0 < b < 1
    assert np.allclose(A * t**b, m, rtol=0.05), "the fitted power law should pass close to the points"
    b0, _ = critical_exponent_fit(0.7, np.array([1e-6, 1e-5]))
    assert abs(b0 - 0.5) < 1e-3, "close to T_c the exponent is the notes' 1/2, eq. (2.32)"


# %% tags=["solution"]
# Independent checks. (i) $h(m)$ against exact counts
# $\frac1N\log\binom Nk$ (`gammaln`) including the next Stirling term; (ii) the global minimizer
# against a brute-force minimization of `ising_action` on a $2\cdot10^6$-point grid, and
# against the fixed-point iteration started from the side of the field; (iii) the fixed points
# against sign changes of $g(m)-m$ on a dense grid, and their stability against running the
# iteration from perturbed starts; (iv) `finite_N_magnetization` against the *exact*
# Curie–Weiss sum over $k$ (itself checked against enumeration of all $2^{12}$ spin states):
# the difference is $O(1/N)$ (we fit the slope $-1$), and it drops to $O(1/N^2)$ once the
# Stirling prefactor $(1-m^2)^{-1/2}$ is restored in the integral; against adaptive quadrature
# (`scipy.integrate.quad`) at moderate $N$; and against the saddle point $\bar m$ at $N=10^6$;
# (v) `finite_N_susceptibility` against finite differences of `finite_N_magnetization`;
# (vi) the exponent and amplitude against the Landau prediction $b\to\frac12$, $A\to\sqrt3$.
from scipy import integrate

# (i) entropy vs exact counts
N_big = 10**6
k = np.array([1, N_big // 20, N_big // 4, N_big // 2, 3 * N_big // 4, N_big - 1])
m_k = 2 * k / N_big - 1
exact = (special.gammaln(N_big + 1) - special.gammaln(k + 1) - special.gammaln(N_big - k + 1)) / N_big
corr = -np.log(np.pi * N_big * (1 - m_k**2) / 2) / (2 * N_big)
inner = slice(1, -1)
assert np.max(np.abs(exact - binary_entropy(m_k))) < 2e-5
assert np.max(np.abs(exact - binary_entropy(m_k) - corr)[inner]) < 1e-11
print(f"(i)   h(m) vs (1/N) log binom at N=1e6: {np.max(np.abs(exact - binary_entropy(m_k))):.1e}; "
      f"with the Stirling correction (bulk): < 1e-11")   # O(1/(N k)) and round-off: a bound

# (ii) global minimizer vs brute force on a grid (2e5 points, then 2e4 points around the best one),
#      and vs the fixed-point iteration started on the side of the field
grid = np.linspace(-1, 1, 200_001)
rng_c = np.random.default_rng(0)
worst = 0.0
for _ in range(40):
    beta, dJ = rng_c.uniform(0.3, 3.0), rng_c.uniform(0.2, 2.0)
    B = rng_c.choice([0.0, 1.0]) * rng_c.uniform(-0.5, 0.5)
    m_ref = mean_field_magnetization(beta, dJ, B)
    g = grid if B != 0 else grid[grid >= 0]               # B = 0: the convention picks m >= 0
    m0 = g[np.argmin(ising_action(g, beta, dJ, B))]
    fine = np.clip(np.linspace(m0 - 2e-5, m0 + 2e-5, 20_001), -1, 1)
    m_bf = fine[np.argmin(ising_action(fine, beta, dJ, B))]
    worst = max(worst, abs(m_bf - m_ref))
    m_it = np.sign(B) if B != 0 else 1.0
    for _ in range(20000):
        m_it = np.tanh(beta * (dJ * m_it + B))
    if beta * dJ < 0.98 or beta * dJ > 1.02:              # the iteration is slow near T_c
        assert abs(m_it - m_ref) < 1e-9, (beta, dJ, B)
assert worst < 1e-6   # flat minima near T_c: s varies by < 1e-13 over such a difference
# which grid point wins the argmin there is decided by round-off: printed as a bound
print("(ii)  mean_field_magnetization vs brute-force argmin of s (40 random cases): "
      "max |diff| < 1e-6 (final grid spacing 2e-9)")

# (iii) fixed points vs dense sign changes; stability by perturbed iteration
for beta, B in [(0.7, 0.0), (0.7, -0.3), (2.0, 0.0), (2.0, 0.1), (2.0, -0.3), (5.0, 0.5), (1.5, -0.02)]:
    fps, fp_stable = curie_weiss_fixed_points(beta, B)
    g2 = np.linspace(-1, 1, 2_000_000)                     # an even count: 0 is not a node
    gm = np.tanh(beta * (g2 + B)) - g2
    sc = np.nonzero(np.sign(gm[1:]) != np.sign(gm[:-1]))[0]
    assert len(sc) == len(fps) and np.allclose(g2[sc], fps, atol=2e-6), (beta, B)
    for p_, st in zip(fps, fp_stable):
        starts = np.clip(p_ + np.array([-1e-4, 1e-4]), -1, 1)
        end = curie_weiss_iterate(beta, B, starts, 4000)[-1]
        assert np.all(np.abs(end - p_) < 1e-8) == bool(st), (beta, B, p_, st)
print("(iii) fixed points = sign changes on a dense grid; stable <=> perturbed iteration returns")

# %% tags=["solution"]
# (iv) exact Curie-Weiss sum over k; enumeration of 2^12 states; 1/N convergence; quad
def cw_exact_mean(B, N, beta, dJ):
    """E(m) from the exact sum over k (binomial weights) of the Curie-Weiss magnet."""
    k = np.arange(N + 1)
    m = 2 * k / N - 1
    logw = special.gammaln(N + 1) - special.gammaln(k + 1) - special.gammaln(N - k + 1) \
        + N * beta * (dJ * m**2 / 2 + B * m)
    w = np.exp(logw - logw.max())
    return w @ m / w.sum()


N_e, beta_e, dJ_e, B_e = 12, 1.4, 1.0, 0.07
spins = 1 - 2 * ((np.arange(2**N_e)[:, None] >> np.arange(N_e)) & 1)
M = spins.sum(axis=1)
E_spin = -(M**2) / (2 * N_e) - B_e * M                     # E_N = -(1/2N) sum_ij s_i s_j - B sum_i s_i
w = np.exp(-beta_e * (E_spin - E_spin.min()))
enum_mean = w @ (M / N_e) / w.sum()
assert abs(enum_mean - cw_exact_mean(B_e, N_e, beta_e, dJ_e)) < 1e-13
print(f"(iv)  enumeration of 2^12 spin states = binomial sum: {enum_mean:.12f}")


def stirling_integral_mean(B, N, beta, dJ):
    """The integral with the next Stirling factor (1 - m^2)^(-1/2), in the variable m = -cos(u)."""
    u = np.linspace(0, np.pi, 200001)
    m = -np.cos(u)                                          # dm/sqrt(1-m^2) = du
    logw = -N * beta * ising_action(m, beta, dJ, B)
    w = np.exp(logw - logw.max())
    return integrate.trapezoid(w * m, u) / integrate.trapezoid(w, u)


Ns_c = np.array([40, 80, 160, 320, 640, 1280, 2560])
for beta, dJ, B in [(0.7, 1.0, 0.1), (1.5, 1.0, 0.02), (1.5, 1.0, -0.2)]:
    d_int = np.array([finite_N_magnetization(B, N, beta, dJ) - cw_exact_mean(B, N, beta, dJ) for N in Ns_c])
    d_st = np.array([stirling_integral_mean(B, N, beta, dJ) - cw_exact_mean(B, N, beta, dJ) for N in Ns_c])
    slope = np.polyfit(np.log(Ns_c[3:]), np.log(np.abs(d_int[3:])), 1)[0]
    slope_st = np.polyfit(np.log(Ns_c[3:]), np.log(np.abs(d_st[3:])), 1)[0]
    print(f"      beta={beta}, B={B}: integral - exact sum = {d_int[0]:+.2e} (N=40) ... {d_int[-1]:+.2e} "
          f"(N=2560), log-log slope {slope:.2f}; with Stirling factor: {d_st[-1]:+.1e}, slope {slope_st:.2f}")
    assert abs(slope + 1) < 0.15 and slope_st < -1.7
for beta, dJ, B, N in [(1.5, 1.0, 0.01, 50), (0.6, 2.0, -0.3, 200), (2.5, 1.0, 0.0, 30), (1.0, 1.0, 0.05, 400)]:
    num = integrate.quad(lambda m: m * np.exp(-N * beta * (ising_action(m, beta, dJ, B)
                                                           - ising_action(mean_field_magnetization(beta, dJ, B), beta, dJ, B))),
                         -1, 1, epsabs=1e-13, epsrel=1e-12, limit=400, points=[0.0])[0]
    den = integrate.quad(lambda m: np.exp(-N * beta * (ising_action(m, beta, dJ, B)
                                                       - ising_action(mean_field_magnetization(beta, dJ, B), beta, dJ, B))),
                         -1, 1, epsabs=0, epsrel=1e-12, limit=400, points=[0.0])[0]
    assert abs(num / den - finite_N_magnetization(B, N, beta, dJ)) < 1e-10, (beta, dJ, B, N)
print("      finite_N_magnetization = scipy.integrate.quad to 1e-10 (4 cases)")
# at the top of the promised range, beta (dJ + |B|) = 3, the weight reaches m = +-1 (where s'(m) diverges)
for beta, dJ, B, N in [(2.9, 1.0, 0.034, 823), (2.0, 1.0, 0.5, 1000), (3.0, 0.9, -0.05, 5000), (2.5, 1.0, 0.1, 1)]:
    s0 = ising_action(mean_field_magnetization(beta, dJ, B), beta, dJ, B)
    w_q = lambda m: np.exp(-N * beta * (ising_action(m, beta, dJ, B) - s0))
    kw = dict(epsabs=0, epsrel=1e-12, limit=800, points=[0.0])
    Z_q = integrate.quad(w_q, -1, 1, **kw)[0]
    mu_q = integrate.quad(lambda m: m * w_q(m), -1, 1, **kw)[0] / Z_q
    chi_q = N * beta * integrate.quad(lambda m: (m - mu_q) ** 2 * w_q(m), -1, 1, **kw)[0] / Z_q
    assert abs(mu_q - finite_N_magnetization(B, N, beta, dJ)) < 1e-10, (beta, dJ, B, N)
    assert abs(finite_N_susceptibility(B, N, beta, dJ) / chi_q - 1) < 1e-9, (beta, dJ, B, N)
print("      at beta (dJ + |B|) = 3: E_N(m) = quad to 1e-10, chi_N = N beta Var(m) by quad to 1e-9 relative (4 cases)")
for beta, dJ, B in [(1.5, 1.0, 0.01), (0.5, 1.0, 0.3), (3.0, 0.9, -0.05)]:
    diff = abs(finite_N_magnetization(B, 1e6, beta, dJ) - mean_field_magnetization(beta, dJ, B))
    print(f"      N=1e6, beta={beta}, dJ={dJ}, B={B}: |E_N(m) - m_bar| = {diff:.1e}")
    assert diff < 1e-5

# (v) susceptibility vs finite differences
for beta, dJ, B, N in [(1.5, 1.0, 0.003, 100), (0.8, 1.0, 0.2, 40), (1.2, 1.5, -0.001, 2000)]:
    h = 1e-3 / N
    fd = (finite_N_magnetization(B + h, N, beta, dJ) - finite_N_magnetization(B - h, N, beta, dJ)) / (2 * h)
    chi = finite_N_susceptibility(B, N, beta, dJ)
    assert abs(fd / chi - 1) < 1e-6, (fd, chi)
print("(v)   chi_N = N beta Var(m) agrees with central differences of E_N(m) to 1e-6")

# (vi) exponent and amplitude vs Landau
for lo, hi in [(1e-7, 1e-5), (1e-4, 1e-2), (1e-2, 3e-1)]:
    b, A = critical_exponent_fit(PARAMS["dJ"], np.geomspace(lo, hi, 9))
    print(f"(vi)  t in [{lo:.0e}, {hi:.0e}]: b = {b:.6f}, A = {A:.6f}  (Landau: 1/2, sqrt 3 = {np.sqrt(3):.6f})")
b, A = critical_exponent_fit(PARAMS["dJ"], np.geomspace(1e-7, 1e-5, 9))
assert abs(b - 0.5) < 1e-5 and abs(A - np.sqrt(3)) < 1e-3

# %% [markdown]
# ## Figures 1–4 of the notes, and Exercise 5.1
#
# **Figure 1** (graphical solution of (2.27)): $\tanh\beta(dJ\,m+B)$ against the diagonal at
# high temperature (one solution), at low temperature with $B=0$ (three: $0$ is a maximum of
# $s$, $\pm\bar m$ degenerate minima), and at low temperature with $B>0$ (three, the positive
# one global). Dots: the solutions, filled if a minimum of $s$. (They are the Curie–Weiss fixed
# points of `curie_weiss_fixed_points` at $\beta dJ$ and $B/dJ$: rescale $m$'s equation.)

# %% tags=["figure"]
import matplotlib.pyplot as plt   # (imported here: the grader skips figure cells)

dJ0 = PARAMS["dJ"]
bo, bd = PARAMS["beta_dJ_ordered"] / dJ0, PARAMS["beta_dJ_disordered"] / dJ0
Bt = PARAMS["B_over_dJ"] * dJ0
m = np.linspace(-1, 1, 401)
fig, axes = plt.subplots(1, 3, figsize=(14, 4.3))
panels = [(bd, 0.0, rf"high $T$: $\beta dJ={bd * dJ0:.2f}$, $B=0$"),
          (bo, 0.0, rf"low $T$: $\beta dJ={bo * dJ0:.2f}$, $B=0$"),
          (bo, Bt, rf"low $T$, $B={Bt:.3f}>0$")]
for ax, (beta, B, title) in zip(axes, panels):
    ax.plot(m, np.tanh(beta * (dJ0 * m + B)), label=r"$\tanh\beta(dJ\,m+B)$")
    ax.plot(m, m, "k--", lw=1, label="$m$")
    # the solutions of m = tanh(beta(dJ m + B)) are the Curie-Weiss fixed points at beta dJ, B/dJ
    roots, minima = curie_weiss_fixed_points(beta * dJ0, B / dJ0)
    m_glob = mean_field_magnetization(beta, dJ0, B)
    for r, minimum in zip(np.atleast_1d(roots), np.atleast_1d(minima)):
        ax.plot(r, r, "o", ms=8, mfc="C1" if minimum else "white", mec="C1")
    ax.plot(m_glob, m_glob, "*", color="C3", ms=12, label=r"global minimum $\bar m$")
    ax.set(xlabel="$m$", title=title, xlim=(-1, 1), ylim=(-1.05, 1.05))
    ax.legend(fontsize=8, loc="upper left")
plt.tight_layout()
plt.show()

# %% [markdown]
# **Figure 2** (the ordered phase): $s(m)$ at $\beta dJ$ from this year's parameters for a
# negative, zero and positive field. The global minimum (orange) switches sides at $B=0$; the
# suppressed minimum (grey) survives as a metastable state. **Figure 3** (fingerprints of a
# first-order transition at finite $N$): $\mathbb E_N(m)$ against $B$, a sigmoid sharpening into
# a step, and $\chi_N$, a peak of height $\propto N$ and width $\propto1/N$. Right: in the
# rescaled variables $NB$ and $\chi_N/N$ the curves approach the two-phase form of Exercise 2.2,
# $\beta\bar m^2\,\mathrm{sech}^2(\beta\bar m\,NB)$ (two basins at $\pm\bar m$ with
# $\Delta\varphi'=2\beta\bar m$); the approach is slow, with $O(1/N)$ corrections from the width of
# each basin.

# %% tags=["figure"]
m = np.linspace(-0.999, 0.999, 801)
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
for ax, B in zip(axes, [-Bt, 0.0, Bt]):
    s = ising_action(m, bo, dJ0, B)
    ax.plot(m, s, "k")
    pts = m[1:-1][(s[1:-1] < s[:-2]) & (s[1:-1] < s[2:])]
    m_glob = mean_field_magnetization(bo, dJ0, B)
    for p_ in pts:
        is_global = abs(p_ - m_glob) < 0.01 or (B == 0)
        ax.plot(p_, ising_action(p_, bo, dJ0, B), "o", ms=9, color="C1" if is_global else "0.6")
    ax.set(xlabel="$m$", ylabel="$s(m)$", title=rf"Figure 2: $\beta dJ={bo * dJ0:.2f}$, $B={B:+.3f}$")
plt.tight_layout()
plt.show()

# %% tags=["figure"]
mb0 = mean_field_magnetization(bo, dJ0, 0.0)
Bs = np.linspace(-1, 1, 301) * 2.0 / (bo * mb0 * PARAMS["Ns"][0])
fig, axes = plt.subplots(1, 3, figsize=(16, 4.3))
for N, c in zip(PARAMS["Ns"], ["C0", "C1", "C2"]):
    axes[0].plot(Bs, finite_N_magnetization(Bs, N, bo, dJ0), color=c, label=f"N={N}")
    chi = finite_N_susceptibility(Bs, N, bo, dJ0)
    axes[1].plot(Bs, chi, color=c, label=f"N={N}")
    axes[2].plot(N * Bs, chi / N, color=c, label=f"N={N}")
axes[0].plot(Bs, [mean_field_magnetization(bo, dJ0, b) if b != 0 else np.nan for b in Bs], "k--", lw=1,
             label=r"$\bar m$ ($N=\infty$)")
x = np.linspace(-3, 3, 301) / (bo * mb0)
axes[2].plot(x, bo * mb0**2 / np.cosh(bo * mb0 * x) ** 2, "k--", lw=1,
             label=r"$N\to\infty$: $\beta\bar m^2\,\mathrm{sech}^2(\beta\bar m NB)$")
axes[0].set(xlabel="$B$", ylabel=r"$\mathbb{E}_N(m)$", title="Figure 3 (left): a sigmoid sharpening into a step")
axes[1].set(xlabel="$B$", ylabel=r"$\chi_N=N\beta\,\mathrm{Var}(m)$", title=r"Figure 3 (right): a peak of height $\propto N$")
axes[2].set(xlabel="$NB$", ylabel=r"$\chi_N/N$", xlim=(x[0], x[-1]), title="rescaled axes: the peaks approach one curve")
for ax in axes:
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# **Figure 4** (the second-order transition at $B=0$): left, $s(m)$ above, at and below
# $T_c=dJ$ (a single basin flattens and splits); middle, $\bar m(T)$ with the square-root law
# (2.32) dashed; right, the log-log fit of $\bar m$ against $t=(T_c-T)/T_c$ with your
# `critical_exponent_fit`.

# %% tags=["figure"]
fig, axes = plt.subplots(1, 3, figsize=(17, 4.3))
m = np.linspace(-0.999, 0.999, 801)
for r, c in zip(PARAMS["T_over_Tc"], ["C3", "k", "C0"]):
    T = r * dJ0
    s = ising_action(m, 1 / T, dJ0, 0.0)
    axes[0].plot(m, s - s[400], color=c, label=rf"$T={r}\,T_c$")
axes[0].set(xlabel="$m$", ylabel=r"$s(m)-s(0)$", title="action at $B=0$")
axes[0].legend(fontsize=8)
T_over = np.linspace(0.02, 1.3, 300)
mbar = [mean_field_magnetization(1 / (r * dJ0), dJ0, 0.0) for r in T_over]
axes[1].plot(T_over, mbar, "k", label=r"$\bar m(T)$")
T_low = T_over[T_over < 1]
axes[1].plot(T_low, np.sqrt(3 * (1 - T_low) / T_low), "--", color="C1", label=r"$\sqrt{3(T_c-T)/T}$ (2.32)")
axes[1].set(xlabel="$T/T_c$", ylabel=r"$\bar m$", ylim=(-0.05, 1.3), title="spontaneous magnetization")
axes[1].legend(fontsize=8)
t = np.geomspace(1e-6, 0.5, 25)
mb = np.array([mean_field_magnetization(1 / (dJ0 * (1 - ti)), dJ0, 0.0) for ti in t])
axes[2].loglog(t, mb, "o", ms=4, label=r"$\bar m$")
for lo, hi, c in [(1e-6, 1e-4, "C1"), (1e-2, 0.5, "C2")]:
    b, A = critical_exponent_fit(dJ0, np.geomspace(lo, hi, 7))
    tt = np.geomspace(lo, hi, 20)
    axes[2].loglog(tt, A * tt**b, "-", color=c, lw=2, label=rf"fit on [{lo:g}, {hi:g}]: $b={b:.4f}$, $A={A:.3f}$")
axes[2].set(xlabel=r"$t=(T_c-T)/T_c$", ylabel=r"$\bar m$", title="critical exponent")
axes[2].legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# **Exercise 5.1.** Trajectories $m^{(k)}$ of the Curie–Weiss iteration from 11 starting
# points, for $\beta$ below and above 1 and for $B=0,\pm b$ (this year's $\beta$ and $b$).
# Horizontal lines: the fixed points, solid if stable, dotted if unstable.

# %% tags=["figure"]
fig, axes = plt.subplots(2, 3, figsize=(15, 7), sharex=True, sharey=True)
b_cw = PARAMS["cw_field"]
for row, beta in enumerate(PARAMS["cw_betas"]):
    for col, B in enumerate([0.0, b_cw, -b_cw]):
        ax = axes[row, col]
        traj = curie_weiss_iterate(beta, B, np.linspace(-1, 1, 11), 40)
        ax.plot(traj, color="C0", lw=1)
        pts, stable = curie_weiss_fixed_points(beta, B)
        for p_, st in zip(np.atleast_1d(pts), np.atleast_1d(stable)):
            ax.axhline(p_, color="C3" if st else "0.5", ls="-" if st else ":", lw=1.5)
        ax.set(title=rf"$\beta={beta}$, $B={B:+.3f}$", xlabel="iteration $k$" if row else "")
    axes[row, 0].set_ylabel("$m^{(k)}$")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Written answers
#
# **(W1) Exercise 5.1.** Which fixed points are stable, for $\beta<1$ and $\beta>1$? How does
# stability of the *iteration* relate to the minima of $s$? What happens to a trajectory
# started at $m^{(0)}=1$ when $B$ is slightly negative and $\beta>1$, and what is the physical
# name for it? What changes at $\beta=1$ exactly?

# %% [markdown] tags=["answer"] points=3
# *Model answer.* With $g(m)=\tanh\beta(m+B)$, $g'(m)=\beta\,\mathrm{sech}^2\beta(m+B)\in(0,\beta]$,
# and at a fixed point $g'(m^*)=\beta(1-m^{*2})$.
# **$\beta<1$:** $g'<1$ everywhere, so $g$ is a contraction: one fixed point, globally stable,
# reached monotonically from any start (and $m^*=0$ at $B=0$).
# **$\beta>1$:** for $|B|$ below the spinodal field
# $B_{\rm sp}=m_{\rm sp}-\operatorname{artanh}(m_{\rm sp})/\beta$, $m_{\rm sp}=\sqrt{1-1/\beta}$ (where
# $B(m)=\operatorname{artanh}(m)/\beta-m$, the field at which $m$ is a fixed point, has its turning points), there
# are three fixed points; the outer two have $\beta(1-m^{*2})<1$ (stable), the middle one
# $>1$ (unstable; it separates the basins of attraction). For $|B|>B_{\rm sp}$ only the
# fixed point with the sign of $B$ survives. At a fixed point
# $s''(m^*)=\frac1{\beta(1-m^{*2})}-1$ (with $dJ=1$), so $s''>0\iff g'(m^*)<1$: **stable fixed
# points are exactly the local minima of $s$**, unstable ones the maxima. Since $g'>0$ the
# iteration converges monotonically, without oscillation. Started at $m^{(0)}=1$ with
# $-B_{\rm sp}<B<0$, the iteration converges to the positive fixed point, which is a local
# but not the global minimum: a **metastable** state. The iteration (like local dynamics) does
# not cross the barrier: this is **hysteresis**. At $\beta=1$, $B=0$, $g'(0)=1$: the fixed point
# $0$ is marginal and convergence is algebraic,
# $m^{(k)}\approx\sqrt{3/(2k)}$ (critical slowing down), since $m-\tanh m\approx m^3/3$.
#
# *Rubric (3 pts):* 1 for the stability criterion and both regimes; 1 for stable $\iff$ local
# minimum of $s$; 1 for metastability/hysteresis (marginal case a bonus).

# %% [markdown]
# **(W2) The $B=0$ tie and spontaneous symmetry breaking.** Below $T_c$ at $B=0$,
# `mean_field_magnetization` returns $+\bar m$ by convention, while
# `finite_N_magnetization(0, N, ...)` returns $0$ for every $N$. Reconcile the two, using the
# order of the limits $N\to\infty$ and $B\to0$.

# %% [markdown] tags=["answer"] points=2
# *Model answer.* At finite $N$, $s(m)$ at $B=0$ is even, so $\mathbb E_N(m)=0$ exactly: the
# distribution of $m$ is bimodal, with equal weight on $\pm\bar m$, for every $N$. Hence
# $\lim_{N\to\infty}\lim_{B\to0}\mathbb E_N(m)=0$. In the other order, for fixed $B>0$ the
# positive well wins by $\Delta s\approx2B\bar m$, its weight is
# $1/(1+e^{-2N\beta B\bar m})\to1$, so $\lim_{B\to0^+}\lim_{N\to\infty}\mathbb E_N(m)=+\bar m$ (and
# $-\bar m$ from $B\to0^-$). The limits do not commute: that is **spontaneous symmetry
# breaking**, and the convention $+\bar m$ is the choice $B\to0^+$ (the state picked by an
# infinitesimal field, or in practice by the history of the sample). The width of the
# crossover in $B$ is $\sim1/(2N\beta\bar m)$, which is the sigmoid of Figure 3; with dynamics,
# the time to tunnel between $\pm\bar m$ grows like $e^{N\beta\Delta s}$, so a large magnet stays
# in whichever well it is in.
#
# *Rubric (2 pts):* 1 for $\mathbb E_N(m)=0$ by symmetry at finite $N$; 1 for the
# non-commuting limits / SSB.

# %% [markdown]
# **(W3) The exponent.** Your fit gives $b\approx\frac12$ close to $T_c$. Where do the
# corrections farther from $T_c$ come from, what does the amplitude tend to, and is $\frac12$
# the right answer for the 2-d and 3-d Ising models?

# %% [markdown] tags=["answer"] points=2
# *Model answer.* (2.32) comes from truncating the Landau expansion at $m^4$; the $m^6$ term
# ($\frac{T}{30}m^6$ from $h$) and the $T$-dependence of the coefficients give relative
# corrections of order $t$: $\bar m^2=3t/(1-t)\,(1+O(t))$, so $\bar m=\sqrt3\,t^{1/2}(1+O(t))$,
# the local slope is $\frac12+O(t)$ and the amplitude tends to $A=\sqrt3\approx1.732$ (with
# $t=(T_c-T)/T_c$). Far from $T_c$, $\bar m\to1$ saturates and the local slope drops to $0$.
# The mean-field exponent $\beta=\frac12$ is exact for the Curie–Weiss model and for lattices
# in $D\ge4$, but wrong in low dimensions where fluctuations of the neighbours matter: Onsager's
# exact value in $D=2$ is $\frac18$, in $D=3$ it is $\approx0.326$, and in $D=1$ there is no
# transition at all (Section 2.5; the renormalization group explains why).
#
# *Rubric (2 pts):* 1 for the origin of the $O(t)$ corrections and $A\to\sqrt3$; 1 for
# $1/8$ in 2-d / mean field exact only for $D\ge4$ or all-to-all couplings.

# %% tags=["tests"]
@points(1)
def test_binary_entropy(student):
    "binary_entropy on random magnetizations in (-1, 1)"
    rng = rng_for("binary_entropy")
    m = rng.uniform(-0.9999, 0.9999, 30)
    assert_close(student.binary_entropy(m), ref.binary_entropy(m), rtol=1e-10, atol=1e-13, name="h(m)")


@points(1)
def test_binary_entropy_endpoints(student):
    "binary_entropy at m = -1, 0, 1 is finite and correct"
    m = np.array([-1.0, 0.0, 1.0])
    assert_close(student.binary_entropy(m), ref.binary_entropy(m), rtol=1e-10, atol=1e-13,
                 name="h at the endpoints (0 log 0 = 0)")


@points(2)
def test_ising_action(student):
    "ising_action on random (m, beta, dJ, B), with broadcasting and the endpoints"
    rng = rng_for("ising_action")
    m = np.concatenate([rng.uniform(-1, 1, 20), [-1.0, 1.0]])
    beta, dJ, B = rng.uniform(0.2, 3, 22), rng.uniform(0, 2, 22), rng.uniform(-1, 1, 22)
    assert_close(student.ising_action(m, beta, dJ, B), ref.ising_action(m, beta, dJ, B),
                 rtol=1e-10, atol=1e-12, name="s(m) elementwise")
    mm, bb = m[:, None], beta[None, :5]
    assert_close(student.ising_action(mm, bb, 1.3, -0.2), ref.ising_action(mm, bb, 1.3, -0.2),
                 rtol=1e-10, atol=1e-12, name="s(m[:, None], beta[None, :], dJ, B)")


@points(3)
def test_mean_field_magnetization_random(student):
    "mean_field_magnetization at random temperatures, couplings and fields of both signs"
    rng = rng_for("mean_field_magnetization_random")
    for _ in range(12):
        beta, dJ, B = float(rng.uniform(0.2, 4)), float(rng.uniform(0.1, 2)), float(rng.uniform(-0.6, 0.6))
        assert_close(student.mean_field_magnetization(beta, dJ, B), ref.mean_field_magnetization(beta, dJ, B),
                     rtol=1e-9, atol=1e-10, name=f"m_bar(beta={beta:.3f}, dJ={dJ:.3f}, B={B:+.3f})")


@points(2)
def test_mean_field_magnetization_metastable(student):
    "mean_field_magnetization in the ordered phase with a small field opposing one well (the global minimum)"
    rng = rng_for("mean_field_magnetization_metastable")
    for _ in range(4):
        dJ = float(rng.uniform(0.5, 1.5))
        beta = float(rng.uniform(1.3, 3.0)) / dJ
        B = float(rng.choice([-1, 1]) * rng.uniform(1e-6, 0.05) * dJ)
        assert_close(student.mean_field_magnetization(beta, dJ, B), ref.mean_field_magnetization(beta, dJ, B),
                     rtol=1e-9, atol=1e-10, name=f"m_bar(beta dJ={beta * dJ:.3f}, B={B:+.2e})")


@points(2)
def test_mean_field_magnetization_zero_field(student):
    "mean_field_magnetization at B = 0 above and below T_c (and the B = 0 tie convention)"
    rng = rng_for("mean_field_magnetization_zero_field")
    dJ = float(rng.uniform(0.5, 2))
    for beta_dJ in [float(rng.uniform(0.2, 0.99)), 1.0, float(rng.uniform(1.01, 1.2)), float(rng.uniform(1.5, 5))]:
        assert_close(student.mean_field_magnetization(beta_dJ / dJ, dJ, 0.0),
                     ref.mean_field_magnetization(beta_dJ / dJ, dJ, 0.0), rtol=1e-9, atol=1e-10,
                     name=f"m_bar at B = 0, beta dJ = {beta_dJ:.3f}")


@points(1)
def test_mean_field_magnetization_near_tc(student):
    "mean_field_magnetization at B = 0 very close to T_c (small m_bar, accurate)"
    rng = rng_for("mean_field_magnetization_near_tc")
    dJ = float(rng.uniform(0.5, 2))
    for t in [1e-8, float(rng.uniform(1e-6, 1e-5)), 1e-3]:
        beta = 1.0 / (dJ * (1 - t))
        assert_close(student.mean_field_magnetization(beta, dJ, 0.0), ref.mean_field_magnetization(beta, dJ, 0.0),
                     rtol=1e-7, atol=1e-12, name=f"m_bar at t = {t:.1e}")


@points(2)
def test_curie_weiss_iterate(student):
    "curie_weiss_iterate: trajectories from scalar and array starts"
    rng = rng_for("curie_weiss_iterate")
    for beta, B in [(float(rng.uniform(0.3, 0.9)), float(rng.uniform(-0.3, 0.3))),
                    (float(rng.uniform(1.5, 3)), float(rng.uniform(-0.1, 0.1)))]:
        m0 = rng.uniform(-1, 1, 6)
        steps = int(rng.integers(5, 40))
        assert_close(student.curie_weiss_iterate(beta, B, m0, steps), ref.curie_weiss_iterate(beta, B, m0, steps),
                     rtol=1e-10, atol=1e-12, name=f"trajectory (beta={beta:.2f}, B={B:+.3f})")
    assert_close(student.curie_weiss_iterate(1.7, 0.02, 0.3, 10), ref.curie_weiss_iterate(1.7, 0.02, 0.3, 10),
                 rtol=1e-10, atol=1e-12, name="trajectory from a scalar start")
    assert_close(student.curie_weiss_iterate(1.7, 0.02, 0.3, 0), ref.curie_weiss_iterate(1.7, 0.02, 0.3, 0),
                 rtol=1e-10, atol=1e-12, name="trajectory with steps = 0")


@points(3)
def test_curie_weiss_fixed_points(student):
    "curie_weiss_fixed_points: all fixed points and their stability, both phases and several fields"
    rng = rng_for("curie_weiss_fixed_points")
    cases = [(float(rng.uniform(0.2, 0.95)), float(rng.uniform(-0.5, 0.5))),
             (float(rng.uniform(1.5, 4)), 0.0),
             (float(rng.uniform(1.5, 4)), float(rng.uniform(0.01, 0.1))),
             (float(rng.uniform(1.5, 4)), -float(rng.uniform(0.01, 0.1))),
             (float(rng.uniform(1.2, 1.4)), float(rng.choice([-1, 1]) * rng.uniform(0.2, 0.5)))]
    for beta, B in cases:
        pts, stable = student.curie_weiss_fixed_points(beta, B)
        want_pts, want_stable = ref.curie_weiss_fixed_points(beta, B)
        assert_close(np.atleast_1d(pts), want_pts, rtol=1e-9, atol=1e-10,
                     name=f"fixed points (beta={beta:.2f}, B={B:+.3f})")
        assert_close(np.atleast_1d(stable).astype(float), want_stable.astype(float), rtol=0, atol=0,
                     name=f"stability flags (beta={beta:.2f}, B={B:+.3f})")


@points(2)
def test_curie_weiss_fixed_points_near_spinodal(student):
    "curie_weiss_fixed_points with a field close to (but below) the spinodal field"
    rng = rng_for("curie_weiss_fixed_points_near_spinodal")
    for _ in range(3):
        beta = float(rng.uniform(1.4, 2.5))
        m_sp = np.sqrt(1 - 1 / beta)
        B_sp = m_sp - np.arctanh(m_sp) / beta                 # the metastable branch disappears beyond it
        B = float(rng.choice([-1, 1]) * rng.uniform(0.75, 0.95) * B_sp)
        pts, stable = student.curie_weiss_fixed_points(beta, B)
        want_pts, want_stable = ref.curie_weiss_fixed_points(beta, B)
        assert_close(np.atleast_1d(pts), want_pts, rtol=1e-9, atol=1e-10,
                     name=f"fixed points (beta={beta:.2f}, B={B:+.4f})")
        assert_close(np.atleast_1d(stable).astype(float), want_stable.astype(float), rtol=0, atol=0,
                     name=f"stability flags (beta={beta:.2f}, B={B:+.4f})")


@points(3)
def test_finite_N_magnetization_moderate_N(student):
    "finite_N_magnetization at moderate N in both phases, fields of both signs and zero"
    rng = rng_for("finite_N_magnetization_moderate_N")
    for N, beta_dJ in [(int(rng.integers(5, 20)), float(rng.uniform(0.4, 0.9))),
                       (int(rng.integers(20, 80)), float(rng.uniform(1.2, 2.0))),
                       (int(rng.integers(100, 400)), float(rng.uniform(1.2, 2.0)))]:
        dJ = float(rng.uniform(0.5, 1.5))
        beta = beta_dJ / dJ
        B = np.concatenate([rng.uniform(-3, 3, 6) / (N * beta), [0.0], rng.uniform(-0.3, 0.3, 2)])
        assert_close(student.finite_N_magnetization(B, N, beta, dJ), ref.finite_N_magnetization(B, N, beta, dJ),
                     rtol=1e-6, atol=1e-6, name=f"E_N(m) at N={N}, beta dJ={beta_dJ:.2f}")


@points(2)
def test_finite_N_magnetization_large_N(student):
    "finite_N_magnetization at N = 1e4 and 1e6 (no overflow, peaks resolved)"
    rng = rng_for("finite_N_magnetization_large_N")
    for N in [1e4, 1e6]:
        dJ = float(rng.uniform(0.5, 1.5))
        beta = float(rng.uniform(1.2, 2.0)) / dJ
        B = np.concatenate([rng.uniform(-2, 2, 3) / (N * beta), [float(rng.uniform(0.05, 0.3))]])
        assert_close(student.finite_N_magnetization(B, N, beta, dJ), ref.finite_N_magnetization(B, N, beta, dJ),
                     rtol=1e-6, atol=1e-6, name=f"E_N(m) at N={N:g}")


@points(1)
def test_finite_N_magnetization_scalar(student):
    "finite_N_magnetization with a scalar field at the critical temperature"
    rng = rng_for("finite_N_magnetization_scalar")
    dJ = float(rng.uniform(0.5, 1.5))
    B = float(rng.uniform(0.001, 0.05))
    assert_close(student.finite_N_magnetization(B, 500, 1 / dJ, dJ), ref.finite_N_magnetization(B, 500, 1 / dJ, dJ),
                 rtol=1e-6, atol=1e-6, name="E_N(m) at T = T_c")


@points(3)
def test_finite_N_susceptibility(student):
    "finite_N_susceptibility: the peak at B = 0 and its flanks, several N"
    rng = rng_for("finite_N_susceptibility")
    for N, beta_dJ in [(int(rng.integers(10, 40)), float(rng.uniform(1.2, 2.0))),
                       (int(rng.integers(100, 1000)), float(rng.uniform(1.2, 2.0))),
                       (int(rng.integers(10, 100)), float(rng.uniform(0.3, 0.9)))]:
        dJ = float(rng.uniform(0.5, 1.5))
        beta = beta_dJ / dJ
        B = np.concatenate([[0.0], rng.uniform(-2, 2, 5) / (N * beta)])
        assert_close(student.finite_N_susceptibility(B, N, beta, dJ), ref.finite_N_susceptibility(B, N, beta, dJ),
                     rtol=1e-5, atol=1e-8, name=f"chi_N at N={N}, beta dJ={beta_dJ:.2f}")
    assert_close(student.finite_N_susceptibility(float(B[1]), N, beta, dJ),
                 ref.finite_N_susceptibility(float(B[1]), N, beta, dJ), rtol=1e-5, atol=1e-8,
                 name="chi_N at a scalar field")


@points(2)
def test_critical_exponent_fit(student):
    "critical_exponent_fit close to T_c and farther away"
    rng = rng_for("critical_exponent_fit")
    dJ = float(rng.uniform(0.5, 2))
    for lo, hi in [(1e-6, 1e-4), (float(rng.uniform(0.01, 0.05)), float(rng.uniform(0.2, 0.5)))]:
        t = np.geomspace(lo, hi, 6)
        assert_close(student.critical_exponent_fit(dJ, t), ref.critical_exponent_fit(dJ, t), rtol=1e-6, atol=1e-7,
                     name=f"(b, A) for t in [{lo:.1e}, {hi:.1e}]")


@points(1)
def test_scalar_inputs_give_floats(student):
    "binary_entropy, ising_action (dJ = B = 0 included), mean_field_magnetization, finite-N functions: float inputs give one number"
    rng = rng_for("scalar_inputs_give_floats")
    calls = [("binary_entropy", (0.0,)), ("binary_entropy", (1.0,)), ("binary_entropy", (float(rng.uniform(-1, 1)),)),
             ("ising_action", (-1.0, float(rng.uniform(0.5, 2)), 0.0, 0.0)),
             ("ising_action", (float(rng.uniform(-1, 1)), float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2)),
                               float(rng.uniform(-0.5, 0.5)))),
             ("mean_field_magnetization", (float(rng.uniform(0.5, 2)), 0.0, 0.0)),
             ("finite_N_magnetization", (0.0, int(rng.integers(5, 50)), float(rng.uniform(0.5, 1.5)), 1.0)),
             ("finite_N_susceptibility", (float(rng.uniform(-0.1, 0.1)), int(rng.integers(5, 50)), 1.2, 1.0))]
    for fn, args in calls:
        got = getattr(student, fn)(*args)
        assert np.ndim(got) == 0, f"{fn} of float arguments should be one number (a float), not an array"
        assert_close(got, getattr(ref, fn)(*args), rtol=1e-6, atol=1e-9, name=f"{fn} at float arguments")


@points(1)
def test_ising_action_zero_coupling_and_field(student):
    "ising_action with dJ = 0 and B = 0 (the pure entropy term), endpoints included"
    rng = rng_for("ising_action_zero_coupling_and_field")
    m = np.concatenate([rng.uniform(-1, 1, 8), [-1.0, 0.0, 1.0]])
    beta = float(rng.uniform(0.2, 3))
    for dJ, B in [(0.0, 0.0), (0.0, float(rng.uniform(-1, 1))), (float(rng.uniform(0.2, 2)), 0.0)]:
        assert_close(student.ising_action(m, beta, dJ, B), ref.ising_action(m, beta, dJ, B), rtol=1e-10, atol=1e-12,
                     name=f"s(m) with dJ={dJ:.2f}, B={B:+.2f}")


@points(1)
def test_mean_field_magnetization_accuracy(student):
    "mean_field_magnetization to the promised accuracy, with no coupling, at very low and very high temperature"
    rng = rng_for("mean_field_magnetization_accuracy")
    cases = [(float(rng.uniform(0.2, 4)), float(rng.uniform(0.1, 2)), float(rng.uniform(-0.6, 0.6))) for _ in range(4)]
    cases += [(float(rng.uniform(0.5, 3)), 0.0, float(rng.uniform(-1, 1))), (float(rng.uniform(0.5, 3)), 0.0, 0.0),
              (float(rng.uniform(20, 60)), 1.0, 0.0), (float(rng.uniform(20, 60)), 1.0, -float(rng.uniform(1e-4, 1e-2))),
              (float(rng.uniform(0.01, 0.05)), float(rng.uniform(0.5, 2)), float(rng.uniform(-1, 1)))]
    for beta, dJ, B in cases:
        assert_close(student.mean_field_magnetization(beta, dJ, B), ref.mean_field_magnetization(beta, dJ, B),
                     rtol=1e-11, atol=3e-12, name=f"m_bar(beta={beta:.3g}, dJ={dJ:.3g}, B={B:+.3g}) to ~1e-12")


@points(1)
def test_curie_weiss_iterate_shapes(student):
    "curie_weiss_iterate from a 2-d array of starts (endpoints +-1 included) and for one step"
    rng = rng_for("curie_weiss_iterate_shapes")
    m0 = rng.uniform(-1, 1, (2, 3))
    m0[0, 0], m0[1, 2] = -1.0, 1.0
    beta, B = float(rng.uniform(0.5, 3)), float(rng.uniform(-0.2, 0.2))
    for steps in [1, int(rng.integers(5, 15))]:
        got = np.asarray(student.curie_weiss_iterate(beta, B, m0, steps), dtype=float)
        assert got.shape == (steps + 1, 2, 3), "the trajectory should have shape (steps + 1,) + np.shape(m0)"
        assert_close(got, ref.curie_weiss_iterate(beta, B, m0, steps), rtol=1e-10, atol=1e-12,
                     name=f"trajectory from a (2, 3) array of starts, steps={steps}")


@points(1)
def test_curie_weiss_fixed_points_extreme_temperatures(student):
    "curie_weiss_fixed_points at very low temperature (fixed points at +-1), very high, and just below T_c"
    rng = rng_for("curie_weiss_fixed_points_extreme_temperatures")
    for beta, B in [(float(rng.uniform(30, 100)), float(rng.uniform(-0.05, 0.05))), (float(rng.uniform(30, 100)), 0.0),
                    (float(rng.uniform(0.01, 0.1)), float(rng.uniform(-1, 1))),
                    (1.0 + float(rng.uniform(1e-4, 1e-3)), 0.0)]:
        pts, stable = student.curie_weiss_fixed_points(beta, B)
        want_pts, want_stable = ref.curie_weiss_fixed_points(beta, B)
        assert_close(np.atleast_1d(pts), want_pts, rtol=1e-9, atol=1e-10,
                     name=f"fixed points (beta={beta:.4g}, B={B:+.3f})")
        assert_close(np.atleast_1d(stable).astype(float), want_stable.astype(float), rtol=0, atol=0,
                     name=f"stability flags (beta={beta:.4g}, B={B:+.3f})")


@points(1)
def test_finite_N_edges(student):
    "finite_N_magnetization and finite_N_susceptibility at N = 1 and 2, with no coupling, and at beta (dJ + |B|) = 3"
    rng = rng_for("finite_N_edges")
    for N, dJ, beta_dJ in [(1, 1.0, float(rng.uniform(0.5, 2.5))), (2, float(rng.uniform(0.5, 1.5)), 1.0),
                           (int(rng.integers(5, 50)), 0.0, 1.0), (int(rng.integers(500, 2000)), 1.0, 2.9),
                           (1e5, 1.0, 2.9)]:
        beta = float(rng.uniform(0.5, 2.0)) if dJ == 0.0 else beta_dJ / dJ
        B_top = float(rng.choice([-1, 1])) * (3 / beta - dJ)           # beta (dJ + |B|) = 3, the top of the range
        B = np.concatenate([rng.uniform(-2, 2, 3) / (N * beta), [0.0, B_top]])
        assert_close(student.finite_N_magnetization(B, N, beta, dJ), ref.finite_N_magnetization(B, N, beta, dJ),
                     rtol=1e-6, atol=1e-6, name=f"E_N(m) at N={N:g}, dJ={dJ:.2f}, beta={beta:.3f}")
        assert_close(student.finite_N_susceptibility(B, N, beta, dJ), ref.finite_N_susceptibility(B, N, beta, dJ),
                     rtol=1e-5, atol=1e-8, name=f"chi_N at N={N:g}, dJ={dJ:.2f}, beta={beta:.3f}")


@points(1)
def test_critical_exponent_fit_two_temperatures(student):
    "critical_exponent_fit from just two reduced temperatures, one of them close to 1 (T near 0)"
    rng = rng_for("critical_exponent_fit_two_temperatures")
    dJ = float(rng.uniform(0.5, 2))
    for t in [np.array([float(rng.uniform(1e-4, 1e-2)), float(rng.uniform(0.9, 0.99))]),
              np.array([1e-9, float(rng.uniform(1e-7, 1e-5))])]:
        got = student.critical_exponent_fit(dJ, t)
        assert len(got) == 2 and np.ndim(got[0]) == 0 and np.ndim(got[1]) == 0, "expected (b, A), two numbers"
        assert_close(got, ref.critical_exponent_fit(dJ, t), rtol=1e-6, atol=1e-7,
                     name=f"(b, A) for t = [{t[0]:.1e}, {t[1]:.2g}]")


# %% tags=["wrong"]
# wrong: entropy in bits and without 0 log 0 = 0 (nan at the endpoints)
# hint: h(m) is in nats (natural log, eq. (2.24)), and h(±1) = 0 exactly by the convention 0 log 0 = 0
#   (scipy.special.xlogy), not nan.
def binary_entropy(m):
    m = np.asarray(m, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 - (1 - m) / 2 * np.log2(1 - m) - (1 + m) / 2 * np.log2(1 + m)


# %% tags=["wrong"]
# wrong: action with the entropy not divided by beta (energy minus entropy)
# hint: The action is energy minus temperature times entropy, s(m) = −(dJ/2)m² − Bm − h(m)/β (eq.
#   (2.25)): the entropy carries the factor 1/β.
def ising_action(m, beta, dJ, B):
    return -0.5 * dJ * np.asarray(m) ** 2 - B * np.asarray(m) - binary_entropy(m)


# %% tags=["rewrite"]
# rewrite: the same action without 1/beta on the entropy, with the entropy written out through xlogy
def ising_action(m, beta, dJ, B):
    m = np.asarray(m, dtype=float)
    h = np.log(2.0) - 0.5 * special.xlogy(1 - m, 1 - m) - 0.5 * special.xlogy(1 + m, 1 + m)
    return -(dJ * m * m) / 2 - m * B - h


# %% tags=["wrong"]
# wrong: mean-field magnetization by fixed-point iteration from m0 = 1 (lands on the metastable branch)
# hint: Iterating m ← tanh(β(dJ m + B)) from m = 1 stops at the stable root nearest to 1, which can be
#   the metastable one: the mean-field magnetization is the global minimizer of s(m), so compare the
#   action at the roots of eq. (2.27) (Sections 2.4–2.5).
def mean_field_magnetization(beta, dJ, B):
    m = 1.0
    for _ in range(5000):
        m = np.tanh(beta * (dJ * m + B))
    return float(m)


# %% tags=["wrong"]
# wrong: at B = 0 below T_c returns the root m = 0 (the maximum of s)
# hint: Below T_c at B = 0 the root m = 0 of eq. (2.27) is a maximum of s(m); the minima are the two
#   nonzero roots ±m̄ (Section 2.5, Figure 2).
_mfm_right = mean_field_magnetization


def mean_field_magnetization(beta, dJ, B):
    return 0.0 if B == 0 else _mfm_right(beta, dJ, B)


# %% tags=["wrong"]
# wrong: the global minimum located by minimizing s(m) directly (accurate to only ~sqrt(machine eps))
# hint: s(m) is flat at its minimum, so a minimizer of s finds m̄ only to about 1e-8: solve the
#   stationarity condition m = tanh(β(dJ m + B)) of eq. (2.27) with a root finder for the promised
#   ~1e-12 (Sections 2.4–2.5).
def mean_field_magnetization(beta, dJ, B):
    beta, dJ, B = float(beta), float(dJ), float(B)
    if B == 0.0 and beta * dJ <= 1.0:
        return 0.0
    sgn = 1.0 if B >= 0 else -1.0
    res = optimize.minimize_scalar(lambda m: ising_action(sgn * m, beta, dJ, B), bounds=(0.0, 1.0),
                                   method="bounded", options={"xatol": 1e-14})
    return float(sgn * res.x)


# %% tags=["wrong"]
# wrong: Curie-Weiss self-consistency with the field outside the tanh argument's beta
# hint: In the Curie–Weiss map the field sits inside the bracket that β multiplies: m ← tanh(β(m + B))
#   (eq. (2.27) with dJ = 1, Section 5.1.1).
def curie_weiss_iterate(beta, B, m0, steps):
    out = [np.asarray(m0, dtype=float)]
    for _ in range(steps):
        out.append(np.tanh(beta * out[-1] + B))
    return np.array(out)


# %% tags=["wrong"]
# wrong: trajectory without the starting point (off by one)
# hint: The trajectory starts with m0 itself: `steps` iterations give steps + 1 values, m0 first
#   (Exercise 5.1).
def curie_weiss_iterate(beta, B, m0, steps):
    m, out = np.asarray(m0, dtype=float), []
    for _ in range(steps + 1):
        m = np.tanh(beta * (m + B))
        out.append(m)
    return np.array(out)


# %% tags=["wrong"]
# wrong: trajectory of a scalar start as a column, shape (steps + 1, 1) (np.atleast_1d)
# hint: Row k of the trajectory has the shape of m0: for a float m0 the result is a 1-d array of
#   steps + 1 values, not a column (Exercise 5.1).
def curie_weiss_iterate(beta, B, m0, steps):
    m = np.atleast_1d(np.asarray(m0, dtype=float))
    out = [m]
    for _ in range(steps):
        out.append(np.tanh(beta * (out[-1] + B)))
    return np.array(out)


# %% tags=["wrong"]
# wrong: stability from sech^2 < 1 (forgot the chain-rule factor beta): every fixed point "stable"
# hint: A fixed point of m ← tanh(β(m + B)) is stable when the slope of the map is below 1 in absolute
#   value; by the chain rule the slope is β(1 − m²), with the factor β (Exercise 5.1).
_cwfp_right = curie_weiss_fixed_points


def curie_weiss_fixed_points(beta, B):
    pts, _ = _cwfp_right(beta, B)
    return pts, (1.0 - pts**2) < 1.0


# %% tags=["wrong"]
# wrong: fixed points from a coarse grid of 201 points (no root refinement)
# hint: A grid only brackets the fixed points: refine each sign change with a root finder (e.g.
#   scipy.optimize.brentq) to get them to full accuracy (Exercise 5.1).
def curie_weiss_fixed_points(beta, B):
    m = np.linspace(-1, 1, 201)
    g = np.tanh(beta * (m + B)) - m
    idx = np.nonzero(np.sign(g[1:]) != np.sign(g[:-1]))[0]
    pts = m[idx]
    return pts, beta * (1 - pts**2) < 1


# %% tags=["wrong"]
# wrong: fixed points from strict sign changes on a fine grid (misses roots where the map's residual is exactly 0)
# hint: At low temperature the outer fixed points are ±1 to double precision, where tanh(β(m + B)) − m
#   is exactly 0 (and at B = 0, m = 0 is a root): a test for strict sign changes misses them, so count
#   the exact zeros too (Exercise 5.1).
def curie_weiss_fixed_points(beta, B):
    f = lambda m: np.tanh(beta * (m + B)) - m
    grid = np.linspace(-1, 1, 400001)
    g = f(grid)
    pts = np.sort(np.array([optimize.brentq(f, grid[i], grid[i + 1], xtol=1e-15)
                            for i in np.nonzero(g[:-1] * g[1:] < 0)[0]]))
    return pts, beta * (1 - pts**2) < 1


# %% tags=["wrong"]
# wrong: naive exp of -N beta s (overflow / 0/0 at large N)
# hint: At large N the weights e^{−Nβ s(m)} overflow or underflow: subtract the minimum of Nβ s(m)
#   before exponentiating (the ratio of the two integrals does not change), Section 2.5.
def finite_N_magnetization(B, N, beta, dJ):
    m = np.linspace(-1, 1, 20001)
    Bs = np.atleast_1d(np.asarray(B, dtype=float))
    with np.errstate(over="ignore", invalid="ignore"):
        w = np.exp(-N * beta * ising_action(m[None, :], beta, dJ, Bs[:, None]))
        out = np.trapezoid(w * m, m, axis=1) / np.trapezoid(w, m, axis=1)
    return float(out[0]) if np.ndim(B) == 0 else out.reshape(np.shape(B))


# %% tags=["wrong"]
# wrong: Boltzmann weight exp(-N s) without beta
# hint: The weight of a magnetization m in Z is e^{−Nβ s(m)} (eq. (2.25)): keep the β in the exponent.
def finite_N_magnetization(B, N, beta, dJ):
    m = np.linspace(-1, 1, 40001)
    Bs = np.atleast_1d(np.asarray(B, dtype=float))
    logw = -N * ising_action(m[None, :], beta, dJ, Bs[:, None])
    w = np.exp(logw - logw.max(axis=1, keepdims=True))
    out = (w @ m) / w.sum(axis=1)
    return float(out[0]) if np.ndim(B) == 0 else out.reshape(np.shape(B))


# %% tags=["wrong"]
# wrong: finite-N magnetization replaced by the N = infinity saddle point
# hint: At finite N, E(m) averages over both basins with the weights e^{−Nβ s(m)} of eq. (2.25), a
#   smooth function of B: it is not the N = ∞ saddle point m̄ (Section 2.5, Figure 3).
def finite_N_magnetization(B, N, beta, dJ):
    out = np.array([mean_field_magnetization(beta, dJ, b) for b in np.atleast_1d(B)])
    return float(out[0]) if np.ndim(B) == 0 else out.reshape(np.shape(B))


# %% tags=["wrong"]
# wrong: susceptibility as Var(m) without the factor N beta
# hint: The susceptibility is χ = ∂_B E(m) = Nβ Var(m), not Var(m) alone (conventions of this exercise,
#   Section 2.5).
def finite_N_susceptibility(B, N, beta, dJ):
    _, var = _finite_N_mean_var(B, N, beta, dJ)
    return float(var) if np.ndim(B) == 0 else var


# %% tags=["wrong"]
# wrong: a fixed coarse grid of 2001 points (peaks at large N not resolved)
# hint: At large N the weight e^{−Nβ s(m)} is a peak of width about 1/√N: a fixed grid of m cannot
#   resolve it, so refine the grid with N or integrate around the peaks (Section 2.5, Figure 3).
def finite_N_magnetization(B, N, beta, dJ):
    m = np.linspace(-1, 1, 2001)
    Bs = np.atleast_1d(np.asarray(B, dtype=float))
    logw = -N * beta * ising_action(m[None, :], beta, dJ, Bs[:, None])
    w = np.exp(logw - logw.max(axis=1, keepdims=True))
    out = (w @ m) / w.sum(axis=1)
    return float(out[0]) if np.ndim(B) == 0 else out.reshape(np.shape(B))


# %% tags=["wrong"]
# wrong: trapezoid rule on a uniform grid in m of spacing 1e-4 (converges like h^2 log h at m = +-1)
# hint: Near β(dJ + |B|) = 3 the weight reaches m = ±1, where s'(m) diverges, and the trapezoid rule on
#   a uniform grid in m converges only like h² log h: refine the grid a lot, or substitute m = tanh u
#   so that the integrand is smooth (Section 2.5, Figure 3).
def _m_grid_mean_var(B, N, beta, dJ):
    Bs = np.asarray(B, dtype=float)
    flat = np.atleast_1d(Bs).ravel()
    sech2 = 1.0 / np.cosh(beta * (dJ + np.max(np.abs(flat)))) ** 2
    h = min(1e-4, 0.5 * np.sqrt(sech2 / N))
    m = np.linspace(-1.0, 1.0, min(int(np.ceil(2.0 / h)) + 1, 2_000_001))
    logw_end = np.zeros_like(m)
    logw_end[[0, -1]] = np.log(0.5)
    mean, var = np.empty(flat.size), np.empty(flat.size)
    for i, b in enumerate(flat):
        logp = -N * beta * ising_action(m, beta, dJ, b) + logw_end
        p = np.exp(logp - logp.max())
        p /= p.sum()
        mean[i] = p @ m
        var[i] = p @ (m - mean[i]) ** 2
    return mean.reshape(Bs.shape), var.reshape(Bs.shape)


def finite_N_magnetization(B, N, beta, dJ):
    mean, _ = _m_grid_mean_var(B, N, beta, dJ)
    return float(mean) if np.ndim(B) == 0 else mean


def finite_N_susceptibility(B, N, beta, dJ):
    _, var = _m_grid_mean_var(B, N, beta, dJ)
    return float(N * beta * var) if np.ndim(B) == 0 else N * beta * var


# %% tags=["wrong"]
# wrong: exponent fitted against log T instead of log(T_c - T)
# hint: The critical exponent is the slope of log m̄ against the log of the reduced temperature (T_c −
#   T)/T_c, not against log T (Section 2.5, Figure 4).
def critical_exponent_fit(dJ, reduced_temperatures):
    t = np.asarray(reduced_temperatures, dtype=float)
    T = dJ * (1 - t)
    m = np.array([mean_field_magnetization(1 / Ti, dJ, 0.0) for Ti in T])
    b, logA = np.polyfit(np.log(T), np.log(m), 1)
    return float(b), float(np.exp(logA))


# %% tags=["wrong"]
# wrong: reduced temperature taken as T_c - T (not divided by T_c)
# hint: The reduced temperature is t = (T_c − T)/T_c with T_c = dJ, so T = T_c(1 − t), not T_c − t
#   (Section 2.5, Figure 4).
def critical_exponent_fit(dJ, reduced_temperatures):
    t = np.asarray(reduced_temperatures, dtype=float)
    m = np.array([mean_field_magnetization(1 / (dJ - ti), dJ, 0.0) for ti in t])
    b, logA = np.polyfit(np.log(t), np.log(m), 1)
    return float(b), float(np.exp(logA))


# %% tags=["wrong"]
# wrong: one log-sum-exp shift for the whole array of fields (the largest exponent over all B)
# hint: Each field B is its own integral: subtract the largest exponent −Nβ s(m) at that B, not one
#   maximum over the whole array of fields; at large N a field far from the others gets weights that all
#   underflow to 0 (0/0 = nan), Section 2.5.
def finite_N_magnetization(B, N, beta, dJ):
    Bs = np.asarray(B, dtype=float)
    u = _u_grid(N)
    m = np.tanh(u)
    log_jac = 2.0 * np.log(2.0) - np.logaddexp(0.0, 2.0 * u) - np.logaddexp(0.0, -2.0 * u)
    logp = -N * beta * ising_action(m[None, :], beta, dJ, np.atleast_1d(Bs).ravel()[:, None]) + log_jac
    with np.errstate(invalid="ignore"):
        p = np.exp(logp - logp.max())
        mean = (p @ m) / p.sum(axis=1)
    return float(mean[0]) if Bs.ndim == 0 else mean.reshape(Bs.shape)


# %% tags=["alternative"]
# alternative: entropy via p log p, minimizer by root finding in x = beta(dJ m + B), fixed points by dense scan + brentq, integral in u = artanh(m) with logsumexp, fit by lstsq
def binary_entropy(m):
    p = (1 + np.asarray(m, dtype=float)) / 2
    return -special.xlogy(p, p) - special.xlogy(1 - p, 1 - p)


def ising_action(m, beta, dJ, B):
    m = np.asarray(m, dtype=float)
    return -(dJ * m / 2 + B) * m - binary_entropy(m) / beta


def mean_field_magnetization(beta, dJ, B):
    # solve in the variable x = beta (dJ m + |B|), m = tanh(x): dJ tanh(x) + |B| - x / beta = 0
    if B == 0:
        if beta * dJ <= 1:
            return 0.0
        q = lambda x: dJ * np.tanh(x) / x - 1.0 / beta       # the trivial root x = 0 divided out
        x = optimize.brentq(q, 1e-300, beta * dJ, xtol=1e-300, rtol=1e-15)
        return float(np.tanh(x))
    b = abs(B)
    if dJ == 0:                                               # independent spins: x = beta |B|
        return float(np.sign(B) * np.tanh(beta * b))
    f = lambda x: dJ * np.tanh(x) + b - x / beta
    x = optimize.brentq(f, beta * b, beta * (dJ + b), xtol=1e-300, rtol=1e-15)
    return float(np.sign(B) * np.tanh(x))


def curie_weiss_iterate(beta, B, m0, steps):
    traj = [np.array(m0, dtype=float)]
    for _ in range(steps):
        traj.append(np.tanh(beta * traj[-1] + beta * B))
    return np.stack(traj)


def curie_weiss_fixed_points(beta, B):
    f = lambda m: np.tanh(beta * (m + B)) - m
    grid = np.linspace(-1, 1, 400001)
    g = f(grid)
    roots = [grid[i] for i in np.nonzero(g == 0)[0]]
    for i in np.nonzero(g[:-1] * g[1:] < 0)[0]:
        roots.append(optimize.brentq(f, grid[i], grid[i + 1], xtol=1e-15))
    pts = np.sort(np.array(roots))
    return pts, np.abs(beta / np.cosh(beta * (pts + B)) ** 2) < 1


def _moments_u(B, N, beta, dJ):
    # m = tanh(u), dm = (1 - m^2) du: the peaks are wider in u; the tails beyond |u| = 20 are m = +-1 to double precision
    bb = np.atleast_1d(np.asarray(B, dtype=float))
    U = 20.0
    n_u = int(min(4_000_001, max(80001, 2 * U * 6 * np.sqrt(N))))
    u = np.linspace(-U, U, n_u)
    m = np.tanh(u)
    log_jac = np.log(4.0) - 2 * np.logaddexp(u, -u)       # log sech^2 u, stable
    out_mean, out_var = [], []
    for b in bb:
        logw = -N * beta * ising_action(m, beta, dJ, b) + log_jac
        lse = special.logsumexp(logw)
        w = np.exp(logw - lse)
        mu = w @ m
        out_mean.append(mu)
        out_var.append(w @ (m - mu) ** 2)
    return np.array(out_mean).reshape(np.shape(B)), np.array(out_var).reshape(np.shape(B))


def finite_N_magnetization(B, N, beta, dJ):
    mean, _ = _moments_u(B, N, beta, dJ)
    return float(mean) if np.ndim(B) == 0 else mean


def finite_N_susceptibility(B, N, beta, dJ):
    _, var = _moments_u(B, N, beta, dJ)
    return float(N * beta * var) if np.ndim(B) == 0 else N * beta * var


def critical_exponent_fit(dJ, reduced_temperatures):
    t = np.asarray(reduced_temperatures, dtype=float)
    m = np.array([mean_field_magnetization(1 / (dJ * (1 - ti)), dJ, 0.0) for ti in t])
    A = np.stack([np.log(t), np.ones_like(t)], axis=1)
    (b, c), *_ = np.linalg.lstsq(A, np.log(m), rcond=None)
    return float(b), float(np.exp(c))
