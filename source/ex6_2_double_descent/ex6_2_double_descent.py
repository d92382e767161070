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
# # ex6_2_double_descent: Double descent as a dynamical phase transition
#
# *Notes: Section 6.2 (Li–Goldenfeld's teacher–student linear regression) and Exercise 6.2;
# the response function and the FDT are those of Section 6.1 and the previous assignment.*
#
# **The model** (notes, 6.2.1 and Exercise 6.2). $P$ parameters, $n$ training samples,
# over-parametrization ratio $\nu=P/n$ (we use $n=\mathrm{round}(P/\nu)$). Inputs
# $x^\mu\sim\mathcal N(0,I_P)$, teacher $w^*\sim\mathcal N(0,r\,I_P)$ ($r$ is the mean-squared
# teacher weight per dimension), labels with noise of variance $D$,
# $$
# y^\mu=\frac{1}{\sqrt P}\,w^*\cdot x^\mu+\epsilon^\mu,\qquad \epsilon^\mu\sim\mathcal N(0,D),
# $$
# and a student $\hat y(x)=\hat w\cdot x/\sqrt P$ started at $\hat w(0)\sim\mathcal N(0,\sigma_0^2I_P)$
# (variances, as everywhere in the notes). We train by full-batch gradient descent
# ($\gamma=1$) without ridge ($\lambda=0$) on the squared loss summed over the samples,
# $$
# \mathcal L(\hat w)=\frac12\sum_{\mu=1}^n\Big(\frac{\hat w\cdot x^\mu}{\sqrt P}-y^\mu\Big)^2,\qquad
# \hat w(s+1)=\hat w(s)-\eta\,\frac{1}{\sqrt P}X^T\Big(\frac{X\hat w(s)}{\sqrt P}-y\Big), \tag{6.11}
# $$
# with $X\in\mathbb R^{n\times P}$ the stacked inputs. Time is $t=\eta s$, so that small $\eta$
# is the gradient flow $\dot{\hat w}=-A\hat w+X^Ty/\sqrt P$ with the Hessian
# $$
# A=\frac{X^TX}{P}\in\mathbb R^{P\times P},
# $$
# whose nonzero spectrum, for $P,n\to\infty$ at fixed $\nu$, fills the Marchenko–Pastur
# interval $[\lambda_-,\lambda_+]$, $\lambda_\pm=(1\pm\sqrt\nu)^2/\nu$ (and $A$ has $P-n$ zero
# eigenvalues when $\nu>1$). (The displayed update (6.11) of the notes is missing in our copy;
# this normalization, a sum over samples and $1/\sqrt P$ in the model, makes the spectrum of
# $A$ of order one. Other normalizations only rescale time.)
#
# **Errors.** The generalization (test) error is the notes' population MSE, which includes
# the label noise of a fresh example,
# $$
# \varepsilon_g(t)=\Big\langle\Big(\frac{x^0\cdot(\hat w(t)-w^*)}{\sqrt P}-\epsilon^0\Big)^2\Big\rangle_{x^0,\epsilon^0}
# =\frac{|\hat w(t)-w^*|^2}{P}+D = C(t,t)+D,
# $$
# and the training error is the mean squared residual on the training set,
# $\varepsilon_t(t)=\frac1n\sum_\mu\big(\hat w(t)\cdot x^\mu/\sqrt P-y^\mu\big)^2$.
#
# **What you implement** (graded by hidden tests):
#
# | part | function |
# |---|---|
# | data | `make_teacher_student(P, nu, r, D, sigma0, rng)` |
# | (a) | `gd_train(data, eta, steps, record_every=1)`, `gd_limit(data)` |
# | (a) | `asymptotic_test_error(nu, r, D, sigma0)`, `asymptotic_train_error(nu, D)` |
# | (b) | `clone_separation(nu, P, eta, steps, rng, record_every=1, delta=1e-3)` |
# | (c) | `relaxation_time(nu)` |
#
# Written answers (graded by hand): the derivation of the asymptotics (a), the meaning
# of the plateau (b), and critical slowing down (c). `rng` arguments accept an integer seed or
# a `np.random.Generator`; tests of random functions are statistical.

# %% tags=["setup"]
import numpy as np
import matplotlib.pyplot as plt

# %% tags=["params"]
def draw_params(rng):
    """This year's grid of over-parametrization ratios (one per regime) and the teacher seed."""
    nus = [rng.uniform(0.4, 0.6), rng.uniform(0.86, 0.92), rng.uniform(1.09, 1.15), rng.uniform(1.8, 2.5)]
    return {"nus": [round(float(v), 2) for v in nus], "teacher_seed": int(rng.integers(1000, 10000))}


# %% [markdown]
# We keep the other constants fixed: $P=200$, $r=1$, $D=0.2$, $\sigma_0=0.5$.

# %% tags=["provided"]
P_LAB, R_LAB, D_LAB, SIGMA0_LAB = 200, 1.0, 0.2, 0.5


def mp_edges(nu):
    """Edges (lambda_-, lambda_+) = ((1 -+ sqrt(nu))^2 / nu) of the nonzero spectrum of X^T X / P."""
    v = np.asarray(nu, dtype=float)
    return (1 - np.sqrt(v)) ** 2 / v, (1 + np.sqrt(v)) ** 2 / v


def stable_learning_rate(nu):
    """A safe GD step for this model: eta = 1 / lambda_+ (GD diverges only for eta > 2 / lambda_max)."""
    return float(1.0 / mp_edges(nu)[1])


# %% [markdown]
# ## The data
#
# **Task.** Implement `make_teacher_student`. It returns everything as a dict of plain data
# (arrays and numbers), which is also how `gd_train` receives it.

# %% tags=["graded"]
def make_teacher_student(P, nu, r, D, sigma0, rng):
    """Draw one teacher-student regression problem (notes Section 6.2.1, Exercise 6.2).

    n = max(1, round(P / nu)) samples (at least one); X[mu] ~ N(0, I_P); w_star ~ N(0, r I_P);
    y = X @ w_star / sqrt(P) + eps with eps ~ N(0, D); student start w0 ~ N(0, sigma0^2 I_P).
    (Variances: r, D and sigma0**2; sigma0 is a standard deviation.)

    Args:
        P: int >= 1, number of parameters.
        nu: float > 0, over-parametrization ratio P / n.
        r: float >= 0, teacher weight variance.
        D: float >= 0, label-noise variance.
        sigma0: float >= 0, standard deviation of the student's initial weights.
        rng: int seed or np.random.Generator.
    Returns:
        dict with keys "X" (n, P), "y" (n,), "w_star" (P,), "w0" (P,) as np.ndarrays, and
        "P", "n" (ints), "nu", "r", "D", "sigma0" (floats, nu the value passed in).
    """
    rng = np.random.default_rng(rng)
    n = max(1, int(round(P / nu)))
    X = rng.standard_normal((n, P))
    w_star = np.sqrt(r) * rng.standard_normal(P)
    y = X @ w_star / np.sqrt(P) + np.sqrt(D) * rng.standard_normal(n)
    w0 = sigma0 * rng.standard_normal(P)
    return {"X": X, "y": y, "w_star": w_star, "w0": w0, "P": int(P), "n": n,
            "nu": float(nu), "r": float(r), "D": float(D), "sigma0": float(sigma0)}


# %% tags=["check"]
@check
def check_make_teacher_student():
    "shapes, n = round(P / nu), and the labels of a noiseless teacher are X w* / sqrt(P)"
    d = make_teacher_student(50, 1.6, 2.0, 0.0, 0.3, rng=1)
    assert d["n"] == 31 and np.shape(d["X"]) == (31, 50) and np.shape(d["y"]) == (31,)
    assert np.shape(d["w_star"]) == (50,) and np.shape(d["w0"]) == (50,)
    assert np.allclose(d["y"], np.asarray(d["X"]) @ d["w_star"] / np.sqrt(50)), "D = 0: y = X w* / sqrt(P)"


@check
def check_make_teacher_student_laws():
    "r, D and sigma0**2 are variances; the inputs are Gaussian (fourth moment 3)"
    d = make_teacher_student(2000, 40.0, 4.0, 0.25, 0.5, rng=11)          # n = 50 samples of P = 2000
    X, ws, w0 = (np.asarray(d[k], dtype=float) for k in ("X", "w_star", "w0"))
    assert abs(np.mean(ws**2) / 4.0 - 1) < 0.15, "r = 4 is the variance of the teacher weights (not their sd)"
    assert abs(np.mean(w0**2) / 0.25 - 1) < 0.15, "sigma0 = 0.5 is a standard deviation: variance 0.25"
    assert abs(np.mean(X**4) - 3) < 0.2, "Gaussian inputs have <x^4> = 3 (a uniform law of variance 1 has 1.8)"
    d = make_teacher_student(20, 0.01, 1.0, 0.25, 0.5, rng=12)            # n = 2000 samples of P = 20
    X, y, ws = (np.asarray(d[k], dtype=float) for k in ("X", "y", "w_star"))
    noise = y - X @ ws / np.sqrt(20)
    assert abs(np.mean(noise**2) / 0.25 - 1) < 0.15, "D = 0.25 is the variance of the label noise (not its sd)"


# %% [markdown]
# ## (a) Training, and where it ends
#
# **Task.** Implement `gd_train` (the update (6.11) as a loop; record the errors at steps
# $s=0,\ \texttt{record\_every},\ 2\,\texttt{record\_every},\dots\le\texttt{steps}$) and
# `gd_limit`, the $t\to\infty$ end point of the same dynamics, without iterating.
#
# *Where GD ends.* The update never changes the component of $\hat w$ in the null space of
# $X$ (the gradient $X^T(\cdot)$ lies in the row space). In the row space the loss is
# strictly convex and GD (with $\eta<2/\lambda_{\max}$) converges to its least-squares
# minimizer. Hence, with $X^+$ the Moore–Penrose pseudo-inverse,
# $$
# \hat w(\infty)=\hat w(0)+\sqrt P\,X^+\Big(y-\frac{X\hat w(0)}{\sqrt P}\Big), \tag{L}
# $$
# which is ordinary least squares for $\nu<1$ (no memory of $\hat w(0)$), and for $\nu>1$ the
# interpolator closest to $\hat w(0)$: it *remembers* the $P-n$ null-space components of the
# initialization.

# %% tags=["graded"]
def gd_train(data, eta, steps, record_every=1):
    """Full-batch gradient descent (6.11) on the teacher-student data; records the errors.

    Update: w <- w - eta * X^T (X w / sqrt(P) - y) / sqrt(P), from w = data["w0"].
    Errors at step s (time t = eta * s):
        train_error = mean over the n samples of (X w / sqrt(P) - y)^2,
        test_error  = |w - w_star|^2 / P + D   (population error, label noise included).

    Args:
        data: dict as returned by make_teacher_student (uses "X", "y", "w_star", "w0", "D").
        eta: float > 0, learning rate.
        steps: int >= 0, number of GD steps.
        record_every: int >= 1; record at s = 0, record_every, 2 record_every, ... <= steps.
    Returns:
        dict with np.ndarrays "t" (eta * s at the recorded steps), "train_error",
        "test_error" (same length as "t"), and "w" (P,), the weights after `steps` steps.
    """
    X = np.asarray(data["X"], dtype=float)
    y = np.asarray(data["y"], dtype=float)
    w_star = np.asarray(data["w_star"], dtype=float)
    w = np.array(data["w0"], dtype=float)
    P = X.shape[1]
    sq = np.sqrt(P)
    t, train, test = [], [], []
    for s in range(steps + 1):
        residual = X @ w / sq - y
        if s % record_every == 0:
            t.append(eta * s)
            train.append(np.mean(residual**2))
            test.append(np.sum((w - w_star) ** 2) / P + data["D"])
        if s < steps:
            w = w - eta * (X.T @ residual) / sq
    return {"t": np.array(t), "train_error": np.array(train), "test_error": np.array(test), "w": w}


