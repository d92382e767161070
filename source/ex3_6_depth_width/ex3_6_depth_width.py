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
# # ex3_6_depth_width: L/N, the depth-to-width ratio, in deep linear networks and in the wild
#
# *Notes: Section 3.6 and Exercise 3.3; background in Sections 3.1–3.4 (notation, fan-in
# normalization, cumulants, the NNGP limit).*
#
# At fixed depth $L$ and width $N\to\infty$ a randomly initialized network is a Gaussian
# process (Section 3.4). The induction behind that statement needs $L$ fixed: every layer
# adds a little non-Gaussianity, of relative size $1/N$, and after $L$ layers these add up
# to something of size $L/N$. In this assignment you make that precise for the one model
# where everything is exactly computable, the **deep linear network** (DLN), and then look
# up where real language models sit.
#
# **Conventions** (notes, Section 3.1). $\mathcal N(0,s)$ has *variance* $s$. The
# fan-in normalization $1/\sqrt{N_{\ell-1}}$ is explicit in the network and all weights are
# of order one. `log` is the natural logarithm.
#
# **What you implement** (graded by hidden tests):
#
# | part | function | what |
# |---|---|---|
# | 1 | `dln_outputs(L, N, M, rng)` | sample the outputs of $M$ independent random DLNs |
# | 1 | `dln_output_norms(L, N, M, rng)` | $M$ samples of $\lvert f(x)\rvert^2$ |
# | 2 | `lognormal_prediction(L, N)` | mean and variance of $\log\lvert f\rvert^2$ at large $L,N$ |
# | 3 | `kappa4_ratio_exact(L, N)` | $\kappa_4/\kappa_2^2=(1+2/N)^L-1$ |
# | 3 | `kappa4_ratio_estimate(F)` | the same ratio estimated from sampled outputs |
# | 4 | `depth_to_width_table(configs, window)` | $L/N$ of real open-weight models (Exercise 3.3) |
#
# Functions that take `rng` accept either a `numpy.random.Generator` or an integer seed
# (`np.random.default_rng(rng)` handles both), so that a run can be reproduced. Written
# answers (cells reading *Your answer here.*) are graded by hand.

# %% tags=["setup"]
import csv

import numpy as np
from scipy import special
import matplotlib.pyplot as plt

# %% tags=["params"]
def draw_params(rng):
    """This year's (L, N) pairs for the histograms, and the width of the kappa_4 sweep."""
    widths = [16, 32, 64]
    ratios = [rng.uniform(0.1, 0.3), rng.uniform(0.5, 0.9), rng.uniform(1.2, 2.0)]
    pairs = [[int(round(r * N)), N] for r, N in zip(ratios, rng.permutation(widths).tolist())]
    return {"pairs": pairs,
            "kappa_width": int(rng.choice([12, 16, 20])),
            "seed": int(rng.integers(10_000))}


# %% tags=["provided"]
def as_generator(rng):
    """A numpy Generator from a Generator or an integer seed (or None)."""
    return np.random.default_rng(rng)


# %% [markdown]
# ## 1. The deep linear network and the norm of its output
#
# Take the DLN of Section 3.6: input and all layers of width $N$ (so $d=N$), no biases,
# identity activation, weights $w^{(\ell)}_{ij}\sim\mathcal N(0,1)$ i.i.d. (that is
# $\sigma_w=1$, LeCun initialization):
# $$
# z^{(0)} = x,\qquad z^{(\ell)} = \frac{1}{\sqrt N}\,w^{(\ell)}z^{(\ell-1)}\quad(\ell=1,\dots,L+1),\qquad
# f(x) = z^{(L+1)} = N^{-\frac{L+1}{2}}\,w^{(L+1)}\cdots w^{(1)}x\in\mathbb R^N .
# $$
# There are $L$ hidden layers and $L+1$ weight matrices, each $N\times N$ (the output has
# $N$ components here, as in the notes' direct analysis). Fix the input to a unit vector,
# $|x|=1$; by the rotation invariance of the Gaussian weights the law of $f(x)$ does not
# depend on its direction.
#
# **The norm recursion.** Conditional on $z^{(\ell-1)}$, each component
# $z^{(\ell)}_i=\frac1{\sqrt N}\sum_jw^{(\ell)}_{ij}z^{(\ell-1)}_j$ is a sum of independent
# Gaussians, so $z^{(\ell)}\,|\,z^{(\ell-1)}\sim\mathcal N\big(0,\tfrac1N|z^{(\ell-1)}|^2I_N\big)$,
# and the components are independent (different rows of $w^{(\ell)}$). Hence
# $$
# |z^{(\ell)}|^2 \;\overset{d}{=}\; |z^{(\ell-1)}|^2\,\frac{\chi^2_N}{N},\qquad
# |f(x)|^2 \;\overset{d}{=}\; \prod_{k=1}^{L+1}X_k ,\qquad X_k\overset{\rm iid}{\sim}\frac{\chi^2_N}{N}, \tag{1}
# $$
# where the factors are independent because the conditional law of $|z^{(\ell)}|^2/|z^{(\ell-1)}|^2$
# is the same $\chi^2_N/N$ whatever $z^{(\ell-1)}$ is. With $\mathbb E\,\chi^2_N=N$ and
# $\mathrm{Var}\,\chi^2_N=2N$, $\mathbb EX=1$ and $\mathbb EX^2=1+\frac2N$, so
# $$
# \mathbb E|f|^2 = 1,\qquad \mathbb E|f|^4=\Big(1+\frac2N\Big)^{L+1}. \tag{2}
# $$
# The *mean* is exactly preserved at every depth (that is what $\sigma_w=1$ was tuned for);
# the fluctuations are not.
#
# **Task.** Implement `dln_outputs` (the output vectors $f(x)\in\mathbb R^N$ of $M$
# independent networks) and `dln_output_norms` ($M$ samples of $|f(x)|^2$). You may
# multiply explicit random matrices, or use the conditional Gaussianity above to sample
# much faster; both are exact. Each of the $M$ samples must come from its own,
# independent draw of all the weights.

# %% tags=["graded"]
def dln_outputs(L, N, M, rng):
    """Outputs f(x) of M independent random deep linear networks, notes Section 3.6.

    Network: z^(0) = x, z^(l) = w^(l) z^(l-1) / sqrt(N) for l = 1, ..., L+1, f = z^(L+1),
    all L+1 weight matrices N x N with i.i.d. N(0, 1) entries (variance 1), input of unit
    norm |x| = 1 (any fixed direction, e.g. x = e_1).

    Arguments:
        L: int >= 0, number of hidden layers (L+1 weight matrices).
        N: int >= 2, width (input dimension, hidden widths and output dimension).
        M: int >= 1, number of independent networks.
        rng: numpy.random.Generator or int seed.

    Returns:
        array of shape (M, N): row m is the output vector f(x) of network m.
        Each component has variance E f_i^2 = 1/N.
    """
    rng = as_generator(rng)
    # Conditional Gaussianity: z^(l) | z^(l-1) ~ N(0, |z^(l-1)|^2 / N I_N), so only the norm
    # is carried through the hidden layers, |z^(l)|^2 = |z^(l-1)|^2 chi2_N / N (in logs).
    log_r2 = np.zeros(M)  # log |z^(0)|^2 = log |x|^2 = 0
    for _ in range(L):
        log_r2 += np.log(rng.chisquare(N, size=M) / N)
    # Output layer: f_i = (1/sqrt N) sum_j w_ij z^(L)_j ~ N(0, |z^(L)|^2 / N), i.i.d. in i.
    g = rng.standard_normal((M, N))
    return np.exp(0.5 * log_r2)[:, None] * g / np.sqrt(N)


def dln_output_norms(L, N, M, rng):
    """M samples of |f(x)|^2 for the deep linear network of `dln_outputs`, notes eq. (1).

    Arguments:
        L: int >= 0, number of hidden layers (L+1 weight matrices, all N x N, N(0, 1) entries).
        N: int >= 2, width.
        M: int >= 1, number of independent networks.
        rng: numpy.random.Generator or int seed.

    Returns:
        array of shape (M,) of positive floats, distributed as a product of L+1 independent
        chi^2_N / N variables; E |f|^2 = 1.
    """
    rng = as_generator(rng)
    log_norm2 = np.log(rng.chisquare(N, size=(L + 1, M)) / N).sum(axis=0)
    return np.exp(log_norm2)


