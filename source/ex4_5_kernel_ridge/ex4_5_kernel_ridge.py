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
# # ex4_5_kernel_ridge: Bayesian learning at large width is kernel ridge regression
#
# *Notes: Section 4.6 and Exercise 4.5; Appendix B.4 and Exercise B.5 (the two-point
# example). Background: Sections 2.1 (the Bayesian model of learning), 3.3 (Gaussian
# processes), 4.4 (lazy learning).*
#
# Gradient flow at large width freezes the NTK and learns kernel eigenmodes one by one in
# time (Section 4.4). Here you derive and compute the **Bayesian** version: at large width
# the prior over network functions is a Gaussian process with the NNGP kernel $K$, the
# squared loss is a Gaussian likelihood at inverse temperature $\beta$, so the posterior is
# again a Gaussian process. Its mean is kernel ridge regression with ridge $\beta^{-1}$, its
# covariance says how sure the network is, and the inverse temperature $\beta$ plays the role
# that training time played for gradient flow.
#
# (Appendix B and the assignment `exB_linear_to_kernel` reach the same mean formula for a
# finite linear model without any Bayesian input; this assignment is about the posterior
# *distribution*, mean **and** covariance.)
#
# **Notation.** Training inputs $X=(x^1,\dots,x^n)$, labels $y\in\mathbb R^n$; the kernel
# matrix $\hat K^{\mu\nu}=K(x^\mu,x^\nu)$ (`K` or `K_train`, shape `(n, n)`); test inputs
# $x^a$, $a=1..m$, with `K_test_train` $=K(x^a,x^\mu)$ (shape `(m, n)`) and `K_test_test`
# $=K(x^a,x^b)$ (shape `(m, m)`). Vectors are 1-d numpy arrays. $\beta\in(0,\infty]$;
# `beta = np.inf` is allowed everywhere and means noise-free conditioning.
#
# **What you implement** (graded by hidden tests):
#
# | part | function | notes |
# |---|---|---|
# | (a) | `posterior_mean(K, y, beta)` | Ex 4.5(a) |
# | (b) | `mode_filter(eigenvalues, beta)` | Ex 4.5(b) |
# | (c) | `early_stopping_filter(eigenvalues, eta_t)`, `effective_ridge(eigenvalue, eta_t)` | Ex 4.5(c), Ex B.5 |
# | (d) | `posterior_predict(K_test_train, K_train, K_test_test, y, beta)` | Ex 4.5(d) |
#
# Written answers (cells reading *Your answer here.*) are graded by hand.

# %% tags=["setup"]
import numpy as np
import scipy.linalg
import matplotlib.pyplot as plt

# %% tags=["params"]
def draw_params(rng):
    """This year's inverse temperatures, kernel concentration and target for the spectral-bias figure."""
    import numpy as np

    betas = np.geomspace(0.3, 3000.0, 4) * rng.uniform(0.7, 1.4)
    return {"betas": [float(b) for b in np.round(betas, 2)],
            "kappa": float(np.round(rng.uniform(2.0, 5.0), 2)),
            "frequencies": sorted(int(k) for k in rng.choice(np.arange(1, 9), size=3, replace=False)),
            "seed": int(rng.integers(10_000))}


# %% [markdown]
# ## The posterior on the training values
#
# At large width the prior over network functions is a Gaussian process with the
# final-layer NNGP kernel $K$ (Section 3.4). Restricted to the training values
# $\mathbf f=(f(x^1),\dots,f(x^n))$ it is $\mathcal N(0,\hat K)$. The Bayesian posterior of Section
# 2.1 with the squared loss $\mathcal L=\frac12\sum_\mu(f(x^\mu)-y^\mu)^2$ is
# $$
# p(\mathbf f\mid y)\;\propto\;\exp\Big[-\tfrac12\,\mathbf f^T\hat K^{-1}\mathbf f-\tfrac\beta2\,|\mathbf f-y|^2\Big], \tag{1}
# $$
# a Gaussian likelihood with noise variance $\beta^{-1}$. The exponent is quadratic in
# $\mathbf f$; collecting the quadratic and linear terms,
# $-\frac12\mathbf f^T(\hat K^{-1}+\beta I)\mathbf f+\beta\,y\cdot\mathbf f$, and completing the square,
# $$
# \Sigma_{\rm train}=\big(\hat K^{-1}+\beta I\big)^{-1}=\hat K-\hat K\big(\hat K+\beta^{-1}I\big)^{-1}\hat K,\qquad
# \boldsymbol\mu=\beta\,\Sigma_{\rm train}\,y=\hat K\big(\hat K+\beta^{-1}I\big)^{-1}y . \tag{2}
# $$
# (For the second forms: $\hat K^{-1}+\beta I=\hat K^{-1}(\hat K+\beta^{-1}I)\,\beta$, so
# $\beta(\hat K^{-1}+\beta I)^{-1}=(\hat K+\beta^{-1}I)^{-1}\hat K=\hat K(\hat K+\beta^{-1}I)^{-1}$, the
# matrices commuting; and $\hat K-\hat K(\hat K+\beta^{-1}I)^{-1}\hat K=\hat K(\hat K+\beta^{-1}I)^{-1}\beta^{-1}$
# is the same matrix.) The second forms need no inverse of $\hat K$, so they also hold for a
# singular kernel, and they have a clean limit $\beta\to\infty$.
#
# **Task (a).** Implement `posterior_mean(K, y, beta)`, the posterior mean (2) of the
# training values. Solve linear systems; do not form inverses.

# %% tags=["graded"]
def posterior_mean(K, y, beta):
    """Posterior mean of the training values, mu = K (K + I/beta)^{-1} y, notes Ex 4.5(a).

    Prior f ~ N(0, K) on the n training values, likelihood exp(-beta/2 |f - y|^2).

    Arguments:
        K: array (n, n), kernel matrix of the training inputs (symmetric positive
           semidefinite; positive definite if beta = inf).
        y: array (n,), labels.
        beta: float in (0, inf], inverse temperature (noise precision); np.inf allowed.

    Returns:
        array (n,): the posterior mean mu.
    """
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    ridge = 1.0 / beta  # 0.0 for beta = inf
    alpha = scipy.linalg.solve(K + ridge * np.eye(K.shape[0]), y, assume_a="pos")
    return K @ alpha


# %% tags=["check"]
@check
def check_posterior_mean_limits():
    "posterior mean: shrinks to 0 as beta -> 0, interpolates the labels at beta = inf"
    rng = np.random.default_rng(0)
    A = rng.normal(size=(5, 8))
    K = A @ A.T / 8
    y = rng.normal(size=5)
    mu = np.asarray(posterior_mean(K, y, 2.0))
    assert mu.shape == (5,), "the posterior mean should have shape (n,)"
    assert np.allclose(posterior_mean(K, y, np.inf), y, atol=1e-9), "beta = inf should interpolate the labels"
    assert np.max(np.abs(posterior_mean(K, y, 1e-8))) < 1e-6, "beta -> 0: the prior mean 0 wins"
    # stationarity of the exponent of (1): K^{-1} mu + beta (mu - y) = 0
    assert np.allclose(np.linalg.solve(K, mu) + 2.0 * (mu - y), 0, atol=1e-8), \
        "mu should make the gradient of the exponent of (1) vanish"


