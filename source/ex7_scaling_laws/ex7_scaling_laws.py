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
# # ex7_scaling_laws: The empirical scaling laws, compute-optimal allocation and the Chinchilla revision
#
# *Notes: Sections 7.1 (the empirical laws, $C\approx6Pn$, the compute envelope) and 7.2
# (joint laws, bottlenecks, and the Chinchilla revision).*
#
# **Notation** (notes, Section 7). $P$ = parameters (the literature's $N$), $n$ = training
# tokens (the literature's $D$), $C$ = training compute in FLOPs. With the other resources
# unbottlenecked, the test loss of language models follows
# $$
# L(P)\propto P^{-\alpha_P},\qquad L(n)\propto n^{-\alpha_n},\qquad L(C)\propto C^{-\alpha_C},
# \tag{7.1}
# $$
# with Kaplan et al.'s $\alpha_P\approx0.076$, $\alpha_n\approx0.095$, $\alpha_C\approx0.050$. One
# training token costs about $6P$ FLOPs ($2P$ forward, $4P$ backward), so for a single epoch
# $$
# C\approx6\,P\,n . \tag{7.2}
# $$
# The compute law is measured differently from the other two: it is the lower envelope
# $$
# L(C)=\min_{P,n:\;6Pn=C}L(P,n) \tag{7.3}
# $$
# over many runs. Chinchilla (Hoffmann et al. 2022) fitted the additive joint law
# $$
# L(P,n)=E+A\,P^{-\alpha}+B\,n^{-\beta} \tag{7.5}
# $$
# with $E=1.69$, $A=406.4$, $B=410.7$, $\alpha=0.34$, $\beta=0.28$ ($E$ is the irreducible entropy
# of text, in nats per token).
#
# **What you implement** (graded by hidden tests):
#
# | part | function | notes |
# |---|---|---|
# | 1 | `compute_optimal_allocation(C, E, A, B, alpha, beta)` | (7.3) for the law (7.5) |
# | 1 | `allocation_exponents(alpha, beta)` | $P\propto C^{a}$, $n\propto C^{b}$ |
# | 1 | `alpha_C(alpha_P, alpha_n)` | harmonic rule of Section 7.1 |
# | 1 | `tokens_per_parameter(C, A, B, alpha, beta)` | $n_{\rm opt}/P_{\rm opt}$ |
# | 2 | `implied_alpha_n(alpha_P, alpha_C)` | the rule inverted, on the modality table |
# | 3 | `fit_joint_law(P, n, L)` | fitting (7.5) to runs |
#
# Written answers (graded by hand): the Kaplan–Chinchilla comparison and the modality table.

# %% tags=["setup"]
import numpy as np
from scipy import optimize
import matplotlib.pyplot as plt

CHINCHILLA = {"E": 1.69, "A": 406.4, "B": 410.7, "alpha": 0.34, "beta": 0.28}  # Hoffmann et al. 2022 (approach 3)
KAPLAN = {"alpha_P": 0.076, "alpha_n": 0.095, "alpha_C": 0.050}               # Kaplan et al. 2020

# %% [markdown]
# This year's *planted* constants for the synthetic fit of part 3 (they change every year):

# %% tags=["params"]
def draw_params(rng):
    """Planted constants E, A, B, alpha, beta of a synthetic joint law, its noise level and seed."""
    return {"E": round(float(rng.uniform(1.5, 2.0)), 3), "A": round(float(rng.uniform(300, 600)), 1),
            "B": round(float(rng.uniform(300, 600)), 1), "alpha": round(float(rng.uniform(0.28, 0.40)), 3),
            "beta": round(float(rng.uniform(0.28, 0.40)), 3), "noise": 0.002, "seed": int(rng.integers(10**6))}


# %% [markdown]
# ## 1. Compute-optimal allocation
#
# **Exercise.** Minimize (7.5) on the curve $6Pn=C$. Eliminate $n=C/(6P)$ and set
# $dL/dP=0$. Show that at the optimum the two reducible terms are in a fixed ratio, find
# $P_{\rm opt}(C)$, $n_{\rm opt}(C)$ and $L_{\rm opt}(C)$ in closed form, and derive the
# compute exponent $\alpha_C$ of $L_{\rm opt}-E\propto C^{-\alpha_C}$ and the allocation exponents
# $P_{\rm opt}\propto C^{a}$, $n_{\rm opt}\propto C^{b}$. Check against the notes (Section 7.1):
# $1/\alpha_C=1/\alpha_P+1/\alpha_n$. Which resource gets the larger share of a growing budget?

# %% [markdown] tags=["answer"] points=4
# *Model answer.*
# $$
# L(P)=E+A\,P^{-\alpha}+B\Big(\frac{6P}{C}\Big)^{\beta},\qquad
# 0=P\,\frac{dL}{dP}=-\alpha A\,P^{-\alpha}+\beta B\,n^{-\beta} ,
# $$
# so at the optimum the reducible terms are **balanced**, $\alpha AP^{-\alpha}=\beta Bn^{-\beta}$
# ($P^2L''>0$ there: it is the minimum). With $n=C/(6P)$,
# $$
# P_{\rm opt}=G\Big(\frac C6\Big)^{\frac{\beta}{\alpha+\beta}},\qquad
# n_{\rm opt}=G^{-1}\Big(\frac C6\Big)^{\frac{\alpha}{\alpha+\beta}},\qquad
# G=\Big(\frac{\alpha A}{\beta B}\Big)^{\frac1{\alpha+\beta}},
# $$
# $$
# L_{\rm opt}-E=\Big(1+\frac\alpha\beta\Big)A\,P_{\rm opt}^{-\alpha}\;\propto\;C^{-\frac{\alpha\beta}{\alpha+\beta}} ,
# $$
# so $\alpha_C=\alpha\beta/(\alpha+\beta)$, i.e. $1/\alpha_C=1/\alpha_P+1/\alpha_n$ (with $\alpha_P=\alpha$,
# $\alpha_n=\beta$): a factor of $C$ is split between $P$ and $n$, so the compute exponent is
# smaller than both. The allocation exponents are $a=\beta/(\alpha+\beta)$ and
# $b=\alpha/(\alpha+\beta)$: the *larger* exponent goes with the *other* resource. The resource
# whose loss term decays faster needs less of a growing budget. The ratio
# $n_{\rm opt}/P_{\rm opt}=G^{-2}(C/6)^{(\alpha-\beta)/(\alpha+\beta)}$ does not depend on $E$.
#
# *Rubric (4 points):* balance condition (1); $P_{\rm opt}$, $n_{\rm opt}$ with $G$ (1); $\alpha_C$ (1);
# allocation exponents and which resource grows faster (1).

# %% [markdown]
# **Tasks.** Implement `compute_optimal_allocation`, `allocation_exponents`, `alpha_C` and
# `tokens_per_parameter` (the ratio $n_{\rm opt}/P_{\rm opt}$; it does not depend on $E$, which
# is why $E$ is not an argument).

# %% tags=["graded"]
def compute_optimal_allocation(C, E, A, B, alpha, beta):
    """Compute-optimal model size and data for L = E + A P^-alpha + B n^-beta at C = 6 P n (notes 7.1-7.2).

    Args:
        C: float > 0 or np.ndarray, training compute in FLOPs.
        E, A, B: floats, E >= 0 and A, B > 0, the constants of the joint law (7.5).
        alpha, beta: floats > 0, its exponents.
    Returns:
        (P_opt, n_opt, L_opt): tuple of three floats (np.ndarrays of C's shape if C is an
        array): the minimizer of L on the curve 6 P n = C and the minimal loss.
    """
    C = np.asarray(C, dtype=float)
    G = (alpha * A / (beta * B)) ** (1.0 / (alpha + beta))
    P = G * (C / 6.0) ** (beta / (alpha + beta))
    n = C / (6.0 * P)
    L = E + A * P ** (-alpha) + B * n ** (-beta)
    if C.ndim == 0:
        return float(P), float(n), float(L)
    return P, n, L


