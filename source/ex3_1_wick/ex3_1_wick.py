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
# # ex3_1_wick: Wick's theorem, pairings and cumulants
#
# *Notes: Section 3.3 and Exercise 3.1; cumulants as in Section 2.3.*
#
# A Gaussian process evaluated at $p$ inputs is a Gaussian *vector*: everything in this
# assignment is about a centred Gaussian vector $X=(X_0,\dots,X_{m-1})\sim\mathcal N(0,K)$,
# $X_i = f(x^{i})$, $K_{ij}=K(x^{i},x^{j})$, and about what distinguishes it from a
# non-Gaussian one. You will
#
# 1. enumerate the **pairings** (perfect matchings) of $p$ objects, in a fixed canonical
#    order, and count them;
# 2. evaluate any **Gaussian moment** $\mathbb E[X_{i_1}\cdots X_{i_p}]$ by Wick's theorem
#    (Isserlis' theorem), a sum over pairings;
# 3. turn the joint **moments** of $p$ random variables into their joint **cumulants**
#    (connected correlation functions) by a sum over set partitions, and see that a
#    Gaussian has no cumulants beyond the second.
#
# | part | function (graded) | notes |
# |---|---|---|
# | 1 | `pair_partitions(p)` | (3.14), Ex 3.1 |
# | 2 | `gaussian_moment(K, idx)` | (3.14), Ex 3.1 |
# | 3 | `moments_to_cumulants(moments)` | definition (3.15) of $\kappa_p$, Section 3.3 |
#
# **Conventions.** Indices start at $0$ (Python). $\mathcal N(0,K)$ has *covariance* $K$
# (for one variable: variance $K$), as in Section 3.1 of the notes. Written answers (cells
# reading *Your answer here.*) are graded by hand; cells with `@check` are public checks
# that test properties, never the hidden answers.

# %% tags=["setup"]
import itertools
import math

import numpy as np
import matplotlib.pyplot as plt

# %% [markdown]
# ## 1. The generating function and Wick's theorem
#
# For a finite-dimensional Gaussian $X\sim\mathcal N(0,K)$ with $K$ positive definite, the
# generating function of Section 3.3 (the finite-dimensional version of (3.11), with a
# source $J\in\mathbb R^m$) is
# $$
# Z[J] = \int d^m X\; e^{-\frac12 X\cdot K^{-1}X + J\cdot X}. \tag{3.11}
# $$
# Completing the square, $-\frac12 X\cdot K^{-1}X + J\cdot X = -\frac12 (X-KJ)\cdot K^{-1}(X-KJ)
# + \frac12 J\cdot KJ$, and shifting the integration variable gives
# $$
# Z[J] = Z[0]\; e^{\frac12 J\cdot K J},\qquad Z[0]=\sqrt{(2\pi)^m\det K}. \tag{3.12}
# $$
# Moments are derivatives at $J=0$:
# $$
# \mathbb E[X_{i_1}\cdots X_{i_p}] = \frac{1}{Z[0]}\,
# \frac{\partial}{\partial J_{i_1}}\cdots\frac{\partial}{\partial J_{i_p}} Z[J]\Big|_{J=0}. \tag{3.13}
# $$
# Expanding $e^{\frac12 J\cdot KJ}=\sum_n \frac{1}{n!\,2^n}(J\cdot KJ)^n$, only the term with
# $2n=p$ survives $p$ derivatives at $J=0$, and each of its terms that survives picks one
# $K$ per *pair* of derivatives. The result is **Wick's theorem** (Isserlis' theorem)
# $$
# \mathbb E[X_{i_1}\cdots X_{i_p}] = \sum_{\text{pairings } \pi \text{ of } \{1,\dots,p\}}\;
# \prod_{\{a,b\}\in\pi} K_{i_a i_b}, \tag{3.14}
# $$
# which vanishes for odd $p$ (there are no pairings). For a Gaussian process, $X_a=f(x^a)$
# and $K_{i_ai_b}=K(x^{a},x^{b})$. Note that the sum is over pairings of the *positions*
# $1,\dots,p$, not of the values of the indices: indices may repeat, e.g.
# $\mathbb E[X_0^4] = 3K_{00}^2$ (three pairings of four positions, each giving $K_{00}^2$).

# %% [markdown]
# **Exercise 3.1 (a).** Derive (3.12) by completing the square in (3.11), and (3.14) by
# differentiating (3.12). Check the first two cases explicitly:
# $\mathbb E[X_1X_2]=K^{12}$ and $\mathbb E[X_1X_2X_3X_4]=K^{12}K^{34}+K^{13}K^{24}+K^{14}K^{23}$.

# %% [markdown] tags=["answer"] points=3
# *Model answer.* With $Y=X-KJ$ (using $K^T=K$):
# $-\frac12 Y\cdot K^{-1}Y = -\frac12 X\cdot K^{-1}X + J\cdot X - \frac12 J\cdot KJ$, so
# the exponent of (3.11) is $-\frac12 Y\cdot K^{-1}Y+\frac12 J\cdot KJ$. The shift $X\to Y$ has unit
# Jacobian and does not move the integration domain $\mathbb R^m$, hence
# $Z[J]=e^{\frac12 J\cdot KJ}\int d^mY e^{-\frac12 Y\cdot K^{-1}Y}=Z[0]e^{\frac12 J\cdot KJ}$,
# with $Z[0]=\sqrt{(2\pi)^m\det K}$ (diagonalize $K$).
#
# Differentiating $g(J)=e^{\frac12 J\cdot KJ}$: $\partial_i g = (KJ)_i\,g$, so
# $\partial_1 g|_0=0$ and $\partial_1\partial_2 g = (K_{12} + (KJ)_1(KJ)_2)g \to K_{12}$ at
# $J=0$. One more derivative: $\partial_3\partial_1\partial_2 g = [K_{12}(KJ)_3 +
# K_{13}(KJ)_2+K_{23}(KJ)_1 + (KJ)_1(KJ)_2(KJ)_3]g$, and the fourth derivative at $J=0$
# keeps only the terms in which every factor $(KJ)_a$ has been hit:
# $K_{12}K_{34}+K_{13}K_{24}+K_{23}K_{14}$. In general, $p$ derivatives of the term
# $(J\cdot KJ)^n/(2^n n!)$ with $2n=p$ give $\sum$ over all ways to assign the $p$
# derivatives to the $2n$ slots, $p!$ ways, divided by $2^n$ (the two slots of each $K$)
# and $n!$ (the order of the $n$ factors): exactly one term per pairing, each
# $\prod K_{i_ai_b}$. Terms with $2n\neq p$ vanish at $J=0$. This is (3.14).
#
# *Rubric:* completing the square with the correct shift $KJ$ and the constant
# $\frac12 J\cdot KJ$ (1); the two explicit cases (1); the counting argument that each
# pairing appears exactly once (1).