# %% [markdown]
# ## (b) Mode by mode: spectral bias
#
# Diagonalize $\hat K=\sum_k\lambda_ku_ku_k^T$ and write $y_k=u_k\cdot y$, $\mu_k=u_k\cdot\boldsymbol\mu$.
# Everything in (2) is a function of $\hat K$, so it acts on each eigenvector separately:
# $$
# \mu_k=\frac{\lambda_k}{\lambda_k+\beta^{-1}}\,y_k=\frac{\beta\lambda_k}{1+\beta\lambda_k}\,y_k,\qquad
# y_k-\mu_k=\frac{y_k}{1+\beta\lambda_k},\qquad
# \big(\Sigma_{\rm train}\big)_{kk}=\frac{\lambda_k}{1+\beta\lambda_k}. \tag{3}
# $$
# Mode $k$ is essentially unlearned for $\beta\ll1/\lambda_k$ and learned for $\beta\gg1/\lambda_k$:
# as $\beta$ grows the modes switch on one by one at $\beta_k=1/\lambda_k$, large eigenvalues first
# (*spectral bias*). The posterior variance of mode $k$ is its prior variance $\lambda_k$ times the
# unlearned fraction.
#
# **Task (b).** Implement `mode_filter(eigenvalues, beta)`, the learned fraction
# $\lambda/(\lambda+\beta^{-1})$ of (3); it must return exactly 1 at `beta = np.inf` for
# $\lambda>0$ (careful: $\beta\lambda/(1+\beta\lambda)$ gives `nan` there).

# %% tags=["graded"]
def mode_filter(eigenvalues, beta):
    """Fraction of a kernel eigenmode learned by the posterior mean, lambda / (lambda + 1/beta), notes (3).

    Arguments:
        eigenvalues: float or array of kernel eigenvalues lambda_k >= 0 (> 0 if beta = inf).
        beta: float in (0, inf], inverse temperature; np.inf allowed (filter = 1).

    Returns:
        float (for a single eigenvalue) or array of the same shape as eigenvalues, values in [0, 1].
    """
    lam = np.asarray(eigenvalues, dtype=float)
    return lam / (lam + 1.0 / beta)


# %% tags=["check"]
@check
def check_mode_filter():
    "mode_filter: 1/2 at beta * lambda = 1, increasing in lambda and in beta, 1 at beta = inf"
    lam = np.logspace(-3, 3, 13)
    m = np.asarray(mode_filter(lam, 1.0))
    assert m.shape == lam.shape and np.all(np.diff(m) > 0), "should act elementwise and increase with lambda"
    assert np.isclose(m[6], 0.5), "at beta * lambda = 1 half of the mode is learned"
    assert np.all(np.asarray(mode_filter(lam, 10.0)) > m), "should increase with beta"
    assert np.allclose(mode_filter(lam, np.inf), 1.0), "beta = inf: every mode with lambda > 0 is learned"


# %% [markdown]
# **Ex 4.5(a,b), written.** Derive (2) by completing the square in (1), and derive (3). Show that
# the posterior covariance does not depend on the labels, and say what "spectral bias" means
# here.

# %% [markdown] tags=["answer"] points=4
# **Model answer.** The exponent of (1) is
# $-\frac12\mathbf f^TA\mathbf f+\beta y\cdot\mathbf f-\frac\beta2|y|^2$ with $A=\hat K^{-1}+\beta I$ (symmetric,
# positive definite). Completing the square,
# $-\frac12(\mathbf f-\boldsymbol\mu)^TA(\mathbf f-\boldsymbol\mu)+\text{const}$ with $A\boldsymbol\mu=\beta y$: a Gaussian
# with covariance $A^{-1}$ and mean $\boldsymbol\mu=\beta A^{-1}y=\hat K(\hat K+\beta^{-1}I)^{-1}y$. The
# covariance $A^{-1}$ involves only $\hat K$ and $\beta$: the labels shift the posterior, they
# do not change its width (a property of Gaussian models). In the eigenbasis of $\hat K$ the
# matrix $A$ is diagonal with entries $\lambda_k^{-1}+\beta$, so
# $(\Sigma_{\rm train})_{kk}=\lambda_k/(1+\beta\lambda_k)$ and
# $\mu_k=\beta\lambda_k/(1+\beta\lambda_k)\,y_k$, which is (3). Spectral bias: at given $\beta$ the
# components of $y$ along eigenvectors with $\lambda_k\gg1/\beta$ are reproduced, those with
# $\lambda_k\ll1/\beta$ are shrunk to the prior mean $0$; increasing $\beta$ (less noise, or, as
# the notes argue, more data: $n\beta$ with continuum eigenvalues) switches on modes in order of
# decreasing eigenvalue.
#
# *Rubric:* completing the square with the right $A$ (1 pt); mean in the ridge form (1 pt);
# covariance independent of $y$ (1 pt); mode formula and the meaning of spectral bias (1 pt).

# %% [markdown]
# ## (c) Compare with gradient flow: two filters
#
# Lazy gradient flow from $f=0$ with a frozen kernel $\hat\Theta$ (Section 4.4) fits mode $k$ as
# $1-e^{-\eta t\lambda_k}$ (with $\lambda_k$ now the eigenvalues of the NTK): the
# **early-stopping filter**. Both filters go from 0 to 1 as the mode's eigenvalue crosses a
# scale, $1/\beta$ for the posterior and $1/(\eta t)$ for gradient flow, so $\beta\leftrightarrow\eta t$. But
# the shapes differ: the unlearned fraction decays as a power law $1/(1+\beta\lambda)$ in one case
# and exponentially, $e^{-\eta t\lambda}$, in the other. Requiring the two filters to agree on a mode
# of eigenvalue $\lambda$,
# $$
# \frac{\lambda}{\lambda+\beta_{\rm eff}^{-1}}=1-e^{-\eta t\lambda}
# \quad\Longleftrightarrow\quad
# \beta_{\rm eff}^{-1}=\lambda_{\rm eff}(\lambda,t)=\frac{\lambda}{e^{\eta t\lambda}-1}, \tag{4}
# $$
# the *effective ridge*, which depends on $\lambda$: early stopping is not a posterior mean (nor
# ridge regression) with any single $\beta$. For $\lambda\to0$, $\lambda_{\rm eff}\to1/(\eta t)$.
#
# **Tasks (c).** Implement `early_stopping_filter(eigenvalues, eta_t)`, $1-e^{-\eta t\lambda}$, and
# `effective_ridge(eigenvalue, eta_t)`, eq. (4). Both must be accurate (relative $10^{-9}$)
# when $\eta t\lambda$ is tiny: use `np.expm1`; and `effective_ridge` must return the limit
# $1/(\eta t)$ at $\lambda=0$.

# %% tags=["graded"]
def early_stopping_filter(eigenvalues, eta_t):
    """Fraction of a kernel eigenmode learned by gradient flow from f = 0 at time t: 1 - exp(-eta t lambda).

    Arguments:
        eigenvalues: float or array of kernel eigenvalues lambda >= 0.
        eta_t: float >= 0, learning rate times training time.

    Returns:
        float (for a single eigenvalue) or array of the same shape, accurate to relative 1e-9 also when eta_t * lambda
        is tiny (no cancellation in 1 - exp(-x)).
    """
    lam = np.asarray(eigenvalues, dtype=float)
    return -np.expm1(-eta_t * lam)


def effective_ridge(eigenvalue, eta_t):
    """Ridge 1/beta_eff at which the posterior-mean filter equals the early-stopping filter, notes (4).

    lambda / (lambda + ridge) = 1 - exp(-eta_t lambda)  <=>  ridge = lambda / (exp(eta_t lambda) - 1).

    Arguments:
        eigenvalue: float or array of eigenvalues lambda >= 0.
        eta_t: float > 0.

    Returns:
        float (for a single eigenvalue) or array of the same shape: lambda / expm1(eta_t lambda),
        with the limit 1 / eta_t at lambda = 0; accurate to relative 1e-9 for tiny eta_t * lambda.
    """
    lam = np.asarray(eigenvalue, dtype=float)
    x = eta_t * lam
    small = np.abs(x) < 1e-8
    safe = np.where(small, 1.0, x)
    # lambda / (e^x - 1) = (1/eta_t) * x / expm1(x); x / expm1(x) = 1 - x/2 + ... for small x;
    # for large x, expm1 overflows to inf and the ridge to its limit 0
    with np.errstate(over="ignore"):
        out = np.where(small, (1.0 - x / 2) / eta_t, lam / np.expm1(safe))
    return float(out) if out.ndim == 0 else out


