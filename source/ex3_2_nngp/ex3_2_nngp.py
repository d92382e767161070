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
# # ex3_2_nngp: The NNGP correspondence: exact kernels and a width lab
#
# *Notes: Section 3.4 and Exercise 3.2; conventions of Sections 3.1–3.2.*
#
# At fixed depth and infinite width, a randomly initialized network is a Gaussian process
# whose kernel obeys a layer-to-layer recursion. In this assignment you compute that kernel
# in closed form for erf and ReLU networks, iterate it through depth on a Gram matrix, and
# then check the correspondence in the lab of Exercise 3.2 by sampling actual finite
# networks.
#
# | part | function (graded) | notes |
# |---|---|---|
# | 1 | `erf_kernel(K11, K22, K12, sigma_w=1)` | (3.32) |
# | 1 | `relu_kernel(K11, K22, K12, sigma_w=2)` | (3.31), Cho & Saul |
# | 2 | `nngp_kernel(X, depth, activation, sigma_w, sigma_b)` | (3.30) iterated |
# | 3 (lab) | `sample_network_outputs(x, x2, N, M, rng)` | Ex 3.2(a,b) |
# | 3 (lab) | `stochastic_kernel_variance(N, M, rng)` | Ex 3.2(c), (3.26) and its variance (V) |
#
# **Conventions (notes, Section 3.1).** $\mathcal N(0,s)$ has *variance* $s$. All weights are
# $\mathcal N(0,\sigma_w)$, all biases $\mathcal N(0,\sigma_b)$, and the fan-in normalization is
# explicit in the network:
# $$
# z^{(1)}_i(x)=\frac{1}{\sqrt d}\sum_{j=1}^d w^{(1)}_{ij}x_j+b^{(1)}_i,\qquad
# z^{(\ell)}_i(x)=\frac{1}{\sqrt{N_{\ell-1}}}\sum_{j=1}^{N_{\ell-1}} w^{(\ell)}_{ij}\,\phi\big(z^{(\ell-1)}_j(x)\big)+b^{(\ell)}_i,
# $$
# for $\ell=2,\dots,L+1$, with $L$ hidden layers and output $f=z^{(L+1)}$. The first-layer
# kernel is $K^{(1)}(x,x')=\sigma_w\,x\cdot x'/d+\sigma_b$.
#
# **Random numbers.** Functions that sample take an argument `rng`, which may be a
# `numpy.random.Generator` *or* an integer seed: start with `rng = np.random.default_rng(rng)`
# (a Generator passes through unchanged). The hidden tests send integer seeds and test
# sampled quantities statistically (theory within a few standard errors), so any correct
# random stream passes.

# %% tags=["setup"]
import numpy as np
from scipy import special
import matplotlib.pyplot as plt

# %% tags=["params"]
def draw_params(rng):
    """This year's inputs of Exercise 3.2: dimension d, the norms |x|, |x'| and the inner product x.x'."""
    norm_x = round(float(rng.uniform(1.0, 3.0)), 2)
    norm_x2 = round(float(rng.uniform(1.0, 3.0)), 2)
    cos = round(float(rng.uniform(0.3, 0.8)), 2)
    return {"d": 8, "norm_x": norm_x, "norm_x2": norm_x2, "dot": round(cos * norm_x * norm_x2, 4)}


# %% tags=["provided"]
def exercise_inputs():
    """The two inputs x, x' of Exercise 3.2 for this year (arrays of shape (d,)).

    |x| = PARAMS["norm_x"], |x'| = PARAMS["norm_x2"], x . x' = PARAMS["dot"]; the pair is
    rotated by a fixed random orthogonal matrix so that no coordinate is special (the
    network's distribution is rotation invariant, so only the norms and x . x' matter).
    """
    d = PARAMS["d"]
    cos = PARAMS["dot"] / (PARAMS["norm_x"] * PARAMS["norm_x2"])
    Q, _ = np.linalg.qr(np.random.default_rng(2024).standard_normal((d, d)))
    x = PARAMS["norm_x"] * Q[:, 0]
    x2 = PARAMS["norm_x2"] * (cos * Q[:, 0] + np.sqrt(1 - cos**2) * Q[:, 1])
    return x, x2


def first_layer_kernel(x, x2, sigma_w=1.0, sigma_b=0.0):
    """(K11, K22, K12) of the first layer, K1(x, x') = sigma_w x.x'/d + sigma_b."""
    u, v = np.asarray(x, dtype=float), np.asarray(x2, dtype=float)
    d = u.shape[-1]
    return (sigma_w * u @ u / d + sigma_b, sigma_w * v @ v / d + sigma_b, sigma_w * u @ v / d + sigma_b)


# %% [markdown]
# ## 1. Exact kernels for erf and ReLU
#
# Conditional on layer $\ell-1$, each $z^{(\ell)}_i$ is a sum of many independent terms, and at
# infinite width the kernel becomes deterministic (Section 3.4):
# $$
# \bar K^{(\ell)}(x,x') = \sigma_w\,\mathbb E_{(u,v)\sim\mathcal N(0,\Sigma)}\big[\phi(u)\,\phi(v)\big]+\sigma_b,
# \qquad \Sigma=\begin{pmatrix}K_{11}&K_{12}\\K_{12}&K_{22}\end{pmatrix}, \tag{3.30}
# $$
# with $K_{11}=\bar K^{(\ell-1)}(x,x)$, $K_{22}=\bar K^{(\ell-1)}(x',x')$, $K_{12}=\bar K^{(\ell-1)}(x,x')$.
# For two activations the two-dimensional Gaussian integral has a closed form. For ReLU,
# $\phi(u)=\max(u,0)$, the *arc-cosine kernel* of Cho and Saul,
# $$
# \sigma_w\,\mathbb E[\phi(u)\phi(v)] = \frac{\sigma_w}{2\pi}\sqrt{K_{11}K_{22}}\,
# \big(\sin\theta+(\pi-\theta)\cos\theta\big),\qquad
# \cos\theta=\frac{K_{12}}{\sqrt{K_{11}K_{22}}}, \tag{3.31}
# $$
# and for $\phi=\mathrm{erf}$ (Williams 1997)
# $$
# \sigma_w\,\mathbb E[\mathrm{erf}(u)\,\mathrm{erf}(v)] = \sigma_w\,\frac{2}{\pi}\arcsin
# \frac{2K_{12}}{\sqrt{(1+2K_{11})(1+2K_{22})}}. \tag{3.32}
# $$
# For the one-hidden-layer erf network of Exercise 3.2 with unit variances ($\sigma_w=1$,
# no biases), $K_{11}=|x|^2/d$, $K_{22}=|x'|^2/d$, $K_{12}=x\cdot x'/d$, and (3.32) is the
# covariance of $f(x)$ and $f(x')$.
#
# **Tasks.** Implement `erf_kernel` and `relu_kernel`. They return $\sigma_w\,\mathbb E[\phi(u)\phi(v)]$
# (no bias: `nngp_kernel` adds $\sigma_b$). They must work elementwise on numpy arrays
# (broadcasting `K11`, `K22`, `K12`), which is what makes part 2 a few lines. Guard
# against round-off: $|K_{12}|/\sqrt{K_{11}K_{22}}$ can exceed 1 by $10^{-16}$.

# %% tags=["graded"]
def erf_kernel(K11, K22, K12, sigma_w=1):
    """Next-layer NNGP kernel of an erf layer, sigma_w E[erf(u) erf(v)] (notes, (3.32)).

    (u, v) ~ N(0, [[K11, K12], [K12, K22]]) are the previous layer's preactivations at the
    two inputs, and the result is
        sigma_w * (2/pi) * arcsin(2 K12 / sqrt((1 + 2 K11) (1 + 2 K22))).

    Args:
        K11, K22: floats or numpy arrays >= 0, the previous layer's variances K(x, x), K(x', x').
        K12: float or numpy array, the previous layer's covariance K(x, x'), |K12| <= sqrt(K11 K22).
        sigma_w: float > 0, the weight variance of the layer (default 1).
    Returns:
        float or np.ndarray of the broadcast shape of the arguments.
    """
    K11, K22, K12 = (np.asarray(a, dtype=float) for a in (K11, K22, K12))
    arg = 2.0 * K12 / np.sqrt((1.0 + 2.0 * K11) * (1.0 + 2.0 * K22))
    return sigma_w * 2.0 / np.pi * np.arcsin(np.clip(arg, -1.0, 1.0))


# %% tags=["graded"]
def relu_kernel(K11, K22, K12, sigma_w=2):
    """Next-layer NNGP kernel of a ReLU layer, sigma_w E[relu(u) relu(v)] (notes, (3.31)).

    (u, v) ~ N(0, [[K11, K12], [K12, K22]]); the arc-cosine kernel of Cho and Saul,
        sigma_w / (2 pi) * sqrt(K11 K22) * (sin(theta) + (pi - theta) cos(theta)),
        cos(theta) = K12 / sqrt(K11 K22)  (clipped to [-1, 1] against round-off).

    Args:
        K11, K22: floats or numpy arrays >= 0, the previous layer's variances.
        K12: float or numpy array, the previous layer's covariance, |K12| <= sqrt(K11 K22).
        sigma_w: float > 0, the weight variance (default 2, He initialization: then the
            diagonal is preserved, relu_kernel(K, K, K) = K).
    Returns:
        float or np.ndarray of the broadcast shape. Where K11 * K22 == 0 (an input with zero
        preactivation variance) the result is 0.
    """
    K11, K22, K12 = (np.asarray(a, dtype=float) for a in (K11, K22, K12))
    norm = np.sqrt(K11 * K22)
    safe = np.where(norm > 0, norm, 1.0)
    cos = np.clip(K12 / safe, -1.0, 1.0)
    theta = np.arccos(cos)
    value = sigma_w / (2.0 * np.pi) * norm * (np.sin(theta) + (np.pi - theta) * cos)
    return np.where(norm > 0, value, 0.0)


# %% tags=["check"]
@check
def check_kernels_special_values():
    "uncorrelated inputs, the ReLU diagonal at He initialization, and broadcasting"
    assert np.isclose(erf_kernel(0.7, 1.3, 0.0), 0.0), "erf is odd: K12 = 0 gives 0"
    assert np.isclose(relu_kernel(1.5, 1.5, 1.5), 1.5), "at sigma_w = 2 the ReLU map keeps the diagonal"
    assert np.isclose(relu_kernel(1.0, 4.0, 0.0, 1.0), 2.0 / (2 * np.pi)), "K12 = 0: sigma_w sqrt(K11 K22) / (2 pi)"
    assert np.isclose(relu_kernel(1.0, 1.0, -1.0), 0.0), "anti-aligned inputs are never both positive"
    assert np.isclose(erf_kernel(0.5, 0.5, 0.5, 3.0), 3.0 * 2 / np.pi * np.arcsin(0.5)), "sigma_w multiplies"
    out = np.asarray(relu_kernel(np.ones((3, 1)), np.ones((1, 4)), np.zeros((3, 4))))
    assert out.shape == (3, 4), "the kernels should broadcast their arguments"