# %% [markdown]
# ## 2. Pairings
#
# A **pairing** of $\{0,\dots,p-1\}$ is a partition into $p/2$ blocks of size two. We write
# a pairing as a tuple of pairs `((i1, j1), (i2, j2), ...)` with $i<j$ inside every pair
# and the pairs sorted by their first element; e.g. for $p=4$:
#
# ```
# [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))]
# ```
#
# **Canonical order** (the order of the list, checked by the hidden tests): element $0$ is
# paired with $j=1,2,\dots,p-1$ in increasing order; for each choice, the pairings of the
# remaining elements follow recursively in the same order. Equivalently: the list is
# sorted lexicographically. For $p=0$ there is exactly one pairing, the empty one, so the
# answer is `[()]`; for odd $p$ there are none, `[]`.
#
# Counting: element $0$ has $p-1$ partners, then the smallest remaining element has $p-3$,
# and so on, so there are
# $$
# (p-1)!! = (p-1)(p-3)\cdots 3\cdot 1 = \frac{p!}{2^{p/2}\,(p/2)!}
# $$
# pairings.

# %% tags=["graded"]
def pair_partitions(p):
    """All pairings (perfect matchings) of range(p), in canonical order (notes, (3.14), Ex 3.1).

    Args:
        p: int >= 0, the number of objects 0, 1, ..., p-1.
    Returns:
        list of tuples; each tuple is one pairing, written as p/2 pairs (i, j) (tuples of two
        ints) with i < j, the pairs sorted by their first element. The list is in canonical
        order: 0 is paired with j = 1, 2, ..., p-1 in turn and the rest follows recursively
        (equivalently, the list is sorted lexicographically). It has (p-1)!! entries for
        even p; p = 0 gives [()] (one empty pairing) and odd p gives [].
    """
    def pairings_of(items):
        if not items:
            return [()]
        first, rest = items[0], items[1:]
        out = []
        for k, partner in enumerate(rest):
            remaining = rest[:k] + rest[k + 1:]
            out += [((first, partner),) + tail for tail in pairings_of(remaining)]
        return out

    if p < 0 or p % 2:
        return []
    return pairings_of(tuple(range(p)))


# %% tags=["check"]
@check
def check_pair_partitions_small():
    "p=2 and p=4 by hand, nothing for odd p, one empty pairing for p=0"
    assert [tuple(map(tuple, pi)) for pi in pair_partitions(2)] == [((0, 1),)]
    four = [tuple(map(tuple, pi)) for pi in pair_partitions(4)]
    assert four == [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))], "p=4 list or its order is off"
    assert list(pair_partitions(5)) == [], "odd p has no pairings"
    assert [tuple(pi) for pi in pair_partitions(0)] == [()], "p=0 has exactly one (empty) pairing"


@check
def check_pair_partitions_are_matchings():
    "every pairing of p=8 uses each element once, and no pairing appears twice"
    pis = pair_partitions(8)
    seen = set()
    for pi in pis:
        flat = sorted(x for pair in pi for x in pair)
        assert flat == list(range(8)), f"{pi} is not a perfect matching of range(8)"
        assert all(i < j for i, j in pi), "write each pair as (i, j) with i < j"
        seen.add(tuple(map(tuple, pi)))
    assert len(seen) == len(pis), "some pairing appears twice"


# %% [markdown]
# **Exercise 3.1 (b).** How many terms appear at $p=6$? At $p=2n$ in general? Compare the
# growth with the number of *all* set partitions (the Bell numbers) that the cumulant
# formula of part 3 sums over.

# %% [markdown] tags=["answer"] points=2
# *Model answer.* $5!!=5\cdot3\cdot1=15$ terms at $p=6$ (element 1 has 5 possible partners,
# then the smallest remaining one has 3, then 1). In general $(2n-1)!!=\frac{(2n)!}{2^nn!}$:
# 1, 3, 15, 105, 945, ... for $p=2,4,6,8,10$, which grows like
# $\sqrt2\,(2n/e)^n$. The Bell numbers $B_p$ (1, 2, 5, 15, 52, 203, 877, 4140 for
# $p=1..8$) count *all* set partitions and grow faster: $B_4=15$ already, $B_6=203$,
# $B_8=4140$ against $105$ pairings. Wick's theorem is the statement that, for a Gaussian,
# only the set partitions all of whose blocks have size two contribute.
#
# *Rubric:* 15 with a correct reason (1); the general $(p-1)!!$ (1).

# %% [markdown]
# ## 3. Gaussian moments by Wick's theorem
#
# **Task.** Implement `gaussian_moment(K, idx)`, the right-hand side of (3.14), with your
# `pair_partitions`. The list `idx` holds the indices $i_1,\dots,i_p$ (values in
# $\{0,\dots,m-1\}$, repeats allowed); the pairings are of the **positions** in `idx`.

# %% tags=["graded"]
def gaussian_moment(K, idx):
    """E[X_{idx[0]} X_{idx[1]} ... X_{idx[p-1]}] for X ~ N(0, K), by Wick's theorem (notes, (3.14)).

    Args:
        K: array of shape (m, m), a symmetric positive semidefinite covariance matrix.
        idx: sequence of p ints in {0, ..., m-1} (repeats allowed; may be empty).
    Returns:
        float: the sum over all pairings pi of the positions {0, ..., p-1} of
        prod over pairs (a, b) in pi of K[idx[a], idx[b]]. This is 1.0 for p = 0 and 0.0
        for odd p.
    """
    K = np.asarray(K, dtype=float)
    idx = [int(i) for i in idx]
    total = 0.0
    for pi in pair_partitions(len(idx)):
        term = 1.0
        for a, b in pi:
            term *= K[idx[a], idx[b]]
        total += term
    return float(total)


# %% tags=["check"]
@check
def check_gaussian_moment_low_orders():
    "E[X_i X_j] = K_ij, the three-term four-point function, E[X^4] = 3 K^2, odd moments vanish"
    K = np.array([[2.0, 0.3, -0.5], [0.3, 1.0, 0.2], [-0.5, 0.2, 1.5]])
    assert np.isclose(gaussian_moment(K, [0, 2]), K[0, 2])
    assert np.isclose(gaussian_moment(K, [0, 1, 2, 1]), K[0, 1] * K[2, 1] + K[0, 2] * K[1, 1] + K[0, 1] * K[1, 2])
    assert np.isclose(gaussian_moment(K, [1, 1, 1, 1]), 3 * K[1, 1] ** 2), "E[X^4] should be 3 K^2"
    assert gaussian_moment(K, [0, 1, 2]) == 0.0, "odd moments of a centred Gaussian vanish"
    assert gaussian_moment(K, []) == 1.0, "the empty product has expectation 1"


