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
# # exA1_replica_perceptron: The quenched Ising perceptron, via replicas
#
# *Notes: Appendix A.1 (what the annealed approximation gets wrong), A.2 (replicas) and
# Exercise A.1; the model and the annealed calculation are Section 2.6 and Exercise 2.3
# (assignment `ex2_3_ising_perceptron`). Classic references: Györgyi (1990); Engel & Van den
# Broeck, *Statistical Mechanics of Learning* (2001), chapters 2 and 7.*
#
# **Setup** (as in Section 2.6). A teacher $\theta^*\in\{\pm1\}^N$ labels Gaussian inputs
# $x\sim\mathcal N(0,I_N)$ by $y=\mathrm{sign}(\theta^*\cdot x)$; a student
# $\theta\in\{\pm1\}^N$ predicts $\mathrm{sign}(\theta\cdot x)$; from $n=\alpha N$ examples,
# zero-temperature Gibbs learning puts the posterior uniformly on the *version space*, the
# students that classify every example correctly. Let
# $$
# \mathcal N=\sum_{\theta\in\{\pm1\}^N}\prod_{\mu=1}^n\Theta\big(y^\mu\,\theta\cdot x^\mu\big)\;=\;2^N Z
# $$
# be the *number* of consistent students ($Z$ of Section 2.6 is the fraction). This
# assignment computes the **quenched entropy** (nats per weight)
# $$
# s(\alpha)=\lim_{N\to\infty}\frac1N\,\mathbb E_{\rm data}\log\mathcal N
# \;=\;\log2-\Phi(\alpha),\qquad \Phi=-\tfrac1N\mathbb E\log Z\ \text{ of (A.5)},
# $$
# with the replica method in the replica-symmetric (RS) ansatz, and compares it with the
# annealed entropy $\frac1N\log\mathbb E\,\mathcal N=\max_R\big[h(R)+\alpha\log(1-\varepsilon(R))\big]$
# of Exercise 2.3. Conventions of Exercise 2.3: $\varepsilon(R)=\arccos(R)/\pi$,
# $h(R)=\log2-\frac{1-R}2\log(1-R)-\frac{1+R}2\log(1+R)$, annealed action
# $s_{\rm ann}(R)=\log2-h(R)-\alpha\log(1-\varepsilon(R))$, annealed $\alpha_c^{\rm ann}\approx1.448$.
#
# **Notation.** $Dz=\frac{dz}{\sqrt{2\pi}}e^{-z^2/2}$ is the standard Gaussian measure,
# $\varphi(x)=e^{-x^2/2}/\sqrt{2\pi}$ and $H(x)=\int_x^\infty Dz=\tfrac12\operatorname{erfc}(x/\sqrt2)$
# the Gaussian tail function ($H(-x)=1-H(x)$, $H'=-\varphi$). `log` is the natural logarithm.
#
# **What you implement** (graded by hidden tests):
#
# | part | function | what it is |
# |---|---|---|
# | (b) | `orthant_probability(q, R, Q)` | $e^{-e_{\rm RS}}$: probability that $Q$ RS replicas all agree with the teacher on one example |
# | (d),(e) | `conjugate_field(q)` | $\hat q(q)$, the conjugate variable solving the $\hat q$ saddle-point equation |
# | (d),(e) | `rs_entropic_term(q)`, `rs_energetic_term(q)` | $s_0(q)$ and $G_E(q)$ |
# | (e) | `rs_entropy(q, alpha)` | $s_{\rm RS}(q,\alpha)=s_0(q)+\alpha G_E(q)$, on the line $q=R$ |
# | (f) | `rs_saddle_points(alpha)` | all stationary points of $s_{\rm RS}(\cdot,\alpha)$ in $(0,1)$ |
# | (f) | `quenched_critical_load()` | $(\alpha_c, R^*, \varepsilon^*)$ of the quenched first-order transition |
#
# Written answers (graded by hand): (e) why $q=R$, and (f) the direction of the shift of
# $\alpha_c$. Cells with `@check` are public checks of internal consistency; the hidden
# tests compare with a reference implementation on other inputs.

# %% tags=["setup"]
import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy import integrate, optimize, special
import matplotlib.pyplot as plt

LOG2 = np.log(2.0)

# %% tags=["params"]
def draw_params(rng):
    """This year's loads for the competing-solutions figure: four loads in (0.95, 1.45), below the quenched spinodal."""
    return {"loads": sorted(rng.uniform(0.95, 1.45, size=4).round(3).tolist())}


# %% [markdown]
# ## Tools provided: Gaussian averages and the tail function
#
# Every integral in this assignment is an average over one standard Gaussian variable.
# `gaussian_average(f)` evaluates $\int Dz\,f(z)$ by Gauss–Hermite quadrature with the
# probabilists' weight $e^{-z^2/2}$ (`numpy.polynomial.hermite_e.hermegauss`), which is exact
# for polynomials of degree $<2\cdot201$ and very accurate for *smooth, slowly varying* $f$.
# It calls `f` once with the array of nodes, shape `(201,)`; `f` may return an array of
# shape `(..., 201)` (nodes on the last axis) to average many integrands at once.
#
# It is **not** accurate when $f$ varies on a scale much smaller than 1 (a sharp step, a
# narrow peak): then rewrite the integral (part (d) shows how) or use
# `scipy.integrate.quad`. The tail function and its logarithm are provided in stable
# form (`scipy.special.ndtr`, `log_ndtr`); $e^{x^2/2}H(x)=\tfrac12\operatorname{erfcx}(x/\sqrt2)$
# (`scipy.special.erfcx`) never overflows for $x>0$.

# %% tags=["provided"]
GH_NODES, GH_WEIGHTS = hermegauss(201)
GH_WEIGHTS = GH_WEIGHTS / np.sqrt(2.0 * np.pi)     # now sum(GH_WEIGHTS) == 1


def gaussian_average(f):
    """Integral of f(z) Dz (z standard normal) by 201-point Gauss-Hermite quadrature.

    f is called once with the nodes, an array of shape (201,); it returns an array of shape
    (201,) or (..., 201) (nodes on the last axis). Returns a float or an array of shape (...).
    """
    return np.asarray(f(GH_NODES)) @ GH_WEIGHTS


def gaussian_tail(x):
    """H(x) = P(z > x) for z standard normal, elementwise."""
    return special.ndtr(-np.asarray(x, dtype=float))


def log_gaussian_tail(x):
    """log H(x), accurate also where H(x) underflows (large positive x)."""
    return special.log_ndtr(-np.asarray(x, dtype=float))


def generalization_error(R):
    """eps(R) = arccos(R)/pi (Exercise 2.3(b))."""
    return np.arccos(np.clip(np.asarray(R, dtype=float), -1.0, 1.0)) / np.pi


def annealed_entropy(R, alpha):
    """Annealed entropy h(R) + alpha log(1 - eps(R)) = log 2 - s_ann(R) of Exercise 2.3 (nats)."""
    R = np.asarray(R, dtype=float)
    h = LOG2 - 0.5 * special.xlogy(1 - R, 1 - R) - 0.5 * special.xlogy(1 + R, 1 + R)
    with np.errstate(divide="ignore"):
        return h + alpha * np.log1p(-generalization_error(R))


# %% tags=["reference"]
# Reference-only helpers (not shown to students). All Gaussian averages use the provided
# 201-point Gauss-Hermite rule, in forms whose integrands stay smooth up to q -> 1.
QHAT_MAX = 60.0      # conjugate field at which 1 - q ~ 1e-14: the end of the q-scale in double precision


_X = np.linspace(-45.0, 45.0, 901)    # trapezoid grid (step 0.1) for the shifted averages below


def _shifted_average(qhat, g):
    """exp(-qhat/2) int dx N(x; 0, qhat) g(x), by the trapezoid rule (spectrally accurate for
    g analytic in the strip |Im x| < pi/2 and qhat >= 1); elementwise in qhat."""
    qhat = np.asarray(qhat, dtype=float)[..., None]
    weight = np.exp(-_X**2 / (2 * qhat) - qhat / 2) / np.sqrt(2 * np.pi * qhat)
    return (weight * g(_X)).sum(axis=-1) * (_X[1] - _X[0])


def _mmse(qhat):
    """1 - q(qhat) = 1 - int Dz tanh(y), y = sqrt(qhat) z + qhat, accurate in relative terms.

    The density of y is exp(y - qhat/2) times that of x ~ N(0, qhat), and
    (1 - tanh x) exp(x) = sech x: for qhat >= 1 the average becomes a smooth one over x.
    """
    qhat = np.asarray(qhat, dtype=float)
    root = np.sqrt(qhat)[..., None]
    direct = 1.0 - gaussian_average(lambda z: np.tanh(root * z + qhat[..., None]))
    return np.where(qhat < 1.0, direct, _shifted_average(np.maximum(qhat, 1.0), lambda x: 1.0 / np.cosh(x)))


def _q_of_qhat(qhat):
    """q(qhat) = int Dz tanh(sqrt(qhat) z + qhat), elementwise; increasing from 0 to 1."""
    qhat = np.asarray(qhat, dtype=float)
    root = np.sqrt(qhat)[..., None]
    direct = gaussian_average(lambda z: np.tanh(root * z + qhat[..., None]))
    return np.where(qhat < 1.0, direct, 1.0 - _mmse(qhat))


def _entropic_tail(qhat):
    """int Dz log(1 + exp(-2y)), y = sqrt(qhat) z + qhat (same shift: exp(x) log(1 + exp(-2x)))."""
    qhat = np.asarray(qhat, dtype=float)
    root = np.sqrt(qhat)[..., None]
    direct = gaussian_average(lambda z: np.logaddexp(0.0, -2 * (root * z + qhat[..., None])))
    shifted = _shifted_average(np.maximum(qhat, 1.0), lambda x: np.exp(x) * np.logaddexp(0.0, -2 * x))
    return np.where(qhat < 1.0, direct, shifted)


def _energetic_slope(q):
    """dG_E/dq = 1/(pi sqrt(1-q)) int Du / erfcx(sqrt(q/2) u), for 0 <= q < 1 (elementwise)."""
    q = np.asarray(q, dtype=float)
    avg = gaussian_average(lambda u: 1.0 / special.erfcx(np.sqrt(q[..., None] / 2) * u))
    return avg / (np.pi * np.sqrt(1.0 - q))


def _stationary_load(qhat):
    """The load at which q(qhat) is a stationary point of s_RS: alpha = qhat / (2 G_E'(q))."""
    return qhat / (2.0 * _energetic_slope(_q_of_qhat(qhat)))


def _spinodal_qhat():
    """qhat at the maximum of the stationary load (the quenched spinodal)."""
    res = optimize.minimize_scalar(lambda t: -_stationary_load(t), bounds=(1.0, 8.0),
                                   method="bounded", options={"xatol": 1e-11})
    return float(res.x)


def _branch_entropy(qhat):
    """s_RS at the stationary point parametrized by qhat (interior or barrier branch)."""
    s0 = qhat * _mmse(qhat) / 2 + _entropic_tail(qhat)
    return s0 + _stationary_load(qhat) * rs_energetic_term(_q_of_qhat(qhat))