@check
def check_kernels_monte_carlo():
    "both closed forms agree with a Monte Carlo average over (u, v)"
    rng = np.random.default_rng(0)
    K11, K22, K12 = 0.8, 1.7, -0.6
    L = np.linalg.cholesky([[K11, K12], [K12, K22]])
    u, v = L @ rng.standard_normal((2, 400_000))
    for name, fn, phi in [("erf", erf_kernel, special.erf), ("relu", relu_kernel, lambda t: np.maximum(t, 0))]:
        sample = 1.3 * phi(u) * phi(v)
        se = sample.std() / np.sqrt(sample.size)
        assert abs(fn(K11, K22, K12, 1.3) - sample.mean()) < 5 * se, f"{name}_kernel disagrees with Monte Carlo"


# %% [markdown]
# **Derivation (written).** Derive (3.31) and (3.32). *Hint (Price's theorem):* for a
# centred Gaussian pair, $\partial_{K_{12}}\mathbb E[\phi(u)\phi(v)]=\mathbb E[\phi'(u)\phi'(v)]$
# (prove it from the Fourier representation of the Gaussian density, or by Wick's theorem on
# polynomials). Integrate in $K_{12}$ from $0$, where the expectation factorizes.

# %% [markdown] tags=["answer"] points=3
# *Model answer.* **Price's theorem.** The density of $(u,v)$ is
# $\int\frac{d^2k}{(2\pi)^2}e^{-\frac12k\cdot\Sigma k+ik\cdot(u,v)}$, and
# $\partial_{K_{12}}e^{-\frac12k\Sigma k} = -k_1k_2e^{-\frac12k\Sigma k}$, i.e.
# $\partial_{K_{12}}p = \partial_u\partial_vp$; integrating by parts twice,
# $\partial_{K_{12}}\mathbb E[\phi(u)\phi(v)]=\mathbb E[\phi'(u)\phi'(v)]$.
#
# **erf.** $\mathrm{erf}'(u)=\frac2{\sqrt\pi}e^{-u^2}$, and
# $\mathbb E[e^{-u^2-v^2}]=\det(I+2\Sigma)^{-1/2} = \big[(1+2K_{11})(1+2K_{22})-4K_{12}^2\big]^{-1/2}$.
# With $A=(1+2K_{11})(1+2K_{22})$, and $\mathbb E[\mathrm{erf}(u)\mathrm{erf}(v)]=0$ at $K_{12}=0$
# ($\mathrm{erf}$ is odd),
# $$
# \mathbb E[\mathrm{erf}(u)\mathrm{erf}(v)]=\frac4\pi\int_0^{K_{12}}\frac{dt}{\sqrt{A-4t^2}}
# =\frac2\pi\arcsin\frac{2K_{12}}{\sqrt A},
# $$
# which is (3.32) after multiplying by the readout variance $\sigma_w$.
#
# **ReLU.** Write $u=\sqrt{K_{11}}\,\xi_1$, $v=\sqrt{K_{22}}\,\xi_2$ with unit variances and
# correlation $\rho=\cos\theta$; by homogeneity $\mathbb E[\phi(u)\phi(v)]=\sqrt{K_{11}K_{22}}\,J(\rho)$,
# $J(\rho)=\mathbb E[\xi_1^+\xi_2^+]$. Price: $J'(\rho)=\mathbb E[\Theta(\xi_1)\Theta(\xi_2)]=
# \frac{\pi-\theta}{2\pi}$ (the probability that both are positive: the angle between the
# two half-planes is $\pi-\theta$). At $\rho=0$, $J=(\mathbb E\xi^+)^2=\frac1{2\pi}$. The candidate
# $J=\frac{1}{2\pi}(\sin\theta+(\pi-\theta)\cos\theta)$ has $J(0)=\frac1{2\pi}$ and
# $\frac{dJ}{d\rho}=\frac{dJ}{d\theta}\frac{d\theta}{d\rho} = \frac{-(\pi-\theta)\sin\theta}{2\pi}\cdot
# \frac{-1}{\sin\theta}=\frac{\pi-\theta}{2\pi}$, so it is the solution: (3.31). Checks: $\theta=0$
# gives $\sigma_wK/2$ ($=K$ for He, $\sigma_w=2$); $\theta=\pi$ gives $0$.
#
# *Rubric:* Price's theorem or an equivalent route (1); erf integral with the correct
# determinant (1); ReLU with the orthant probability and the boundary value (1).

# %% tags=["reference"]
from functools import lru_cache
from numpy.polynomial.hermite_e import hermegauss


@lru_cache(maxsize=None)
def _gh_nodes(n):
    z, w = hermegauss(n)
    return z, w / np.sqrt(2.0 * np.pi)


def _gauss2_expect(fun, K11, K22, K12, n=120):
    """E[fun(u, v)] for (u, v) ~ N(0, [[K11, K12], [K12, K22]]), K11 > 0, by 2-d Gauss-Hermite."""
    z, w = _gh_nodes(n)
    z1, z2 = z[:, None], z[None, :]
    l21 = K12 / np.sqrt(K11)
    l22 = np.sqrt(max(K22 - l21**2, 0.0))
    u = np.sqrt(K11) * z1 + 0.0 * z2
    v = l21 * z1 + l22 * z2
    return float(np.sum(w[:, None] * w[None, :] * fun(u, v)))


def _erf_product_moments(K11, K22, K12, orders=(1, 2, 3, 4), n=150):
    """E[(erf(u) erf(v))**k] for k in orders (exact targets of the statistical tests)."""
    return [_gauss2_expect(lambda u, v, k=k: (special.erf(u) * special.erf(v)) ** k, K11, K22, K12, n)
            for k in orders]


def _stochastic_kernel_exact(x, x2, N, sigma_w=1.0):
    """Exact mean and variance of the three stochastic-kernel entries, and the std of their sample variances
    per sqrt(M): returns (means, variances, relative_se_factors) with Var(s^2)/Var^2 ~ factor^2 / M."""
    K11, K22, K12 = first_layer_kernel(x, x2, sigma_w)
    means, variances, factors = [], [], []
    for a, b, c in [(K11, K11, K11), (K22, K22, K22), (K11, K22, K12)]:
        m1, m2, m3, m4 = _erf_product_moments(a, b, c)
        var_t = m2 - m1**2
        mu4_t = m4 - 4 * m3 * m1 + 6 * m2 * m1**2 - 3 * m1**4
        kappa4_t = mu4_t - 3 * var_t**2
        means.append(sigma_w * m1)
        variances.append(sigma_w**2 * var_t / N)
        factors.append(np.sqrt(kappa4_t / (N * var_t**2) + 2.0))
    return np.array(means), np.array(variances), np.array(factors)


# %% tags=["solution"]
# Independent checks. (i) `erf_kernel` against two-dimensional
# Gauss–Hermite quadrature (`numpy.polynomial.hermite_e`, probabilists' weight
# $e^{-z^2/2}$, on $u=L_{11}z_1$, $v=L_{21}z_1+L_{22}z_2$ with $\Sigma=LL^T$); (ii) `relu_kernel`
# against a one-dimensional `scipy.integrate.quad` after integrating one Gaussian
# analytically ($\mathbb E[(a+s\xi)^+]=a\Phi(a/s)+s\varphi(a/s)$) and against the same
# Gauss–Hermite rule, whose slow convergence on the kink of ReLU is printed; (iii) both
# against Monte Carlo in units of the standard error.
from scipy import integrate, stats

rng = np.random.default_rng(11)
triples = []
for _ in range(12):
    A = rng.normal(size=(2, 2)) * rng.uniform(0.2, 1.5)
    S = A @ A.T + 1e-3 * np.eye(2)
    triples.append((S[0, 0], S[1, 1], S[0, 1]))
triples += [(1.0, 1.0, 1.0), (0.5, 2.0, -1.0), (0.125, 0.125, 0.0625)]

# (i) erf: closed form vs 2-d Gauss-Hermite
for n in [50, 100, 200]:
    worst_erf = max(abs(erf_kernel(*t, 1.7) - 1.7 * _gauss2_expect(lambda u, v: special.erf(u) * special.erf(v), *t, n=n))
                    for t in triples)
    shown = f"{worst_erf:.1e}" if worst_erf >= 1e-9 else "< 1e-9"   # round-off level: a bound, not its digits
    print(f"(i)   erf_kernel vs 2-d Gauss-Hermite ({n} x {n} nodes): max abs difference {shown}")
print("      (the worst case is the largest variance, K ~ 8: erf saturates and needs more nodes)")
assert worst_erf < 1e-9


# (ii) ReLU: closed form vs 1-d quad (one Gaussian integrated analytically), and the slow GH convergence
def relu_by_quad(K11, K22, K12):
    rho = np.clip(K12 / np.sqrt(K11 * K22), -1, 1)
    s = np.sqrt(max(1 - rho**2, 0.0))
    def inner(x1):  # E[(rho x1 + s xi)^+] given x1
        a = rho * x1
        return max(a, 0.0) if s == 0 else a * stats.norm.cdf(a / s) + s * stats.norm.pdf(a / s)
    val, _ = integrate.quad(lambda x1: x1 * inner(x1) * stats.norm.pdf(x1), 0, np.inf, epsabs=1e-13, epsrel=1e-12)
    return np.sqrt(K11 * K22) * val


worst_relu = max(abs(relu_kernel(*t, 1.0) - relu_by_quad(*t)) for t in triples)
assert worst_relu < 1e-10
print("(ii)  relu_kernel vs 1-d quad: max abs difference < 1e-10")
t = triples[0]
for n in [20, 80, 320]:
    gh = _gauss2_expect(lambda u, v: np.maximum(u, 0) * np.maximum(v, 0), *t, n=n)
    print(f"      Gauss-Hermite with {n:3d}^2 nodes on ReLU: error {abs(gh - relu_kernel(*t, 1.0)):.1e} "
          "(algebraic convergence: the kink is not polynomial)")