# %% tags=["check"]
@check
def check_filters_agree_at_effective_ridge():
    "mode_filter at beta = 1/effective_ridge reproduces early_stopping_filter on every mode"
    lam = np.logspace(-3, 2, 11)
    for eta_t in [0.3, 2.0]:
        ridge = np.asarray(effective_ridge(lam, eta_t))
        assert ridge.shape == lam.shape, "effective_ridge should act elementwise"
        # beta is one number per call (the contract): one call per mode, each at its own ridge
        matched = np.array([mode_filter(lam_k, 1 / r_k) for lam_k, r_k in zip(lam, ridge)], dtype=float)
        assert np.allclose(matched, early_stopping_filter(lam, eta_t), rtol=1e-9), \
            "the filters should agree at the effective ridge"
    assert np.isclose(effective_ridge(0.0, 2.0), 0.5), "lambda -> 0: the effective ridge tends to 1/(eta t)"
    assert np.isclose(early_stopping_filter(1e-12, 1.0), 1e-12, rtol=1e-9), "no cancellation for tiny eta t lambda"


# %% [markdown]
# **Figure.** The two filters as functions of the eigenvalue, tuned to agree on the mode
# $\lambda=1$ ($\beta=1$, $\eta t=\log 2$), with the two modes of Exercise B.5 marked; and the
# effective inverse temperature $\beta_{\rm eff}=1/\lambda_{\rm eff}=(e^{\eta t\lambda}-1)/\lambda$ at which the
# posterior mean would mimic early stopping, mode by mode, in units of $\eta t$: a single curve
# $(e^x-1)/x$ of $x=\eta t\lambda$, equal to 1 for modes not yet learned ($x\ll1$) and growing
# exponentially for the learned ones.

# %% tags=["figure"]
try:
    lam_grid = np.logspace(-2, 2, 300)
    modes = np.array([1.0, 3.0])
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    ax1.semilogx(lam_grid, mode_filter(lam_grid, 1.0), label=r"posterior mean $\lambda/(\lambda+\beta^{-1})$, $\beta=1$")
    ax1.semilogx(lam_grid, early_stopping_filter(lam_grid, np.log(2)),
                 label=r"gradient flow $1-e^{-\eta t\lambda}$, $\eta t=\log 2$")
    ax1.plot(modes, mode_filter(modes, 1.0), "o", color="C0")
    ax1.plot(modes, early_stopping_filter(modes, np.log(2)), "s", color="C1")
    ax1.set_xlabel(r"kernel eigenvalue $\lambda$")
    ax1.set_ylabel("fraction of the mode learned")
    ax1.legend(fontsize=8)
    ax1.set_title("Bayesian posterior vs early stopping")
    x_grid = np.logspace(-3, 1.3, 200)  # x = eta t lambda, at eta t = 1
    ax2.loglog(x_grid, 1 / np.asarray(effective_ridge(x_grid, 1.0)), label=r"$(e^x-1)/x$")
    et2 = np.log(2.0)
    ax2.plot(et2 * modes, 1 / (et2 * np.asarray(effective_ridge(modes, et2))), "s", color="C1",
             label=r"Ex. B.5 modes at $\eta t=\log 2$")
    ax2.axhline(1.0, color="0.6", lw=0.8)
    ax2.set_xlabel(r"$\eta t\,\lambda$ (mode eigenvalue in units of $1/\eta t$)")
    ax2.set_ylabel(r"$\beta_{\rm eff}/\eta t$")
    ax2.set_title(r"$\beta\leftrightarrow\eta t$ holds only for the slow modes")
    ax2.legend(fontsize=8)
    plt.tight_layout()
    plt.show()
except NotImplementedError:
    print("the filters are not implemented yet")

# %% [markdown]
# **Ex 4.5(c), written.** Compare (3) with the gradient-flow result $\hat\Delta^k(t)=e^{-\eta s_k^2t}\hat\Delta^k(0)$.
# What is the same, what differs? Use the two-point example of Exercise B.5
# ($\hat K=\begin{pmatrix}2&1\\1&2\end{pmatrix}$, $y=(2,0)$): give the posterior mean at $\beta=1$, the
# gradient-flow prediction at $\eta t=\log2$, and the effective ridges of the two modes.

# %% [markdown] tags=["answer"] points=4
# **Model answer.** *Same:* both act mode by mode in the eigenbasis of a frozen kernel, both
# learn large-eigenvalue modes first, and mode $k$ switches on at a scale set by its
# eigenvalue: $\beta_k=1/\lambda_k$ for the posterior, $t_k=1/(\eta s_k^2)$ for the flow, so
# $\beta\leftrightarrow\eta t$ (inverse noise, or data, in the role of training time). *Different:* (i) the
# shape: the unlearned fraction is $1/(1+\beta\lambda)$, a power law, versus $e^{-\eta t\lambda}$,
# exponentially sharp; by (4) no single $\beta$ reproduces a stopping time on all modes; (ii)
# the kernel: the posterior uses the NNGP kernel $K$ (the prior covariance), gradient flow the
# NTK $\Theta$, two different frozen kernels of the same network; (iii) the posterior is a
# distribution (with the covariance of part (d)), gradient flow gives one function per
# initialization. *Two-point example:* eigenpairs $u_\pm=(1,\pm1)/\sqrt2$, $\lambda_\pm=3,1$,
# $y_\pm=\sqrt2$. At $\beta=1$ the filters are $3/4$ and $1/2$, so
# $\boldsymbol\mu=\frac34(1,1)+\frac12(1,-1)=(\frac54,\frac14)$. Gradient flow at $\eta t=\log2$:
# filters $1-2^{-3}=\frac78$ and $\frac12$, prediction $(\frac{11}8,\frac38)$. Effective ridges
# $\lambda/(e^{\eta t\lambda}-1)=3/7$ for $\lambda=3$ and $1$ for $\lambda=1$: the two modes would need
# $\beta_{\rm eff}=7/3$ and $1$.
#
# *Rubric:* similarities incl. $\beta\leftrightarrow\eta t$ (1 pt); the two differences in shape and
# kernel (1 pt); the numbers of the two-point example (2 pts).

