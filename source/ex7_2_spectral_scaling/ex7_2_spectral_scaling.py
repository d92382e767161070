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
# # ex7_2_spectral_scaling: Exponents from geometry and from spectra
#
# *Notes: Section 7.7 (7.7.1 the data-manifold argument, 7.7.2 scaling laws from kernel
# eigenvalues), Exercises 7.2 and 7.3; background in Section 4.6 (Bayesian kernel
# learning and its mode filter) and Exercise 4.5.*
#
# The quantization model (Ex 7.1) takes the Zipf exponent as an *input*. Here two
# arguments produce loss exponents as an *output*, from properties of the data: the
# dimension of the data manifold (Sharma & Kaplan 2020) and the power-law decay of a kernel
# spectrum and of the target's coefficients (Bahri et al. 2024; Bordelon et al. 2020;
# Canatar et al. 2021; Simon et al. 2023).
#
# **Conventions.** $P$ parameters, $n$ samples, exponents as in (7.1):
# $L\propto P^{-\alpha_P}$, $L\propto n^{-\alpha_n}$. Test errors are *population mean squared
# errors* $\mathbb E_x\,(f(x)-y(x))^2$ (no factor $\frac12$). $\beta$ is the **inverse
# temperature** of the Bayesian posterior of Section 4.6, i.e. the ridge parameter is
# $\beta^{-1}$ on the unnormalized loss $\frac12\sum_\mu(f(x^\mu)-y^\mu)^2$ (and $(n\beta)^{-1}$ per
# sample).
#
# **What you implement** (graded by hidden tests):
#
# | part | function | notes |
# |---|---|---|
# | 7.2(a,b,d) | `manifold_exponent(d, loss="mse")` | (7.9) |
# | 7.2(c) | `manifold_dimension(alpha_P, loss="mse")` | (7.9) inverted |
# | 7.3(a) | `spectral_learning_curve(n, a, b, beta, n_modes)` | (7.10), mode filter of Section 4.6 |
# | 7.3(a) | `spectral_exponent(a, b)` | (7.11) |
# | 7.3(a,b) | `measured_exponent(a, b, ns, beta=1.0, n_modes=10**6)` | log-log fit of (7.10) |
# | KRR | `krr_test_error(n, a, b, beta, n_modes, seed)` | kernel ridge regression on sampled data |
#
# Written answers (graded by hand): Ex 7.2(a), (c) and (d); Ex 7.3(c).

# %% tags=["setup"]
import numpy as np
from scipy import integrate, optimize, special
from scipy.interpolate import RegularGridInterpolator
import matplotlib.pyplot as plt

# %% [markdown]
# This year's spectral exponents $(a,b)$, used in the figures and by some hidden tests:

# %% tags=["params"]
def draw_params(rng):
    """This year's kernel-spectrum exponent a and target exponent b (1 < b < a + 1 < 2a + 1)."""
    a = round(float(rng.uniform(2.0, 3.0)), 2)
    return {"a": a, "b": round(float(rng.uniform(1.6, a + 1.0)), 2)}


# %% [markdown]
# ## 7.7.1 Geometry: the data-manifold argument
#
# A ReLU network computes a piecewise-linear function. Regression of a smooth target on a
# data manifold of intrinsic dimension $d$ is then piecewise-linear interpolation:
#
# 1. a network with $P$ parameters affords $\sim P$ linear pieces;
# 2. $P$ pieces tile a $d$-dimensional region with cells of linear size $s\sim P^{-1/d}$;
# 3. on a cell, a linear patch that matches the target at the vertices misses it by the
#    Taylor remainder, $|f(x)-\ell(x)|\le C\,s^2\sup|\nabla^2 f|$: **this is where smoothness
#    of the target enters** (bounded second derivatives, $f\in C^2$);
# 4. MSE is the square of the error.
#
# Hence
# $$
# L_{\rm MSE}\sim s^4\sim P^{-4/d},\qquad \alpha_P=\frac4d . \tag{7.9}
# $$
#
# **Tasks.** Implement `manifold_exponent(d, loss)` for `loss="mse"` (7.9) and
# `loss="mae"` (mean absolute error: Ex 7.2(b), how does the answer change?), and its
# inverse `manifold_dimension(alpha_P, loss)`: the intrinsic dimension implied by a measured
# exponent (Ex 7.2(c)).

# %% tags=["graded"]
def manifold_exponent(d, loss="mse"):
    """Parameter exponent alpha_P of piecewise-linear regression on a d-dim manifold (notes, eq. 7.9).

    Args:
        d: float > 0 (or np.ndarray), intrinsic dimension of the data manifold.
        loss: "mse" (mean squared error) or "mae" (mean absolute error).
    Returns:
        float (np.ndarray if d is an array): the exponent in L ~ P^-alpha_P.
    Raises:
        ValueError for any other loss.
    """
    power = {"mse": 4.0, "mae": 2.0}
    if loss not in power:
        raise ValueError(f"loss must be 'mse' or 'mae', not {loss!r}")
    return power[loss] / np.asarray(d, dtype=float) if np.ndim(d) else power[loss] / float(d)


# %% tags=["graded"]
def manifold_dimension(alpha_P, loss="mse"):
    """Intrinsic dimension d implied by a measured exponent alpha_P (inverse of eq. 7.9; Ex 7.2(c)).

    Args:
        alpha_P: float > 0 (or np.ndarray), measured parameter exponent.
        loss: "mse" or "mae", the loss the exponent was measured in.
    Returns:
        float (np.ndarray if alpha_P is an array), the dimension d with
        manifold_exponent(d, loss) == alpha_P.
    """
    power = {"mse": 4.0, "mae": 2.0}
    if loss not in power:
        raise ValueError(f"loss must be 'mse' or 'mae', not {loss!r}")
    return power[loss] / np.asarray(alpha_P, dtype=float) if np.ndim(alpha_P) else power[loss] / float(alpha_P)


# %% tags=["check"]
@check
def check_manifold():
    "manifold_exponent: d = 4 gives 1 for MSE; MAE is half of MSE; manifold_dimension inverts it"
    assert np.isclose(manifold_exponent(4), 1.0), "the default loss is MSE"
    assert np.isclose(manifold_exponent(6, "mae"), manifold_exponent(6, "mse") / 2)
    for loss in ["mse", "mae"]:
        assert np.isclose(manifold_exponent(manifold_dimension(0.3, loss), loss), 0.3)
    assert np.allclose(manifold_dimension(np.array([0.5, 1.0])), [8.0, 4.0]), "MSE: alpha_P = 4/d, so d = 4/alpha_P"
    assert np.isclose(manifold_dimension(0.25, "mae"), 8.0), "MAE: alpha_P = 2/d"
    try:
        manifold_exponent(3, "cross-entropy")
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown loss should raise ValueError")


# %% [markdown]
# **Measuring 4/d.** The provided function below performs the argument literally: it
# interpolates a smooth target $f(x)=\sin(2\pi\,w\cdot x+\varphi)$ on $[0,1]^d$ linearly between
# the nodes of a regular grid with $g$ nodes per axis, that is $P=(g-1)^d$ cells (the
# "pieces"), and measures MSE and MAE on random test points. (Multilinear interpolation on
# a grid is used instead of a triangulation; it is exact on affine functions too, so its
# error is also $O(s^2)$.) The figure fits the exponents and compares with your
# `manifold_exponent`.

# %% tags=["provided"]
def pl_interpolation_losses(P, d, n_test=20000, seed=0):
    """(pieces, MSE, MAE) of grid-linear interpolation of a smooth target on [0, 1]^d.

    g = round(P^(1/d)) + 1 nodes per axis, so pieces = (g - 1)^d cells of side s = 1/(g - 1).
    Target f(x) = sin(2 pi w.x + phi) with |w| = 1.5 (w, phi and the test points from seed).
    """
    gen = np.random.default_rng(seed)
    w = gen.standard_normal(d)
    w *= 1.5 / np.linalg.norm(w)
    phi = gen.uniform(0, 2 * np.pi)

    def f(X):
        return np.sin(2 * np.pi * X @ w + phi)

    g = max(2, int(round(P ** (1.0 / d)))) + 1
    axis = np.linspace(0.0, 1.0, g)
    nodes = np.stack(np.meshgrid(*([axis] * d), indexing="ij"), axis=-1)
    interp = RegularGridInterpolator([axis] * d, f(nodes), method="linear")
    X_test = gen.random((n_test, d))
    err = interp(X_test) - f(X_test)
    return (g - 1) ** d, float(np.mean(err**2)), float(np.mean(np.abs(err)))