# %% tags=["graded"]
def gd_limit(data):
    """The t -> infinity end point of gd_train, computed directly (notes Section 6.2, eq. (L) of the notebook).

    w_inf = w0 + sqrt(P) * pinv(X) @ (y - X @ w0 / sqrt(P)): least squares for nu < 1; for
    nu > 1 the interpolator that keeps the null-space part of w0.

    Args:
        data: dict as returned by make_teacher_student.
    Returns:
        dict with "w" (P,) np.ndarray, and floats "train_error", "test_error" of w_inf
        (same definitions as in gd_train).
    """
    X = np.asarray(data["X"], dtype=float)
    y = np.asarray(data["y"], dtype=float)
    w0 = np.asarray(data["w0"], dtype=float)
    P = X.shape[1]
    sq = np.sqrt(P)
    w = w0 + sq * np.linalg.lstsq(X, y - X @ w0 / sq, rcond=None)[0]
    train = float(np.mean((X @ w / sq - y) ** 2))
    test = float(np.sum((w - np.asarray(data["w_star"])) ** 2) / P + data["D"])
    return {"w": w, "train_error": train, "test_error": test}


# %% tags=["check"]
@check
def check_gd_train_records():
    "gd_train records at s = 0, k, 2k, ...; starts at the initial errors; the loss decreases"
    d = make_teacher_student(40, 2.0, 1.0, 0.1, 0.5, rng=2)
    out = gd_train(d, 0.2, 30, record_every=10)
    assert np.allclose(out["t"], [0, 2, 4, 6]), "times should be eta * s at s = 0, 10, 20, 30"
    w0 = np.asarray(d["w0"])
    assert np.isclose(out["test_error"][0], np.sum((w0 - d["w_star"]) ** 2) / 40 + 0.1), \
        "test error at t = 0 is |w0 - w*|^2 / P + D"
    assert np.all(np.diff(out["train_error"]) < 0), "full-batch GD at a small step decreases the loss"


@check
def check_gd_limit():
    "for nu > 1 the limit interpolates and differs from w0 only in the row space of X"
    d = make_teacher_student(60, 3.0, 1.0, 0.2, 1.0, rng=3)
    lim = gd_limit(d)
    X = np.asarray(d["X"])
    assert lim["train_error"] < 1e-20, "over-parametrized: the training error vanishes"
    dw = np.asarray(lim["w"]) - d["w0"]
    assert np.allclose(dw, np.linalg.pinv(X) @ (X @ dw), atol=1e-10), "w_inf - w0 must lie in the row space"


@check
def check_gd_train_start_and_end():
    "t = 0: the training error of w0; at nu < 1 a long run ends at gd_limit, where the gradient vanishes"
    d = make_teacher_student(30, 0.5, 2.0, 0.3, 0.8, rng=5)
    X, y, w0 = (np.asarray(d[k], dtype=float) for k in ("X", "y", "w0"))
    out = gd_train(d, 0.1, 2000, record_every=500)
    assert np.isclose(out["train_error"][0], np.mean((X @ w0 / np.sqrt(30) - y) ** 2)), \
        "the training error at t = 0 is the mean squared residual of w0 over the n samples"
    lim = gd_limit(d)
    assert np.allclose(X.T @ (X @ np.asarray(lim["w"]) / np.sqrt(30) - y), 0, atol=1e-8), \
        "nu < 1: gd_limit is the least-squares minimizer (zero gradient)"
    assert np.allclose(out["w"], lim["w"], atol=1e-6), "a long stable run ends at gd_limit"
    assert np.isclose(out["train_error"][-1], lim["train_error"], rtol=1e-6)


# %% [markdown]
# ### The asymptotic errors
#
# *Derivation.* Write $e=\hat w-w^*$. From (L) and $y=Xw^*/\sqrt P+\epsilon$, with
# $\Pi=X^+X$ the projector on the row space,
# $$
# e(\infty)=(I-\Pi)\big(\hat w(0)-w^*\big)+\sqrt P\,X^+\epsilon ,
# $$
# a sum of two orthogonal pieces. Average over the initialization, the teacher and the
# noise ($\hat w(0)-w^*$ has i.i.d. components of variance $\sigma_0^2+r=C(0,0)$):
# $$
# \frac{\langle|e(\infty)|^2\rangle}{P}=\frac{P-\mathrm{rank}X}{P}\,(\sigma_0^2+r)
# +D\,\mathrm{tr}\big[(XX^T)^+\big] .
# $$
# For Gaussian $X$ the inverse Wishart moments are
# $\langle\mathrm{tr}(X^TX)^{-1}\rangle=\frac{P}{n-P-1}$ ($\nu<1$) and
# $\langle\mathrm{tr}(XX^T)^{-1}\rangle=\frac{n}{P-n-1}$ ($\nu>1$), so for $P,n\to\infty$:
# $$
# \nu<1:\quad \varepsilon_g(\infty)=D+\frac{D\nu}{1-\nu}=\frac{D}{1-\nu},\qquad
# \varepsilon_t(\infty)=\frac{D\,(n-P)}{n}=D(1-\nu), \tag{6.18}
# $$
# $$
# \nu>1:\quad \varepsilon_g(\infty)=\Big(1-\frac1\nu\Big)(\sigma_0^2+r)+\frac{D}{\nu-1}+D,\qquad
# \varepsilon_t(\infty)=0 . \tag{6.19}
# $$
# ($\varepsilon_t$ for $\nu<1$: the residual is $(I-H)\epsilon$ with $H$ the hat matrix, a
# projector of rank $P$, so $\langle|{\rm residual}|^2\rangle=D(n-P)$.) Both branches diverge
# as $|1-\nu|^{-1}$: the exponent $\sigma=1$. The divergence is the label noise amplified: without
# noise ($D=0$) both branches vanish at $\nu=1$ and there is no peak. The over-parametrized error depends on the
# initialization through $\sigma_0^2$, the memory the notes describe; for $\sigma_0=0$ it is
# the classic min-norm result $r(1-1/\nu)+D/(\nu-1)+D$. The ratio
# $\varepsilon_t/\varepsilon_g=(1-\nu)^2=(1+\chi)^{-2}$ for $\nu<1$ identifies the susceptibility
# $\chi=\nu/(1-\nu)$ of the notes.
#
# **Task.** Implement (6.18)–(6.19) elementwise in $\nu$ (at $\nu=1$ exactly, return
# `inf` for the test error and 0 for the training error).

# %% tags=["graded"]
def asymptotic_test_error(nu, r, D, sigma0):
    """eps_g(t -> inf) for P, n -> inf at fixed nu = P/n (notes eqs. (6.18)-(6.19)).

    nu < 1: D / (1 - nu);   nu > 1: (1 - 1/nu)(sigma0^2 + r) + D/(nu - 1) + D;
    nu = 1: inf if D > 0, and 0 without label noise (D = 0: both branches vanish at nu = 1).
    The label noise D of a fresh example is included (eps_g = C(t, t) + D).

    Args:
        nu: float or np.ndarray, > 0.
        r, D: floats >= 0 (variances); sigma0: float >= 0 (standard deviation of w0).
    Returns:
        float (for a scalar nu) or np.ndarray of the shape of nu.
    """
    nu = np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        under = D / (1.0 - nu)
        over = (1.0 - 1.0 / nu) * (sigma0**2 + r) + D / (nu - 1.0) + D
    out = np.where(nu < 1, under, np.where(nu > 1, over, np.inf if D > 0 else 0.0))
    return float(out) if out.ndim == 0 else out


# %% tags=["graded"]
def asymptotic_train_error(nu, D):
    """eps_t(t -> inf) for P, n -> inf at fixed nu (notes Section 6.2.2).

    D (1 - nu) for nu < 1 (least-squares residual), 0 for nu >= 1 (interpolation).

    Args:
        nu: float or np.ndarray, > 0.
        D: float >= 0, label-noise variance.
    Returns:
        float (for a scalar nu) or np.ndarray of the shape of nu.
    """
    nu = np.asarray(nu, dtype=float)
    out = np.where(nu < 1, D * (1.0 - nu), 0.0)
    return float(out) if out.ndim == 0 else out


# %% tags=["check"]
@check
def check_asymptotics():
    "both branches diverge at nu = 1; no noise and nu -> infinity leaves sigma0^2 + r; train error"
    assert asymptotic_test_error(0.999, 1.0, 0.5, 0.3) > 400 and asymptotic_test_error(1.001, 1.0, 0.5, 0.3) > 400
    assert np.isclose(asymptotic_test_error(1e9, 1.0, 0.0, 0.5), 1.25, rtol=1e-6)
    assert np.isclose(asymptotic_test_error(1e-9, 1.0, 0.3, 0.5), 0.3, rtol=1e-6), "nu -> 0: just the noise"
    assert np.isclose(asymptotic_test_error(1e9, 2.0, 0.3, 0.5), 2.55, rtol=1e-6), \
        "nu -> infinity with label noise: sigma0^2 + r + D (the noise D of a fresh example stays)"
    assert asymptotic_test_error(1.0, 2.0, 0.3, 0.5) == np.inf, "nu = 1 with label noise: inf"
    assert asymptotic_test_error(1.0, 2.0, 0.0, 0.5) == 0, "nu = 1 without label noise: 0"
    assert np.allclose(asymptotic_train_error(np.array([0.0, 0.5, 1.0, 2.0]), 0.4), [0.4, 0.2, 0.0, 0.0])
    assert np.isclose(asymptotic_train_error(0.25, 0.8), 0.6), "D (1 - nu) below nu = 1"


# %% [markdown]
# ### The experiment, and the double-descent curve
#
# Train at this year's four ratios (`PARAMS["nus"]`, one deep in each regime and one on each
# side of $\nu=1$) with $P=200$, $\eta=1/\lambda_+$, for long enough (we use the relaxation
# time $1/\lambda_-$ of part (c) to choose the number of steps). Dashed: your asymptotes; dotted: the
# end point `gd_limit` of this very data set. Near $\nu=1$ a single data set at $P=200$
# fluctuates strongly around the $P\to\infty$ value, and the slow approach is already
# visible: critical slowing down.