# %% tags=["check"]
@check
def check_dln_shapes():
    "dln_outputs has shape (M, N), dln_output_norms shape (M,), and a seed reproduces a run"
    F = np.asarray(dln_outputs(3, 5, 7, 0))
    assert F.shape == (7, 5), "dln_outputs should return an (M, N) array"
    r = np.asarray(dln_output_norms(3, 5, 7, 0))
    assert r.shape == (7,) and np.all(r > 0), "dln_output_norms should return M positive numbers"
    assert np.allclose(dln_output_norms(3, 5, 7, 1), dln_output_norms(3, 5, 7, 1)), \
        "the same integer seed should give the same samples"
    assert np.allclose(dln_outputs(2, 4, 3, np.random.default_rng(5)), dln_outputs(2, 4, 3, 5)), \
        "a Generator and the integer seed it was made from should give the same samples"


@check
def check_dln_mean_norm():
    "the mean of |f|^2 is 1 at any depth (sigma_w = 1 preserves the kernel on average)"
    for L, N in [(0, 6), (5, 10)]:
        r = np.asarray(dln_output_norms(L, N, 40_000, 1))
        se = r.std() / np.sqrt(r.size)
        assert abs(r.mean() - 1) < 5 * se, f"mean |f|^2 = {r.mean():.3f} for L={L}, N={N}, expected 1"
        F = np.asarray(dln_outputs(L, N, 40_000, 2))
        rF = (F**2).sum(axis=1)
        assert abs(rF.mean() - 1) < 5 * rF.std() / np.sqrt(rF.size), "dln_outputs: mean |f|^2 should be 1"
    r = np.asarray(dln_output_norms(0, 4, 40_000, 3))
    assert abs(np.var(r) / 0.5 - 1) < 0.1, \
        "L = 0: |f|^2 is exactly chi^2_N / N, of variance 2/N = 0.5 at N = 4 (sample the exact law, not (4))"


# %% [markdown]
# ## 2. $\log|f|^2$ is a sum: the log-normal law
#
# Taking logs turns the product (1) into a sum of $L+1$ i.i.d. terms. Since
# $X=\chi^2_N/N$ is Gamma distributed with shape $N/2$ and scale $2/N$, its log has the
# exact moments
# $$
# \mathbb E\log X = \psi\big(\tfrac N2\big)-\log\tfrac N2 = -\frac1N-\frac1{3N^2}+O(N^{-3}),\qquad
# \mathrm{Var}\log X = \psi'\big(\tfrac N2\big) = \frac2N+\frac2{N^2}+O(N^{-3}), \tag{3}
# $$
# with $\psi$ the digamma function (use $\psi(k)=\log k-\frac1{2k}-\frac1{12k^2}+\dots$ and
# $\psi'(k)=\frac1k+\frac1{2k^2}+\dots$). So $\log X=\mathcal N(-\frac1N,\frac2N)+O(N^{-2})$, as
# in the notes, and by the central limit theorem, at large $N$ and $L$ with $L/N$ fixed,
# $$
# \log|f(x)|^2 \;\overset{d}{\approx}\; \mathcal N\Big(-\frac LN,\;2\frac LN\Big),
# \qquad |f(x)|^2\approx e^{\mathcal N(-L/N,\,2L/N)} . \tag{4}
# $$
# (The $L+1$ factors give $-(L+1)/N$ and $2(L+1)/N$; the difference, like the $O(L/N^2)$
# terms of (3), is subleading when $L,N\to\infty$ at fixed $L/N$.) The typical size of
# $|f|^2$, its median $e^{-L/N}$, goes to zero with $L/N$, while its mean stays exactly 1:
# the mean is carried by rarer and rarer, larger and larger outliers.
#
# **Task.** Implement `lognormal_prediction(L, N)`, the mean and variance in (4).

# %% tags=["graded"]
def lognormal_prediction(L, N):
    """Large-L, N prediction for log |f(x)|^2 in the deep linear network, notes eq. (4).

    log |f|^2 is approximately Gaussian with mean -L/N and variance 2 L/N (leading order at
    large L and N with L/N fixed; O(1/N) corrections dropped).

    Arguments:
        L: number of hidden layers (float or int, or an array).
        N: width (float or int, or an array broadcastable with L).

    Returns:
        (mean, variance): a tuple of two floats (or two arrays of the broadcast shape).
        The second entry is the variance, not the standard deviation.
    """
    ratio = np.asarray(L, dtype=float) / np.asarray(N, dtype=float)
    if ratio.ndim == 0:
        return float(-ratio), float(2.0 * ratio)
    return -ratio, 2.0 * ratio


# %% tags=["check"]
@check
def check_lognormal_prediction():
    "the prediction depends on L/N only and its variance is twice minus its mean"
    m1, v1 = lognormal_prediction(10, 40)
    m2, v2 = lognormal_prediction(20, 80)
    assert np.isclose(m1, m2) and np.isclose(v1, v2), "the prediction should depend on L/N only"
    assert v1 > 0 and np.isclose(v1, -2 * m1), "variance = -2 x mean for this log-normal law"


# %% [markdown]
# **Figure.** Histograms of $\log|f|^2$ for this year's $(L,N)$ pairs (`PARAMS["pairs"]`),
# with the Gaussian (4) and, dashed, the Gaussian with the exact moments (3) of the $L+1$
# factors.

# %% tags=["figure"]
from scipy import stats

fig, axes = plt.subplots(1, len(PARAMS["pairs"]), figsize=(11, 3.2))
try:
    for ax, (L, N) in zip(axes, PARAMS["pairs"]):
        logs = np.log(dln_output_norms(L, N, 20_000, PARAMS["seed"]))
        ax.hist(logs, bins=60, density=True, color="0.75")
        mean, var = lognormal_prediction(L, N)
        grid = np.linspace(logs.min(), logs.max(), 300)
        ax.plot(grid, stats.norm.pdf(grid, mean, np.sqrt(var)), label=r"$\mathcal{N}(-L/N,\,2L/N)$")
        m_ex = (L + 1) * (special.digamma(N / 2) - np.log(N / 2))
        v_ex = (L + 1) * special.polygamma(1, N / 2)
        ax.plot(grid, stats.norm.pdf(grid, m_ex, np.sqrt(v_ex)), "--", label="exact moments (3)")
        ax.set_title(f"L = {L}, N = {N}, L/N = {L / N:.2f}")
        ax.set_xlabel(r"$\log|f(x)|^2$")
    axes[0].legend(fontsize=8)
    plt.tight_layout()
    plt.show()
except NotImplementedError:
    plt.close(fig)
    print("dln_output_norms or lognormal_prediction is not implemented yet")

# %% [markdown]
# **Written question.** At $L/N=2$, what is the median of $|f|^2$, what is its mean, and what
# fraction of networks have $|f|^2$ above the mean? What does that mean for training a deep
# network initialized this way?

# %% [markdown] tags=["answer"] points=3
# **Model answer.** By (4), $\log|f|^2\approx\mathcal N(-2,4)$: the median is
# $e^{-2}\approx0.14$, while the mean is exactly $\mathbb E|f|^2=1$ (eq. 2; the log-normal
# gives $e^{\mu+\sigma^2/2}=e^{-2+2}=1$ too). The fraction above the mean is
# $P(\log|f|^2>0)=P(Z>2/\sqrt{4}=1)\approx0.16$. A typical network has a much smaller output
# (and, by the same argument for the backward pass, much smaller gradients) than the
# average one, and a few have huge ones: the average over initializations is no longer
# representative, fluctuations from one initialization to the next are of order one, and
# a learning rate tuned "on average" is wrong for almost every individual network. The
# infinite-width description (a Gaussian process with kernel preserved layer to layer) is
# only good when $L/N\ll1$.
#
# *Rubric:* median $e^{-2}$ and mean 1 (1 pt); fraction $\approx16\%$ (1 pt); the typical
# vs average point and its consequence for trainability (1 pt).