# %% [markdown]
# ## (d) The posterior over functions: prediction with error bars
#
# Add the test values $f_*=(f(x^a))_{a=1}^m$. Under the prior, $(\mathbf f,f_*)$ is jointly Gaussian
# with covariance $\begin{pmatrix}\hat K&K_{X*}\\K_{*X}&K_{**}\end{pmatrix}$, and the likelihood involves
# $\mathbf f$ only, so the posterior of $f_*$ is again Gaussian. Conditioning (equivalently,
# observing $y=\mathbf f+\varepsilon$ with $\varepsilon\sim\mathcal N(0,\beta^{-1}I)$, so that
# $\mathrm{Cov}(y)=\hat K+\beta^{-1}I$ and $\mathrm{Cov}(f_*,y)=K_{*X}$):
# $$
# \mu(x)=\sum_{\mu\nu}K(x,x^\mu)\big(\hat K+\beta^{-1}I\big)^{-1}_{\mu\nu}y^\nu,\qquad
# \Sigma(x,x')=K(x,x')-\sum_{\mu\nu}K(x,x^\mu)\big(\hat K+\beta^{-1}I\big)^{-1}_{\mu\nu}K(x^\nu,x') . \tag{5}
# $$
# The mean is kernel ridge regression with ridge $\beta^{-1}$; $\beta\to\infty$ interpolates the
# data exactly and (for invertible $\hat K$) makes the posterior variance vanish at the
# training inputs. $\Sigma$ is the covariance of the *latent* function $f$, not of a new noisy
# observation (which would add $\beta^{-1}$ on the diagonal).
#
# **Weight space vs function space.** For a model linear in its parameters,
# $f(x)=\theta\cdot\psi(x)$ with prior $\theta\sim\mathcal N(0,I_P)$ (so $K=\Psi\Psi^T$, Appendix B.4), the
# posterior over $\theta$ is Gaussian with precision $I_P+\beta\Psi^T\Psi$ and mean
# $\beta(I_P+\beta\Psi^T\Psi)^{-1}\Psi^Ty$, a $P\times P$ problem. The Woodbury identity
# $$
# \big(I_P+\beta\Psi^T\Psi\big)^{-1}=I_P-\Psi^T\big(\Psi\Psi^T+\beta^{-1}I_n\big)^{-1}\Psi \tag{6}
# $$
# turns it into the $n\times n$ formulas (5).
#
# **Task (d).** Implement `posterior_predict(K_test_train, K_train, K_test_test, y, beta)`,
# returning the mean vector and covariance matrix (5). Return a covariance that is exactly
# symmetric (e.g. through a Cholesky factor, $\Sigma=K_{**}-V^TV$ with $V=L^{-1}K_{X*}$).

# %% tags=["graded"]
def posterior_predict(K_test_train, K_train, K_test_test, y, beta):
    """Gaussian-process posterior at test inputs: mean and covariance, notes Ex 4.5(d), eq. (5).

    mean = K_*X (K + I/beta)^{-1} y,   cov = K_** - K_*X (K + I/beta)^{-1} K_X*.

    Arguments:
        K_test_train: array (m, n), K(x_test^a, x^mu).
        K_train: array (n, n), kernel matrix of the training inputs (PSD; PD if beta = inf).
        K_test_test: array (m, m), K(x_test^a, x_test^b).
        y: array (n,), training labels.
        beta: float in (0, inf], inverse temperature; np.inf allowed (noise-free conditioning).

    Returns:
        (mean, cov): mean of shape (m,) and covariance of shape (m, m), symmetric; the
        covariance of the latent function values (no observation noise added).
    """
    Ks = np.asarray(K_test_train, dtype=float)
    K = np.asarray(K_train, dtype=float)
    Kss = np.asarray(K_test_test, dtype=float)
    y = np.asarray(y, dtype=float)
    C = K + (1.0 / beta) * np.eye(K.shape[0])
    L = np.linalg.cholesky(C)
    alpha = scipy.linalg.cho_solve((L, True), y)
    V = scipy.linalg.solve_triangular(L, Ks.T, lower=True)  # (n, m)
    return Ks @ alpha, Kss - V.T @ V


# %% tags=["check"]
@check
def check_posterior_predict_consistency():
    "posterior_predict at the training inputs reproduces posterior_mean; the covariance is symmetric PSD"
    rng = np.random.default_rng(1)
    A = rng.normal(size=(7, 10))
    Kall = A @ A.T / 10
    y = rng.normal(size=4)
    mean, cov = posterior_predict(Kall[:4, :4], Kall[:4, :4], Kall[:4, :4], y, 3.0)
    assert np.shape(mean) == (4,) and np.shape(cov) == (4, 4), "mean (m,) and cov (m, m)"
    assert np.allclose(mean, posterior_mean(Kall[:4, :4], y, 3.0)), "at the training inputs: posterior_mean"
    mean, cov = posterior_predict(Kall[4:, :4], Kall[:4, :4], Kall[4:, 4:], y, 3.0)
    cov = np.asarray(cov)
    assert np.shape(mean) == (3,) and np.allclose(cov, cov.T), "the covariance should be symmetric"
    assert np.linalg.eigvalsh(cov).min() > -1e-10, "the covariance should be positive semidefinite"
    assert np.all(np.diag(cov) <= np.diag(Kall[4:, 4:]) + 1e-12), "data can only reduce the variance"


@check
def check_posterior_noise_free_limit():
    "beta = inf: the posterior interpolates and has zero variance at the training inputs"
    rng = np.random.default_rng(2)
    A = rng.normal(size=(5, 9))
    K = A @ A.T / 9
    y = rng.normal(size=5)
    mean, cov = posterior_predict(K, K, K, y, np.inf)
    assert np.allclose(mean, y, atol=1e-8) and np.allclose(cov, 0, atol=1e-8)


# %% [markdown]
# **Ex 4.5(d), written.** Show that the posterior over functions is the Gaussian process (5), and use
# the Woodbury identity to show that the weight-space posterior of a linear model gives the
# same predictions.

# %% [markdown] tags=["answer"] points=4
# **Model answer.** Under the prior $(f_*,\mathbf f)$ is Gaussian and the likelihood depends on
# $\mathbf f$ only, so $p(f_*\mid y)=\int p(f_*\mid\mathbf f)\,p(\mathbf f\mid y)\,d\mathbf f$ is Gaussian.
# Equivalently, introduce $y=\mathbf f+\varepsilon$, $\varepsilon\sim\mathcal N(0,\beta^{-1}I)$ independent of $f$;
# then $(f_*,y)$ is jointly Gaussian with $\mathrm{Cov}(y)=\hat K+\beta^{-1}I$, $\mathrm{Cov}(f_*,y)=K_{*X}$,
# and the Gaussian conditioning formula $\mathbb E[f_*\mid y]=K_{*X}(\hat K+\beta^{-1}I)^{-1}y$,
# $\mathrm{Cov}[f_*\mid y]=K_{**}-K_{*X}(\hat K+\beta^{-1}I)^{-1}K_{X*}$ is (5). This holds for every
# finite set of test points, consistently, so the posterior is a Gaussian process; in the
# notes' functional language the action stays quadratic in $f$ and completing the square gives
# the same mean and covariance. *Weight space:* $f_*=\Psi_*\theta$ with $\theta\mid y\sim\mathcal N(\bar\theta,A^{-1})$,
# $A=I+\beta\Psi^T\Psi$, $\bar\theta=\beta A^{-1}\Psi^Ty$. By (6),
# $\Psi_*A^{-1}\Psi_*^T=\Psi_*\Psi_*^T-\Psi_*\Psi^T(\Psi\Psi^T+\beta^{-1}I)^{-1}\Psi\Psi_*^T=K_{**}-K_{*X}(\hat K+\beta^{-1}I)^{-1}K_{X*}$,
# and $\beta A^{-1}\Psi^T=\Psi^T(\Psi\Psi^T+\beta^{-1}I)^{-1}$ (push-through), so
# $\Psi_*\bar\theta=K_{*X}(\hat K+\beta^{-1}I)^{-1}y$. (Woodbury itself: multiply
# $I+\beta\Psi^T\Psi$ by the right-hand side of (6) and use push-through to get the identity.)
#
# *Rubric:* joint Gaussian and conditioning (2 pts); the covariance is of the latent $f$
# (1 pt); Woodbury/push-through for the weight-space equivalence (1 pt).

# %% [markdown]
# **Figure (spectral bias in action).** A translation-invariant kernel on the circle,
# $K(\gamma,\gamma')=\exp[\kappa(\cos(\gamma-\gamma')-1)]$ (von Mises; $\kappa$ = `PARAMS["kappa"]`), on
# $n=24$ equispaced inputs: the Gram matrix is circulant, its eigenvectors are the discrete
# Fourier modes, and its eigenvalues decrease with frequency. The target contains this year's
# frequencies `PARAMS["frequencies"]` with equal amplitudes plus a little label noise. Left:
# posterior mean and $\pm2\sigma$ band at the inverse temperatures `PARAMS["betas"]`. Right: the
# learned fraction of each frequency (3) against $\beta$; mode $k$ switches on at $\beta\approx1/\lambda_k$.