# %% tags=["figure"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for d, P_list, color in [(1, [8, 16, 32, 64, 128, 256], "C0"), (2, [64, 256, 1024, 4096, 16384], "C1"),
                         (3, [125, 512, 1728, 5832, 17576], "C2")]:
    rows = np.array([pl_interpolation_losses(P, d) for P in P_list])
    for ax, col, loss in [(axes[0], 1, "mse"), (axes[1], 2, "mae")]:
        slope = -np.polyfit(np.log(rows[:, 0]), np.log(rows[:, col]), 1)[0]
        try:
            theory = f"{manifold_exponent(d, loss):.3f}"
        except NotImplementedError:
            theory = "?"
        ax.loglog(rows[:, 0], rows[:, col], "o-", color=color,
                  label=f"d = {d}: measured {slope:.3f}, manifold_exponent {theory}")
for ax, loss in zip(axes, ["MSE", "MAE"]):
    ax.set(xlabel="number of linear pieces $P$", ylabel=loss, title=f"piecewise-linear interpolation: {loss}")
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% tags=["solution"]
# Independent check: the exponents measured by interpolation, for
# $d=1,2,3$ and both losses, against `manifold_exponent`; and the number quoted in the notes,
# $d\approx50$ from $\alpha_P\approx0.076$ (Section 7.4).
for d, P_list in [(1, [16, 32, 64, 128, 256, 512]), (2, [256, 1024, 4096, 16384]), (3, [512, 1728, 5832, 17576])]:
    rows = np.array([pl_interpolation_losses(P, d, seed=3) for P in P_list])
    for col, loss in [(1, "mse"), (2, "mae")]:
        measured = -np.polyfit(np.log(rows[:, 0]), np.log(rows[:, col]), 1)[0]
        print(f"d = {d}, {loss}: measured exponent {measured:.4f}, manifold_exponent {manifold_exponent(d, loss):.4f}")
        assert abs(measured / manifold_exponent(d, loss) - 1) < 0.04
d_text = manifold_dimension(0.076)
print(f"alpha_P = 0.076 (language models, Kaplan et al.): d = {d_text:.1f} (MSE), "
      f"{manifold_dimension(0.076, 'mae'):.1f} (MAE)")
assert 50 <= d_text <= 55

# %% [markdown]
# **Exercise 7.2.** (a) Fill in the derivation of (7.9), stating precisely where smoothness
# of the target is used. (c) Taking $\alpha_P\approx0.076$ for language models at face value,
# estimate the effective dimension of the "manifold of text" (use your
# `manifold_dimension`), and discuss whether the input dimension, the embedding dimension or
# something else is being measured. (d) What does the mechanism predict for $\alpha_n$, if
# $n$ samples are what limits the resolution of the tiling?

# %% [markdown] tags=["answer"] points=6
# *Model answer.* **(a)** $P$ parameters buy $\sim P$ linear regions (up to an
# architecture-dependent constant; only the scaling matters). Spread evenly over a
# $d$-dimensional manifold of fixed volume $V$, each region has volume $V/P$ and linear size
# $s\sim(V/P)^{1/d}$. On a region, let $\ell$ be the linear interpolant of the target $f$ at its
# vertices. Taylor's theorem with remainder gives $|f(x)-\ell(x)|\le\frac12 s^2\sup|\nabla^2f|$:
# the first-order terms are reproduced exactly by $\ell$, and the bound needs $f\in C^2$ along
# the manifold (bounded second derivatives). This is the only place smoothness is used. MSE
# averages the square, $L\sim s^4\sim P^{-4/d}$. If $f$ is only Hölder-$h$ ($0<h\le1$), the
# error is $s^h$ and $\alpha_P=2h/d$; extra smoothness beyond $C^2$ does not help a
# piecewise-*linear* model.
#
# **(b)** MAE averages $|f-\ell|\sim s^2$: $\alpha_P=2/d$.
#
# **(c)** $d=4/0.076\approx53$ (MSE; near the optimum cross-entropy is quadratic in the
# logits, so it behaves like MSE; with MAE one would get $26$). This is far below the input
# dimension (context length $\times$ vocabulary, $\sim10^{7}$ one-hot coordinates) and well below
# the embedding dimension ($d_{\rm model}\sim10^3$–$10^4$). What is measured is an *intrinsic*
# dimension: the number of directions along which the data distribution actually varies at
# the scales the model resolves, as seen through the model's representation. Sharma & Kaplan
# test this by estimating $d$ from the activations with nearest-neighbour (TwoNN) estimators.
# Caveats: text is discrete, so "smooth target on a manifold" is itself a modelling
# assumption, the manifold need not have one dimension everywhere, and a network need not
# use its pieces as an even tiling; so $d\approx50$ is an effective, not a literal, dimension.
#
# **(d)** If $n$ samples set the tiling (one piece per region that contains data), the
# spacing is $s\sim n^{-1/d}$ and the same argument gives $L\sim n^{-4/d}$, i.e.
# $\alpha_n=\alpha_P=4/d$: a symmetric prediction, in contrast to the quanta model's
# $\alpha_n<\alpha_P$.
#
# *Rubric (6 points):* (a) chain pieces → spacing → Taylor remainder → square, with smoothness
# named as bounded second derivatives (2); (b) $2/d$ (1); (c) $d\approx53$ and a sensible
# discussion of intrinsic vs input/embedding dimension (2); (d) $\alpha_n=4/d$ (1).

# %% [markdown]
# ## 7.7.2 Spectra: scaling laws from kernel eigenvalues
#
# Bayesian kernel learning (Section 4.6) with $n$ samples at inverse temperature $\beta$ filters
# the eigenmodes of the kernel: writing the target as $y(x)=\sum_ky_k\varphi_k(x)$ in the
# eigenbasis of the kernel ($\int K(x,x')\varphi_k(x')\,dp(x')=\lambda_k\varphi_k(x)$, orthonormal
# under the data distribution), the posterior mean is, for dense samples,
# $$
# \mu(x)=\sum_k\frac{\lambda_k}{\lambda_k+(n\beta)^{-1}}\,y_k\varphi_k(x),
# $$
# so modes with $\lambda_k\gtrsim(n\beta)^{-1}$ are learned and the rest are projected out. Take
# power laws in a shared eigenbasis,
# $$
# \lambda_k=k^{-a}\ (a>1),\qquad y_k^2=k^{-b}\ (b>1),\qquad k=1,\dots,M .
# $$
# The test error is what the filter leaves of each mode,
# $$
# L(n)=\sum_{k=1}^{M}\Big(1-\frac{\lambda_k}{\lambda_k+(n\beta)^{-1}}\Big)^2y_k^2
# =\sum_{k=1}^{M}\frac{k^{-b}}{\big(1+n\beta\,k^{-a}\big)^2}. \tag{7.10}
# $$
# The filter switches at $k_*=(n\beta)^{1/a}$. The unlearned modes $k\gtrsim k_*$ dominate:
# $L\approx\sum_{k>k_*}k^{-b}\approx k_*^{1-b}/(b-1)$, so
# $$
# L(n)\sim n^{-(b-1)/a}. \tag{7.11}
# $$
#
# **Tasks.** Implement `spectral_learning_curve` (7.10) (a finite sum over $M=$`n_modes`
# modes, for scalar or array `n`), `spectral_exponent` (7.11), and `measured_exponent`: the
# exponent obtained by fitting (7.10) evaluated at the sample sizes `ns`, with your
# `fit_power_law`-style log-log least squares (same convention as Ex 7.1: a decreasing
# curve has a positive exponent).

# %% tags=["graded"]
def spectral_learning_curve(n, a, b, beta, n_modes):
    """Mode-filter learning curve of Bayesian kernel regression on a power-law spectrum (eq. 7.10).

    L(n) = sum_{k=1}^{M} k^-b / (1 + n beta k^-a)^2,  M = n_modes,
    i.e. kernel eigenvalues lambda_k = k^-a, target coefficients y_k^2 = k^-b, and the
    posterior-mean filter lambda_k / (lambda_k + 1/(n beta)) of Section 4.6.

    Args:
        n: float >= 0 or np.ndarray of sample sizes.
        a: float > 1, spectral decay exponent.  b: float > 1, target decay exponent.
        beta: float > 0, inverse temperature (ridge 1/beta on the unnormalized loss).
        n_modes: int M >= 1, number of modes kept.
    Returns:
        float if n is a scalar, else np.ndarray of the shape of n. At n = 0 it equals
        sum_k k^-b (nothing learned).
    """
    k = np.arange(1, int(n_modes) + 1, dtype=float)
    y2, lam = k ** (-b), k ** (-a)
    n_arr = np.asarray(n, dtype=float)
    out = np.array([np.sum(y2 / (1.0 + v * beta * lam) ** 2) for v in n_arr.ravel()]).reshape(n_arr.shape)
    return float(out) if out.ndim == 0 else out