# %% [markdown]
# ## 3. The fourth cumulant grows like $(1+2/N)^L$
#
# Now look at individual output components. Let $G:=|z^{(L)}|^2/N$ be the (random)
# kernel of the last layer, the stochastic kernel $K^{(L+1)}$ of Section 3.4 at $\sigma_w=1$.
# Conditional on $z^{(L)}$ the $N$ components $f_i$ are i.i.d. $\mathcal N(0,G)$, and by (1)
# $G=\frac1N\prod_{k=1}^LX_k$ (only $L$ factors: the last layer is Gaussian given $G$). So
# $$
# \kappa_2 := \mathbb E f_i^2 = \mathbb EG = \frac1N,\qquad
# \mathbb E\,f_i^2f_j^2 = \mathbb E\,G^2 = \frac1{N^2}\Big(1+\frac2N\Big)^L\quad(i\neq j).
# $$
# The joint cumulants of the output components have the tensor structure
# $\kappa(f_i,f_j,f_k,f_l)=\kappa_4\,(\delta_{ij}\delta_{kl}+\delta_{ik}\delta_{jl}+\delta_{il}\delta_{jk})$
# (Wick-like, by the $O(N)$ symmetry of the output), and the coefficient $\kappa_4$ of the notes
# is the connected correlator of two *different* components,
# $$
# \kappa_4 := \kappa(f_i,f_i,f_j,f_j) = \mathbb Ef_i^2f_j^2-\mathbb Ef_i^2\,\mathbb Ef_j^2
# = \mathrm{Var}\,G,\qquad
# \frac{\kappa_4}{\kappa_2^2} = \Big(1+\frac2N\Big)^L-1 . \tag{5}
# $$
# (For a single component the fourth cumulant is $\kappa(f_i,f_i,f_i,f_i)=3\kappa_4$: the
# three pairings all contribute.) At fixed $L/N$ and large $N$,
# $$
# \Big(1+\frac2N\Big)^L-1 = e^{L\log(1+2/N)}-1 = \big(e^{2L/N}-1\big)-\frac1N\,\frac{2L}N\,e^{2L/N}+O(N^{-2}),
# $$
# which is small, $\approx 2L/N$, for $L/N\ll1$ and explodes exponentially for $L/N\gg1$.
#
# **Tasks.** Implement `kappa4_ratio_exact(L, N)`, eq. (5); it must stay accurate when
# $2L/N$ is tiny (write $(1+2/N)^L-1$ with `log1p` and `expm1`, otherwise $1+2/N$ rounds
# away the answer). Implement `kappa4_ratio_estimate(F)`, the estimator of (5) from the
# output vectors of $M$ independent networks (rows of `F`):
# $$
# \hat\kappa_2 = \frac1{MK}\sum_{m,i}F_{mi}^2,\qquad
# \hat\kappa_4 = \frac1M\sum_m\frac1{K(K-1)}\sum_{i\neq j}F_{mi}^2F_{mj}^2-\hat\kappa_2^2,\qquad
# \text{return }\hat\kappa_4/\hat\kappa_2^2 ,
# $$
# with $K$ the number of columns (all ordered pairs of distinct components of the same
# network). Use $\sum_{i\ne j}a_ia_j=(\sum_ia_i)^2-\sum_ia_i^2$ rather than a double loop.

# %% tags=["graded"]
def kappa4_ratio_exact(L, N):
    """kappa_4 / kappa_2^2 = (1 + 2/N)^L - 1 for the output of a deep linear network, notes (5).

    kappa_4 is the connected correlator E[f_i^2 f_j^2] - E[f_i^2] E[f_j^2] of two different
    output components, kappa_2 = E[f_i^2].

    Arguments:
        L: number of hidden layers (int, float or array).
        N: width (int, float or array broadcastable with L).

    Returns:
        float (or array of the broadcast shape). Must be accurate to relative 1e-9 even
        when 2L/N is tiny (e.g. L = 1, N = 1e12), where computing (1 + 2/N)**L - 1 directly
        loses all digits.
    """
    L = np.asarray(L, dtype=float)
    N = np.asarray(N, dtype=float)
    out = np.expm1(L * np.log1p(2.0 / N))
    return float(out) if out.ndim == 0 else out


def kappa4_ratio_estimate(F):
    """Estimate kappa_4 / kappa_2^2 from sampled output vectors, notes (5).

    Arguments:
        F: array of shape (M, K), K >= 2; row m holds K output components of network m
           (M independent networks).

    Returns:
        float: khat_4 / khat_2^2 with
            khat_2 = mean of F**2 over all M*K entries,
            khat_4 = (1/M) sum_m [ (1/(K(K-1))) sum_{i != j} F_mi^2 F_mj^2 ] - khat_2^2.
    """
    F2 = np.asarray(F, dtype=float) ** 2
    M, K = F2.shape
    k2 = F2.mean()
    row_sum = F2.sum(axis=1)
    pair_mean = (row_sum**2 - (F2**2).sum(axis=1)) / (K * (K - 1))
    k4 = pair_mean.mean() - k2**2
    return float(k4 / k2**2)


# %% tags=["check"]
@check
def check_kappa4_exact():
    "kappa4_ratio_exact: 0 at L = 0, 2L/N at small L/N, exact values at N = 2, arrays"
    assert np.isclose(kappa4_ratio_exact(0, 7), 0.0)
    assert np.isclose(kappa4_ratio_exact(3, 2), 7.0), "(1 + 2/2)^3 - 1 = 7"
    assert np.isclose(kappa4_ratio_exact(1, 1e12), 2e-12, rtol=1e-6), \
        "no cancellation at tiny 2L/N: use log1p / expm1"
    out = np.asarray(kappa4_ratio_exact(np.array([1, 2, 3]), 10))
    assert out.shape == (3,) and np.all(np.diff(out) > 0), "should work on arrays and grow with L"


@check
def check_kappa4_estimate():
    "kappa4_ratio_estimate: about 0 for Gaussian samples, about 1/2 for a common exponential scale"
    rng = np.random.default_rng(3)
    g = rng.standard_normal((200_000, 4))
    assert abs(kappa4_ratio_estimate(g)) < 0.02, "independent Gaussian components have kappa_4 = 0"
    # f_i = sqrt(G) g_i with G exponential: Var G / (E G)^2 = 1
    G = rng.exponential(size=(200_000, 1))
    assert abs(kappa4_ratio_estimate(np.sqrt(G) * g) - 1.0) < 0.05, \
        "a shared random variance G should give Var(G) / E(G)^2"
    assert np.isclose(kappa4_ratio_estimate(3.0 * g[:1000]), kappa4_ratio_estimate(g[:1000])), \
        "the ratio should not depend on the overall scale"


# %% [markdown]
# **Figure.** $\kappa_4/\kappa_2^2$ estimated from sampled DLNs (with standard errors from
# 20 batches) against the exact formula (5), its leading form $e^{2L/N}-1$ and the
# small-$L/N$ line $2L/N$, at fixed width $N$ = `PARAMS["kappa_width"]`. Toward $L/N=1$ the
# estimate tends to fall *below* the exact value, with growing error bars: $\kappa_4$ is a
# moment of $G^2$, and at large $L/N$ it is carried by rare networks with a huge kernel
# (Section 2 above), which a finite sample mostly misses.

# %% tags=["figure"]
try:
    Nk = PARAMS["kappa_width"]
    Ls = np.unique(np.round(np.linspace(1, Nk, 7)).astype(int))
    est, err = [], []
    for L in Ls:
        F = np.asarray(dln_outputs(int(L), Nk, 20_000, PARAMS["seed"] + int(L)))
        batches = [kappa4_ratio_estimate(b) for b in np.array_split(F, 20)]
        est.append(kappa4_ratio_estimate(F))
        err.append(np.std(batches) / np.sqrt(len(batches)))
    grid = np.linspace(0, Ls.max(), 200)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.errorbar(Ls / Nk, est, yerr=err, fmt="o", label="sampled DLNs")
    ax.plot(grid / Nk, kappa4_ratio_exact(grid, Nk), label=r"exact $(1+2/N)^L-1$")
    ax.plot(grid / Nk, np.expm1(2 * grid / Nk), "--", label=r"$e^{2L/N}-1$")
    ax.plot(grid / Nk, 2 * grid / Nk, ":", label=r"$2L/N$")
    ax.set_xlabel("$L/N$")
    ax.set_ylabel(r"$\kappa_4/\kappa_2^2$")
    ax.set_title(f"Non-Gaussianity of a deep linear network, N = {Nk}")
    ax.legend(fontsize=8)
    plt.show()
except NotImplementedError:
    print("dln_outputs, kappa4_ratio_estimate or kappa4_ratio_exact is not implemented yet")

# %% [markdown]
# **Written question.** Derive (5) from the recursion $G_\ell=G_{\ell-1}X_\ell$. Then explain
# in one or two sentences why it is $L/N$, not $L$ or $N$ separately, that controls
# non-Gaussianity.