# %% tags=["provided"]
def von_mises_kernel(g1, g2, kappa):
    """K(gamma, gamma') = exp(kappa (cos(gamma - gamma') - 1)) for angles g1 (m,), g2 (n,); shape (m, n)."""
    return np.exp(kappa * (np.cos(np.subtract.outer(np.asarray(g1, float), np.asarray(g2, float))) - 1.0))


# %% tags=["figure"]
try:
    rng_fig = np.random.default_rng(PARAMS["seed"])
    kappa, freqs = PARAMS["kappa"], PARAMS["frequencies"]
    g_tr = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    g_te = np.linspace(0, 2 * np.pi, 300)

    def target(g):
        return sum(np.cos(k * g + 0.7 * k) for k in freqs)

    y_tr = target(g_tr) + 0.05 * rng_fig.standard_normal(g_tr.size)
    K_tr = von_mises_kernel(g_tr, g_tr, kappa)
    K_te_tr = von_mises_kernel(g_te, g_tr, kappa)
    K_te = von_mises_kernel(g_te, g_te, kappa)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for k, b in enumerate(PARAMS["betas"]):
        mean, cov = posterior_predict(K_te_tr, K_tr, K_te, y_tr, b)
        sd = np.sqrt(np.clip(np.diag(cov), 0, None))
        col = plt.cm.viridis(k / len(PARAMS["betas"]))
        axes[0].plot(g_te, mean, color=col, label=rf"$\beta$ = {b}")
        axes[0].fill_between(g_te, mean - 2 * sd, mean + 2 * sd, color=col, alpha=0.15)
    axes[0].plot(g_te, target(g_te), "k:", label="target")
    axes[0].plot(g_tr, y_tr, "k.")
    axes[0].set_xlabel(r"angle $\gamma$")
    axes[0].set_title(r"posterior mean $\pm 2\sigma$")
    axes[0].legend(fontsize=7)
    beta_grid = np.logspace(-1.5, 4.5, 200)
    # eigenvalue of frequency q on the equispaced grid: the DFT of the first row of the circulant
    lam_q = np.real(np.fft.fft(K_tr[0]))
    for k in range(0, 9):
        axes[1].semilogx(beta_grid, [mode_filter(lam_q[k], b) for b in beta_grid],
                         color="C3" if k in freqs else "0.7", lw=2 if k in freqs else 1)
        if beta_grid[0] < 1 / lam_q[k] < beta_grid[-1]:
            axes[1].text(1 / lam_q[k], 0.52, str(k), fontsize=8, ha="center")
    axes[1].set_xlabel(r"inverse temperature $\beta$")
    axes[1].set_ylabel("fraction of frequency $k$ learned")
    axes[1].set_title("modes switch on one by one (red: in the target)")
    plt.tight_layout()
    plt.show()
except NotImplementedError:
    print("posterior_predict or mode_filter is not implemented yet")

# %% tags=["solution"]
# Independent cross-checks
#
# 1. **Weight space vs function space:** an explicit feature model $f=\theta\cdot\psi(x)$ with
#    prior $\theta\sim\mathcal N(0,I_P)$, posterior over $\theta$ in closed form ($P\times P$), pushed to
#    the test points, against `posterior_predict` on $K=\Psi\Psi^T$ ($n\times n$), for $P<n$ and
#    $P>n$ (Woodbury).
# 2. **Completing the square in the full action:** the posterior precision of the joint
#    vector $(\mathbf f,f_*)$ is $C^{-1}+\beta\,\mathrm{diag}(I_n,0)$ with $C$ the joint prior covariance;
#    its inverse and mean against (5).
# 3. **Monte Carlo:** (i) importance sampling: prior samples of $(\mathbf f,f_*)$ weighted by
#    $e^{-\beta|\mathbf f-y|^2/2}$; (ii) Metropolis-adjusted Langevin dynamics in weight space
#    (Section 2.1: Bayesian learning as noisy training). Sample means and covariances agree
#    with (5) within a few standard errors.
# 4. Limits: $\beta\to\infty$ (mean $\to y$ at rate $1/\beta$, variance at the training inputs
#    $\to0$), $\beta\to0$ (back to the prior); the mode formula (3) against the eigenvectors of
#    $\hat K$; the posterior covariance does not depend on $y$.
# 5. Filters: the two-point example of Exercise B.5 in exact arithmetic; `effective_ridge`
#    against root finding (`brentq`).
# 1. weight-space posterior (P x P) vs function-space posterior (n x n), P < n and P > n
rng = np.random.default_rng(7)
worst = 0.0
for n, m, P in [(6, 4, 3), (5, 3, 12), (8, 5, 40)]:
    Psi_all = rng.standard_normal((n + m, P)) / np.sqrt(P)
    Psi, Psi_s = Psi_all[:n], Psi_all[n:]
    yy = rng.standard_normal(n)
    for beta in [0.5, 4.0, 200.0]:
        A = np.eye(P) + beta * Psi.T @ Psi
        theta_bar = beta * np.linalg.solve(A, Psi.T @ yy)
        mean_w, cov_w = Psi_s @ theta_bar, Psi_s @ np.linalg.solve(A, Psi_s.T)
        Kf = Psi_all @ Psi_all.T
        mean_f, cov_f = posterior_predict(Kf[n:, :n], Kf[:n, :n], Kf[n:, n:], yy, beta)
        worst = max(worst, np.max(np.abs(mean_w - mean_f)), np.max(np.abs(cov_w - cov_f)))
        assert np.allclose(Psi @ theta_bar, posterior_mean(Kf[:n, :n], yy, beta), atol=1e-10)
assert worst < 1e-10
print("weight space vs function space (Woodbury): max |difference| < 1e-10")   # round-off: a bound

# %% tags=["solution"]
# 2. completing the square in the joint action of (f_train, f_test)
n, m = 5, 3
G = rng.standard_normal((n + m, 12))
C = G @ G.T / 12 + 0.05 * np.eye(n + m)  # joint prior covariance
yy = rng.standard_normal(n)
for beta in [0.3, 2.0, 50.0]:
    Lam = np.linalg.inv(C) + beta * np.diag(np.r_[np.ones(n), np.zeros(m)])  # posterior precision
    cov_joint = np.linalg.inv(Lam)
    mean_joint = cov_joint @ np.r_[beta * yy, np.zeros(m)]
    mean_k, cov_k = posterior_predict(C[n:, :n], C[:n, :n], C[n:, n:], yy, beta)
    err = max(np.max(np.abs(mean_joint[n:] - mean_k)), np.max(np.abs(cov_joint[n:, n:] - cov_k)),
              np.max(np.abs(mean_joint[:n] - posterior_mean(C[:n, :n], yy, beta))))
    assert err < 1e-9
    print(f"beta = {beta}: joint-precision route vs kernel formulas: < 1e-9")

# %% tags=["solution"]
# 3(i). importance sampling from the prior
S = 400_000
beta = 3.0
Lc = np.linalg.cholesky(C)
F = rng.standard_normal((S, n + m)) @ Lc.T  # prior samples of (f_train, f_test)
logw = -0.5 * beta * np.sum((F[:, :n] - yy) ** 2, axis=1)
w = np.exp(logw - logw.max())
w /= w.sum()
ess = 1.0 / np.sum(w**2)
mean_is = w @ F[:, n:]
dev = F[:, n:] - mean_is
cov_is = (w[:, None] * dev).T @ dev
mean_k, cov_k = posterior_predict(C[n:, :n], C[:n, :n], C[n:, n:], yy, beta)
se_mean = np.sqrt(np.diag(cov_k) / ess)
z_mean = np.max(np.abs(mean_is - mean_k) / se_mean)
z_cov = np.max(np.abs(cov_is - cov_k) / (np.sqrt(np.outer(np.diag(cov_k), np.diag(cov_k)) * 2 / ess)))
print(f"importance sampling (effective sample size {ess:.0f}): mean max |z| = {z_mean:.2f}, cov max |z| = {z_cov:.2f}")
assert z_mean < 5 and z_cov < 5