# %% tags=["graded"]
def spectral_exponent(a, b):
    """Data exponent of kernel regression on a power-law spectrum (notes, eq. 7.11).

    alpha_n = (b - 1) / a, valid for 1 < b < 2a + 1 (see Ex 7.3(a) below).

    Args:
        a: float > 1, spectral decay (lambda_k ~ k^-a).  b: float > 1, target decay (y_k^2 ~ k^-b).
    Returns:
        float.
    """
    return (float(b) - 1.0) / float(a)


# %% tags=["graded"]
def measured_exponent(a, b, ns, beta=1.0, n_modes=10**6):
    """Exponent measured by a log-log fit of the mode-filter learning curve (eq. 7.10).

    Evaluate L(n) = spectral_learning_curve(n, a, b, beta, n_modes) at every n in ns and
    fit log L = c - exponent * log n by ordinary least squares.

    Args:
        a, b: floats > 1, spectral and target exponents.
        ns: array-like of sample sizes (> 0), at least two distinct values.
        beta: float > 0, inverse temperature.  n_modes: int, number of modes M.
    Returns:
        float, the fitted exponent (positive for a decreasing learning curve).
    """
    ns = np.asarray(ns, dtype=float)
    L = spectral_learning_curve(ns, a, b, beta, n_modes)
    slope = np.polyfit(np.log(ns), np.log(L), 1)[0]
    return float(-slope)


# %% tags=["check"]
@check
def check_spectral_curve():
    "L(0) = sum k^-b, L decreases with n, and the exponent of a = 2, b = 3 is 1"
    L0 = spectral_learning_curve(0.0, 2.0, 3.0, 1.0, 100)
    assert np.isclose(L0, np.sum(np.arange(1, 101.0) ** -3.0)), "nothing is learned at n = 0"
    L = np.asarray(spectral_learning_curve(np.array([1.0, 10.0, 100.0]), 2.0, 3.0, 1.0, 1000))
    assert L.shape == (3,) and np.all(np.diff(L) < 0)
    assert np.isclose(spectral_exponent(2.0, 3.0), 1.0)
    e = measured_exponent(2.0, 3.0, [1e3, 1e4, 1e5], n_modes=10**5)
    assert abs(e - 1.0) < 0.01, f"measured exponent {e:.3f} for a = 2, b = 3"
    assert np.isclose(spectral_exponent(1.5, 2.2), 0.8), "(b - 1)/a"
    assert np.isclose(spectral_learning_curve(10.0, 1.5, 2.5, 2.0, 50), spectral_learning_curve(20.0, 1.5, 2.5, 1.0, 50)), \
        "only n beta enters the filter"
    assert np.isclose(spectral_learning_curve(3.0, 1.5, 2.5, 0.5, 1), 1 / (1 + 1.5) ** 2), "one mode: 1/(1 + n beta)^2"
    ns = np.array([10.0, 100.0, 1000.0])
    L = np.asarray(spectral_learning_curve(ns, 1.5, 2.0, 0.5, 1000))
    assert np.isclose(measured_exponent(1.5, 2.0, ns, beta=0.5, n_modes=1000), -np.polyfit(np.log(ns), np.log(L), 1)[0]), \
        "the least-squares log-log slope of your own curve at these ns (a, b, beta, n_modes passed on)"


# %% [markdown]
# **Exercise 7.3(a).** Derive (7.11) from (7.10) and check that the crossover modes
# $k\sim k_*$ do not change the exponent. *Hint:* substitute $k=k_*u$ and turn the sum into an
# integral; when does that integral converge, and what happens when it does not? (Bonus:
# evaluate it, with $v=u^a$, as a Beta function.)

# %% [markdown] tags=["answer"] points=3
# *Model answer.* Substitute $k=k_*u$ and replace the sum by an integral (valid for $k_*\gg1$,
# $M\gg k_*$):
# $$
# L(n)\simeq k_*^{1-b}\int_0^\infty\frac{u^{-b}\,du}{(1+u^{-a})^2}
# =\frac{1}{a}\,B\Big(2-\tfrac{b-1}{a},\,\tfrac{b-1}{a}\Big)\,(n\beta)^{-(b-1)/a}
# =\frac{(1-e)\,\pi}{a\,\sin(\pi e)}\,(n\beta)^{-e},\qquad e=\frac{b-1}{a}.
# $$
# (With $v=u^a$ the integral is $\frac1a\int_0^\infty v^{1-e}(1+v)^{-2}dv$, a Beta function.)
# The whole crossover region $u\sim1$ sits inside a *convergent* integral, so it only changes
# the prefactor, never the exponent. Convergence needs $e>0$ (at $u\to\infty$: $b>1$) and
# $e<2$ (at $u\to0$, where the integrand is $u^{2a-b}$: $b<2a+1$). For $b\ge2a+1$ the learned
# head dominates, $L\approx(n\beta)^{-2}\sum_kk^{2a-b}$, and the exponent saturates at $2$
# (the filter's own decay, $(1+x)^{-2}$).
#
# *Rubric (3 points):* scaling form $k_*^{1-b}\times$ an $n$-independent integral (1);
# convergence conditions $1<b<2a+1$ (1); saturation at exponent 2 beyond (1); the Beta
# function is a bonus.

# %% tags=["solution"]
# Independent checks: (i) the discrete sum (7.10) against the
# closed-form asymptote of (a), and against adaptive quadrature of the integral; (ii)
# `measured_exponent` against `spectral_exponent` over a grid of $(a,b)$, including the
# saturation at $2$ beyond $b=2a+1$.
# (i) closed-form asymptote (Beta function) and quadrature vs the discrete sum
for a_c, b_c in [(1.5, 2.0), (2.0, 2.5), (PARAMS["a"], PARAMS["b"]), (3.0, 6.0), (1.2, 2.5)]:
    e_c = (b_c - 1) / a_c
    prefactor = (1 - e_c) * np.pi / (a_c * np.sin(np.pi * e_c)) if e_c != 1 else 1 / a_c
    quad = integrate.quad(lambda u: u ** -b_c / (1 + u ** -a_c) ** 2, 0, 1)[0] + \
        integrate.quad(lambda u: u ** -b_c / (1 + u ** -a_c) ** 2, 1, np.inf)[0]
    beta_pref = special.beta(2 - e_c, e_c) / a_c
    assert np.isclose(quad, prefactor, rtol=1e-6) and np.isclose(beta_pref, prefactor, rtol=1e-10)
    n_big = 1e6
    k_star = (n_big * 1.0) ** (1 / a_c)
    ratio = spectral_learning_curve(n_big, a_c, b_c, 1.0, int(2e6)) / (prefactor * n_big ** -e_c)
    print(f"a = {a_c}, b = {b_c}: e = {e_c:.3f}, prefactor (Beta) {prefactor:.5f} = quadrature {quad:.5f}; "
          f"sum / asymptote at n = 1e6 (k* = {k_star:.0f}): {ratio:.4f}")
    assert abs(ratio - 1) < 0.03
# (ii) measured vs theory over a grid; saturation beyond b = 2a + 1
for a_c in [1.5, 2.0, 3.0]:
    for b_c in [1.8, a_c, a_c + 1.0, 2 * a_c + 3.0]:
        e_m = measured_exponent(a_c, b_c, np.logspace(2, 4, 5), n_modes=10**6)
        e_t = min(spectral_exponent(a_c, b_c), 2.0)
        print(f"a = {a_c}, b = {b_c:.1f}: measured {e_m:.4f}, theory {e_t:.4f}"
              + ("  (saturated: b > 2a + 1)" if b_c > 2 * a_c + 1 else ""))
        assert abs(e_m - e_t) < (0.05 if b_c > 2 * a_c + 1 else 0.01)

# %% [markdown]
# The figure shows (7.10) for this year's $a$ and several $b$, with fitted exponents, and
# the integrand of the crossover analysis.

# %% tags=["figure"]
a_fig = PARAMS["a"]
try:
    ns = np.logspace(0, 6, 40)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for b_fig in [1.5, PARAMS["b"], a_fig, a_fig + 1.0]:
        L = spectral_learning_curve(ns, a_fig, b_fig, 1.0, 10**5)
        e_fit = measured_exponent(a_fig, b_fig, ns[20:], n_modes=10**5)
        axes[0].loglog(ns, L, label=f"b = {b_fig:.2f}: fit {e_fit:.3f}, (b-1)/a = {spectral_exponent(a_fig, b_fig):.3f}")
    axes[0].set(xlabel="samples $n$", ylabel="$L(n)$", title=f"mode-filter learning curves, a = {a_fig}")
    axes[0].legend(fontsize=8)
    n_show = 1e4
    k = np.arange(1, 10**4)
    k_star = n_show ** (1 / a_fig)
    for b_fig in [1.5, PARAMS["b"], a_fig + 1.0]:
        terms = k ** -b_fig / (1 + n_show * k ** -a_fig) ** 2
        axes[1].loglog(k / k_star, terms / terms.max(), label=f"b = {b_fig:.2f}")
    axes[1].axvline(1.0, color="k", lw=0.8)
    axes[1].set(xlabel="$k/k_*$", ylabel="term of (7.10) (normalized)",
                title="which modes carry the loss (n = 1e4)")
    axes[1].legend(fontsize=8)
    plt.tight_layout()
    plt.show()