# (iii) Monte Carlo
for t in triples[:4]:
    L = np.linalg.cholesky([[t[0], t[2]], [t[2], t[1]]])
    u, v = L @ rng.standard_normal((2, 200_000))
    for name, fn, phi in [("erf", erf_kernel, special.erf), ("relu", relu_kernel, lambda q: np.maximum(q, 0))]:
        sample = phi(u) * phi(v)
        z = (sample.mean() - fn(*t, 1.0)) / (sample.std() / np.sqrt(sample.size))
        assert abs(z) < 4.5, (name, t, z)
print("(iii) both kernels within 4.5 standard errors of Monte Carlo on 4 random covariances")

# %% [markdown]
# ## 2. Deep kernels on a Gram matrix
#
# Iterating (3.30) through the layers gives the infinite-width kernel of the output:
# $$
# \bar K^{(1)} = \sigma_w\frac{XX^T}{d}+\sigma_b,\qquad
# \bar K^{(\ell+1)}_{\mu\nu} = \sigma_w\,F\big(\bar K^{(\ell)}_{\mu\mu},\bar K^{(\ell)}_{\nu\nu},\bar K^{(\ell)}_{\mu\nu}\big)+\sigma_b,
# \quad \ell=1,\dots,L,
# $$
# where $F(K_{11},K_{22},K_{12})=\mathbb E[\phi(u)\phi(v)]$ and $X\in\mathbb R^{n\times d}$ stacks the
# inputs as rows. A network with `depth` $=L$ hidden layers has output kernel $\bar K^{(L+1)}$;
# `depth = 0` is the linear model $f=w\cdot x/\sqrt d+b$, with kernel $\bar K^{(1)}$. Each
# $\bar K^{(\ell)}$ is a covariance matrix, hence symmetric positive semidefinite.
#
# **Task.** Implement `nngp_kernel`, vectorized over the whole Gram matrix (one call of your
# kernel function per layer, with the diagonal broadcast along rows and columns).

# %% tags=["graded"]
def nngp_kernel(X, depth, activation, sigma_w, sigma_b):
    """Infinite-width (NNGP) kernel of the output of a deep network on n inputs (notes, (3.30) iterated).

    K1 = sigma_w X X^T / d + sigma_b; then, depth times,
    K <- sigma_w E[phi(u) phi(v)] + sigma_b, with (u, v) Gaussian with the current K entries,
    using erf_kernel or relu_kernel entrywise.

    Args:
        X: array of shape (n, d), one input per row.
        depth: int >= 0, the number of hidden layers L (depth 0: the linear model).
        activation: str, 'erf' or 'relu'.
        sigma_w: float > 0, weight variance of every layer.
        sigma_b: float >= 0, bias variance of every layer (including the first and the output).
    Returns:
        np.ndarray of shape (n, n): the output kernel K^{(L+1)}(x^mu, x^nu), symmetric
        positive semidefinite.
    """
    X = np.asarray(X, dtype=float)
    kernels = {"erf": erf_kernel, "relu": relu_kernel}
    if activation not in kernels:
        raise ValueError(f"activation must be 'erf' or 'relu', not {activation!r}")
    K = sigma_w * X @ X.T / X.shape[1] + sigma_b
    for _ in range(depth):
        diag = np.diag(K)
        K = kernels[activation](diag[:, None], diag[None, :], K, sigma_w) + sigma_b
    return K


# %% tags=["check"]
@check
def check_nngp_kernel_structure():
    "shape, symmetry, positive semidefiniteness; depth 0 is the linear kernel; one layer matches part 1"
    rng = np.random.default_rng(4)
    X = rng.normal(size=(6, 5))
    K0 = np.asarray(nngp_kernel(X, 0, "relu", 1.5, 0.1))
    assert K0.shape == (6, 6) and np.allclose(K0, 1.5 * X @ X.T / 5 + 0.1), "depth 0: sigma_w X X^T / d + sigma_b"
    for act in ["erf", "relu"]:
        K = np.asarray(nngp_kernel(X, 3, act, 1.8, 0.2))
        assert np.allclose(K, K.T), "the kernel should be symmetric"
        assert np.linalg.eigvalsh(K).min() > -1e-10, "the kernel should be positive semidefinite"
    K1 = np.asarray(nngp_kernel(X[:2], 1, "erf", 1.0, 0.0))
    k11, k22, k12 = first_layer_kernel(X[0], X[1])
    assert np.isclose(K1[0, 1], erf_kernel(k11, k22, k12)), "one hidden layer should reproduce erf_kernel"


@check
def check_nngp_kernel_bias_at_every_layer():
    "depth 2 is the one-layer map applied twice, with sigma_b added at every layer; a zero input stays zero (ReLU, no bias)"
    X = np.random.default_rng(6).normal(size=(3, 4))
    K = 0.7 * X @ X.T / 4 + 0.3
    for _ in range(2):
        d = np.diag(K)
        K = np.asarray(relu_kernel(d[:, None], d[None, :], K, 0.7)) + 0.3
    assert np.allclose(nngp_kernel(X, 2, "relu", 0.7, 0.3), K), \
        "K <- sigma_w F(K) + sigma_b at every layer, the first one included (sigma_w = 0.7, sigma_b = 0.3)"
    X[1] = 0.0
    K = np.asarray(nngp_kernel(X, 3, "relu", 2.0, 0.0))
    assert np.all(np.isfinite(K)) and np.allclose(K[1], 0) and np.allclose(K[:, 1], 0), \
        "an input x = 0 has zero preactivation variance: its row and column are 0 at every depth (not nan)"


@check
def check_relu_he_preserves_norms():
    "ReLU at sigma_w = 2, sigma_b = 0 (He): the diagonal |x|^2 / d survives any depth"
    X = np.random.default_rng(5).normal(size=(4, 3))
    K = np.asarray(nngp_kernel(X, 6, "relu", 2.0, 0.0))
    assert np.allclose(np.diag(K), 2.0 * np.sum(X**2, axis=1) / 3), "diagonal should be sigma_w |x|^2 / d at every depth"


# %% [markdown]
# The figure iterates the recursion for a pair of inputs and shows the correlation
# $\rho^{(\ell)}=\bar K^{(\ell)}_{12}/\sqrt{\bar K^{(\ell)}_{11}\bar K^{(\ell)}_{22}}$ layer by layer. For
# ReLU at He initialization every pair of inputs becomes perfectly correlated with depth,
# slowly (the correlation map has slope 1 at $\rho=1$, a power law, not an exponential). For
# erf with a small bias it depends on $\sigma_w$: at $\sigma_w=0.6$ all pairs align
# exponentially fast (order), at $\sigma_w=4$ they decorrelate to a common value $\rho^*<1$
# (chaos): the question of Section 3.7.

# %% tags=["figure"]
angles = np.linspace(0.05, np.pi - 0.05, 7).round(6)
X_pairs = [np.array([[1.0, 0.0], [np.cos(a), np.sin(a)]]) * np.sqrt(2) for a in angles]
depths = np.arange(0, 31)
fig, axes = plt.subplots(1, 3, figsize=(15, 4))
for ax, (act, sw, sb) in zip(axes, [("relu", 2.0, 0.0), ("erf", 0.6, 0.1), ("erf", 4.0, 0.1)]):
    for a, Xp in zip(angles, X_pairs):
        try:
            rhos = []
            for L in depths:
                K = np.asarray(nngp_kernel(Xp, int(L), act, sw, sb))
                rhos.append(K[0, 1] / np.sqrt(K[0, 0] * K[1, 1]))
            ax.plot(depths, rhos, "-", label=rf"$\rho^{{(1)}}={np.cos(a) + 0.0:+.2f}$")
        except NotImplementedError:
            pass
    ax.set(xlabel="hidden layers $L$", ylabel=r"correlation $\rho$ of the output kernel",
           title=rf"{act}, $\sigma_w={sw}$, $\sigma_b={sb}$", ylim=(-1.05, 1.05))
axes[0].legend(fontsize=7)
plt.tight_layout()
plt.show()

# %% tags=["solution"]
# Independent check. (iv) `nngp_kernel` against *actual* deep
# networks: sample a few networks of width $N=2000$ with biases, propagate the inputs, and
# compare the empirical last-layer kernel $\sigma_w\phi(z^{(L)})\cdot\phi(z^{(L)}{}')/N+\sigma_b$
# (averaged over 4 networks) with the recursion: the difference must be $O(N^{-1/2})$;
# (v) the same recursion with the Gaussian expectations done by 2-d Gauss–Hermite
# quadrature instead of the closed forms (erf); (vi) positive semidefiniteness over many
# random configurations.
def empirical_deep_kernel(X, depth, phi, sigma_w, sigma_b, N, rng):
    n, d = X.shape
    z = X @ rng.normal(0, np.sqrt(sigma_w), (d, N)) / np.sqrt(d) + rng.normal(0, np.sqrt(sigma_b), N)
    for _ in range(depth - 1):
        z = phi(z) @ rng.normal(0, np.sqrt(sigma_w), (N, N)) / np.sqrt(N) + rng.normal(0, np.sqrt(sigma_b), N)
    h = phi(z)
    return sigma_w * h @ h.T / N + sigma_b  # kernel of the output given the last hidden layer


rng = np.random.default_rng(5)
Xd = rng.normal(size=(5, 6))
for act, phi, sw, sb in [("erf", special.erf, 1.6, 0.1), ("relu", lambda q: np.maximum(q, 0), 2.0, 0.05)]:
    for depth in [1, 3]:
        emp = np.mean([empirical_deep_kernel(Xd, depth, phi, sw, sb, 2000, rng) for _ in range(4)], axis=0)
        K = nngp_kernel(Xd, depth, act, sw, sb)
        dev = np.max(np.abs(emp - K)) / np.max(np.abs(K))
        print(f"(iv)  {act}, depth {depth}: wide networks (N=2000, 4 draws) vs recursion: max rel. deviation {dev:.3f}")
        assert dev < 0.05

# (v) recursion with quadrature instead of the closed form
K = 1.3 * Xd @ Xd.T / 6 + 0.2
for _ in range(3):
    K = np.array([[1.3 * _gauss2_expect(lambda u, v: special.erf(u) * special.erf(v), K[i, i], K[j, j], K[i, j], 100)
                   for j in range(5)] for i in range(5)]) + 0.2
assert np.max(np.abs(K - nngp_kernel(Xd, 3, "erf", 1.3, 0.2))) < 1e-10
print("(v)   erf recursion by quadrature vs nngp_kernel (depth 3): < 1e-10")

