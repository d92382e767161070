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
# # exA3_spherical_perceptron: The spherical perceptron, a learning curve without a transition
#
# *Notes: Appendix A.3 and Exercise A.2; the Ising perceptron it is contrasted with is
# Section 2.6 and Exercise 2.3 (assignment `ex2_3_ising_perceptron`); the replica steps
# referred to in (d) are Exercise A.1 (assignment `exA1_replica_perceptron`).*
#
# **Setup.** Everything is as in Section 2.6 (Gaussian inputs $x\sim\mathcal N(0,I_N)$,
# labels $y=\mathrm{sign}(\theta^*\cdot x)$, $n=\alpha N$ examples, zero-temperature Gibbs
# learning), except that the weights are real and live on a sphere,
# $$
# \theta,\theta^*\in\mathbb R^N,\qquad |\theta|^2=|\theta^*|^2=N, \tag{A.6}
# $$
# with the uniform prior on the sphere. (The sign classifier does not see the length of
# $\theta$, so the sphere just removes a redundant scale.) The overlap
# $R=\theta\cdot\theta^*/N\in[-1,1]$ is again the order parameter, and the wedge formula
# $\varepsilon(R)=\arccos(R)/\pi$ still holds: its derivation only used that
# $(\theta\cdot x,\theta^*\cdot x)/\sqrt N$ is a standard Gaussian pair with correlation $R$.
# $Z$ is the *fraction* (prior probability) of students consistent with the data.
#
# **Conventions.** `log` is the natural logarithm; functions of $R$ or $\alpha$ accept
# scalars or numpy arrays and work elementwise.
#
# **What you implement** (graded by hidden tests):
#
# | part | function | what it is |
# |---|---|---|
# | (a) | `overlap_density(R, N)` | exact density of the overlap of a uniform random student, finite $N$ |
# | (a) | `spherical_annealed_action(R, alpha)` | $S_{\rm ann}(R)$ with $\mathbb E Z\asymp\int dR\,e^{-NS_{\rm ann}(R)}$ |
# | (b) | `stationary_load(R)` | the load at which $R$ is a stationary point of $S_{\rm ann}$ |
# | (b) | `spherical_minimizer(alpha)` | $(R^*, S_{\rm ann}(R^*))$ |
# | (c) | `annealed_learning_curve(alpha)` | $\varepsilon(R^*(\alpha))$ |
# | (c) | `learning_curve_asymptotics()` | the constants of $R^*\simeq c\,\alpha$ and $\varepsilon\simeq A/\alpha+B/\alpha^2$ |
#
# Written answers (graded by hand): (b) why $R=1$ is never a minimum, (d) what changes in
# the replica calculation. Cells with `@check` are public checks of internal consistency.

# %% tags=["setup"]
import numpy as np
from scipy import integrate, optimize, special
import matplotlib.pyplot as plt

LOG2 = np.log(2.0)

# %% tags=["params"]
def draw_params(rng):
    """This year's loads for the learning-curve table: five loads, log-uniform in [0.05, 50]."""
    import math
    return {"loads": sorted(round(math.exp(x), 3) for x in rng.uniform(math.log(0.05), math.log(50.0), size=5))}


# %% tags=["provided"]
def generalization_error(R):
    """eps(R) = arccos(R)/pi, elementwise (Exercise 2.3(b); unchanged for spherical weights)."""
    return np.arccos(np.clip(np.asarray(R, dtype=float), -1.0, 1.0)) / np.pi


def ising_annealed_action(R, alpha):
    """The Ising perceptron's annealed action log 2 - h(R) - alpha log(1 - eps(R)) (Exercise 2.3)."""
    R = np.array(R, dtype=float)
    h = LOG2 - 0.5 * special.xlogy(1 - R, 1 - R) - 0.5 * special.xlogy(1 + R, 1 + R)
    with np.errstate(divide="ignore", invalid="ignore"):
        return LOG2 - h - alpha * np.log1p(-generalization_error(R))


# %% [markdown]
# ## (a) The slice entropy and the annealed action
#
# Write $\theta=R\,\theta^*+\theta_\perp$ with $\theta_\perp\perp\theta^*$. The constraint (A.6)
# gives $|\theta_\perp|^2=N(1-R^2)$: the students at overlap $R$ form a sphere of radius
# $\sqrt{N(1-R^2)}$ in the $(N-1)$-dimensional complement of $\theta^*$, of area
# $\propto\big(N(1-R^2)\big)^{(N-2)/2}$. The students with overlap in $[R,R+dR]$ form a band of
# that slice times its width along the sphere: moving $R$ by $dR$ moves along the sphere by
# $ds=\sqrt N\,dR/\sqrt{1-R^2}$ (the polar angle $\phi=\arccos R$ changes by
# $dR/\sqrt{1-R^2}$). This is the coarea formula. Normalizing,
# $$
# p_N(R)=\frac{\Gamma(N/2)}{\sqrt\pi\;\Gamma\big(\tfrac{N-1}2\big)}\,(1-R^2)^{\frac{N-3}2},
# \qquad -1<R<1 , \tag{A.7}
# $$
# the density of the overlap of a uniformly random student. (Check: $N=3$ gives the uniform
# density $\frac12$, Archimedes' hat-box theorem; $N=2$ gives the arcsine law
# $\frac1{\pi\sqrt{1-R^2}}$.) Its large-$N$ rate is the slice entropy
# $$
# \frac1N\log p_N(R)\;\to\;\frac12\log(1-R^2),
# $$
# which replaces the binomial entropy $h(R)-\log2$ of the Ising perceptron. It is maximal
# ($=0$) at $R=0$ and diverges to $-\infty$ at $R=\pm1$: a single direction has zero volume.
#
# Repeating Exercise 2.3(d): each of the $n$ independent examples is classified correctly by a
# student at overlap $R$ with probability $1-\varepsilon(R)$, so, exactly at every $N$,
# $$
# \mathbb E_xZ=\int_{-1}^1dR\;p_N(R)\,\big(1-\varepsilon(R)\big)^{n}
# \;\asymp\;\int_{-1}^{1}dR\;e^{-N S_{\rm ann}(R)},\qquad
# \boxed{\;S_{\rm ann}(R)=-\frac12\log\big(1-R^2\big)-\alpha\log\big(1-\varepsilon(R)\big)\;} \tag{A.8}
# $$
# Sanity checks: $S_{\rm ann}(0)=\alpha\log2$ (the students at $R=0$ are most numerous, and
# each example halves them), so $S_{\rm ann}(0)=0$ at $\alpha=0$; and
# $S_{\rm ann}(\pm1)=+\infty$.
#
# **Tasks.** Implement `overlap_density(R, N)` (work with logarithms, `scipy.special.gammaln`,
# so that $N=10^4$ works) and `spherical_annealed_action(R, alpha)`.

# %% tags=["graded"]
def overlap_density(R, N):
    """Exact density of R = theta . theta* / N for theta uniform on the sphere |theta|^2 = N.

    p_N(R) = Gamma(N/2) / (sqrt(pi) Gamma((N-1)/2)) (1 - R^2)^((N-3)/2)  (notes A.3, (A.7)).

    Args:
        R: float or np.ndarray with entries in (-1, 1).
        N: int >= 2, the dimension.
    Returns:
        float or np.ndarray of the same shape as R, the probability density (it integrates
        to 1 over (-1, 1)). Must not overflow for N up to 1e5.
    """
    R = np.asarray(R, dtype=float)
    log_norm = special.gammaln(N / 2) - special.gammaln((N - 1) / 2) - 0.5 * np.log(np.pi)
    return np.exp(log_norm + (N - 3) / 2 * np.log1p(-R * R))