except NotImplementedError as exc:
    print("figure skipped:", exc)

# %% [markdown]
# ## Kernel ridge regression on sampled data
#
# (7.10) replaced the sampled kernel matrix by its dense-sample limit. Now do the real thing.
# **Data model** (a kernel with exactly this spectrum): inputs $x\in\mathbb R^M$ with
# independent coordinates $x_k\sim\mathcal N(0,\lambda_k)$, $\lambda_k=k^{-a}$ (a power-law
# covariance spectrum, as measured in image and text data, Section 7.8), the linear kernel
# $K(x,x')=x\cdot x'$, whose eigenfunctions under the data distribution are
# $\varphi_k(x)=x_k/\sqrt{\lambda_k}$ with eigenvalues $\lambda_k$, and the noise-free target
# $y(x)=\sum_ky_k\varphi_k(x)$ with $y_k=k^{-b/2}$.
#
# Draw $n$ inputs, i.e. $Z\in\mathbb R^{n\times M}$ with i.i.d. $\mathcal N(0,1)$ entries and
# $x^\mu_k=\sqrt{\lambda_k}Z_{\mu k}$, labels $y^\mu=\sum_ky_kZ_{\mu k}$. The posterior mean of
# Exercise 4.5 (kernel ridge regression with ridge $\beta^{-1}$) is
# $$
# \mu(x)=K(x,X)\big(\hat K+\beta^{-1}I_n\big)^{-1}\mathbf y=\sum_k\mu_k\varphi_k(x),\qquad
# \mu_k=\sqrt{\lambda_k}\,\big[X^T(\hat K+\beta^{-1}I_n)^{-1}\mathbf y\big]_k,\qquad \hat K=XX^T,
# $$
# and since the $\varphi_k$ are orthonormal, the population test error is exact without a
# test set: $\mathbb E_x(\mu(x)-y(x))^2=\sum_k(\mu_k-y_k)^2$.
#
# **Task.** Implement `krr_test_error`. Any correct way of drawing the data is accepted: the
# hidden tests compare averages over seeds and exact limits, not single draws.

# %% tags=["graded"]
def krr_test_error(n, a, b, beta, n_modes, seed):
    """Population test error of kernel ridge regression on one sampled data set.

    Data model: x in R^M (M = n_modes) with independent x_k ~ N(0, k^-a); kernel
    K(x, x') = x . x'; target y(x) = sum_k k^(-b/2) x_k / sqrt(k^-a) (noise-free).
    Predictor: the posterior mean K(x, X) (K_hat + I/beta)^-1 y of Section 4.6 / Ex 4.5.

    Args:
        n: int >= 1, number of training samples.
        a, b: floats > 1, spectral and target exponents.
        beta: float > 0, inverse temperature (ridge 1/beta).
        n_modes: int M >= 1.
        seed: int, seed of the random generator; the same seed gives the same result.
    Returns:
        float, E_x (mu(x) - y(x))^2 = sum_k (mu_k - y_k)^2, computed exactly from the
        coefficients of the predictor (no test set).
    """
    rng = np.random.default_rng(seed)
    k = np.arange(1, int(n_modes) + 1, dtype=float)
    lam, y_coef = k ** (-a), k ** (-b / 2.0)
    Z = rng.standard_normal((int(n), int(n_modes)))
    X = Z * np.sqrt(lam)
    y = Z @ y_coef
    dual = np.linalg.solve(X @ X.T + np.eye(int(n)) / beta, y)
    mu = np.sqrt(lam) * (X.T @ dual)
    return float(np.sum((mu - y_coef) ** 2))


# %% tags=["check"]
@check
def check_krr_limits():
    "KRR: beta -> 0 learns nothing; n >> M with a tiny ridge learns the target exactly"
    total = np.sum(np.arange(1, 31.0) ** -2.5)
    assert np.isclose(krr_test_error(40, 2.0, 2.5, 1e-12, 30, 0), total, rtol=1e-6), \
        "with an infinite ridge the predictor is 0 and the error is sum_k y_k^2"
    assert krr_test_error(80, 2.0, 2.5, 1e10, 30, 0) < 1e-8, "with n > M and no ridge KRR is exact"
    assert krr_test_error(50, 2.0, 2.5, 1.0, 200, 7) == krr_test_error(50, 2.0, 2.5, 1.0, 200, 7)
    assert np.isclose(krr_test_error(10, 1.5, 3.0, 1e-12, 20, 1), np.sum(np.arange(1, 21.0) ** -3.0), rtol=1e-6), \
        "a = 1.5, b = 3: with an infinite ridge the error is sum_k k^-b"


# %% [markdown]
# **The sharper theory.** For finite $n$ the sampled kernel matrix is random, and (7.10) is
# only the large-$n$ limit. The eigenlearning theory (Bordelon et al. 2020; Canatar et al.
# 2021; Simon et al. 2023) predicts the average over data sets: the ridge $(n\beta)^{-1}$ is
# renormalized to $\kappa$, solving
# $$
# n=\sum_k\frac{\lambda_k}{\lambda_k+\kappa}+\frac{\beta^{-1}}{\kappa},\qquad
# \mathbb E\,L=\frac{n}{n-\sum_k\mathcal L_k^2}\sum_k(1-\mathcal L_k)^2y_k^2,\qquad
# \mathcal L_k=\frac{\lambda_k}{\lambda_k+\kappa},
# $$
# with the *overfitting factor* $n/(n-\sum_k\mathcal L_k^2)$ (whose divergence at
# $\beta\to\infty$, $n=M$ is the double-descent peak of Section 6). At fixed $\beta$ and large $n$,
# $\kappa\to(n\beta)^{-1}$ and the factor $\to1$: the theory reduces to (7.10). It is provided,
# as a tool for the comparison below.

# %% tags=["provided"]
def eigenlearning_curve(n, a, b, beta, n_modes):
    """Eigenlearning prediction of the expected KRR test error (no label noise); scalar n.

    kappa solves n = sum_k lam_k / (lam_k + kappa) + 1 / (beta kappa), lam_k = k^-a, k <= M;
    E L = n / (n - sum_k Lk^2) * sum_k (1 - Lk)^2 k^-b with Lk = lam_k / (lam_k + kappa).
    """
    modes = np.arange(1.0, n_modes + 1.0)
    lam, y2 = modes ** (-a), modes ** (-b)

    def excess(log_kappa):
        kappa = np.exp(log_kappa)
        return np.sum(lam / (lam + kappa)) + 1.0 / (beta * kappa) - n

    kappa = np.exp(optimize.brentq(excess, -200.0, 50.0, xtol=1e-13))
    learn = lam / (lam + kappa)
    return float(n / (n - np.sum(learn**2)) * np.sum((1 - learn) ** 2 * y2))


# %% tags=["check"]
@check
def check_krr_average_against_theory():
    "the mean KRR error over 30 data sets agrees with the eigenlearning prediction (x_k ~ N(0, k^-a) matters)"
    got = np.mean([krr_test_error(40, 2.0, 2.5, 1.0, 200, s) for s in range(30)])
    want = eigenlearning_curve(40, 2.0, 2.5, 1.0, 200)
    assert abs(got / want - 1) < 0.25, \
        f"mean error {got:.4f} against eigenlearning {want:.4f}: draw x_k ~ N(0, lambda_k) (variance k^-a), Gaussian"


# %% [markdown]
# The figure compares KRR on sampled data (your `krr_test_error`, mean of 4 data sets),
# the eigenlearning prediction and the mode filter (7.10), for this year's $(a,b)$ at
# $\beta=0.1$, with $M=1000$ modes. *Why $\beta=0.1$?* $\kappa\approx(n\beta)^{-1}$ requires the
# learned-mode count $(n\beta)^{1/a}$ to be small compared with $n$; at accessible $n$ a
# smaller $\beta$ makes the asymptotic exponent visible sooner.