# (vi) PSD over random configurations
worst_eig = min(np.linalg.eigvalsh(nngp_kernel(rng.normal(size=(8, 4)), int(rng.integers(0, 6)), act,
                                               float(rng.uniform(0.5, 4)), float(rng.uniform(0, 1)))).min()
                for act in ["erf", "relu"] for _ in range(50))
assert worst_eig > -1e-10
print("(vi)  smallest eigenvalue over 100 random Gram matrices > -1e-10 (PSD up to round-off)")

# %% [markdown]
# ## 3. Lab: the NNGP correspondence, empirically (Exercise 3.2)
#
# Two inputs $x,x'\in\mathbb R^d$ with $d=8$ and this year's norms and inner product
# (`exercise_inputs()`, from `PARAMS`). For widths $N\in\{3,30,300\}$, sample $M=10^4$
# independent initializations of the one-hidden-layer erf network
# $$
# f(x)=\frac{1}{\sqrt N}\sum_{i=1}^N c_i\,\mathrm{erf}\big(a_i\cdot x/\sqrt d\big),\qquad
# c_i,\,a_{ij}\sim\mathcal N(0,\sigma_w),\ \sigma_w=1,
# $$
# evaluated at both inputs (the same network at $x$ and at $x'$).
#
# Conditional on the first layer, $f$ is Gaussian with the **stochastic kernel**
# $$
# K^{(2)}(x,x')=\frac{\sigma_w}{N}\sum_{i=1}^N\mathrm{erf}\big(z_i(x)\big)\,\mathrm{erf}\big(z_i(x')\big),
# \qquad z_i(x)=a_i\cdot x/\sqrt d, \tag{3.26}
# $$
# a random variable (through the $a_i$) whose mean is $\bar K^{(2)}(x,x')$ of (3.32) and whose
# variance
# $$
# \mathrm{Var}\,K^{(2)}(x,x')=\frac{\sigma_w^2}{N}\,\mathrm{Var}\big(\mathrm{erf}(u)\,\mathrm{erf}(v)\big) \tag{V}
# $$
# vanishes as $N\to\infty$: that is how the kernel becomes deterministic.
#
# **Tasks.** Implement `sample_network_outputs` (the ensemble of networks) and
# `stochastic_kernel_variance` (the variance of $K^{(2)}$ across initializations). Vectorize
# over the ensemble: no Python loop over single networks.
#
# *Mind the memory.* An array of first-layer weights of shape $(M,N,d)$ takes $8MNd$ bytes:
# 19 MB in the hidden tests, but **1.9 GB** in the lab below with `FULL = True`
# ($M=10^5$, $N=300$, $d=8$), more than a laptop may spare. Two correct routes avoid it: draw
# the weights in blocks of networks (say $10^4$ at a time) and concatenate the outputs, or draw
# only the two preactivations per neuron, $(a_i\cdot x,\,a_i\cdot x')/\sqrt d$, which are jointly
# Gaussian with covariance $\frac{\sigma_w}{d}\begin{pmatrix}|x|^2&x\cdot x'\\ x\cdot x'&|x'|^2\end{pmatrix}$:
# an $(M,N,2)$ array, 480 MB at `FULL`, or blocks of it.

# %% tags=["graded"]
def sample_network_outputs(x, x2, N, M, rng, sigma_w=1.0):
    """Outputs at x and x2 of M independently initialized one-hidden-layer erf networks (Ex 3.2).

    f(x) = N**-0.5 * sum_i c_i erf(a_i . x / sqrt(d)), with c_i ~ N(0, sigma_w) and
    a_ij ~ N(0, sigma_w) (variance sigma_w), no biases; every network is evaluated at both inputs.

    Args:
        x, x2: arrays of shape (d,), the two inputs.
        N: int >= 1, the width.
        M: int >= 1, the number of independent networks.
        rng: np.random.Generator or int seed (use np.random.default_rng(rng)).
        sigma_w: float > 0, the weight variance (default 1, as in Ex 3.2).
    Returns:
        np.ndarray of shape (M, 2): row k is (f_k(x), f_k(x2)) for the k-th network.
    Memory: all M first layers at once are an (M, N, d) array of 8 M N d bytes, 1.9 GB at the
    lab's FULL = True (M = 1e5, N = 300, d = 8): draw them in blocks of networks, or draw the
    (M, N, 2) Gaussian preactivations directly. (Any correct random stream is accepted.)
    """
    rng = np.random.default_rng(rng)
    x, x2 = np.asarray(x, dtype=float), np.asarray(x2, dtype=float)
    d = x.shape[0]
    a = rng.normal(0.0, np.sqrt(sigma_w), size=(M, N, d))
    c = rng.normal(0.0, np.sqrt(sigma_w), size=(M, N))
    h = special.erf(a @ np.stack([x, x2], axis=1) / np.sqrt(d))        # (M, N, 2)
    return np.einsum("mn,mnk->mk", c, h) / np.sqrt(N)


# %% tags=["graded"]
def stochastic_kernel_variance(N, M, rng, x=None, x2=None):
    """Variance across initializations of the stochastic kernel K^(2) of the erf network (Ex 3.2(c)).

    For each of M independent first layers a_i (i = 1..N, a_ij ~ N(0, 1), sigma_w = 1),
    K^(2)(y, y') = (1/N) sum_i erf(a_i . y / sqrt(d)) erf(a_i . y' / sqrt(d))  (notes, (3.26)).

    Args:
        N: int >= 1, the width.
        M: int >= 2, the number of independent initializations.
        rng: np.random.Generator or int seed (use np.random.default_rng(rng)).
        x, x2: arrays of shape (d,); default (None): the inputs of this year's Exercise 3.2,
            exercise_inputs().
    Returns:
        np.ndarray of shape (3,): the sample variances (ddof=1) over the M initializations of
        K^(2)(x, x), K^(2)(x2, x2) and K^(2)(x, x2), in this order.
    """
    rng = np.random.default_rng(rng)
    if x is None or x2 is None:
        x, x2 = exercise_inputs()
    x, x2 = np.asarray(x, dtype=float), np.asarray(x2, dtype=float)
    d = x.shape[0]
    a = rng.standard_normal((M, N, d))
    h = special.erf(a @ np.stack([x, x2], axis=1) / np.sqrt(d))         # (M, N, 2)
    K = np.stack([np.mean(h[..., 0] ** 2, axis=1), np.mean(h[..., 1] ** 2, axis=1),
                  np.mean(h[..., 0] * h[..., 1], axis=1)], axis=1)      # (M, 3)
    return K.var(axis=0, ddof=1)


# %% tags=["check"]
@check
def check_sample_network_outputs():
    "shape (M, 2), reproducible from an int seed, and the sample covariance matches the kernel"
    xa, xb = exercise_inputs()
    f = np.asarray(sample_network_outputs(xa, xb, 30, 20_000, 1))
    assert f.shape == (20_000, 2), "return an array of shape (M, 2)"
    assert np.array_equal(f, sample_network_outputs(xa, xb, 30, 20_000, 1)), "the same seed should give the same samples"
    K11, K22, K12 = first_layer_kernel(xa, xb)
    target = [erf_kernel(K11, K11, K11), erf_kernel(K22, K22, K22), erf_kernel(K11, K22, K12)]
    for (i, j), t in zip([(0, 0), (1, 1), (0, 1)], target):
        pair = f[:, i] * f[:, j]
        assert abs(pair.mean() - t) < 5 * pair.std() / np.sqrt(len(pair)), f"covariance entry {(i, j)} is off"


@check
def check_sample_network_outputs_sigma_w_and_zero_input():
    "sigma_w is a variance of every weight; a zero input gives f = 0 (no biases); one neuron, one network"
    rng = np.random.default_rng(8)
    x = rng.normal(size=5)
    f = np.asarray(sample_network_outputs(x, np.zeros(5), 3, 20_000, np.random.default_rng(2), sigma_w=2.0))
    assert np.all(f[:, 1] == 0), "f(0) = 0 for every network: erf(0) = 0 and there are no biases"
    K11, _, _ = first_layer_kernel(x, x, 2.0)
    pair = f[:, 0] ** 2
    assert abs(pair.mean() - erf_kernel(K11, K11, K11, 2.0)) < 5 * pair.std() / np.sqrt(len(pair)), \
        "with sigma_w = 2, E f(x)^2 = erf_kernel(K11, K11, K11, 2) with K11 = 2 |x|^2 / d"
    assert np.shape(sample_network_outputs(x, x, 1, 1, 3)) == (1, 2), "N = M = 1 gives shape (1, 2)"
    f1 = np.asarray(sample_network_outputs(0.3 * x, x, 1, 20_000, 4))[:, 0]
    assert np.mean(f1**4) / np.mean(f1**2) ** 2 > 4.5, \
        "at width N = 1, f = c erf(z) is far from Gaussian (E f^4 / (E f^2)^2 is 3 for a Gaussian): sample networks"


@check
def check_stochastic_kernel_variance():
    "three nonnegative variances, shrinking roughly like 1/N"
    v4 = np.asarray(stochastic_kernel_variance(4, 4000, 0))
    v64 = np.asarray(stochastic_kernel_variance(64, 4000, 1))
    assert v4.shape == (3,) and np.all(v4 > 0), "return the three variances"
    ratio = v4 / v64
    assert np.all((ratio > 10) & (ratio < 25)), f"Var(N=4)/Var(N=64) should be about 16, got {ratio}"


@check
def check_stochastic_kernel_variance_two_initializations():
    "M = 2 (the smallest sample): the sample variance (ddof = 1) is unbiased, so its mean over many calls matches M = 20000"
    x, x2 = np.array([1.0, 0.5, -1.0, 2.0]), np.array([0.3, -1.5, 0.8, 0.0])
    small = np.mean([stochastic_kernel_variance(2, 2, s, x, x2) for s in range(1000)], axis=0)
    large = np.asarray(stochastic_kernel_variance(2, 20_000, np.random.default_rng(1), x, x2))
    assert np.all(np.abs(small / large - 1) < 0.25), \
        f"at M = 2 the variances average to {small / large} of the M = 20000 ones: divide by M - 1 (ddof = 1)"


# %% [markdown]
# **(a)** Histograms of $f(x)$ at $N=3,30,300$ against the Gaussian density with variance
# $\bar K^{(2)}(x,x)$ (3.32). The figure also prints the excess kurtosis
# $\kappa_4/\kappa_2^2$ of each sample: at one hidden layer it is exactly
# $3\,\mathrm{Var}(\phi(u)^2)/(N\,\mathbb E[\phi(u)^2]^2)$, a $1/N$ effect.
#
# Set `FULL = True` for $M=10^5$ networks (slower; see *Mind the memory* above: an implementation
# that holds all the $(M,N,d)$ weights at once needs 1.9 GB there).