# %% [markdown]
# ## A.1 Why the annealed calculation is not the answer
#
# By Jensen, $\frac1N\log\mathbb E\,\mathcal N\ \ge\ \frac1N\mathbb E\log\mathcal N$: the
# annealed entropy is an *upper* bound on the typical (quenched) one. The gap comes from rare
# data sets that constrain the students unusually weakly, with exponentially many
# consistent students; they dominate $\mathbb E\mathcal N$ but not $\mathbb E\log\mathcal N$.
# The replica method computes $\mathbb E\log\mathcal N$ through
# $$
# \mathbb E\log\mathcal N=\lim_{Q\to0}\frac{\mathbb E\,\mathcal N^Q-1}{Q}
# =\lim_{Q\to0}\frac{\partial}{\partial Q}\log\mathbb E\,\mathcal N^Q. \tag{A.1}
# $$
#
# ## (a) Replicate
#
# For integer $Q$, $\mathcal N^Q$ counts $Q$-tuples of consistent students (replicas), all
# judged on the *same* data:
# $$
# \mathbb E\,\mathcal N^Q=\sum_{\theta^1,\dots,\theta^Q}\ \prod_{\mu=1}^{n}\
# \mathbb E_{x^\mu}\prod_{a=1}^{Q}\Theta\big(y^\mu\,\theta^a\cdot x^\mu\big), \tag{A.2}
# $$
# where the average of the product over $\mu$ factorized because the examples are
# independent. The replicas are independent for a *given* data set; the average couples them.
#
# ## (b) Average over the data: an orthant probability
#
# For fixed $\theta^1,\dots,\theta^Q,\theta^*$, the fields $u^a=\theta^a\cdot x/\sqrt N$ and
# $v=\theta^*\cdot x/\sqrt N$ are linear in the Gaussian $x$, hence exactly jointly Gaussian,
# with zero mean and covariance
# $$
# \mathbb E[u^au^b]=q^{ab}=\tfrac1N\theta^a\cdot\theta^b\ (a\ne b),\quad
# \mathbb E[(u^a)^2]=\mathbb E[v^2]=1,\quad
# \mathbb E[u^av]=R^a=\tfrac1N\theta^a\cdot\theta^*. \tag{A.3}
# $$
# An example is classified correctly by all replicas iff every $u^a$ has the sign of $v$: a
# Gaussian orthant probability $e^{-e(q,R)}$ that depends on the overlaps only. For $Q=1$ it
# is the wedge probability $1-\varepsilon(R)$ of Exercise 2.3(b).
#
# *Replica symmetry* ($q^{ab}=q$, $R^a=R$, with $R^2<q<1$): write the Gaussians through
# independent standard normals $t, w, z_1,\dots,z_Q$ as
# $$
# u^a=\sqrt q\,t+\sqrt{1-q}\,z_a,\qquad v=\frac{R}{\sqrt q}\,t+\sqrt{1-\frac{R^2}{q}}\;w ,
# $$
# which reproduces (A.3). Given the shared field $t$ the events are independent:
# $P(v>0\,|\,t)=H\!\big(-Rt/\sqrt{q-R^2}\big)$ and $P(u^a>0\,|\,t)=H\!\big(-\sqrt{q/(1-q)}\,t\big)$.
# Adding the mirror event (all negative), equal by $t,w,z\to-t,-w,-z$,
# $$
# \boxed{\;e^{-e_{\rm RS}(q,R)}=2\int Dt\;H\!\Big(-\frac{R\,t}{\sqrt{q-R^2}}\Big)\,
# H\!\Big(-\sqrt{\frac{q}{1-q}}\;t\Big)^{Q}\;}
# $$
# This expression is analytic in $Q$. At $Q=0$ it equals $2\int Dt\,H(\cdot)=1$, and at $Q=1$
# it must equal $1-\varepsilon(R)$ *whatever* $q$ is (a single replica has no partner).
#
# **Task.** Implement `orthant_probability(q, R, Q)` for real $Q\ge0$. Note that for
# $q\to R^2$ the first tail function becomes a step: `scipy.integrate.quad` (split at
# $t=0$) is the safe choice here.

# %% tags=["graded"]
def orthant_probability(q, R, Q):
    """Replica-symmetric orthant probability exp(-e_RS(q, R)) (notes App. A.2, Ex A.1(b),(d)).

    exp(-e_RS) = 2 int Dt H(-R t / sqrt(q - R^2)) H(-sqrt(q / (1 - q)) t)^Q,
    the probability that Q replicas with mutual overlaps q and teacher overlaps R all give
    the teacher's label on one Gaussian example, continued analytically to real Q.

    Args:
        q: float, replica-replica overlap, R^2 < q < 1.
        R: float, replica-teacher overlap, -1 < R < 1.
        Q: float >= 0, number of replicas (any real value).
    Returns:
        float in (0, 1]. Equals 1 at Q = 0, and 1 - arccos(R)/pi at Q = 1 for every q.
    """
    q, R, Q = float(q), float(R), float(Q)
    a = R / np.sqrt(q - R * R)
    g = np.sqrt(q / (1.0 - q))

    def integrand(t):    # H(-x) = ndtr(x); H^Q = exp(Q log H) stays finite for any Q >= 0
        return special.ndtr(a * t) * np.exp(Q * special.log_ndtr(g * t)) * np.exp(-t * t / 2)

    total = 0.0
    for lo, hi in [(-np.inf, 0.0), (0.0, np.inf)]:
        total += integrate.quad(integrand, lo, hi, epsabs=1e-13, epsrel=1e-11, limit=200)[0]
    return float(2.0 * total / np.sqrt(2.0 * np.pi))