# %% tags=["figure"]
a_fig, b_fig = PARAMS["a"], PARAMS["b"]
ns = np.array([16, 32, 64, 128, 256, 512])
fig, ax = plt.subplots(figsize=(6.5, 4.2))
theory = [eigenlearning_curve(v, a_fig, b_fig, 0.1, 1000) for v in ns]
ax.loglog(ns, theory, "C1-", label="eigenlearning theory")
try:
    ax.loglog(ns, spectral_learning_curve(ns, a_fig, b_fig, 0.1, 1000), "C2--", label="mode filter (7.10)")
    sampled = [np.mean([krr_test_error(int(v), a_fig, b_fig, 0.1, 1000, s) for s in range(4)]) for v in ns]
    ax.loglog(ns, sampled, "C0o", label="KRR on sampled data (mean of 4)")
    guide = sampled[-1] * (ns / ns[-1]) ** -spectral_exponent(a_fig, b_fig)
    ax.loglog(ns, guide, "k:", label=r"slope $-(b-1)/a$")
except NotImplementedError as exc:
    print("partly skipped:", exc)
ax.set(xlabel="samples $n$", ylabel="test error", title=f"a = {a_fig}, b = {b_fig}, beta = 0.1, M = 1000")
ax.legend(fontsize=8)
plt.show()

# %% tags=["solution"]
# Independent checks: (i) KRR solved in the dual ($n\times n$) form
# against the primal ($M\times M$, ridge regression on $x$) form on the same data (push-through
# identity); (ii) the mean of sampled KRR test errors against the eigenlearning prediction,
# within a few standard errors plus 3%; (iii) the exponent measured from sampled KRR against
# `spectral_exponent`; (iv) eigenlearning $\to$ (7.10) at large $n$.
a_s, b_s = PARAMS["a"], PARAMS["b"]
# (i) dual vs primal on identical data
rng_s = np.random.default_rng(5)
for n_s, M_s, beta_s in [(30, 200, 1.0), (200, 50, 0.3)]:
    k_s = np.arange(1, M_s + 1.0)
    Z_s = np.random.default_rng(11).standard_normal((n_s, M_s))
    X_s = Z_s * np.sqrt(k_s ** -a_s)
    y_s = Z_s @ k_s ** (-b_s / 2)
    w_primal = np.linalg.solve(X_s.T @ X_s + np.eye(M_s) / beta_s, X_s.T @ y_s)
    err_primal = np.sum((np.sqrt(k_s ** -a_s) * w_primal - k_s ** (-b_s / 2)) ** 2)
    w_dual = X_s.T @ np.linalg.solve(X_s @ X_s.T + np.eye(n_s) / beta_s, y_s)
    err_dual = np.sum((np.sqrt(k_s ** -a_s) * w_dual - k_s ** (-b_s / 2)) ** 2)
    assert np.isclose(err_primal, err_dual, rtol=1e-8)
print("primal (M x M) and dual (n x n) KRR give the same test error")
# (ii)-(iii) sampled KRR vs eigenlearning, and the measured exponent
ns_s = np.array([32, 64, 128, 256, 512])
means, ses = [], []
for v in ns_s:
    runs = [krr_test_error(int(v), a_s, b_s, 0.1, 1000, 100 + s) for s in range(10)]
    means.append(np.mean(runs))
    ses.append(np.std(runs, ddof=1) / np.sqrt(len(runs)))
    th = eigenlearning_curve(v, a_s, b_s, 0.1, 1000)
    print(f"n = {v:4d}: KRR {means[-1]:.5f} +- {ses[-1]:.5f}, eigenlearning {th:.5f}, "
          f"mode filter {spectral_learning_curve(v, a_s, b_s, 0.1, 1000):.5f}")
    assert abs(means[-1] - th) < 4 * ses[-1] + 0.03 * th
e_krr = -np.polyfit(np.log(ns_s), np.log(means), 1)[0]
e_eig = -np.polyfit(np.log(ns_s), np.log([eigenlearning_curve(v, a_s, b_s, 0.1, 1000) for v in ns_s]), 1)[0]
print(f"exponent: sampled KRR {e_krr:.3f}, eigenlearning {e_eig:.3f}, (b-1)/a = {spectral_exponent(a_s, b_s):.3f}")
assert abs(e_krr - e_eig) < 0.06 and abs(e_eig - spectral_exponent(a_s, b_s)) < 0.05
# (iv) eigenlearning -> mode filter at large n, fixed beta
for v in [1e4, 1e6, 1e8]:
    r = eigenlearning_curve(v, a_s, b_s, 1.0, 10**5) / spectral_learning_curve(v, a_s, b_s, 1.0, 10**5)
    print(f"n = {v:.0e}: eigenlearning / mode filter = {r:.4f}")
assert abs(r - 1) < 0.01

# %% [markdown]
# ## Ex 7.3(b): quanta as eigenmodes
#
# Show that the quantization model's data-scaling law (Ex 7.1(c)) is the special case $b=a$
# of (7.11) under the dictionary: quanta $=$ eigenmodes, Zipf law $=$ spectrum,
# $a=\alpha+1$. (*Hint:* in the quanta model $p_k$ plays *both* roles, setting the learning
# threshold *and* the contribution $\Delta p_k$ to the loss.) What plays the role of $n\beta$?
# The hidden tests check the exponent with your `measured_exponent` at $b=a$.

# %% [markdown] tags=["answer"] points=3
# *Model answer.* In the quanta model quantum $k$ is learned if $np_k\ge\tau$ and contributes
# $\Delta p_k$ to the loss if it is not. Dictionary: quanta $=$ eigenmodes; the spectrum is the
# use frequency, $\lambda_k\propto p_k\propto k^{-(\alpha+1)}$, so $a=\alpha+1$; the threshold
# $np_k\ge\tau$ is the filter $\lambda_k\gtrsim(n\beta)^{-1}$ with $\lambda_k=k^{-a}$ and
# $\beta=1/(\tau\zeta(\alpha+1))$ (so $n\beta\leftrightarrow n/(\tau\zeta)$); and since $p_k$ also
# sets the loss, $y_k^2\propto\Delta p_k$: $b=a$. Then
# $$
# \frac{b-1}{a}=\frac{a-1}{a}=\frac{\alpha}{\alpha+1}=\alpha_n^{\rm quanta}.
# $$
# The quanta model is the spectral law with a *hard* filter (a step instead of
# $(1+n\beta\lambda_k)^{-2}$) and coinciding exponents; the filter shape changes only the
# prefactor.
#
# *Rubric (3 points):* the dictionary $\lambda_k\leftrightarrow p_k$, $a=\alpha+1$ (1); $y_k^2\propto p_k$ so
# $b=a$ (1); $(a-1)/a=\alpha/(\alpha+1)$ and $n\beta\leftrightarrow n/\tau$ (up to the normalization) (1).

# %% tags=["solution"]
# Independent check: the hard-threshold quanta loss
# $\Delta\sum_{k:\,np_k<\tau}p_k$, summed directly, against the smooth filter (7.10) at $b=a$
# (both with the infinite tail of modes added): equal exponents, different prefactors.
alpha_q, tau_q = 0.4, 10.0
a_q = alpha_q + 1
Zq = special.zeta(a_q)
ns_q = np.logspace(4, 8, 9)
k_q = np.arange(1, 10**6 + 1, dtype=float)
p_q = k_q ** -a_q / Zq
hard = np.array([np.sum(p_q[v * p_q < tau_q]) + special.zeta(a_q, 10**6 + 1) / Zq for v in ns_q])
beta_q = 1 / (tau_q * Zq)
# modes beyond M = 1e6: expand 1/(1 + x)^2 = 1 - 2x + 3x^2 - ... with x = n beta k^-a <= 0.02 there
x_q = ns_q * beta_q
tail_q = special.zeta(a_q, 10**6 + 1) - 2 * x_q * special.zeta(2 * a_q, 10**6 + 1) + 3 * x_q**2 * special.zeta(3 * a_q, 10**6 + 1)
smooth = (spectral_learning_curve(ns_q, a_q, a_q, beta_q, 10**6) + tail_q) / Zq
e_hard = -np.polyfit(np.log(ns_q), np.log(hard), 1)[0]
e_smooth = -np.polyfit(np.log(ns_q), np.log(smooth), 1)[0]
print(f"alpha = {alpha_q}: hard-threshold quanta exponent {e_hard:.4f}, smooth filter {e_smooth:.4f}, "
      f"alpha/(alpha+1) = {alpha_q / (alpha_q + 1):.4f}; prefactor ratio smooth/hard = {np.mean(smooth / hard):.3f}")
assert abs(e_hard - alpha_q / (alpha_q + 1)) < 0.01 and abs(e_smooth - alpha_q / (alpha_q + 1)) < 0.01

# %% [markdown]
# **Ex 7.3(c).** In the quanta model, what would it mean for $b\ne a$? Invent a
# modification of QH3 that realizes it, and give the resulting $\alpha_n$ and $\alpha_P$.