# %% tags=["figure"]
FULL = False
M_lab = 100_000 if FULL else 10_000
widths = [3, 30, 300]
x_ex, x2_ex = exercise_inputs()
K11_ex, K22_ex, K12_ex = first_layer_kernel(x_ex, x2_ex)
samples = {}
try:
    for k, N in enumerate(widths):
        samples[N] = np.asarray(sample_network_outputs(x_ex, x2_ex, N, M_lab, 100 + k))
except NotImplementedError:
    print("sample_network_outputs is not implemented yet")
if samples:
    var_pred = erf_kernel(K11_ex, K11_ex, K11_ex)
    grid = np.linspace(-4, 4, 400) * np.sqrt(var_pred)
    fig, axes = plt.subplots(1, 3, figsize=(15, 3.8), sharey=True)
    for ax, N in zip(axes, widths):
        f = samples[N][:, 0]
        ax.hist(f, bins=80, range=(grid[0], grid[-1]), density=True, alpha=0.6, label=f"$N={N}$, $M={M_lab}$")
        ax.plot(grid, np.exp(-grid**2 / (2 * var_pred)) / np.sqrt(2 * np.pi * var_pred), "k",
                label=r"$\mathcal{N}(0,\bar{K}^{(2)}(x,x))$")
        excess = np.mean(f**4) / np.mean(f**2) ** 2 - 3
        zq, wq = np.polynomial.hermite_e.hermegauss(120)
        phi2 = special.erf(np.sqrt(K11_ex) * zq) ** 2
        m_2, m_4 = wq @ phi2 / np.sqrt(2 * np.pi), wq @ phi2**2 / np.sqrt(2 * np.pi)
        ax.set(xlabel="$f(x)$", title=f"N = {N}: excess kurtosis {excess:+.2f} (exact {3 * (m_4 - m_2**2) / (N * m_2**2):.2f})")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("density")
    plt.tight_layout()
    plt.show()

# %% [markdown]
# **(b)** Scatter plots of $(f(x),f(x'))$ with the ellipse $v^T\bar K^{-1}v=4$ of the predicted
# $2\times2$ kernel matrix, and the sample covariance next to the prediction.

# %% tags=["figure"]
if samples:
    Kbar = np.array([[erf_kernel(K11_ex, K11_ex, K11_ex), erf_kernel(K11_ex, K22_ex, K12_ex)],
                     [erf_kernel(K11_ex, K22_ex, K12_ex), erf_kernel(K22_ex, K22_ex, K22_ex)]])
    evals, evecs = np.linalg.eigh(Kbar)
    t = np.linspace(0, 2 * np.pi, 200)
    ellipse = evecs @ (2 * np.sqrt(evals)[:, None] * np.stack([np.cos(t), np.sin(t)]))
    print("predicted kernel matrix  [[K(x,x), K(x,x')], [K(x',x), K(x',x')]] =", np.round(Kbar, 4).tolist())
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), sharex=True, sharey=True)
    for ax, N in zip(axes, widths):
        f = samples[N]
        C = f.T @ f / len(f)    # the mean is zero by symmetry
        print(f"N = {N:3d}: sample second-moment matrix = {np.round(C, 4).tolist()}")
        ax.plot(f[:3000, 0], f[:3000, 1], ".", ms=2, alpha=0.5)
        ax.plot(ellipse[0], ellipse[1], "k", lw=1.5, label="2-sigma ellipse of the kernel")
        ax.set(xlabel="$f(x)$", title=f"N = {N}")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("$f(x')$")
    plt.tight_layout()
    plt.show()

# %% [markdown]
# **(c)** The variance of the stochastic kernel against the width, with a least-squares fit
# of $\log\mathrm{Var}$ against $\log N$ (slope $-1$ expected).

# %% tags=["figure"]
Ns_var = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256])
M_var = 20_000 if FULL else 4_000
try:
    variances = np.array([stochastic_kernel_variance(int(N), M_var, 7 + k) for k, N in enumerate(Ns_var)])
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for j, label in enumerate(["$K^{(2)}(x,x)$", "$K^{(2)}(x',x')$", "$K^{(2)}(x,x')$"]):
        slope, icpt = np.polyfit(np.log(Ns_var), np.log(variances[:, j]), 1)
        ax.loglog(Ns_var, variances[:, j], "o", color=f"C{j}", label=f"{label}: fitted slope {slope:.3f}")
        ax.loglog(Ns_var, np.exp(icpt) * Ns_var**slope, "-", color=f"C{j}", lw=0.8)
    ax.set(xlabel="width $N$", ylabel="variance over initializations", title="the stochastic kernel concentrates like $1/N$")
    ax.legend(fontsize=8)
    plt.show()
except NotImplementedError:
    print("stochastic_kernel_variance is not implemented yet")

# %% tags=["solution"]
# Independent checks. (vii) The sample covariances of part (b), in
# units of their standard errors, at every width (the covariance is exactly $\bar K^{(2)}$ at
# *any* $N$); (viii) $N\cdot\mathrm{Var}\,K^{(2)}$ against $\sigma_w^2\,\mathrm{Var}(\mathrm{erf}(u)\mathrm{erf}(v))$
# from 2-d Gauss–Hermite quadrature (V), in units of the standard error of a sample
# variance; (ix) the fourth moment of $f(x)$ against its exact finite-$N$ value
# $3\,\mathbb E[(K^{(2)})^2] = 3\big(\bar K^2+\mathrm{Var}\,K^{(2)}\big)$.
for N in widths:
    f = samples[N]
    for (i, j), t in zip([(0, 0), (1, 1), (0, 1)], [Kbar[0, 0], Kbar[1, 1], Kbar[0, 1]]):
        prod = f[:, i] * f[:, j]
        z = (prod.mean() - t) / (prod.std() / np.sqrt(len(prod)))
        assert abs(z) < 4.5, (N, i, j, z)
print("(vii)  sample covariances within 4.5 standard errors of the kernel at N = 3, 30, 300")

means_ex, var_exact1, factors = _stochastic_kernel_exact(x_ex, x2_ex, 1)
print("(viii) N * Var K2 (sample) / sigma_w^2 Var(phi phi') (quadrature), entries (x,x), (x',x'), (x,x'):")
for k, N in enumerate(Ns_var):
    _, var_exact, fac = _stochastic_kernel_exact(x_ex, x2_ex, int(N))
    z = (variances[k] - var_exact) / (var_exact * fac / np.sqrt(M_var))
    print(f"       N = {N:3d}: ratios {np.round(variances[k] / var_exact, 3)}, z-scores {np.round(z, 2)}")
    assert np.all(np.abs(z) < 4.5)
slopes = [np.polyfit(np.log(Ns_var), np.log(variances[:, j]), 1)[0] for j in range(3)]
print(f"       fitted slopes of log Var against log N: {np.round(slopes, 3)} (exactly -1 in expectation)")
assert np.all(np.abs(np.array(slopes) + 1) < 0.05)

for N in widths:
    f0 = samples[N][:, 0]
    m2, m4 = _erf_product_moments(K11_ex, K11_ex, K11_ex, orders=(1, 2))
    exact4 = 3 * (m2**2 + (m4 - m2**2) / N)    # 3 E[K2^2], K2 = (1/N) sum_i erf(z_i)^2
    z = (np.mean(f0**4) - exact4) / (np.std(f0**4) / np.sqrt(len(f0)))
    print(f"(ix)   N = {N:3d}: E f^4 sample {np.mean(f0**4):.4f}, exact {exact4:.4f}, Gaussian 3 K^2 = {3 * m2**2:.4f}, z = {z:+.2f}")
    assert abs(z) < 4.5

# %% [markdown]
# **Exercise 3.2, written.** (a) What do the histograms show, and what is the exact
# excess kurtosis at one hidden layer? (b) Does the sample covariance depend on $N$? Why?
# (c) Why does the variance of the stochastic kernel decay *exactly* like $1/N$ here, and
# what does that have to do with the Gaussianity of $f$?

# %% [markdown] tags=["answer"] points=3
# *Model answer.* (a) Given the first layer, $f(x)\sim\mathcal N(0,K^{(2)}(x,x))$, so $f(x)$ is a
# *scale mixture* of centred Gaussians: more peaked with heavier tails than a Gaussian
# (positive excess kurtosis), visibly so at $N=3$, indistinguishable at $N=300$. Exactly,
# $\mathbb E f^4 = 3\mathbb E[(K^{(2)})^2]=3(\bar K^2+\mathrm{Var}K^{(2)})$, so
# $\kappa_4/\kappa_2^2 = 3\mathrm{Var}K^{(2)}/\bar K^2 = 3\,\mathrm{Var}(\phi(u)^2)/(N\,\mathbb E[\phi(u)^2]^2)$, with
# $\phi=\mathrm{erf}$ and $u\sim\mathcal N(0,|x|^2/d)$.
#
# (b) No: $\mathbb E[f(x)f(x')]=\frac1N\sum_{i,j}\mathbb E[c_ic_j]\mathbb E[\phi(z_i)\phi(z'_j)]=
# \sigma_w\mathbb E[\phi(u)\phi(v)]=\bar K^{(2)}(x,x')$ for *every* $N$, since the $c_i$ are
# independent of the first layer and of each other. What the width controls is not the
# covariance but the higher cumulants (and, for deeper networks, the fluctuations of the
# kernel that feed the next layer). The samples agree with the kernel within a few
# standard errors at all three widths.
#
# (c) $K^{(2)}$ is an average of $N$ i.i.d. terms $\sigma_w\phi(z_i(x))\phi(z_i(x'))$ (the rows
# $a_i$ are independent), so its variance is $\sigma_w^2\mathrm{Var}(\phi\phi')/N$ for every $N$, not
# only asymptotically: the fitted slope is $-1$ up to sampling error. Because
# $f|K^{(2)}$ is Gaussian, all non-Gaussianity of $f$ comes from the fluctuations of $K^{(2)}$;
# as they vanish, $f$ becomes the Gaussian process with kernel $\bar K^{(2)}$: this is the
# mechanism of the NNGP limit (and, with depth, why the relevant parameter is $L/N$).
#
# *Rubric:* scale mixture / excess kurtosis $\propto1/N$ (1); covariance exact at every $N$ with
# the reason (1); exact $1/N$ from i.i.d. averaging and its link to Gaussianity (1).