# %% tags=["check"]
@check
def check_orthant_probability():
    "Q=0 gives 1, Q=1 gives the wedge 1-arccos(R)/pi for any q, and more replicas agree less often"
    assert np.isclose(orthant_probability(0.5, 0.3, 0.0), 1.0, atol=1e-8), "Q = 0 should give 1"
    for q in [0.2, 0.5, 0.9]:
        assert np.isclose(orthant_probability(q, 0.4, 1.0), 1 - np.arccos(0.4) / np.pi, atol=1e-7), \
            f"Q = 1 should give 1 - eps(R), independent of q (failed at q = {q})"
    values = [orthant_probability(0.6, 0.5, Q) for Q in [0.5, 1.0, 2.0, 3.0]]
    assert np.all(np.diff(values) < 0), "the probability should decrease with Q"
    # q close to 1: H(-sqrt(q/(1-q)) t)^Q is a sharp step at t = 0; an adaptive quadrature split there
    a, g = 0.99 / np.sqrt(0.999 - 0.99**2), np.sqrt(0.999 / 0.001)
    h = lambda t: special.ndtr(a * t) * special.ndtr(g * t) ** 2.5 * np.exp(-t * t / 2) / np.sqrt(2 * np.pi)
    want = 2 * sum(integrate.quad(h, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
                   for lo, hi in [(-np.inf, 0.0), (0.0, np.inf)])
    assert np.isclose(orthant_probability(0.999, 0.99, 2.5), want, rtol=1e-7), "q = 0.999, R = 0.99: a sharp step at t = 0"


# %% [markdown]
# ## (c) Count the replicas: the entropic part
#
# Fix the overlaps with delta functions in Fourier form, with conjugate variables
# $\hat q^{ab}$, $\hat R^a$ (rotated to the real saddle). Under replica symmetry, and after
# the gauge transformation $\theta^a_i\to\theta^a_i\theta^*_i$ (which makes the teacher
# $(1,\dots,1)$ without changing any overlap), the sum over the $Q$ binary vectors
# factorizes over the sites $i$ into the $N$-th power of a $Q$-spin sum,
# $$
# \sum_{\sigma\in\{\pm1\}^Q}\exp\Big(\hat q\sum_{a<b}\sigma_a\sigma_b+\hat R\sum_a\sigma_a\Big)
# =e^{-Q\hat q/2}\sum_\sigma e^{\frac{\hat q}2(\sum_a\sigma_a)^2+\hat R\sum_a\sigma_a}
# =e^{-Q\hat q/2}\int Dz\,\big[2\cosh(\sqrt{\hat q}\,z+\hat R)\big]^Q ,
# $$
# using the Gaussian (Hubbard–Stratonovich) identity
# $e^{b^2/2}=\int Dz\,e^{bz}$ with $b=\sqrt{\hat q}\sum_a\sigma_a$. Collecting the
# conjugate terms $-N\hat q\,q\,\frac{Q(Q-1)}2-N\hat R R\,Q$ and the data term $n\log e^{-e_{\rm RS}}$,
# $\mathbb E\,\mathcal N^Q\asymp\int dq\,dR\,d\hat q\,d\hat R\;e^{N S_Q}$ with
# $$
# S_Q=-\frac{Q(Q-1)}2\,\hat q\,q-Q\hat RR-\frac{Q\hat q}2+\log\int Dz\,\big[2\cosh(\sqrt{\hat q}\,z+\hat R)\big]^Q
# +\alpha\log e^{-e_{\rm RS}(q,R)} ,
# $$
# the replica-symmetric form of the replicated action (A.4) (with $Z=2^{-N}\mathcal N$, the
# notes' $s_Q$ is $Q\log2-S_Q$). At $Q=1$ there is no $q$, the site sum is $2\cosh\hat R$ and the
# extremum over $\hat R$ of $-\hat RR+\log2\cosh\hat R$ is at $R=\tanh\hat R$, giving the
# binomial entropy $h(R)$; with $e^{-e}=1-\varepsilon(R)$ this is the annealed action of
# Exercise 2.3.
#
# ## (d) Continue to $Q\to0$
#
# Every term of $S_Q$ vanishes at $Q=0$. To first order in $Q$,
# $\log\int Dz\,(2\cosh)^Q=Q\int Dz\log2\cosh+O(Q^2)$ and, since $2\int Dt\,H(-Rt/\sqrt{q-R^2})=1$,
# $\log e^{-e_{\rm RS}}=Q\,G_E+O(Q^2)$. With (A.1),
# $$
# s(\alpha)=\operatorname*{extr}_{q,R,\hat q,\hat R}\Big[G_S(q,R,\hat q,\hat R)+\alpha\,G_E(q,R)\Big],
# $$
# $$
# G_S=-\frac{\hat q(1-q)}2-\hat RR+\int Dz\,\log2\cosh\big(\sqrt{\hat q}\,z+\hat R\big),\qquad
# G_E=2\int Dt\;H\!\Big(-\frac{Rt}{\sqrt{q-R^2}}\Big)\log H\!\Big(-\sqrt{\frac q{1-q}}\;t\Big).
# $$
# Stationarity in $\hat q$ and $\hat R$ (Stein's lemma $\int Dz\,z f(z)=\int Dz\,f'(z)$) gives
# $q=\int Dz\tanh^2(\sqrt{\hat q}z+\hat R)$ and $R=\int Dz\tanh(\sqrt{\hat q}z+\hat R)$; in $q$
# and $R$: $\hat q=-2\alpha\,\partial_qG_E$ and $\hat R=\alpha\,\partial_RG_E$.
#
# ## (e) The symmetry of Gibbs learning: $q=R$
#
# For Bayes-optimal (Gibbs) learning with the teacher's own prior, the saddle point has
# $q=R$ and $\hat q=\hat R$ (written answer below). Then $G_S$ collapses to
# $$
# G_S(q,\hat q)=-\frac{\hat q(1+q)}{2}+\int Dz\,\log2\cosh\big(\sqrt{\hat q}\,z+\hat q\big),
# $$
# and since $R/\sqrt{q-R^2}=\sqrt{q/(1-q)}=:\gamma$, and $t\to-t$,
# $$
# G_E(q)=2\int Dt\;H(\gamma t)\,\log H(\gamma t),\qquad\gamma=\sqrt{\frac q{1-q}} .
# $$
# The random variable $y=\sqrt{\hat q}\,z+\hat q\sim\mathcal N(\hat q,\hat q)$ has the
# *Nishimori* property $p(-y)=e^{-2y}p(y)$, which gives $\int Dz\tanh y=\int Dz\tanh^2y$:
# the two equations of (d) coincide. $G_S$ is convex in $\hat q$, and eliminating $\hat q$
# (a Legendre transform) defines the **entropic term**
# $$
# s_0(q)=\min_{\hat q\ge0}G_S(q,\hat q),\qquad\text{attained at }\ \hat q(q):\quad
# q=\int Dz\,\tanh\big(\sqrt{\hat q}\,z+\hat q\big),
# $$
# and by the envelope theorem $s_0'(q)=-\hat q(q)/2$. The RS entropy on the line $q=R$ is
# $$
# \boxed{\;s_{\rm RS}(q,\alpha)=s_0(q)+\alpha\,G_E(q)\;}
# $$
# and the physical solution is a local **maximum** in $q$ (at $\alpha=0$ it is $q=0$, where
# $s_0$ is largest).
#
# *Limits.* At $q=0$: $\hat q=0$, $s_0=\log 2$, $G_E=2\cdot\frac12\log\frac12=-\log2$, so
# $s_{\rm RS}(0,\alpha)=(1-\alpha)\log 2$, the annealed value at $R=0$ (uncorrelated replicas,
# nothing to gain from the data average). As $q\to1$: $\hat q\to\infty$,
# $1-q=\int Dz[1-\tanh y]\to0$ exponentially in $\hat q$, and $s_0=\frac{\hat q(1-q)}2+o(1)\to0$;
# $G_E(1-\delta)\simeq-C\sqrt\delta$ with $C=-\sqrt{2/\pi}\int dx\,H(x)\log H(x)\approx0.7206$
# (compare the annealed $\alpha\log(1-\varepsilon)\simeq-\alpha\sqrt{2\delta}/\pi$). So
# $s_{\rm RS}(1,\alpha)=0$: the teacher alone, zero entropy, for every $\alpha$.
#
# *Numerics (important).* For $q$ close to 1 the integrand $H(\gamma t)\log H(\gamma t)$ is a
# narrow bump of width $1/\gamma$ and Gauss–Hermite fails. Substitute $t=\sqrt{1-q}\,v$
# ($Dt=\sqrt{1-q}\,e^{qv^2/2}Dv$, $\gamma t=\sqrt q\,v$):
# $$
# G_E(q)=\sqrt{1-q}\int Dv\;\operatorname{erfcx}\!\big(\sqrt{q/2}\;v\big)\,\log H(\sqrt q\,v),
# $$
# whose integrand is smooth for all $0\le q\le1$. Likewise
# $G_E'(q)=\frac1{\pi\sqrt{1-q}}\int Du\,\big[\operatorname{erfcx}(\sqrt{q/2}\,u)\big]^{-1}$
# (integrate by parts in $t$, then substitute), i.e. the classic
# $G_E'=\frac1{2\pi\sqrt{1-q}}\int Dt\,\frac{e^{-qt^2/2}}{H(\sqrt q\,t)}$.
#
# **Tasks.** Implement `conjugate_field(q)` (a root finder on the monotone map
# $\hat q\mapsto q$), `rs_entropic_term(q)`, `rs_energetic_term(q)` and `rs_entropy(q, alpha)`.

# %% tags=["graded"]
def conjugate_field(q):
    """Conjugate variable qhat(q) of the RS entropic term on the line q = R (notes Ex A.1(d),(e)).

    qhat >= 0 solves  q = int Dz tanh(sqrt(qhat) z + qhat)  (the map qhat -> q is increasing).

    Args:
        q: float or np.ndarray with entries in [0, 1 - 1e-8].
    Returns:
        float or np.ndarray of the same shape, qhat(q) >= 0 with qhat(0) = 0, relative
        accuracy ~1e-8 (qhat(q) ~ q for small q, and grows like 2 log(1/(1-q)) as q -> 1);
        inf at q = 1.
    """
    q_arr = np.asarray(q, dtype=float)
    out = np.full(q_arr.shape, np.inf)
    for idx, qi in np.ndenumerate(q_arr):
        if qi <= 0.0:
            out[idx] = 0.0
        elif qi < 0.5:
            out[idx] = optimize.brentq(lambda t: _q_of_qhat(t) - qi, 0.0, 5.0, xtol=1e-15, rtol=1e-14)
        elif qi < 1.0:      # solve for 1 - q on a log scale: no cancellation as q -> 1
            target = np.log1p(-qi)
            out[idx] = optimize.brentq(lambda t: np.log(_mmse(t)) - target, 0.0, QHAT_MAX, xtol=1e-14, rtol=1e-14)
    return out if out.ndim else float(out)


# %% tags=["graded"]
def rs_entropic_term(q):
    """Entropic term s_0(q) = min_qhat [-qhat (1+q)/2 + int Dz log 2cosh(sqrt(qhat) z + qhat)].

    The entropy per weight of the replica-symmetric one-site problem on the line q = R
    (notes Ex A.1(c)-(e)), in nats; the minimum is at qhat = conjugate_field(q).

    Args:
        q: float or np.ndarray with entries in [0, 1].
    Returns:
        float or np.ndarray of the same shape: log 2 at q = 0, decreasing, exactly 0 at q = 1.
    """
    q_arr = np.asarray(q, dtype=float)
    out = np.zeros(q_arr.shape)
    inside = q_arr < 1.0
    qhat = conjugate_field(q_arr[inside])
    # -qhat (1+q)/2 + int Dz log 2cosh y = qhat (1-q)/2 + int Dz log(1 + exp(-2y)),  since int Dz y = qhat
    out[inside] = qhat * (1.0 - q_arr[inside]) / 2.0 + _entropic_tail(qhat)
    return out if out.ndim else float(out)


# %% tags=["graded"]
def rs_energetic_term(q):
    """Energetic term G_E(q) = 2 int Dt H(gamma t) log H(gamma t), gamma = sqrt(q / (1 - q)).

    The Q -> 0 derivative of log orthant_probability(q, q, Q) (notes Ex A.1(b),(d),(e)), in
    nats per example. Must be accurate up to q -> 1, where the integrand above is a narrow
    bump: use the smooth form sqrt(1-q) int Dv erfcx(sqrt(q/2) v) log H(sqrt(q) v).

    Args:
        q: float or np.ndarray with entries in [0, 1].
    Returns:
        float or np.ndarray of the same shape: -log 2 at q = 0, increasing, exactly 0 at q = 1.
    """
    q_arr = np.asarray(q, dtype=float)
    qc = np.clip(q_arr, 0.0, 1.0)[..., None]
    smooth = gaussian_average(lambda v: special.erfcx(np.sqrt(qc / 2) * v) * log_gaussian_tail(np.sqrt(qc) * v))
    out = np.sqrt(1.0 - np.clip(q_arr, 0.0, 1.0)) * smooth
    return out if out.ndim else float(out)


# %% tags=["graded"]
def rs_entropy(q, alpha):
    """Replica-symmetric quenched entropy on the line q = R (notes App. A.2, Ex A.1(e)).

    s_RS(q, alpha) = s_0(q) + alpha G_E(q)  (rs_entropic_term + alpha * rs_energetic_term),
    with the conjugate variable qhat solved internally. Its local maxima in q are the
    thermodynamic states; s_RS(0, alpha) = (1 - alpha) log 2 and s_RS(1, alpha) = 0.

    Args:
        q: float or np.ndarray with entries in [0, 1].
        alpha: float or np.ndarray, the load >= 0; broadcast against q (numpy rules).
    Returns:
        float or np.ndarray of the broadcast shape, in nats per weight.
    """
    q = np.asarray(q, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    out = rs_entropic_term(q) + alpha * rs_energetic_term(q)
    return out if np.ndim(out) else float(out)


# %% tags=["check"]
@check
def check_rs_limits():
    "limits: s_0(0)=log 2, s_0(1)=0, G_E(0)=-log 2, G_E(1)=0, s_RS(0,alpha)=(1-alpha) log 2"
    assert np.isclose(conjugate_field(0.0), 0.0)
    assert np.isclose(rs_entropic_term(0.0), np.log(2)) and np.isclose(rs_entropic_term(1.0), 0.0)
    assert np.isclose(rs_energetic_term(0.0), -np.log(2)) and np.isclose(rs_energetic_term(1.0), 0.0)
    assert np.isclose(rs_entropy(0.0, 0.7), 0.3 * np.log(2))
    assert np.allclose(rs_entropy(np.array([0.3, 0.6]), 1.1),
                       rs_entropic_term(np.array([0.3, 0.6])) + 1.1 * rs_energetic_term(np.array([0.3, 0.6])))


@check
def check_conjugate_field_solves_its_equation():
    "qhat(q) solves q = int Dz tanh(sqrt(qhat) z + qhat), checked with an independent quadrature"
    for q in [0.1, 0.5, 0.9]:
        qh = conjugate_field(q)
        integrand = lambda z: np.tanh(np.sqrt(qh) * z + qh) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)
        assert abs(integrate.quad(integrand, -np.inf, np.inf)[0] - q) < 1e-7, f"failed at q = {q}"
    # at the end of the range, 1 - q = 1e-8: 1 - q = int Dz 2 / (1 + exp(2y)), y = sqrt(qhat) z + qhat
    qh = conjugate_field(1 - 1e-8)
    tail = lambda z: 2 / (1 + np.exp(np.minimum(2 * (np.sqrt(qh) * z + qh), 700))) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)
    one_minus_q = sum(integrate.quad(tail, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0]
                      for lo, hi in [(-np.inf, -np.sqrt(qh)), (-np.sqrt(qh), np.inf)])
    assert abs(np.log(one_minus_q / 1e-8)) < 1e-6, "at q = 1 - 1e-8 solve for log(1 - q): 1 - q is a tiny difference"


@check
def check_envelope_theorem():
    "d s_0/dq = -qhat(q)/2 (envelope theorem), by finite differences"
    for q in [0.2, 0.7]:
        d = 1e-5
        slope = (rs_entropic_term(q + d) - rs_entropic_term(q - d)) / (2 * d)
        assert abs(slope + conjugate_field(q) / 2) < 1e-4, f"failed at q = {q}"