# %% tags=["graded"]
def allocation_exponents(alpha, beta):
    """Exponents (a, b) of the compute-optimal allocation P_opt ~ C^a, n_opt ~ C^b for the law (7.5).

    Args:
        alpha, beta: floats > 0, the parameter and data exponents of (7.5).
    Returns:
        (a, b): tuple of two floats with a + b = 1.
    """
    return float(beta / (alpha + beta)), float(alpha / (alpha + beta))


# %% tags=["graded"]
def alpha_C(alpha_P, alpha_n):
    """Compute exponent of the envelope (7.3) of an additive joint law with exponents alpha_P, alpha_n.

    Args:
        alpha_P, alpha_n: floats > 0 (or np.ndarrays of one shape).
    Returns:
        float (or np.ndarray): alpha_C, defined by L_opt(C) - E ~ C^-alpha_C (notes, Section 7.1).
    """
    alpha_P = np.asarray(alpha_P, dtype=float)
    alpha_n = np.asarray(alpha_n, dtype=float)
    out = alpha_P * alpha_n / (alpha_P + alpha_n)
    return float(out) if out.ndim == 0 else out


# %% tags=["graded"]
def tokens_per_parameter(C, A, B, alpha, beta):
    """Compute-optimal tokens per parameter n_opt / P_opt for L = E + A P^-alpha + B n^-beta, C = 6 P n.

    Args:
        C: float > 0 or np.ndarray, compute in FLOPs.
        A, B, alpha, beta: floats > 0, constants of (7.5) (E drops out).
    Returns:
        float (np.ndarray if C is an array).
    """
    C = np.asarray(C, dtype=float)
    G = (alpha * A / (beta * B)) ** (1.0 / (alpha + beta))
    out = G ** -2.0 * (C / 6.0) ** ((alpha - beta) / (alpha + beta))
    return float(out) if out.ndim == 0 else out


# %% tags=["check"]
@check
def check_allocation_budget():
    "the allocation spends the budget (6 P n = C) and balances the two terms (alpha A P^-alpha = beta B n^-beta)"
    P, n, L = compute_optimal_allocation(1e21, **CHINCHILLA)
    assert np.isclose(6 * P * n, 1e21), "6 P n should equal C"
    c = CHINCHILLA
    assert np.isclose(c["alpha"] * c["A"] * P ** -c["alpha"], c["beta"] * c["B"] * n ** -c["beta"])
    assert np.isclose(L, c["E"] + c["A"] * P ** -c["alpha"] + c["B"] * n ** -c["beta"])
    Ps, ns, Ls = compute_optimal_allocation(np.array([1e20, 1e22]), **CHINCHILLA)
    assert np.shape(Ps) == (2,) and Ls[1] < Ls[0]


@check
def check_exponent_rules():
    "allocation exponents sum to 1; alpha_C is below both exponents; tokens_per_parameter = n/P"
    a, b = allocation_exponents(0.34, 0.28)
    assert np.isclose(a + b, 1.0)
    assert alpha_C(0.3, 0.5) < 0.3, "a factor of C is split between P and n"
    P, n, _ = compute_optimal_allocation(3e22, **CHINCHILLA)
    assert np.isclose(tokens_per_parameter(3e22, 406.4, 410.7, 0.34, 0.28), n / P)


@check
def check_other_laws_self_consistent():
    "another law (E = 0.5, A = 80, B = 300, alpha = 0.5, beta = 0.3): budget, balance, and the exponents as log-log slopes"
    law = dict(E=0.5, A=80.0, B=300.0, alpha=0.5, beta=0.3)
    C = np.array([1e18, 1e24])
    P, n, L = compute_optimal_allocation(C, **law)
    assert np.allclose(6 * P * n, C) and np.allclose(0.5 * 80 * P ** -0.5, 0.3 * 300 * n ** -0.3), \
        "6 P n = C, and alpha A P^-alpha = beta B n^-beta at the optimum"
    slopes = np.diff(np.log(P)) / np.diff(np.log(C)), np.diff(np.log(n)) / np.diff(np.log(C))
    assert np.allclose(allocation_exponents(0.5, 0.3), np.ravel(slopes)), "P_opt ~ C^a and n_opt ~ C^b"
    assert np.isclose(alpha_C(0.5, 0.3), -(np.diff(np.log(L - 0.5)) / np.diff(np.log(C)))[0]), \
        "L_opt - E ~ C^-alpha_C"
    assert np.allclose(tokens_per_parameter(C, 80.0, 300.0, 0.5, 0.3), n / P), "n_opt / P_opt for this law"


# %% tags=["solution"]
# Independent checks: (i) the closed form against a numerical
# minimization of $L$ along $6Pn=C$ (bounded scalar minimization in $\log P$) and against a
# brute-force grid; (ii) $\alpha_C$ and the allocation exponents *measured* as log-log slopes
# of the computed optimum over 12 decades of $C$; (iii) Kaplan's numbers.
worst = 0.0
rng_s = np.random.default_rng(2)
for _ in range(50):
    E_s, A_s, B_s = rng_s.uniform(0, 3), 10 ** rng_s.uniform(1, 3), 10 ** rng_s.uniform(1, 3)
    al_s, be_s = rng_s.uniform(0.05, 1.0, 2)
    C_s = 10 ** rng_s.uniform(15, 26)

    def reducible_loss_along_budget(logP):  # E is a constant offset: leave it out for precision
        P = np.exp(logP)
        return A_s * P ** -al_s + B_s * (C_s / (6 * P)) ** -be_s

    res = optimize.minimize_scalar(reducible_loss_along_budget, bounds=(-20, np.log(C_s / 6) + 20),
                                   method="bounded", options={"xatol": 1e-12})
    P_cf, n_cf, L_cf = compute_optimal_allocation(C_s, E_s, A_s, B_s, al_s, be_s)
    worst = max(worst, abs(np.exp(res.x) / P_cf - 1))
    assert abs(E_s + res.fun - L_cf) <= 1e-12 * L_cf
assert worst < 1e-6
# a minimizer locates a flat minimum only to ~sqrt(round-off): the difference is printed as a bound
print("closed form vs bounded minimization in log P (50 random laws): max relative difference in P_opt < 1e-6")
# brute force on a dense grid, Chinchilla's law at C = 5.76e23
P_grid = np.logspace(8, 13, 500_001)
L_grid = 1.69 + 406.4 * P_grid ** -0.34 + 410.7 * (5.76e23 / (6 * P_grid)) ** -0.28
P_cf = compute_optimal_allocation(5.76e23, **CHINCHILLA)[0]
print(f"grid minimizer {P_grid[np.argmin(L_grid)]:.4e}, closed form {P_cf:.4e}")
assert abs(P_grid[np.argmin(L_grid)] / P_cf - 1) < 1e-4
# (ii) measured exponents
C_grid = np.logspace(12, 24, 13)
for name, law in [("Chinchilla", CHINCHILLA), ("Kaplan exponents", dict(E=0.0, A=1.0, B=1.0, alpha=0.076, beta=0.095))]:
    P_o, n_o, L_o = compute_optimal_allocation(C_grid, **law)
    s_P, s_n = np.polyfit(np.log(C_grid), np.log(P_o), 1)[0], np.polyfit(np.log(C_grid), np.log(n_o), 1)[0]
    s_L = -np.polyfit(np.log(C_grid), np.log(L_o - law["E"]), 1)[0]
    print(f"{name}: P ~ C^{s_P:.4f}, n ~ C^{s_n:.4f}, L - E ~ C^-{s_L:.4f}; formulas: "
          f"{allocation_exponents(law['alpha'], law['beta'])}, alpha_C = {alpha_C(law['alpha'], law['beta']):.4f}")
    assert np.allclose([s_P, s_n], allocation_exponents(law["alpha"], law["beta"]), atol=1e-10)
    assert abs(s_L - alpha_C(law["alpha"], law["beta"])) < 1e-10