# %% tags=["tests"]
def _random_triples(rng, n):
    A = rng.normal(size=(n, 2, 2)) * rng.uniform(0.3, 1.6, size=(n, 1, 1))
    S = A @ np.transpose(A, (0, 2, 1))
    return S[:, 0, 0], S[:, 1, 1], S[:, 0, 1]


def _inputs_with(rng, d, norm_x, norm_x2, cos):
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    return norm_x * Q[:, 0], norm_x2 * (cos * Q[:, 0] + np.sqrt(1 - cos**2) * Q[:, 1])


@points(2)
def test_erf_kernel_random(student):
    "erf_kernel on arrays of random covariances and a random sigma_w"
    rng = rng_for("erf_kernel_random")
    K11, K22, K12 = _random_triples(rng, 20)
    sw = float(rng.uniform(0.5, 3.0))
    assert_close(student.erf_kernel(K11, K22, K12, sw), ref.erf_kernel(K11, K22, K12, sw),
                 rtol=1e-9, atol=1e-12, name="erf_kernel(K11, K22, K12, sigma_w)")


@points(1)
def test_erf_kernel_default_and_extremes(student):
    "erf_kernel with the default sigma_w, for aligned, anti-aligned and large-variance inputs"
    rng = rng_for("erf_kernel_default")
    K = rng.uniform(0.1, 20.0, size=6)
    K2 = rng.uniform(0.1, 20.0, size=6)
    for K12 in [np.sqrt(K * K2), -np.sqrt(K * K2), 0.3 * np.sqrt(K * K2)]:
        assert_close(student.erf_kernel(K, K2, K12), ref.erf_kernel(K, K2, K12), rtol=1e-9, atol=1e-12,
                     name="erf_kernel(K11, K22, K12) with sigma_w = 1")


@points(2)
def test_relu_kernel_random(student):
    "relu_kernel on arrays of random covariances and a random sigma_w"
    rng = rng_for("relu_kernel_random")
    K11, K22, K12 = _random_triples(rng, 20)
    sw = float(rng.uniform(0.5, 3.0))
    assert_close(student.relu_kernel(K11, K22, K12, sw), ref.relu_kernel(K11, K22, K12, sw),
                 rtol=1e-9, atol=1e-12, name="relu_kernel(K11, K22, K12, sigma_w)")


@points(1)
def test_relu_kernel_edges(student):
    "relu_kernel at the default sigma_w, for aligned and anti-aligned inputs and zero variance"
    rng = rng_for("relu_kernel_edges")
    K = rng.uniform(0.1, 5.0, size=5)
    K2 = rng.uniform(0.1, 5.0, size=5)
    for K12 in [np.sqrt(K * K2) * (1 + 1e-15), -np.sqrt(K * K2) * (1 + 1e-15), -np.sqrt(K * K2), 0.0 * K]:
        assert_close(student.relu_kernel(K, K2, K12), ref.relu_kernel(K, K2, K12), rtol=1e-9, atol=1e-12,
                     name="relu_kernel with the default sigma_w")
    assert_close(student.relu_kernel(0.0, 1.3, 0.0, 2.0), 0.0, rtol=0, atol=1e-12,
                 name="relu_kernel with K11 = 0")


@points(1)
def test_kernels_zero_variance_and_broadcasting(student):
    "erf_kernel and relu_kernel at zero variance, on floats, and broadcast to a table as in the recursion"
    rng = rng_for("kernels_zero_variance_and_broadcasting")
    K = rng.uniform(0.2, 3.0, 4)
    for fn in ["erf_kernel", "relu_kernel"]:
        k1 = float(K[0])
        for args in [(0.0, 0.0, 0.0), (0.0, k1, 0.0), (k1, k1, k1), (k1, float(K[1]), float(0.5 * np.sqrt(K[0] * K[1])))]:
            assert_close(getattr(student, fn)(*args), getattr(ref, fn)(*args), rtol=1e-9, atol=1e-12,
                         name=f"{fn}{tuple(round(a, 3) for a in args)}")
        C = np.outer(K, K) ** 0.5 * rng.uniform(-1, 1, (4, 4))
        C = (C + C.T) / 2
        np.fill_diagonal(C, K)
        assert_close(getattr(student, fn)(K[:, None], K[None, :], C), getattr(ref, fn)(K[:, None], K[None, :], C),
                     rtol=1e-9, atol=1e-12, name=f"{fn}(diag[:, None], diag[None, :], K): a (4, 4) table")


@points(1)
def test_nngp_kernel_degenerate_inputs(student):
    "nngp_kernel for one input, for one input dimension, and with a zero input and no biases"
    rng = rng_for("nngp_kernel_degenerate_inputs")
    cases = [(rng.normal(size=(1, 5)), 2, "erf", 1.5, 0.2), (rng.normal(size=(4, 1)), 3, "relu", 2.0, 0.1),
             (np.vstack([np.zeros(4), rng.normal(size=(3, 4))]), 3, "relu", 2.0, 0.0),
             (np.vstack([rng.normal(size=(2, 4)), np.zeros(4)]), 2, "erf", 1.3, 0.0)]
    for X, depth, act, sw, sb in cases:
        assert_close(student.nngp_kernel(X, depth, act, sw, sb), ref.nngp_kernel(X, depth, act, sw, sb),
                     rtol=1e-8, atol=1e-11, name=f"nngp_kernel (X of shape {X.shape}, {act}, depth {depth}, sigma_b = {sb})")


@points(2)
def test_nngp_kernel_erf(student):
    "nngp_kernel for erf networks of depth 1 to 4 with weights and biases"
    rng = rng_for("nngp_kernel_erf")
    for depth in [1, 2, 4]:
        X = rng.normal(size=(5, int(rng.integers(2, 9))))
        sw, sb = float(rng.uniform(0.5, 4.0)), float(rng.uniform(0.0, 0.8))
        assert_close(student.nngp_kernel(X, depth, "erf", sw, sb), ref.nngp_kernel(X, depth, "erf", sw, sb),
                     rtol=1e-8, atol=1e-11, name=f"nngp_kernel (erf, depth {depth})")


@points(2)
def test_nngp_kernel_relu(student):
    "nngp_kernel for ReLU networks of depth 1 to 5 with weights and biases"
    rng = rng_for("nngp_kernel_relu")
    for depth in [1, 3, 5]:
        X = rng.normal(size=(6, int(rng.integers(2, 9))))
        sw, sb = float(rng.uniform(0.5, 3.0)), float(rng.uniform(0.0, 0.8))
        assert_close(student.nngp_kernel(X, depth, "relu", sw, sb), ref.nngp_kernel(X, depth, "relu", sw, sb),
                     rtol=1e-8, atol=1e-11, name=f"nngp_kernel (relu, depth {depth})")


@points(1)
def test_nngp_kernel_depth_zero_and_he(student):
    "nngp_kernel at depth 0, and a deep ReLU network at He initialization without biases"
    rng = rng_for("nngp_kernel_depth_zero")
    X = rng.normal(size=(4, 7))
    assert_close(student.nngp_kernel(X, 0, "erf", 1.7, 0.3), ref.nngp_kernel(X, 0, "erf", 1.7, 0.3),
                 rtol=1e-9, atol=1e-12, name="nngp_kernel at depth 0")
    assert_close(student.nngp_kernel(X, 8, "relu", 2.0, 0.0), ref.nngp_kernel(X, 8, "relu", 2.0, 0.0),
                 rtol=1e-8, atol=1e-11, name="nngp_kernel (relu, He, depth 8)")


# False-fail budget 1e-4: reproducibility holds for every correct implementation; two different seeds
# give equal outputs to np.allclose only if 400 continuous random values coincide (probability 0).
@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_sample_network_outputs_seed(student):
    "sample_network_outputs returns shape (M, 2) and is reproducible from an integer seed"
    x, x2 = ref.exercise_inputs()
    a = np.asarray(student.sample_network_outputs(x, x2, 5, 200, 3))
    b = np.asarray(student.sample_network_outputs(x, x2, 5, 200, 3))
    c = np.asarray(student.sample_network_outputs(x, x2, 5, 200, 4))
    assert a.shape == (200, 2), "expected an array of shape (M, 2)"
    assert np.array_equal(a, b), "the same seed must give the same networks"
    assert not np.allclose(a, c), "different seeds should give different networks"
    for N, M in [(1, 1), (1, 3)]:     # the smallest width and number of networks
        out = np.asarray(student.sample_network_outputs(x, x2, N, M, 5), dtype=float)
        assert out.shape == (M, 2) and np.all(np.isfinite(out)), f"expected a finite array of shape ({M}, 2) at N = {N}"


# False-fail budget 1e-4 (any stream, any course seed): 10 checks (3 second moments and 2 means at each
# of N = 3 and 30), each at z = 5 sample standard errors of a mean of M = 20000 independent networks.
# The products f f' have light (exponential) tails, so their means are close to normal: over 100 reruns of
# the reference (1000 z's) the z's had standard deviation 1.01-1.02, skewness < 0.14 and max |z| 3.6.
# Normal tail 5.7e-7 per check (1.2e-6 if the standard deviation were 1.05), union bound over 10 checks:
# P(fail) < 2e-5.
@pytest.mark.reference_input  # inputs computed from a reference result
@points(3)
def test_sample_network_outputs_covariance(student):
    "sample covariance of (f(x), f(x')) against the kernel, this year's inputs, N = 3 and 30 (statistical)"
    rng = rng_for("sample_network_outputs_covariance")
    x, x2 = ref.exercise_inputs()
    K11, K22, K12 = ref.first_layer_kernel(x, x2)
    target = {(0, 0): ref.erf_kernel(K11, K11, K11), (1, 1): ref.erf_kernel(K22, K22, K22),
              (0, 1): ref.erf_kernel(K11, K22, K12)}
    for N in [3, 30]:
        f = np.asarray(student.sample_network_outputs(x, x2, N, 20_000, int(rng.integers(2**31))), dtype=float)
        assert f.shape == (20_000, 2), "expected an array of shape (M, 2)"
        for (i, j), t in target.items():
            prod = f[:, i] * f[:, j]
            assert_close(prod.mean(), t, rtol=0, atol=5 * prod.std() / np.sqrt(len(prod)),
                         name=f"E[f f] entry {(i, j)} at N = {N} (5 standard errors)")
        assert_close(f.mean(axis=0), np.zeros(2), rtol=0, atol=5 * f.std(axis=0) / np.sqrt(len(f)),
                     name=f"mean of f at N = {N}")