# %% [markdown] tags=["answer"] points=3
# **Model answer.** $G_\ell := |z^{(\ell)}|^2/N$ obeys $G_\ell=G_{\ell-1}X_\ell$ with $X_\ell$
# independent of $G_{\ell-1}$, $\mathbb EX=1$, $\mathbb EX^2=1+2/N$. Hence $\mathbb EG_\ell=\mathbb
# EG_{\ell-1}$ and $\mathbb EG_\ell^2=(1+\frac2N)\mathbb EG_{\ell-1}^2$, starting from the
# deterministic $G_0=|x|^2/N$: $\mathbb EG_L=G_0$, $\mathbb EG_L^2=(1+\frac2N)^LG_0^2$. Given $G_L$
# the outputs are i.i.d. $\mathcal N(0,G_L)$, so $\mathbb Ef_i^2=\mathbb EG_L$ and, for $i\neq j$,
# $\mathbb Ef_i^2f_j^2=\mathbb EG_L^2$; thus $\kappa_4=\mathrm{Var}\,G_L$ and
# $\kappa_4/\kappa_2^2=(1+2/N)^L-1$. Each layer multiplies the second moment of the kernel by
# $1+2/N$: a relative fluctuation of order $1/N$ per layer, and these compound
# multiplicatively, $(1+2/N)^L=e^{L\log(1+2/N)}\approx e^{2L/N}$. Depth accumulates what
# width suppresses, and the exponent is their ratio.
#
# *Rubric:* the two moment recursions (1 pt); $\kappa_4=\mathrm{Var}\,G$ from the conditional
# Gaussianity (1 pt); the compounding-per-layer explanation (1 pt).

# %% [markdown]
# ## 4. Exercise 3.3: depth-to-width ratios in the wild
#
# The file `model_configs.csv` (shipped with this notebook) lists the depth $L$ (number of
# transformer blocks, `n_layers`) and the width $N$ (model dimension, `d_model`) of open-weight
# language models, with the year, the approximate parameter count (billions) and the source
# of every row: the model's `config.json` and the architecture table of its paper. The
# helper below reads it into a list of dicts, one per model.
#
# **Task.** Implement `depth_to_width_table(configs, window=(0.005, 0.01))`: the ratio $L/N$
# of each model, its range within each family, and whether it lies in the window that the
# notes quote for today's large models, $0.005\le L/N\le0.01$ (endpoints included).