@check
def check_energetic_term_is_the_replica_derivative():
    "G_E(q) = d/dQ log orthant_probability(q, q, Q) at Q = 0"
    for q in [0.3, 0.8]:
        dQ = 1e-4
        deriv = np.log(orthant_probability(q, q, dQ)) / dQ
        assert abs(deriv - rs_energetic_term(q)) < 1e-3, f"failed at q = {q}"


# %% tags=["solution"]
# Independent checks. (i) The Gauss–Hermite integrals of the reference
# (smooth forms) against `scipy.integrate.quad` on the *original* integrands; (ii) the
# orthant probability against Monte Carlo sampling of the $(Q+1)$-dimensional Gaussian
# (A.3) for $Q=2,3$, and against the wedge formula at $Q=1$; (iii) the Nishimori identity
# $\int Dz\tanh y=\int Dz\tanh^2y$; (iv) $G_E'$ against a finite difference of $G_E$; (v) the
# $q\to1$ asymptotics $G_E\simeq-C\sqrt{1-q}$, down to $1-q=10^{-12}$; (vi) $\hat q(q)$ close to
# $q=1$ (to $1-q=10^{-8}$, the end of its range): $1-q(\hat q)=\int Dz\,2/(1+e^{2y})$ by adaptive
# quadrature split at the step, against the target $1-q$.
def quad_gauss(f):
    """int Dz f(z) by adaptive quadrature (independent of the Gauss-Hermite rule)."""
    g = lambda z: f(z) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)
    return sum(integrate.quad(g, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=400)[0]
               for lo, hi in [(-np.inf, -8), (-8, 0), (0, 8), (8, np.inf)])


# (i) GH (reference, smooth forms) vs quad (original forms)
print(" q      qhat        |d qhat|   s_0 (GH)      |d s_0|   G_E (GH)      |d G_E|")
for q in [0.05, 0.3, 0.6937, 0.9, 0.99, 0.999]:
    qh = conjugate_field(q)
    q_quad = quad_gauss(lambda z: np.tanh(np.sqrt(qh) * z + qh))
    qh_quad = optimize.brentq(lambda t: quad_gauss(lambda z: np.tanh(np.sqrt(t) * z + t)) - q, 0, 40, xtol=1e-13)
    s0_quad = -qh_quad * (1 + q) / 2 + quad_gauss(lambda z: np.logaddexp(np.sqrt(qh_quad) * z + qh_quad,
                                                                        -np.sqrt(qh_quad) * z - qh_quad))
    gam = np.sqrt(q / (1 - q))
    GE_quad = 2 * sum(integrate.quad(lambda t: special.ndtr(-gam * t) * special.log_ndtr(-gam * t)
                                     * np.exp(-t * t / 2) / np.sqrt(2 * np.pi), lo, hi,
                                     epsabs=1e-14, epsrel=1e-12, limit=400)[0]
                      for lo, hi in [(-np.inf, -2 / gam), (-2 / gam, 0), (0, 2 / gam), (2 / gam, 40 / gam)])
    assert abs(q_quad - q) < 1e-11 and abs(qh - qh_quad) < 1e-10 * max(1, qh)
    assert abs(rs_entropic_term(q) - s0_quad) < 1e-10 and abs(rs_energetic_term(q) - GE_quad) < 1e-10
    # the differences are round-off (exact zeros on some machines): printed as the bounds just checked
    print(f"{q:6.4f} {qh:10.6f}  < 1e-10   {rs_entropic_term(q):.8f}  < 1e-10   {rs_energetic_term(q):+.8f}  < 1e-10")

# (ii) orthant probability: Monte Carlo with the covariance (A.3), and the Q = 1 wedge
rng_mc = np.random.default_rng(1)
n_mc = 400_000
for q, R, Q in [(0.5, 0.4, 2), (0.7, 0.7, 3), (0.4, -0.2, 2), (0.9, 0.6, 3)]:
    C = np.full((Q + 1, Q + 1), q)
    C[:Q, Q] = C[Q, :Q] = R
    np.fill_diagonal(C, 1.0)
    uv = rng_mc.multivariate_normal(np.zeros(Q + 1), C, size=n_mc)
    hits = np.mean(np.all(np.sign(uv[:, :Q]) == np.sign(uv[:, Q:]), axis=1))
    se = np.sqrt(hits * (1 - hits) / n_mc)
    print(f"orthant q={q}, R={R:+.1f}, Q={Q}: Monte Carlo {hits:.5f} +- {se:.5f}, "
          f"formula {orthant_probability(q, R, Q):.5f}")
    assert abs(hits - orthant_probability(q, R, Q)) < 4 * se
for q, R in [(0.3, 0.5), (0.95, -0.9), (0.5, 0.0)]:
    if R * R < q:
        assert abs(orthant_probability(q, R, 1.0) - (1 - np.arccos(R) / np.pi)) < 1e-9

# (iii) Nishimori identity and (iv) G_E' vs finite differences
for qh in [0.3, 2.0, 9.0]:
    m1 = quad_gauss(lambda z: np.tanh(np.sqrt(qh) * z + qh))
    m2 = quad_gauss(lambda z: np.tanh(np.sqrt(qh) * z + qh) ** 2)
    assert abs(m1 - m2) < 1e-11, (qh, m1, m2)
for q in [0.1, 0.5, 0.95]:
    d = 1e-6
    fd = (rs_energetic_term(q + d) - rs_energetic_term(q - d)) / (2 * d)
    classic = integrate.quad(lambda t: np.exp(-(1 + q) * t * t / 2) / special.ndtr(-np.sqrt(q) * t), -12, 12,
                             epsabs=1e-14, epsrel=1e-12, limit=200)[0] / ((2 * np.pi) ** 1.5 * np.sqrt(1 - q))
    assert abs(fd / _energetic_slope(q) - 1) < 1e-6 and abs(classic / _energetic_slope(q) - 1) < 1e-9
print("(iii) Nishimori identity holds to 1e-11; (iv) G_E' = finite difference = classic form")

# (v) q -> 1 asymptotics of G_E
C_asym = -np.sqrt(2 / np.pi) * integrate.quad(lambda x: special.ndtr(-x) * special.log_ndtr(-x), -np.inf, np.inf)[0]
for delta in [1e-4, 1e-6, 1e-8, 1e-10, 1e-12]:
    delta = 1 - (1 - delta)       # the 1 - q that the float q = 1 - delta really has
    ratio = rs_energetic_term(1 - delta) / (-C_asym * np.sqrt(delta))
    bound = 5 * np.sqrt(delta) + 1e-6
    assert abs(ratio - 1) < bound
    print(f"(v) at 1 - q = 10^{round(np.log10(delta))}: G_E / (-C sqrt(1 - q)) = 1 within {bound:.0e}   (C = {C_asym:.6f})")

# (vi) conjugate field close to q = 1: 1 - q(qhat) by quad, independent of the reference's shifted trapezoid
for delta in [1e-3, 1e-5, 1e-8]:
    qh = conjugate_field(1 - delta)
    root = np.sqrt(qh)
    tail = sum(integrate.quad(lambda z: 2 * special.expit(-2 * (root * z + qh)) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi),
                              lo, hi, epsabs=0.0, epsrel=1e-12, limit=200)[0] for lo, hi in [(-np.inf, -root), (-root, np.inf)])
    assert abs(tail / (1 - (1 - delta)) - 1) < 1e-9, (delta, tail)
print("(vi) conjugate_field(1 - delta), delta = 1e-3, 1e-5, 1e-8: 1 - q(qhat) by quad matches to < 1e-9 relative")

# %% [markdown]
# **(e), written.** Why is $q=R$ at the saddle point? State the assumption it rests on.

# %% [markdown] tags=["answer"] points=3
# *Model answer.* The teacher is itself a uniformly random binary vector, and the data are
# generated by it. Given the data, the posterior over the teacher (uniform prior × the
# likelihood $\prod_\mu\Theta(y^\mu\theta\cdot x^\mu)$) is *exactly* the uniform distribution
# on the version space, which is the distribution of a Gibbs student. Hence the triple
# (teacher, student 1, student 2) consists of three i.i.d. draws from the posterior, given the
# data: the pair (teacher, student) has the same joint law as (student 2, student 1), so the
# typical teacher–student overlap $R$ equals the typical student–student overlap $q$. The
# conjugate fields then coincide, $\hat q=\hat R$, because the two saddle-point equations
# $q=\int Dz\tanh^2$ and $R=\int Dz\tanh$ are then identical (Nishimori identity), and the
# same holds for the energetic derivatives. It rests on *Bayes optimality*: the student's
# prior and likelihood are the true ones (uniform binary prior, noiseless labels, $T=0$
# version-space sampling). With a mismatched prior (e.g. spherical student, binary teacher)
# or a finite temperature, $q\ne R$.
#
# *Rubric (3 pts):* 1 for "teacher is a sample from the posterior", 1 for the exchangeability
# argument giving $q=R$ (and $\hat q=\hat R$), 1 for naming the assumption (matched prior and
# likelihood / Bayes-optimal learning).

# %% [markdown]
# ## (f) Solve: two competing solutions
#
# Stationarity of $s_{\rm RS}$ in $q$ (with $s_0'=-\hat q/2$) is
# $$
# \hat q(q)=2\alpha\,G_E'(q)=\frac{\alpha}{\pi\sqrt{1-q}}\int Dt\,\frac{e^{-qt^2/2}}{H(\sqrt q\,t)} .
# $$
# *Hint* (as in Exercise 2.3(e)): this is easy to solve for $\alpha$, and a root finder on
# the monotone parametrization by $\hat q$ (then $q=q(\hat q)$ is explicit) avoids inverting
# anything. Sketch $\alpha$ as a function of $\hat q$. For
# $0<\alpha<\alpha_{\rm sp}$ there are two stationary points: the interior maximum (the
# poor-generalization state, $R^*(\alpha)$) and, closer to $q=1$, a minimum (the barrier) that
# separates it from the teacher state $q=1$ (a boundary maximum with $s_{\rm RS}=0$, by the same
# $\sqrt{1-q}$ cusp as in Exercise 2.3(f)). At small loads the barrier lies within $10^{-3}$
# of $q=1$: work in $\hat q$ or in $\log(1-q)$, not on a uniform grid in $q$.
#
# The quenched transition is where the interior maximum stops being the dominant state:
# its entropy crosses the teacher's, $s_{\rm RS}(R^*(\alpha_c),\alpha_c)=0$ (below that, there
# would be fewer than one typical consistent student, which is impossible since the
# teacher always is one). The notes quote $\alpha_c\approx1.245$.
#
# **Tasks.** Implement `rs_saddle_points(alpha)` and `quenched_critical_load()`, both from
# the saddle-point equations (root finding), not from a table.