# %% tags=["figure"]
nus = PARAMS["nus"]
runs = {}
fig, axes = plt.subplots(1, 2, figsize=(13, 4.3))
for nu, color in zip(nus, ["C0", "C1", "C2", "C3"]):
    data = make_teacher_student(P_LAB, nu, R_LAB, D_LAB, SIGMA0_LAB, rng=PARAMS["teacher_seed"])
    lr = stable_learning_rate(nu)
    horizon = 5.0 / mp_edges(nu)[0]           # five slowest relaxation times (part (c))
    steps = int(min(12000, horizon / lr))
    out = gd_train(data, lr, steps, record_every=max(1, steps // 400))
    lim = gd_limit(data)
    runs[nu] = (data, lr, steps)
    axes[0].plot(out["t"][1:], out["test_error"][1:], color=color, label=rf"$\nu={nu}$")
    axes[0].axhline(asymptotic_test_error(nu, R_LAB, D_LAB, SIGMA0_LAB), color=color, ls="--", lw=0.9)
    axes[0].axhline(lim["test_error"], color=color, ls=":", lw=0.9)
    axes[1].plot(out["t"][1:], out["train_error"][1:] + 1e-12, color=color, label=rf"$\nu={nu}$")
    axes[1].axhline(max(asymptotic_train_error(nu, D_LAB), 1e-12), color=color, ls="--", lw=0.9)
axes[0].set(xscale="log", yscale="log", xlabel=r"$t=\eta s$", ylabel=r"$\varepsilon_g(t)$",
            title=r"test error (dashed: $P\to\infty$ asymptote; dotted: gd_limit)")
axes[1].set(xscale="log", yscale="log", xlabel=r"$t=\eta s$", ylabel=r"$\varepsilon_t(t)$",
            title="training error", ylim=(1e-8, 2))
for ax in axes:
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# The double-descent curve: the $t\to\infty$ errors against $\nu$ (lines), with the end
# points of gradient descent on independent data sets (`gd_limit`, mean over 6 data sets,
# error bars one standard error of the mean).

# %% tags=["figure"]
nu_grid = np.concatenate([np.linspace(0.15, 0.85, 12), np.linspace(1.18, 4.0, 14)])
eg_sim, et_sim = [], []
for nu in nu_grid:
    lims = [gd_limit(make_teacher_student(P_LAB, nu, R_LAB, D_LAB, SIGMA0_LAB, rng=s)) for s in range(6)]
    eg_sim.append([l["test_error"] for l in lims])
    et_sim.append([l["train_error"] for l in lims])
eg_sim, et_sim = np.array(eg_sim), np.array(et_sim)
fig, ax = plt.subplots(figsize=(7.5, 4.5))
for nu_line in [np.linspace(0.02, 0.97, 200), np.linspace(1.03, 4.0, 200)]:
    first = nu_line[0] < 1
    ax.plot(nu_line, asymptotic_test_error(nu_line, R_LAB, D_LAB, SIGMA0_LAB), "C0",
            label=r"$\varepsilon_g(\infty)$" if first else None)
    ax.plot(nu_line, asymptotic_train_error(nu_line, D_LAB), "C1", label=r"$\varepsilon_t(\infty)$" if first else None)
ax.errorbar(nu_grid, eg_sim.mean(1), eg_sim.std(1, ddof=1) / np.sqrt(6), fmt="o", color="C0", ms=4)
ax.errorbar(nu_grid, et_sim.mean(1), et_sim.std(1, ddof=1) / np.sqrt(6), fmt="s", color="C1", ms=4)
ax.axhline(R_LAB + D_LAB, color="grey", ls=":", lw=1, label=r"predict 0: $r+D$")
ax.axvline(1, color="k", lw=0.6)
ax.set(xlabel=r"$\nu=P/n$ (parameters per sample)", ylabel="error", ylim=(0, 3),
       title=rf"double descent, $P={P_LAB}$, $r={R_LAB}$, $D={D_LAB}$, $\sigma_0={SIGMA0_LAB}$")
ax.legend(fontsize=8)
plt.show()

# %% tags=["reference"]
def _mp_quadrature(nu, m=4000):
    """Nodes and weights for integrals of the nonzero eigenvalue density of A = X^T X / P (P -> inf).

    rho(lam) = sqrt((lam_+ - lam)(lam - lam_-)) / (2 pi lam) on [lam_-, lam_+], total mass min(1, 1/nu);
    substitution lam = c + h cos(theta) removes the square-root edges (midpoint rule in theta).
    """
    lo, hi = mp_edges(nu)
    c, h = (hi + lo) / 2, (hi - lo) / 2
    theta = (np.arange(m) + 0.5) * np.pi / m
    lam = c + h * np.cos(theta)
    w = (h * np.sin(theta)) ** 2 / (2 * np.pi * lam) * (np.pi / m)
    return lam, w


def _mp_error_curves(nu, r, D, sigma0, eta, s):
    """Theory (P -> inf) of eps_g and eps_t after s GD steps, from the MP density."""
    lam, w = _mp_quadrature(nu)
    s = np.asarray(s, dtype=float)[:, None]
    g = (1 - eta * lam[None, :]) ** s
    S = sigma0**2 + r
    eg = D + S * (max(0.0, 1 - 1 / nu) + (g**2) @ w) + D * ((1 - g) ** 2 / lam) @ w
    et = nu * S * (lam * g**2) @ w + D * (max(0.0, 1 - nu) + nu * (g**2) @ w)
    return eg, et


def _gd_eigen(data, eta, s):
    """Closed-form GD errors at the steps s, through the eigendecomposition of A."""
    X, y = np.asarray(data["X"]), np.asarray(data["y"])
    P = X.shape[1]
    lam, V = np.linalg.eigh(X.T @ X / P)
    b = V.T @ (X.T @ y / np.sqrt(P))
    c0 = V.T @ np.asarray(data["w0"])
    cs = V.T @ np.asarray(data["w_star"])
    keep = lam > 1e-10 * lam.max()
    c_inf = np.where(keep, b / np.where(keep, lam, 1.0), c0)
    eg, et = [], []
    for step in np.atleast_1d(s):
        g = np.where(keep, (1 - eta * lam) ** step, 1.0)
        c = c_inf + g * (c0 - c_inf)
        w = V @ c
        eg.append(np.sum((c - cs) ** 2) / P + data["D"])
        et.append(np.mean((X @ w / np.sqrt(P) - y) ** 2))
    return np.array(eg), np.array(et)


# %% tags=["solution"]
# Independent checks.
# 1. `gd_train` (a loop) against the closed-form GD trajectory in the eigenbasis of $A$,
#    $e(s)=(1-\eta A)^se(0)+[1-(1-\eta A)^s]A^+X^T\epsilon/\sqrt P$; and `gd_limit` against a
#    very long run.
# 2. The asymptotic formulas against a Monte Carlo average of `gd_limit` over data sets
#    (standard errors), and against the *exact finite-$P$* expectations from the inverse
#    Wishart moments.
# 3. The whole time course against random-matrix theory: averaging the eigenbasis formula
#    over the Marchenko–Pastur density,
#    $\varepsilon_g(s)=D+(\sigma_0^2+r)\big[(1-\tfrac1\nu)_++\!\int\!\rho\,g^2\big]+D\!\int\!\rho\,\frac{(1-g)^2}{\lambda}$ and
#    $\varepsilon_t(s)=\nu(\sigma_0^2+r)\!\int\!\rho\,\lambda g^2+D\big[(1-\nu)_++\nu\!\int\!\rho\,g^2\big]$,
#    with $g=(1-\eta\lambda)^s$ and $\rho$ the MP density of the nonzero eigenvalues of $A$
#    (mass $\min(1,1/\nu)$), computed by quadrature; compared with simulations at $P=400$.
# 1. the loop against the eigenbasis closed form, and gd_limit against a long run
for nu in [0.6, 1.7]:
    d = make_teacher_student(120, nu, 1.0, 0.3, 0.7, rng=5)
    eta = stable_learning_rate(nu)
    out = gd_train(d, eta, 600, record_every=50)
    eg_e, et_e = _gd_eigen(d, eta, np.arange(0, 601, 50))
    err = max(np.max(np.abs(out["test_error"] - eg_e)), np.max(np.abs(out["train_error"] - et_e)))
    long = gd_train(d, eta, 40000, record_every=40000)
    lim = gd_limit(d)
    assert err < 1e-10 and np.max(np.abs(long["w"] - lim["w"])) < 1e-8
    # both differences are round-off: printed as the bounds just checked
    print(f"nu={nu}: loop vs eigenbasis max |diff| < 1e-10; gd_limit vs 40000 steps: |w diff| < 1e-8")

# 2. Monte Carlo over data sets vs finite-P exact expectations vs the P -> infinity formulas
P_mc, S_mc, r_mc, D_mc, s0_mc = 200, 40, 1.0, 0.2, 0.5
for nu in [0.5, 0.8, 1.25, 2.0]:
    lims = [gd_limit(make_teacher_student(P_mc, nu, r_mc, D_mc, s0_mc, rng=1000 + i)) for i in range(S_mc)]
    eg = np.array([l["test_error"] for l in lims])
    et = np.array([l["train_error"] for l in lims])
    n = int(round(P_mc / nu))
    if nu < 1:
        eg_exact, et_exact = D_mc * (1 + P_mc / (n - P_mc - 1)), D_mc * (n - P_mc) / n
    else:
        eg_exact, et_exact = D_mc + (P_mc - n) / P_mc * (s0_mc**2 + r_mc) + D_mc * n / (P_mc - n - 1), 0.0
    z = (eg.mean() - eg_exact) / (eg.std(ddof=1) / np.sqrt(S_mc))
    print(f"nu={nu}: eps_g MC {eg.mean():.4f} +- {eg.std(ddof=1) / np.sqrt(S_mc):.4f}, exact finite-P {eg_exact:.4f} "
          f"(z = {z:+.2f}), P->inf {asymptotic_test_error(nu, r_mc, D_mc, s0_mc):.4f};  eps_t MC {et.mean():.4f}, "
          f"exact {et_exact:.4f}, P->inf {asymptotic_train_error(nu, D_mc):.4f}")
    assert abs(z) < 4 and abs(et.mean() - et_exact) < 4 * et.std(ddof=1) / np.sqrt(S_mc) + 1e-12
    assert abs(eg_exact - asymptotic_test_error(nu, r_mc, D_mc, s0_mc)) < 6 / P_mc * eg_exact

# zero label noise at nu = 1: a square X is invertible, GD ends exactly on the teacher, so eps_g = 0
# (no peak without noise), as asymptotic_test_error says for D = 0
for seed in range(3):
    d0 = make_teacher_student(P_mc, 1.0, r_mc, 0.0, s0_mc, rng=2000 + seed)
    assert d0["n"] == P_mc and gd_limit(d0)["test_error"] < 1e-12
assert asymptotic_test_error(1.0, r_mc, 0.0, s0_mc) == 0.0 and asymptotic_test_error(1.0, r_mc, D_mc, s0_mc) == np.inf
print(f"nu=1, D=0: gd_limit ends on the teacher (eps_g < 1e-12 at P={P_mc}); asymptotic_test_error(1, D=0) = 0")

# 3. time course: simulation average at P = 400 vs Marchenko-Pastur theory
_, w_check = _mp_quadrature(0.5)
assert abs(w_check.sum() - 1) < 1e-6 and abs(_mp_quadrature(2.0)[1].sum() - 0.5) < 1e-6
fig, ax = plt.subplots(1, 2, figsize=(12, 4))
worst = 0.0
for nu, color in zip([0.5, 0.8, 1.25, 2.0], ["C0", "C1", "C2", "C3"]):
    eta = stable_learning_rate(nu)
    s = np.unique(np.geomspace(1, 3000, 40).astype(int))
    curves = np.array([_gd_eigen(make_teacher_student(400, nu, 1.0, 0.2, 0.5, rng=i), eta, s) for i in range(8)])
    eg_th, et_th = _mp_error_curves(nu, 1.0, 0.2, 0.5, eta, s)
    mean, se = curves[:, 0].mean(0), curves[:, 0].std(0, ddof=1) / np.sqrt(8)
    worst = max(worst, np.max(np.abs(mean / eg_th - 1)))
    # sampling noise plus an O(1/P) finite-size bias
    assert np.all(np.abs(mean - eg_th) < 4 * se + 0.02 * eg_th), nu
    ax[0].plot(eta * s, curves[:, 0].mean(0), "o", color=color, ms=3)
    ax[0].plot(eta * s, eg_th, color=color, label=rf"$\nu={nu}$")
    ax[1].plot(eta * s, curves[:, 1].mean(0), "o", color=color, ms=3)
    ax[1].plot(eta * s, et_th, color=color)
ax[0].set(xscale="log", title=r"$\varepsilon_g$: P=400 simulations (dots, 8 data sets) vs MP theory", xlabel="t")
ax[1].set(xscale="log", yscale="log", title=r"$\varepsilon_t$", xlabel="t")
ax[0].legend(fontsize=8)
plt.tight_layout()
plt.show()
print(f"3. eps_g(t), P = 400 (mean of 8 data sets) vs MP theory: max relative deviation {worst:.3f} "
      "(within 4 standard errors + 2 % at every time)")

# %% [markdown]
# **(a), written.** The derivation of (6.18)–(6.19) above is compressed: write it out. Say
# (i) why gradient descent ends at (L) and how $e(\infty)$ splits into a null-space part and a
# noise part; (ii) how the average over initialization, teacher and noise gives
# $\frac{P-\mathrm{rank}X}{P}(\sigma_0^2+r)+D\,\mathrm{tr}(XX^T)^+$; (iii) how the inverse-Wishart
# moments turn this into both branches. Then explain the two divergences at $\nu\to1^\pm$: which
# eigenvalues of $A$ cause them, and why there is no peak without label noise. What does the
# over-parametrized error remember of the initialization?

# %% [markdown] tags=["answer"] points=4
# *Model answer.* (The derivation above.) GD conserves the null-space part of $\hat w(0)$ and
# solves least squares in the row space, so $e(\infty)=(I-\Pi)(\hat w(0)-w^*)+\sqrt PX^+\epsilon$;
# averaging, $\varepsilon_g(\infty)-D=\frac{(P-n)_+}{P}(\sigma_0^2+r)+D\,\mathrm{tr}(XX^T)^+$, and the inverse
# Wishart moments give $D\nu/(1-\nu)$ resp. $D/(\nu-1)$ for the noise term. The divergence at
# $\nu\to1^\pm$ is the noise amplified by the smallest nonzero eigenvalues of $X^TX/P$,
# $\lambda_-=(1-\sqrt\nu)^2/\nu\to0$: $\mathrm{tr}A^+ /P=\int\rho/\lambda$ diverges like $|1-\nu|^{-1}$
# ($\sigma=1$). For $\nu<1$ there is no memory of the initialization; for $\nu>1$ the fraction
# $1-1/\nu$ of the initial error $C(0,0)=\sigma_0^2+r$ is never corrected (the null space of the
# data). The training error is the noise left outside the column space, $D(n-P)/n$, and zero
# once the model can interpolate.
#
# *Rubric (4 pts):* GD limit = projection structure (1); the two averaged terms with
# $\sigma_0^2+r$ and the noise term (1); correct inverse-Wishart/MP evaluation giving both
# branches, $D$ included in $\varepsilon_g$ (1); interpretation of the divergence via small
# eigenvalues and of the memory term (1).

# %% [markdown]
# ## (b) Ergodicity breaking: two clones
#
# Train two clones on the *same* data from initializations that differ by a small random
# $\delta\hat w(0)$. Because the dynamics is linear, $\Delta\hat w(s)=(1-\eta A)^s\,\delta\hat w(0)$
# whatever the labels, and
# $$
# \frac{|\Delta\hat w(t)|^2}{|\Delta\hat w(0)|^2}\ \xrightarrow{t\to\infty}\
# \frac{|(I-\Pi)\delta\hat w(0)|^2}{|\delta\hat w(0)|^2}\approx\frac{P-n}{P}=\frac{\nu-1}{\nu}\quad(\nu>1),
# $$
# and $\to0$ for $\nu<1$. This is the notes' ergodicity-breaking degree: the response
# $R(\tau\to\infty)=\frac1P\mathrm{tr}\,e^{-A\tau}\to\frac{\nu-1}{\nu}$ of the weights to a kick at
# initialization never decays in the over-parametrized phase (and the FDT cannot hold there).
#
# **Task.** Implement `clone_separation`: draw the data with
# `make_teacher_student(P, nu, 1.0, 0.1, 1.0, rng)` (the separation does not depend on
# $r$, $D$, $\sigma_0$), then $\delta\hat w(0)=\texttt{delta}\cdot z$ with $z\sim\mathcal N(0,I_P)$
# from the same generator, and run both clones with the update (6.11).
#
# *A trap.* "The same generator" matters when `rng` is an int seed: make one generator,
# `g = np.random.default_rng(rng)`, and pass `g` on. Passing the int on to `make_teacher_student`
# and drawing $z$ from a second `np.random.default_rng(rng)` replays the same stream, so $z$ is the
# first data row $x^1$: a vector in the row space of $X$, whose separation decays to 0 even for
# $\nu>1$.

# %% tags=["graded"]
def clone_separation(nu, P, eta, steps, rng, record_every=1, delta=1e-3):
    """Normalized separation of two GD clones trained on the same data (notes Ex 6.2(b)).

    Data: make_teacher_student(P, nu, 1.0, 0.1, 1.0, g) with g = np.random.default_rng(rng);
    clone A starts at w0, clone B at w0 + delta * z, z ~ N(0, I_P) drawn from g after the data.
    Both follow the update (6.11) with learning rate eta on the same data. Pass the generator g
    on, not an int seed: a second np.random.default_rng(seed) would replay the data's stream and
    give z = X[0], a vector in the row space of X whose separation decays to 0 even for nu > 1.

    Args:
        nu: float > 0; P: int >= 1; eta: float > 0; steps: int >= 0.
        rng: int seed or np.random.Generator.
        record_every: int >= 1; record at s = 0, record_every, ... <= steps.
        delta: float > 0, scale of the initial difference.
    Returns:
        dict with np.ndarrays "t" (eta * s) and "separation"
        (|w_B(s) - w_A(s)|^2 / |w_B(0) - w_A(0)|^2, equal to 1 at s = 0).
    """
    rng = np.random.default_rng(rng)
    data = make_teacher_student(P, nu, 1.0, 0.1, 1.0, rng)
    X, y = data["X"], data["y"]
    W = np.stack([data["w0"], data["w0"] + delta * rng.standard_normal(P)], axis=1)
    sq = np.sqrt(P)
    d0 = np.sum((W[:, 1] - W[:, 0]) ** 2)
    t, sep = [], []
    for s in range(steps + 1):
        if s % record_every == 0:
            t.append(eta * s)
            sep.append(np.sum((W[:, 1] - W[:, 0]) ** 2) / d0)
        if s < steps:
            W = W - eta * X.T @ (X @ W / sq - y[:, None]) / sq
    return {"t": np.array(t), "separation": np.array(sep)}


# %% tags=["check"]
@check
def check_clone_separation():
    "separation starts at 1, never grows (GD is a contraction at a stable step), and is reproducible"
    out = clone_separation(1.5, 60, 0.3, 100, rng=4, record_every=10)
    sep = np.asarray(out["separation"])
    assert sep.shape == (11,) and np.isclose(sep[0], 1.0)
    assert np.all(np.diff(sep) <= 1e-12), "|(1 - eta A)^s delta| cannot grow when eta < 2 / lambda_max"
    assert np.allclose(sep, clone_separation(1.5, 60, 0.3, 100, rng=4, record_every=10)["separation"])


@check
def check_clone_plateau():
    "nu > 1: the separation levels off near (nu - 1)/nu; delta cancels in the ratio"
    nu, P = 2.0, 200
    eta = stable_learning_rate(nu)
    finals = [clone_separation(nu, P, eta, 400, rng=s, record_every=400)["separation"][-1] for s in range(5)]
    assert abs(np.mean(finals) - (nu - 1) / nu) < 0.1, (
        "the plateau should be near (nu - 1)/nu = 0.5 (the null space of X keeps its share); a plateau "
        "near 0 means z lies in the row space of X: draw the data and z from one generator")
    a = clone_separation(1.5, 40, 0.2, 50, rng=np.random.default_rng(9), record_every=25, delta=1e-2)
    b = clone_separation(1.5, 40, 0.2, 50, rng=np.random.default_rng(9), record_every=25)
    assert np.allclose(a["separation"], b["separation"], rtol=1e-6), \
        "the clones' difference follows a linear flow: the normalized separation does not depend on delta"


# %% tags=["figure"]
fig, ax = plt.subplots(figsize=(7.5, 4.3))
for nu, color in zip(nus, ["C0", "C1", "C2", "C3"]):
    _, lr, steps = runs[nu]
    out = clone_separation(nu, P_LAB, lr, steps, rng=PARAMS["teacher_seed"] + 1, record_every=max(1, steps // 400))
    ax.plot(out["t"][1:], out["separation"][1:], color=color, label=rf"$\nu={nu}$")
    if nu > 1:
        ax.axhline((nu - 1) / nu, color=color, ls="--", lw=0.9)
ax.set(xscale="log", yscale="log", ylim=(1e-4, 1.5), xlabel=r"$t$",
       ylabel=r"$|\Delta\hat w(t)|^2/|\Delta\hat w(0)|^2$",
       title=r"two clones: memory of the initialization for $\nu>1$ (dashed: $(\nu-1)/\nu$)")
ax.legend(fontsize=8)
plt.show()

# %% tags=["solution"]
# Independent check: the plateau is $|(I-\Pi)z|^2/|z|^2$, which for an
# isotropic $z$ is Beta$\big(\frac{P-n}2,\frac n2\big)$ distributed: mean $(P-n)/P$, variance
# $\frac{2n(P-n)}{P^2(P+2)}$. We compare 40 clone runs with it, and the whole curve with
# $\frac1P\langle\mathrm{tr}(1-\eta A)^{2s}\rangle$ from the Marchenko–Pastur density.
for nu, steps_c in [(1.5, 1500), (2.0, 600), (3.0, 300)]:
    P_c = 100
    n_c = int(round(P_c / nu))
    eta = stable_learning_rate(nu)
    runs_c = [clone_separation(nu, P_c, eta, steps_c, rng=500 + i, record_every=100) for i in range(40)]
    plateau = np.array([rc["separation"][-1] for rc in runs_c])
    mean_th = (P_c - n_c) / P_c
    sd_th = np.sqrt(2 * n_c * (P_c - n_c) / (P_c**2 * (P_c + 2)))
    z = (plateau.mean() - mean_th) / (sd_th / np.sqrt(40))
    print(f"nu={nu}: plateau {plateau.mean():.4f} (sd {plateau.std(ddof=1):.4f}); Beta mean (P-n)/P = {mean_th:.4f} "
          f"(sd {sd_th:.4f}), z = {z:+.2f}; (nu-1)/nu = {(nu - 1) / nu:.4f}")
    assert abs(z) < 4 and abs(plateau.std(ddof=1) / sd_th - 1) < 0.4
# the whole curve vs MP: (1/P) <tr (1 - eta A)^(2s)> = (1 - 1/nu)_+ + int rho g^2
nu = 1.6
eta = stable_learning_rate(nu)
runs_c = np.array([clone_separation(nu, 400, eta, 300, rng=600 + i, record_every=10)["separation"] for i in range(4)])
lam, w = _mp_quadrature(nu)
s = np.arange(0, 301, 10)
theory = (1 - 1 / nu) + ((1 - eta * lam[None, :]) ** (2 * s[:, None])) @ w
print(f"clone curve, nu = {nu}, P = 400: max |simulation - MP theory| = {np.max(np.abs(runs_c.mean(0) - theory)):.4f}")
assert np.max(np.abs(runs_c.mean(0) - theory)) < 0.02

# %% [markdown]
# **(b), written.** Why does the separation of the two clones saturate for $\nu>1$ and vanish for
# $\nu<1$? Say where the plateau value $(\nu-1)/\nu$ comes from, and what the plateau means for
# ergodicity, for the response $R(\tau\to\infty)$ to a kick at initialization, and for the FDT of
# the previous assignment in the over-parametrized phase.

# %% [markdown] tags=["answer"] points=3
# *Model answer.* The difference of two clones obeys the data-independent linear flow
# $\Delta\hat w(s)=(1-\eta A)^s\Delta\hat w(0)$. Every direction with a nonzero eigenvalue of
# $A$ decays; the null space of $X$ (dimension $P-n$ when $\nu>1$) is never touched by the
# gradient, so the fraction $(P-n)/P=(\nu-1)/\nu$ of a random perturbation survives forever.
# The long-time state therefore depends on the initial condition: time averages along one
# trajectory do not sample the set of solutions (an affine space of interpolators), the
# dynamics is non-ergodic, the response to a kick does not decay ($R(\infty)=(\nu-1)/\nu$,
# the susceptibility $\chi=\int R$ diverges), and a stationary FDT relating $R$ to
# correlations cannot hold. For $\nu<1$ the minimum is unique and attracts everything:
# memory is lost, as in an equilibrium phase.
#
# *Rubric (3 pts):* linear clone dynamics independent of the labels (1); null space of
# dimension $P-n$ giving $(\nu-1)/\nu$ (1); link to ergodicity breaking / non-decaying
# response / FDT violation (1).

# %% [markdown]
# ## (c) Critical slowing down
#
# The slowest direction of the row space relaxes at the smallest nonzero eigenvalue of $A$,
# $\hat w(t)-\hat w(\infty)\sim e^{-\lambda_-t}$ with $\lambda_-=(1-\sqrt\nu)^2/\nu$ the lower
# Marchenko–Pastur edge (the same on both sides of $\nu=1$). So the relaxation time of
# the weights (and of $\varepsilon_g$, whose noise part relaxes like $e^{-\lambda t}$) is
# $$
# \tau(\nu)=\frac{1}{\lambda_-}=\frac{\nu}{(1-\sqrt\nu)^2}=\frac{\nu(1+\sqrt\nu)^2}{(1-\nu)^2}\ \sim\ 4\,|1-\nu|^{-2}\quad(\nu\to1),
# $$
# in units of $t=\eta s$: critical slowing down with $\phi=2$ in the notes' scaling form (6.21)
# $\varepsilon_g(t)=|1-\nu|^{-\sigma}F(t|1-\nu|^\phi)$ (with $\sigma=1$ from (a), consistent with
# $\varepsilon_g\sim t^{\sigma/\phi}=t^{1/2}$ exactly at $\nu=1$). The training error relaxes
# twice as fast, $e^{-2t/\tau}$, because it is quadratic in $\hat w-\hat w(\infty)$ with no
# linear term. (Equation (6.21) and the paper's value of $\phi$ are not displayed in our copy
# of the notes: this is our derivation, checked numerically below.)
#
# **Task.** Implement `relaxation_time(nu)`.

# %% tags=["graded"]
def relaxation_time(nu):
    """Slowest relaxation time of gradient flow, tau = 1 / lambda_-, in units of t = eta * steps.

    lambda_- = (1 - sqrt(nu))^2 / nu is the lower edge of the nonzero Marchenko-Pastur
    spectrum of X^T X / P (P, n -> inf at fixed nu), for nu < 1 and nu > 1 alike; tau = inf
    at nu = 1. Near nu = 1, tau ~ 4 |1 - nu|^(-2) (critical slowing down, phi = 2).

    Args:
        nu: float or np.ndarray, > 0.
    Returns:
        float (for a scalar nu) or np.ndarray of the shape of nu.
    """
    nu = np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore"):
        out = nu / (1.0 - np.sqrt(nu)) ** 2
    return float(out) if out.ndim == 0 else out


# %% tags=["check"]
@check
def check_relaxation_time():
    "tau diverges at nu = 1 from both sides and falls off away from it"
    assert relaxation_time(0.99) > 1e4 and relaxation_time(1.01) > 1e4
    assert relaxation_time(0.5) < relaxation_time(0.8) < relaxation_time(0.95)
    assert relaxation_time(3.0) < relaxation_time(1.5) < relaxation_time(1.05)
    assert np.isclose(relaxation_time(4.0), 4.0), "tau = nu / (1 - sqrt(nu))^2: 4 at nu = 4"
    assert np.isclose(relaxation_time(0.25), 1.0), "tau = nu / (1 - sqrt(nu))^2: 1 at nu = 1/4"


# %% [markdown]
# **Measuring $\tau$.** At finite $P$ the late-time decay of the training error is
# $\varepsilon_t(t)-\varepsilon_t(\infty)\propto t^{-3/2}e^{-2t/\tau}$: the factor $t^{-3/2}$ comes from the
# square-root vanishing of the MP density at its edge, $\int d\lambda\sqrt{\lambda-\lambda_-}\,e^{-2\lambda t}$.
# Fitting $\log\big[(\varepsilon_t-\varepsilon_t(\infty))\,t^{3/2}\big]$ linearly in $t$ over the late
# part of a run (from $\tau$ to $3\tau$) gives $\tau$ (below, $P=400$, one data set per $\nu$).

# %% tags=["figure"]
nu_tau = [0.5, 0.65, 0.8, 1.3, 1.6, 2.2]
tau_meas = []
for nu in nu_tau:
    data = make_teacher_student(400, nu, R_LAB, D_LAB, SIGMA0_LAB, rng=PARAMS["teacher_seed"] + 2)
    lr = stable_learning_rate(nu)
    steps = int(3 * relaxation_time(nu) / lr)
    out = gd_train(data, lr, steps, record_every=max(1, steps // 300))
    excess = out["train_error"] - gd_limit(data)["train_error"]
    late = (out["t"] > relaxation_time(nu)) & (excess > 1e-13 * excess[0])
    slope = np.polyfit(out["t"][late], np.log(excess[late]) + 1.5 * np.log(out["t"][late]), 1)[0]
    tau_meas.append(-2.0 / slope)
nu_th = np.concatenate([np.linspace(0.3, 0.97, 100), np.linspace(1.03, 3.0, 100)])
fig, ax = plt.subplots(figsize=(6.5, 4.3))
for branch, color in [(nu_th < 1, "C0"), (nu_th > 1, "C3")]:
    ax.plot(np.abs(1 - nu_th[branch]), relaxation_time(nu_th[branch]), color=color,
            label=r"$\tau(\nu)$, $\nu<1$" if color == "C0" else r"$\tau(\nu)$, $\nu>1$")
nt = np.array(nu_tau)
ax.plot(np.abs(1 - nt[nt < 1]), np.array(tau_meas)[nt < 1], "o", color="C0", label="measured, $P=400$")
ax.plot(np.abs(1 - nt[nt > 1]), np.array(tau_meas)[nt > 1], "s", color="C3", label="measured, $P=400$")
xx = np.array([0.03, 1.0])
ax.plot(xx, 4 * xx**-2.0, "k:", label=r"$4|1-\nu|^{-2}$")
ax.set(xscale="log", yscale="log", xlabel=r"$|1-\nu|$", ylabel=r"relaxation time $\tau$",
       title=r"critical slowing down, $\tau\sim|1-\nu|^{-\phi}$, $\phi=2$")
ax.legend(fontsize=8)
plt.show()

# %% tags=["solution"]
# Independent checks: (i) $1/\lambda_{\min}$ of sampled matrices $X^TX/P$
# at $P=1000$ against $\tau(\nu)$ (finite-size corrections shrink as $P^{-2/3}$ relative to
# the gap); (ii) the scaling collapse of the MP-theory curves: $|1-\nu|\,(\varepsilon_g(t)-D)$
# against $t\,|1-\nu|^2$ for $\nu\to1^-$ falls on one curve $F$, and exactly at $\nu=1$,
# $\varepsilon_g(t)\sim t^{1/2}$.
rng_c = np.random.default_rng(8)
for nu in [0.6, 0.8, 1.3, 1.7]:
    P_big = 1000
    n_big = int(round(P_big / nu))
    Xb = rng_c.standard_normal((n_big, P_big))
    G = (Xb @ Xb.T if n_big < P_big else Xb.T @ Xb) / P_big          # same nonzero spectrum as A
    lam_min = np.linalg.eigvalsh(G)[0]
    print(f"nu={nu}: 1/lambda_min(P=1000) = {1 / lam_min:.2f}, tau(nu) = {relaxation_time(nu):.2f}")
    assert abs(lam_min * relaxation_time(nu) - 1) < 0.25
# scaling collapse from the MP theory (gradient-flow limit: small eta)
fig, ax = plt.subplots(1, 2, figsize=(12, 4))
z = np.geomspace(1e-3, 1e2, 60)
collapse = []
for eps in [0.1, 0.05, 0.025]:
    nu = 1 - eps
    eta_small = 0.02
    steps = z / eps**2 / eta_small
    eg, _ = _mp_error_curves(nu, 1.0, 0.2, 0.5, eta_small, steps)
    collapse.append(eps * (eg - 0.2))
    ax[0].plot(z, eps * (eg - 0.2), label=rf"$\nu={nu}$")
ax[0].set(xscale="log", yscale="log", xlabel=r"$t|1-\nu|^2$", ylabel=r"$|1-\nu|(\varepsilon_g-D)$",
          title="MP theory: scaling collapse")
ax[0].legend(fontsize=8)
spread = np.max(np.abs(collapse[1] / collapse[2] - 1)[z > 0.05])
t_crit = np.geomspace(10, 1e4, 30)
eg1, _ = _mp_error_curves(1.0, 1.0, 0.2, 0.5, 0.02, t_crit / 0.02)
slope_crit = np.polyfit(np.log(t_crit[15:]), np.log(eg1[15:]), 1)[0]
ax[1].loglog(t_crit, eg1, label=rf"$\nu=1$: slope {slope_crit:.3f}")
ax[1].set(xlabel="t", ylabel=r"$\varepsilon_g$", title=r"at $\nu=1$: $\varepsilon_g\sim t^{\sigma/\phi}$")
ax[1].legend()
plt.tight_layout()
plt.show()
print(f"collapse: nu = 0.95 vs 0.975 curves differ by at most {spread:.3f} (relative) for t|1-nu|^2 > 0.05; "
      f"at nu = 1, eps_g ~ t^{slope_crit:.3f} (sigma/phi = 1/2)")
assert spread < 0.1 and abs(slope_crit - 0.5) < 0.05

# %% [markdown]
# **(c), written.** What sets the relaxation time $\tau$, why does it diverge at $\nu=1$, and
# what is the exponent $\phi$? Relate $\phi$ and the exponent $\sigma=1$ of part (a) to the growth
# $\varepsilon_g\sim t^{\sigma/\phi}$ at $\nu=1$, and say what limits a measurement of $\tau$ at
# finite $P$ close to $\nu=1$.

# %% [markdown] tags=["answer"] points=3
# *Model answer.* GD relaxes each eigendirection of the Hessian $A=X^TX/P$ at its
# eigenvalue, so the slowest relaxation of the row-space dynamics is set by the smallest
# nonzero eigenvalue, the lower MP edge $\lambda_-=(1-\sqrt\nu)^2/\nu$. It closes at $\nu=1$
# (a square data matrix is nearly singular), so $\tau=1/\lambda_-\approx4|1-\nu|^{-2}$:
# $\phi=2$. The same small eigenvalues amplify the noise in the final solution
# ($\varepsilon_g\propto|1-\nu|^{-1}$, $\sigma=1$), and the scaling form then predicts
# $\varepsilon_g\sim t^{\sigma/\phi}=t^{1/2}$ at $\nu=1$, which the MP theory confirms. At
# $P=200$ the divergence is rounded once $|1-\nu|\lesssim2/\sqrt P$ (when
# $(\sqrt n-\sqrt P)^2\lesssim1$ the smallest eigenvalue is set by finite-size fluctuations),
# just as finite-size effects round a thermodynamic transition.
#
# *Rubric (3 pts):* relaxation set by the smallest nonzero Hessian eigenvalue (1); MP edge and
# $\tau\propto|1-\nu|^{-2}$, $\phi=2$ (1); measurement method / finite-size rounding
# discussed (1).

# %% tags=["tests"]
def _data(name, P, nu, r=1.0, D=0.2, sigma0=0.5):
    return ref.make_teacher_student(P, nu, r, D, sigma0, int(rng_for(name).integers(2**31)))


@points(1)
def test_make_teacher_student_structure(student):
    "make_teacher_student: keys, shapes and the number of samples round(P / nu)"
    for P, nu in [(50, 1.6), (37, 0.45), (20, 3.0)]:
        d = student.make_teacher_student(P, nu, 1.0, 0.1, 0.5, 7)
        n = int(round(P / nu))
        assert isinstance(d, dict) and {"X", "y", "w_star", "w0", "n", "D"} <= set(d), "keys missing"
        assert d["n"] == n, "n should be round(P / nu)"
        assert np.shape(d["X"]) == (n, P) and np.shape(d["y"]) == (n,), "X is (n, P), y is (n,)"
        assert np.shape(d["w_star"]) == (P,) and np.shape(d["w0"]) == (P,), "w_star and w0 are (P,)"


# False-fail budget 1e-4 (any stream, any course seed): six data sets at P = 300, n = 400. The sums of
# squares are exactly chi^2 distributed: 720000 input entries at rtol 0.01 (2e-9), 1800 teacher
# weights and 1800 initial weights at rtol 0.15 (9.5e-6 each, exact chi^2_1800 tails), 2400 noise
# values at rtol 0.15 (3.6e-7); the noise mean at 5 exact standard errors (5.7e-7): 2e-5 together.
@points(3)
def test_make_teacher_student_statistics(student):
    "make_teacher_student: variances of inputs, teacher, label noise and initialization (statistical)"
    rng = rng_for("make_teacher_student_statistics")
    r, D, sigma0 = 2.5, 0.5, 0.6
    ds = [student.make_teacher_student(300, 0.75, r, D, sigma0, int(rng.integers(2**31))) for _ in range(6)]
    X = np.concatenate([np.ravel(d["X"]) for d in ds])
    ws = np.concatenate([np.asarray(d["w_star"], dtype=float) for d in ds])
    w0 = np.concatenate([np.asarray(d["w0"], dtype=float) for d in ds])
    noise = np.concatenate([np.asarray(d["y"]) - np.asarray(d["X"]) @ np.asarray(d["w_star"]) / np.sqrt(300)
                            for d in ds])
    # relative standard errors: X 0.1 %, w* and w0 3.3 %, noise 2.9 %
    assert_close(np.mean(X**2), 1.0, rtol=0.01, atol=0, name="variance of the inputs")
    assert_close(np.mean(ws**2), r, rtol=0.15, atol=0, name="variance of the teacher weights")
    assert_close(np.mean(w0**2), sigma0**2, rtol=0.15, atol=0, name="variance of the initial student weights")
    assert_close(np.mean(noise**2), D, rtol=0.15, atol=0, name="variance of y - X w* / sqrt(P) (label noise)")
    assert abs(np.mean(noise)) < 5 * np.sqrt(D / noise.size), "label noise should have mean zero"


@pytest.mark.reference_input  # inputs computed from a reference result
@points(3)
def test_gd_train_trajectory(student):
    "gd_train: recorded times, training and test errors on given data (nu < 1 and nu > 1)"
    for name, P, nu, eta, steps, every in [("gd_a", 60, 0.5, 0.15, 120, 10), ("gd_b", 80, 1.8, 0.3, 90, 1)]:
        d = _data(name, P, nu)
        out, want = student.gd_train(d, eta, steps, every), ref.gd_train(d, eta, steps, every)
        for key in ["t", "train_error", "test_error"]:
            assert_close(out[key], want[key], rtol=1e-6, atol=1e-10, name=f"{key} (nu={nu})")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_gd_train_final_weights(student):
    "gd_train: the weights after the last step, also when steps is not a multiple of record_every"
    d = _data("gd_final", 50, 1.3)
    out = student.gd_train(d, 0.25, 37, 10)
    want = ref.gd_train(d, 0.25, 37, 10)
    assert_close(out["w"], want["w"], rtol=1e-6, atol=1e-10, name="final weights")
    assert_close(out["t"], want["t"], rtol=1e-9, atol=1e-12, name="recorded times")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(2)
def test_gd_limit(student):
    "gd_limit: end point, training and test error for under- and over-parametrized data"
    for name, P, nu in [("lim_a", 40, 0.6), ("lim_b", 90, 1.7), ("lim_c", 30, 3.0)]:
        d = _data(name, P, nu)
        out, want = student.gd_limit(d), ref.gd_limit(d)
        assert_close(out["w"], want["w"], rtol=1e-6, atol=1e-8, name=f"w_inf (nu={nu})")
        assert_close(out["test_error"], want["test_error"], rtol=1e-6, atol=1e-10, name=f"test error (nu={nu})")
        assert_close(out["train_error"], want["train_error"], rtol=1e-6, atol=1e-10,
                     name=f"train error (nu={nu})")


@points(2)
def test_asymptotic_test_error(student):
    "asymptotic_test_error on arrays of nu on both sides of 1, random r, D, sigma0"
    rng = rng_for("asymptotic_test_error")
    nu = np.concatenate([rng.uniform(0.05, 0.98, 8), rng.uniform(1.02, 6, 8)])
    for _ in range(3):
        r, D, s0 = float(rng.uniform(0.2, 3)), float(rng.uniform(0.05, 1)), float(rng.uniform(0, 2))
        assert_close(student.asymptotic_test_error(nu, r, D, s0), ref.asymptotic_test_error(nu, r, D, s0),
                     rtol=1e-9, atol=1e-12, name=f"eps_g(inf) for r={r:.2f}, D={D:.2f}, sigma0={s0:.2f}")


@points(1)
def test_asymptotic_test_error_scalar_and_critical(student):
    "asymptotic_test_error for scalar nu, including nu = 1"
    for nu in [0.3, 1.0, 2.5]:
        assert_close(student.asymptotic_test_error(nu, 1.0, 0.3, 0.4), ref.asymptotic_test_error(nu, 1.0, 0.3, 0.4),
                     rtol=1e-9, atol=1e-12, name=f"eps_g(inf) at nu={nu}")


@points(1)
def test_asymptotic_train_error(student):
    "asymptotic_train_error on arrays of nu on both sides of 1"
    rng = rng_for("asymptotic_train_error")
    nu = np.concatenate([rng.uniform(0.05, 0.98, 6), [1.0], rng.uniform(1.02, 6, 6)])
    D = float(rng.uniform(0.1, 2))
    assert_close(student.asymptotic_train_error(nu, D), ref.asymptotic_train_error(nu, D),
                 rtol=1e-9, atol=1e-12, name="eps_t(inf)")


# False-fail budget 1e-4 (any stream, any course seed): after 600 steps the plateau is the fraction
# |Pi_null z|^2 / |z|^2 of a Gaussian z in the null space of X, Beta((P-n)/2, n/2) exactly; the
# decay of the other modes leaves a bias below 2e-4 (3000 reference runs at each nu: bias -2e-4 and
# 4e-5, spread equal to the Beta value). The mean of 6 runs is checked at 5 of its standard errors
# (skewness of the mean below 0.07): below 1e-6 per nu, 2e-6 together.
@points(2)
def test_clone_separation_plateau(student):
    "clone_separation: long-time plateau for nu > 1, averaged over seeds (statistical)"
    rng = rng_for("clone_separation_plateau")
    for nu, P in [(2.0, 120), (1.5, 90)]:
        n = int(round(P / nu))
        finals = [student.clone_separation(nu, P, 0.25, 600, int(rng.integers(2**31)), 600)["separation"][-1]
                  for _ in range(6)]
        sd = np.sqrt(2 * n * (P - n) / (P**2 * (P + 2)))
        # mean of 6 Beta((P-n)/2, n/2) draws: 5 standard errors
        assert_close(np.mean(finals), (P - n) / P, rtol=0, atol=5 * sd / np.sqrt(6),
                     name=f"mean plateau at nu={nu}")


# False-fail budget 1e-4 (any stream, any course seed): at nu = 0.5, P = 80 (n = 160) every mode decays
# at least as (1 - 0.15 lambda_min)^(2 s), so the separation exceeds 1e-4 after 600 steps only if
# lambda_min(X^T X / P) < 0.051. Over 6000 draws lambda_min has mean 0.192 and standard deviation
# 0.020 (smallest seen 0.119): 0.051 is 7 standard deviations below, in the Tracy-Widom left tail,
# which is lighter than a Gaussian one (< 1e-11). The rest is deterministic.
@points(1)
def test_clone_separation_decay(student):
    "clone_separation: starts at 1 and decays to zero for nu < 1"
    rng = rng_for("clone_separation_decay")
    out = student.clone_separation(0.5, 80, 0.15, 600, int(rng.integers(2**31)), 100)
    sep = np.asarray(out["separation"], dtype=float)
    assert sep.shape == (7,), "records at s = 0, 100, ..., 600"
    assert_close(sep[0], 1.0, rtol=1e-9, atol=0, name="separation at t = 0")
    assert sep[-1] < 1e-4, "the clones should merge for nu < 1"
    assert_close(out["t"], 0.15 * np.arange(0, 601, 100), rtol=1e-9, atol=1e-12, name="recorded times")
    every_step = student.clone_separation(1.5, 40, 0.2, 30, int(rng.integers(2**31)), 1)
    assert_close(every_step["t"], 0.2 * np.arange(31), rtol=1e-9, atol=1e-12, name="times with record_every = 1")


# False-fail budget 1e-4 (any stream, any course seed): over 160 independent runs at this (nu, P, eta)
# one run deviates from the P -> infinity curve by a bias of -0.002 and a standard deviation of 0.018
# at every recorded t > 0 (at t = 0 it is exactly 0; the deviation is mostly the Beta-distributed
# plateau, common to all t), so the mean of 4 runs has standard error 0.009 and atol 0.05 is 5.3 of
# them after the bias: 1e-7 per time, 1.1e-6 for the 10 times together (union bound).
@points(2)
def test_clone_separation_curve(student):
    "clone_separation: mean relaxation curve at intermediate times (statistical)"
    rng = rng_for("clone_separation_curve")
    nu, P, eta = 1.4, 1000, 0.3
    got = np.mean([student.clone_separation(nu, P, eta, 80, int(rng.integers(2**31)), 8)["separation"]
                   for _ in range(4)], axis=0)
    # P -> infinity theory: (1 - 1/nu) + int rho(lam) (1 - eta lam)^(2 s) over the MP density
    lam, w = ref._mp_quadrature(nu)
    s = np.arange(0, 81, 8)
    want = (1 - 1 / nu) + ((1 - eta * lam[None, :]) ** (2 * s[:, None])) @ w
    # one run fluctuates by ~0.02 around the curve at P = 1000 (mostly its plateau, Beta distributed),
    # so the mean of 4 runs by ~0.01; finite-P bias ~0.002
    assert_close(got, want, rtol=0, atol=0.05, name="mean separation curve")


@points(1)
def test_relaxation_time(student):
    "relaxation_time on arrays of nu on both sides of 1"
    rng = rng_for("relaxation_time")
    nu = np.concatenate([rng.uniform(0.05, 0.97, 6), rng.uniform(1.03, 5, 6)])
    assert_close(student.relaxation_time(nu), ref.relaxation_time(nu), rtol=1e-9, atol=1e-12, name="tau(nu)")


@points(1)
def test_make_teacher_student_zero_arguments(student):
    "make_teacher_student without label noise (D = 0), teacher (r = 0) or initialization (sigma0 = 0), with P = 1 and with fewer than one sample per nu"
    rng = rng_for("make_teacher_student_zero_arguments")
    P, nu = int(rng.integers(20, 60)), float(rng.uniform(0.4, 2.5))
    d = student.make_teacher_student(P, nu, 1.3, 0.0, 0.7, int(rng.integers(2**31)))
    X, y, ws = (np.asarray(d[k], dtype=float) for k in ("X", "y", "w_star"))
    assert_close(y, X @ ws / np.sqrt(P), rtol=1e-9, atol=1e-12, name="y at D = 0 (noiseless labels)")
    d = student.make_teacher_student(P, nu, 0.0, 0.4, 0.0, int(rng.integers(2**31)))
    assert np.all(np.asarray(d["w_star"]) == 0), "r = 0: the teacher weights should all be 0"
    assert np.all(np.asarray(d["w0"]) == 0), "sigma0 = 0: the initial student weights should all be 0"
    assert np.std(np.asarray(d["y"], dtype=float)) > 0, "with r = 0 the labels are pure noise of variance D"
    for P, nu, n in [(1, 0.25, 4), (1, 1.0, 1), (5, 40.0, 1), (3, 1.5, 2)]:
        d = student.make_teacher_student(P, nu, 1.0, 0.1, 0.5, int(rng.integers(2**31)))
        assert d["n"] == n and np.shape(d["X"]) == (n, P) and np.shape(d["y"]) == (n,), \
            f"P={P}, nu={nu}: n = max(1, round(P / nu)) samples, X of shape (n, P)"
        assert np.shape(d["w_star"]) == (P,) and np.shape(d["w0"]) == (P,), "w_star and w0 are (P,)"
        assert d["P"] == P and float(d["nu"]) == nu, "the dict should carry P and nu as passed"


# False-fail budget 1e-4 (any stream, any course seed): the contract fixes Gaussian laws. Each of the
# four one-sample Kolmogorov-Smirnov tests (80000 standardized inputs, 300 teacher weights, 300
# initial weights, 600 noise values, each set i.i.d. N(0, 1) after scaling) has a uniform p-value for
# a correct draw; each fails at p < 2.5e-5, 1e-4 together (union bound). A uniform or Rademacher draw
# of the same variance fails: at 80000 inputs the KS distance of a uniform law, 0.058, is 16 times
# the 1e-4 critical value.
@points(1)
def test_make_teacher_student_gaussian_draws(student):
    "make_teacher_student: inputs, teacher weights, initialization and label noise are Gaussian (statistical)"
    from scipy import stats
    rng = rng_for("make_teacher_student_gaussian_draws")
    P, r, D, s0 = 300, float(rng.uniform(0.5, 3.0)), float(rng.uniform(0.1, 1.0)), float(rng.uniform(0.3, 2.0))
    d = student.make_teacher_student(P, 0.5, r, D, s0, int(rng.integers(2**31)))
    X, y, ws, w0 = (np.asarray(d[k], dtype=float) for k in ("X", "y", "w_star", "w0"))
    assert X.shape == (600, P), "X should be (n, P) with n = round(P / nu)"
    X = X[:, :134]  # 80400 entries
    for what, z in [("inputs X", X.ravel()), ("teacher weights w_star / sqrt(r)", ws / np.sqrt(r)),
                    ("initial weights w0 / sigma0", w0 / s0),
                    ("label noise (y - X w_star / sqrt(P)) / sqrt(D)",
                     (y - np.asarray(d["X"], dtype=float) @ ws / np.sqrt(P)) / np.sqrt(D))]:
        assert stats.kstest(z, "norm").pvalue > 2.5e-5, f"the {what} should be standard normal"


@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_gd_edges(student):
    "gd_train with steps = 0 and record_every > steps; gd_train and gd_limit at nu = 1 without label noise, with one sample, and from sigma0 = 0"
    d = _data("gd_edges_a", 30, 1.4)
    out, want = student.gd_train(d, 0.2, 0), ref.gd_train(d, 0.2, 0)
    for key in ["t", "train_error", "test_error", "w"]:
        assert_close(out[key], want[key], rtol=1e-9, atol=1e-12, name=f"{key} after 0 steps")
    out, want = student.gd_train(d, 0.2, 7, 20), ref.gd_train(d, 0.2, 7, 20)
    for key in ["t", "train_error", "test_error", "w"]:
        assert_close(out[key], want[key], rtol=1e-7, atol=1e-10, name=f"{key} with record_every > steps")
    for name, P, nu, D, s0 in [("gd_edges_b", 40, 1.0, 0.0, 0.5), ("gd_edges_c", 12, 12.0, 0.3, 0.8),
                               ("gd_edges_d", 25, 2.0, 0.2, 0.0)]:
        d = _data(name, P, nu, D=D, sigma0=s0)
        out, want = student.gd_limit(d), ref.gd_limit(d)
        assert_close(out["w"], want["w"], rtol=1e-6, atol=1e-8, name=f"w_inf (P={P}, nu={nu}, D={D}, sigma0={s0})")
        for key in ["train_error", "test_error"]:
            assert_close(out[key], want[key], rtol=1e-6, atol=1e-10, name=f"{key} of w_inf (P={P}, nu={nu}, D={D})")
        out, want = student.gd_train(d, 0.1, 25, 5), ref.gd_train(d, 0.1, 25, 5)
        for key in ["train_error", "test_error", "w"]:
            assert_close(out[key], want[key], rtol=1e-6, atol=1e-10, name=f"gd_train {key} (P={P}, nu={nu}, D={D})")


@points(1)
def test_asymptotics_edges(student):
    "asymptotic_test_error, asymptotic_train_error and relaxation_time: floats for scalar nu, no label noise, nu -> 0 and nu -> infinity, near and at nu = 1"
    rng = rng_for("asymptotics_edges")
    r, D, s0 = float(rng.uniform(0.2, 3)), float(rng.uniform(0.05, 1)), float(rng.uniform(0, 2))
    nus = [1e-6, float(rng.uniform(0.2, 0.9)), 1.0 - 1e-3, 1.0, 1.0 + 1e-3, float(rng.uniform(1.2, 5)), 1e6]
    for nu in nus:
        for fn, args in [("asymptotic_test_error", (nu, r, D, s0)), ("asymptotic_test_error", (nu, r, 0.0, s0)),
                         ("asymptotic_test_error", (nu, 0.0, D, 0.0)), ("asymptotic_train_error", (nu, D)),
                         ("asymptotic_train_error", (nu, 0.0)), ("relaxation_time", (nu,))]:
            out = getattr(student, fn)(*args)
            assert np.shape(out) == (), f"{fn} of a scalar nu should be a float"
            assert_close(out, getattr(ref, fn)(*args), rtol=1e-9, atol=1e-12, name=f"{fn}{args}")
    nu = np.array([0.5, 1.0, 2.0])
    assert_close(student.asymptotic_test_error(nu, r, 0.0, s0), ref.asymptotic_test_error(nu, r, 0.0, s0),
                 rtol=1e-9, atol=1e-12, name="asymptotic_test_error without label noise on an array of nu")
    # entries of nu are independent problems: one array whose entries lie far apart in scale
    nu = np.array(nus)
    for fn, args in [("asymptotic_test_error", (nu, r, D, s0)), ("asymptotic_train_error", (nu, D)),
                     ("relaxation_time", (nu,))]:
        assert_close(getattr(student, fn)(*args), getattr(ref, fn)(*args), rtol=1e-9, atol=1e-12,
                     name=f"{fn} on one array of nu from 1e-6 to 1e6")


# False-fail budget 1e-4 (any stream, any course seed): the separation is non-increasing whenever
# eta lambda_max(X^T X / P) <= 2. At nu = 0.7, P = 40 (n = 57), eta = 0.2 that fails only if the
# largest singular value of X exceeds sqrt(400) = 20 = sqrt(n) + sqrt(P) + 6.1, probability at most
# exp(-6.1^2 / 2) = 7e-9 (Gaussian concentration, Davidson-Szarek). The rest is deterministic.
@points(1)
def test_clone_separation_defaults_and_zero_steps(student):
    "clone_separation with steps = 0 and with the default record_every and delta"
    rng = rng_for("clone_separation_defaults_and_zero_steps")
    out = student.clone_separation(1.5, 30, 0.2, 0, int(rng.integers(2**31)))
    assert_close(out["t"], np.zeros(1), rtol=0, atol=1e-12, name="times after 0 steps")
    assert_close(out["separation"], np.ones(1), rtol=1e-9, atol=0, name="separation after 0 steps")
    out = student.clone_separation(0.7, 40, 0.2, 12, int(rng.integers(2**31)))
    assert_close(out["t"], 0.2 * np.arange(13), rtol=1e-9, atol=1e-12, name="times with the default record_every")
    sep = np.asarray(out["separation"], dtype=float)
    assert sep.shape == (13,), "the default record_every = 1 records every step"
    assert_close(sep[0], 1.0, rtol=1e-9, atol=0, name="separation at t = 0 with the default delta")
    assert np.all(np.diff(sep) <= 1e-12), "below eta < 2 / lambda_max the separation never grows"


# %% tags=["wrong"]
# wrong: labels without the 1/sqrt(P) of the model (y = X w* + eps)
# hint: The teacher has the normalization of the student: y = X w*/√P + ε (Section 6.2), so that every
#   label has variance r + D.
def make_teacher_student(P, nu, r, D, sigma0, rng):
    rng = np.random.default_rng(rng)
    n = int(round(P / nu))
    X = rng.standard_normal((n, P))
    w_star = np.sqrt(r) * rng.standard_normal(P)
    y = X @ w_star + np.sqrt(D) * rng.standard_normal(n)
    return {"X": X, "y": y, "w_star": w_star, "w0": sigma0 * rng.standard_normal(P), "P": P, "n": n,
            "nu": nu, "r": r, "D": D, "sigma0": sigma0}


# %% tags=["wrong"]
# wrong: r and D used as standard deviations instead of variances
# hint: r and D are variances, of the teacher weights and of the label noise: draw w* with standard
#   deviation √r and the noise with √D (Section 6.2).
def make_teacher_student(P, nu, r, D, sigma0, rng):
    rng = np.random.default_rng(rng)
    n = int(round(P / nu))
    X = rng.standard_normal((n, P))
    w_star = r * rng.standard_normal(P)
    y = X @ w_star / np.sqrt(P) + D * rng.standard_normal(n)
    return {"X": X, "y": y, "w_star": w_star, "w0": sigma0 * rng.standard_normal(P), "P": P, "n": n,
            "nu": nu, "r": r, "D": D, "sigma0": sigma0}


# %% tags=["wrong"]
# wrong: inputs drawn uniform on [-sqrt(3), sqrt(3)] (unit variance, but not Gaussian)
# hint: Every draw of the teacher–student model is Gaussian (Section 6.2.1): x ~ N(0, I_P), w* ~ N(0, r
#   I_P), ε ~ N(0, D), w0 ~ N(0, σ0² I_P); the right variance with another law is not the same model.
def make_teacher_student(P, nu, r, D, sigma0, rng):
    rng = np.random.default_rng(rng)
    n = max(1, int(round(P / nu)))
    X = rng.uniform(-np.sqrt(3.0), np.sqrt(3.0), size=(n, P))
    w_star = np.sqrt(r) * rng.standard_normal(P)
    y = X @ w_star / np.sqrt(P) + np.sqrt(D) * rng.standard_normal(n)
    return {"X": X, "y": y, "w_star": w_star, "w0": sigma0 * rng.standard_normal(P), "P": int(P), "n": n,
            "nu": float(nu), "r": float(r), "D": float(D), "sigma0": float(sigma0)}


# %% tags=["wrong"]
# wrong: gradient of the mean loss (extra 1/n) and test error without the label noise D
# hint: Gradient descent runs on ½ Σ_μ (residual)², with no 1/n, and the test error includes the label
#   noise of a fresh example, ε_g = |ŵ − w*|²/P + D (Section 6.2).
def gd_train(data, eta, steps, record_every=1):
    X, y, ws = np.asarray(data["X"]), np.asarray(data["y"]), np.asarray(data["w_star"])
    w = np.array(data["w0"], dtype=float)
    n, P = X.shape
    t, tr, te = [], [], []
    for s in range(steps + 1):
        res = X @ w / np.sqrt(P) - y
        if s % record_every == 0:
            t.append(eta * s)
            tr.append(np.mean(res**2))
            te.append(np.sum((w - ws) ** 2) / P)
        if s < steps:
            w = w - eta * X.T @ res / np.sqrt(P) / n
    return {"t": np.array(t), "train_error": np.array(tr), "test_error": np.array(te), "w": w}


# %% tags=["wrong"]
# wrong: the end point forgets the initialization (minimum-norm solution from w = 0)
# hint: Gradient descent never moves w in the null space of X: the end point keeps the null-space part
#   of w0, w_∞ = w0 + √P X⁺(y − X w0/√P) (Section 6.2), not the minimum-norm solution from 0.
def gd_limit(data):
    X, y = np.asarray(data["X"]), np.asarray(data["y"])
    P = X.shape[1]
    w = np.sqrt(P) * np.linalg.pinv(X) @ y
    return {"w": w, "train_error": float(np.mean((X @ w / np.sqrt(P) - y) ** 2)),
            "test_error": float(np.sum((w - data["w_star"]) ** 2) / P + data["D"])}


# %% tags=["wrong"]
# wrong: over-parametrized branch without the initialization variance (min-norm formula r(1 - 1/nu))
# hint: Above ν = 1 the part of w0 in the null space of X is never learned and stays in the error: the
#   over-parametrized branch contains (1 − 1/ν)(σ0² + r), not only r (eqs. (6.18)–(6.19)).
def asymptotic_test_error(nu, r, D, sigma0):
    nu = np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(nu < 1, D / (1 - nu), np.where(nu > 1, (1 - 1 / nu) * r + D / (nu - 1) + D,
                                                      np.inf if D > 0 else 0.0))
    return float(out) if out.ndim == 0 else out


# %% tags=["wrong"]
# wrong: eps_g = inf at nu = 1 even without label noise (the peak put in by hand)
# hint: The divergence at ν = 1 is the label noise amplified, D/|1 − ν|: without noise (D = 0) both
#   branches vanish at ν = 1 and there is no peak (eqs. (6.18)–(6.19)).
def asymptotic_test_error(nu, r, D, sigma0):
    nu = np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(nu < 1, D / (1 - nu), np.where(nu > 1, (1 - 1 / nu) * (sigma0**2 + r) + D / (nu - 1) + D,
                                                      np.inf))
    return float(out) if out.ndim == 0 else out


# %% tags=["wrong"]
# wrong: training error D (1 - nu) on both sides (negative above nu = 1)
# hint: Above ν = 1 the model interpolates the training data, so the asymptotic training error vanishes
#   there; D(1 − ν) holds for ν < 1 only (Section 6.2.2).
def asymptotic_train_error(nu, D):
    return D * (1.0 - np.asarray(nu, dtype=float))


# %% tags=["wrong"]
# wrong: separation as a ratio of norms, not of squared norms
# hint: The clone separation is a ratio of squared distances, |w_a − w_b|² / |w_a(0) − w_b(0)|² (Section
#   6.2), not of distances.
_clone_right = clone_separation


def clone_separation(nu, P, eta, steps, rng, record_every=1, delta=1e-3):
    out = _clone_right(nu, P, eta, steps, rng, record_every, delta)
    return {"t": out["t"], "separation": np.sqrt(out["separation"])}


# %% tags=["wrong"]
# wrong: the two clones see different data sets (separation never decays)
# hint: The two clones are trained on the same data set and differ only by a small perturbation of the
#   initial weights (Section 6.2): generate the data once.
def clone_separation(nu, P, eta, steps, rng, record_every=1, delta=1e-3):
    rng = np.random.default_rng(rng)
    a = make_teacher_student(P, nu, 1.0, 0.1, 1.0, rng)
    b = make_teacher_student(P, nu, 1.0, 0.1, 1.0, rng)
    b["w0"] = a["w0"] + delta * rng.standard_normal(P)
    wa, wb = np.array(a["w0"]), np.array(b["w0"])
    d0 = np.sum((wb - wa) ** 2)
    t, sep = [], []
    for s in range(steps + 1):
        if s % record_every == 0:
            t.append(eta * s)
            sep.append(np.sum((wb - wa) ** 2) / d0)
        wa = wa - eta * a["X"].T @ (a["X"] @ wa / np.sqrt(P) - a["y"]) / np.sqrt(P)
        wb = wb - eta * b["X"].T @ (b["X"] @ wb / np.sqrt(P) - b["y"]) / np.sqrt(P)
    return {"t": np.array(t), "separation": np.array(sep)}


# %% tags=["wrong"]
# wrong: relaxation time from the MP edge of X^T X / n instead of X^T X / P (missing factor nu)
# hint: The slowest rate is the lower Marchenko–Pastur edge of X^T X/P (the gradient carries 1/√P
#   twice), (1 − √ν)²/ν, not the edge of X^T X/n (Section 6.2).
def relaxation_time(nu):
    nu = np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore"):
        return 1.0 / (1.0 - np.sqrt(nu)) ** 2


# %% tags=["rewrite"]
# rewrite: the same edge of X^T X / n, written as the square of 1 / (1 - sqrt(nu))
def relaxation_time(nu):
    nu = np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore"):
        return (1.0 / (1.0 - np.sqrt(nu))) ** 2


# %% tags=["wrong"]
# wrong: the int seed passed on: data from make_teacher_student(..., seed), z from a second default_rng(seed)
# hint: Draw the data and z from one generator (g = np.random.default_rng(rng), then make_teacher_student(...,
#   g) and z from g): a second default_rng of the same int seed replays the data's stream, so z is the first
#   data row, in the row space of X, and the separation decays to 0 even for ν > 1 (Ex 6.2(b)).
def clone_separation(nu, P, eta, steps, rng, record_every=1, delta=1e-3):
    data = make_teacher_student(P, nu, 1.0, 0.1, 1.0, rng)
    X, y = data["X"], data["y"]
    W = np.stack([data["w0"], data["w0"] + delta * np.random.default_rng(rng).standard_normal(P)], axis=1)
    sq = np.sqrt(P)
    d0 = np.sum((W[:, 1] - W[:, 0]) ** 2)
    t, sep = [], []
    for s in range(steps + 1):
        if s % record_every == 0:
            t.append(eta * s)
            sep.append(np.sum((W[:, 1] - W[:, 0]) ** 2) / d0)
        if s < steps:
            W = W - eta * X.T @ (X @ W / sq - y[:, None]) / sq
    return {"t": np.array(t), "separation": np.array(sep)}


# %% tags=["alternative"]
# alternative: closed-form GD in the eigenbasis, end point by an SVD, clones via the difference dynamics only, another random stream
def make_teacher_student(P, nu, r, D, sigma0, rng):
    gen = np.random.default_rng(np.random.default_rng(rng).integers(2**63))
    n = max(1, int(np.rint(P / nu)))
    w0 = gen.normal(0.0, sigma0, P)
    w_star = gen.normal(0.0, np.sqrt(r), P)
    X = gen.normal(size=(n, P))
    y = (X @ w_star) / np.sqrt(P) + gen.normal(0.0, np.sqrt(D), n)
    return dict(X=X, y=y, w_star=w_star, w0=w0, P=P, n=n, nu=nu, r=r, D=D, sigma0=sigma0)


def gd_train(data, eta, steps, record_every=1):
    X, y = np.asarray(data["X"]), np.asarray(data["y"])
    P = X.shape[1]
    lam, V = np.linalg.eigh(X.T @ X / P)
    b = V.T @ (X.T @ y) / np.sqrt(P)
    c0 = V.T @ np.asarray(data["w0"])
    g_step = 1 - eta * lam
    s_rec = np.arange(0, steps + 1, record_every)
    tr, te = [], []

    def weights(s):
        # c(s) = g^s c0 + (1 - g^s)/(eta lam) * eta b, written without dividing by lam
        geo = np.where(np.abs(eta * lam) > 1e-12, (1 - g_step**s) / np.where(lam == 0, 1, lam), eta * s)
        return V @ (g_step**s * c0 + geo * b)
    for s in s_rec:
        w = weights(s)
        tr.append(np.mean((X @ w / np.sqrt(P) - y) ** 2))
        te.append(np.sum((w - data["w_star"]) ** 2) / P + data["D"])
    return {"t": eta * s_rec, "train_error": np.array(tr), "test_error": np.array(te), "w": weights(steps)}


def gd_limit(data):
    X, y, w0 = np.asarray(data["X"]), np.asarray(data["y"]), np.asarray(data["w0"])
    P = X.shape[1]
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    keep = s > 1e-10 * s[0]
    Vk = Vt[keep]
    w = w0 - Vk.T @ (Vk @ w0) + np.sqrt(P) * Vk.T @ ((U[:, keep].T @ y) / s[keep])
    return {"w": w, "train_error": float(np.mean((X @ w / np.sqrt(P) - y) ** 2)),
            "test_error": float(np.sum((w - data["w_star"]) ** 2) / P + data["D"])}


def asymptotic_test_error(nu, r, D, sigma0):
    nu = np.asarray(nu, dtype=float)
    out = np.full(nu.shape, np.inf if D > 0 else 0.0)
    lo, hi = nu < 1, nu > 1
    out[lo] = D / (1 - nu[lo])
    out[hi] = (nu[hi] - 1) / nu[hi] * (sigma0 * sigma0 + r) + D * nu[hi] / (nu[hi] - 1)
    return out if out.ndim else float(out)


def asymptotic_train_error(nu, D):
    return D * np.clip(1 - np.asarray(nu, dtype=float), 0, None)


def clone_separation(nu, P, eta, steps, rng, record_every=1, delta=1e-3):
    gen = np.random.default_rng(rng)
    X = np.asarray(make_teacher_student(P, nu, 1.0, 0.1, 1.0, gen)["X"])
    diff = gen.standard_normal(P)
    A = X.T @ X / P
    d0 = diff @ diff
    t, sep = [0.0], [1.0]
    for s in range(1, steps + 1):
        diff = diff - eta * A @ diff
        if s % record_every == 0:
            t.append(eta * s)
            sep.append(diff @ diff / d0)
    return {"t": np.array(t), "separation": np.array(sep)}


def relaxation_time(nu):
    nu = np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore"):
        out = nu * (1 + np.sqrt(nu)) ** 2 / (1 - nu) ** 2
    return out if out.ndim else float(out)