# %% tags=["provided"]
def load_model_configs(path="model_configs.csv"):
    """Rows of the shipped table as dicts: family, model (str), year, n_layers, d_model (int),
    params (float, billions), source (str). Lines starting with '#' are comments."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))
    out = []
    for row in rows:
        out.append({"family": row["family"], "model": row["model"], "year": int(row["year"]),
                    "n_layers": int(row["n_layers"]), "d_model": int(row["d_model"]),
                    "params": float(row["params"]), "source": row["source"]})
    return out


# %% tags=["graded"]
def depth_to_width_table(configs, window=(0.005, 0.01)):
    """Depth-to-width ratios L/N of a list of model configurations, notes Exercise 3.3.

    Arguments:
        configs: list of dicts, one per model, each with at least the keys
                 "family" (str), "model" (str), "n_layers" (int, the depth L) and
                 "d_model" (int, the width N); other keys are ignored.
        window: (low, high), the "controlled correlations" window for L/N (inclusive).

    Returns:
        dict with
          "model":     list of the model names, in the order of configs;
          "L_over_N":  array of shape (len(configs),), n_layers / d_model as floats;
          "by_family": dict family -> (min, max) of L/N over that family's models;
          "in_window": array of bools, low <= L/N <= high for each model.
    """
    models = [c["model"] for c in configs]
    ratio = np.array([float(c["n_layers"]) / float(c["d_model"]) for c in configs])
    by_family = {}
    for c, r in zip(configs, ratio):
        lo, hi = by_family.get(c["family"], (np.inf, -np.inf))
        by_family[c["family"]] = (min(lo, float(r)), max(hi, float(r)))
    low, high = window
    return {"model": models, "L_over_N": ratio, "by_family": by_family,
            "in_window": (ratio >= low) & (ratio <= high)}


# %% tags=["check"]
@check
def check_depth_to_width_table():
    "two made-up models: ratios, family ranges and the window test"
    rows = [{"family": "A", "model": "a1", "n_layers": 12, "d_model": 1200},
            {"family": "A", "model": "a2", "n_layers": 40, "d_model": 5000},
            {"family": "B", "model": "b1", "n_layers": 10, "d_model": 2000}]
    out = depth_to_width_table(rows)
    assert list(out["model"]) == ["a1", "a2", "b1"]
    assert np.allclose(out["L_over_N"], [0.01, 0.008, 0.005]), "L/N should be n_layers / d_model"
    assert np.allclose(out["by_family"]["A"], (0.008, 0.01)) and np.allclose(out["by_family"]["B"], (0.005, 0.005))
    assert list(np.asarray(out["in_window"], dtype=bool)) == [True, True, True], "the window includes its endpoints"
    assert not np.asarray(depth_to_width_table(rows, window=(0.0085, 0.0095))["in_window"], dtype=bool).any(), \
        "with the window (0.0085, 0.0095) no model is inside"
    one = depth_to_width_table([{"family": "C", "model": "c1", "n_layers": 48, "d_model": 1600, "params": 1.5}])
    assert np.allclose(one["L_over_N"], [0.03]) and np.allclose(one["by_family"]["C"], (0.03, 0.03)), \
        "one model: its family's range is its own ratio (other keys are ignored)"
    assert not np.asarray(one["in_window"], dtype=bool).any(), "0.03 is outside the default window"


# %% tags=["figure"]
try:
    configs = load_model_configs()
    table = depth_to_width_table(configs)
    families = list(dict.fromkeys(c["family"] for c in configs))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2))
    for k, fam in enumerate(families):
        idx = sorted((i for i, c in enumerate(configs) if c["family"] == fam), key=lambda i: configs[i]["params"])
        size = [configs[i]["params"] for i in idx]
        ratio = np.asarray(table["L_over_N"])[idx]
        year = np.array([configs[i]["year"] for i in idx]) + 0.12 * (k - len(families) / 2)
        ax1.plot(size, ratio, "o-", color=f"C{k}", label=fam)
        ax2.plot(year, ratio, "o", color=f"C{k}", label=fam)
    for ax in (ax1, ax2):
        ax.axhspan(0.005, 0.01, color="0.9", zorder=0)
        ax.set_yscale("log")
        ax.set_ylabel("$L/N$ (blocks / model dimension)")
    ax1.set_xscale("log")
    ax1.set_xlabel("parameters (billions)")
    ax1.set_title("Depth-to-width ratio against size (shaded: 0.005-0.01)")
    ax2.set_xlabel("year of release")
    ax2.set_xticks(sorted({c["year"] for c in configs}))
    ax2.set_title("... and against the year")
    ax1.legend(fontsize=8, ncol=2)
    plt.tight_layout()
    plt.show()
    print(f"{'model':16s} {'L':>4s} {'N':>6s}   L/N")
    for c, r in zip(configs, table["L_over_N"]):
        print(f"{c['model']:16s} {c['n_layers']:4d} {c['d_model']:6d}   {r:.4f}")
except NotImplementedError:
    print("depth_to_width_table is not implemented yet")
except FileNotFoundError:
    print("model_configs.csv is not in the working directory; download it with the notebook")

# %% [markdown]
# **Written question (Exercise 3.3).** From the table and figure above: how much does $L/N$ vary
# across families, across sizes within a family, and across the years? Is everyone training in
# the "controlled correlations" window? And is the DLN estimate $\kappa_4/\kappa_2^2\approx2L/N$
# a fair description of a transformer?

# %% [markdown] tags=["answer"] points=4
# **Model answer.** (Numbers from the table above.) All 35 models have $L/N$ between
# $0.0070$ (Pythia-12B, $36/5120$) and $0.030$ (GPT-2 XL, $48/1600$): a spread of about a
# factor of 4, and always $L/N\ll1$; no one is anywhere near $L/N\sim1$.
#
# *Across sizes within a family* the trend depends on the family. GPT-2 was scaled mostly in
# depth, so its ratio *grows* with size ($0.016\to0.030$). Qwen2.5 falls from $0.027$ (0.5B)
# to $0.0098$ (72B), but not monotonically ($0.0078$ at 7B, $0.0125$ at 32B); Pythia jumps
# around ($0.023$ at 410M, $0.0078$ at 1B, $0.0070$ at 12B). The Llama families are almost
# constant: $0.0077$–$0.0098$ from 1B to 405B.
#
# *Across families at similar size* there is little spread: at 7–8B almost everyone uses
# $L=32$, $N=4096$ ($0.0078$: Pythia-6.9B, LLaMA, Llama 2, Mistral, Llama 3, and Qwen2.5-7B with
# $28/3584$), and the 65–72B models all use $80/8192\approx0.0098$. Gemma 2 sits slightly
# above the window ($0.010$–$0.012$).
#
# *Across the years* the change is mostly a change of size: the 2019 GPT-2 models were
# small and relatively deep ($0.016$–$0.030$); the large 2023–2024 models sit at
# $0.007$–$0.0125$; small modern models (Qwen2.5-0.5B to 3B, Pythia-410M) are again at
# $0.018$–$0.027$. So the notes' "$L/N\approx0.005$–$0.01$" holds for most large
# ($\gtrsim7$B) models (20 of the 35 rows are in the window, all of them with at least 1B
# parameters), not for small ones, and not for every large one (Qwen2.5-32B, Gemma-2-9B).
#
# The DLN formula would put $\kappa_4/\kappa_2^2\approx2L/N\approx0.015$–$0.06$: small but
# finite correlations, the "controlled" window. This is only a heuristic for a transformer:
# a block is not one linear layer (it holds attention and an MLP of width $\approx4N$),
# residual connections and layer norms change the recursion (a residual stream adds
# fluctuations instead of multiplying them), and the constant in front of $L/N$ depends on
# the architecture and the activation (for ReLU layers it is $5/N$ per layer instead of
# $2/N$).
#
# *Rubric:* correct ratios and their range (1 pt); trend with size within families, with
# GPT-2 as the exception (1 pt); small-vs-large and year discussion, window holds for large
# models only (1 pt); caveat on what the DLN number means for a transformer (1 pt).

# %% tags=["solution"]
# Independent cross-checks
#
# 1. `dln_outputs` / `dln_output_norms` (conditional-Gaussian sampling of the norms) against
#    **explicit products of Gaussian matrices** (two-sample Kolmogorov–Smirnov tests on
#    $|f|^2$ and on single components), and their moments against the exact formulas (2) and
#    (3) (digamma / trigamma), within a few standard errors.
# 2. `kappa4_ratio_estimate` on sampled networks against `kappa4_ratio_exact`, and against a
#    third route that uses only the norms: from (1), $\mathbb E|f|^4/(\mathbb E|f|^2)^2=(1+2/N)^{L+1}$,
#    so $\kappa_4/\kappa_2^2 = \mathbb E|f|^4/\big[(1+\tfrac2N)(\mathbb E|f|^2)^2\big]-1$.
# 3. `kappa4_ratio_exact` against exact rational arithmetic (`fractions.Fraction`) and the
#    notes' expansion: the remainder after $(e^{2L/N}-1)-\frac1N\frac{2L}Ne^{2L/N}$ decays as
#    $N^{-2}$ at fixed $L/N$ (fitted log-log slope).
# 4. `lognormal_prediction` against the exact moments (3): the gap is $O(1/N)$ at fixed
#    $L/N$ (slope $-1$).
# 5. The shipped table: every row is re-read with the `csv` module independently of
#    `load_model_configs`, ratios recomputed with exact fractions, and the family ranges by
#    `itertools.groupby`.
# 1. conditional-Gaussian sampling vs explicit matrix products (KS tests) and exact moments
from scipy import stats

def dln_explicit(L, N, M, rng):
    """Outputs of M DLNs by multiplying explicit N x N Gaussian matrices (x = e_1)."""
    z = np.zeros((M, N))
    z[:, 0] = 1.0
    for _ in range(L + 1):
        W = rng.standard_normal((M, N, N))
        z = np.einsum("mij,mj->mi", W, z) / np.sqrt(N)
    return z


rng = np.random.default_rng(1234)
for L, N in [(3, 6), (8, 10)]:
    Fx = dln_explicit(L, N, 6000, rng)
    Fs = np.asarray(dln_outputs(L, N, 6000, rng))
    rs = np.asarray(dln_output_norms(L, N, 6000, rng))
    p1 = stats.ks_2samp((Fx**2).sum(1), rs).pvalue
    p2 = stats.ks_2samp(Fx[:, 0], Fs[:, 1]).pvalue
    p3 = stats.ks_2samp((Fx**2).sum(1), (Fs**2).sum(1)).pvalue
    print(f"L={L}, N={N}: KS p-values explicit vs dln_output_norms {p1:.2f}, "
          f"component f_1 {p2:.2f}, |f|^2 from dln_outputs {p3:.2f}")
    assert min(p1, p2, p3) > 1e-3

for L, N in [(4, 8), (20, 16), (40, 64)]:
    r = np.asarray(dln_output_norms(L, N, 200_000, rng))
    logs = np.log(r)
    m_exact = (L + 1) * (special.digamma(N / 2) - np.log(N / 2))
    v_exact = (L + 1) * special.polygamma(1, N / 2)
    se_m = np.sqrt(v_exact / r.size)
    se_v = v_exact * np.sqrt(2 / r.size) * 1.5
    z4 = (np.mean(r**2) - (1 + 2 / N) ** (L + 1)) / (np.std(r**2) / np.sqrt(r.size))
    print(f"L={L}, N={N}: E log|f|^2 = {logs.mean():.4f} (exact {m_exact:.4f} +- {se_m:.4f}), "
          f"Var = {logs.var():.4f} (exact {v_exact:.4f}), E|f|^2 = {r.mean():.4f}, E|f|^4 z-score {z4:+.2f}")
    assert abs(logs.mean() - m_exact) < 5 * se_m and abs(logs.var() - v_exact) < 5 * se_v and abs(z4) < 5

# %% tags=["solution"]
# 2. kappa_4 estimate on sampled networks vs the exact formula vs the norms-only route
for L, N in [(2, 8), (6, 12), (16, 16)]:
    F = np.asarray(dln_outputs(L, N, 100_000, rng))
    batches = [kappa4_ratio_estimate(b) for b in np.array_split(F, 25)]
    se = np.std(batches) / 5
    r = np.asarray(dln_output_norms(L, N, 400_000, rng))
    via_norms = np.mean(r**2) / ((1 + 2 / N) * np.mean(r) ** 2) - 1
    exact = kappa4_ratio_exact(L, N)
    print(f"L={L}, N={N}: sampled {kappa4_ratio_estimate(F):.4f} +- {se:.4f}, via norms {via_norms:.4f}, "
          f"exact {exact:.4f}; single-component 4th cumulant / 3: "
          f"{(np.mean(F**4) - 3 * np.mean(F**2) ** 2) / (3 * np.mean(F**2) ** 2):.4f}")
    assert abs(kappa4_ratio_estimate(F) - exact) < 5 * se + 1e-3
    assert abs(via_norms - exact) < 0.1 * exact + 0.02

# %% tags=["solution"]
# 3. exact arithmetic and the notes' large-N expansion (remainder ~ N^-2 at fixed L/N)
from fractions import Fraction

for L, N in [(1, 3), (7, 5), (30, 64), (200, 1000)]:
    exact_q = (1 + Fraction(2, N)) ** L - 1
    assert abs(kappa4_ratio_exact(L, N) - float(exact_q)) <= 1e-12 * float(exact_q)
assert np.isclose(kappa4_ratio_exact(1, 1e12), 2e-12, rtol=1e-10)
ratio_fixed = 0.75
Ns = np.array([40, 80, 160, 320, 640, 1280])
remainder = [abs(kappa4_ratio_exact(ratio_fixed * N, N)
                 - (np.expm1(2 * ratio_fixed) - 2 * ratio_fixed / N * np.exp(2 * ratio_fixed))) for N in Ns]
slope = np.polyfit(np.log(Ns), np.log(remainder), 1)[0]
print(f"L/N = {ratio_fixed}: remainder of the notes' expansion decays as N^{slope:.3f} (expected -2)")
assert abs(slope + 2) < 0.05

# %% tags=["solution"]
# 4. lognormal_prediction vs the exact moments (3): gap O(1/N) at fixed L/N
gaps = []
for N in Ns:
    L = ratio_fixed * N
    m, v = lognormal_prediction(L, N)
    m_exact = (L + 1) * (special.digamma(N / 2) - np.log(N / 2))
    v_exact = (L + 1) * special.polygamma(1, N / 2)
    gaps.append(max(abs(m - m_exact), abs(v - v_exact)))
slope = np.polyfit(np.log(Ns), np.log(gaps), 1)[0]
print(f"lognormal_prediction vs exact moments at L/N = {ratio_fixed}: gap ~ N^{slope:.3f} (expected -1)")
assert abs(slope + 1) < 0.05

# %% tags=["solution"]
# 5. the shipped table, re-read and recomputed independently
import itertools

with open("model_configs.csv") as fh:
    raw = [line for line in fh if line.strip() and not line.startswith("#")]
header = raw[0].strip().split(",")
rows_raw = [dict(zip(header, next(csv.reader([line])))) for line in raw[1:]]
configs_check = load_model_configs()
table_check = depth_to_width_table(configs_check)
assert len(rows_raw) == len(configs_check) and all(r["source"] for r in rows_raw)
for r, val in zip(rows_raw, table_check["L_over_N"]):
    assert float(Fraction(int(r["n_layers"]), int(r["d_model"]))) == val
for fam, group in itertools.groupby(sorted(rows_raw, key=lambda r: r["family"]), key=lambda r: r["family"]):
    vals = [Fraction(int(r["n_layers"]), int(r["d_model"])) for r in group]
    assert np.allclose(table_check["by_family"][fam], (float(min(vals)), float(max(vals))))
print(f"{len(configs_check)} models, L/N from {min(table_check['L_over_N']):.4f} to {max(table_check['L_over_N']):.4f}; "
      f"in the window 0.005-0.01: {int(np.sum(table_check['in_window']))}")
for fam, (lo, hi) in table_check["by_family"].items():
    print(f"  {fam:8s} {lo:.4f} - {hi:.4f}")

# %% tags=["tests"]
def _exact_log_moments(L, N):
    from scipy import special as sp
    return (L + 1) * (sp.digamma(N / 2) - np.log(N / 2)), (L + 1) * sp.polygamma(1, N / 2)


# False-fail budget 1e-4 (any stream, any course seed): log |f|^2 is a sum of L+1 = 5 i.i.d. logs of
# Gamma variables, so over M = 20000 networks its sample mean has standard error sqrt(v/M) = 0.0084
# and its sample variance 0.0146 (trigamma and tetragamma moments); the tolerances are 5.3 and 6.2
# standard errors, the estimators Gaussian to well within that at this M: about 1e-7 and 1e-9.
@points(2)
def test_dln_output_norms_log_moments(student):
    "dln_output_norms: mean and variance of log |f|^2 over many networks (statistical)"
    rng = rng_for("dln_output_norms_log_moments")
    L, N, M = 4, 8, 20_000
    r = np.asarray(student.dln_output_norms(L, N, M, int(rng.integers(2**31))), dtype=float)
    assert r.shape == (M,), "dln_output_norms should return an array of shape (M,)"
    assert np.all(r > 0), "|f|^2 must be positive"
    logs = np.log(r)
    m_ex, v_ex = _exact_log_moments(L, N)
    # about 5 standard errors: sd(mean) = sqrt(v/M) ~ 0.008, sd(var) ~ v sqrt(2/M) ~ 0.014
    assert_close(logs.mean(), m_ex, rtol=0, atol=0.045, name=f"mean of log |f|^2 (L={L}, N={N})")
    assert_close(logs.var(), v_ex, rtol=0, atol=0.09, name=f"variance of log |f|^2 (L={L}, N={N})")


# False-fail budget 1e-4 (any stream, any course seed): two sample means of |f|^2 over 20000 networks,
# each within 5 exact standard errors (Var |f|^2 = (1 + 2/N)^(L+1) - 1, eq. 2); the skewness of the
# means is at most 0.04, so each check fails with probability below 1e-6: 2e-6 together.
@points(1)
def test_dln_output_norms_mean(student):
    "dln_output_norms: the sample mean of |f|^2 at two depths (statistical)"
    rng = rng_for("dln_output_norms_mean")
    for L, N in [(0, 5), (6, 12)]:
        r = np.asarray(student.dln_output_norms(L, N, 20_000, int(rng.integers(2**31))), dtype=float)
        sd = np.sqrt((1 + 2 / N) ** (L + 1) - 1)
        assert_close(r.mean(), 1.0, rtol=0, atol=5 * sd / np.sqrt(r.size), name=f"mean |f|^2 (L={L}, N={N})")


@points(1)
def test_dln_seed_reproducible(student):
    "dln_outputs and dln_output_norms accept an integer seed and reproduce a run"
    rng = rng_for("dln_seed_reproducible")
    seed = int(rng.integers(2**31))
    a = np.asarray(student.dln_output_norms(3, 6, 50, seed))
    b = np.asarray(student.dln_output_norms(3, 6, 50, seed))
    assert a.shape == (50,) and np.array_equal(a, b), "same seed, same samples (dln_output_norms)"
    F1 = np.asarray(student.dln_outputs(2, 5, 40, seed))
    F2 = np.asarray(student.dln_outputs(2, 5, 40, seed))
    assert F1.shape == (40, 5) and np.array_equal(F1, F2), "same seed, same samples (dln_outputs)"


# False-fail budget 1e-4 (any stream, any course seed): the mean of |f|^2 / N over 20000 networks is
# checked at 5 exact standard errors, and E f_1 f_2 = 0 at atol 0.006, 6.4 standard errors of that
# mean (standard error 0.00094, measured over 300 runs; sqrt(E G^2 / M) exactly); below 1e-6 together.
@points(1)
def test_dln_outputs_component_variance(student):
    "dln_outputs: shape and the variance of single output components (statistical)"
    rng = rng_for("dln_outputs_component_variance")
    L, N, M = 3, 10, 20_000
    F = np.asarray(student.dln_outputs(L, N, M, int(rng.integers(2**31))), dtype=float)
    assert F.shape == (M, N), "dln_outputs should return an array of shape (M, N)"
    row = (F**2).sum(axis=1)  # = |f|^2, mean 1, variance (1 + 2/N)^(L+1) - 1
    sd = np.sqrt((1 + 2 / N) ** (L + 1) - 1)
    assert_close(row.mean() / N, 1.0 / N, rtol=0, atol=5 * sd / np.sqrt(M) / N, name="E f_i^2")
    assert_close(np.mean(F[:, 0] * F[:, 1]), 0.0, rtol=0, atol=0.006, name="E f_1 f_2")


# False-fail budget 1e-4 (any stream, any course seed): the estimator of kappa_4 / kappa_2^2 from
# M = 20000 networks at (L, N) = (4, 16) has standard deviation 0.0162 and skewness 0.19 (300
# independent runs of the reference; its bias is below 0.002); atol 0.08 is 4.9 standard deviations:
# about 1e-6 with that skewness.
@points(2)
def test_dln_outputs_kappa4(student):
    "dln_outputs: the connected four-point function of the sampled outputs (statistical)"
    rng = rng_for("dln_outputs_kappa4")
    L, N, M = 4, 16, 20_000
    F = np.asarray(student.dln_outputs(L, N, M, int(rng.integers(2**31))), dtype=float)
    assert F.shape == (M, N), "dln_outputs should return an array of shape (M, N)"
    # the estimator's standard deviation at this (L, N, M) is about 0.016
    assert_close(ref.kappa4_ratio_estimate(F), ref.kappa4_ratio_exact(L, N), rtol=0, atol=0.08,
                 name=f"kappa_4 / kappa_2^2 of your samples (L={L}, N={N}, M={M})")


@points(2)
def test_kappa4_ratio_estimate(student):
    "kappa4_ratio_estimate on given arrays of samples (several shapes, non-Gaussian data)"
    rng = rng_for("kappa4_ratio_estimate")
    for M, K in [(500, 2), (300, 7), (1000, 16)]:
        G = rng.gamma(shape=float(rng.uniform(1, 5)), size=(M, 1))
        F = np.sqrt(G) * rng.standard_normal((M, K)) + 0.1 * rng.standard_t(5, size=(M, K))
        assert_close(student.kappa4_ratio_estimate(F), ref.kappa4_ratio_estimate(F), rtol=1e-8, atol=1e-10,
                     name=f"estimate for F of shape {(M, K)}")


@points(1)
def test_kappa4_ratio_exact(student):
    "kappa4_ratio_exact on scalars and arrays of (L, N)"
    rng = rng_for("kappa4_ratio_exact")
    L = rng.integers(0, 200, size=12).astype(float)
    N = rng.integers(2, 400, size=12).astype(float)
    assert_close(student.kappa4_ratio_exact(L, N), ref.kappa4_ratio_exact(L, N), rtol=1e-9, atol=1e-14,
                 name="kappa4_ratio_exact(L array, N array)")
    assert_close(student.kappa4_ratio_exact(5, 3), ref.kappa4_ratio_exact(5, 3), rtol=1e-9, atol=1e-14,
                 name="kappa4_ratio_exact(5, 3)")


@points(1)
def test_kappa4_ratio_exact_tiny(student):
    "kappa4_ratio_exact stays accurate when 2L/N is tiny"
    for L, N in [(1, 1e12), (3, 1e10), (2, 5e8)]:
        assert_close(student.kappa4_ratio_exact(L, N), ref.kappa4_ratio_exact(L, N), rtol=1e-9, atol=0,
                     name=f"kappa4_ratio_exact({L}, {N:g})")


# False-fail budget 1e-4 (any stream, any course seed): these laws are exact. With no hidden layer
# (L = 0) |f|^2 is chi^2_N / N and the components are i.i.d. N(0, 1/N); at the smallest width N = 2
# and L = 1, |f|^2 is a product of two independent Exp(1) variables, whose CDF is
# 1 - 2 sqrt(t) K_1(2 sqrt(t)). For a correct sampler each one-sample Kolmogorov-Smirnov p-value is
# uniform (continuous laws, exact distribution of the statistic at these sizes), so each of the three
# checks at p < 2e-5 fails with probability 2e-5: 6e-5 together (union bound).
@points(1)
def test_dln_law_at_the_edges(student):
    "dln_output_norms and dln_outputs: the law of the samples with no hidden layer and at the smallest width (statistical)"
    from scipy import stats
    from scipy import special as sp
    rng = rng_for("dln_law_at_the_edges")
    N0 = int(rng.integers(2, 9))
    r0 = np.asarray(student.dln_output_norms(0, N0, 5000, int(rng.integers(2**31))), dtype=float)
    assert r0.shape == (5000,), "dln_output_norms should return an array of shape (M,)"
    p0 = stats.kstest(r0, stats.gamma(a=N0 / 2, scale=2 / N0).cdf).pvalue
    assert p0 > 2e-5, f"with L = 0 (one weight matrix) |f|^2 should be distributed as chi^2_N / N (N = {N0})"
    F0 = np.asarray(student.dln_outputs(0, N0, 1000, int(rng.integers(2**31))), dtype=float)
    assert F0.shape == (1000, N0), "dln_outputs should return an array of shape (M, N)"
    pf = stats.kstest(np.sqrt(N0) * F0.ravel(), "norm").pvalue
    assert pf > 2e-5, f"with L = 0 the output components should be independent N(0, 1/N) (N = {N0})"
    r1 = np.asarray(student.dln_output_norms(1, 2, 5000, int(rng.integers(2**31))), dtype=float)
    assert r1.shape == (5000,) and np.all(r1 > 0), "dln_output_norms should return M positive numbers"
    p1 = stats.kstest(r1, lambda t: 1.0 - 2.0 * np.sqrt(t) * sp.k1(2.0 * np.sqrt(t))).pvalue
    assert p1 > 2e-5, "at N = 2, L = 1, |f|^2 should be the exact product of L + 1 = 2 factors chi^2_2 / 2"


@points(1)
def test_dln_single_network_and_smallest_sizes(student):
    "dln_outputs and dln_output_norms with one network (M = 1), no hidden layer (L = 0) and the smallest width N = 2"
    rng = rng_for("dln_single_network_and_smallest_sizes")
    for L, N in [(0, 2), (0, 5), (3, 2), (int(rng.integers(1, 6)), int(rng.integers(2, 7)))]:
        F = np.asarray(student.dln_outputs(L, N, 1, int(rng.integers(2**31))))
        assert F.shape == (1, N) and np.all(np.isfinite(F)), f"dln_outputs({L}, {N}, 1, seed): one row of N numbers"
        r = np.asarray(student.dln_output_norms(L, N, 1, int(rng.integers(2**31))))
        assert r.shape == (1,) and np.all(r > 0), f"dln_output_norms({L}, {N}, 1, seed): an array of one positive number"


@points(1)
def test_scalar_results_and_zero_depth(student):
    "lognormal_prediction and kappa4_ratio_exact: plain numbers for scalar arguments, at L = 0 and at the smallest width N = 2"
    rng = rng_for("scalar_results_and_zero_depth")
    N = int(rng.integers(2, 500))
    for L, NN in [(0, N), (int(rng.integers(1, 40)), 2), (int(rng.integers(1, 300)), N)]:
        m, v = student.lognormal_prediction(L, NN)
        assert np.shape(m) == () and np.shape(v) == (), \
            f"lognormal_prediction({L}, {NN}) should be a tuple of two floats, not arrays"
        assert_close((m, v), ref.lognormal_prediction(L, NN), rtol=1e-9, atol=1e-12,
                     name=f"lognormal_prediction({L}, {NN})")
        k = student.kappa4_ratio_exact(L, NN)
        assert np.shape(k) == (), f"kappa4_ratio_exact({L}, {NN}) should be a float, not an array"
        assert_close(k, ref.kappa4_ratio_exact(L, NN), rtol=1e-9, atol=1e-14, name=f"kappa4_ratio_exact({L}, {NN})")


@points(1)
def test_lognormal_prediction(student):
    "lognormal_prediction at this year's (L, N) pairs, at random ones and on arrays"
    rng = rng_for("lognormal_prediction")
    pairs = [tuple(p) for p in ref.PARAMS["pairs"]] + [(int(rng.integers(1, 500)), int(rng.integers(8, 2000)))
                                                      for _ in range(3)]
    for L, N in pairs:
        assert_close(student.lognormal_prediction(L, N), ref.lognormal_prediction(L, N), rtol=1e-9, atol=1e-12,
                     name=f"(mean, variance) for L={L}, N={N}")
    Ls = rng.integers(1, 300, size=5).astype(float)
    Ns = rng.integers(8, 900, size=5).astype(float)
    assert_close(student.lognormal_prediction(Ls, Ns), ref.lognormal_prediction(Ls, Ns), rtol=1e-9, atol=1e-12,
                 name="(mean, variance) for arrays of L and N")


_REAL_ROWS = [  # a few rows of the shipped table (config.json values)
    ("GPT-2", "GPT-2 small", 12, 768), ("GPT-2", "GPT-2 XL", 48, 1600),
    ("Llama 2", "Llama-2-7B", 32, 4096), ("Llama 2", "Llama-2-70B", 80, 8192),
    ("Llama 3", "Llama-3.1-405B", 126, 16384), ("Qwen2.5", "Qwen2.5-0.5B", 24, 896),
    ("Qwen2.5", "Qwen2.5-32B", 64, 5120), ("Qwen2.5", "Qwen2.5-72B", 80, 8192),
]


def _check_table(student, rows, window=None):
    out = student.depth_to_width_table(rows) if window is None else student.depth_to_width_table(rows, window)
    want = ref.depth_to_width_table(rows) if window is None else ref.depth_to_width_table(rows, window)
    assert isinstance(out, dict) and set(want) <= set(out), f"the result should be a dict with keys {sorted(want)}"
    assert list(out["model"]) == list(want["model"]), "model names, in the order of configs"
    assert_close(out["L_over_N"], want["L_over_N"], rtol=1e-12, atol=0, name="L_over_N")
    assert set(out["by_family"]) == set(want["by_family"]), "by_family should have one entry per family"
    for fam in want["by_family"]:
        assert_close(tuple(out["by_family"][fam]), want["by_family"][fam], rtol=1e-12, atol=0,
                     name=f"by_family[{fam!r}]")
    assert_close(np.asarray(out["in_window"], dtype=float), np.asarray(want["in_window"], dtype=float),
                 rtol=0, atol=0, name="in_window")


@points(2)
def test_depth_to_width_table_real(student):
    "depth_to_width_table on real model configurations (default window)"
    rows = [{"family": f, "model": m, "year": 2024, "n_layers": L, "d_model": N, "params": 1.0, "source": "-"}
            for f, m, L, N in _REAL_ROWS]
    _check_table(student, rows)


@points(1)
def test_depth_to_width_table_synthetic(student):
    "depth_to_width_table on made-up configurations, with a window whose endpoints are hit exactly"
    rng = rng_for("depth_to_width_table_synthetic")
    rows = []
    for k in range(9):
        N = int(rng.choice([512, 1024, 2048, 4096]))
        rows.append({"family": f"F{k % 3}", "model": f"m{k}", "n_layers": int(rng.integers(4, 96)), "d_model": N})
    rows.append({"family": "F0", "model": "edge_low", "n_layers": 8, "d_model": 1024})   # 1/128
    rows.append({"family": "F1", "model": "edge_high", "n_layers": 16, "d_model": 1024})  # 1/64
    _check_table(student, rows, (1 / 128, 1 / 64))


# %% tags=["wrong"]
# wrong: normal(0, 1/N) read as variance 1/N but passed as the standard deviation (no 1/sqrt(N) in the layers)
# hint: N(0, s) has variance s (conventions, Section 3.1): weights of variance 1/N have standard
#   deviation 1/√N. Equivalently, draw N(0, 1) weights and keep the explicit fan-in factor 1/√N.
def dln_outputs(L, N, M, rng):
    rng = np.random.default_rng(rng)
    z = np.zeros((M, N))
    z[:, 0] = 1.0
    for _ in range(L + 1):
        W = rng.normal(0.0, 1.0 / N, size=(M, N, N))
        z = np.einsum("mij,mj->mi", W, z)
    return z


def dln_output_norms(L, N, M, rng):
    return (np.asarray(dln_outputs(L, N, M, rng)) ** 2).sum(axis=1)


# %% tags=["wrong"]
# wrong: off by one layer (L weight matrices instead of L + 1)
# hint: A network with L hidden layers has L + 1 weight matrices, from the input to the first layer up
#   to the output (Section 3.1): |f|² is a product of L + 1 independent factors.
def dln_outputs(L, N, M, rng):
    rng = np.random.default_rng(rng)
    log_r2 = np.zeros(M)
    for _ in range(L - 1):
        log_r2 += np.log(rng.chisquare(N, size=M) / N)
    return np.exp(0.5 * log_r2)[:, None] * rng.standard_normal((M, N)) / np.sqrt(N)


def dln_output_norms(L, N, M, rng):
    rng = np.random.default_rng(rng)
    return np.exp(np.log(rng.chisquare(N, size=(L, M)) / N).sum(axis=0))


# %% tags=["wrong"]
# wrong: one set of weights shared by all M "networks" (samples are not independent initializations)
# hint: Each of the M samples must be an independent initialization: draw fresh weights for every
#   network, not one set of weights shared by all of them (Section 3.6).
def dln_outputs(L, N, M, rng):
    rng = np.random.default_rng(rng)
    Ws = [rng.standard_normal((N, N)) / np.sqrt(N) for _ in range(L + 1)]
    Z = np.zeros((N, M))
    Z[0] = 1.0
    Z += 0.01 * rng.standard_normal((N, M))  # slightly different inputs
    for W in Ws:
        Z = W @ Z
    return Z.T


# %% tags=["wrong"]
# wrong: the single-component fourth cumulant (E f^4 - 3 (E f^2)^2) / (E f^2)^2, three times the notes' kappa_4
# hint: The notes' κ4 is the connected correlation of two distinct components, E[f_i² f_j²] − E[f_i²]
#   E[f_j²] with i ≠ j (Section 3.6); the single-component E f⁴ − 3(E f²)² is three times larger.
def kappa4_ratio_estimate(F):
    F = np.asarray(F, dtype=float)
    m2 = np.mean(F**2)
    return float((np.mean(F**4) - 3 * m2**2) / m2**2)


# %% tags=["rewrite"]
# rewrite: the same single-component ratio, written as Var(f^2)/E[f^2]^2 - 2
def kappa4_ratio_estimate(F):
    F2 = np.asarray(F, dtype=float).ravel() ** 2
    return float(np.var(F2) / np.mean(F2) ** 2 - 2.0)


# %% tags=["wrong"]
# wrong: the pair average divided by K^2 instead of the K (K - 1) ordered pairs i != j
# hint: kappa4_ratio_estimate averages F_mi² F_mj² over the K(K − 1) ordered pairs i ≠ j of a row: dividing
#   their sum by K² biases κ̂4 by (K − 1)/K, most at the smallest K = 2 (Section 3.6, eq. (5)).
def kappa4_ratio_estimate(F):
    F2 = np.asarray(F, dtype=float) ** 2
    M, K = F2.shape
    k2 = F2.mean()
    pair_mean = (F2.sum(axis=1) ** 2 - (F2**2).sum(axis=1)) / K**2
    return float((pair_mean.mean() - k2**2) / k2**2)


# %% tags=["wrong"]
# wrong: (1 + 2/N)**L - 1 computed directly (cancellation) and standard deviation instead of variance
# hint: Computed directly, (1 + 2/N)^L − 1 loses its digits when N ≫ L: use expm1(L log1p(2/N)). And the
#   lognormal prediction is the mean and the variance of log |f|², not its standard deviation
#   (Section 3.6).
def kappa4_ratio_exact(L, N):
    return (1 + 2 / np.asarray(N, dtype=float)) ** np.asarray(L, dtype=float) - 1


def lognormal_prediction(L, N):
    return -L / N, np.sqrt(2 * L / N)


# %% tags=["wrong"]
# wrong: |f|^2 sampled from the large-N log-normal law (4) instead of the exact product of chi^2_N / N factors
# hint: The log-normal law is only the large-L, large-N approximation: |f|² is exactly a product of
#   L + 1 independent χ²_N / N factors (notes eq. 1, Section 3.6); sample those factors (or the
#   weights) instead.
def dln_output_norms(L, N, M, rng):
    rng = np.random.default_rng(rng)
    return np.exp(rng.normal(-(L + 1) / N, np.sqrt(2 * (L + 1) / N), size=M))


# %% tags=["wrong"]
# wrong: integer division and N/L inverted for the family ranges
# hint: The family ranges are of the ratio L/N = n_layers/d_model, as floats, not of d_model // n_layers
#   (Exercise 3.3).
def depth_to_width_table(configs, window=(0.005, 0.01)):
    ratio = np.array([c["n_layers"] / c["d_model"] for c in configs])
    fam = {}
    for c in configs:
        fam.setdefault(c["family"], []).append(c["d_model"] // c["n_layers"])
    return {"model": [c["model"] for c in configs], "L_over_N": ratio,
            "by_family": {k: (min(v), max(v)) for k, v in fam.items()},
            "in_window": (ratio > window[0]) & (ratio < window[1])}


# %% tags=["alternative"]
# alternative: explicit products of Gaussian weight matrices (batched einsum), norms from the outputs, pairwise loop estimator, power via exp(L log1p)
def dln_outputs(L, N, M, rng):
    rng = np.random.default_rng(rng)
    x = rng.standard_normal(N)
    z = np.tile(x / np.linalg.norm(x), (M, 1))
    for _ in range(L + 1):
        z = np.einsum("mij,mj->mi", rng.standard_normal((M, N, N)), z) / np.sqrt(N)
    return z


def dln_output_norms(L, N, M, rng):
    return np.sum(np.asarray(dln_outputs(L, N, M, rng)) ** 2, axis=1)


def kappa4_ratio_estimate(F):
    F = np.asarray(F, dtype=float)
    M, K = F.shape
    k2 = np.mean(F**2)
    acc = 0.0
    for i in range(K):
        for j in range(K):
            if i != j:
                acc += np.mean(F[:, i] ** 2 * F[:, j] ** 2)
    return (acc / (K * (K - 1)) - k2**2) / k2**2


def kappa4_ratio_exact(L, N):
    import math
    f = np.vectorize(lambda l, n: math.expm1(l * math.log1p(2.0 / n)), otypes=[float])
    out = f(L, N)
    return float(out) if np.ndim(out) == 0 else out


def lognormal_prediction(L, N):
    return (-(L / N), 2 * (L / N))


def depth_to_width_table(configs, window=(0.005, 0.01)):
    import collections
    ratio = np.array([c["n_layers"] / c["d_model"] for c in configs], dtype=float)
    groups = collections.defaultdict(list)
    for c, r in zip(configs, ratio):
        groups[c["family"]].append(r)
    return {"model": [c["model"] for c in configs], "L_over_N": ratio,
            "by_family": {f: [min(v), max(v)] for f, v in groups.items()},
            "in_window": np.logical_and(window[0] <= ratio, ratio <= window[1])}