# %% tags=["graded"]
def rs_saddle_points(alpha):
    """All stationary points of q -> rs_entropy(q, alpha) in the open interval (0, 1).

    Stationarity: conjugate_field(q) = 2 alpha G_E'(q) (notes Ex A.1(f)). For
    0 < alpha < alpha_sp (the quenched spinodal, ~1.49) there are two: the interior local
    maximum (the poor-generalization solution R*) and the barrier minimum closer to 1;
    beyond alpha_sp there are none.

    Args:
        alpha: float, the load, 0.05 <= alpha <= 5 (for smaller loads the barrier lies
            within 1e-8 of q = 1).
    Returns:
        np.ndarray of floats, sorted increasingly: shape (2,) = [q_interior, q_barrier]
        below the spinodal, shape (0,) above it. Accuracy ~1e-8 in q.
    """
    alpha = float(alpha)
    qh_sp = _spinodal_qhat()
    if alpha >= _stationary_load(qh_sp):
        return np.zeros(0)
    gap = lambda t: _stationary_load(t) - alpha
    qh_in = optimize.brentq(gap, 1e-12, qh_sp, xtol=1e-13, rtol=1e-13)
    qh_bar = optimize.brentq(gap, qh_sp, QHAT_MAX, xtol=1e-12, rtol=1e-13)
    return np.array([_q_of_qhat(qh_in), _q_of_qhat(qh_bar)])


# %% tags=["graded"]
def quenched_critical_load():
    """The quenched (RS) critical load of the Ising perceptron (notes App. A.2, Ex A.1(f)).

    alpha_c solves rs_entropy(R*(alpha), alpha) = 0 with R*(alpha) the interior maximum,
    i.e. where the poor-generalization solution and the teacher (q = 1, zero entropy)
    exchange dominance. Computed from the saddle-point equations by root finding.

    Returns:
        (alpha_c, R_star, eps_star): tuple of three floats, relative accuracy ~1e-7;
        R_star = R*(alpha_c) and eps_star = arccos(R_star)/pi. (Notes: alpha_c ~ 1.245.)
    """
    qh_c = optimize.brentq(_branch_entropy, 0.1, _spinodal_qhat(), xtol=1e-14, rtol=1e-14)
    R_star = float(_q_of_qhat(qh_c))
    return float(_stationary_load(qh_c)), R_star, float(np.arccos(R_star) / np.pi)


# %% tags=["check"]
@check
def check_rs_saddle_points():
    "two stationary points at alpha=1 (a maximum, then a minimum), none at alpha=2"
    pts = np.asarray(rs_saddle_points(1.0))
    assert pts.shape == (2,) and 0 < pts[0] < pts[1] < 1, "expected two points in (0, 1), sorted"
    for qs, kind in zip(pts, ["max", "min"]):
        d = 0.02 * min(qs, 1 - qs)
        left, mid, right = rs_entropy(np.array([qs - d, qs, qs + d]), 1.0)
        assert abs(right - left) < 0.1 * abs(right + left - 2 * mid), "not a stationary point"
        assert (right + left - 2 * mid < 0) == (kind == "max"), f"expected a local {kind}"
    assert len(rs_saddle_points(2.0)) == 0, "no stationary points far beyond the spinodal"
    assert np.shape(rs_saddle_points(0.05)) == (2,), \
        "at the smallest promised load, 0.05, there are still two points (the barrier is within 1e-5 of q = 1)"


@check
def check_quenched_critical_load():
    "at alpha_c the interior solution has zero entropy, and alpha_c lies below the annealed 1.448"
    alpha_c, R_c, eps_c = quenched_critical_load()
    assert np.isclose(rs_saddle_points(alpha_c)[0], R_c, atol=1e-6), "R* should be the interior maximum"
    assert abs(rs_entropy(R_c, alpha_c)) < 1e-7, "s_RS(R*) should vanish at alpha_c"
    assert np.isclose(eps_c, np.arccos(R_c) / np.pi)
    assert abs(alpha_c - 1.245) < 0.002 and alpha_c < 1.448, "notes: alpha_c ~ 1.245 < 1.448"


# %% tags=["solution"]
# Independent checks. (vi) The full four-variable RS saddle point
# $(q,R,\hat q,\hat R)$ is solved with `scipy.optimize.fsolve` **without** imposing $q=R$,
# using `quad` integrals and finite-difference derivatives of the general $G_E(q,R)$: the
# solution lands on $q=R$, $\hat q=\hat R$ and reproduces the entropy. (vii) The RS entropy at
# its stationary point against a direct nested optimization of $G_S(q,\hat q)+\alpha G_E(q)$,
# a minimum over $\hat q$ inside a maximum over $q$ (`minimize_scalar`, `quad` integrals).
# (viii) $\alpha_c$ by a second root finder: secant iteration in $\alpha$ on
# $\alpha\mapsto s_{\rm RS}(R^*(\alpha),\alpha)$ using `rs_saddle_points`; and the spinodal by
# bisection on the number of stationary points. (ix) Small loads: all three theories
# (quenched, annealed Ising, annealed spherical) give $R^*\simeq2\alpha/\pi$.
def G_E_general(q, R):
    """2 int Dt H(-R t / sqrt(q - R^2)) log H(-sqrt(q/(1-q)) t), by quad (general q, R)."""
    a, g = R / np.sqrt(q - R * R), np.sqrt(q / (1 - q))
    return 2 * quad_gauss(lambda t: special.ndtr(a * t) * special.log_ndtr(g * t))


def rs_equations(v, alpha, d=1e-6):
    q, R, qh, Rh = v
    eq_q = quad_gauss(lambda z: np.tanh(np.sqrt(qh) * z + Rh) ** 2) - q
    eq_R = quad_gauss(lambda z: np.tanh(np.sqrt(qh) * z + Rh)) - R
    dGq = (G_E_general(q + d, R) - G_E_general(q - d, R)) / (2 * d)
    dGR = (G_E_general(q, R + d) - G_E_general(q, R - d)) / (2 * d)
    return [eq_q, eq_R, qh + 2 * alpha * dGq, Rh - alpha * dGR]


def G_S_general(q, R, qh, Rh):
    return -qh * (1 - q) / 2 - Rh * R + quad_gauss(lambda z: np.logaddexp(np.sqrt(qh) * z + Rh, -np.sqrt(qh) * z - Rh))


for alpha_t in [0.6, 1.2]:
    q_in = rs_saddle_points(alpha_t)[0]
    start = [0.95 * q_in, 1.03 * q_in, 0.9 * conjugate_field(q_in), 1.1 * conjugate_field(q_in)]   # q != R, qhat != Rhat
    q4, R4, qh4, Rh4 = optimize.fsolve(rs_equations, start, args=(alpha_t,), xtol=1e-10)
    s4 = G_S_general(q4, R4, qh4, Rh4) + alpha_t * G_E_general(q4, R4)
    print(f"(vi) alpha={alpha_t}: full RS saddle q={q4:.7f}, R={R4:.7f}, qhat={qh4:.6f}, Rhat={Rh4:.6f}; "
          f"s={s4:.8f}  vs  q=R solution {q_in:.7f}, s_RS={rs_entropy(q_in, alpha_t):.8f}")
    assert abs(q4 - R4) < 1e-6 and abs(qh4 - Rh4) < 1e-5 and abs(q4 - q_in) < 1e-6
    assert abs(s4 - rs_entropy(q_in, alpha_t)) < 1e-8


def nested_entropy(q, alpha):
    """min over qhat of G_S(q, qhat) + alpha G_E(q), all by quad."""
    res = optimize.minimize_scalar(lambda t: G_S_general(q, q, t, t), bounds=(1e-9, 40), method="bounded",
                                   options={"xatol": 1e-10})
    gam = np.sqrt(q / (1 - q))
    return res.fun + alpha * 2 * quad_gauss(lambda t: special.ndtr(-gam * t) * special.log_ndtr(-gam * t))


for alpha_t in [0.4, 1.0, 1.3]:
    res = optimize.minimize_scalar(lambda q: -nested_entropy(q, alpha_t), bounds=(0.01, 0.85), method="bounded",
                                   options={"xatol": 1e-8})
    q_in = rs_saddle_points(alpha_t)[0]
    print(f"(vii) alpha={alpha_t}: max_q min_qhat -> q={res.x:.6f}, s={-res.fun:.8f};  "
          f"rs_saddle_points -> q={q_in:.6f}, s={rs_entropy(q_in, alpha_t):.8f}")
    assert abs(res.x - q_in) < 2e-5 and abs(-res.fun - rs_entropy(q_in, alpha_t)) < 1e-9

# (viii) alpha_c by secant iteration in alpha, spinodal by bisection
alpha_c_root, R_c_root, eps_c_root = quenched_critical_load()
f_int = lambda a: float(rs_entropy(rs_saddle_points(a)[0], a))
alpha_sec = optimize.newton(f_int, 1.2, x1=1.3, tol=1e-12)
lo, hi = 1.3, 2.0
for _ in range(45):
    mid = 0.5 * (lo + hi)
    lo, hi = (mid, hi) if len(rs_saddle_points(mid)) == 2 else (lo, mid)
alpha_sp = 0.5 * (lo + hi)
assert abs(alpha_c_root - alpha_sec) < 1e-10 and abs(alpha_c_root - 1.245) < 1e-3
print(f"(viii) alpha_c: brentq on the branch {alpha_c_root:.9f}, secant in alpha {alpha_sec:.9f} "
      f"(|diff| < 1e-10);  R* = {R_c_root:.6f}, eps* = {eps_c_root:.6f}; spinodal {alpha_sp:.6f}")

# (ix) small loads: R* ~ 2 alpha / pi (interior branch, parametrized by qhat)
for a in [1e-4, 1e-3, 1e-2]:
    qh_a = optimize.brentq(lambda t: _stationary_load(t) - a, 0.0, 1.0, xtol=1e-15)
    print(f"(ix) alpha={a:.0e}: R*/alpha = {_q_of_qhat(qh_a) / a:.6f}   (2/pi = {2 / np.pi:.6f})")
assert abs(_q_of_qhat(optimize.brentq(lambda t: _stationary_load(t) - 1e-4, 0.0, 1.0, xtol=1e-15)) / 1e-4
           - 2 / np.pi) < 1e-3

# %% [markdown]
# The first figure shows the RS entropy $s_{\rm RS}(q,\alpha)$ at this year's loads near the
# transition: the interior maximum (dot), the barrier minimum (triangle), and the teacher
# $q=1$ with $s=0$ (square). The right panel is the bifurcation diagram: the stationary
# points as a function of $\alpha$; the interior branch and the barrier branch merge at the
# spinodal.

# %% tags=["figure"]
alpha_c, R_c, eps_c = quenched_critical_load()
loads = sorted(set(PARAMS["loads"] + [round(alpha_c, 4)]))
q_grid = np.concatenate([np.linspace(0, 0.95, 200), 1 - np.logspace(np.log10(0.05), -6, 200)[1:], [1.0]])
S0, GE = rs_entropic_term(q_grid), rs_energetic_term(q_grid)
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
ax = axes[0]
for a, color in zip(loads, plt.cm.viridis(np.linspace(0, 0.9, len(loads)))):
    label = rf"$\alpha={a:.3f}$" + (r" $\approx\alpha_c$" if abs(a - alpha_c) < 1e-3 else "")
    ax.plot(q_grid, S0 + a * GE, color=color, label=label)
    pts = rs_saddle_points(a)
    for qs, marker in zip(pts, ["o", "v"]):
        ax.plot(qs, rs_entropy(qs, a), marker, color=color)
    ax.plot(1.0, 0.0, "s", color=color)