print(f"Kaplan: alpha_C = 1/(1/0.076 + 1/0.095) = {alpha_C(0.076, 0.095):.4f} (measured: 0.050)")
assert abs(alpha_C(0.076, 0.095) - 0.0422) < 1e-4

# %% [markdown]
# **Chinchilla in numbers.** With the published constants the allocation exponents are
# $\beta/(\alpha+\beta)=0.45$ for $P$ and $\alpha/(\alpha+\beta)=0.55$ for $n$. (The paper's two
# IsoFLOP analyses gave $\approx0.50$ for both; the parametric fit, its "approach 3", leans
# slightly toward data.) Kaplan et al. had reported $P\propto C^{0.73}$. The figure draws the
# IsoFLOP profiles of the Chinchilla law (loss against model size at fixed compute), the
# optimum on each, and the allocation against compute for both sets of exponents.

# %% tags=["figure"]
try:
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.3))
    P_line = np.logspace(6, 12.5, 300)
    for C_val, color in zip([1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24], plt.cm.viridis(np.linspace(0, 0.9, 7))):
        L_line = CHINCHILLA["E"] + CHINCHILLA["A"] * P_line ** -CHINCHILLA["alpha"] \
            + CHINCHILLA["B"] * (C_val / (6 * P_line)) ** -CHINCHILLA["beta"]
        ok = C_val / (6 * P_line) > 1e6
        axes[0].semilogx(P_line[ok], L_line[ok], color=color, label=f"C = {C_val:.0e}")
        P_o, _, L_o = compute_optimal_allocation(C_val, **CHINCHILLA)
        axes[0].plot(P_o, L_o, "o", color=color)
    axes[0].set(xlabel="parameters $P$", ylabel="loss (nats/token)", ylim=(1.6, 4.5),
                title="IsoFLOP profiles of the Chinchilla law (dots: optimum)")
    axes[0].legend(fontsize=7)
    C_line = np.logspace(18, 26, 50)
    P_c, n_c, _ = compute_optimal_allocation(C_line, **CHINCHILLA)
    a_ch, b_ch = allocation_exponents(CHINCHILLA["alpha"], CHINCHILLA["beta"])
    axes[1].loglog(C_line, P_c, "C0", label=f"$P_{{opt}}$ (Chinchilla) ~ $C^{{{a_ch:.2f}}}$")
    axes[1].loglog(C_line, n_c, "C1", label=f"$n_{{opt}}$ (Chinchilla) ~ $C^{{{b_ch:.2f}}}$")
    axes[1].loglog(C_line, C_line / (6 * P_c) / P_c, "C2", label="tokens per parameter")
    axes[1].loglog([5.88e23], [7e10], "k*", ms=10, label="Chinchilla (70B, 1.4T)")
    axes[1].loglog([5.04e23], [2.8e11], "kx", ms=8, label="Gopher (280B, 300B)")
    axes[1].set(xlabel="compute $C$ (FLOPs)", title="compute-optimal allocation")
    axes[1].legend(fontsize=7)
    plt.tight_layout()
    plt.show()
    P_g, n_g, L_g = compute_optimal_allocation(5.76e23, **CHINCHILLA)
    print(f"At Gopher's budget C = 5.76e23: P_opt = {P_g:.3g}, n_opt = {n_g:.3g}, "
          f"{tokens_per_parameter(5.76e23, 406.4, 410.7, 0.34, 0.28):.0f} tokens per parameter, L = {L_g:.4f}")
except NotImplementedError as exc:
    print("figure skipped:", exc)

# %% [markdown]
# **Questions.** (a) Derive $\alpha_C$ for Kaplan's exponents and compare with the measured
# $0.050$. (b) With the additive law and Kaplan's exponents, what allocation exponent for $P$
# would you predict, and how does it compare with the $0.73$ Kaplan et al. reported? (c) With
# the Chinchilla constants, how many tokens per parameter are compute-optimal at Gopher's
# budget, $C=5.76\times10^{23}$, and how does that compare with the "20 tokens per parameter"
# rule and with Chinchilla itself (70B parameters, 1.4T tokens)? What does
# `tokens_per_parameter` do as $C$ grows, and why? (d) Why do frontier models now train on
# far more than 20 tokens per parameter?

# %% [markdown] tags=["answer"] points=6
# *Model answer.* **(a)** $\alpha_C=(0.076\cdot0.095)/(0.076+0.095)=0.0422$, against the
# measured $0.050$: roughly consistent; the gap comes from the form of Kaplan's fit (no
# irreducible term, a multiplicative joint law) and from how the envelope was measured (early
# stopping, learning-rate schedules not adapted to the run length).
#
# **(b)** $P\propto C^{\alpha_n/(\alpha_P+\alpha_n)}=C^{0.095/0.171}=C^{0.56}$, well below $0.73$.
# Kaplan's $0.73$ did not come from balancing the two terms of a joint law at a fixed budget
# but from their compute-efficient frontier measured with fixed (too long) warm-up and
# learning-rate schedules and a different count of embedding/last-layer compute; Porian et al.
# (2024) showed that correcting these artifacts brings it to the Chinchilla value. So the
# exponents alone do not reproduce Kaplan's allocation.
#
# **(c)** $P_{\rm opt}\approx3.2\times10^{10}$, $n_{\rm opt}\approx3.0\times10^{12}$, i.e. about $93$
# tokens per parameter; Chinchilla itself used $1.4\times10^{12}/7\times10^{10}=20$. The ratio
# $n/P\propto C^{(\alpha-\beta)/(\alpha+\beta)}=C^{0.097}$ grows with compute because
# $\alpha>\beta$: the parameter term decays faster, so the marginal FLOP goes preferentially
# to data. The "20 tokens per parameter" rule comes from the paper's IsoFLOP analyses
# (allocation exponents $\approx0.5$, ratio roughly constant); the parametric fit is in
# tension with them at the factor-of-a-few level (a later replication, Besiroglu et al. 2024,
# argued the published fit constants are imprecise and that a refit agrees with $\approx20$).
# Either way, Gopher (280B on 300B tokens, $\approx1$ token per parameter) was far from optimal
# in the direction of too large a model.
#
# **(d)** Training compute is not the only cost. A model is trained once and then served
# for many tokens; inference cost scales with $P$. Over-training a smaller model to the same
# loss costs extra training FLOPs but saves inference FLOPs, which the training-compute-optimal
# analysis does not see (and data repetition, multiple epochs, moves the budget further).
#
# *Rubric (6 points):* (a) $0.042$ and a sensible reason for the gap (1); (b) $0.56$ vs $0.73$
# and a reason (1); (c) the numbers, $\approx93$ vs 20 (1), why the ratio grows with $C$ (1),
# tension between fitting procedures acknowledged (1); (d) inference cost (1).