# False-fail budget 1e-4 (any stream, any course seed): one check at z = 5 sample standard errors of the
# mean of f(x)^4 over M = 100000 networks. f^4 is heavy-tailed (skewness ~10, so ~0.03 for the mean) and
# the sample standard error is itself noisy (~5 %): over 100 reruns of the reference the z's had
# standard deviation 0.91 and max |z| 2.7. Normal tail 5.7e-7, with the Edgeworth correction for the
# skewness < 1e-6 at z = 5: P(fail) < 1e-5.
@points(2)
def test_sample_network_outputs_finite_width(student):
    "fourth moment of f(x) at width N = 3 against its exact finite-width value (statistical)"
    rng = rng_for("sample_network_outputs_finite_width")
    x, x2 = _inputs_with(rng, 8, np.sqrt(0.3 * 8), np.sqrt(0.5 * 8), 0.6)
    K11 = 0.3
    m2, m4 = ref._erf_product_moments(K11, K11, K11, orders=(1, 2))
    N = 3
    exact4 = 3 * (m2**2 + (m4 - m2**2) / N)
    f = np.asarray(student.sample_network_outputs(x, x2, N, 100_000, int(rng.integers(2**31))), dtype=float)
    f4 = f[:, 0] ** 4
    assert_close(f4.mean(), exact4, rtol=0, atol=5 * f4.std() / np.sqrt(len(f4)),
                 name="E[f(x)^4] at N = 3 (5 standard errors)")


# False-fail budget 1e-4 (any stream, any course seed): 2 checks at z = 5 sample standard errors of means
# over M = 20000 networks (as in test_sample_network_outputs_covariance): P(fail) < 2e-6.
@points(1)
def test_sample_network_outputs_sigma_w(student):
    "sample covariance at weight variance sigma_w = 2 (statistical)"
    rng = rng_for("sample_network_outputs_sigma_w")
    x, x2 = _inputs_with(rng, 6, 2.0, 1.5, -0.4)
    K11, K22, K12 = ref.first_layer_kernel(x, x2, 2.0)
    f = np.asarray(student.sample_network_outputs(x, x2, 10, 20_000, int(rng.integers(2**31)), 2.0), dtype=float)
    for (i, j), t in zip([(0, 0), (0, 1)], [ref.erf_kernel(K11, K11, K11, 2.0), ref.erf_kernel(K11, K22, K12, 2.0)]):
        prod = f[:, i] * f[:, j]
        assert_close(prod.mean(), t, rtol=0, atol=5 * prod.std() / np.sqrt(len(prod)),
                     name=f"E[f f] entry {(i, j)} at sigma_w = 2")


# False-fail budget 1e-4 (any stream, any course seed): 6 checks (3 entries at N = 4 and 32), each of a
# sample variance over M = 4000 initializations against the exact variance, at z = 5 exact standard errors
# (relative standard error sqrt((kappa_N - 1) / M), kappa_N the exact kurtosis of the width-N kernel,
# from _stochastic_kernel_exact). The kernel is bounded (|erf| <= 1), so the sample variance is close to
# normal at M = 4000 (100 reruns of the reference at N = 4, 300 z's: standard deviation 1.08, skewness
# 0.13, max |z| 3.2). Even with a standard deviation of 1.1 the tail at 5 is 5.5e-6 per check; union
# bound over 6: P(fail) < 4e-5.
@points(3)
def test_stochastic_kernel_variance_values(student):
    "stochastic_kernel_variance at N = 4 and N = 32 against the exact Var(phi phi')/N (statistical)"
    rng = rng_for("stochastic_kernel_variance_values")
    x, x2 = ref.exercise_inputs()
    M = 4000
    for N in [4, 32]:
        _, var_exact, fac = ref._stochastic_kernel_exact(x, x2, N)
        v = np.asarray(student.stochastic_kernel_variance(N, M, int(rng.integers(2**31))), dtype=float)
        assert_close(v, var_exact, rtol=5 * fac / np.sqrt(M), atol=0,
                     name=f"variances of K(x,x), K(x',x'), K(x,x') at N = {N} (5 standard errors)")


# False-fail budget 1e-4 (any stream, any course seed): 3 checks at z = 5 exact standard errors, as in
# test_stochastic_kernel_variance_values: P(fail) < 2e-5.
@points(1)
def test_stochastic_kernel_variance_other_inputs(student):
    "stochastic_kernel_variance with explicitly given inputs (statistical)"
    rng = rng_for("stochastic_kernel_variance_other_inputs")
    x, x2 = _inputs_with(rng, 5, 2.5, 1.2, -0.5)
    M, N = 4000, 8
    _, var_exact, fac = ref._stochastic_kernel_exact(x, x2, N)
    v = np.asarray(student.stochastic_kernel_variance(N, M, int(rng.integers(2**31)), x, x2), dtype=float)
    assert_close(v, var_exact, rtol=5 * fac / np.sqrt(M), atol=0, name="variances for the given inputs")
    for N in [1, 3]:     # the smallest number of initializations, M = 2, and the smallest width
        v = np.asarray(student.stochastic_kernel_variance(N, 2, int(rng.integers(2**31)), x, x2), dtype=float)
        assert v.shape == (3,) and np.all(np.isfinite(v)) and np.all(v >= 0), \
            f"expected three finite sample variances >= 0 at M = 2, N = {N}"


# False-fail budget 1e-4 (any stream, any course seed): at the documented minimum M = 2 the sample variance
# (ddof = 1) is s^2 = (K_1 - K_2)^2 / 2, unbiased, with Var(s^2) = Var(K)^2 (kurt_N + 1) / 2, kurt_N the
# exact kurtosis of the width-N kernel (_stochastic_kernel_exact: kurt_N + 1 = factor^2 + 2). The mean of
# R = 1000 independent calls is checked at z = 5 of its exact standard errors, for each of the 3 entries.
# One call's s^2 has skewness 2.1-2.9 (400000 reference draws), so the mean of 1000 has skewness < 0.1;
# the Edgeworth-corrected normal tail at 5 is below 1.1e-6 per entry (400 blocks of 1000 reference
# draws: standard deviation of z 0.97-1.07, max |z| 3.4): P(fail) < 4e-6. A ddof = 0 variance is half
# as large at M = 2, 10 standard errors off.
@points(1)
def test_stochastic_kernel_variance_minimum_sample(student):
    "stochastic_kernel_variance at the smallest number of initializations, M = 2 (statistical, many calls)"
    rng = rng_for("stochastic_kernel_variance_minimum_sample")
    x, x2 = ref.exercise_inputs()
    N, R = 2, 1000
    _, var_exact, fac = ref._stochastic_kernel_exact(x, x2, N)
    v = np.mean([np.asarray(student.stochastic_kernel_variance(N, 2, int(rng.integers(2**31))), dtype=float)
                 for _ in range(R)], axis=0)
    assert_close(v, var_exact, rtol=5 * np.sqrt((fac**2 + 2) / (2 * R)), atol=0,
                 name="mean of the M = 2 sample variances over 1000 calls (5 standard errors)")


# False-fail budget 1e-4 (any stream, any course seed): Var K = Var(phi phi') / N exactly, so the expected
# slope is -1 up to the small bias of log(sample variance) (< 0.001). Each log variance over M = 2000 has
# standard deviation sqrt((kappa_N - 1) / M), 0.026-0.035 at the exercise's inputs (exact kurtosis), so
# the least-squares slope over log N = log 2 ... log 128 (sum of squared deviations 9.6) has standard
# deviation < 0.035 / sqrt(9.6) = 0.011: the tolerance 0.1 is 9 of them (normal tail < 1e-15; still 6
# at a standard deviation of 0.05). A slope of -1/2 (a standard deviation) fails.
@points(1)
def test_stochastic_kernel_variance_slope(student):
    "the fitted log-log slope of the stochastic-kernel variance against the width"
    rng = rng_for("stochastic_kernel_variance_slope")
    Ns = np.array([2, 8, 32, 128])
    v = np.array([np.asarray(student.stochastic_kernel_variance(int(N), 2000, int(rng.integers(2**31))))[2]
                  for N in Ns])
    slope = np.polyfit(np.log(Ns), np.log(v), 1)[0]
    assert_close(slope, -1.0, rtol=0, atol=0.1, name="slope of log Var K(x, x') against log N")


# %% tags=["wrong"]
# wrong: erf kernel without the factors 2 (the formula for erf(u / sqrt 2))
# hint: For φ = erf the kernel is (2σ_w/π) arcsin(2K12/√((1 + 2K11)(1 + 2K22))), with the factors 2 (eq.
#   (3.32)); without them it is the kernel of erf(u/√2).
def erf_kernel(K11, K22, K12, sigma_w=1):
    K11, K22, K12 = (np.asarray(a, dtype=float) for a in (K11, K22, K12))
    return sigma_w * 2 / np.pi * np.arcsin(np.clip(K12 / np.sqrt((1 + K11) * (1 + K22)), -1, 1))


# %% tags=["rewrite"]
# rewrite: the same erf kernel without the factors 2, written with arctan instead of arcsin
def erf_kernel(K11, K22, K12, sigma_w=1):
    K11, K22, K12 = (np.asarray(a, dtype=float) for a in (K11, K22, K12))
    z = np.clip(K12 / np.sqrt((1.0 + K11) * (1.0 + K22)), -1, 1)
    return 2.0 * sigma_w * np.arctan2(z, np.sqrt(1.0 - z * z)) / np.pi


# %% tags=["wrong"]
# wrong: arc-cosine kernel with theta instead of pi - theta
# hint: The arc-cosine kernel contains sin θ + (π − θ) cos θ, with θ the angle between the two inputs
#   (eq. (3.31)); check it at θ = 0, where it must give σ_w K/2.
def relu_kernel(K11, K22, K12, sigma_w=2):
    K11, K22, K12 = (np.asarray(a, dtype=float) for a in (K11, K22, K12))
    norm = np.sqrt(K11 * K22)
    cos = np.clip(K12 / np.where(norm > 0, norm, 1.0), -1, 1)
    theta = np.arccos(cos)
    return np.where(norm > 0, sigma_w / (2 * np.pi) * norm * (np.sin(theta) + theta * cos), 0.0)