@check
def check_gaussian_moment_monte_carlo():
    "a six-point moment agrees with a Monte Carlo estimate within 5 standard errors"
    rng = np.random.default_rng(7)
    A = rng.normal(size=(3, 3))
    K = A @ A.T / 3 + 0.3 * np.eye(3)
    X = rng.multivariate_normal(np.zeros(3), K, size=200_000)
    idx = [0, 0, 1, 2, 2, 2]
    products = np.prod(X[:, idx], axis=1)
    err = abs(products.mean() - gaussian_moment(K, idx))
    assert err < 5 * products.std() / np.sqrt(len(products)), "Wick and Monte Carlo disagree"


# %% tags=["solution"]
# Independent checks. (i) `pair_partitions` against a brute-force
# enumeration by a different algorithm: all $p!$ permutations of the positions, cut into
# consecutive pairs, canonicalized and deduplicated (the sets must coincide, and the
# count equal $(p-1)!!$); (ii) `gaussian_moment` against the definition (3.13) itself: the
# mixed partial derivatives of $e^{\frac12 J\cdot KJ}$ at $J=0$, computed by nested
# automatic differentiation in torch; (iii) `gaussian_moment` against Monte Carlo
# averages, in units of the standard error.
import torch

# (i) pairings by brute force: permutations -> consecutive pairs -> canonical form -> set
for p in [0, 2, 4, 6, 8]:
    brute = set()
    for perm in itertools.permutations(range(p)):
        pairs = sorted(tuple(sorted(perm[k:k + 2])) for k in range(0, p, 2))
        brute.add(tuple(pairs))
    ours = pair_partitions(p)
    assert len(ours) == len(set(ours)) == len(brute) == math.prod(range(p - 1, 0, -2)), p
    assert set(ours) == brute, p
    assert ours == sorted(ours), "canonical order = lexicographic order"
print("(i)   pair_partitions == brute force over permutations for p = 0, 2, 4, 6, 8;",
      "counts", [len(pair_partitions(p)) for p in range(0, 11, 2)])
assert [len(pair_partitions(p)) for p in range(1, 12, 2)] == [0] * 6


# (ii) Wick = derivatives of the generating function exp(J.KJ/2) at J = 0 (nested autograd)
def moment_by_autograd(K, idx):
    Kt = torch.tensor(K, dtype=torch.float64)
    J = torch.zeros(len(K), dtype=torch.float64, requires_grad=True)
    out = torch.exp(0.5 * J @ Kt @ J)
    for i in idx:
        (g,) = torch.autograd.grad(out, J, create_graph=True)
        out = g[i]
    return float(out.detach())   # (a float of a tensor that requires grad warns on stderr: timing-dependent output)


rng = np.random.default_rng(31)
worst = 0.0
for trial in range(12):
    m = int(rng.integers(1, 5))
    A = rng.normal(size=(m, m))
    K = A @ A.T / m + 0.2 * np.eye(m)
    p = int(rng.integers(0, 7))
    idx = list(rng.integers(0, m, size=p))
    worst = max(worst, abs(gaussian_moment(K, idx) - moment_by_autograd(K, idx)))
assert worst < 1e-10
print("(ii)  Wick sum vs nested autograd of exp(J.KJ/2): max abs difference < 1e-10")   # round-off: a bound

# (iii) Monte Carlo, several index patterns, in units of the standard error
A = rng.normal(size=(4, 4))
K = A @ A.T / 4 + 0.3 * np.eye(4)
X = rng.multivariate_normal(np.zeros(4), K, size=400_000)
for idx in [[0, 1], [0, 1, 2, 3], [2, 2, 2, 2], [0, 0, 1, 1, 3, 3], [0, 1, 2, 3, 0, 1], [0, 1, 2], [3, 3, 3]]:
    prod = np.prod(X[:, idx], axis=1)
    z = (prod.mean() - gaussian_moment(K, idx)) / (prod.std() / np.sqrt(len(prod)))
    print(f"(iii) idx = {idx}: Wick {gaussian_moment(K, idx):+.4f}, Monte Carlo {prod.mean():+.4f}, z = {z:+.2f}")
    assert abs(z) < 4.5

# %% [markdown]
# The figure shows how slowly Monte Carlo approaches what Wick's theorem gives exactly:
# the error of the sample mean of a product of six Gaussians falls like $M^{-1/2}$ with a
# large prefactor, because the product has heavy tails (its variance is a 12-point
# function).