# %% tags=["graded"]
def spherical_annealed_action(R, alpha):
    """Annealed action of the spherical perceptron (notes A.3, (A.8)), natural log.

    S_ann(R) = -1/2 log(1 - R^2) - alpha log(1 - arccos(R)/pi),  E_x Z ~ int dR exp(-N S_ann(R)).

    Args:
        R: overlap, float or np.ndarray with entries in [-1, 1].
        alpha: load >= 0, float or np.ndarray; broadcast against R with numpy rules
            (e.g. R[:, None] and alpha[None, :] give a table).
    Returns:
        float or np.ndarray of the broadcast shape. S_ann(0) = alpha log 2, and
        S_ann(+-1) = +inf at every load alpha >= 0, alpha = 0 included (a float inf, not nan:
        at alpha = 0 the data term alpha log(1 - eps) is 0, also at R = -1 where eps = 1).
    """
    R = np.asarray(R, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        # xlog1py(alpha, y) = alpha log1p(y), and 0 at alpha = 0 even where log1p(y) = -inf (R = -1)
        return -0.5 * np.log1p(-R * R) - special.xlog1py(alpha, -generalization_error(R))


# %% tags=["check"]
@check
def check_overlap_density():
    "N=3 is uniform (Archimedes), N=2 is the arcsine law, and the density integrates to 1"
    assert np.allclose(overlap_density(np.array([-0.7, 0.0, 0.4]), 3), 0.5)
    assert np.isclose(overlap_density(0.6, 2), 1 / (np.pi * 0.8))
    for N in [5, 40, 5000]:
        total = integrate.quad(lambda r: overlap_density(r, N), -1, 1, points=[0.0], limit=200)[0]
        assert abs(total - 1) < 1e-6, f"density for N = {N} integrates to {total}, not 1"


@check
def check_spherical_annealed_action():
    "S(0)=alpha log 2, S(+-1)=inf, the slice entropy is the large-N rate of p_N, broadcasting works"
    assert np.isclose(spherical_annealed_action(0.0, 0.0), 0.0)
    assert np.isclose(spherical_annealed_action(0.0, 0.8), 0.8 * np.log(2))
    ends = spherical_annealed_action(np.array([-1.0, 1.0])[:, None], np.array([0.0, 0.5])[None, :])
    assert np.all(np.isposinf(ends)), "S should be +inf at R = +-1, also at zero load (0 log 0 counts as 0)"
    N, R = 4000, 0.5     # (1/N) log p_N(R) -> (1/2) log(1 - R^2), up to O(log N / N)
    assert abs(np.log(overlap_density(R, N)) / N + spherical_annealed_action(R, 0.0)) < 2e-3
    table = spherical_annealed_action(np.linspace(-0.5, 0.9, 4)[:, None], np.array([0.5, 2.0])[None, :])
    assert np.shape(table) == (4, 2)


# %% tags=["solution"]
# Independent checks. (i) `overlap_density` against histograms of
# uniform random points on the sphere (normalized Gaussian vectors) for $N=5$ and $N=20$
# (bin counts within a few binomial standard errors); (ii) the exact finite-$N$ annealed
# average $\mathbb E_xZ=\int p_N(R)(1-\varepsilon(R))^n\,dR$ against a Monte Carlo estimate
# that draws teachers, students *and data* ($N=6$, $n=4$); (iii) $\frac1N\log\mathbb E_xZ$ at
# $N=2\cdot10^4$ against the saddle point $-\min_RS_{\rm ann}$.
rng_mc = np.random.default_rng(7)


def uniform_on_sphere(N, size, rng):
    g = rng.standard_normal((size, N))
    return np.sqrt(N) * g / np.linalg.norm(g, axis=1, keepdims=True)


# (i) overlap histograms vs the exact density; the teacher is sqrt(N) e_1 (any teacher will do)
for N in [5, 20]:
    n_samp = 200_000
    R_samp = uniform_on_sphere(N, n_samp, rng_mc)[:, 0] / np.sqrt(N)
    edges = np.linspace(-1, 1, 21)
    counts, _ = np.histogram(R_samp, edges)
    probs = np.array([integrate.quad(lambda r: overlap_density(r, N), a, b)[0] for a, b in zip(edges[:-1], edges[1:])])
    z = (counts - n_samp * probs) / np.sqrt(n_samp * probs * (1 - probs) + 1e-12)
    print(f"(i)  N={N}: histogram vs p_N(R), max |z| over 20 bins = {np.max(np.abs(z)):.2f}")
    assert np.max(np.abs(z)) < 4.5

# (ii) E_x Z: exact quadrature vs Monte Carlo over teacher, student and data
N, n, n_samp = 6, 4, 200_000
teacher = uniform_on_sphere(N, n_samp, rng_mc)
student = uniform_on_sphere(N, n_samp, rng_mc)
X = rng_mc.standard_normal((n_samp, n, N))
agree = np.all(np.sign(np.einsum("snd,sd->sn", X, teacher)) == np.sign(np.einsum("snd,sd->sn", X, student)), axis=1)
p_mc, se = agree.mean(), agree.std() / np.sqrt(n_samp)
p_exact = integrate.quad(lambda r: overlap_density(r, N) * (1 - generalization_error(r)) ** n, -1, 1)[0]
print(f"(ii) N={N}, n={n}: Monte Carlo E Z = {p_mc:.5f} +- {se:.5f}, quadrature {p_exact:.5f}")
assert abs(p_mc - p_exact) < 4 * se

# (iii) large N: (1/N) log E Z -> -min_R S_ann
N = 20_000
R_fine = np.linspace(-1, 1, 400_001)[1:-1]
# log p_N(R) in closed form (p_N itself underflows away from R = 0 at this N)
log_p = (special.gammaln(N / 2) - special.gammaln((N - 1) / 2) - 0.5 * np.log(np.pi)
         + (N - 3) / 2 * np.log1p(-R_fine**2))
small = np.abs(R_fine) < 0.05
assert np.allclose(np.exp(log_p[small]), overlap_density(R_fine[small], N), rtol=1e-9)
for alpha in [0.25, 1.0, 4.0]:
    log_terms = log_p + alpha * N * np.log1p(-generalization_error(R_fine))
    log_EZ = (special.logsumexp(log_terms) + np.log(R_fine[1] - R_fine[0])) / N
    S_min = np.min(spherical_annealed_action(R_fine, alpha))
    print(f"(iii) alpha={alpha}: (1/N) log E Z = {log_EZ:+.6f} at N=2e4,  -min S = {-S_min:+.6f}")
    assert abs(log_EZ + S_min) < 1e-3

# %% [markdown]
# ## (b) The saddle point: one minimum, always inside
#
# With $\varepsilon'(R)=-1/(\pi\sqrt{1-R^2})$,
# $$
# S_{\rm ann}'(R)=\frac{R}{1-R^2}-\frac{\alpha}{\pi\sqrt{1-R^2}\,\big(1-\varepsilon(R)\big)}=0
# \iff
# \alpha=\alpha(R):=\frac{\pi R\,\big(1-\varepsilon(R)\big)}{\sqrt{1-R^2}} . \tag{A.9}
# $$
# For $R\le0$ both terms of $S'$ are $\le0$ (strictly for $\alpha>0$), so the minimum lies in
# $[0,1)$. On $[0,1)$, $\alpha(R)$ is a product of positive increasing factors: it increases
# strictly from $\alpha(0)=0$ to $+\infty$. So for every load there is **exactly one**
# stationary point, the global minimum $R^*(\alpha)$, and since $\alpha(R)$ is smooth with
# $\alpha'(R)>0$, its inverse $R^*(\alpha)$ is smooth too: no jump, no metastability, no phase
# transition. In the angle $\phi=\arccos R=\pi\varepsilon$ the condition reads
# $\alpha=(\pi-\phi)\cot\phi$, which is a convenient, well-conditioned equation to solve.
#
# **Tasks.** Implement `stationary_load(R)` and `spherical_minimizer(alpha)` (a root finder on
# (A.9), accurate to $\sim10^{-9}$; it must also work at large loads, where $R^*$ is within
# $10^{-6}$ of 1).

# %% tags=["graded"]
def stationary_load(R):
    """The load alpha(R) at which R is a stationary point of S_ann (notes A.3, Ex A.2(b)).

    alpha(R) = pi R (1 - eps(R)) / sqrt(1 - R^2), eps(R) = arccos(R)/pi; increasing on [0, 1).

    Args:
        R: float or np.ndarray with entries in [0, 1).
    Returns:
        float or np.ndarray of the same shape; alpha(0) = 0.
    """
    R = np.asarray(R, dtype=float)
    return np.pi * R * (1.0 - generalization_error(R)) / np.sqrt(1.0 - R * R)


# %% tags=["graded"]
def spherical_minimizer(alpha):
    """The minimizer of the spherical annealed action at load alpha (notes A.3, Ex A.2(b)).

    Args:
        alpha: float >= 0 (up to ~1e6).
    Returns:
        (R_star, S_star): tuple of two floats, the unique minimizer 0 <= R_star < 1 of
        S_ann(., alpha) on [-1, 1] and the value S_ann(R_star, alpha); (0.0, 0.0) at alpha = 0.
        Relative accuracy ~1e-9 for R_star and S_star; 1 - R_star is as accurate as the float
        R_star can hold it (absolute ~1e-16, so ~1e-9 relative up to alpha ~ 1e4, where
        1 - R_star ~ (pi/alpha)^2/2 ~ 5e-8).
    """
    alpha = float(alpha)
    if alpha <= 0.0:
        return 0.0, 0.0
    # in the angle phi = arccos R: alpha = (pi - phi) cot(phi), decreasing from +inf to 0 on (0, pi/2]
    phi = optimize.brentq(lambda p: (np.pi - p) / np.tan(p) - alpha, 1e-300, np.pi / 2, xtol=1e-300, rtol=1e-15)
    R_star = float(np.cos(phi))
    # S at the minimum, written with phi (no cancellation in 1 - R^2 = sin^2 phi)
    S_star = -np.log(np.sin(phi)) - alpha * np.log1p(-phi / np.pi)
    return R_star, float(S_star)


# %% tags=["check"]
@check
def check_stationary_load_and_minimizer():
    "alpha(R) is increasing, S' vanishes at alpha(R), and the minimizer is a stationary minimum"
    R = np.linspace(0, 0.999, 50)
    assert stationary_load(0.0) == 0 and np.all(np.diff(stationary_load(R)) > 0)
    d = 1e-6
    for r in [0.3, 0.8, 0.99]:
        a = stationary_load(r)
        slope = (spherical_annealed_action(r + d, a) - spherical_annealed_action(r - d, a)) / (2 * d)
        assert abs(slope) < 1e-5 * (1 + a), f"S' does not vanish at R = {r}, alpha = alpha(R)"
    assert spherical_minimizer(0.0) == (0.0, 0.0)
    for a in [0.3, 2.0, 30.0]:
        R_s, S_s = spherical_minimizer(a)
        assert np.isclose(stationary_load(R_s), a, rtol=1e-7), "R* should solve alpha(R*) = alpha"
        assert np.isclose(S_s, spherical_annealed_action(R_s, a))
        hh = 1e-3 * (1 - R_s)
        assert spherical_annealed_action(R_s + hh, a) > S_s < spherical_annealed_action(R_s - hh, a)


# %% tags=["solution"]
# Independent checks. (iv) The minimizer from `brentq` on (A.9) in the
# angle against `scipy.optimize.minimize_scalar` (bounded Brent) applied directly to
# $S_{\rm ann}$, over four decades of loads; (v) a dense grid confirms a single local minimum
# at every load (no second basin), and $R^*(\alpha)$ on a fine grid of loads has no jumps.
# (iv) root finder on the stationarity condition vs direct minimization of S
worst = 0.0
for a in [0.01, 0.1, 0.5, 1.0, 3.0, 10.0, 100.0]:
    R_root, S_root = spherical_minimizer(a)
    u_hi = 0.999999 if a < 50 else 1 - 1e-9
    res = optimize.minimize_scalar(lambda r: spherical_annealed_action(r, a), bounds=(-0.5, u_hi),
                                   method="bounded", options={"xatol": 1e-12})
    worst = max(worst, abs(res.x - R_root))
    assert abs(res.x - R_root) < 2e-6 and abs(res.fun - S_root) < 1e-9, (a, res.x, R_root, res.fun - S_root)
assert worst < 1e-6
# a minimizer stops at ~sqrt(round-off) of a flat minimum, wherever round-off decides: printed as a bound
print("(iv) brentq on alpha(R) = alpha vs minimize_scalar on S: max |dR*| < 1e-6")

# (v) one local minimum on a dense grid at each load, and a continuous R*(alpha)
R_dense = np.linspace(-0.999, 0.99999, 100_001)
for a in np.linspace(0.0, 10, 41):
    s_vals = spherical_annealed_action(R_dense, a)
    n_min = np.sum((s_vals[1:-1] < s_vals[:-2]) & (s_vals[1:-1] < s_vals[2:]))
    assert n_min == 1, (a, n_min)
alpha_fine = np.linspace(0.0, 5.0, 2001)
R_path = np.array([spherical_minimizer(a)[0] for a in alpha_fine])
jump = np.max(np.abs(np.diff(R_path)))
print(f"(v)  single local minimum at 41 loads; R*(alpha) on a grid of step 2.5e-3: max |dR*| = {jump:.2e} "
      f"(slope bound 2/pi * step = {2 / np.pi * 2.5e-3:.2e})")
assert np.all(np.diff(R_path) > 0) and jump <= 2 / np.pi * 2.5e-3 + 1e-12

# %% [markdown]
# **(b), written.** Show that $R=1$ is never a minimum of $S_{\rm ann}$, and contrast with
# Exercise 2.3(f). Which single ingredient makes the difference?

# %% [markdown] tags=["answer"] points=3
# *Model answer.* $S_{\rm ann}(R)\to+\infty$ as $R\to1$ because $-\frac12\log(1-R^2)\to+\infty$,
# while the data term $-\alpha\log(1-\varepsilon)\to0$; near $R=1$, with $\delta=1-R$,
# $S'(R)=\frac{R}{1-R^2}-\frac{\alpha}{\pi\sqrt{1-R^2}(1-\varepsilon)}\simeq\frac1{2\delta}-\frac{\alpha}{\pi\sqrt{2\delta}}\to+\infty$:
# the entropic force $\sim1/\delta$ always beats the data force $\sim1/\sqrt\delta$, so $S$
# increases toward the boundary and the minimum sits strictly inside, at $\alpha(R^*)=\alpha$
# with $R^*<1$ for every finite $\alpha$. For the Ising perceptron the aligned state has
# *finite* entropy, $h(1)=0$ (one student; it costs only $\log 2$ in $s$), and near it the
# entropy changes like $\delta\log(1/\delta)$, more slowly than the data cost
# $\alpha\sqrt{2\delta}/\pi$, so $R=1$ is always a local minimum and can compete with the
# interior basin: a first-order transition. Here the only change is the entropy of the
# slice, the volume $(1-R^2)^{N/2}$ of a continuous set, which vanishes at $R=1$ (a single
# direction has zero volume, entropy $-\infty$). So: discreteness of the weights (finite
# entropy of the perfectly aligned state) is the ingredient that makes a sharp transition
# possible.
#
# *Rubric (3 pts):* 1 for the divergence of the slice entropy (or $S'\to+\infty$) at $R=1$;
# 1 for the comparison of rates ($1/\delta$ vs $1/\sqrt\delta$, or $\delta\log(1/\delta)$ vs
# $\sqrt\delta$ for Ising); 1 for naming finite vs infinite entropy of the aligned state
# (discrete vs continuous weights) as the difference.

# %% [markdown]
# The figure reproduces the notes' **Figure 9**: $S_{\rm ann}(R)$ for
# $\alpha\in\{0,0.25,0.5,0.75,1\}$ (bottom to top at $R=0$), with the minimizer on each curve.
# One basin at every load, sliding smoothly to the right; the entropic wall at $R=\pm1$
# keeps it inside.

# %% tags=["figure"]
R_grid = np.linspace(-0.995, 0.995, 801)
fig, ax = plt.subplots(figsize=(7, 4.5))
for a, color in zip([0.0, 0.25, 0.5, 0.75, 1.0], plt.cm.viridis(np.linspace(0, 0.85, 5))):
    ax.plot(R_grid, spherical_annealed_action(R_grid, a), color=color, label=rf"$\alpha={a:g}$")
    R_s, S_s = spherical_minimizer(a)
    ax.plot(R_s, S_s, "o", color=color)
ax.set(xlabel="overlap $R$", ylabel=r"$S_{\rm ann}(R)$ (nats)", ylim=(-0.05, 2.0),
       title="Spherical perceptron: annealed action (notes, Figure 9)")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## (c) The learning curve
#
# The annealed learning curve is $\varepsilon(\alpha)=\varepsilon(R^*(\alpha))$. Derive its
# two ends from (A.9):
#
# * **small $\alpha$:** expand $\alpha(R)$ at $R=0$ ($\varepsilon(0)=\frac12$): $R^*\simeq c\,\alpha$;
# * **large $\alpha$:** with $R=\cos(\pi\varepsilon)$, (A.9) is *exactly*
#   $\alpha=\pi(1-\varepsilon)\cot(\pi\varepsilon)$; expand for small $\varepsilon$
#   ($\pi\cot\pi\varepsilon=\frac1\varepsilon-\frac{\pi^2\varepsilon}3+O(\varepsilon^3)$) and invert:
#   $\varepsilon\simeq\frac A\alpha+\frac B{\alpha^2}$. The notes' leading order is (A.11),
#   $\varepsilon\simeq1/\alpha$: a power law with exponent one. (The exact, quenched
#   calculation gives $\varepsilon\simeq0.625/\alpha$ (Seung, Sompolinsky & Tishby 1992; Engel &
#   Van den Broeck 2001): same exponent, smaller constant; quoted, not computed here.)
#
# **Tasks.** Implement `annealed_learning_curve(alpha)` and `learning_curve_asymptotics()`
# (return your analytic constants; the public check compares them with your numerics). Work in
# the angle $\phi=\pi\varepsilon$: at $\alpha=10^6$, $1-R^*\approx5\cdot10^{-12}$, and `arccos` of
# a rounded $R^*$ keeps only about five digits of $\varepsilon$.

# %% tags=["graded"]
def annealed_learning_curve(alpha):
    """Annealed generalization error eps(R*(alpha)) of the spherical perceptron (notes A.3, Ex A.2(c)).

    Args:
        alpha: float or np.ndarray of loads >= 0 (up to ~1e6).
    Returns:
        float or np.ndarray of the same shape: eps = phi*/pi (= arccos(R*)/pi), where phi* in
        (0, pi/2] solves (A.9) written in the angle, (pi - phi) cot(phi) = alpha; 1/2 at alpha = 0,
        decreasing, ~1/alpha at large alpha. Relative accuracy ~1e-9 for every 0 <= alpha <= 1e6.
        Solve for phi* (or eps) itself: arccos of the float R* = spherical_minimizer(alpha)[0]
        misses that accuracy beyond alpha ~ 1e4, since 1 - R* ~ (pi/alpha)^2/2 sinks toward the
        rounding error of R* (~1e-16): at alpha = 1e6 only ~5 digits of eps survive.
    """
    alpha = np.asarray(alpha, dtype=float)
    out = np.empty(alpha.shape)
    for idx, a in np.ndenumerate(alpha):
        if a <= 0:
            out[idx] = 0.5
        else:   # eps = phi / pi with (pi - phi) cot(phi) = alpha: no arccos of a number close to 1
            out[idx] = optimize.brentq(lambda p: (np.pi - p) / np.tan(p) - a, 1e-300, np.pi / 2,
                                       xtol=1e-300, rtol=1e-15) / np.pi
    return out if out.ndim else float(out)


# %% tags=["graded"]
def learning_curve_asymptotics():
    """Analytic constants of the annealed learning curve (notes A.3, Ex A.2(c)).

    Returns:
        (c, A, B): tuple of three floats such that R*(alpha) = c alpha + O(alpha^2) as
        alpha -> 0, and eps(alpha) = A / alpha + B / alpha^2 + O(alpha^-3) as alpha -> inf.
    """
    # alpha(R) = pi R (1 - eps(R)) / sqrt(1 - R^2) = (pi/2) R + O(R^2)  =>  c = 2/pi.
    # 1/eps - 1 - pi^2 eps/3 + O(eps^2) = alpha  =>  1/eps = alpha + 1 + O(1/alpha)
    #   =>  eps = 1/alpha - 1/alpha^2 + O(alpha^-3).
    return 2.0 / np.pi, 1.0, -1.0


# %% tags=["check"]
@check
def check_learning_curve():
    "eps(0)=1/2, eps decreases, eps = arccos(R*)/pi, and your constants match your own numerics"
    assert np.isclose(annealed_learning_curve(0.0), 0.5)
    alphas = np.array([0.1, 1.0, 10.0, 100.0])
    eps = np.asarray(annealed_learning_curve(alphas))
    assert eps.shape == (4,) and np.all(np.diff(eps) < 0)
    assert np.isclose(eps[1], np.arccos(spherical_minimizer(1.0)[0]) / np.pi, rtol=1e-7)
    c, A, B = learning_curve_asymptotics()
    small = 1e-5
    assert abs(spherical_minimizer(small)[0] / small - c) < 1e-3, "c does not match R*/alpha at small alpha"
    big = 1e4
    eps_big = annealed_learning_curve(big)
    assert abs(eps_big * big - A) < 1e-3, "A does not match eps * alpha at large alpha"
    assert abs((eps_big * big - A) * big - B) < 1e-2, "B does not match the next order"


@check
def check_large_loads_to_the_promised_accuracy():
    "up to alpha = 1e6: eps solves (A.9) in the angle to 1e-9, and S_ann(R*) is consistent with it"
    for a in [1e4, 1e6]:
        phi = np.pi * annealed_learning_curve(a)
        assert np.isclose((np.pi - phi) / np.tan(phi), a, rtol=1e-9), \
            f"alpha = {a:g}: eps should solve (pi - phi) cot(phi) = alpha to 1e-9 (no arccos of a rounded R*)"
    a = 1e6
    phi = np.pi * annealed_learning_curve(a)
    R_s, S_s = spherical_minimizer(a)
    assert np.isclose(S_s, -np.log(np.sin(phi)) - a * np.log1p(-phi / np.pi), rtol=1e-8), \
        "alpha = 1e6: S_ann(R*) to ~1e-9 (1 - R* ~ 5e-12 here: a root finder in R with tolerance 1e-12 loses it)"


# %% tags=["solution"]
# Independent checks. (vi) The small-$\alpha$ slope and the
# large-$\alpha$ expansion against the numerical learning curve, with the expected size of
# the next corrections; (vii) the learning curve from the exact parametrization
# $\alpha(\varepsilon)=\pi(1-\varepsilon)\cot\pi\varepsilon$ evaluated on a grid of $\varepsilon$
# (no root finding at all), against `annealed_learning_curve` at those loads; (viii) the promised
# relative accuracy $10^{-9}$ up to $\alpha=10^6$, by two routes that share nothing with the
# reference's root finder: a 50-digit `mpmath` root of $(\pi-\phi)\cos\phi=\alpha\sin\phi$, and the
# large-$\alpha$ series $\varepsilon=x-x^2+(1-\frac{\pi^2}3)x^3+(\frac{4\pi^2}3-1)x^4
# +(1-\frac{10\pi^2}3+\frac{\pi^4}5)x^5+O(x^6)$, $x=1/\alpha$ (the inversion of (c) carried two orders
# further with $\pi\cot\pi\varepsilon=\frac1\varepsilon-\frac{\pi^2\varepsilon}3-\frac{\pi^4\varepsilon^3}{45}-\dots$);
# and the route the accuracy rules out, `arccos` of the float $R^*$; at the same loads, the minimizer
# $(R^*,S^*)$ against $\cos\phi^*$ and $S_{\rm ann}$ evaluated in 50 digits at the `mpmath` root.
c_an, A_an, B_an = learning_curve_asymptotics()
for a in [1e-4, 1e-3, 1e-2]:
    ratio = spherical_minimizer(a)[0] / a
    print(f"(vi) alpha={a:.0e}: R*/alpha = {ratio:.7f}, c = 2/pi = {c_an:.7f}, diff/alpha = {(ratio - c_an) / a:+.4f}")
    assert abs(ratio - c_an) < 2 * a
for a in [1e2, 1e3, 1e4, 1e5]:
    eps_a = annealed_learning_curve(a)
    next_order = (eps_a - A_an / a - B_an / a**2) * a**3
    print(f"(vi) alpha={a:.0e}: eps*alpha = {eps_a * a:.9f};  (eps - 1/alpha + 1/alpha^2) alpha^3 = {next_order:+.4f}"
          f"  (expected 1 - pi^2/3 = {1 - np.pi**2 / 3:+.4f})")
    assert abs(next_order - (1 - np.pi**2 / 3)) < 20 / a
eps_grid = np.linspace(0.001, 0.499, 300)
alpha_of_eps = np.pi * (1 - eps_grid) / np.tan(np.pi * eps_grid)
dev = np.max(np.abs(annealed_learning_curve(alpha_of_eps) / eps_grid - 1))
assert dev < 1e-12
print("(vii) parametric learning curve alpha(eps) vs annealed_learning_curve: max relative deviation < 1e-12")

# (viii) up to alpha = 1e6: 50-digit mpmath, the large-alpha series, and what arccos(R*) would give
import mpmath

mpmath.mp.dps = 50
big = np.array([1e2, 1e3, 1e4, 1e5, 3e5, 1e6])
eps_ref = np.asarray(annealed_learning_curve(big))
# (pi - phi) cos(phi) = alpha sin(phi) is (A.9) times sin(phi): a root of slope ~ -alpha, well scaled
eps_mp = np.array([float(mpmath.findroot(lambda p: (mpmath.pi - p) * mpmath.cos(p) - mpmath.mpf(a) * mpmath.sin(p),
                                         mpmath.pi / a) / mpmath.pi) for a in big])
rel_mp = np.max(np.abs(eps_ref / eps_mp - 1))
# the minimizer at the same loads: R* = cos(phi*) and S* = -log sin(phi*) - alpha log(1 - phi*/pi) in 50 digits
for a in big:
    phi_mp = mpmath.findroot(lambda p: (mpmath.pi - p) * mpmath.cos(p) - mpmath.mpf(a) * mpmath.sin(p), mpmath.pi / a)
    R_mp = mpmath.cos(phi_mp)
    S_mp = -mpmath.log(mpmath.sin(phi_mp)) - mpmath.mpf(a) * mpmath.log(1 - phi_mp / mpmath.pi)
    R_s, S_s = spherical_minimizer(a)
    assert abs(mpmath.mpf(R_s) - R_mp) < 2.3e-16 and abs(S_s / float(S_mp) - 1) < 1e-12, (a, R_s, S_s)
x = 1 / big[big >= 1e3]
series = x - x**2 + (1 - np.pi**2 / 3) * x**3 + (4 * np.pi**2 / 3 - 1) * x**4 + (1 - 10 * np.pi**2 / 3 + np.pi**4 / 5) * x**5
rel_series = np.max(np.abs(eps_ref[big >= 1e3] / series - 1))
assert rel_mp < 1e-12 and rel_series < 1e-12
print("(viii) alpha = 1e2 ... 1e6: annealed_learning_curve vs 50-digit mpmath root: max relative difference < 1e-12; "
      "vs the series to x^5 (alpha >= 1e3): < 1e-12; spherical_minimizer: R* within 2 float steps of the "
      "50-digit cos(phi*), S* within 1e-12 relative")
loads_hi = np.geomspace(1e5, 1e6, 25)
eps_arccos = np.array([np.arccos(spherical_minimizer(a)[0]) / np.pi for a in loads_hi])
rel_arccos = np.max(np.abs(eps_arccos / np.asarray(annealed_learning_curve(loads_hi)) - 1))
assert rel_arccos > 1e-7   # the rounding of R* ~ 1e-16 against 1 - R* ~ 5e-12 ... 5e-10
print("(viii) arccos(R*)/pi from the float R* instead, alpha in [1e5, 1e6]: max relative error > 1e-7, "
      "far above the promised 1e-9 (hence the angle)")

# %% [markdown]
# The learning curve, log–log, with its asymptotes: the annealed $1/\alpha$ (the exponent,
# $-1$, is the simplest scaling law of Section 7), the quoted quenched $0.625/\alpha$, and the
# small-load expansion $\varepsilon\simeq\frac12-\frac{c\,\alpha}{\pi}$ (from $R^*\simeq c\alpha$ and
# $\arccos R\simeq\frac\pi2-R$). The Ising perceptron's annealed curve (Exercise 2.3) is shown
# for contrast: it jumps to zero error at $\alpha_c^{\rm ann}\approx1.45$, the spherical one
# never does. Dots: this year's loads (table printed below).

# %% tags=["figure"]
c, A, B = learning_curve_asymptotics()
alphas = np.logspace(-2, 2.5, 300)
eps_sph = annealed_learning_curve(alphas)
R_ising = np.linspace(-0.999, 1.0, 20001)
eps_ising = np.array([generalization_error(R_ising[np.argmin(ising_annealed_action(R_ising, a))]) for a in alphas])
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
ax = axes[0]
ax.loglog(alphas, eps_sph, "C0", lw=2, label="spherical, annealed")
ax.loglog(alphas, np.where(eps_ising > 0, eps_ising, np.nan), "C1", label="Ising, annealed (jumps to 0)")
jump_at = np.argmax(eps_ising == 0)
ax.vlines(alphas[jump_at], 1e-3, eps_ising[jump_at - 1], color="C1")
ax.loglog(alphas[alphas > 1], 1 / alphas[alphas > 1], "k--", lw=1, label=r"$1/\alpha$ (annealed asymptote)")
ax.loglog(alphas[alphas > 1], 0.625 / alphas[alphas > 1], "k:", lw=1, label=r"$0.625/\alpha$ (quenched, quoted)")
ax.loglog(alphas[alphas < 1], 0.5 - c * alphas[alphas < 1] / np.pi, "C2--", lw=1,
          label=r"$1/2-c\alpha/\pi$ (small $\alpha$)")
table_eps = annealed_learning_curve(np.array(PARAMS["loads"]))
ax.loglog(PARAMS["loads"], table_eps, "o", color="C3", label="this year's loads")
ax.set(xlabel=r"load $\alpha$", ylabel=r"$\varepsilon$", ylim=(1e-3, 0.7), title="learning curves")
ax.legend(fontsize=8)
ax = axes[1]
alin = np.linspace(0, 6, 200)
ax.plot(alin, [spherical_minimizer(a)[0] for a in alin], "C0", lw=2, label=r"$R^*(\alpha)$, spherical")
ax.plot(alin[alin < 1.2], c * alin[alin < 1.2], "C2--", label=r"$c\,\alpha$")
ax.set(xlabel=r"load $\alpha$", ylabel=r"$R^*$", title="the minimizer moves continuously")
ax.legend(fontsize=8)
plt.tight_layout()
plt.show()
for a, e in zip(PARAMS["loads"], table_eps):
    print(f"alpha = {a:8.3f}:  eps = {e:.6f},  eps * alpha = {e * a:.4f}")

# %% [markdown]
# ## (d) What changes in the replica calculation?
#
# **(d), written.** Which steps of Exercise A.1 change when the count of binary students is
# replaced by the volume (A.7), and which do not?

# %% [markdown] tags=["answer"] points=3
# *Model answer.* **Unchanged:** (a) the replication $\mathbb E Z^Q$ as $Q$ copies sharing the
# data; (b) the data average: $u^a=\theta^a\cdot x/\sqrt N$, $v=\theta^*\cdot x/\sqrt N$ are
# jointly Gaussian with the same overlap covariance (with $|\theta|^2=N$ the diagonal is 1
# again), so the orthant probability and, under replica symmetry, the energetic term
# $G_E=2\int Dt\,H(-Rt/\sqrt{q-R^2})\log H(-\sqrt{q/(1-q)}\,t)$ are identical; and the
# replica-symmetric ansatz, the $Q\to0$ continuation and, for Gibbs learning with matched
# prior (spherical student *and* teacher), the Nishimori property $q=R$. **Changed:** only the
# entropic part (c): the sum over $\{\pm1\}^{N\times Q}$ becomes an integral over $Q$ spheres,
# i.e. the volume of the set of $Q$-tuples with prescribed overlaps. Its log is
# $\frac N2\log\det C$ of the $(Q+1)\times(Q+1)$ overlap matrix (a Gaussian integral instead of
# a site sum with $2\cosh$). At $Q=1$, $\det C=1-R^2$ and this is the slice entropy
# $\frac12\log(1-R^2)$ of (A.7); under RS, $\det C=(1-q)^{Q-1}\big(1-q+Q(q-R^2)\big)$, and to first
# order in $Q$ the entropic term becomes $G_S=\frac12\log(1-q)+\frac{q-R^2}{2(1-q)}$, which at $q=R$
# is $\frac12\log(1-q)+\frac q2$. No conjugate variables survive (they are eliminated in closed
# form), so the saddle point is a single explicit equation in $q$,
# $\frac{q}{\sqrt{1-q}}=\frac\alpha\pi\int Dt\,\frac{e^{-qt^2/2}}{H(\sqrt q\,t)}$, whose large-$\alpha$
# solution gives $\varepsilon\simeq0.625/\alpha$. Replica symmetry is also easier to justify: the
# set of consistent students is the sphere intersected with a convex cone (an intersection
# of half-spaces), a connected, convex region.
#
# *Rubric (3 pts):* 1 for "data average / energetic term unchanged"; 1 for "only the entropic
# term changes: binary count ($2\cosh$ site sum) replaced by a Gaussian volume / $\log\det$ of
# the overlap matrix"; 1 for a correct detail (the RS form of $G_S$, its $Q=1$ limit, or
# closed-form elimination of the conjugates).

# %% tags=["tests"]
@points(2)
def test_overlap_density(student):
    "overlap_density at random overlaps for small and large N"
    rng = rng_for("overlap_density")
    for N in [2, 3, int(rng.integers(4, 30)), int(rng.integers(500, 20000))]:
        R = rng.uniform(-1, 1, 10) * min(0.98, 4 / np.sqrt(N))     # where the density is not negligible
        assert_close(student.overlap_density(R, N), ref.overlap_density(R, N), rtol=1e-8, atol=1e-300,
                     name=f"overlap_density(R, N={N})")


@points(2)
def test_spherical_annealed_action(student):
    "spherical_annealed_action on random arrays, with broadcasting"
    rng = rng_for("spherical_annealed_action")
    R = rng.uniform(-0.99, 0.99, 20)
    alpha = rng.uniform(0.0, 5.0, 20)
    assert_close(student.spherical_annealed_action(R, alpha), ref.spherical_annealed_action(R, alpha),
                 rtol=1e-9, atol=1e-12, name="spherical_annealed_action(R, alpha)")
    table_R, table_a = R[:5, None], alpha[None, :3]
    assert_close(student.spherical_annealed_action(table_R, table_a), ref.spherical_annealed_action(table_R, table_a),
                 rtol=1e-9, atol=1e-12, name="spherical_annealed_action(R[:, None], alpha[None, :])")


@points(1)
def test_spherical_annealed_action_endpoints(student):
    "spherical_annealed_action at R = -1, 0, 1, at a positive load and at zero load"
    rng = rng_for("spherical_annealed_action_endpoints")
    a = float(rng.uniform(0.1, 3.0))
    R = np.array([-1.0, 0.0, 1.0])
    for load in [a, 0.0]:
        actual = student.spherical_annealed_action(R, load)
        assert np.all(np.isposinf(np.asarray(actual, dtype=float)[[0, 2]])), \
            f"S_ann(+-1, alpha={load:.3f}) should be +inf (a float inf, not nan): see the docstring"
        assert_close(actual, ref.spherical_annealed_action(R, load),
                     rtol=1e-9, atol=1e-12, name=f"spherical_annealed_action([-1, 0, 1], alpha={load:.3f})")
    for r in [-1.0, 1.0]:   # scalar calls at zero load
        value = student.spherical_annealed_action(r, 0.0)
        assert np.isposinf(float(value)), f"spherical_annealed_action({r:+.0f}, 0.0) should be +inf, not nan"
    interior = rng.uniform(-0.99, 0.99, 5)   # zero load: the slice entropy alone
    assert_close(student.spherical_annealed_action(interior, 0.0), ref.spherical_annealed_action(interior, 0.0),
                 rtol=1e-9, atol=1e-12, name="spherical_annealed_action(R, alpha=0)")


@points(1)
def test_overlap_density_large_N(student):
    "overlap_density at the largest promised dimensions, N up to 1e5, and at a float R"
    rng = rng_for("overlap_density_large_N")
    for N in [int(rng.integers(20000, 100000)), 100000]:
        R = rng.uniform(-1, 1, 10) * 4 / np.sqrt(N)      # within 4 standard deviations of R = 0
        assert_close(student.overlap_density(R, N), ref.overlap_density(R, N), rtol=1e-8, atol=1e-300,
                     name=f"overlap_density(R, N={N})")
    r, N = float(rng.uniform(-0.9, 0.9)), int(rng.integers(4, 50))
    assert_close(student.overlap_density(r, N), ref.overlap_density(r, N), rtol=1e-8, atol=1e-300,
                 name=f"overlap_density({r:.3f}, {N})")


@points(1)
def test_stationary_load(student):
    "stationary_load on random overlaps in [0, 1)"
    rng = rng_for("stationary_load")
    R = np.concatenate([[0.0], rng.uniform(0.0, 0.9999, 10)])
    assert_close(student.stationary_load(R), ref.stationary_load(R), rtol=1e-9, atol=1e-12,
                 name="stationary_load(R)")


@points(2)
def test_spherical_minimizer(student):
    "spherical_minimizer at loads from 0 to 100"
    rng = rng_for("spherical_minimizer")
    loads = [0.0, 50.0] + np.exp(rng.uniform(np.log(0.02), np.log(100.0), 4)).tolist()
    for a in loads:
        assert_close(student.spherical_minimizer(float(a)), ref.spherical_minimizer(float(a)),
                     rtol=1e-8, atol=1e-11, name=f"spherical_minimizer({a:.4f})")


@points(1)
def test_stationary_load_edges(student):
    "stationary_load at R = 0 and close to R = 1, one float at a time"
    rng = rng_for("stationary_load_edges")
    for r in [0.0, 1 - 10.0 ** -rng.uniform(4, 6), float(rng.uniform(0.0, 0.9))]:
        assert_close(student.stationary_load(r), ref.stationary_load(r), rtol=1e-9, atol=1e-12, name=f"stationary_load(1 - {1 - r:.2e})")


@points(1)
def test_spherical_minimizer_large_loads(student):
    "spherical_minimizer at large loads, up to 1e6, to the accuracy its docstring promises"
    rng = rng_for("spherical_minimizer_large_loads")
    loads = np.concatenate([[1e6], np.exp(rng.uniform(np.log(1e2), np.log(1e6), 4))])
    for a in loads:
        actual = student.spherical_minimizer(float(a))
        assert len(actual) == 2, "spherical_minimizer should return a tuple of two floats (R_star, S_star)"
        R_exp, S_exp = ref.spherical_minimizer(float(a))
        assert_close(actual[1], S_exp, rtol=1e-9, atol=0.0, name=f"S_star at alpha = {a:.4g}")
        # 1 - R* is ~(pi/alpha)^2/2 here: held to ~10 float steps near 1 (the docstring: absolute ~1e-16)
        assert_close(actual[0], R_exp, rtol=0.0, atol=1e-15, name=f"R_star at alpha = {a:.4g}")


@points(2)
def test_annealed_learning_curve(student):
    "annealed_learning_curve at this year's loads and at random loads (array input)"
    rng = rng_for("annealed_learning_curve")
    loads = np.concatenate([ref.PARAMS["loads"], np.exp(rng.uniform(np.log(0.01), np.log(1e4), 4)), [0.0]])
    assert_close(student.annealed_learning_curve(loads), ref.annealed_learning_curve(loads),
                 rtol=1e-8, atol=1e-12, name="annealed_learning_curve(alpha)")


@points(1)
def test_annealed_learning_curve_large_loads(student):
    "annealed_learning_curve at large loads, up to 1e6, to the relative accuracy its docstring promises"
    rng = rng_for("annealed_learning_curve_large_loads")
    loads = np.concatenate([np.exp(rng.uniform(np.log(1e4), np.log(1e6), 4)), [3e5, 1e6]])
    # eps ~ 1/alpha is small here: a relative tolerance only (an absolute one would hide the digits)
    assert_close(student.annealed_learning_curve(loads), ref.annealed_learning_curve(loads),
                 rtol=1e-8, atol=0.0, name="annealed_learning_curve(alpha), alpha in [1e4, 1e6]")
    for a in [0.0, float(loads[0])]:    # one float load at a time, zero included
        assert_close(student.annealed_learning_curve(a), ref.annealed_learning_curve(a), rtol=1e-8, atol=0.0,
                     name=f"annealed_learning_curve({a:.4g})")


@points(2)
def test_learning_curve_asymptotics(student):
    "learning_curve_asymptotics: the small-load slope and the two large-load coefficients"
    actual = student.learning_curve_asymptotics()
    expected = ref.learning_curve_asymptotics()
    assert len(actual) == 3, "learning_curve_asymptotics should return (c, A, B)"
    for a, e, name in zip(actual, expected, ["c", "A", "B"]):
        assert_close(a, e, rtol=1e-6, atol=1e-9, name=name)


# %% tags=["wrong"]
# wrong: slice area without the coarea factor 1/sqrt(1 - R^2): (1 - R^2)^((N-2)/2), normalized
# hint: The overlap of a uniform random unit vector with the teacher has density ∝ (1 − R²)^{(N−3)/2}:
#   the slice at overlap R is a sphere of radius √(1 − R²), and the coarea factor 1/√(1 − R²) comes
#   with it (Appendix A.3, Exercise A.2(a)).
def overlap_density(R, N):
    R = np.asarray(R, dtype=float)
    log_norm = special.gammaln(N / 2 + 0.5) - special.gammaln(N / 2) - 0.5 * np.log(np.pi)
    return np.exp(log_norm + (N - 2) / 2 * np.log1p(-R * R))


# %% tags=["wrong"]
# wrong: normalization Gamma(N/2) / Gamma((N-1)/2) with special.gamma, which overflows beyond N ~ 340
# hint: Γ(N/2) overflows a float beyond N ≈ 340, and inf/inf is nan: compute the logarithm of the density
#   (scipy.special.gammaln) and exponentiate at the end (Appendix A.3, Exercise A.2(a)).
def overlap_density(R, N):
    R = np.asarray(R, dtype=float)
    norm = special.gamma(N / 2) / (np.sqrt(np.pi) * special.gamma((N - 1) / 2))
    return norm * (1 - R * R) ** ((N - 3) / 2)


# %% tags=["wrong"]
# wrong: slice entropy log(1 - R^2) instead of (1/2) log(1 - R^2) (volume ~ (1-R^2)^N)
# hint: The slice at overlap R has a volume ∝ (1 − R²)^{N/2} to leading order, so its entropy per weight
#   is ½ log(1 − R²), with the ½ (Appendix A.3, Exercise A.2(a)).
def spherical_annealed_action(R, alpha):
    R = np.asarray(R, dtype=float)
    with np.errstate(divide="ignore"):
        return -np.log1p(-R * R) - np.asarray(alpha) * np.log1p(-generalization_error(R))


# %% tags=["rewrite"]
# rewrite: the same full log(1 - R^2), written as log(1 - R) + log(1 + R)
def spherical_annealed_action(R, alpha):
    R = np.asarray(R, dtype=float)
    with np.errstate(divide="ignore"):
        return -(np.log(1 - R) + np.log(1 + R)) - np.asarray(alpha) * np.log(1 - generalization_error(R))


# %% tags=["wrong"]
# wrong: chain rule dropped, d/dR log(1 - eps) taken as -eps'(R): stationary load pi R / sqrt(1 - R^2)
# hint: Differentiate log(1 − ε(R)) with the chain rule: its derivative is −ε'(R)/(1 − ε(R)), so the
#   stationary load carries the factor 1 − ε(R) (Exercise A.2(b)).
def stationary_load(R):
    R = np.asarray(R, dtype=float)
    return np.pi * R / np.sqrt(1 - R * R)


def spherical_minimizer(alpha):
    if alpha <= 0:
        return 0.0, 0.0
    R = optimize.brentq(lambda r: stationary_load(r) - alpha, 0.0, 1 - 1e-15, xtol=1e-15)
    return R, float(spherical_annealed_action(R, alpha))


def annealed_learning_curve(alpha):
    return np.vectorize(lambda a: float(generalization_error(spherical_minimizer(a)[0])))(alpha)


# %% tags=["wrong"]
# wrong: minimizer by brentq on alpha(R) = alpha in R with brentq's default xtol (2e-12), S from that R
# hint: At large α, R* lies within about (π/α)²/2 of 1, so a root finder in R with an absolute tolerance of
#   ~1e-12 loses 1 − R* and with it S_ann(R*): solve (A.9) in the angle, (π − φ) cot φ = α, to full
#   precision (Exercise A.2(b)).
def spherical_minimizer(alpha):
    if alpha <= 0:
        return 0.0, 0.0
    R = optimize.brentq(lambda r: stationary_load(r) - alpha, 0.0, 1 - 1e-15)
    return float(R), float(spherical_annealed_action(R, alpha))


# %% tags=["wrong"]
# wrong: learning curve computed as arccos(R)/pi with the minimizer found on a coarse grid
# hint: A grid of R cannot locate R*(α) to the accuracy needed, above all at large α where R* approaches
#   1: solve the stationarity condition with a root finder (Exercise A.2(c)).
def annealed_learning_curve(alpha):
    R = np.linspace(-0.999, 0.9999, 2001)
    alpha = np.asarray(alpha, dtype=float)
    best = R[np.argmin(spherical_annealed_action(R[:, None], alpha.ravel()[None, :]), axis=0)]
    return generalization_error(best).reshape(alpha.shape)


# %% tags=["wrong"]
# wrong: learning curve as arccos of the float R* = spherical_minimizer(alpha)[0] (the docstring's old route)
# hint: At large α, R* = cos φ* lies within about (π/α)²/2 of 1, so the float R* has rounded away most digits
#   of 1 − R* and arccos(R*) inherits the loss: solve (A.9) in the angle, (π − φ) cot φ = α, for φ* = πε
#   itself (Exercise A.2(c)).
def annealed_learning_curve(alpha):
    one = lambda a: 0.5 if a <= 0 else float(np.arccos(spherical_minimizer(a)[0]) / np.pi)
    return np.vectorize(one, otypes=[float])(alpha)


# %% tags=["wrong"]
# wrong: small-load slope 1/pi (eps(0) = 1/2 forgotten) and next large-load coefficient +1
# hint: At small load keep ε(0) = ½ in the factor 1 − ε of the stationarity condition when you find the
#   slope of R* ≈ cα, and expand the large-load learning curve carefully to the next order in 1/α
#   (Exercise A.2(c)).
def learning_curve_asymptotics():
    return 1 / np.pi, 1.0, 1.0


# %% tags=["alternative"]
# alternative: density via the Beta function, minimizer by bounded Brent minimization of S in R, learning curve by inverting the parametrization in eps
def overlap_density(R, N):
    R = np.asarray(R, dtype=float)
    return np.exp((N - 3) / 2 * np.log(1 - R**2) - special.betaln(0.5, (N - 1) / 2))


def spherical_annealed_action(R, alpha):
    R, alpha = np.broadcast_arrays(np.asarray(R, dtype=float), np.asarray(alpha, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        data = np.where(alpha == 0, 0.0, alpha * np.log(1 - np.arccos(R) / np.pi))   # 0 log 0 = 0
        return (-0.5 * np.log((1 - R) * (1 + R)) - data)[()]


def stationary_load(R):
    R = np.asarray(R, dtype=float)
    return R * (np.pi - np.arccos(R)) / np.sqrt(1 - R**2)


def spherical_minimizer(alpha):
    if alpha == 0:
        return (0.0, 0.0)
    # bracket in u = -log(1 - R) so that R close to 1 is resolved
    S_u = lambda u: float(spherical_annealed_action(-np.expm1(-u), alpha))
    res = optimize.minimize_scalar(S_u, bounds=(0.0, 40.0), method="bounded", options={"xatol": 1e-13})
    u = optimize.brentq(lambda v: float(stationary_load(-np.expm1(-v))) - alpha, max(res.x - 0.01, 0.0), res.x + 0.01)
    R = -np.expm1(-u)
    return (float(R), S_u(u))


def annealed_learning_curve(alpha):
    def one(a):
        if a == 0:
            return 0.5
        return optimize.brentq(lambda e: np.pi * (1 - e) / np.tan(np.pi * e) - a, 1e-14, 0.5, xtol=1e-17, rtol=1e-14)
    return np.vectorize(one, otypes=[float])(alpha)


def learning_curve_asymptotics():
    return (0.6366197723675814, 1, -1)