# %% tags=["wrong"]
# wrong: arc-cosine kernel without the zero-variance guard: 0/0 = nan where K11 K22 = 0
# hint: An input with zero preactivation variance (x = 0 and no bias) has φ(u) = relu(0) = 0, so its
#   kernel entries are 0: guard the division by √(K11 K22) instead of returning nan (eq. (3.31)).
def relu_kernel(K11, K22, K12, sigma_w=2):
    K11, K22, K12 = (np.asarray(a, dtype=float) for a in (K11, K22, K12))
    norm = np.sqrt(K11 * K22)
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = np.clip(K12 / norm, -1.0, 1.0)
    theta = np.arccos(cos)
    return sigma_w / (2 * np.pi) * norm * (np.sin(theta) + (np.pi - theta) * cos)


# %% tags=["wrong"]
# wrong: arccos of the unclipped cosine: nan for aligned inputs where round-off gives |cos| > 1
# hint: For aligned inputs round-off can push K12/√(K11K22) just beyond ±1, and arccos is then nan:
#   clip the cosine to [−1, 1] as the docstring says (eq. (3.31); deep ReLU networks drive every pair of
#   inputs toward alignment).
def relu_kernel(K11, K22, K12, sigma_w=2):
    K11, K22, K12 = (np.asarray(a, dtype=float) for a in (K11, K22, K12))
    norm = np.sqrt(K11 * K22)
    with np.errstate(invalid="ignore"):
        cos = K12 / np.where(norm > 0, norm, 1.0)
        theta = np.arccos(cos)
    return np.where(norm > 0, sigma_w / (2 * np.pi) * norm * (np.sin(theta) + (np.pi - theta) * cos), 0.0)


# %% tags=["wrong"]
# wrong: first-layer kernel without the fan-in factor 1/d
# hint: The first-layer kernel is K^(1)(x, x') = σ_w x·x'/d + σ_b, with the fan-in factor 1/d
#   (conventions of Section 3.1).
def nngp_kernel(X, depth, activation, sigma_w, sigma_b):
    X = np.asarray(X, dtype=float)
    fn = erf_kernel if activation == "erf" else relu_kernel
    K = sigma_w * X @ X.T + sigma_b
    for _ in range(depth):
        dg = np.diag(K)
        K = fn(dg[:, None], dg[None, :], K, sigma_w) + sigma_b
    return K


# %% tags=["wrong"]
# wrong: bias variance added only in the first layer
# hint: Every layer adds its bias: K ← σ_w E[φ(u)φ(v)] + σ_b at each step of the recursion (3.30), not
#   only in the first layer.
def nngp_kernel(X, depth, activation, sigma_w, sigma_b):
    X = np.asarray(X, dtype=float)
    fn = erf_kernel if activation == "erf" else relu_kernel
    K = sigma_w * X @ X.T / X.shape[1] + sigma_b
    for _ in range(depth):
        dg = np.diag(K)
        K = fn(dg[:, None], dg[None, :], K, sigma_w)
    return K


# %% tags=["wrong"]
# wrong: one layer too many (the loop runs depth + 1 times)
# hint: nngp_kernel applies the layer map (3.30) exactly `depth` times after the first-layer kernel
#   (depth 0 is the linear model): count the iterations of your loop.
def nngp_kernel(X, depth, activation, sigma_w, sigma_b):
    X = np.asarray(X, dtype=float)
    fn = erf_kernel if activation == "erf" else relu_kernel
    K = sigma_w * X @ X.T / X.shape[1] + sigma_b
    for _ in range(depth + 1):
        dg = np.diag(K)
        K = fn(dg[:, None], dg[None, :], K, sigma_w) + sigma_b
    return K


# %% tags=["wrong"]
# wrong: shortcut that samples (f(x), f(x')) from the Gaussian with the NNGP kernel (no finite-width effects)
# hint: Sample actual finite networks, with weights drawn for each of the M networks: at finite width N
#   the outputs are not exactly Gaussian, and that deviation is what the lab measures (Exercise
#   3.2(a,b)).
def sample_network_outputs(x, x2, N, M, rng, sigma_w=1.0):
    rng = np.random.default_rng(rng)
    K11, K22, K12 = first_layer_kernel(x, x2, sigma_w)
    C = np.array([[erf_kernel(K11, K11, K11, sigma_w), erf_kernel(K11, K22, K12, sigma_w)],
                  [erf_kernel(K11, K22, K12, sigma_w), erf_kernel(K22, K22, K22, sigma_w)]])
    return rng.multivariate_normal(np.zeros(2), C, size=M)


# %% tags=["wrong"]
# wrong: readout normalized by 1/N instead of 1/sqrt(N)
# hint: The readout is normalized by 1/√N, the fan-in normalization of the conventions (Section 3.1),
#   not by 1/N, which makes the outputs vanish as N grows.
def sample_network_outputs(x, x2, N, M, rng, sigma_w=1.0):
    rng = np.random.default_rng(rng)
    d = len(x)
    a = rng.normal(0, np.sqrt(sigma_w), (M, N, d))
    c = rng.normal(0, np.sqrt(sigma_w), (M, N))
    h = special.erf(a @ np.stack([x, x2], axis=1) / np.sqrt(d))
    return np.einsum("mn,mnk->mk", c, h) / N


# %% tags=["wrong"]
# wrong: fresh first-layer weights for x and for x' (two different networks)
# hint: f(x) and f(x') must come from the same network: draw the first-layer weights once and apply them
#   to both inputs (Exercise 3.2(a)).
def sample_network_outputs(x, x2, N, M, rng, sigma_w=1.0):
    rng = np.random.default_rng(rng)
    d = len(x)
    c = rng.normal(0, np.sqrt(sigma_w), (M, N))
    cols = [special.erf(rng.normal(0, np.sqrt(sigma_w), (M, N, d)) @ np.asarray(y, dtype=float) / np.sqrt(d))
            for y in (x, x2)]
    return np.stack([np.sum(c * h, axis=1) for h in cols], axis=1) / np.sqrt(N)


# %% tags=["wrong"]
# wrong: standard deviation instead of variance
# hint: stochastic_kernel_variance returns variances of the width-N kernel over initializations ((V) in
#   Exercise 3.2(c)), not standard deviations.
_skv_right = stochastic_kernel_variance


def stochastic_kernel_variance(N, M, rng, x=None, x2=None):
    return np.sqrt(_skv_right(N, M, rng, x, x2))


# %% tags=["wrong"]
# wrong: variance of the outputs f across initializations instead of the variance of the kernel
# hint: The variance asked for is that of the width-N kernel (1/N) Σ_i φ_i(x)φ_i(x') across
#   initializations (eq. (3.26), Exercise 3.2(c)), not the variance of products of the outputs f.
def stochastic_kernel_variance(N, M, rng, x=None, x2=None):
    if x is None or x2 is None:
        x, x2 = exercise_inputs()
    f = sample_network_outputs(x, x2, N, M, rng)
    return np.array([np.var(f[:, 0] ** 2, ddof=1), np.var(f[:, 1] ** 2, ddof=1), np.var(f[:, 0] * f[:, 1], ddof=1)])


# %% tags=["wrong"]
# wrong: the variance over the M initializations with ddof = 0 (divides by M, biased low by (M - 1)/M)
# hint: stochastic_kernel_variance returns *sample* variances over the M initializations: divide by M − 1
#   (ddof = 1), not by M; with ddof = 0 they are (M − 1)/M of the variance, half of it at M = 2 (Ex 3.2(c)).
def stochastic_kernel_variance(N, M, rng, x=None, x2=None):
    rng = np.random.default_rng(rng)
    if x is None or x2 is None:
        x, x2 = exercise_inputs()
    x, x2 = np.asarray(x, dtype=float), np.asarray(x2, dtype=float)
    d = x.shape[0]
    a = rng.standard_normal((M, N, d))
    h = special.erf(a @ np.stack([x, x2], axis=1) / np.sqrt(d))
    K = np.stack([np.mean(h[..., 0] ** 2, axis=1), np.mean(h[..., 1] ** 2, axis=1),
                  np.mean(h[..., 0] * h[..., 1], axis=1)], axis=1)
    return K.var(axis=0)


# %% tags=["alternative"]
# alternative: arctan and sqrt(det) forms of the kernels, an explicit double loop for the Gram matrix, another random stream and the sample variance written out (sum of squares / (M - 1))
def erf_kernel(K11, K22, K12, sigma_w=1):
    A = (1 + 2 * np.asarray(K11, dtype=float)) * (1 + 2 * np.asarray(K22, dtype=float))
    t = 2 * np.asarray(K12, dtype=float)
    return sigma_w * 2 / np.pi * np.arctan2(t, np.sqrt(np.maximum(A - t**2, 0.0)))


def relu_kernel(K11, K22, K12, sigma_w=2):
    K11, K22, K12 = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (K11, K22, K12)))
    prod = K11 * K22
    det = np.sqrt(np.maximum(prod - K12**2, 0.0))
    theta = np.arctan2(det, K12)   # in [0, pi]
    out = sigma_w / (2 * np.pi) * (det + (np.pi - theta) * K12)
    return np.where(prod > 0, out, 0.0)


def nngp_kernel(X, depth, activation, sigma_w, sigma_b):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    K = np.array([[sigma_w * X[i] @ X[j] / d + sigma_b for j in range(n)] for i in range(n)])
    fn = {"erf": erf_kernel, "relu": relu_kernel}[activation]
    for _ in range(depth):
        K = np.array([[float(fn(K[i, i], K[j, j], K[i, j], sigma_w)) + sigma_b for j in range(n)] for i in range(n)])
    return K


def sample_network_outputs(x, x2, N, M, rng, sigma_w=1.0):
    rng = np.random.default_rng(rng)
    d = len(x)
    c = np.sqrt(sigma_w) * rng.standard_normal((M, N))
    z = np.sqrt(sigma_w) * rng.standard_normal((M, N, d)) @ np.column_stack([x, x2]) / np.sqrt(d)
    return (c[:, :, None] * special.erf(z)).sum(axis=1) / np.sqrt(N)


def stochastic_kernel_variance(N, M, rng, x=None, x2=None):
    rng = np.random.default_rng(rng)
    if x is None or x2 is None:
        x, x2 = exercise_inputs()
    d = len(x)
    z = rng.standard_normal((M, N, d)) @ np.column_stack([x2, x]) / np.sqrt(d)   # note: columns swapped
    h1, h0 = special.erf(z[..., 0]), special.erf(z[..., 1])
    out = []
    for k in (np.mean(h0 * h0, 1), np.mean(h1 * h1, 1), np.mean(h0 * h1, 1)):
        out.append(np.sum((k - k.mean()) ** 2) / (M - 1))   # the docstring's sample variance, ddof=1
    return np.array(out)