# %% tags=["figure"]
rng_fig = np.random.default_rng(3)
K_fig = np.array([[1.0, 0.6, 0.3], [0.6, 1.0, 0.6], [0.3, 0.6, 1.0]])
X_fig = rng_fig.multivariate_normal(np.zeros(3), K_fig, size=2**18)
fig, ax = plt.subplots(figsize=(6.5, 4))
for idx in [[0, 2], [0, 1, 1, 2], [0, 0, 1, 1, 2, 2]]:
    prods = np.prod(X_fig[:, idx], axis=1)
    Ms = 2 ** np.arange(6, 15)          # at least 16 batches per point
    try:
        exact = gaussian_moment(K_fig, idx)
    except NotImplementedError:
        exact = np.mean(prods)
    errs = [np.sqrt(np.mean((prods[: (len(prods) // M) * M].reshape(-1, M).mean(axis=1) - exact) ** 2))
            for M in Ms]
    ax.loglog(Ms, errs, "o-", label=f"idx = {idx}")
ax.loglog(Ms, 3 * Ms**-0.5, "k:", label=r"$\propto M^{-1/2}$")
ax.set(xlabel="Monte Carlo samples $M$", ylabel="rms error of the sample moment",
       title="Monte Carlo vs Wick's theorem")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## 4. From moments to cumulants
#
# The joint cumulants $\kappa$ of random variables $X_0,\dots,X_{p-1}$ are defined
# recursively by (Section 3.3)
# $$
# \mathbb E\Big[\prod_{i\in S}X_i\Big] = \sum_{\text{set partitions } \Pi \text{ of } S}\;
# \prod_{B\in\Pi}\kappa(B),\qquad \kappa(B):=\kappa_{|B|}\big(X_i: i\in B\big), \tag{3.15}
# $$
# for every nonempty subset $S\subseteq\{0,\dots,p-1\}$ (the variables need not be distinct:
# $X_0=X_1$ is allowed, which is how single-variable cumulants such as $\kappa_4(X)=\kappa_4(X,X,X,X)$
# arise). Solving the recursion (Möbius inversion on the lattice of set partitions) gives
# the closed form
# $$
# \kappa(S) = \sum_{\Pi\text{ of }S}(-1)^{|\Pi|-1}\,(|\Pi|-1)!\,\prod_{B\in\Pi}m(B),\qquad
# m(B):=\mathbb E\Big[\prod_{i\in B}X_i\Big], \tag{M}
# $$
# where $|\Pi|$ is the number of blocks. For example $\kappa(\{0\})=m_0$,
# $\kappa(\{0,1\}) = m_{01}-m_0m_1$ (the covariance), and
# $\kappa(\{0,1,2\}) = m_{012}-m_{01}m_2-m_{02}m_1-m_{12}m_0+2m_0m_1m_2$. The cumulants are
# also the derivatives of $\log Z[J]$ at $J=0$ (Section 3.3), so the cumulants of a
# Gaussian, $\log Z[J] = \log Z[0] + \frac12 J\cdot KJ$ (plus $J\cdot\mu$ with a mean),
# vanish beyond the second: $\kappa_1=\mu$, $\kappa_2=K$, $\kappa_{p>2}=0$.
#
# **Data format (plain arrays).** Subsets $S\subseteq\{0,\dots,p-1\}$ are indexed by
# bitmasks: $S\leftrightarrow \texttt{mask}=\sum_{i\in S}2^i$. The input `moments` is a
# 1-d array of length $2^p$ with `moments[mask]` $=m(S)$, so `moments[0] = 1` (the empty
# product). For $p=2$: `[1, E X0, E X1, E X0 X1]`; for $p=3$ the entry `moments[0b101] =
# moments[5]` is $\mathbb E[X_0X_2]$. The output has the same layout:
# `cumulants[mask]` $=\kappa(S)$ for every nonempty $S$, and `cumulants[0] = 0` (the
# cumulant generating function $\log(Z[J]/Z[0])$ vanishes at $J=0$).
#
# Two provided helpers produce such arrays: from samples (Monte Carlo) and, with your
# `gaussian_moment`, for a Gaussian vector with a mean.

# %% tags=["provided"]
def subset_masks(p):
    """The bitmasks 0, ..., 2**p - 1 and, for each, the sorted list of its elements."""
    return [(mask, [i for i in range(p) if mask >> i & 1]) for mask in range(2**p)]


def sample_subset_moments(samples):
    """Monte Carlo moment array from samples of shape (M, p): entry mask = mean of prod_{i in mask} X_i."""
    samples = np.asarray(samples, dtype=float)
    M, p = samples.shape
    out = np.empty(2**p)
    for mask, members in subset_masks(p):
        out[mask] = np.mean(np.prod(samples[:, members], axis=1)) if members else 1.0
    return out


def gaussian_subset_moments(K, idx, mean=None):
    """Exact moment array of the p variables Y_a = mean[a] + X_{idx[a]}, X ~ N(0, K).

    Uses E[prod_{a in S} (mu_a + X_a)] = sum over subsets T of S of
    prod_{a in S \\ T} mu_a * E[prod_{a in T} X_a] and your gaussian_moment for the last factor.
    """
    idx = list(idx)
    p = len(idx)
    mean = np.zeros(p) if mean is None else np.asarray(mean, dtype=float)
    centred = {mask: gaussian_moment(K, [idx[a] for a in members]) for mask, members in subset_masks(p)}
    out = np.zeros(2**p)
    for mask, members in subset_masks(p):
        for sub, sub_members in subset_masks(p):
            if sub & ~mask:
                continue
            out[mask] += np.prod([mean[a] for a in members if a not in sub_members]) * centred[sub]
    return out


# %% [markdown]
# **Task.** Implement `moments_to_cumulants(moments)`. You need the set partitions of each
# subset (generate them recursively: the block containing the smallest element, together
# with every partition of the rest), then either (M) or the recursion (3.15) solved for
# $\kappa(S)$.

# %% tags=["graded"]
def moments_to_cumulants(moments):
    """Joint cumulants of p random variables from their joint moments (notes, Section 3.3).

    Subsets S of {0, ..., p-1} are indexed by the bitmask mask = sum_{i in S} 2**i.

    Args:
        moments: 1-d array of length 2**p (p >= 0): moments[mask] = E[prod_{i in S} X_i],
            with moments[0] = 1 (the empty product). The X_i need not be distinct.
    Returns:
        np.ndarray of floats, shape (2**p,): entry mask is the joint cumulant
        kappa_{|S|}(X_i : i in S), computed by the sum over set partitions Pi of S,
        kappa(S) = sum_Pi (-1)**(|Pi| - 1) (|Pi| - 1)! prod_{B in Pi} moments[B];
        entry 0 (the empty set) is 0.
    """
    moments = np.asarray(moments, dtype=float)
    p = int(round(math.log2(len(moments))))
    if 2**p != len(moments):
        raise ValueError("the moment array must have length 2**p")

    def set_partitions(members):
        if not members:
            yield []
            return
        first, rest = members[0], members[1:]
        for size in range(len(rest) + 1):
            for others in itertools.combinations(rest, size):
                block = (first,) + others
                remaining = [x for x in rest if x not in others]
                for tail in set_partitions(remaining):
                    yield [block] + tail

    cumulants = np.zeros(2**p)
    for mask in range(1, 2**p):
        members = [i for i in range(p) if mask >> i & 1]
        total = 0.0
        for partition in set_partitions(members):
            k = len(partition)
            term = (-1.0) ** (k - 1) * math.factorial(k - 1)
            for block in partition:
                term *= moments[sum(1 << i for i in block)]
            total += term
        cumulants[mask] = total
    return cumulants


# %% tags=["check"]
@check
def check_cumulants_low_orders():
    "kappa_1 is the mean, kappa_2 the covariance, kappa_3 the formula above"
    rng = np.random.default_rng(2)
    m = np.concatenate([[1.0], rng.normal(size=7)])          # any numbers will do for this identity
    c = np.asarray(moments_to_cumulants(m))
    assert c.shape == (8,) and c[0] == 0.0, "shape (2**p,) with entry 0 equal to 0"
    assert np.allclose(c[[1, 2, 4]], m[[1, 2, 4]]), "first cumulants are the means"
    assert np.isclose(c[3], m[3] - m[1] * m[2]), "kappa(X0, X1) is the covariance"
    k3 = m[7] - m[3] * m[4] - m[5] * m[2] - m[6] * m[1] + 2 * m[1] * m[2] * m[4]
    assert np.isclose(c[7], k3), "third joint cumulant is off"


@check
def check_gaussian_cumulants_vanish():
    "a Gaussian vector with a mean: kappa_1 = mean, kappa_2 = K, all higher cumulants 0"
    K = np.array([[1.0, 0.4, 0.1], [0.4, 2.0, -0.3], [0.1, -0.3, 0.5]])
    idx, mean = [0, 1, 2, 1], np.array([0.5, -1.0, 0.2, 0.3])
    c = np.asarray(moments_to_cumulants(gaussian_subset_moments(K, idx, mean)))
    for mask, members in subset_masks(4):
        if len(members) == 1:
            assert np.isclose(c[mask], mean[members[0]])
        elif len(members) == 2:
            assert np.isclose(c[mask], K[idx[members[0]], idx[members[1]]])
        elif len(members) > 2:
            assert abs(c[mask]) < 1e-10, f"cumulant of order {len(members)} should vanish"


# %% [markdown]
# **Exercise 3.1 (c).** Explain, from (3.14) and (3.15), why all joint cumulants of order
# $p>2$ of a centred Gaussian vector vanish, and why $\kappa_4(X)\neq\mathbb E[(X-\mathbb EX)^4]$
# in general. What is $\kappa_4$ of $X_N=N^{-1/2}\sum_{i=1}^N\xi_i$ for i.i.d. $\xi_i$, and
# what does it say about the approach to Gaussianity (compare with Section 3.4)?

# %% [markdown] tags=["answer"] points=3
# *Model answer.* By induction on $|S|$: (3.15) with cumulants $\kappa_2=K$ and all others
# zero gives $\sum_\Pi\prod_B\kappa(B)$ = sum over partitions into pairs only of $\prod K$ =
# the Wick sum (3.14) = the Gaussian moment (odd orders: no pair partitions, zero). Since
# (3.15) determines the $\kappa$'s uniquely (it is triangular: $\kappa(S)$ appears once, with
# coefficient 1, plus lower orders), these are *the* cumulants. Equivalently,
# $\log Z[J]=\log Z[0]+\frac12 J\cdot KJ$ is quadratic, and $\kappa_p$ are its $p$-th derivatives.
#
# The central fourth moment of a centred $X$ is $\mathbb E X^4 = \kappa_4+3\kappa_2^2$: it contains
# the disconnected (Gaussian) part $3\kappa_2^2$, which is never zero. $\kappa_4$ is what is
# left after subtracting all products of lower cumulants; e.g. for a Rademacher $\xi=\pm1$,
# $\mathbb E\xi^4=1$ but $\kappa_4=1-3=-2$.
#
# Cumulants are additive over independent variables (their $\log Z$ adds) and homogeneous,
# $\kappa_p(cX)=c^p\kappa_p(X)$. Hence $\kappa_p(X_N)=N\cdot N^{-p/2}\kappa_p(\xi)=N^{1-p/2}\kappa_p(\xi)$:
# $\kappa_2$ is fixed, $\kappa_4\propto1/N$, $\kappa_6\propto1/N^2$. The CLT in cumulant form: the
# non-Gaussianity of a wide network's output $f=N^{-1/2}\sum_ic_i\phi(z_i)$ (a sum of $N$
# i.i.d. terms at one hidden layer) is $O(1/N)$, which is what the NNGP limit of Section
# 3.4 discards; with depth it accumulates to $O(L/N)$ (Section 3.6).
#
# *Rubric:* Gaussian cumulants vanish, with a reason (1); $\kappa_4$ vs central moment (1);
# $N^{1-p/2}$ scaling with additivity and homogeneity (1).

# %% tags=["solution"]
# Independent checks. (iv) `moments_to_cumulants` against the other
# definition of the cumulants, derivatives of the cumulant generating function
# $\log\mathbb E\,e^{J\cdot X}$ at $J=0$, by nested autograd, for a discrete non-Gaussian
# distribution whose moments are computed exactly; (v) the inverse map: feeding the
# cumulants back into (3.15) (sum over set partitions of products of cumulants,
# implemented independently) must reproduce the moments; (vi) sample cumulants of the
# Rademacher sum against the exact $\kappa_4=-2/N$.
# (iv) joint cumulants = mixed derivatives of log E exp(J.X), for a discrete distribution
rng = np.random.default_rng(77)
p = 5
support = rng.normal(size=(6, p)) + 0.3       # 6 atoms in R^5 (shared by 5 correlated variables)
probs = rng.dirichlet(np.ones(6))
exact_moments = np.array([np.sum(probs * np.prod(support[:, members], axis=1)) for _, members in subset_masks(p)])
kappa = moments_to_cumulants(exact_moments)
S_t, P_t = torch.tensor(support), torch.tensor(probs)
worst = 0.0
for mask, members in subset_masks(p)[1:]:
    J = torch.zeros(p, dtype=torch.float64, requires_grad=True)
    out = torch.log(torch.sum(P_t * torch.exp(S_t @ J)))
    for i in members:
        (g,) = torch.autograd.grad(out, J, create_graph=True)
        out = g[i]
    worst = max(worst, abs(float(out.detach()) - kappa[mask]))
assert worst < 1e-10
print(f"(iv)  moments_to_cumulants vs derivatives of log E exp(J.X): max abs difference < 1e-10 "
      f"(|kappa| up to {np.max(np.abs(kappa)):.2f})")


# (v) round trip through the defining recursion (3.15), set partitions generated by restricted growth strings
def set_partitions_rgs(members):
    n = len(members)
    def grow(prefix, top):
        if len(prefix) == n:
            yield prefix
            return
        for label in range(top + 2):
            yield from grow(prefix + [label], max(top, label))
    for labels in grow([], -1):
        blocks = {}
        for x, lab in zip(members, labels):
            blocks.setdefault(lab, []).append(x)
        yield list(blocks.values())


rebuilt = np.array([sum(np.prod([kappa[sum(1 << i for i in B)] for B in Pi]) for Pi in set_partitions_rgs(members))
                    if members else 1.0 for _, members in subset_masks(p)])
assert np.allclose(rebuilt, exact_moments, atol=1e-12, rtol=0)
print(f"(v)   moments rebuilt from the cumulants by (3.15): max abs difference < 1e-12; "
      f"number of set partitions of 1..8: {[sum(1 for _ in set_partitions_rgs(list(range(n)))) for n in range(1, 9)]}")

# (vi) Monte Carlo: sample kappa_4 of the normalized Rademacher sum vs the exact -2/N
for N in [1, 4, 16]:
    xi = rng.choice([-1.0, 1.0], size=(200_000, N))
    XN = xi.sum(axis=1) / np.sqrt(N)
    k4 = moments_to_cumulants(sample_subset_moments(np.repeat(XN[:, None], 4, axis=1)))[15]
    # standard error of the plug-in kappa_4 from 20 batches
    batches = [moments_to_cumulants(sample_subset_moments(np.repeat(b[:, None], 4, axis=1)))[15]
               for b in XN.reshape(20, -1)]
    se = np.std(batches, ddof=1) / np.sqrt(20)
    print(f"(vi)  N = {N:2d}: sample kappa_4 = {k4:+.4f} +- {se:.4f}, exact -2/N = {-2 / N:+.4f}")
    assert abs(k4 + 2 / N) < 5 * se + 1e-3

# %% [markdown]
# The figure makes the last answer quantitative with *exact* moments: for
# $X_N=N^{-1/2}\sum_{i=1}^N\xi_i$ with Rademacher $\xi_i=\pm1$, the moments follow from the
# binomial distribution, and your `moments_to_cumulants` on $p$ copies of $X_N$ gives
# $\kappa_4(X_N)=-2/N$ and $\kappa_6(X_N)=16/N^2$ (the cumulants of $\xi$ are $1,-2,16$ at
# orders $2,4,6$): non-Gaussianity fades like $N^{1-p/2}$.

# %% tags=["figure"]
from scipy import stats

Ns = np.unique(np.logspace(0, 3, 13).astype(int))
k4s, k6s = [], []
for N in Ns:
    values = (2 * np.arange(N + 1) - N) / np.sqrt(N)
    weights = stats.binom.pmf(np.arange(N + 1), N, 0.5)
    power_moments = [np.sum(weights * values**r) for r in range(7)]
    copies = np.array([power_moments[len(members)] for _, members in subset_masks(6)])
    try:
        kap = np.asarray(moments_to_cumulants(copies))
        k4s.append(-kap[0b1111])
        k6s.append(kap[0b111111])
    except NotImplementedError:
        k4s.append(np.nan)
        k6s.append(np.nan)
fig, ax = plt.subplots(figsize=(6.5, 4))
ax.loglog(Ns, k4s, "o", label=r"$-\kappa_4(X_N)$ from your cumulants")
ax.loglog(Ns, k6s, "s", label=r"$\kappa_6(X_N)$ from your cumulants")
ax.loglog(Ns, 2.0 / Ns, "C0-", lw=0.8, label=r"$2/N$")
ax.loglog(Ns, 16.0 / Ns**2, "C1-", lw=0.8, label=r"$16/N^2$")
ax.set(xlabel="$N$", ylabel="cumulant", title=r"$X_N=N^{-1/2}\sum_i\xi_i$, $\xi_i=\pm1$: cumulants $\propto N^{1-p/2}$")
ax.legend(fontsize=8)
plt.show()

# %% tags=["tests"]
import math


def _random_cov(rng, m):
    A = rng.standard_normal((m, m))
    return A @ A.T / m + 0.3 * np.eye(m)


def _double_factorial(n):
    return math.prod(range(n, 0, -2)) if n > 0 else 1


@points(2)
def test_pair_partitions_counts(student):
    "pair_partitions has (p-1)!! distinct pairings for even p and none for odd p"
    for p in [2, 4, 6, 8, 10, 1, 3, 7]:
        pis = student.pair_partitions(p)
        want = _double_factorial(p - 1) if p % 2 == 0 else 0
        assert len(pis) == want, f"pair_partitions({p}) has {len(pis)} entries"
        assert len({tuple(tuple(int(x) for x in pair) for pair in pi) for pi in pis}) == want, \
            f"pair_partitions({p}) contains repeated pairings"


@points(1)
def test_pair_partitions_are_perfect_matchings(student):
    "every pairing of p = 8 covers each element exactly once, with pairs written (i, j), i < j"
    for pi in student.pair_partitions(8):
        flat = sorted(int(x) for pair in pi for x in pair)
        assert flat == list(range(8)), "a pairing is not a perfect matching of range(8)"
        assert all(len(pair) == 2 and pair[0] < pair[1] for pair in pi), "pairs must be (i, j) with i < j"
        firsts = [pair[0] for pair in pi]
        assert firsts == sorted(firsts), "pairs must be sorted by their first element"


@points(2)
def test_pair_partitions_canonical_order(student):
    "pair_partitions(p) for p = 4, 6, 8 is in the canonical order"
    for p in [4, 6, 8]:
        assert_close(student.pair_partitions(p), ref.pair_partitions(p), rtol=0, atol=0,
                     name=f"pair_partitions({p})")


@points(1)
def test_pair_partitions_edge_cases(student):
    "pair_partitions(0) is one empty pairing; p = 1 and p = 5 have none"
    zero = student.pair_partitions(0)
    assert len(zero) == 1 and len(zero[0]) == 0, "pair_partitions(0) should be [()]"
    assert len(student.pair_partitions(1)) == 0 and len(student.pair_partitions(5)) == 0


@points(1)
def test_gaussian_moment_two_and_four_point(student):
    "gaussian_moment for two- and four-point functions of distinct variables"
    rng = rng_for("gaussian_moment_two_and_four_point")
    K = _random_cov(rng, 4)
    for idx in [[0, 3], [2, 1], [0, 1, 2, 3], [3, 0, 2, 1]]:
        assert_close(student.gaussian_moment(K, idx), ref.gaussian_moment(K, idx), rtol=1e-9, atol=1e-12,
                     name=f"E[X_{idx}]")


@points(3)
def test_gaussian_moment_random(student):
    "gaussian_moment for random covariances and random index lists with repeats (p up to 8)"
    rng = rng_for("gaussian_moment_random")
    for trial in range(8):
        m = int(rng.integers(2, 5))
        K = _random_cov(rng, m)
        idx = [int(i) for i in rng.integers(0, m, size=2 * int(rng.integers(1, 5)))]
        assert_close(student.gaussian_moment(K, idx), ref.gaussian_moment(K, idx), rtol=1e-9, atol=1e-12,
                     name=f"E[X_{idx}] (m = {m})")


@points(1)
def test_gaussian_moment_single_variable(student):
    "gaussian_moment of a single variable, E[X^(2k)], k = 1..4"
    rng = rng_for("gaussian_moment_single_variable")
    K = _random_cov(rng, 3)
    for k in range(1, 5):
        idx = [1] * (2 * k)
        assert_close(student.gaussian_moment(K, idx), ref.gaussian_moment(K, idx), rtol=1e-9, atol=1e-12,
                     name=f"E[X_1^{2 * k}]")


@points(1)
def test_gaussian_moment_odd_and_empty(student):
    "gaussian_moment of odd order and of the empty product"
    rng = rng_for("gaussian_moment_odd_and_empty")
    K = _random_cov(rng, 3)
    for idx in [[0], [0, 1, 2], [2, 2, 2], [0, 1, 1, 2, 0]]:
        assert_close(student.gaussian_moment(K, idx), 0.0, rtol=0, atol=1e-12, name=f"E[X_{idx}]")
    assert_close(student.gaussian_moment(K, []), ref.gaussian_moment(K, []), rtol=0, atol=1e-12, name="E[1]")


# False-fail budget 1e-4 (any course seed): the test draws its own M = 100000 Gaussian vectors, so a
# correct gaussian_moment fails only if a sample mean of the product P lands more than z = 5 exact
# standard errors from E[P]. The standard error is sqrt((E[P^2] - E[P]^2) / M) with E[P^2] from Wick's
# theorem at order 2p, not the sample's (which heavy tails underestimate). Normal tail at 5: 5.7e-7; the
# products are skewed (sample skewness <= ~60 for p = 6 over random covariances, so <= 0.2 for the mean of
# 1e5; Edgeworth correction ~1e-6 at z = 5), and one outlier moving the mean by 5 standard errors needs a
# factor beyond ~7 of its standard deviations (P ~ 1e-8 over the draw): < 1e-5 per check, union bound over
# 2 checks: P(fail) < 1e-4.
@points(1)
def test_gaussian_moment_monte_carlo(student):
    "gaussian_moment agrees with a Monte Carlo average (statistical, 5 standard errors)"
    rng = rng_for("gaussian_moment_monte_carlo")
    K = _random_cov(rng, 3)
    X = rng.multivariate_normal(np.zeros(3), K, size=100_000)
    for idx in [[0, 1, 1, 2], [0, 0, 1, 2, 2, 2]]:
        prod = np.prod(X[:, idx], axis=1)
        var = ref.gaussian_moment(K, idx + idx) - ref.gaussian_moment(K, idx) ** 2
        se = np.sqrt(var / len(prod))
        assert_close(student.gaussian_moment(K, idx), prod.mean(), rtol=0, atol=5 * se,
                     name=f"E[X_{idx}] against Monte Carlo")


@points(1)
def test_gaussian_moment_degenerate(student):
    "gaussian_moment for a singular covariance, a zero covariance, one variable, and p = 10"
    rng = rng_for("gaussian_moment_degenerate")
    v = rng.normal(size=3)
    cases = [(np.outer(v, v), [0, 1, 2, 2]), (np.outer(v, v), [int(i) for i in rng.integers(0, 3, 6)]),
             (np.zeros((2, 2)), [0, 1]), (np.zeros((2, 2)), []), (np.array([[float(rng.uniform(0.5, 2))]]), [0] * 6),
             (_random_cov(rng, 2), [int(i) for i in rng.integers(0, 2, 10)])]
    for K, idx in cases:
        assert_close(student.gaussian_moment(K, idx), ref.gaussian_moment(K, idx), rtol=1e-9, atol=1e-12,
                     name=f"E[X_{idx}] (K of shape {K.shape}, rank {np.linalg.matrix_rank(K)})")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(2)
def test_cumulants_gaussian(student):
    "moments_to_cumulants of Gaussian vectors with a mean (p = 4, 5)"
    rng = rng_for("cumulants_gaussian")
    for p in [4, 5]:
        K = _random_cov(rng, 3)
        idx = [int(i) for i in rng.integers(0, 3, size=p)]
        mean = rng.normal(size=p)
        moments = ref.gaussian_subset_moments(K, idx, mean)
        assert_close(student.moments_to_cumulants(moments), ref.moments_to_cumulants(moments),
                     rtol=1e-8, atol=1e-9, name=f"cumulants (Gaussian, p = {p})")


@points(3)
def test_cumulants_non_gaussian(student):
    "moments_to_cumulants of discrete (non-Gaussian) distributions, p = 3, 5, 6"
    rng = rng_for("cumulants_non_gaussian")
    for p in [3, 5, 6]:
        atoms = rng.normal(size=(7, p)) + rng.normal(size=p)
        probs = rng.dirichlet(np.ones(7))
        moments = np.array([np.sum(probs * np.prod(atoms[:, [i for i in range(p) if mask >> i & 1]], axis=1))
                            for mask in range(2**p)])
        assert_close(student.moments_to_cumulants(moments), ref.moments_to_cumulants(moments),
                     rtol=1e-8, atol=1e-9, name=f"joint cumulants (p = {p})")


@points(1)
def test_cumulants_single_variable(student):
    "moments_to_cumulants on six copies of one non-Gaussian variable (kappa_4 is not the central moment)"
    rng = rng_for("cumulants_single_variable")
    values = rng.exponential(size=5)
    probs = rng.dirichlet(np.ones(5))
    power = [np.sum(probs * values**r) for r in range(7)]
    moments = np.array([power[bin(mask).count("1")] for mask in range(2**6)])
    assert_close(student.moments_to_cumulants(moments), ref.moments_to_cumulants(moments),
                 rtol=1e-8, atol=1e-9, name="cumulants of (X, X, X, X, X, X)")


@points(1)
def test_cumulants_small_p(student):
    "moments_to_cumulants for p = 0, 1, 2"
    rng = rng_for("cumulants_small_p")
    for p in [0, 1, 2]:
        moments = np.concatenate([[1.0], rng.normal(size=2**p - 1)])
        assert_close(student.moments_to_cumulants(moments), ref.moments_to_cumulants(moments),
                     rtol=1e-9, atol=1e-12, name=f"cumulants for p = {p}")


@points(1)
def test_cumulants_constants_and_p7(student):
    "moments_to_cumulants of constants (no fluctuation) and of seven variables"
    rng = rng_for("cumulants_constants_and_p7")
    c = rng.normal(size=4)
    moments = np.array([np.prod(c[[i for i in range(4) if mask >> i & 1]]) for mask in range(16)])
    assert_close(student.moments_to_cumulants(moments), ref.moments_to_cumulants(moments),
                 rtol=1e-8, atol=1e-10, name="cumulants of four constants")
    atoms, probs = rng.normal(size=(6, 7)) + 0.5, rng.dirichlet(np.ones(6))
    moments = np.array([np.sum(probs * np.prod(atoms[:, [i for i in range(7) if mask >> i & 1]], axis=1))
                        for mask in range(2**7)])
    assert_close(student.moments_to_cumulants(moments), ref.moments_to_cumulants(moments),
                 rtol=1e-8, atol=1e-9, name="joint cumulants (p = 7)")


@points(1)
def test_cumulants_independent_blocks(student):
    "mixed cumulants of independent groups of variables vanish"
    rng = rng_for("cumulants_independent_blocks")
    a_vals, b_vals = rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    pa, pb = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(3))
    # variables 0, 1 from group A; 2, 3 from group B, independent of A
    moments = np.zeros(16)
    for mask in range(16):
        ia = [i for i in (0, 1) if mask >> i & 1]
        ib = [i - 2 for i in (2, 3) if mask >> i & 1]
        moments[mask] = np.sum(pa * np.prod(a_vals[:, ia], axis=1)) * np.sum(pb * np.prod(b_vals[:, ib], axis=1))
    assert_close(student.moments_to_cumulants(moments), ref.moments_to_cumulants(moments),
                 rtol=1e-8, atol=1e-10, name="cumulants of two independent pairs")


# %% tags=["wrong"]
# wrong: pairings from all permutations cut into consecutive pairs, without removing duplicates
# hint: A pairing is a set of pairs, so the permutations of p objects list each of the (p − 1)!!
#   pairings many times (the pairs in every order): keep each pairing once, in the canonical order
#   of eq. (3.14) and Exercise 3.1.
def pair_partitions(p):
    if p % 2:
        return []
    return [tuple(tuple(sorted(perm[k:k + 2])) for k in range(0, p, 2)) for perm in itertools.permutations(range(p))]


# %% tags=["wrong"]
# wrong: no pairing of the empty set: pair_partitions(0) = [], so the empty product gets moment 0
# hint: The empty set has exactly one pairing, the empty one: pair_partitions(0) is [()], and the moment
#   of the empty product is E[1] = 1 (eq. (3.14), Exercise 3.1).
_pairings_all = pair_partitions


def pair_partitions(p):
    return _pairings_all(p) if p > 0 else []


# %% tags=["wrong"]
# wrong: pairings listed in another order (the partner of 0 runs from p-1 down to 1)
# hint: The canonical order pairs 0 with its partners j = 1, 2, ..., p − 1 in increasing order, and the
#   rest recursively the same way: the list is sorted lexicographically (Exercise 3.1).
def pair_partitions(p):
    def rec(items):
        if not items:
            return [()]
        out = []
        for k in reversed(range(1, len(items))):
            rest = items[1:k] + items[k + 1:]
            out += [((items[0], items[k]),) + tail for tail in rec(rest)]
        return out
    return rec(tuple(range(p))) if p % 2 == 0 else []


# %% tags=["rewrite"]
# rewrite: the same reversed order, by sorting the canonical pairings in decreasing order
_pairings_canonical = pair_partitions


def pair_partitions(p):
    return sorted(_pairings_canonical(p), reverse=True)


# %% tags=["wrong"]
# wrong: K indexed by the positions of the pairing instead of the variable indices idx[a]
# hint: A pairing pairs positions a, b of the product X_{i_1}⋯X_{i_p}; the covariance of that pair is
#   K[idx[a], idx[b]], indexed by the variables, not by the positions (eq. (3.14)).
def gaussian_moment(K, idx):
    K = np.asarray(K, dtype=float)
    return float(sum(np.prod([K[a % len(K), b % len(K)] for a, b in pi]) for pi in pair_partitions(len(idx))))


# %% tags=["wrong"]
# wrong: Wick's theorem summed over pairs of distinct index *values* (misses repeated variables)
# hint: Wick's theorem sums over every pairing of the p factors, also those that pair a variable with
#   itself (E[X_i²] = K_ii): no pairing is skipped when an index repeats (eq. (3.14)).
def gaussian_moment(K, idx):
    K = np.asarray(K, dtype=float)
    if len(idx) % 2:
        return 0.0
    total = 0.0
    for pi in pair_partitions(len(idx)):
        if all(idx[a] != idx[b] for a, b in pi) or len(set(idx)) == len(idx):
            total += np.prod([K[idx[a], idx[b]] for a, b in pi])
    return float(total) if idx else 1.0


# %% tags=["wrong"]
# wrong: "cumulants" as central moments E[prod (X_i - E X_i)] (kappa_4 confused with the 4th central moment)
# hint: Joint cumulants are not central moments: they subtract every way of splitting the variables into
#   smaller groups (the sum over set partitions behind definition (3.15)); the two agree only up to
#   order 3 (Section 3.3).
def moments_to_cumulants(moments):
    moments = np.asarray(moments, dtype=float)
    p = int(round(math.log2(len(moments))))
    means = [moments[1 << i] for i in range(p)]
    out = np.zeros(2**p)
    for mask in range(1, 2**p):
        members = [i for i in range(p) if mask >> i & 1]
        total = 0.0
        for sub in range(2**p):
            if sub & ~mask:
                continue
            rest = [i for i in members if not sub >> i & 1]
            total += moments[sub] * np.prod([-means[i] for i in rest])
        out[mask] = total if len(members) > 1 else means[members[0]]
    return out


# %% tags=["wrong"]
# wrong: entry 0 (the empty set) left at moments[0] = 1 instead of 0
# hint: The empty set has no cumulant: entry 0 of the returned array is 0 by the docstring's convention,
#   even though moments[0] = E[1] = 1 (Section 3.3).
_cumulants_right = moments_to_cumulants


def moments_to_cumulants(moments):
    out = _cumulants_right(moments)
    out[0] = np.asarray(moments, dtype=float)[0]
    return out


# %% tags=["wrong"]
# wrong: Moebius weights without the factorial, (-1)**(k-1) only
# hint: In the moment-to-cumulant formula a set partition with k blocks has the weight (−1)^{k−1}(k −
#   1)!, with the factorial (Section 3.3, definition (3.15)).
def moments_to_cumulants(moments):
    moments = np.asarray(moments, dtype=float)
    p = int(round(math.log2(len(moments))))

    def parts(members):
        if not members:
            yield []
            return
        for size in range(len(members)):
            for others in itertools.combinations(members[1:], size):
                rest = [x for x in members[1:] if x not in others]
                for tail in parts(rest):
                    yield [(members[0],) + others] + tail

    out = np.zeros(2**p)
    for mask in range(1, 2**p):
        members = [i for i in range(p) if mask >> i & 1]
        out[mask] = sum((-1.0) ** (len(P) - 1) * np.prod([moments[sum(1 << i for i in B)] for B in P])
                        for P in parts(members))
    return out


# %% tags=["alternative"]
# alternative: iterative pairings (stack), Wick by the recursion E[X_a rest] = sum_b K_ab E[rest without b], cumulants by the recursion over the block containing the smallest element
def pair_partitions(p):
    if p % 2:
        return []
    out = []
    stack = [((), tuple(range(p)))]
    while stack:
        done, left = stack.pop()
        if not left:
            out.append(done)
            continue
        for k in reversed(range(1, len(left))):
            stack.append((done + ((left[0], left[k]),), left[1:k] + left[k + 1:]))
    return out


def gaussian_moment(K, idx):
    K = np.asarray(K, dtype=float)
    idx = tuple(int(i) for i in idx)
    if not idx:
        return 1.0
    if len(idx) % 2:
        return 0.0
    first, rest = idx[0], idx[1:]
    return float(sum(K[first, rest[k]] * gaussian_moment(K, rest[:k] + rest[k + 1:]) for k in range(len(rest))))


def moments_to_cumulants(moments):
    moments = np.asarray(moments, dtype=float)
    n = len(moments)
    kappa = np.zeros(n)
    for mask in sorted(range(1, n), key=lambda s: bin(s).count("1")):
        low = mask & -mask            # the smallest element of S
        rest = mask ^ low
        value = moments[mask]
        sub = rest
        while True:                   # B = {low} u sub, sub a proper subset of rest ... or all of it
            block = low | sub
            if block != mask:
                value -= kappa[block] * moments[mask ^ block]
            if sub == 0:
                break
            sub = (sub - 1) & rest
        kappa[mask] = value
    return kappa