# %% [markdown] tags=["answer"] points=3
# *Model answer.* $b\ne a$ means that how *often* a quantum is used and how *much* it is worth
# are different power laws: the spectrum (which decides what gets learned) and the target
# (which decides what the unlearned part costs) decouple. Modify QH3 so that quantum $k$
# lowers the loss by $\Delta_k=\Delta\,k^{-\gamma}$ on the samples that use it (rare skills worth
# less for $\gamma>0$, more for $\gamma<0$). The loss reduction carried by quantum $k$ is then
# $p_k\Delta_k\propto k^{-(\alpha+1+\gamma)}$, so $a=\alpha+1$ and $b=\alpha+1+\gamma$. Learning
# is still decided by frequency ($np_k\ge\tau$, $k_{\max}\propto n^{1/(\alpha+1)}$) and
# $$
# L-L_\infty\propto\sum_{k>k_{\max}}k^{-(\alpha+1+\gamma)}\propto k_{\max}^{-(\alpha+\gamma)}
# \;\Rightarrow\;\alpha_n=\frac{\alpha+\gamma}{\alpha+1}=\frac{b-1}{a},\qquad
# \alpha_P=\alpha+\gamma=b-1 ,
# $$
# (need $\alpha+\gamma>0$). The relation $1/\alpha_n=1/\alpha_P+1$ becomes
# $\alpha_n=\alpha_P/(\alpha+1)$, no longer parameter-free. (Any modification in which the
# learnability order and the loss weight are different power laws is acceptable, e.g. a
# per-quantum sample threshold $\tau_k\propto k^{\delta}$, which changes $a$ to $\alpha+1+\delta$
# at fixed $b$.)
#
# *Rubric (3 points):* meaning (frequency and value decouple) (1); a concrete modification
# of QH3 (1); the resulting exponent(s) derived correctly (1).

# %% tags=["tests"]
from scipy import stats
from autograder.run.testing import StudentError

A_YEAR, B_YEAR = ref.PARAMS["a"], ref.PARAMS["b"]


@points(1)
def test_manifold_exponent(student):
    "manifold_exponent for several dimensions, both losses and the default loss"
    rng = rng_for("manifold_exponent")
    dims = [1, 2, 3, *rng.uniform(4, 100, 3)]
    for d in dims:
        for loss in ("mae", "mse"):
            assert_close(student.manifold_exponent(float(d), loss), ref.manifold_exponent(float(d), loss),
                         rtol=1e-9, atol=0, name=f"manifold_exponent({d:.2f}, {loss!r})")
    assert_close(student.manifold_exponent(7.0), ref.manifold_exponent(7.0), rtol=1e-9, atol=0,
                 name="manifold_exponent(7) with the default loss")
    assert_close(student.manifold_exponent(np.array(dims), "mse"), ref.manifold_exponent(np.array(dims), "mse"),
                 rtol=1e-9, atol=0, name="manifold_exponent on an array of dimensions")


@points(1)
def test_manifold_dimension(student):
    "manifold_dimension for language-model and random exponents, both losses"
    rng = rng_for("manifold_dimension")
    for aP in [0.076, 0.095, *rng.uniform(0.05, 1.0, 3)]:
        for loss in ("mae", "mse"):
            assert_close(student.manifold_dimension(float(aP), loss), ref.manifold_dimension(float(aP), loss),
                         rtol=1e-9, atol=0, name=f"manifold_dimension({aP:.3f}, {loss!r})")


@points(2)
def test_spectral_learning_curve(student):
    "spectral_learning_curve on arrays of n for random exponents, inverse temperatures and mode counts"
    rng = rng_for("spectral_learning_curve")
    for _ in range(3):
        a, b = float(rng.uniform(1.1, 3.5)), float(rng.uniform(1.1, 5.0))
        beta, M = float(10 ** rng.uniform(-2, 1)), int(rng.integers(10, 3000))
        n = np.concatenate([[0.0, 1.0], 10 ** rng.uniform(0, 6, 10)])
        assert_close(student.spectral_learning_curve(n, a, b, beta, M), ref.spectral_learning_curve(n, a, b, beta, M),
                     rtol=1e-9, atol=1e-300, name=f"L(n) for a={a:.2f}, b={b:.2f}, beta={beta:.3g}, M={M}")
    assert_close(student.spectral_learning_curve(50.0, 2.0, 2.5, 0.5, 100),
                 ref.spectral_learning_curve(50.0, 2.0, 2.5, 0.5, 100), rtol=1e-9, atol=0, name="L at a scalar n")


@points(1)
def test_spectral_exponent(student):
    "spectral_exponent for random (a, b) with 1 < b < 2a + 1"
    rng = rng_for("spectral_exponent")
    for _ in range(5):
        a = float(rng.uniform(1.1, 4.0))
        b = float(rng.uniform(1.05, 2 * a + 0.9))
        assert_close(student.spectral_exponent(a, b), ref.spectral_exponent(a, b), rtol=1e-9, atol=0,
                     name=f"spectral_exponent({a:.3f}, {b:.3f})")


@points(1)
def test_measured_exponent_fit(student):
    "measured_exponent is the log-log least-squares slope of the learning curve at the given n"
    rng = rng_for("measured_exponent_fit")
    for _ in range(2):
        a, b, beta = float(rng.uniform(1.2, 3.0)), float(rng.uniform(1.2, 4.0)), float(rng.uniform(0.1, 3))
        ns = np.sort(10 ** rng.uniform(0, 4, 6))
        assert_close(student.measured_exponent(a, b, ns, beta, 20000), ref.measured_exponent(a, b, ns, beta, 20000),
                     rtol=1e-7, atol=1e-10, name=f"measured_exponent(a={a:.2f}, b={b:.2f}, beta={beta:.2f})")


@points(2)
def test_measured_vs_theory(student):
    "measured_exponent at this year's (a, b), n from 1e3 to 1e5, M = 1e6, agrees with spectral_exponent within 0.01 (discreteness and truncation corrections are below 0.005 there)"
    ns = np.logspace(3, 5, 7)
    e = student.measured_exponent(A_YEAR, B_YEAR, ns, 1.0, 10**6)
    assert_close(e, ref.spectral_exponent(A_YEAR, B_YEAR), rtol=0, atol=0.01, name="measured exponent")


@points(1)
def test_measured_default_arguments(student):
    "measured_exponent with its default inverse temperature and number of modes"
    ns = [1e2, 1e3]
    assert_close(student.measured_exponent(2.5, 3.0, ns), ref.measured_exponent(2.5, 3.0, ns),
                 rtol=1e-7, atol=1e-10, name="measured_exponent(2.5, 3.0, [1e2, 1e3])")
    ns = [1e4, 1e6]  # here the modes beyond 1e5 still carry loss: the default M matters
    assert_close(student.measured_exponent(1.2, 1.3, ns, 2.0), ref.measured_exponent(1.2, 1.3, ns, 2.0),
                 rtol=1e-7, atol=1e-10, name="measured_exponent(1.2, 1.3, [1e4, 1e6], beta=2)")


@points(1)
def test_quanta_as_modes(student):
    "with b = a = alpha + 1 the measured exponent (n from 1e2 to 1e4, M = 1e6) is the quanta data exponent (Ex 7.3(b)) within 0.01"
    alpha = float(rng_for("quanta_as_modes").uniform(0.6, 1.0))
    e = student.measured_exponent(alpha + 1, alpha + 1, np.logspace(2, 4, 5), 1.0, 10**6)
    assert_close(e, alpha / (alpha + 1), rtol=0, atol=0.01, name=f"exponent at b = a = {alpha + 1:.3f}")


# False-fail budget 1e-4 (any stream, any course seed): at ridge 1e-13 the predictor is of order 1e-13
# and the error sum_k y_k^2 within rtol 1e-6 for every draw; at n = 3M and ridge 1e-9 the error is of
# order (1e-9 / s_min^2)^2 with s_min^2 >= lambda_M s_min(Z)^2, and s_min(Z)^2 of a 3M x M Gaussian
# matrix is about 0.5 M (below 1e-3 M with probability < (C 0.03)^(2M+1), Rudelson-Vershynin): the
# error is below 1e-12 (largest of 400 reference draws at M = 5 and 40: 2e-13) against atol 1e-6.
@points(2)
def test_krr_limits(student):
    "krr_test_error in exactly solvable limits: infinite ridge (nothing learned), n > M without ridge (exact)"
    rng = rng_for("krr_limits")
    for _ in range(2):
        a, b = float(rng.uniform(1.2, 3.0)), float(rng.uniform(1.2, 4.0))
        M = int(rng.integers(5, 40))
        seed = int(rng.integers(0, 2**31))
        total = float(np.sum(np.arange(1, M + 1.0) ** -b))
        assert_close(student.krr_test_error(M + 5, a, b, 1e-13, M, seed), total, rtol=1e-6, atol=0,
                     name="test error with ridge 1/beta -> infinity")
        assert_close(student.krr_test_error(3 * M, a, b, 1e9, M, seed), 0.0, rtol=0, atol=1e-6,
                     name="test error with n > M and ridge -> 0")