ax.axhline(0, color="grey", lw=0.8, ls=":")
ax.set(xlabel="$q=R$", ylabel=r"$s_{\rm RS}(q,\alpha)$ (nats)", ylim=(-0.25, 0.35),
       title="RS entropy near the transition")
ax.legend(fontsize=8)
ax = axes[1]
alphas = np.linspace(0.3, 1.6, 131)
branches = np.array([np.concatenate([rs_saddle_points(a), [np.nan, np.nan]])[:2] for a in alphas])
ax.plot(alphas, branches[:, 0], "C0", label="interior maximum $R^*$")
ax.plot(alphas, branches[:, 1], "C3--", label="barrier minimum")
ax.plot(alphas, np.ones_like(alphas), "C2", lw=3, label="teacher $q=1$")
ax.axvline(alpha_c, color="k", lw=0.8)
ax.text(alpha_c, 0.42, rf" $\alpha_c={alpha_c:.4f}$")
ax.set(xlabel=r"load $\alpha$", ylabel="stationary $q$", ylim=(0.4, 1.02),
       title="stationary points of $s_{RS}$: the branches merge at the spinodal")
ax.legend(fontsize=8, loc="lower right")
plt.tight_layout()
plt.show()

# %% [markdown]
# The second figure compares the quenched (RS) and annealed theories. Left: the entropy of
# the interior solution ($\frac1N\mathbb E\log\mathcal N$ vs $\frac1N\log\mathbb E\mathcal N$),
# solid where it is the dominant state, dashed where metastable, and the teacher state
# ($s=0$); right: the learning curves $\varepsilon(\alpha)$ with their jumps to zero error. Both
# critical loads are marked. The annealed entropy is always the larger one, as Jensen
# requires.

# %% tags=["figure"]
def annealed_branch(alpha):
    """Interior maximum of the annealed entropy (Exercise 2.3), or (nan, nan) if none."""
    R = np.linspace(0.0, 0.9999, 20001)
    s = annealed_entropy(R, alpha)
    i = np.nonzero((s[1:-1] > s[:-2]) & (s[1:-1] > s[2:]))[0]
    if len(i) == 0:
        return np.nan, np.nan
    res = optimize.minimize_scalar(lambda r: -annealed_entropy(r, alpha), bounds=(R[i[0]], R[i[0] + 2]),
                                   method="bounded", options={"xatol": 1e-10})
    return res.x, -res.fun


alpha_c_ann = optimize.brentq(lambda a: annealed_branch(a)[1], 1.2, 1.6, xtol=1e-10)
alphas = np.linspace(0.0, 2.0, 161)
quenched = np.array([[np.nan, np.nan] if a == 0 else
                     (lambda p: [p[0], rs_entropy(p[0], a)] if len(p) else [np.nan, np.nan])(rs_saddle_points(a))
                     for a in alphas])
quenched[0] = [0.0, LOG2]
annealed = np.array([annealed_branch(a) for a in alphas])
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
for data, a_c, color, name in [(quenched, alpha_c, "C0", "quenched (RS)"), (annealed, alpha_c_ann, "C1", "annealed")]:
    stable = alphas <= a_c
    axes[0].plot(alphas[stable], data[stable, 1], color=color, lw=2, label=name)
    axes[0].plot(alphas[~stable], data[~stable, 1], "--", color=color)
    eps = generalization_error(data[:, 0])
    axes[1].plot(alphas[stable], eps[stable], color=color, lw=2, label=name)
    axes[1].plot(alphas[~stable], eps[~stable], "--", color=color, lw=1)
    axes[1].plot([a_c, a_c, alphas[-1]], [np.interp(a_c, alphas, eps), 0, 0], color=color, lw=2)
    for ax in axes:
        ax.axvline(a_c, color=color, lw=0.8, ls=":")
    axes[1].text(a_c, 0.47 if color == "C0" else 0.42, rf" $\alpha_c={a_c:.3f}$", color=color)
axes[0].axhline(0, color="C2", lw=2, label="teacher, $s=0$")
axes[0].set(xlabel=r"load $\alpha$", ylabel="entropy of the interior solution (nats)",
            ylim=(-0.3, 0.72), title="quenched vs annealed entropy")
axes[1].set(xlabel=r"load $\alpha$", ylabel=r"generalization error $\varepsilon$", title="learning curves")
for ax in axes:
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% tags=["solution"]
# Independent check: brute force. For $N=15$ we enumerate all $2^N$
# students for many data sets and estimate $\frac1N\mathbb E\log\mathcal N$ (quenched) and
# $\frac1N\log\mathbb E\mathcal N$ (annealed). At this size finite-$N$ corrections are of
# order $\frac{\log N}N$ and the transition is a broad crossover, so the comparison is
# qualitative: the enumerated annealed value exceeds the quenched one at every load; well
# below the transition the enumerated quenched value is close to the RS prediction and
# clearly below the annealed one; near and above $\alpha_c$ finite-size effects dominate (at
# finite $N$ the teacher alone keeps $\log\mathcal N\ge0$, and the crossover is broad).
def all_students(N):
    bits = (np.arange(2**N)[:, None] >> np.arange(N)[None, :]) & 1
    return (2 * bits - 1).astype(np.float64)


N_bf, n_sets = 15, 40
S_all = all_students(N_bf)
rng_bf = np.random.default_rng(2024)
print(" alpha   <log N>/N (enum)  log<N>/N (enum)   RS quenched   annealed (N=inf)")
for a in [0.4, 0.8, 1.2, 1.6]:
    n = int(round(a * N_bf))
    logs, counts = [], []
    for _ in range(n_sets):
        teacher = rng_bf.choice([-1.0, 1.0], size=N_bf)
        X = rng_bf.standard_normal((n, N_bf))
        Xy = X * np.sign(X @ teacher)[:, None]
        ok = np.all(S_all @ Xy.T > 0, axis=1)
        counts.append(ok.sum())
        logs.append(np.log(ok.sum()))
    quenched_enum, annealed_enum = np.mean(logs) / N_bf, np.log(np.mean(counts)) / N_bf
    stationary = rs_saddle_points(a)
    s_rs = max(rs_entropy(stationary[0], a), 0.0) if len(stationary) else 0.0
    s_ann = max(annealed_branch(a)[1], 0.0) if np.isfinite(annealed_branch(a)[1]) else 0.0
    print(f" {a:4.1f}     {quenched_enum:.4f}            {annealed_enum:.4f}          {s_rs:.4f}        {s_ann:.4f}")
    assert annealed_enum >= quenched_enum and s_ann >= s_rs - 1e-12
    if a < 1:
        assert abs(quenched_enum - s_rs) < abs(quenched_enum - s_ann)


# %% [markdown]
# **(f), written.** Compare the quenched and annealed transitions: which way does $\alpha_c$
# move, and why (use Appendix A.1)? What happens between $\alpha_c$ and the spinodal, and
# what is the same in both theories?

# %% [markdown] tags=["answer"] points=3
# *Model answer.* The quenched (RS) transition is at $\alpha_c\approx1.2447$
# ($R^*\approx0.694$, $\varepsilon^*\approx0.256$), *below* the annealed
# $\alpha_c^{\rm ann}\approx1.448$ ($R^*\approx0.698$, $\varepsilon^*\approx0.254$). The annealed
# entropy $\frac1N\log\mathbb E\mathcal N$ bounds the typical one from above (Jensen) and is
# dominated by rare data sets that constrain the students weakly; they carry exponentially
# many poorly aligned students, so the annealed theory overweights the interior
# (poor-generalization) state and keeps its entropy positive for longer: it needs more data
# before the teacher state ($s=0$) wins. The typical data set eliminates the imperfect
# students faster, so perfect generalization sets in at a smaller load. In both theories the
# structure is the same: two basins, an interior maximum $R^*(\alpha)$ drifting toward 1 and
# the teacher $q=1$ with zero entropy, exchanging dominance in a first-order transition with
# a jump of $\varepsilon$ from $\approx0.25$ to $0$; and in both the interior state survives as a
# metastable state (positive barrier to the teacher) up to a spinodal (quenched
# $\alpha_{\rm sp}\approx1.493$, annealed $\approx1.73$), so local dynamics started among typical
# students stay at $\varepsilon>0$ beyond $\alpha_c$ (hysteresis). Note that above $\alpha_c$ the
# quenched entropy of the interior state is *negative*: that branch then describes no
# typical data set at all, a first hint of the annealed pathologies mentioned in A.1. At small
# $\alpha$ the two theories agree ($R^*\simeq2\alpha/\pi$ for both), since the fluctuations of
# $\log\mathcal N$ between data sets are a higher-order effect in $\alpha$.
#
# *Rubric (3 pts):* 1 for the direction and the numbers ($1.245<1.448$), 1 for the Jensen /
# rare-data-set explanation (annealed overweights weakly constrained, poorly aligned
# students), 1 for the common structure (two basins, first-order jump, metastability up to
# a spinodal).

# %% tags=["tests"]
@points(1)
def test_orthant_probability(student):
    "orthant_probability at random replica-symmetric overlaps and real numbers of replicas"
    rng = rng_for("orthant_probability")
    for _ in range(4):
        q = float(rng.uniform(0.15, 0.9))
        R = float(rng.uniform(-0.9, 0.9) * np.sqrt(q - 0.05))
        Q = float(rng.uniform(0.2, 3.5))
        assert_close(student.orthant_probability(q, R, Q), ref.orthant_probability(q, R, Q),
                     rtol=1e-6, atol=1e-9, name=f"orthant_probability(q={q:.3f}, R={R:.3f}, Q={Q:.2f})")


@points(1)
def test_orthant_probability_integer_replicas(student):
    "orthant_probability for Q = 0, 1, 2 (no replica, one replica, a pair)"
    rng = rng_for("orthant_probability_integer_replicas")
    for Q in [0.0, 1.0, 2.0]:
        q = float(rng.uniform(0.2, 0.8))
        R = float(rng.uniform(0.0, 0.9) * np.sqrt(q))
        assert_close(student.orthant_probability(q, R, Q), ref.orthant_probability(q, R, Q),
                     rtol=1e-6, atol=1e-9, name=f"orthant_probability(q={q:.3f}, R={R:.3f}, Q={Q:g})")


@points(1)
def test_orthant_probability_extremes(student):
    "orthant_probability with q close to 1, R^2 close to q or R negative, and many replicas"
    rng = rng_for("orthant_probability_extremes")
    cases = [(float(1 - 10 ** -rng.uniform(1.3, 3)), float(rng.uniform(0.9, 0.99)), float(rng.uniform(2.0, 12.0))),
             (float(1 - 10 ** -rng.uniform(1.3, 3)), float(-rng.uniform(0.5, 0.99)), float(rng.uniform(0.5, 5.0))),
             (float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.97, 0.995)), 0.0)]
    for q, f, Q in cases:
        R = f * np.sqrt(q)
        assert_close(student.orthant_probability(q, R, Q), ref.orthant_probability(q, R, Q),
                     rtol=1e-6, atol=1e-9, name=f"orthant_probability(q=1-{1 - q:.2e}, R={R:.4f}, Q={Q:.2f})")