# %% tags=["solution"]
# 3(ii). Metropolis-adjusted Langevin (MALA) in weight space: "training with noise" samples the posterior
n, m, P = 4, 3, 6
Psi_all = rng.standard_normal((n + m, P)) / np.sqrt(P)
Psi, Psi_s = Psi_all[:n], Psi_all[n:]
yy = rng.standard_normal(n)
beta = 5.0


def log_post(th):  # log p(theta | y) up to a constant, for a batch of chains (rows)
    return -0.5 * beta * np.sum((th @ Psi.T - yy) ** 2, axis=1) - 0.5 * np.sum(th**2, axis=1)


def grad_log_post(th):
    return -beta * (th @ Psi.T - yy) @ Psi - th


chains, steps, dt = 4000, 1500, 0.05
th = rng.standard_normal((chains, P))
accepted = 0
for step in range(steps):
    prop = th + dt * grad_log_post(th) + np.sqrt(2 * dt) * rng.standard_normal(th.shape)
    fwd = -np.sum((prop - th - dt * grad_log_post(th)) ** 2, axis=1) / (4 * dt)
    bwd = -np.sum((th - prop - dt * grad_log_post(prop)) ** 2, axis=1) / (4 * dt)
    accept = np.log(rng.random(chains)) < log_post(prop) - log_post(th) + bwd - fwd
    th[accept] = prop[accept]
    accepted += accept.mean()
f_s = th @ Psi_s.T  # posterior samples of the test values, one per chain
Kf = Psi_all @ Psi_all.T
mean_k, cov_k = posterior_predict(Kf[n:, :n], Kf[:n, :n], Kf[n:, n:], yy, beta)
z_mean = np.max(np.abs(f_s.mean(0) - mean_k) / np.sqrt(np.diag(cov_k) / chains))
z_cov = np.max(np.abs(np.cov(f_s.T) - cov_k) / np.sqrt(np.outer(np.diag(cov_k), np.diag(cov_k)) * 2 / chains))
print(f"MALA ({chains} chains x {steps} steps, acceptance {accepted / steps:.2f}): "
      f"mean max |z| = {z_mean:.2f}, cov max |z| = {z_cov:.2f}")
assert z_mean < 5 and z_cov < 5

# %% tags=["solution"]
# 4. limits and the mode formula
A0 = rng.standard_normal((6, 9))
K6 = A0 @ A0.T / 9
y6 = rng.standard_normal(6)
gaps = [np.max(np.abs(posterior_mean(K6, y6, b) - y6)) for b in [1e4, 1e5, 1e6]]
print("beta -> inf: |mu - y| =", ", ".join(f"{g:.2e}" for g in gaps), "(factor 10 per decade)")
assert np.allclose(np.array(gaps[:-1]) / np.array(gaps[1:]), 10, rtol=0.05)
_, cov_inf = posterior_predict(K6, K6, K6, y6, np.inf)
assert np.allclose(cov_inf, 0, atol=1e-9)
mean0, cov0 = posterior_predict(K6, K6, K6, y6, 1e-9)
assert np.allclose(mean0, 0, atol=1e-7) and np.allclose(cov0, K6, atol=1e-7)
lam6, U6 = np.linalg.eigh(K6)
for b in [0.2, 3.0]:
    mu_modes = U6.T @ posterior_mean(K6, y6, b)
    assert np.allclose(mu_modes, mode_filter(lam6, b) * (U6.T @ y6), atol=1e-12)
    _, cov_tr = posterior_predict(K6, K6, K6, y6, b)
    assert np.allclose(U6.T @ cov_tr @ U6, np.diag(lam6 / (1 + b * lam6)), atol=1e-12)
    assert np.allclose(cov_tr, posterior_predict(K6, K6, K6, rng.standard_normal(6), b)[1])  # independent of y
print("mode formula (3) for mean and covariance, and label-independence of the covariance: ok")

# %% tags=["solution"]
# 5. two-point example of Ex B.5 in exact arithmetic; effective ridge by root finding
from fractions import Fraction
import scipy.optimize

K2 = np.array([[2.0, 1.0], [1.0, 2.0]])
y2 = np.array([2.0, 0.0])
mu2 = posterior_mean(K2, y2, 1.0)
# exact: K (K + I)^{-1} y with (K + I)^{-1} = [[3, -1], [-1, 3]] / 8
inv = [[Fraction(3, 8), Fraction(-1, 8)], [Fraction(-1, 8), Fraction(3, 8)]]
alpha_q = [inv[i][0] * 2 for i in range(2)]
mu_q = [2 * alpha_q[0] + alpha_q[1], alpha_q[0] + 2 * alpha_q[1]]
print("two-point posterior mean at beta = 1:", mu2, "exact:", [str(q) for q in mu_q])
assert np.allclose(mu2, [float(q) for q in mu_q]) and mu_q == [Fraction(5, 4), Fraction(1, 4)]
lam2, U2 = np.linalg.eigh(K2)
flow2 = U2 @ (early_stopping_filter(lam2, np.log(2)) * (U2.T @ y2))
assert np.allclose(flow2, [11 / 8, 3 / 8])
assert np.allclose(effective_ridge(np.array([3.0, 1.0]), np.log(2)), [3 / 7, 1.0])
for lam in [1e-6, 0.1, 1.0, 7.0]:
    for et in [0.2, 1.0, 3.0]:
        root = scipy.optimize.brentq(lambda r: lam / (lam + r) - early_stopping_filter(lam, et), 1e-12, 1e8,
                                     xtol=1e-15, rtol=1e-13)
        assert np.isclose(effective_ridge(lam, et), root, rtol=1e-9), (lam, et)
print("effective_ridge vs brentq root of 'filters agree': ok")

# %% tags=["tests"]
def _spd(rng, n, rank_extra=6, jitter=0.0):
    A = rng.standard_normal((n, n + rank_extra))
    return A @ A.T / (n + rank_extra) + jitter * np.eye(n)


def _joint(rng, n, m):
    A = rng.standard_normal((n + m, n + m + 5))
    Kall = A @ A.T / (n + m + 5)
    return Kall[n:, :n], Kall[:n, :n], Kall[n:, n:]


@points(2)
def test_posterior_mean(student):
    "posterior_mean on random kernels at several inverse temperatures"
    rng = rng_for("posterior_mean")
    for n in [3, 7]:
        K = _spd(rng, n)
        y = rng.standard_normal(n)
        for beta in [0.05, 1.0, 40.0]:
            assert_close(student.posterior_mean(K, y, beta), ref.posterior_mean(K, y, beta), rtol=1e-7,
                         atol=1e-10, name=f"mu for n={n}, beta={beta}")


@points(1)
def test_posterior_mean_noise_free(student):
    "posterior_mean at beta = inf (interpolation) and at a singular kernel with finite beta"
    rng = rng_for("posterior_mean_noise_free")
    K = _spd(rng, 5)
    y = rng.standard_normal(5)
    assert_close(student.posterior_mean(K, y, np.inf), ref.posterior_mean(K, y, np.inf), rtol=1e-7, atol=1e-9,
                 name="mu at beta = inf")
    B = rng.standard_normal((6, 3))
    Ks = B @ B.T  # rank 3
    y6 = rng.standard_normal(6)
    assert_close(student.posterior_mean(Ks, y6, 2.0), ref.posterior_mean(Ks, y6, 2.0), rtol=1e-7, atol=1e-9,
                 name="mu for a rank-deficient kernel")