# False-fail budget 1e-4 (any stream, any course seed): three different seeds give three draws of a
# continuous random variable, all equal with probability 0.
@points(1)
def test_krr_reproducible(student):
    "krr_test_error: the same seed gives the same error, other seeds other errors"
    x = student.krr_test_error(20, 2.0, 2.0, 1.0, 50, 4)
    assert x == student.krr_test_error(20, 2.0, 2.0, 1.0, 50, 4), "same seed, different result"
    assert len({student.krr_test_error(20, 2.0, 2.0, 1.0, 50, s) for s in (5, 6, 7)}) > 1


# False-fail budget 1e-4 (any stream, any course seed): the statistic is the mean of log(error)
# over 48 data sets, compared with the reference's mean over 400 data sets; tolerance 5 standard
# errors of the difference, sd * sqrt(1/48 + 1/400), the standard deviation taken from the
# reference's 400 (about 4 % accurate). The log of one error is only mildly skewed: at most 0.8
# over the years' parameters (corners of a in [2, 3], b in [1.6, a + 1]: 3000 data sets each; the
# errors themselves: skewness 2.1 this year), so a 48-mean has skewness <= 0.12 and its tail
# beyond 5 standard errors is below 6e-6 per setting (Cornish-Fisher), below 1e-4 for the three
# settings together.
# Resampling 20000 reference errors per setting (this year's a, b): 0 of 100000 simulated tests
# failed, and 1e-4 of them exceeded 4 standard errors. (The old test, means of the errors within 5
# standard errors estimated from 96 runs, failed the reference in about 1 course seed in 200.)
@points(3)
def test_krr_mean(student):
    "krr_test_error over 48 data sets: the mean of log(error) agrees with the reference's within 5 standard errors (three settings of n, beta, M; statistical)"
    rng = rng_for("krr_mean")
    for n, beta, M in [(12, 5.0, 60), (40, 0.2, 300), (100, 1.0, 200)]:
        seeds = rng.integers(0, 2**31, 48)
        args = (n, A_YEAR, B_YEAR, beta, M)
        got = np.array([student.krr_test_error(*args, int(s)) for s in seeds], dtype=float)
        assert np.all(got > 0), f"the test error at n={n}, beta={beta}, M={M} should be positive (n < M, finite ridge)"
        ref_runs = np.log([ref.krr_test_error(*args, int(s)) for s in rng.integers(0, 2**31, 400)])
        se = np.std(ref_runs, ddof=1) * np.sqrt(1 / 48 + 1 / 400)
        assert_close(np.mean(np.log(got)), np.mean(ref_runs), rtol=0, atol=5 * se,
                     name=f"mean log test error at n={n}, beta={beta}, M={M}")



@points(1)
def test_manifold_edges(student):
    "manifold_exponent and manifold_dimension: a float for a scalar, arrays, the default loss, extreme dimensions, and ValueError for an unknown loss"
    rng = rng_for("manifold_edges")
    for d in [1e-3, float(rng.uniform(1, 10)), 1e6]:
        for loss in ("mse", "mae"):
            got = student.manifold_exponent(d, loss)
            assert np.ndim(got) == 0, "manifold_exponent of a scalar dimension should be a float, not an array"
            assert_close(got, ref.manifold_exponent(d, loss), rtol=1e-9, atol=0, name=f"manifold_exponent({d:.3g}, {loss!r})")
    aP = rng.uniform(0.01, 2.0, 4)
    got = student.manifold_dimension(float(aP[0]))
    assert np.ndim(got) == 0, "manifold_dimension of a scalar exponent should be a float, not an array"
    assert_close(got, ref.manifold_dimension(float(aP[0])), rtol=1e-9, atol=0, name="manifold_dimension with the default loss")
    for loss in ("mse", "mae"):
        assert_close(student.manifold_dimension(aP, loss), ref.manifold_dimension(aP, loss), rtol=1e-9, atol=0,
                     name=f"manifold_dimension on an array of exponents ({loss!r})")
    try:
        student.manifold_exponent(3.0, "cross-entropy")
    except StudentError as exc:
        if exc.kind != "error":
            raise
        assert "ValueError" in str(exc), "an unknown loss should raise ValueError (not another exception)"
    else:
        raise AssertionError("manifold_exponent should raise ValueError for a loss other than 'mse' or 'mae'")


@points(1)
def test_spectral_learning_curve_edges(student):
    "spectral_learning_curve: one mode, a float for a scalar n, a 2-d array of n, exponents close to 1 with many modes, very large n"
    rng = rng_for("spectral_learning_curve_edges")
    a, b, beta = float(rng.uniform(1.5, 3.0)), float(rng.uniform(1.5, 4.0)), float(10 ** rng.uniform(-1, 1))
    n = np.array([0.0, 1.0, 37.5, 1e4])
    assert_close(student.spectral_learning_curve(n, a, b, beta, 1), ref.spectral_learning_curve(n, a, b, beta, 1),
                 rtol=1e-9, atol=0, name="L(n) with a single mode (M = 1)")
    got = student.spectral_learning_curve(250.0, a, b, beta, 500)
    assert np.ndim(got) == 0, "for a scalar n spectral_learning_curve should return a float, not an array"
    assert_close(got, ref.spectral_learning_curve(250.0, a, b, beta, 500), rtol=1e-9, atol=0, name="L at a scalar n")
    n2 = 10 ** rng.uniform(0, 5, (2, 3))
    assert_close(student.spectral_learning_curve(n2, a, b, beta, 500), ref.spectral_learning_curve(n2, a, b, beta, 500),
                 rtol=1e-9, atol=0, name="L on a 2-d array of n (the shape of n)")
    for a_, b_, M, nn in [(1.02, 1.01, 10**5, np.array([0.0, 1e2, 1e8])), (a, b, 3000, np.array([1e12, 1e15]))]:
        assert_close(student.spectral_learning_curve(nn, a_, b_, 1.0, M), ref.spectral_learning_curve(nn, a_, b_, 1.0, M),
                     rtol=1e-9, atol=1e-300, name=f"L(n) for a={a_:.2f}, b={b_:.2f}, M={M}")
    e = student.measured_exponent(a, b, [3e2, 3e4], beta, 1000)
    assert np.ndim(e) == 0, "measured_exponent should return a float"
    assert_close(e, ref.measured_exponent(a, b, [3e2, 3e4], beta, 1000), rtol=1e-7, atol=1e-10,
                 name="measured_exponent from two sample sizes")


# False-fail budget 1e-4 (any stream, any course seed): the checks at ridge 1e-13 and 1e-15 hold for
# every draw but |z| < 1e-6 at n = M = 1 (probability 8e-7); with one mode (lambda_1 = 1, y_1 = 1) the
# error is exactly (1 + beta S)^-2 with S = sum_mu z_mu^2 ~ chi^2_n, so S recovered from 100 errors is
# checked against chi^2_n (n = 1 and 4) by the exact Kolmogorov-Smirnov test at level 4.5e-5 each
# (union bound: below 1e-4 in all).
@points(1)
def test_krr_edges(student):
    "krr_test_error with one sample and one mode: a float, the exact limits, and the chi-squared law of the inputs' energy (statistical)"
    rng = rng_for("krr_edges")
    a, b = float(rng.uniform(1.2, 3.0)), float(rng.uniform(1.2, 4.0))
    seed = int(rng.integers(0, 2**31))
    e = student.krr_test_error(1, a, b, 1.0, 1, seed)
    assert np.ndim(e) == 0, "krr_test_error should return a float"
    M = int(rng.integers(3, 20))
    assert_close(student.krr_test_error(1, a, b, 1e-13, M, seed), float(np.sum(np.arange(1, M + 1.0) ** -b)),
                 rtol=1e-6, atol=0, name="test error of one sample with ridge 1/beta -> infinity")
    assert_close(student.krr_test_error(1, a, b, 1e15, 1, seed), 0.0, rtol=0, atol=1e-6,
                 name="test error with n = M = 1 and ridge -> 0")
    beta = float(rng.uniform(0.5, 2.0))
    for n in (1, 4):
        err = np.array([student.krr_test_error(n, a, b, beta, 1, int(s)) for s in rng.integers(0, 2**31, 100)])
        assert np.all((err > 0) & (err <= 1)), "with one mode the test error should lie in (0, 1]"
        S = (err ** -0.5 - 1) / beta
        p = stats.kstest(S, stats.chi2(n).cdf, method="exact").pvalue
        assert p > 4.5e-5, f"with one mode and n = {n}, the inputs should be Gaussian with variance lambda_1 " \
                           "(the errors are not distributed as they should be)"