@points(2)
def test_conjugate_field(student):
    "conjugate_field on an array of overlaps in [0, 1], endpoints included"
    rng = rng_for("conjugate_field")
    q = np.concatenate([[0.0, 0.52, 0.99, 1.0], np.sort(rng.uniform(0.005, 0.995, 5))])
    assert_close(student.conjugate_field(q), ref.conjugate_field(q), rtol=1e-7, atol=1e-10,
                 name="conjugate_field(q), q = 1 included")
    q1 = float(rng.uniform(0.2, 0.8))
    assert_close(student.conjugate_field(q1), ref.conjugate_field(q1), rtol=1e-7, atol=1e-10,
                 name=f"conjugate_field({q1:.3f}) (scalar)")


@points(1)
def test_conjugate_field_edges(student):
    "conjugate_field at both ends of its range, 1 - q down to 1e-8 and small q, to its relative accuracy"
    rng = rng_for("conjugate_field_edges")
    near_one = 1 - np.concatenate([10 ** -rng.uniform(3, 8, 3), [1e-8]])
    small = 10 ** -rng.uniform(3, 6, 3)
    for q, where in [(near_one, "1 - q in [1e-8, 1e-3]"), (small, "q in [1e-6, 1e-3]")]:
        assert_close(student.conjugate_field(q), ref.conjugate_field(q), rtol=1e-7, atol=0.0,
                     name=f"conjugate_field(q), {where}")


@points(2)
def test_rs_entropic_term(student):
    "rs_entropic_term on an array of overlaps in [0, 1], endpoints included"
    rng = rng_for("rs_entropic_term")
    q = np.concatenate([[0.0, 1.0, 0.99], rng.uniform(0.01, 0.995, 5)])
    assert_close(student.rs_entropic_term(q), ref.rs_entropic_term(q), rtol=1e-6, atol=1e-9,
                 name="rs_entropic_term(q)")


@points(2)
def test_rs_energetic_term(student):
    "rs_energetic_term on an array of overlaps in [0, 0.9], endpoints included"
    rng = rng_for("rs_energetic_term")
    q = np.concatenate([[0.0, 1.0], rng.uniform(0.01, 0.9, 6)])
    assert_close(student.rs_energetic_term(q), ref.rs_energetic_term(q), rtol=1e-7, atol=1e-10,
                 name="rs_energetic_term(q)")


@points(1)
def test_rs_energetic_term_near_one(student):
    "rs_energetic_term close to q = 1, where the integrand becomes sharp"
    rng = rng_for("rs_energetic_term_near_one")
    q = 1 - 10 ** -rng.uniform(1.5, 6, 4)
    assert_close(student.rs_energetic_term(q), ref.rs_energetic_term(q), rtol=1e-6, atol=1e-10,
                 name="rs_energetic_term(q) for 1 - q in (1e-6, 3e-2)")


@points(1)
def test_rs_energetic_term_extreme(student):
    "rs_energetic_term for 1 - q from 1e-6 down to 1e-12, the end of its range, to relative accuracy"
    rng = rng_for("rs_energetic_term_extreme")
    q = 1 - np.concatenate([10 ** -rng.uniform(6, 12, 3), [1e-12]])
    assert_close(student.rs_energetic_term(q), ref.rs_energetic_term(q), rtol=1e-6, atol=0.0,
                 name="rs_energetic_term(q) for 1 - q in [1e-12, 1e-6]")


@points(2)
def test_rs_entropy(student):
    "rs_entropy on arrays of overlaps and loads, with broadcasting"
    rng = rng_for("rs_entropy")
    q = np.concatenate([[0.0, 1.0], rng.uniform(0.01, 0.99, 5)])
    alpha = float(rng.uniform(0.2, 2.5))
    assert_close(student.rs_entropy(q, alpha), ref.rs_entropy(q, alpha), rtol=1e-6, atol=1e-9,
                 name=f"rs_entropy(q, alpha={alpha:.3f})")
    table_q, table_a = q[2:5, None], rng.uniform(0.0, 2.0, 3)[None, :]
    assert_close(student.rs_entropy(table_q, table_a), ref.rs_entropy(table_q, table_a), rtol=1e-6, atol=1e-9,
                 name="rs_entropy(q[:, None], alpha[None, :])")


@points(1)
def test_rs_entropy_zero_load(student):
    "rs_entropy at zero load, where only the entropic term is left, and at a float overlap"
    rng = rng_for("rs_entropy_zero_load")
    q = np.concatenate([[0.0, 1.0], rng.uniform(0.01, 0.99, 4)])
    assert_close(student.rs_entropy(q, 0.0), ref.rs_entropy(q, 0.0), rtol=1e-6, atol=1e-9, name="rs_entropy(q, alpha=0)")
    q1, a1 = float(rng.uniform(0.05, 0.95)), float(rng.uniform(0.2, 2.0))
    assert_close(student.rs_entropy(q1, a1), ref.rs_entropy(q1, a1), rtol=1e-6, atol=1e-9,
                 name=f"rs_entropy({q1:.3f}, {a1:.3f})")


@points(3)
def test_rs_saddle_points(student):
    "rs_saddle_points below the spinodal: both stationary points, sorted"
    rng = rng_for("rs_saddle_points")
    loads = [ref.PARAMS["loads"][0], ref.PARAMS["loads"][-1]] + rng.uniform(0.5, 1.2, 2).round(4).tolist()
    for alpha in loads:
        got = np.asarray(student.rs_saddle_points(float(alpha)), dtype=float)
        want = ref.rs_saddle_points(float(alpha))
        assert got.shape == want.shape, f"rs_saddle_points({alpha}): expected {want.size} stationary points"
        assert_close(got, want, rtol=0, atol=1e-7, name=f"rs_saddle_points({alpha})")


@points(1)
def test_rs_saddle_points_range_ends(student):
    "rs_saddle_points at small loads (the barrier close to q = 1) and just below the spinodal"
    rng = rng_for("rs_saddle_points_range_ends")
    # near the spinodal first: there the barrier is in every window, so the known mistakes that
    # answer alike at small loads (only the maximum; a fixed search window) are told apart
    for alpha in [float(rng.uniform(1.47, 1.488)), 0.05, float(rng.uniform(0.05, 0.25))]:
        got = np.asarray(student.rs_saddle_points(alpha), dtype=float)
        want = ref.rs_saddle_points(alpha)
        assert got.shape == want.shape, f"rs_saddle_points({alpha:.4f}): expected {want.size} stationary points"
        assert_close(got, want, rtol=0, atol=1e-7, name=f"rs_saddle_points({alpha:.4f})")


@points(1)
def test_rs_saddle_points_beyond_spinodal(student):
    "rs_saddle_points beyond the spinodal: no stationary point"
    rng = rng_for("rs_saddle_points_beyond_spinodal")
    for alpha in [1.53, float(rng.uniform(1.6, 4.0)), 5.0]:
        got = np.asarray(student.rs_saddle_points(alpha), dtype=float)
        assert got.size == 0, f"rs_saddle_points({alpha:.3f}) should be empty"


@points(3)
def test_quenched_critical_load(student):
    "quenched_critical_load: alpha_c, R* and eps* of the quenched transition"
    expected = ref.quenched_critical_load()
    actual = student.quenched_critical_load()
    assert len(actual) == 3, "quenched_critical_load should return (alpha_c, R_star, eps_star)"
    for a, e, name in zip(actual, expected, ["alpha_c", "R_star", "eps_star"]):
        assert_close(a, e, rtol=1e-6, atol=0.0, name=name)


# %% tags=["wrong"]
# wrong: orthant probability without the mirror event (all replicas and teacher negative), factor 2 missing
# hint: All Q replicas agree with the teacher on an example in two mirror ways, all fields positive or
#   all negative: the orthant probability counts both halves (Appendix A.2, Exercise A.1(b)).
_orthant_right = orthant_probability


def orthant_probability(q, R, Q):
    return 0.5 * _orthant_right(q, R, Q)


# %% tags=["rewrite"]
# rewrite: the same single orthant, integrated directly with H(-x) = ndtr(x) and no factor 2
def orthant_probability(q, R, Q):
    q, R, Q = float(q), float(R), float(Q)
    a = R / np.sqrt(q - R * R)
    g = np.sqrt(q / (1.0 - q))
    f = lambda t: special.ndtr(a * t) * special.ndtr(g * t) ** Q * np.exp(-t * t / 2) / np.sqrt(2 * np.pi)
    return float(sum(integrate.quad(f, lo, hi, epsabs=1e-13, epsrel=1e-11, limit=200)[0]
                     for lo, hi in [(-np.inf, 0.0), (0.0, np.inf)]))


# %% tags=["wrong"]
# wrong: orthant probability by the provided 201-point Gauss-Hermite rule on the original integrand
# hint: For q close to 1 the factor H(−√(q/(1 − q)) t)^Q is a sharp step at t = 0 (and so is H(−Rt/√(q − R²))
#   for R² close to q), which a fixed Gauss–Hermite rule misses: integrate adaptively, split at t = 0
#   (Appendix A.2, Exercise A.1(b)).
def orthant_probability(q, R, Q):
    a, g = R / np.sqrt(q - R * R), np.sqrt(q / (1 - q))
    return float(2 * gaussian_average(lambda t: special.ndtr(a * t) * special.ndtr(g * t) ** Q))


# %% tags=["wrong"]
# wrong: conjugate field by brentq on q(qhat) = q directly (no log scale), qhat searched in [0, 20]
# hint: As q → 1, q̂ grows like 2 log(1/(1 − q)) and 1 − q is a tiny difference: solve for log(1 − q) with
#   an accurate average of 1 − tanh (e.g. ∫Dz 2/(1 + e^{2y})), over a bracket in q̂ that reaches far enough
#   (Exercise A.1(d),(e)).
def conjugate_field(q):
    q_arr = np.asarray(q, dtype=float)
    out = np.full(q_arr.shape, np.inf)
    for idx, qi in np.ndenumerate(q_arr):
        if qi <= 0:
            out[idx] = 0.0
        elif qi < 1:
            f = lambda t: gaussian_average(lambda z: np.tanh(np.sqrt(t) * z + t)) - qi
            out[idx] = optimize.brentq(f, 0.0, 20.0, xtol=1e-14) if f(20.0) > 0 else 20.0
    return out if out.ndim else float(out)