# %% [markdown]
# ## 2. Data-dependent exponents: the modality table
#
# Henighan et al. (2020) measured the parameter and compute exponents of autoregressive
# transformers on several modalities. The table ships with this assignment as
# `henighan2020_exponents.csv` (source in its header). If compute is allocated optimally
# under an additive law, $1/\alpha_C=1/\alpha_P+1/\alpha_n$ lets us infer the unmeasured data
# exponent,
# $$
# \alpha_n=\frac{\alpha_P\,\alpha_C}{\alpha_P-\alpha_C}\qquad(\alpha_C<\alpha_P),
# $$
# and there is **no** positive solution if $\alpha_C\ge\alpha_P$.
#
# **Task.** Implement `implied_alpha_n(alpha_P, alpha_C)`, returning `nan` where no positive
# $\alpha_n$ exists.

# %% tags=["graded"]
def implied_alpha_n(alpha_P, alpha_C):
    """Data exponent implied by alpha_P and alpha_C through 1/alpha_C = 1/alpha_P + 1/alpha_n.

    Args:
        alpha_P, alpha_C: floats > 0 or np.ndarrays of one shape.
    Returns:
        float (np.ndarray): alpha_P alpha_C / (alpha_P - alpha_C) where alpha_C < alpha_P,
        nan where alpha_C >= alpha_P (no positive alpha_n exists).
    """
    aP = np.asarray(alpha_P, dtype=float)
    aC = np.asarray(alpha_C, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(aC < aP, aP * aC / (aP - aC), np.nan)
    return float(out) if out.ndim == 0 else out


# %% tags=["check"]
@check
def check_implied_alpha_n():
    "implied_alpha_n inverts alpha_C, and has no solution when alpha_C >= alpha_P"
    assert np.isclose(implied_alpha_n(0.3, alpha_C(0.3, 0.5)), 0.5)
    assert np.isnan(implied_alpha_n(0.1, 0.12)) and np.isnan(implied_alpha_n(0.1, 0.1))
    out = implied_alpha_n(np.array([0.2, 0.2]), np.array([0.1, 0.3]))
    assert np.shape(out) == (2,) and np.isclose(out[0], 0.2) and np.isnan(out[1])


# %% tags=["provided"]
def load_modalities(path="henighan2020_exponents.csv"):
    """The shipped modality table as a dict {modality: (alpha_P, alpha_C)}; '#' lines are comments."""
    rows = {}
    with open(path) as fh:
        lines = [ln.strip() for ln in fh if ln.strip() and not ln.startswith("#")]
    for line in lines[1:]:  # the first non-comment line is the header
        name, aP, aC = line.rsplit(",", 2)
        rows[name] = (float(aP), float(aC))
    return rows


# %% tags=["figure"]
modalities = load_modalities()
names = list(modalities)
aP_tab = np.array([modalities[k][0] for k in names])
aC_tab = np.array([modalities[k][1] for k in names])
fig, axes = plt.subplots(1, 2, figsize=(12, 4.3))
grid = np.linspace(0, 0.3, 50)
axes[0].plot(grid, grid, "k-", lw=0.8, label=r"$\alpha_C=\alpha_P$ (bound of the harmonic rule)")
axes[0].plot(grid, grid / 2, "k--", lw=0.8, label=r"$\alpha_C=\alpha_P/2$ ($\alpha_n=\alpha_P$)")
for name, x, y in zip(names, aP_tab, aC_tab):
    axes[0].plot(x, y, "o")
    axes[0].annotate(name, (x, y), textcoords="offset points", xytext=(5, -3), fontsize=8)
axes[0].plot(KAPLAN["alpha_P"], KAPLAN["alpha_C"], "k*", label="Kaplan et al. (language)")
axes[0].set(xlabel=r"$\alpha_P$", ylabel=r"$\alpha_C$", title="Henighan et al. (2020): exponents by modality")
axes[0].legend(fontsize=8)
try:
    implied = implied_alpha_n(aP_tab, aC_tab)
    shown = np.where(np.isnan(implied), 0.0, implied)
    bars = axes[1].bar(names, shown, color=["C3" if np.isnan(v) else "C0" for v in implied])
    for bar, v in zip(bars, implied):
        axes[1].text(bar.get_x() + bar.get_width() / 2, bar.get_height() + 0.01,
                     "none" if np.isnan(v) else f"{v:.2f}", ha="center", fontsize=8)
    axes[1].set(ylabel=r"implied $\alpha_n$", title=r"$\alpha_n$ implied by $1/\alpha_C=1/\alpha_P+1/\alpha_n$")
    axes[1].tick_params(axis="x", labelrotation=20)
except NotImplementedError as exc:
    print("right panel skipped:", exc)
plt.tight_layout()
plt.show()

# %% tags=["solution"]
# Independent check: `implied_alpha_n` against a root finder applied
# to `alpha_C`, row by row.
for name, (aP_row, aC_row) in load_modalities().items():
    direct = implied_alpha_n(aP_row, aC_row)
    if aC_row < aP_row:
        root = optimize.brentq(lambda an: alpha_C(aP_row, an) - aC_row, 1e-6, 1e3, xtol=1e-14)
        print(f"{name:13s}: alpha_P = {aP_row:.3f}, alpha_C = {aC_row:.3f} -> alpha_n = {direct:.4f} "
              f"(root finder {root:.4f})")
        assert abs(root - direct) < 1e-9
    else:
        assert np.isnan(direct) and alpha_C(aP_row, 1e9) < aC_row  # even alpha_n -> infinity is not enough
        print(f"{name:13s}: alpha_P = {aP_row:.3f}, alpha_C = {aC_row:.3f} -> no positive alpha_n")

# %% [markdown]
# **Question.** What does the table say about where exponents come from (the notes' "central
# clue")? Which row cannot be described by an additive two-resource law with optimal
# allocation, and what might be going on there?

# %% [markdown] tags=["answer"] points=3
# *Model answer.* The exponents differ by a factor of 3–5 between modalities (language
# $\alpha_P=0.07$, small images and video $0.24$), while within a modality the architecture
# barely moves them: whatever sets the exponent lives in the data, not in the network. Under
# the harmonic rule the implied data exponents are about $0.15$ (language), $0.43$
# (images $32\times32$), $0.90$ (images $8\times8$) and $0.34$ (video): for language
# $\alpha_n>\alpha_P$, the ordering that Ex 7.1(e) found problematic for the quantization model.
# **Math** has $\alpha_C=0.17>\alpha_P=0.16$: no positive $\alpha_n$ satisfies the harmonic rule,
# since optimal allocation under an additive law always gives $\alpha_C<\min(\alpha_P,\alpha_n)$.
# Procedurally generated math is effectively unlimited and never repeated, so it is not
# data-limited in the sense of the law; its compute frontier is then governed by parameters
# and optimization time (steps), not by a data term, and the two exponents come from
# different fits with their own uncertainties (a difference of $0.01$ is within them).
#
# *Rubric (3 points):* exponents depend on the modality, not the architecture (1); math
# identified, with the reason $\alpha_C\le\alpha_P$ is required (1); a plausible explanation
# (unlimited data / steps-limited / fit uncertainty) (1).

# %% [markdown]
# ## 3. Fitting the joint law
#
# Chinchilla's constants came from fitting (7.5) to hundreds of training runs. Here the runs
# are synthetic: a $9\times9$ grid of $(P,n)$ with $P\in[10^6,10^{10}]$, $n\in[10^7,10^{12}]$, losses
# from (7.5) with this year's planted constants, times multiplicative noise
# $e^{\sigma\xi}$ ($\xi\sim\mathcal N(0,1)$, $\sigma=$`PARAMS["noise"]`).
#
# **Task.** Implement `fit_joint_law(P, n, L)`: the least-squares fit **in $\log L$**,
# $$
# \min_{E,A,B,\alpha,\beta}\ \sum_i\Big[\log L_i-\log\big(E+A\,P_i^{-\alpha}+B\,n_i^{-\beta}\big)\Big]^2,
# \qquad E,A,B>0 .
# $$
# The problem is non-convex and badly conditioned ($A$ and $\alpha$ trade off against each
# other). Hints: parametrize $E,A,B$ by their logarithms (then
# $\log(E+AP^{-\alpha}+Bn^{-\beta})$ is a `logaddexp` of three terms); for fixed exponents the
# model is *linear* in $(E,A,B)$, which gives good starting points from a small grid of
# $(\alpha,\beta)$; refine with `scipy.optimize.least_squares` and keep the best fit.

# %% tags=["provided"]
def synthetic_runs(E, A, B, alpha, beta, noise, seed):
    """Synthetic training runs: 9 x 9 grid, P in [1e6, 1e10], n in [1e7, 1e12] (log-spaced),
    L = (E + A P^-alpha + B n^-beta) * exp(noise * xi). Returns (P, n, L), each of shape (81,)."""
    P, n = np.meshgrid(np.logspace(6, 10, 9), np.logspace(7, 12, 9), indexing="ij")
    P, n = P.ravel(), n.ravel()
    L = E + A * P ** -alpha + B * n ** -beta
    return P, n, L * np.exp(noise * np.random.default_rng(seed).standard_normal(L.shape))


# %% tags=["graded"]
def fit_joint_law(P, n, L):
    """Least-squares fit of L ~ E + A P^-alpha + B n^-beta in log L (notes, Section 7.2).

    Minimizes sum_i [log L_i - log(E + A P_i^-alpha + B n_i^-beta)]^2 over E, A, B > 0
    and alpha, beta (the global minimum, not a nearby local one).

    Args:
        P, n, L: array-likes of positive floats, same shape (any shape), one entry per run.
    Returns:
        (E, A, B, alpha, beta): tuple of five floats.
    """
    P, n, L = (np.asarray(v, dtype=float).ravel() for v in (P, n, L))
    lP, ln_, lL = np.log(P), np.log(n), np.log(L)

    def residuals(theta):
        logE, logA, logB, a, b = theta
        return np.logaddexp(np.logaddexp(logE, logA - a * lP), logB - b * ln_) - lL

    best = None
    for a0 in [0.1, 0.25, 0.5, 1.0]:
        for b0 in [0.1, 0.25, 0.5, 1.0]:
            X = np.stack([np.ones_like(P), P ** -a0, n ** -b0], axis=1)
            coef, _ = optimize.nnls(X, L)                       # E, A, B at fixed exponents
            coef = np.maximum(coef, 1e-8 * L.max())
            fit = optimize.least_squares(residuals, np.r_[np.log(coef), a0, b0], method="lm",
                                         xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=10000)
            if best is None or fit.cost < best.cost:
                best = fit
    logE, logA, logB, a, b = best.x
    return float(np.exp(logE)), float(np.exp(logA)), float(np.exp(logB)), float(a), float(b)


# %% tags=["check"]
@check
def check_fit_noiseless():
    "fit_joint_law recovers Chinchilla's constants from noiseless synthetic runs"
    P, n, L = synthetic_runs(**CHINCHILLA, noise=0.0, seed=0)
    got = np.array(fit_joint_law(P, n, L))
    want = np.array([CHINCHILLA[k] for k in ["E", "A", "B", "alpha", "beta"]])
    assert np.allclose(got, want, rtol=1e-4), f"recovered {np.round(got, 4)}"
    law = dict(E=0.8, A=50.0, B=900.0, alpha=0.45, beta=0.35)
    P, n, L = synthetic_runs(**law, noise=0.0, seed=1)
    got = np.array(fit_joint_law(P.reshape(9, 9), n.reshape(9, 9), L.reshape(9, 9)))
    assert np.allclose(got, list(law.values()), rtol=1e-4), f"another planted law, 2-d arrays: recovered {np.round(got, 4)}"


# %% [markdown]
# The figure fits this year's synthetic runs and compares with the planted constants.

# %% tags=["figure"]
keys = ["E", "A", "B", "alpha", "beta"]
planted = {k: PARAMS[k] for k in keys}
P_runs, n_runs, L_runs = synthetic_runs(**planted, noise=PARAMS["noise"], seed=PARAMS["seed"])
fig, ax = plt.subplots(figsize=(7, 4.3))
colors = plt.cm.plasma(np.linspace(0, 0.85, 9))
for j, n_val in enumerate(np.unique(n_runs)):
    sel = n_runs == n_val
    ax.loglog(P_runs[sel], L_runs[sel], "o", ms=3, color=colors[j], label=f"n = {n_val:.0e}")
try:
    fitted = fit_joint_law(P_runs, n_runs, L_runs)
    P_fine = np.logspace(6, 10, 100)
    for j, n_val in enumerate(np.unique(n_runs)):
        ax.loglog(P_fine, fitted[0] + fitted[1] * P_fine ** -fitted[3] + fitted[2] * n_val ** -fitted[4],
                  "-", lw=0.8, color=colors[j])
    print("        " + "".join(f"{k:>10s}" for k in keys))
    print("planted " + "".join(f"{planted[k]:10.4g}" for k in keys))
    print("fitted  " + "".join(f"{v:10.4g}" for v in fitted))
except NotImplementedError as exc:
    print("fit skipped:", exc)
ax.set(xlabel="parameters $P$", ylabel="loss", title="synthetic runs (dots) and the fitted joint law (lines)")
ax.legend(fontsize=7, ncol=2)
plt.show()

# %% tags=["solution"]
# Independent checks: (i) a second fitting route, weighted nonlinear
# least squares on $L$ itself (`scipy.optimize.curve_fit` with relative errors $\sigma_i=L_i$,
# which agrees with the log fit to first order in the noise), started from the planted values;
# (ii) the spread of the log fit over 20 noise realizations, against the planted constants
# (unbiased within the scatter); (iii) the objective at the reference fit is not above the
# objective at the planted constants or at route (i)'s fit.
def log_objective(theta, P, n, L):
    E, A, B, a, b = theta
    return float(np.sum((np.log(L) - np.log(E + A * P ** -a + B * n ** -b)) ** 2))


theta_log = np.array(fit_joint_law(P_runs, n_runs, L_runs))
theta_true = np.array([planted[k] for k in keys])
(theta_cf, _) = optimize.curve_fit(lambda X, E, A, B, a, b: E + A * X[0] ** -a + B * X[1] ** -b,
                                   np.vstack([P_runs, n_runs]), L_runs, p0=theta_true, sigma=L_runs,
                                   maxfev=20000)
# 5 significant digits: the two routes differ in the 5th, and the 7th is the optimizers' stopping tolerance
print("route (i) curve_fit on L:", " ".join(f"{v:.5g}" for v in theta_cf),
      "\nlog fit:                 ", " ".join(f"{v:.5g}" for v in theta_log))
assert np.allclose(theta_cf, theta_log, rtol=0.05)
obj = {name: log_objective(th, P_runs, n_runs, L_runs) for name, th in
       [("log fit", theta_log), ("curve_fit", theta_cf), ("planted", theta_true)]}
print("log objective:", {k: f"{v:.6e}" for k, v in obj.items()})
assert obj["log fit"] <= min(obj.values()) * (1 + 1e-9)
reps = np.array([fit_joint_law(*synthetic_runs(**planted, noise=PARAMS["noise"], seed=1000 + s)) for s in range(20)])
mean, sd = reps.mean(axis=0), reps.std(axis=0, ddof=1)
for k, t, m, s in zip(keys, theta_true, mean, sd):
    print(f"{k:6s}: planted {t:9.4f}, mean of 20 fits {m:9.4f} +- {s / np.sqrt(20):.4f} (scatter {s:.4f})")
assert np.all(np.abs(mean - theta_true) < 5 * sd / np.sqrt(20) + 1e-9)

# %% tags=["tests"]
LAW_KEYS = ["E", "A", "B", "alpha", "beta"]
PLANTED = {k: ref.PARAMS[k] for k in LAW_KEYS}


def _random_law(rng):
    return dict(E=float(rng.uniform(0.0, 3.0)), A=float(10 ** rng.uniform(1, 3)), B=float(10 ** rng.uniform(1, 3)),
                alpha=float(rng.uniform(0.05, 0.9)), beta=float(rng.uniform(0.05, 0.9)))


def _log_objective(theta, P, n, L):
    E, A, B, a, b = theta
    with np.errstate(all="ignore"):
        return float(np.sum((np.log(L) - np.log(E + A * P ** -a + B * n ** -b)) ** 2))


@points(2)
def test_allocation_chinchilla(student):
    "compute_optimal_allocation with the published Chinchilla constants over 8 decades of compute"
    C = np.logspace(18, 26, 9)
    args = (1.69, 406.4, 410.7, 0.34, 0.28)
    assert_close(student.compute_optimal_allocation(C, *args), ref.compute_optimal_allocation(C, *args),
                 rtol=1e-7, atol=0, name="(P_opt, n_opt, L_opt)")


@points(2)
def test_allocation_random(student):
    "compute_optimal_allocation for random joint laws and budgets (scalar C)"
    rng = rng_for("allocation_random")
    for _ in range(4):
        law = _random_law(rng)
        C = float(10 ** rng.uniform(15, 25))
        assert_close(student.compute_optimal_allocation(C, *law.values()), ref.compute_optimal_allocation(C, *law.values()),
                     rtol=1e-7, atol=0, name=f"(P_opt, n_opt, L_opt) at C = {C:.2e}")


@points(1)
def test_allocation_exponents(student):
    "allocation_exponents for Chinchilla's and random exponents"
    rng = rng_for("allocation_exponents")
    for a, b in [(0.34, 0.28), (0.076, 0.095), *rng.uniform(0.05, 1.0, (2, 2))]:
        assert_close(student.allocation_exponents(float(a), float(b)), ref.allocation_exponents(float(a), float(b)),
                     rtol=1e-9, atol=0, name=f"allocation_exponents({a:.3f}, {b:.3f})")


@points(2)
def test_alpha_C(student):
    "alpha_C for Kaplan's exponents and random pairs"
    rng = rng_for("alpha_C")
    for aP, an in [(0.076, 0.095), *rng.uniform(0.02, 1.5, (3, 2))]:
        assert_close(student.alpha_C(float(aP), float(an)), ref.alpha_C(float(aP), float(an)), rtol=1e-9, atol=0,
                     name=f"alpha_C({aP:.3f}, {an:.3f})")
    aP, an = rng.uniform(0.02, 1.5, (2, 4))
    assert_close(student.alpha_C(aP, an), ref.alpha_C(aP, an), rtol=1e-9, atol=0, name="alpha_C on arrays")


@points(2)
def test_tokens_per_parameter(student):
    "tokens_per_parameter for the Chinchilla constants and random laws, scalar and array compute"
    rng = rng_for("tokens_per_parameter")
    C = np.logspace(19, 25, 4)
    assert_close(student.tokens_per_parameter(C, 406.4, 410.7, 0.34, 0.28),
                 ref.tokens_per_parameter(C, 406.4, 410.7, 0.34, 0.28), rtol=1e-7, atol=0,
                 name="tokens per parameter (Chinchilla constants)")
    for _ in range(2):
        law = _random_law(rng)
        C1 = float(10 ** rng.uniform(18, 25))
        args = (C1, law["A"], law["B"], law["alpha"], law["beta"])
        assert_close(student.tokens_per_parameter(*args), ref.tokens_per_parameter(*args), rtol=1e-7, atol=0,
                     name=f"tokens per parameter at C = {C1:.2e}")


@points(2)
def test_implied_alpha_n(student):
    "implied_alpha_n on the shipped modality table and on random pairs, including cases without a solution"
    rng = rng_for("implied_alpha_n")
    aP = np.array([0.070, 0.13, 0.24, 0.24, 0.16, *rng.uniform(0.05, 0.5, 4)])
    aC = np.array([0.048, 0.10, 0.19, 0.14, 0.17, *rng.uniform(0.02, 0.6, 4)])
    assert_close(student.implied_alpha_n(aP, aC), ref.implied_alpha_n(aP, aC), rtol=1e-9, atol=0,
                 name="implied alpha_n (nan where none exists)")
    assert_close(student.implied_alpha_n(0.076, 0.05), ref.implied_alpha_n(0.076, 0.05), rtol=1e-9, atol=0,
                 name="implied alpha_n for a scalar pair")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(3)
def test_fit_noiseless(student):
    "fit_joint_law recovers this year's planted constants (and a second law) from noiseless synthetic runs"
    rng = rng_for("fit_noiseless")
    second = dict(E=float(rng.uniform(1.0, 2.5)), A=float(rng.uniform(200, 800)), B=float(rng.uniform(200, 800)),
                  alpha=float(rng.uniform(0.25, 0.5)), beta=float(rng.uniform(0.25, 0.5)))
    for law in [PLANTED, second]:
        P, n, L = ref.synthetic_runs(**law, noise=0.0, seed=0)
        assert_close(student.fit_joint_law(P, n, L), tuple(law.values()), rtol=1e-3, atol=0,
                     name="(E, A, B, alpha, beta)")


# The data are random but the check is not statistical: a global minimizer of the same objective on
# the same runs reaches the reference's minimum (the variable-projection alternative agrees with the
# reference to 1e-13 in the objective and 1e-7 in the exponents on 30 data sets at noise 0.002 to
# 0.05), far inside rtol 1e-4 and 0.02 for any course seed.
@pytest.mark.reference_input  # inputs computed from a reference result
@points(3)
def test_fit_noisy_objective(student):
    "on noisy runs fit_joint_law reaches the least-squares minimum in log L (two data sets)"
    rng = rng_for("fit_noisy_objective")
    for noise in [ref.PARAMS["noise"], 0.01]:
        P, n, L = ref.synthetic_runs(**PLANTED, noise=noise, seed=int(rng.integers(10**6)))
        got = student.fit_joint_law(P, n, L)
        assert len(got) == 5, "fit_joint_law should return (E, A, B, alpha, beta)"
        want = ref.fit_joint_law(P, n, L)
        assert_close(_log_objective(got, P, n, L), _log_objective(want, P, n, L), rtol=1e-4, atol=1e-14,
                     name="objective at your fit")
        assert_close(got[3:], want[3:], rtol=0.02, atol=0, name="fitted exponents")



@points(1)
def test_allocation_edges(student):
    "compute_optimal_allocation and allocation_exponents: floats for a scalar C, a 2-d array of C, no irreducible loss (E = 0), extreme exponents, compute from 1e6 to 1e30"
    rng = rng_for("allocation_edges")
    law = _random_law(rng)
    law["E"] = 0.0
    C = float(10 ** rng.uniform(18, 24))
    got = student.compute_optimal_allocation(C, *law.values())
    assert isinstance(got, (tuple, list)) and len(got) == 3 and all(np.ndim(g) == 0 for g in got), \
        "for a scalar C compute_optimal_allocation should return a tuple of three floats"
    assert_close(got, ref.compute_optimal_allocation(C, *law.values()), rtol=1e-7, atol=0,
                 name="(P_opt, n_opt, L_opt) without an irreducible loss (E = 0)")
    C2 = 10 ** rng.uniform(15, 25, (2, 3))
    assert_close(student.compute_optimal_allocation(C2, *law.values()), ref.compute_optimal_allocation(C2, *law.values()),
                 rtol=1e-7, atol=0, name="(P_opt, n_opt, L_opt) on a 2-d array of C")
    Cw = np.array([1e6, 1e15, 1e30])
    for a, b in [(0.02, 2.0), (2.0, 0.02)]:
        args = (float(rng.uniform(0, 3)), float(10 ** rng.uniform(1, 3)), float(10 ** rng.uniform(1, 3)), a, b)
        assert_close(student.compute_optimal_allocation(Cw, *args), ref.compute_optimal_allocation(Cw, *args),
                     rtol=1e-7, atol=0, name=f"(P_opt, n_opt, L_opt) for alpha = {a}, beta = {b}")
        got = student.allocation_exponents(a, b)
        assert isinstance(got, (tuple, list)) and len(got) == 2 and all(np.ndim(g) == 0 for g in got), \
            "allocation_exponents should return a tuple of two floats"
        assert_close(got, ref.allocation_exponents(a, b), rtol=1e-9, atol=0, name=f"allocation_exponents({a}, {b})")


@points(1)
def test_tokens_and_alpha_C_edges(student):
    "tokens_per_parameter with equal exponents (no dependence on C) and on a 2-d array of C; alpha_C on 2-d arrays and extreme exponents; floats for scalars"
    rng = rng_for("tokens_and_alpha_C_edges")
    A, B, e = float(10 ** rng.uniform(1, 3)), float(10 ** rng.uniform(1, 3)), float(rng.uniform(0.1, 0.6))
    C = np.array([1e18, 1e21, 1e24, 1e27])
    assert_close(student.tokens_per_parameter(C, A, B, e, e), ref.tokens_per_parameter(C, A, B, e, e), rtol=1e-7, atol=0,
                 name="tokens per parameter with alpha = beta")
    C2 = 10 ** rng.uniform(18, 25, (3, 2))
    assert_close(student.tokens_per_parameter(C2, A, B, 0.34, 0.28), ref.tokens_per_parameter(C2, A, B, 0.34, 0.28),
                 rtol=1e-7, atol=0, name="tokens per parameter on a 2-d array of C")
    got = student.tokens_per_parameter(1e22, A, B, 0.34, 0.28)
    assert np.ndim(got) == 0, "tokens_per_parameter of a scalar C should be a float"
    assert_close(got, ref.tokens_per_parameter(1e22, A, B, 0.34, 0.28), rtol=1e-7, atol=0, name="tokens per parameter at C = 1e22")
    aP, an = 10 ** rng.uniform(-3, 1, (2, 2, 3))
    assert_close(student.alpha_C(aP, an), ref.alpha_C(aP, an), rtol=1e-9, atol=0, name="alpha_C on 2-d arrays")
    for x, y in [(1e-3, 10.0), (10.0, 1e-3), (0.3, 0.3)]:
        got = student.alpha_C(x, y)
        assert np.ndim(got) == 0, "alpha_C of two scalars should be a float"
        assert_close(got, ref.alpha_C(x, y), rtol=1e-9, atol=0, name=f"alpha_C({x}, {y})")


@points(1)
def test_implied_alpha_n_boundary(student):
    "implied_alpha_n at the boundary alpha_C = alpha_P (no solution), just inside it, on 2-d arrays, and a float for scalars"
    rng = rng_for("implied_alpha_n_boundary")
    P2 = rng.uniform(0.05, 0.5, (2, 3))
    C2 = P2 * np.array([[1.0, 0.5, 1.5], [1 - 1e-6, 0.9, 1.0]])
    assert_close(student.implied_alpha_n(P2, C2), ref.implied_alpha_n(P2, C2), rtol=1e-6, atol=0,
                 name="implied alpha_n on 2-d arrays, on both sides of and at the boundary")
    aP = float(rng.uniform(0.05, 0.5))
    got = student.implied_alpha_n(aP, aP)
    assert np.ndim(got) == 0, "implied_alpha_n of two scalars should be a float (nan where there is no solution)"
    assert_close(got, ref.implied_alpha_n(aP, aP), rtol=1e-9, atol=0, name="implied alpha_n at alpha_C = alpha_P")


# The fit is deterministic given the data: on the noise levels of these tests a global minimizer reaches
# the reference's minimum of the log objective (the reference and the variable-projection alternative
# agree to 1e-13 in the objective and 1e-7 in the exponents on 30 data sets at noise 0.002 to 0.05),
# far inside rtol 1e-4 and 0.02.
@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_fit_edges(student):
    "fit_joint_law on runs given as 9 x 9 grids (any shape) and at a larger noise level (5 %)"
    rng = rng_for("fit_edges")
    P, n, L = ref.synthetic_runs(**PLANTED, noise=0.05, seed=int(rng.integers(10**6)))
    got = student.fit_joint_law(P.reshape(9, 9), n.reshape(9, 9), L.reshape(9, 9))
    assert len(got) == 5, "fit_joint_law should return (E, A, B, alpha, beta)"
    want = ref.fit_joint_law(P, n, L)
    assert_close(_log_objective(got, P, n, L), _log_objective(want, P, n, L), rtol=1e-4, atol=1e-14,
                 name="objective at your fit (5 % noise, inputs of shape (9, 9))")
    assert_close(got[3:], want[3:], rtol=0.02, atol=0, name="fitted exponents")


# %% tags=["wrong"]
# wrong: allocation exponents swapped (P_opt grows as C^(alpha/(alpha+beta)))
# hint: Minimizing A P^{−α} + B n^{−β} at fixed compute C = 6Pn, the parameter count grows as
#   C^{β/(α+β)} and the data as C^{α/(α+β)} (eq. (7.3) for the law (7.5)): the exponent of P carries
#   β.
def compute_optimal_allocation(C, E, A, B, alpha, beta):
    C = np.asarray(C, dtype=float)
    G = (alpha * A / (beta * B)) ** (1.0 / (alpha + beta))
    P = G * (C / 6.0) ** (alpha / (alpha + beta))
    n = C / (6.0 * P)
    L = E + A * P ** -alpha + B * n ** -beta
    return (float(P), float(n), float(L)) if C.ndim == 0 else (P, n, L)


def allocation_exponents(alpha, beta):
    return alpha / (alpha + beta), beta / (alpha + beta)


# %% tags=["wrong"]
# wrong: budget C = P n (the factor 6 FLOPs per parameter and token forgotten)
# hint: The training budget is C = 6 P n FLOPs, six per parameter and token (Section 7.1): keep the 6
#   when you solve for n.
def compute_optimal_allocation(C, E, A, B, alpha, beta):
    C = np.asarray(C, dtype=float)
    G = (alpha * A / (beta * B)) ** (1.0 / (alpha + beta))
    P = G * C ** (beta / (alpha + beta))
    n = C / P
    L = E + A * P ** -alpha + B * n ** -beta
    return (float(P), float(n), float(L)) if C.ndim == 0 else (P, n, L)


def tokens_per_parameter(C, A, B, alpha, beta):
    G = (alpha * A / (beta * B)) ** (1.0 / (alpha + beta))
    return G ** -2.0 * np.asarray(C, dtype=float) ** ((alpha - beta) / (alpha + beta))


# %% tags=["wrong"]
# wrong: balance condition without the exponents, A P^-alpha = B n^-beta
# hint: At the optimum the marginal gains balance, α A P^{−α} = β B n^{−β} (the derivative of the loss
#   at fixed C vanishes, eq. (7.3)): the exponents appear as prefactors.
def compute_optimal_allocation(C, E, A, B, alpha, beta):
    C = np.asarray(C, dtype=float)
    G = (A / B) ** (1.0 / (alpha + beta))
    P = G * (C / 6.0) ** (beta / (alpha + beta))
    n = C / (6.0 * P)
    L = E + A * P ** -alpha + B * n ** -beta
    return (float(P), float(n), float(L)) if C.ndim == 0 else (P, n, L)


# %% tags=["wrong"]
# wrong: alpha_C from the P-term with the allocation exponent of n (alpha_P^2 / (alpha_P + alpha_n))
# hint: The compute exponent follows from L ∝ P^{−α_P} along the optimal path, where P ∝
#   C^{α_n/(α_P+α_n)}: α_C = α_P α_n/(α_P + α_n), the harmonic rule of Section 7.1.
def alpha_C(alpha_P, alpha_n):
    return alpha_P * alpha_P / (alpha_P + alpha_n)


# %% tags=["wrong"]
# wrong: tokens per parameter inverted (P / n)
# hint: tokens_per_parameter is n_opt/P_opt, training tokens per parameter, not its inverse.
def tokens_per_parameter(C, A, B, alpha, beta):
    G = (alpha * A / (beta * B)) ** (1.0 / (alpha + beta))
    return G ** 2.0 * (np.asarray(C, dtype=float) / 6.0) ** ((beta - alpha) / (alpha + beta))


# %% tags=["rewrite"]
# rewrite: the same inverted ratio, taken from the optimal allocation as P / n
def tokens_per_parameter(C, A, B, alpha, beta):
    P, n, _ = compute_optimal_allocation(C, 0.0, A, B, alpha, beta)
    return P / n


# %% tags=["wrong"]
# wrong: implied alpha_n from the formula without checking the sign (negative exponent for math)
# hint: Inverting the harmonic rule gives α_n = α_P α_C/(α_P − α_C), a valid (positive) exponent only
#   when α_C < α_P; otherwise no positive α_n fits and the answer is nan.
def implied_alpha_n(alpha_P, alpha_C):
    aP, aC = np.asarray(alpha_P, dtype=float), np.asarray(alpha_C, dtype=float)
    with np.errstate(divide="ignore"):
        return aP * aC / (aP - aC)



# %% tags=["wrong"]
# wrong: the branch test alpha_C <= alpha_P, so the boundary alpha_C = alpha_P gives inf instead of nan
# hint: A positive α_n exists only for α_C strictly below α_P: at α_C = α_P the harmonic rule needs
#   1/α_n = 0, which no exponent satisfies, so the answer is nan there too (Section 7.1).
def implied_alpha_n(alpha_P, alpha_C):
    aP, aC = np.asarray(alpha_P, dtype=float), np.asarray(alpha_C, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(aC <= aP, aP * aC / (aP - aC), np.nan)
    return float(out) if out.ndim == 0 else out

# %% tags=["wrong"]
# wrong: fits the law without the irreducible term E
# hint: The law (7.5) has an irreducible term, L = E + A P^{−α} + B n^{−β}: fit E as well, or the
#   exponents absorb it.
def fit_joint_law(P, n, L):
    P, n, L = (np.asarray(v, dtype=float).ravel() for v in (P, n, L))

    def residuals(theta):
        return np.logaddexp(theta[0] - theta[2] * np.log(P), theta[1] - theta[3] * np.log(n)) - np.log(L)

    fit = optimize.least_squares(residuals, [np.log(300.0), np.log(300.0), 0.3, 0.3], method="lm")
    return 0.0, float(np.exp(fit.x[0])), float(np.exp(fit.x[1])), float(fit.x[2]), float(fit.x[3])


# %% tags=["wrong"]
# wrong: least squares on L itself instead of log L, from a single generic start
# hint: Fit log L rather than L (the losses span a wide range, and residuals in L are dominated by the
#   worst runs), and start from several points: the fit of (7.5) has local minima (Section 7.1).
def fit_joint_law(P, n, L):
    P, n, L = (np.asarray(v, dtype=float).ravel() for v in (P, n, L))

    def residuals(theta):
        E, A, B, a, b = theta
        return E + A * P ** -a + B * n ** -b - L

    fit = optimize.least_squares(residuals, [1.0, 1.0, 1.0, 1.0, 1.0], bounds=(0, np.inf), max_nfev=200)
    return tuple(float(v) for v in fit.x)


# %% tags=["alternative"]
# alternative: allocation by numerical minimization in log P, explicit inversions, variable projection for the fit
def compute_optimal_allocation(C, E, A, B, alpha, beta):
    def one(c):
        f = lambda lp: A * np.exp(-alpha * lp) + B * (c / (6 * np.exp(lp))) ** -beta
        lp = optimize.minimize_scalar(f, bounds=(-50, np.log(c / 6) + 50), method="bounded",
                                      options={"xatol": 1e-13}).x
        lp = optimize.newton(lambda x: -alpha * A * np.exp(-alpha * x) + beta * B * (c / (6 * np.exp(x))) ** -beta,
                             lp, tol=1e-14)  # polish on the stationarity condition
        P = np.exp(lp)
        return P, c / (6 * P), E + f(lp)
    Cs = np.atleast_1d(np.asarray(C, dtype=float))
    out = np.array([one(c) for c in Cs.ravel()])
    if np.ndim(C) == 0:
        return tuple(float(v) for v in out[0])
    return tuple(out[:, j].reshape(Cs.shape) for j in range(3))


def allocation_exponents(alpha, beta):
    a = 1.0 / (1.0 + alpha / beta)
    return a, 1.0 - a


def alpha_C(alpha_P, alpha_n):
    return 1.0 / (1.0 / np.asarray(alpha_P, dtype=float) + 1.0 / np.asarray(alpha_n, dtype=float))


def tokens_per_parameter(C, A, B, alpha, beta):
    P, n, _ = compute_optimal_allocation(C, 0.0, A, B, alpha, beta)
    return np.asarray(n) / np.asarray(P)


def implied_alpha_n(alpha_P, alpha_C):
    aP, aC = np.broadcast_arrays(np.asarray(alpha_P, float), np.asarray(alpha_C, float))
    inv = 1.0 / aC - 1.0 / aP
    out = np.full(aP.shape, np.nan)
    out[inv > 0] = 1.0 / inv[inv > 0]
    return out if out.ndim else float(out)


def fit_joint_law(P, n, L):
    # variable projection: for each (alpha, beta) on a 24 x 24 grid, the best (E, A, B) by weighted
    # linear least squares (weights 1/L approximate the log objective); then trust-region
    # least squares on all five parameters in log space from the three best grid points
    P, n, L = (np.asarray(v, dtype=float).ravel() for v in (P, n, L))

    def res(theta):
        logE, logA, logB, a, b = theta
        return np.logaddexp(np.logaddexp(logE, logA - a * np.log(P)), logB - b * np.log(n)) - np.log(L)

    starts = []
    for a in np.linspace(0.05, 1.2, 24):
        for b in np.linspace(0.05, 1.2, 24):
            X = np.stack([np.ones_like(P), P ** -a, n ** -b], axis=1) / L[:, None]
            coef = np.maximum(optimize.nnls(X, np.ones_like(L))[0], 1e-10)
            th = np.r_[np.log(coef), a, b]
            starts.append((np.sum(res(th) ** 2), th))
    starts.sort(key=lambda t: t[0])
    fits = [optimize.least_squares(res, th, method="trf", x_scale="jac", xtol=1e-15, ftol=1e-15, gtol=1e-15,
                                   max_nfev=20000) for _, th in starts[:3]]
    best = min(fits, key=lambda f: f.cost).x
    return float(np.exp(best[0])), float(np.exp(best[1])), float(np.exp(best[2])), float(best[3]), float(best[4])