@points(2)
def test_posterior_predict_mean(student):
    "posterior_predict: the mean at test inputs (m != n)"
    rng = rng_for("posterior_predict_mean")
    for n, m in [(4, 6), (8, 3)]:
        Kst, K, Kss = _joint(rng, n, m)
        y = rng.standard_normal(n)
        for beta in [0.3, 25.0]:
            mean, cov = student.posterior_predict(Kst, K, Kss, y, beta)
            want = ref.posterior_predict(Kst, K, Kss, y, beta)
            assert_close(mean, want[0], rtol=1e-7, atol=1e-10, name=f"posterior mean, n={n}, m={m}, beta={beta}")


@points(2)
def test_posterior_predict_cov(student):
    "posterior_predict: the covariance of the latent function at test inputs"
    rng = rng_for("posterior_predict_cov")
    for n, m in [(5, 4), (3, 7)]:
        Kst, K, Kss = _joint(rng, n, m)
        y = rng.standard_normal(n)
        for beta in [0.5, 10.0]:
            mean, cov = student.posterior_predict(Kst, K, Kss, y, beta)
            want = ref.posterior_predict(Kst, K, Kss, y, beta)
            assert_close(cov, want[1], rtol=1e-7, atol=1e-10, name=f"posterior covariance, n={n}, m={m}, beta={beta}")


@points(1)
def test_posterior_predict_noise_free(student):
    "posterior_predict at beta = inf (noise-free conditioning)"
    rng = rng_for("posterior_predict_noise_free")
    Kst, K, Kss = _joint(rng, 4, 5)
    y = rng.standard_normal(4)
    got = student.posterior_predict(Kst, K, Kss, y, np.inf)
    want = ref.posterior_predict(Kst, K, Kss, y, np.inf)
    assert_close(got[0], want[0], rtol=1e-7, atol=1e-9, name="mean at beta = inf")
    assert_close(got[1], want[1], rtol=1e-7, atol=1e-9, name="covariance at beta = inf")


@points(1)
def test_two_point_example(student):
    "Exercise B.5 two-point example: posterior mean at beta = 1 and the effective ridges"
    K = np.array([[2.0, 1.0], [1.0, 2.0]])
    y = np.array([2.0, 0.0])
    assert_close(student.posterior_mean(K, y, 1.0), ref.posterior_mean(K, y, 1.0), rtol=1e-9, atol=1e-12,
                 name="posterior mean")
    lam = np.array([3.0, 1.0])
    assert_close(student.effective_ridge(lam, np.log(2.0)), ref.effective_ridge(lam, np.log(2.0)),
                 rtol=1e-9, atol=1e-12, name="effective ridges of the two modes")
    assert_close(student.early_stopping_filter(lam, np.log(2.0)), ref.early_stopping_filter(lam, np.log(2.0)),
                 rtol=1e-9, atol=1e-12, name="early-stopping filter of the two modes")


@points(1)
def test_mode_filter(student):
    "mode_filter on arrays of eigenvalues, finite and infinite beta"
    rng = rng_for("mode_filter")
    lam = rng.uniform(0.001, 20.0, size=15)
    for beta in [0.1, 1.0, 30.0, np.inf]:
        assert_close(student.mode_filter(lam, beta), ref.mode_filter(lam, beta), rtol=1e-9, atol=1e-13,
                     name=f"mode_filter at beta = {beta}")


@points(1)
def test_early_stopping_filter(student):
    "early_stopping_filter on arrays of eigenvalues, including tiny eta t lambda"
    rng = rng_for("early_stopping_filter")
    lam = np.concatenate([rng.uniform(0.01, 10.0, size=10), [1e-11, 3e-13, 0.0]])
    for eta_t in [0.2, 1.5, 6.0]:
        assert_close(student.early_stopping_filter(lam, eta_t), ref.early_stopping_filter(lam, eta_t), rtol=1e-9,
                     atol=1e-300, name=f"early_stopping_filter at eta_t = {eta_t}")


@points(1)
def test_effective_ridge(student):
    "effective_ridge on arrays of eigenvalues, including tiny and zero eigenvalues"
    rng = rng_for("effective_ridge")
    lam = np.concatenate([rng.uniform(0.05, 12.0, size=10), [1e-10, 3e-9, 8e-9, 0.0]])
    for eta_t in [0.3, 1.0, 4.0]:
        assert_close(student.effective_ridge(lam, eta_t), ref.effective_ridge(lam, eta_t), rtol=1e-9, atol=1e-14,
                     name=f"effective_ridge at eta_t = {eta_t}")


@points(1)
def test_filters_at_the_ends(student):
    "mode_filter, early_stopping_filter and effective_ridge on scalars, at eta_t = 0, lambda = 0 and huge lambda"
    rng = rng_for("filters_at_the_ends")
    lam = np.array([0.0, float(rng.uniform(0.1, 5.0)), 1e6, 1e200, 1e290])
    for beta in [float(rng.uniform(1e-8, 1e-6)), float(rng.uniform(0.5, 20.0)), 1e8]:
        assert_close(student.mode_filter(lam, beta), ref.mode_filter(lam, beta), rtol=1e-9, atol=1e-13,
                     name=f"mode_filter at beta = {beta:g} (lambda = 0 to 1e290)")
    for eta_t in [0.0, float(rng.uniform(0.2, 5.0)), 1e6]:
        assert_close(student.early_stopping_filter(lam, eta_t), ref.early_stopping_filter(lam, eta_t), rtol=1e-9,
                     atol=1e-300, name=f"early_stopping_filter at eta_t = {eta_t:g} (lambda = 0 to 1e290)")
    for eta_t in [float(rng.uniform(1e-9, 1e-7)), float(rng.uniform(0.2, 5.0))]:
        assert_close(student.effective_ridge(lam[:3], eta_t), ref.effective_ridge(lam[:3], eta_t), rtol=1e-9,
                     atol=1e-300, name=f"effective_ridge at eta_t = {eta_t:g} (lambda = 0 to 1e6)")
    lam1 = float(rng.uniform(0.1, 5.0))
    for fn, args in [("mode_filter", (lam1, 2.0)), ("mode_filter", (lam1, np.inf)),
                     ("early_stopping_filter", (lam1, 0.7)), ("effective_ridge", (lam1, 0.7))]:
        out = getattr(student, fn)(*args)
        assert np.shape(out) == (), f"{fn} of a single eigenvalue should be a float"
        assert_close(out, getattr(ref, fn)(*args), rtol=1e-9, atol=1e-13, name=f"{fn} of a single eigenvalue")