# %% tags=["wrong"]
# wrong: conjugate-field equation without the teacher's field, q = int Dz tanh^2(sqrt(qhat) z) (Gardner's equation)
# hint: On the line q = R the q̂ equation keeps the teacher's field: q = ∫Dz tanh(√q̂ z + q̂) (Exercise
#   A.1(d)); ∫Dz tanh²(√q̂ z) = q is Gardner's equation for random labels.
def conjugate_field(q):
    q_arr = np.asarray(q, dtype=float)
    out = np.full(q_arr.shape, np.inf)  # inf at q = 1, as the contract says
    for idx, qi in np.ndenumerate(q_arr):
        if qi <= 0:
            out[idx] = 0.0
        elif qi < 1:  # 1 - q ~ sqrt(2 / (pi qhat)): q = 0.995 needs qhat ~ 3e4, where the dip of
            # tanh^2 at z = 0 is too narrow for Gauss-Hermite nodes, so quad on z > 0
            gardner = lambda t: 2 * integrate.quad(lambda z: np.tanh(np.sqrt(t) * z) ** 2 * np.exp(-z * z / 2),
                                                   0, np.inf, epsabs=1e-13, epsrel=1e-11, limit=200)[0] / np.sqrt(2 * np.pi)
            out[idx] = optimize.brentq(lambda t: gardner(t) - qi, 1e-12, 1e12)
    return out if out.ndim else float(out)


# %% tags=["wrong"]
# wrong: entropic term -qhat (1 - q)/2 + ..., the conjugate term -Rhat R dropped when setting R = q
# hint: Setting R = q does not remove the conjugate term −R̂R: with R̂ = q̂ it turns −q̂(1 − q)/2 into
#   −q̂(1 + q)/2 in the entropic term s_0(q) (Exercise A.1(d)).
def rs_entropic_term(q):
    q_arr = np.asarray(q, dtype=float)
    out = np.zeros(q_arr.shape)
    for idx, qi in np.ndenumerate(q_arr):
        if qi < 1:
            qh = conjugate_field(qi)
            out[idx] = -qh * (1 - qi) / 2 + gaussian_average(lambda z: np.log(2 * np.cosh(np.sqrt(qh) * z + qh)))
    return out if out.ndim else float(out)


# %% tags=["wrong"]
# wrong: energetic term int Dt H log H without the factor 2 (only one of the two orthants)
# hint: The energetic term is G_E = 2∫Dt H(γt) log H(γt): the factor 2 counts the two mirror orthants,
#   as in the orthant probability (Exercise A.1(b),(e)).
_energetic_right = rs_energetic_term


def rs_energetic_term(q):
    return 0.5 * _energetic_right(q)


# %% tags=["wrong"]
# wrong: energetic term by plain Gauss-Hermite on the original integrand (inaccurate once the bump is narrow)
# hint: As q → 1 the integrand of G_E becomes a narrow bump that a fixed Gauss–Hermite rule misses:
#   change variables to a smooth integrand (the docstring gives one) or integrate adaptively
#   (Exercise A.1(e)).
def rs_energetic_term(q):
    q_arr = np.clip(np.asarray(q, dtype=float), 0.0, 1.0 - 1e-300)
    gam = np.sqrt(q_arr / (1 - q_arr))[..., None]
    out = gaussian_average(lambda t: 2 * gaussian_tail(gam * t) * log_gaussian_tail(gam * t))
    out = np.where(np.asarray(q) >= 1.0, 0.0, out)
    return out if np.ndim(out) else float(out)


# %% tags=["wrong"]
# wrong: gamma = q / (1 - q) instead of sqrt(q / (1 - q)) in the energetic term
# hint: In the energetic term γ = √(q/(1 − q)), with the square root: it is a ratio of standard
#   deviations of the two Gaussian fields (Exercise A.1(e)).
def rs_energetic_term(q):
    q_arr = np.asarray(q, dtype=float)
    out = np.zeros(q_arr.shape)
    for idx, qi in np.ndenumerate(q_arr):
        if qi < 1:
            gam = qi / (1 - qi)
            out[idx] = 2 * integrate.quad(lambda t: gaussian_tail(gam * t) * log_gaussian_tail(gam * t)
                                          * np.exp(-t * t / 2) / np.sqrt(2 * np.pi), -30, 30, points=[0.0])[0]
    return out if out.ndim else float(out)


# %% tags=["wrong"]
# wrong: rs_saddle_points returns only the interior maximum, not the barrier
# hint: rs_saddle_points returns all the stationary points of s_RS(·, α) in (0, 1): below the spinodal
#   both the interior maximum and the barrier closer to q = 1 (Exercise A.1(f)).
_saddle_right = rs_saddle_points


def rs_saddle_points(alpha):
    return _saddle_right(alpha)[:1]


# %% tags=["wrong"]
# wrong: the barrier searched for in a fixed window qhat <= 15 (1 - q down to ~1e-4): missed at small loads
# hint: Below the spinodal there are two stationary points at every load, however small: as α decreases the
#   barrier moves exponentially close to q = 1, so search for it on a scale in 1 − q (or q̂) that reaches
#   the end of the promised range (Exercise A.1(f)).
def rs_saddle_points(alpha):
    alpha = float(alpha)
    qh_sp = _spinodal_qhat()
    if alpha >= _stationary_load(qh_sp):
        return np.zeros(0)
    gap = lambda t: _stationary_load(t) - alpha
    roots = [optimize.brentq(gap, 1e-12, qh_sp, xtol=1e-13, rtol=1e-13)]
    if gap(15.0) < 0:
        roots.append(optimize.brentq(gap, qh_sp, 15.0, xtol=1e-12, rtol=1e-13))
    return np.array([float(_q_of_qhat(t)) for t in roots])


# %% tags=["wrong"]
# wrong: critical load taken at the spinodal, where the interior solution disappears
# hint: The quenched α_c is where the interior solution's entropy s_RS(R*, α) falls to 0, the teacher's,
#   so that the two exchange dominance; the interior solution disappears only later, at the spinodal
#   (Exercise A.1(f), as in Section 2.5).
def quenched_critical_load():
    qh_sp = _spinodal_qhat()
    R = float(_q_of_qhat(qh_sp))
    return float(_stationary_load(qh_sp)), R, float(np.arccos(R) / np.pi)


# %% tags=["alternative"]
# alternative: quad for the orthant and G_E, Newton for qhat (quad for 1 - q on a log scale near q = 1), saddle points by scanning ds/dq on a log(1-q) grid, alpha_c by brentq in alpha
def orthant_probability(q, R, Q):
    a, g = R / np.sqrt(q - R**2), np.sqrt(q / (1 - q))
    f = lambda t: 2 * special.ndtr(a * t) * special.ndtr(g * t) ** Q * np.exp(-t**2 / 2) / np.sqrt(2 * np.pi)
    return integrate.quad(f, -np.inf, np.inf, epsabs=1e-13, epsrel=1e-12, limit=400)[0]


def _alt_qhat(q):
    q = np.asarray(q, dtype=float)
    qh = np.where(q < 0.5, q, -2 * np.log1p(-q))          # Newton from a rough start, all at once
    for _ in range(200):
        y = np.sqrt(qh)[..., None] * GH_NODES + qh[..., None]
        th = np.tanh(y)
        m1, m4 = th @ GH_WEIGHTS, th**4 @ GH_WEIGHTS
        step = (m1 - q) / (1 - 2 * m1 + m4)              # dq/dqhat = 1 - 2q + <tanh^4> (Nishimori)
        qh = np.maximum(qh - step, 0.5 * qh)
        if np.all(np.abs(step) <= 1e-14 * (1 + qh)):
            break
    return np.where(q > 0, qh, 0.0)


def _alt_one_minus_q(qh):
    """1 - q(qhat) = int Dz 2/(1 + exp(2y)), y = sqrt(qhat) z + qhat, by quad split at the step y = 0."""
    r = np.sqrt(qh)
    f = lambda z: 2 * special.expit(-2 * (r * z + qh)) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)
    return sum(integrate.quad(f, lo, hi, epsabs=0.0, epsrel=1e-13, limit=200)[0] for lo, hi in [(-np.inf, -r), (-r, np.inf)])


def conjugate_field(q):
    q = np.asarray(q, dtype=float)
    out = np.where(q >= 1, np.inf, _alt_qhat(np.where(q >= 1, 0.5, q)))
    for idx, qi in np.ndenumerate(q):     # close to q = 1, Newton on Gauss-Hermite loses 1 - q: log scale, quad
        if 0.9 <= qi < 1:
            out[idx] = optimize.brentq(lambda t: np.log(_alt_one_minus_q(t)) - np.log1p(-qi), 0.1, 80.0,
                                       xtol=1e-14, rtol=1e-14)
    return float(out) if out.ndim == 0 else out


def rs_entropic_term(q):
    q = np.asarray(q, dtype=float)
    qh = _alt_qhat(np.minimum(q, 1 - 1e-15))
    y = np.sqrt(qh)[..., None] * GH_NODES + qh[..., None]
    val = -qh * (1 + q) / 2 + (np.abs(y) + np.log1p(np.exp(-2 * np.abs(y)))) @ GH_WEIGHTS
    val = np.where(q >= 1, 0.0, val)
    return float(val) if val.ndim == 0 else val


def rs_energetic_term(q):
    def one(qi):
        if qi <= 0:
            return -np.log(2)
        if qi >= 1:
            return 0.0
        g = np.sqrt(qi / (1 - qi))
        f = lambda t: 2 * special.ndtr(g * t) * special.log_ndtr(g * t) * np.exp(-t**2 / 2) / np.sqrt(2 * np.pi)
        return sum(integrate.quad(f, lo / g, hi / g, epsabs=1e-15, epsrel=1e-12, limit=200)[0]
                   for lo, hi in [(-60, -3), (-3, 0), (0, 3), (3, 60)])
    q = np.asarray(q, dtype=float)
    val = np.vectorize(one)(q)
    return float(val) if val.ndim == 0 else val


def rs_entropy(q, alpha):
    val = rs_entropic_term(q) + np.asarray(alpha) * rs_energetic_term(q)
    return float(val) if np.ndim(val) == 0 else val


def _alt_slope(q, alpha):
    """d s_RS / dq = -qhat(q)/2 + alpha G_E'(q), G_E' in the classic form."""
    q = np.asarray(q, dtype=float)
    x = np.sqrt(q)[..., None] * GH_NODES
    ge1 = np.exp(-x**2 / 2 - special.log_ndtr(-x)) @ GH_WEIGHTS / (2 * np.pi * np.sqrt(1 - q))
    return -_alt_qhat(q) / 2 + alpha * ge1


def rs_saddle_points(alpha):
    u = np.concatenate([np.linspace(0.002, 0.9, 120), 1 - np.logspace(-1, -8, 240)])
    f = _alt_slope(u, alpha)
    roots = []
    for i in np.nonzero(np.sign(f[:-1]) != np.sign(f[1:]))[0]:
        roots.append(optimize.brentq(lambda t: float(_alt_slope(t, alpha)), u[i], u[i + 1], xtol=1e-14))
    return np.array(sorted(roots))


def quenched_critical_load():
    def gap(a):
        q_in = rs_saddle_points(a)[0]
        return float(rs_entropic_term(q_in) + a * rs_energetic_term(q_in))
    a_c = optimize.brentq(gap, 1.0, 1.45, xtol=1e-12)
    R = rs_saddle_points(a_c)[0]
    return a_c, R, np.arccos(R) / np.pi