# %% tags=["wrong"]
# wrong: the error (not its square) in the MSE: alpha_P = 2/d for MSE and 1/d for MAE
# hint: The test loss is a mean squared error: a piecewise-linear fit has errors of order s², with the
#   cell size s ∝ P^{−1/d}, and the MSE squares those errors (eq. (7.9), Exercise 7.2(a)); the MAE
#   does not.
def manifold_exponent(d, loss="mse"):
    return {"mse": 2.0, "mae": 1.0}[loss] / d


def manifold_dimension(alpha_P, loss="mse"):
    return {"mse": 2.0, "mae": 1.0}[loss] / alpha_P


# %% tags=["rewrite"]
# rewrite: the same unsquared error, with the power of the cell size written out
def manifold_exponent(d, loss="mse"):
    power = 2.0 if loss == "mse" else 1.0
    return float(power * float(d) ** -1.0)


# %% tags=["wrong"]
# wrong: the filter is applied once instead of squared, sum (1 - filter) y_k^2
# hint: Each mode contributes (1 − filter)² y_k² to the test MSE: the unlearned part of the mode's
#   coefficient, squared (eq. (7.10), the mode filter of Section 4.6).
def spectral_learning_curve(n, a, b, beta, n_modes):
    k = np.arange(1, int(n_modes) + 1, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    out = np.array([np.sum(k ** -b / (1.0 + v * beta * k ** -a)) for v in n_arr.ravel()]).reshape(n_arr.shape)
    return float(out) if out.ndim == 0 else out


# %% tags=["wrong"]
# wrong: threshold lambda_k ~ 1/beta without the factor n (filter 1/(1 + beta lambda_k / n))
# hint: With n samples the ridge per sample is (nβ)^{−1} (conventions of this exercise): the filter is
#   nβλ_k/(1 + nβλ_k), so the modes with λ_k above about 1/(nβ) are learned (eq. (7.10)).
def spectral_learning_curve(n, a, b, beta, n_modes):
    k = np.arange(1, int(n_modes) + 1, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore"):
        out = np.array([np.sum(k ** -b / (1.0 + beta * k ** -a / v) ** 2) for v in n_arr.ravel()])
    out = out.reshape(n_arr.shape)
    return float(out) if out.ndim == 0 else out


# %% tags=["wrong"]
# wrong: exponent b/a (the tail sum taken as k*^-b instead of k*^(1-b))
# hint: The error is the tail sum Σ_{k > k*} k^{−b} ∝ k*^{1−b}, with k* ∝ n^{1/a}: the tail counts many
#   modes, not only the size of the last learned one (eq. (7.11)).
def spectral_exponent(a, b):
    return b / a


# %% tags=["wrong"]
# wrong: measured_exponent returns the fitted slope itself (negative)
# hint: measured_exponent returns α_n of L ∝ n^{−α_n}, positive for a decaying learning curve: the
#   negative of the fitted log-log slope.
def measured_exponent(a, b, ns, beta=1.0, n_modes=10**6):
    ns = np.asarray(ns, dtype=float)
    return float(np.polyfit(np.log(ns), np.log(spectral_learning_curve(ns, a, b, beta, n_modes)), 1)[0])


# %% tags=["wrong"]
# wrong: ridge beta instead of 1/beta
# hint: β is an inverse temperature, so the ridge of kernel ridge regression is 1/β (conventions of this
#   exercise, Section 4.6).
def krr_test_error(n, a, b, beta, n_modes, seed):
    rng = np.random.default_rng(seed)
    k = np.arange(1, int(n_modes) + 1, dtype=float)
    Z = rng.standard_normal((int(n), int(n_modes)))
    X = Z * np.sqrt(k ** -a)
    dual = np.linalg.solve(X @ X.T + beta * np.eye(int(n)), Z @ k ** (-b / 2))
    return float(np.sum((np.sqrt(k ** -a) * (X.T @ dual) - k ** (-b / 2)) ** 2))


# %% tags=["wrong"]
# wrong: compares the weight vector w with the target coefficients (forgets mu_k = sqrt(lambda_k) w_k)
# hint: The learned function's coefficient on mode k is μ_k = √λ_k w_k: compare those with the target's
#   coefficients, not the weights w themselves (Exercise 7.3).
def krr_test_error(n, a, b, beta, n_modes, seed):
    rng = np.random.default_rng(seed)
    k = np.arange(1, int(n_modes) + 1, dtype=float)
    Z = rng.standard_normal((int(n), int(n_modes)))
    X = Z * np.sqrt(k ** -a)
    dual = np.linalg.solve(X @ X.T + np.eye(int(n)) / beta, Z @ k ** (-b / 2))
    return float(np.sum((X.T @ dual - k ** (-b / 2)) ** 2))


# %% tags=["wrong"]
# wrong: inputs drawn with variance lambda_k^2 (standard deviation taken as k^-a)
# hint: The features have variance λ_k = k^{−a}, so their standard deviation is √λ_k = k^{−a/2}
#   (Exercise 7.3).
def krr_test_error(n, a, b, beta, n_modes, seed):
    rng = np.random.default_rng(seed)
    k = np.arange(1, int(n_modes) + 1, dtype=float)
    Z = rng.standard_normal((int(n), int(n_modes)))
    X = Z * k ** -a
    dual = np.linalg.solve(X @ X.T + np.eye(int(n)) / beta, Z @ k ** (-b / 2))
    return float(np.sum((k ** -a * (X.T @ dual) - k ** (-b / 2)) ** 2))




# %% tags=["wrong"]
# wrong: the modes run over k = 1 .. M - 1 (the range stops one short of n_modes)
# hint: The sum (7.10) runs over all M = n_modes modes, k = 1, …, M, the last one included (with a
#   single mode it is that mode's whole contribution).
def spectral_learning_curve(n, a, b, beta, n_modes):
    k = np.arange(1, int(n_modes), dtype=float)
    n_arr = np.asarray(n, dtype=float)
    out = np.array([np.sum(k ** (-b) / (1.0 + v * beta * k ** (-a)) ** 2) for v in n_arr.ravel()]).reshape(n_arr.shape)
    return float(out) if out.ndim == 0 else out

# %% tags=["wrong"]
# wrong: uniform [0, 1) random numbers instead of standard normal ones for the inputs
# hint: The inputs are Gaussian, x_k ~ N(0, λ_k): √λ_k times standard normal numbers, not uniform ones
#   (the data model of the kernel ridge regression part, Exercise 7.3).
def krr_test_error(n, a, b, beta, n_modes, seed):
    rng = np.random.default_rng(seed)
    k = np.arange(1, int(n_modes) + 1, dtype=float)
    lam, y_coef = k ** (-a), k ** (-b / 2.0)
    Z = rng.random((int(n), int(n_modes)))
    X = Z * np.sqrt(lam)
    dual = np.linalg.solve(X @ X.T + np.eye(int(n)) / beta, Z @ y_coef)
    return float(np.sum((np.sqrt(lam) * (X.T @ dual) - y_coef) ** 2))

# %% tags=["alternative"]
# alternative: vectorized outer-product curve, scipy linregress, primal (M x M) ridge on another random stream
def manifold_exponent(d, loss="mse"):
    if loss == "mse":
        return 4 / d
    if loss == "mae":
        return 2 / d
    raise ValueError(loss)


def manifold_dimension(alpha_P, loss="mse"):
    return 1.0 / (manifold_exponent(1.0, loss) ** -1 * alpha_P)


def spectral_learning_curve(n, a, b, beta, n_modes):
    k = np.arange(1, n_modes + 1.0)
    n_flat = np.atleast_1d(np.asarray(n, dtype=float)).ravel()
    out = []
    for chunk in np.array_split(n_flat, max(1, len(n_flat) // 4)):
        lam_eff = np.outer(chunk * beta, k ** -a)
        out.append(((k ** -b)[None, :] * (1.0 + lam_eff) ** -2).sum(axis=1))
    out = np.concatenate(out)
    return float(out[0]) if np.ndim(n) == 0 else out.reshape(np.shape(n))


def spectral_exponent(a, b):
    return b / a - 1 / a


def measured_exponent(a, b, ns, beta=1.0, n_modes=10**6):
    from scipy import stats
    L = spectral_learning_curve(np.asarray(ns, dtype=float), a, b, beta, n_modes)
    return -stats.linregress(np.log10(ns), np.log10(L)).slope


def krr_test_error(n, a, b, beta, n_modes, seed):
    rng = np.random.default_rng([seed, 2024])
    sd = np.arange(1, n_modes + 1.0) ** (-a / 2)
    target = np.arange(1, n_modes + 1.0) ** (-b / 2)
    X = rng.normal(size=(n, n_modes)) * sd
    y = (X / sd) @ target
    w = np.linalg.solve(X.T @ X + np.eye(n_modes) / beta, X.T @ y)  # primal ridge regression
    return float(((sd * w - target) ** 2).sum())