@points(1)
def test_posterior_extreme_noise(student):
    "posterior_mean and posterior_predict at very small and very large beta, and with one training and one test point"
    rng = rng_for("posterior_extreme_noise")
    Kst, K, Kss = _joint(rng, 5, 3)
    y = rng.standard_normal(5)
    for beta in [float(rng.uniform(1e-9, 1e-7)), float(rng.uniform(1e7, 1e9))]:
        want = ref.posterior_mean(K, y, beta)
        assert_close(student.posterior_mean(K, y, beta), want, rtol=1e-7, atol=1e-7 * np.max(np.abs(want)),
                     name=f"mu at beta = {beta:.3g}")
        mean, cov = student.posterior_predict(Kst, K, Kss, y, beta)
        want = ref.posterior_predict(Kst, K, Kss, y, beta)
        assert_close(mean, want[0], rtol=1e-7, atol=1e-7 * np.max(np.abs(want[0])),
                     name=f"posterior mean at beta = {beta:.3g}")
        assert_close(cov, want[1], rtol=1e-6, atol=1e-9, name=f"posterior covariance at beta = {beta:.3g}")
    Kst1, K1, Kss1 = _joint(rng, 1, 1)
    y1 = rng.standard_normal(1)
    for beta in [0.8, np.inf]:
        assert_close(student.posterior_mean(K1, y1, beta), ref.posterior_mean(K1, y1, beta), rtol=1e-9, atol=1e-12,
                     name=f"mu for one training point, beta = {beta}")
        got = student.posterior_predict(Kst1, K1, Kss1, y1, beta)
        want = ref.posterior_predict(Kst1, K1, Kss1, y1, beta)
        assert_close(got[0], want[0], rtol=1e-9, atol=1e-12, name=f"mean for n = m = 1, beta = {beta}")
        assert_close(got[1], want[1], rtol=1e-7, atol=1e-10, name=f"covariance for n = m = 1, beta = {beta}")


# %% tags=["wrong"]
# wrong: ridge beta instead of 1/beta (K + beta I)
# hint: β is an inverse temperature, so the ridge is its inverse: μ = K(K + β^{-1} I)^{-1} y (Ex
#   4.5(a)); a large β means little noise and a mean that nearly interpolates.
def posterior_mean(K, y, beta):
    K = np.asarray(K, dtype=float)
    return K @ np.linalg.solve(K + beta * np.eye(len(K)) if np.isfinite(beta) else K, np.asarray(y, dtype=float))


def posterior_predict(K_test_train, K_train, K_test_test, y, beta):
    K = np.asarray(K_train, dtype=float)
    C = K + (beta if np.isfinite(beta) else 0.0) * np.eye(len(K))
    Ks = np.asarray(K_test_train, dtype=float)
    return Ks @ np.linalg.solve(C, y), np.asarray(K_test_test) - Ks @ np.linalg.solve(C, Ks.T)


# %% tags=["rewrite"]
# rewrite: the same ridge beta, through the eigen-decomposition of K
def posterior_mean(K, y, beta):
    K = np.asarray(K, dtype=float)
    lam, U = np.linalg.eigh(K)
    ridge = beta if np.isfinite(beta) else 0.0
    return U @ (lam / (lam + ridge) * (U.T @ np.asarray(y, dtype=float)))


# %% tags=["wrong"]
# wrong: completing the square without the factor beta on the labels, mu = (K^-1 + beta I)^-1 y
# hint: When you complete the square in the posterior, the labels carry the same factor β as the
#   likelihood: μ = (K^{-1} + βI)^{-1} β y = K(K + β^{-1} I)^{-1} y (Ex 4.5(a)).
def posterior_mean(K, y, beta):
    K = np.asarray(K, dtype=float)
    if np.isinf(beta):
        return np.asarray(y, dtype=float)
    return np.linalg.solve(np.linalg.inv(K) + beta * np.eye(len(K)), np.asarray(y, dtype=float))


# %% tags=["wrong"]
# wrong: predictive covariance of a noisy observation (adds 1/beta) instead of the latent function
# hint: posterior_predict describes the network function itself (the latent f), whose posterior
#   covariance has no extra noise term 1/β on the diagonal (Ex 4.5(d)).
def posterior_predict(K_test_train, K_train, K_test_test, y, beta):
    Ks, K = np.asarray(K_test_train, dtype=float), np.asarray(K_train, dtype=float)
    C = K + np.eye(len(K)) / beta
    mean = Ks @ np.linalg.solve(C, np.asarray(y, dtype=float))
    cov = np.asarray(K_test_test) - Ks @ np.linalg.solve(C, Ks.T) + np.eye(Ks.shape[0]) / beta
    return mean, cov


# %% tags=["wrong"]
# wrong: the unlearned fractions 1/(1 + beta lambda) and exp(-eta t lambda) instead of the learned ones
# hint: The filters are the learned fraction of each mode, βλ/(1 + βλ) for the posterior and 1 −
#   e^{−ηtλ} for gradient flow (Ex 4.5(b,c)), not the fraction that stays unlearned.
def mode_filter(eigenvalues, beta):
    return 1.0 / (1.0 + beta * np.asarray(eigenvalues, dtype=float))


def early_stopping_filter(eigenvalues, eta_t):
    return np.exp(-eta_t * np.asarray(eigenvalues, dtype=float))


# %% tags=["wrong"]
# wrong: beta lambda / (1 + beta lambda) (nan at beta = inf) and 1 - exp(-x) (cancellation)
# hint: Write the filters so that they hold at the ends: βλ/(1 + βλ) is nan at β = ∞ (its limit is 1),
#   and 1 − e^{−x} loses its digits for small x (use −expm1(−x)) (Ex 4.5(b,c)).
def mode_filter(eigenvalues, beta):
    lam = np.asarray(eigenvalues, dtype=float)
    return beta * lam / (1 + beta * lam)


def early_stopping_filter(eigenvalues, eta_t):
    return 1 - np.exp(-eta_t * np.asarray(eigenvalues, dtype=float))


# %% tags=["wrong"]
# wrong: effective ridge as lambda exp(-eta t lambda) (dropping the denominator) and exp(x) - 1 with nan at 0
# hint: The effective ridge λ/(e^{ηtλ} − 1) is 0/0 at λ = 0, where its limit is 1/(ηt), and loses digits
#   when ηtλ is small: use expm1 and the limit (Ex 4.5(c), Ex B.5).
def effective_ridge(eigenvalue, eta_t):
    lam = np.asarray(eigenvalue, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return lam / (np.exp(eta_t * lam) - 1)


# %% tags=["alternative"]
# alternative: eigendecomposition of K for mean and covariance, weight-space style Woodbury, filters via logs
def posterior_mean(K, y, beta):
    lam, U = np.linalg.eigh(np.asarray(K, dtype=float))
    lam = np.clip(lam, 0, None)
    return U @ (mode_filter(lam, beta) * (U.T @ np.asarray(y, dtype=float)))


def posterior_predict(K_test_train, K_train, K_test_test, y, beta):
    lam, U = np.linalg.eigh(np.asarray(K_train, dtype=float))
    ridge = 0.0 if np.isinf(beta) else 1.0 / beta
    B = np.asarray(K_test_train, dtype=float) @ U  # (m, n)
    inv = 1.0 / (lam + ridge)
    mean = B @ (inv * (U.T @ np.asarray(y, dtype=float)))
    cov = np.asarray(K_test_test, dtype=float) - (B * inv) @ B.T
    return mean, 0.5 * (cov + cov.T)


def mode_filter(eigenvalues, beta):
    lam = np.asarray(eigenvalues, dtype=float)
    if np.isinf(beta):
        out = np.where(lam > 0, 1.0, 0.0)
        return float(out) if out.ndim == 0 else out
    return 1.0 / (1.0 + 1.0 / (beta * lam)) if np.all(lam > 0) else beta * lam / (1.0 + beta * lam)


def early_stopping_filter(eigenvalues, eta_t):
    x = eta_t * np.asarray(eigenvalues, dtype=float)
    out = np.where(x < 1e-3, x - x**2 / 2 + x**3 / 6 - x**4 / 24 + x**5 / 120, 1.0 - np.exp(-x))
    return float(out) if out.ndim == 0 else out


def effective_ridge(eigenvalue, eta_t):
    lam = np.asarray(eigenvalue, dtype=float)
    x = eta_t * lam
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(x > 0, x / np.expm1(x), 1.0)  # x / (e^x - 1), -> 1 as x -> 0
    return float(ratio / eta_t) if ratio.ndim == 0 else ratio / eta_t
