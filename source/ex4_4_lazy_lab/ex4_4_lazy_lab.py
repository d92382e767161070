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
# # ex4_4_lazy_lab: The lazy network (lab)
#
# *Notes: Sections 4.1–4.5 and Exercise 4.4; background in Sections 3.4 (the NNGP),
# 4.2 (features = NTK eigenvectors) and Exercise 4.3 (lazy predictions). The lab continues
# in `ex5_3_mean_field_lab` (Exercise 5.3), with the same data and the same student.*
#
# A one-hidden-layer $\tanh$ network with a scalar input is trained by full-batch gradient
# descent in the fan-in normalization, and we test the claims of Section 4 numerically:
# it fits; at initialization it is a draw from a Gaussian process; its NTK freezes as the
# width grows; the residual decays mode by mode in the NTK eigenbasis; and the trained
# network is the frozen-kernel (linearized) prediction.
#
# **The model** (notes, eq. (4.40)). With width $N$, weights $a_i,c_i\sim\mathcal N(0,1)$
# (order one, independent) and the prefactor exponent $\gamma$,
# $$
# f_\theta(x)=N^{-\gamma}\sum_{i=1}^N c_i\tanh(a_ix),\qquad \theta=(a_1,\dots,a_N,c_1,\dots,c_N).
# \tag{4.40}
# $$
# $\gamma=\frac12$ is the fan-in normalization of this section; Exercise 5.3 uses
# $\gamma=1$ (mean field). The **data**: $n=30$ equispaced inputs $x^\mu\in[-2,2]$ with
# labels from the two-neuron teacher $y(x)=2\tanh(3x)-\frac32\tanh(x)$.
#
# **The loss** is the unnormalized squared error of the notes,
# $$
# \mathcal L(\theta)=\frac12\sum_{\mu=1}^n\big(f_\theta(x^\mu)-y^\mu\big)^2=\frac12|\Delta|^2,
# \qquad \Delta^\mu:=f_\theta(x^\mu)-y^\mu ,
# $$
# with **no** factor $1/n$ (a mean over the data would rescale every learning rate by
# $1/n$ and change the trajectories you are asked to reproduce).
#
# **What you implement** (graded by hidden tests) and where it comes from:
#
# | part | function | notes |
# |---|---|---|
# | model | `init_params(N, gamma, rng)`, `forward(params, x, gamma)` | eq. (4.40) |
# | (a) | `train(params, x, y, gamma, eta, steps, record_every)` | Section 4.1, GD on $\mathcal L$ |
# | (b) | `gp_kernel(x1, x2)` | Section 3.4, the $\tanh$ NNGP kernel |
# | (c) | `kernel_drift(N, gamma, seed, ...)`, `drift_exponent(Ns, seeds, ...)` | Section 4.3, eqs. (4.30)–(4.31) |
# | (d) | `residual_modes(ntk0, residuals)` | Sections 4.2 and 4.4, eq. (4.35) |
# | (e) | `frozen_kernel_prediction(params, x_train, y_train, x_test, gamma, eta, t)` | Exercise 4.3, eq. (4.36) |
#
# **Conventions in code.** Parameters are a dict of numpy arrays
# `params = {"a": array (N,), "c": array (N,)}`; inputs and labels are 1-d float arrays.
# The monitored NTK `ntk(params, x, gamma, x2=None)`, the teacher and the data set
# `lab_data()` are provided (shared with Exercise 5.3). Cells marked *check* print
# `ok`/`FAIL` and test properties of your own functions only; the hidden tests compare with
# a reference implementation. Cells reading *Your answer here.* are graded by hand.
#
# **Run time.** By default the notebook uses $4\times10^3$ gradient steps instead of the
# notes' $4\times10^4$ so that it runs in well under a minute; set `FULL_SIZE = True` in the
# cell after the parameters for the full-size runs (several minutes).

# %% tags=["setup"]
import numpy as np
from scipy import integrate
import matplotlib.pyplot as plt

# %% tags=["params"]
def draw_params(rng):
    """This year's lab parameters, drawn within their valid ranges."""
    n0 = int(rng.integers(25, 36))
    ratio = float(rng.uniform(3.0, 3.4))
    return {
        # widths of the kernel-drift sweep (c): four roughly log-spaced widths from ~30 to ~1300
        "Ns": [int(round(n0 * ratio**k)) for k in range(4)],
        # width and seed of the main training run (a), (d), (e)
        "N_main": int(rng.choice([400, 500, 600])),
        "seed": int(rng.integers(0, 1000)),
        # the two inputs at which f_0 is sampled in (b)
        "x_probe": round(float(rng.uniform(0.7, 1.5)), 2),
        "x_pair": round(float(rng.uniform(-1.8, -0.4)), 2),
    }


# %% tags=["provided"]
# pdl-include: _shared/tanh_net.py


# Lab constants (notes, Exercise 4.4).
GAMMA_LAZY = 0.5        # fan-in normalization
ETA_LAB = 0.02          # learning rate
STEPS_FULL = 40_000     # the notes' number of gradient steps
FULL_SIZE = False       # set True for the notes' full-size runs (takes several minutes)
STEPS = STEPS_FULL if FULL_SIZE else 4_000
RECORD_EVERY = 25 if FULL_SIZE else 5   # records of the main run (a), (d), (e)
X_TRAIN, Y_TRAIN = lab_data()

# %% tags=["reference"]
# Reference-only helpers (not shown to students).
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(256)


def _relative_drift(record):
    """||Theta_end - Theta_0||_F / ||Theta_0||_F from a record of `train` or `mf_train`."""
    K = np.asarray(record["ntk"])
    return float(np.linalg.norm(K[-1] - K[0]) / np.linalg.norm(K[0]))


# %% [markdown]
# ## The model, its gradient and its NTK
#
# Differentiating (4.40),
# $$
# \frac{\partial f(x)}{\partial c_i}=N^{-\gamma}\tanh(a_ix),\qquad
# \frac{\partial f(x)}{\partial a_i}=N^{-\gamma}c_i\,x\,\mathrm{sech}^2(a_ix),
# $$
# so the gradient of the loss is the Jacobian transpose acting on the residual,
# $$
# \frac{\partial\mathcal L}{\partial c_i}=N^{-\gamma}\sum_\mu\Delta^\mu\tanh(a_ix^\mu),\qquad
# \frac{\partial\mathcal L}{\partial a_i}=N^{-\gamma}c_i\sum_\mu\Delta^\mu x^\mu\,\mathrm{sech}^2(a_ix^\mu),
# $$
# and full-batch gradient descent with learning rate $\eta$ is
# $$
# c_i\leftarrow c_i-\eta\,\frac{\partial\mathcal L}{\partial c_i},\qquad
# a_i\leftarrow a_i-\eta\,\frac{\partial\mathcal L}{\partial a_i},
# $$
# **both evaluated at the current parameters** (a simultaneous update: updating $a_i$ with
# the already-updated $c_i$ is a different algorithm). The NTK is
# $\Theta^{\mu\nu}=\nabla_\theta f(x^\mu)\cdot\nabla_\theta f(x^\nu)$; summing the products
# of the two derivatives above over the $2N$ parameters gives the monitored kernel
# $$
# \Theta^{\mu\nu}=N^{-2\gamma}\sum_{i=1}^N\Big[\tanh(a_ix^\mu)\tanh(a_ix^\nu)
# +c_i^2\,\mathrm{sech}^2(a_ix^\mu)\,\mathrm{sech}^2(a_ix^\nu)\,x^\mu x^\nu\Big], \tag{4.41}
# $$
# an average of $N$ order-one terms when $\gamma=\frac12$ (Section 4.3). It is provided as
# `ntk(params, x, gamma)`. Under gradient flow the function values obey
# $\dot f^\mu=-\eta\,\Theta^{\mu\nu}\Delta^\nu$ (Section 4.1).
#
# **Tasks.** Implement `init_params` (standard normal $a_i$ and $c_i$: in this convention
# the weights are order one for every $\gamma$ and the width dependence sits in the
# prefactor, so `gamma` does not change the draw) and `forward`.

# %% tags=["graded"]
def init_params(N, gamma, rng):
    """Draw the initial weights of the student (notes, eq. (4.40) and Section 3.2).

    All weights are O(1): a_i ~ N(0, 1) and c_i ~ N(0, 1), independent. The width
    dependence of the model is in the explicit prefactor N^(-gamma) of `forward`, so the
    distribution of the weights does not depend on gamma (the argument is accepted for a
    uniform interface).

    Args:
        N: int >= 1, the width.
        gamma: float, the prefactor exponent (unused by the draw).
        rng: an int seed or a numpy Generator; the same int must give the same weights.
    Returns:
        dict {"a": float array (N,), "c": float array (N,)}.
    """
    rng = np.random.default_rng(rng)
    a = rng.standard_normal(N)
    c = rng.standard_normal(N)
    return {"a": a, "c": c}


# %% tags=["graded"]
def forward(params, x, gamma):
    """The network function f(x) = N^(-gamma) sum_i c_i tanh(a_i x)  (notes, eq. (4.40)).

    Args:
        params: dict {"a": array (N,), "c": array (N,)}.
        x: float array (m,) of scalar inputs.
        gamma: float, the prefactor exponent (1/2: fan-in / NTK; 1: mean field).
    Returns:
        float array (m,), the outputs f(x^mu).
    """
    a = np.asarray(params["a"], dtype=float)
    c = np.asarray(params["c"], dtype=float)
    x = np.asarray(x, dtype=float)
    return a.size ** (-gamma) * (np.tanh(np.multiply.outer(x, a)) @ c)


# %% tags=["check"]
@check
def check_init_params():
    "init_params: shapes, reproducible seeds, standard normal weights"
    p = init_params(20_000, 0.5, 1)
    assert set(p) >= {"a", "c"} and np.shape(p["a"]) == (20_000,) and np.shape(p["c"]) == (20_000,)
    assert np.array_equal(init_params(7, 0.5, 3)["a"], init_params(7, 0.5, 3)["a"]), "same seed, same weights"
    assert not np.array_equal(init_params(7, 0.5, 3)["c"], init_params(7, 0.5, 4)["c"]), "other seed, other weights"
    for key in "ac":
        assert abs(np.mean(p[key])) < 0.04 and abs(np.var(p[key]) - 1) < 0.06, f"{key} should be N(0, 1)"
    p = init_params(20_000, 1.0, np.random.default_rng(2))
    for key in "ac":
        assert abs(np.var(p[key]) - 1) < 0.06, f"{key} should be N(0, 1) at gamma = 1 too (the width sits in forward)"


@check
def check_forward():
    "forward: one neuron by hand, and the N^(-gamma) prefactor"
    p = {"a": np.array([2.0]), "c": np.array([-3.0])}
    assert np.allclose(forward(p, np.array([0.0, 0.5]), 0.5), [0.0, -3 * np.tanh(1.0)])
    p4 = {"a": np.ones(4), "c": np.ones(4)}
    assert np.allclose(forward(p4, np.array([1.0]), 1.0), np.tanh(1.0)), "N^-1 sum of 4 equal terms"
    assert np.allclose(forward(p4, np.array([1.0]), 0.5), 2 * np.tanh(1.0)), "N^-1/2 sum of 4 equal terms"


# %% [markdown]
# ## (a) It fits
#
# **Task.** Implement `train`: full-batch gradient descent on $\mathcal L=\frac12|\Delta|^2$
# as derived above, recording at the steps $k=0,r,2r,\dots$ (with $r$ = `record_every`) and
# always at the final step $k$ = `steps`, the loss, the residual, the NTK (4.41) (use the
# provided `ntk`) and the parameters. Vectorize over neurons and data points: one step
# should be a handful of matrix operations on $N\times n$ arrays.

# %% tags=["graded"]
def train(params, x, y, gamma, eta, steps, record_every):
    """Full-batch gradient descent on L = 1/2 sum_mu (f(x^mu) - y^mu)^2 (notes, Section 4.1).

    The update is theta <- theta - eta * grad L(theta), for a and c simultaneously (both
    gradients at the current parameters), with
        dL/dc_i = N^(-gamma) sum_mu Delta^mu tanh(a_i x^mu),
        dL/da_i = N^(-gamma) c_i sum_mu Delta^mu x^mu sech^2(a_i x^mu),
    Delta^mu = f(x^mu) - y^mu. No 1/n in the loss. The input dict is not modified.

    Args:
        params: dict {"a": array (N,), "c": array (N,)}, the initial weights.
        x, y: float arrays (n,), training inputs and labels.
        gamma: float, the prefactor exponent.
        eta: float, the learning rate.
        steps: int >= 0, the number of gradient steps.
        record_every: int >= 1. Records are taken at steps 0, r, 2r, ... <= steps, and at
            the final step `steps` (once, if it is also a multiple of r).
    Returns:
        dict of numpy arrays, R = number of records:
          "step":     int array (R,), the step k of each record (first 0, last `steps`);
          "loss":     (R,), L at that step;
          "residual": (R, n), Delta = f(x) - y at that step;
          "ntk":      (R, n, n), the NTK (4.41) at that step, ntk(params_k, x, gamma);
          "a", "c":   (R, N), the weights at that step.
    """
    a = np.array(params["a"], dtype=float)
    c = np.array(params["c"], dtype=float)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    scale = a.size ** (-gamma)
    record_at = set(range(0, steps + 1, record_every)) | {steps}
    out = {"step": [], "loss": [], "residual": [], "ntk": [], "a": [], "c": []}
    for k in range(steps + 1):
        T = np.tanh(np.outer(a, x))                  # (N, n): tanh(a_i x^mu)
        delta = scale * (c @ T) - y                  # residual (n,)
        if k in record_at:
            out["step"].append(k)
            out["loss"].append(0.5 * delta @ delta)
            out["residual"].append(delta)
            out["ntk"].append(ntk({"a": a, "c": c}, x, gamma))
            out["a"].append(a.copy())
            out["c"].append(c.copy())
        if k == steps:
            break
        grad_c = scale * (T @ delta)
        grad_a = scale * c * ((1.0 - T**2) @ (delta * x))
        a, c = a - eta * grad_a, c - eta * grad_c
    return {key: np.array(val) for key, val in out.items()}


# %% tags=["check"]
@check
def check_train_records():
    "train: record steps, shapes, and loss = |residual|^2 / 2"
    p = init_params(6, 0.5, 0)
    rec = train(p, X_TRAIN, Y_TRAIN, 0.5, ETA_LAB, 25, 10)
    assert list(rec["step"]) == [0, 10, 20, 25], "records at 0, r, 2r, ... and at the last step"
    assert np.shape(rec["a"]) == (4, 6) and np.shape(rec["ntk"]) == (4, 30, 30)
    assert np.allclose(rec["loss"], 0.5 * np.sum(np.asarray(rec["residual"]) ** 2, axis=1))
    assert np.allclose(rec["a"][0], p["a"]) and np.allclose(rec["residual"][0], forward(p, X_TRAIN, 0.5) - Y_TRAIN)
    assert list(train(p, X_TRAIN, Y_TRAIN, 0.5, ETA_LAB, 20, 10)["step"]) == [0, 10, 20], \
        "steps a multiple of record_every: the last step is recorded once"


@check
def check_train_is_gradient_descent():
    "train: one step equals theta - eta grad L, with the gradient by central finite differences"
    p = init_params(5, 0.5, 2)
    theta = np.concatenate([p["a"], p["c"]])

    def loss(th):
        r = forward({"a": th[:5], "c": th[5:]}, X_TRAIN, 0.5) - Y_TRAIN
        return 0.5 * r @ r

    h = 1e-6
    grad = np.array([(loss(theta + h * e) - loss(theta - h * e)) / (2 * h) for e in np.eye(10)])
    rec = train(p, X_TRAIN, Y_TRAIN, 0.5, 0.01, 1, 1)
    assert np.allclose(np.concatenate([rec["a"][1], rec["c"][1]]), theta - 0.01 * grad, atol=1e-8), \
        "the update is not eta times the gradient of 1/2 sum (f - y)^2 (no 1/n; simultaneous update)"
    x, y = np.array([-1.0, 0.5, 2.0]), np.array([0.3, -0.2, 1.0])       # mean-field prefactor, other data

    def loss_mf(th):
        r = forward({"a": th[:5], "c": th[5:]}, x, 1.0) - y
        return 0.5 * r @ r

    grad = np.array([(loss_mf(theta + h * e) - loss_mf(theta - h * e)) / (2 * h) for e in np.eye(10)])
    rec = train(p, x, y, 1.0, 0.3, 1, 1)
    assert np.allclose(np.concatenate([rec["a"][1], rec["c"][1]]), theta - 0.3 * grad, atol=1e-8), \
        "at gamma = 1 the prefactor N^-1 enters the gradient too"


# %% tags=["solution"]
# Independent checks: the analytic update of `train` against PyTorch
# autograd applied to the same loss (float64), and the provided NTK (4.41) against
# $JJ^T$ with the Jacobian $J$ from autograd.
import torch

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)


def torch_loss_and_jacobian(params, x, y, gamma):
    a = torch.tensor(params["a"], requires_grad=True)
    c = torch.tensor(params["c"], requires_grad=True)
    xt = torch.tensor(x)
    f = a.numel() ** (-gamma) * torch.tanh(torch.outer(xt, a)) @ c
    loss = 0.5 * torch.sum((f - torch.tensor(y)) ** 2)
    ga, gc = torch.autograd.grad(loss, (a, c))
    jac = torch.autograd.functional.jacobian(
        lambda th: a.numel() ** (-gamma) * torch.tanh(torch.outer(xt, th[: a.numel()])) @ th[a.numel():],
        torch.cat([a, c]).detach())
    return ga.numpy(), gc.numpy(), jac.numpy()


worst_step, worst_ntk = 0.0, 0.0
for N_chk, gamma_chk, eta_chk in [(7, 0.5, 0.02), (40, 0.5, 0.05), (25, 1.0, 0.3), (60, 0.75, 0.1)]:
    p_chk = init_params(N_chk, gamma_chk, 100 + N_chk)
    ga, gc, jac = torch_loss_and_jacobian(p_chk, X_TRAIN, Y_TRAIN, gamma_chk)
    rec = train(p_chk, X_TRAIN, Y_TRAIN, gamma_chk, eta_chk, 1, 1)
    worst_step = max(worst_step, np.max(np.abs(rec["a"][1] - (p_chk["a"] - eta_chk * ga))),
                     np.max(np.abs(rec["c"][1] - (p_chk["c"] - eta_chk * gc))))
    worst_ntk = max(worst_ntk, np.max(np.abs(ntk(p_chk, X_TRAIN, gamma_chk) - jac @ jac.T)))
assert worst_step < 1e-12 and worst_ntk < 1e-12
# differences of two routes are round-off: printed as the bounds just checked
print("one GD step of train vs autograd: max |difference| < 1e-12")
print("NTK (4.41) vs autograd J J^T:      max |difference| < 1e-12")

# %% [markdown]
# The main run: width $N$ = `PARAMS["N_main"]`, $\gamma=\frac12$, $\eta=0.02$. The loss
# falls by orders of magnitude; what is left after $\eta t$ = 80 (or 800 at full size)
# sits in NTK eigenmodes with $\eta s_k^2t\lesssim1$, which part (d) makes precise.

# %% tags=["figure"]
N_MAIN = PARAMS["N_main"]
params0 = init_params(N_MAIN, GAMMA_LAZY, PARAMS["seed"])
run = train(params0, X_TRAIN, Y_TRAIN, GAMMA_LAZY, ETA_LAB, STEPS, RECORD_EVERY)
x_fine = np.linspace(-2.5, 2.5, 300)
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
axes[0].loglog(run["step"][1:], run["loss"][1:])
axes[0].set(xlabel="step $k$", ylabel=r"$\mathcal{L}$", title=f"(a) training loss, $N={N_MAIN}$, $\\gamma=1/2$")
final = {"a": run["a"][-1], "c": run["c"][-1]}
axes[1].plot(x_fine, teacher(x_fine), "k--", label="teacher")
axes[1].plot(x_fine, forward(params0, x_fine, GAMMA_LAZY), color="0.6", label="$f_0$ (initialization)")
axes[1].plot(x_fine, forward(final, x_fine, GAMMA_LAZY), "C0", label=f"trained, step {STEPS}")
axes[1].plot(X_TRAIN, Y_TRAIN, "ko", ms=4)
axes[1].set(xlabel="$x$", ylabel="$f(x)$", title="(a) the fit")
axes[1].legend(fontsize=8)
plt.tight_layout()
plt.show()
print(f"loss: {run['loss'][0]:.3f} at step 0 -> {run['loss'][-1]:.2e} at step {STEPS}")

# %% [markdown]
# ## (b) Initialization: a draw from a Gaussian process
#
# At fixed $x$ the summands $c_i\tanh(a_ix)$ are i.i.d. with mean $0$ (since
# $\mathbb E c_i=0$), so for **every** $N$
# $$
# \mathbb E f_0(x)=0,\qquad
# \mathrm{Cov}\big(f_0(x),f_0(x')\big)=N^{1-2\gamma}\,K(x,x'),\qquad
# K(x,x'):=\mathbb E_{a\sim\mathcal N(0,1)}\big[\tanh(ax)\tanh(ax')\big],
# $$
# using $\mathbb E c^2=1$ and the independence of $c$ and $a$. At $\gamma=\frac12$ the
# covariance is exactly $K$, and by the central limit theorem $f_0$ becomes Gaussian as
# $N\to\infty$: the NNGP of Section 3.4 with the $\tanh$ kernel $K$ (the notes'
# $\bar K^{(2)}$ with $\sigma_w=1$, first-layer kernel $xx'$). Its excess kurtosis is
# $\big(3\,\mathbb E\tanh^4(ax)/K(x,x)^2-3\big)/N$, a $1/N$ correction.
#
# $K$ has no closed form. It is a one-dimensional Gaussian integral, and since the
# integrand is even in $a$,
# $$
# K(x,x')=2\int_0^\infty\frac{e^{-a^2/2}}{\sqrt{2\pi}}\tanh(ax)\tanh(ax')\,da .
# $$
# Careful: for large $|x|$ the factor $\tanh(ax)$ is almost a step function of $a$, and
# Gauss–Hermite quadrature converges slowly (at $x=x'=2$, 100 Hermite nodes are off by
# about $5\times10^{-6}$). Adaptive quadrature (`scipy.integrate.quad`) or Gauss–Legendre on
# a truncated interval (the Gaussian weight is below $10^{-31}$ beyond $|a|=12$) is accurate to
# machine precision. If you use Gauss–Hermite nodes from `numpy.polynomial.hermite`, remember
# they integrate against $e^{-t^2}$, not $e^{-t^2/2}$.
#
# **Task.** Implement `gp_kernel(x1, x2)`, elementwise with numpy broadcasting.

# %% tags=["graded"]
def gp_kernel(x1, x2):
    """The tanh NNGP kernel K(x1, x2) = E_{a ~ N(0,1)}[tanh(a x1) tanh(a x2)] (notes, Section 3.4).

    At gamma = 1/2 this is exactly the covariance of f_0(x1) and f_0(x2) over
    initializations, for every width N. Computed by quadrature (not by sampling).

    Args:
        x1, x2: floats or float arrays, broadcast against each other.
    Returns:
        float or array of the broadcast shape, accurate to about 1e-9 for |x| <= 5.
        K(x, 0) = 0, K(x1, x2) = K(x2, x1) = K(-x1, -x2).
    """
    x1, x2 = np.broadcast_arrays(np.asarray(x1, dtype=float), np.asarray(x2, dtype=float))
    # Gauss-Legendre on [0, 12] for 2 * int_0^inf phi(a) tanh(a x1) tanh(a x2) da
    a = 6.0 * (_GL_NODES + 1.0)
    w = 6.0 * _GL_WEIGHTS * np.exp(-a**2 / 2) / np.sqrt(2 * np.pi)
    vals = 2.0 * np.tensordot(np.tanh(np.multiply.outer(x1, a)) * np.tanh(np.multiply.outer(x2, a)), w, axes=1)
    return vals if vals.ndim else float(vals)


# %% tags=["check"]
@check
def check_gp_kernel():
    "gp_kernel: K(x,0)=0, symmetries, K(x,x) ~ x^2 for small x and -> 1 for large x, broadcasting"
    assert np.isclose(gp_kernel(1.3, 0.0), 0.0, atol=1e-14)
    assert np.isclose(gp_kernel(0.4, -1.7), gp_kernel(-1.7, 0.4)) and np.isclose(gp_kernel(0.4, -1.7), -gp_kernel(0.4, 1.7))
    assert np.isclose(gp_kernel(40.0, 40.0), 1.0, atol=0.03), "tanh(40 a)^2 ~ 1 except near a = 0"
    small = 0.01
    assert np.isclose(gp_kernel(small, small), small**2, rtol=1e-3), "tanh(ax) ~ ax for small x, E a^2 = 1"
    grid = np.array([0.5, 1.0, 2.0])
    assert np.shape(gp_kernel(grid[:, None], grid[None, :])) == (3, 3), "broadcasting"
    from scipy import integrate
    quad = 2 * integrate.quad(lambda a: np.exp(-a * a / 2) / np.sqrt(2 * np.pi) * np.tanh(5 * a) * np.tanh(4.5 * a),
                              0, np.inf, epsabs=1e-13, epsrel=1e-12, limit=200)[0]
    assert np.isclose(gp_kernel(5.0, 4.5), quad, rtol=0, atol=1e-9), \
        "accurate to about 1e-9 up to |x| = 5, where tanh(a x) is almost a step (adaptive quadrature or Gauss-Legendre)"


# %% [markdown]
# The figure samples $f_0$ at `PARAMS["x_probe"]` over 200 seeds ($N=1000$) and compares
# the histogram with $\mathcal N\big(0,K(x,x)\big)$; the right panel does the same for the
# pair of inputs (`x_probe`, `x_pair`), whose covariance should be $K(x,x')$.

# %% tags=["figure"]
x_b, x_b2 = PARAMS["x_probe"], PARAMS["x_pair"]
samples = np.array([forward(init_params(1000, GAMMA_LAZY, s), np.array([x_b, x_b2]), GAMMA_LAZY)
                    for s in range(200)])
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
u = np.linspace(-3, 3, 200)
axes[0].hist(samples[:, 0], bins=20, density=True, alpha=0.6, label="200 seeds, $N=1000$")
axes[0].plot(u, np.exp(-u**2 / (2 * gp_kernel(x_b, x_b))) / np.sqrt(2 * np.pi * gp_kernel(x_b, x_b)), "k",
             label=r"$\mathcal{N}(0, K(x,x))$")
axes[0].set(xlabel=f"$f_0(x={x_b})$", title="(b) the output at initialization")
axes[0].legend(fontsize=8)
axes[1].scatter(samples[:, 0], samples[:, 1], s=8)
cov_emp = np.cov(samples.T)
cov_gp = gp_kernel(np.array([[x_b, x_b], [x_b2, x_b2]]), np.array([[x_b, x_b2], [x_b, x_b2]]))
axes[1].set(xlabel=f"$f_0({x_b})$", ylabel=f"$f_0({x_b2})$",
            title=f"sample cov {cov_emp[0, 1]:+.3f}, GP kernel {cov_gp[0, 1]:+.3f}")
plt.tight_layout()
plt.show()
print("sample covariance matrix:\n", np.round(cov_emp, 3), "\nGP kernel K:\n", np.round(cov_gp, 3))

# %% tags=["solution"]
# Independent checks: `gp_kernel` against adaptive quadrature
# (`scipy.integrate.quad` over the whole line); the variance and covariance of $f_0$ from
# 4000 sampled networks against `gp_kernel`, within standard errors; the sampled excess
# kurtosis against the $1/N$ prediction at a small width ($N=5$) where it is visible.
def K_quad(x1, x2):
    f = lambda a: np.exp(-a * a / 2) / np.sqrt(2 * np.pi) * np.tanh(a * x1) * np.tanh(a * x2)
    return integrate.quad(f, -np.inf, np.inf, epsabs=1e-13, epsrel=1e-12, limit=200)[0]


pairs = [(0.3, 0.3), (1.0, 1.0), (2.0, 2.0), (x_b, x_b2), (-2.5, 0.7), (4.0, 4.5)]
dev = max(abs(gp_kernel(p, q) - K_quad(p, q)) for p, q in pairs)
assert dev < 1e-12
print("gp_kernel vs scipy.integrate.quad: max |difference| < 1e-12")   # round-off: a bound

S = 4000
rng_b = np.random.default_rng(11)
f_s = np.array([forward(init_params(300, GAMMA_LAZY, rng_b), np.array([x_b, x_b2]), GAMMA_LAZY) for _ in range(S)])
var_emp = f_s.var(axis=0, ddof=1)
cov_emp_b = np.cov(f_s.T)[0, 1]
for j, xv in enumerate([x_b, x_b2]):
    K = gp_kernel(xv, xv)
    se = K * np.sqrt(2 / (S - 1))                     # standard error of a Gaussian sample variance
    print(f"Var f_0({xv:+.2f}) over {S} networks: {var_emp[j]:.4f}, K(x,x) = {K:.4f}, z = {(var_emp[j] - K) / se:+.2f}")
    assert abs(var_emp[j] - K) < 4 * se
K12, K11, K22 = gp_kernel(x_b, x_b2), gp_kernel(x_b, x_b), gp_kernel(x_b2, x_b2)
se12 = np.sqrt((K11 * K22 + K12**2) / (S - 1))
print(f"Cov over {S} networks: {cov_emp_b:+.4f}, K(x,x') = {K12:+.4f}, z = {(cov_emp_b - K12) / se12:+.2f}")
assert abs(cov_emp_b - K12) < 4 * se12

# 1/N non-Gaussianity at N = 5: excess kurtosis (3 E tanh^4 / K^2 - 3) / N
E4 = 2 * integrate.quad(lambda a: np.exp(-a * a / 2) / np.sqrt(2 * np.pi) * np.tanh(a * x_b) ** 4, 0, np.inf)[0]
kurt_pred = (3 * E4 / gp_kernel(x_b, x_b) ** 2 - 3) / 5
a5, c5 = rng_b.standard_normal((2, 40_000, 5))          # vectorized sampling, independent of init_params
f5 = np.sum(c5 * np.tanh(a5 * x_b), axis=1) / np.sqrt(5)
kurt_emp = np.mean(f5**4) / np.mean(f5**2) ** 2 - 3
print(f"excess kurtosis of f_0 at N=5: sampled {kurt_emp:.3f}, predicted {kurt_pred:.3f}")
assert abs(kurt_emp - kurt_pred) < 0.15

# %% [markdown]
# ## (c) The kernel freezes
#
# Section 4.3: with $\gamma=\frac12$ every weight moves by $O(N^{-1/2})$, the total
# displacement $|\theta_t-\theta_0|$ is $O(1)$ (4.30), so the relative displacement
# $|\theta_t-\theta_0|/|\theta_0|$ is $O(N^{-1/2})$ (since $|\theta_0|\approx\sqrt{2N}$),
# and the Hessian bound gives a relative kernel drift $O(N^{-1/2})$ (4.31). Measured, the
# drift decays faster, typically like $1/N$: to first order in the displacements the
# kernel change $\frac1N\sum_i\nabla k(\theta_i)\cdot\delta\theta_i$ is a sum of terms that
# are *odd* in $c_i$ (the per-neuron kernel $k$ is even in $c_i$, the per-neuron output and
# hence $\delta\theta_i$ odd), which average to zero over the initial weights; what survives
# is their $O(N^{-1/2})$ fluctuation and the second-order term, each $O(N^{-1})$.
#
# We measure, in the Frobenius norm,
# $$
# \mathrm{drift}(N)=\frac{\|\Theta_{\rm end}-\Theta_0\|_F}{\|\Theta_0\|_F},
# $$
# after training the lab network (initial weights `init_params(N, gamma, seed)`, lab data,
# $\eta=0.02$, `steps` steps), and fit $\log\overline{\mathrm{drift}}$ against $\log N$ by
# least squares, where $\overline{\mathrm{drift}}$ is the mean over seeds. The notes expect
# a slope between $-\frac12$ (the bound) and $-1$ (typical). Over a single decade of widths
# starting at $N\approx n$ the curve is not a clean power law, though: fitting the slow NTK
# modes (small $s_k^2$, learned late) requires large parameter displacements,
# $|\delta\theta|^2\sim\sum_k\hat\Delta_k^2/s_k^2$ over the learned modes, still $O(1)$ in $N$
# but with a large constant that grows with the training time; the asymptotic regime needs $N$
# large compared with it. Expect the drift to fall slowly at the smaller widths and like $1/N$
# only between the largest ones, and a fitted slope near $-\frac12$ at the default
# $4\times10^3$ steps.
#
# **Tasks.** Implement `kernel_drift` (use your `init_params` and `train`; record only the
# first and last steps) and `drift_exponent`.

# %% tags=["graded"]
def kernel_drift(N, gamma, seed, eta=0.02, steps=40_000):
    """Relative NTK drift ||Theta_end - Theta_0||_F / ||Theta_0||_F of the lab network (Ex 4.4(c)).

    Initial weights init_params(N, gamma, seed); training by `train` on the lab data
    (lab_data(): 30 points on [-2, 2], the tanh teacher) with learning rate eta (used as
    given, not rescaled with N) for `steps` steps; Theta is the NTK (4.41) at exponent gamma.

    Args:
        N: int, the width.  gamma: float.  seed: int, the seed passed to init_params.
        eta: float, learning rate (default: the lab's 0.02).
        steps: int, number of GD steps (default: the notes' 4e4).
    Returns:
        float >= 0 (Frobenius norms).
    """
    x, y = lab_data()
    record = train(init_params(N, gamma, seed), x, y, gamma, eta, steps, max(steps, 1))
    K0, K1 = record["ntk"][0], record["ntk"][-1]
    return float(np.linalg.norm(K1 - K0) / np.linalg.norm(K0))


# %% tags=["graded"]
def drift_exponent(Ns, seeds, gamma=0.5, eta=0.02, steps=40_000):
    """Log-log slope of the kernel drift against the width (Ex 4.4(c)).

    For each N in Ns, average kernel_drift(N, gamma, s, eta, steps) over s in seeds
    (arithmetic mean); then fit log(mean drift) = slope * log(N) + const by least squares.

    Args:
        Ns: list of ints (at least two distinct widths).
        seeds: list of ints.
        gamma, eta, steps: passed on to kernel_drift.
    Returns:
        float, the fitted slope (negative at gamma = 1/2: the drift falls with the width).
    """
    Ns = np.asarray(Ns, dtype=float)
    mean_drift = np.array([np.mean([kernel_drift(int(N), gamma, int(s), eta, steps) for s in seeds]) for N in Ns])
    slope, _ = np.polyfit(np.log(Ns), np.log(mean_drift), 1)
    return float(slope)


# %% tags=["check"]
@check
def check_kernel_drift_consistent():
    "kernel_drift agrees with train, is 0 for zero steps, and drift_exponent fits a log-log slope"
    x, y = lab_data()
    rec = train(init_params(9, 0.5, 5), x, y, 0.5, 0.02, 50, 50)
    want = np.linalg.norm(rec["ntk"][-1] - rec["ntk"][0]) / np.linalg.norm(rec["ntk"][0])
    assert np.isclose(kernel_drift(9, 0.5, 5, steps=50), want), "kernel_drift should train init_params(N, gamma, seed)"
    assert kernel_drift(9, 0.5, 5, steps=0) == 0.0
    d = [np.mean([kernel_drift(N, 0.5, s, steps=40) for s in (1, 2)]) for N in (8, 16)]
    assert np.isclose(drift_exponent([8, 16], [1, 2], steps=40), np.log(d[1] / d[0]) / np.log(2)), \
        "two widths: the slope is log(d2/d1)/log(N2/N1)"
    rec = train(init_params(9, 1.0, 5), x, y, 1.0, 0.05, 30, 30)
    want = np.linalg.norm(rec["ntk"][-1] - rec["ntk"][0]) / np.linalg.norm(rec["ntk"][0])
    assert np.isclose(kernel_drift(9, 1.0, 5, eta=0.05, steps=30), want), "gamma and eta are passed on to train"
    Ns = [6, 12, 24]
    d = [kernel_drift(N, 1.0, 3, eta=0.05, steps=20) for N in Ns]
    assert np.isclose(drift_exponent(Ns, [3], gamma=1.0, eta=0.05, steps=20), np.polyfit(np.log(Ns), np.log(d), 1)[0]), \
        "three widths: the least-squares slope of log drift against log N (gamma, eta, steps passed on)"


# %% [markdown]
# The figure trains the lab network for the widths `PARAMS["Ns"]` (three seeds each) and
# shows the kernel drift (left) and the relative parameter displacement
# $|\theta_{\rm end}-\theta_0|/|\theta_0|$ (right), with reference slopes. (This cell calls
# `train` directly so that both panels come from one run per width and seed; the check
# above ties `kernel_drift` and `drift_exponent` to it.)

# %% tags=["figure"]
Ns_c, seeds_c = PARAMS["Ns"], [0, 1, 2]
drifts = np.zeros((len(Ns_c), len(seeds_c)))
displacements = np.zeros_like(drifts)
for i, N in enumerate(Ns_c):
    for j, s in enumerate(seeds_c):
        rec = train(init_params(N, GAMMA_LAZY, s), X_TRAIN, Y_TRAIN, GAMMA_LAZY, ETA_LAB, STEPS, STEPS)
        drifts[i, j] = np.linalg.norm(rec["ntk"][-1] - rec["ntk"][0]) / np.linalg.norm(rec["ntk"][0])
        theta = np.concatenate([rec["a"], rec["c"]], axis=1)
        displacements[i, j] = np.linalg.norm(theta[-1] - theta[0]) / np.linalg.norm(theta[0])
slope_drift = np.polyfit(np.log(Ns_c), np.log(drifts.mean(axis=1)), 1)[0]
slope_disp = np.polyfit(np.log(Ns_c), np.log(displacements.mean(axis=1)), 1)[0]
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
Ns_arr = np.array(Ns_c, dtype=float)
for ax, data, slope, label in [(axes[0], drifts, slope_drift, r"$\|\Theta_{\rm end}-\Theta_0\|_F/\|\Theta_0\|_F$"),
                               (axes[1], displacements, slope_disp, r"$|\theta_{\rm end}-\theta_0|/|\theta_0|$")]:
    ax.loglog(np.repeat(Ns_arr, len(seeds_c)), data.ravel(), "o", color="0.7", ms=4)
    ax.loglog(Ns_arr, data.mean(axis=1), "o-", label=f"mean over seeds, fitted slope {slope:.2f}")
    for p, ls in [(-0.5, ":"), (-1.0, "--")]:
        ax.loglog(Ns_arr, data.mean(axis=1)[0] * (Ns_arr / Ns_arr[0]) ** p, "k" + ls, lw=1, label=f"slope {p}")
    ax.set(xlabel="width $N$", ylabel=label)
    ax.legend(fontsize=8)
axes[0].set_title(f"(c) the kernel freezes ($\\eta t={ETA_LAB * STEPS:g}$)")
axes[1].set_title("(c) each weight barely moves")
plt.tight_layout()
plt.show()
print(f"fitted drift exponent {slope_drift:.2f}, displacement exponent {slope_disp:.2f}")

# %% [markdown]
# **(c), written.** Report your fitted exponents. At the default $4\times10^3$ steps the
# fitted drift slope comes out near $-\frac12$, at the shallow end of the notes' range or
# beyond it, and the four widths do not lie on one line: the drift falls slowly between the
# smaller widths (a local slope shallower than $-\frac12$) and roughly like $1/N$ between the
# two largest (a local slope near $-1$), so the **largest** width lies well below the line
# through the others. Why is the largest width the one off the line: the scatter over seeds,
# the finite number of steps, or the regime the widest network is in? (The grey per-seed
# points, and the figure rerun with fewer steps, say `STEPS = 2_000`, tell them apart.) Why
# does a slope shallower than $-\frac12$ over these widths not contradict the bound (4.31),
# and what does the slope of the relative displacement say about (4.30)?

# %% [markdown] tags=["answer"] points=3
# *Model answer.* Over the lab's widths ($N\approx30$–$1300$) the fitted drift slope comes
# out near $-\frac12$ at the default $4\times10^3$ steps (between about $-0.45$ and $-0.6$,
# depending on the year's widths and the seeds), and the relative-displacement slope close to
# $-\frac12$. The displacement confirms (4.30): $|\theta_{\rm end}-\theta_0|=O(1)$ while
# $|\theta_0|\approx\sqrt{2N}$, so every weight moves $O(N^{-1/2})$. The kernel drift estimate
# (4.31), $\|\dot\Theta\|\lesssim\eta\|\nabla^2f\||\Delta||\nabla f|=O(N^{-1/2})$, is an
# asymptotic bound with a constant: a slope shallower than $-\frac12$ over a decade of widths
# that are not yet asymptotic does not contradict it. The bound assumes the $N$ per-neuron
# kernel changes add up coherently. They do not: the per-neuron kernel is even in $c_i$ and
# the per-neuron displacement odd, so the first-order change averages to zero over the initial
# weights; its fluctuation ($\sqrt N$ random terms of size $N^{-1}\cdot N^{-1/2}$) and the
# second-order term ($N$ coherent terms of size $N^{-1}\cdot N^{-1}$) are both $O(1/N)$ — the
# "typical" slope $-1$. That is the regime of the largest width: between the two largest widths
# the local slope is close to $-1$. The smaller widths are not asymptotic: at $N\approx30\approx n$
# the network is not wide compared with the data (Section 4.5, $n/N$ not small), the kernel
# changes by tens of percent, and in $|\delta\theta|=O(1)$ the constant is large, because the
# slow modes (small $s_k^2$) need large displacements, $|\delta\theta|^2\approx\sum_k\hat\Delta_k^2/s_k^2$
# over the modes learned by time $t$; the $1/N$ regime needs $N$ large compared with it, and
# in this range only the largest width gets there, so the drift falls slowly between the
# smaller widths and the largest lies below their line (by a factor 2 or more). It is not the
# scatter over seeds: every seed's drift at the largest width is below every seed's drift at
# the next width. Nor is it the number of steps: at half the steps the local slope between
# the two largest widths is also close to $-1$; training longer lets slower modes in, which
# pushes the $1/N$ regime to larger $N$, so the four-width fit is steeper at half the steps.
#
# *Rubric (3 points):* exponents reported and consistent with the figure (1); displacement
# $\sim N^{-1/2}$ per weight tied to (4.30) (1); bound vs typical (cancellation, or "the bound
# is asymptotic and not tight"), the largest width as the one in the $1/N$ regime (not seed
# scatter, not the step count) and the $n/N$ caveat at small width (1).

# %% tags=["claim"]
# claim: (c) the drift fit near -1/2 and the largest width below the line of the others, not from
#   seed scatter or the step count; the displacement slope near -1/2
# The figure's runs (this year's widths, seeds 0-2, the default steps), recorded at half the steps too.
Ns, seeds, steps = np.array(ref.PARAMS["Ns"], dtype=float), [0, 1, 2], ref.STEPS  # the figure's runs
drift = np.zeros((2, len(Ns), len(seeds)))  # at half the steps, at all of them
disp = np.zeros((len(Ns), len(seeds)))
for i, N in enumerate(Ns):
    for j, s in enumerate(seeds):
        rec = ref.train(ref.init_params(int(N), ref.GAMMA_LAZY, s), ref.X_TRAIN, ref.Y_TRAIN, ref.GAMMA_LAZY,
                        ref.ETA_LAB, steps, steps // 2)
        K = rec["ntk"]
        drift[:, i, j] = [np.linalg.norm(K[k] - K[0]) / np.linalg.norm(K[0]) for k in (1, 2)]
        theta = np.concatenate([rec["a"], rec["c"]], axis=1)
        disp[i, j] = np.linalg.norm(theta[-1] - theta[0]) / np.linalg.norm(theta[0])
logN, mean_half, mean = np.log(Ns), np.log(drift[0].mean(axis=1)), np.log(drift[1].mean(axis=1))
slope, slope_half = np.polyfit(logN, mean, 1)[0], np.polyfit(logN, mean_half, 1)[0]
local, local_half = np.diff(mean) / np.diff(logN), np.diff(mean_half) / np.diff(logN)
# "near -1/2, at the shallow end of the notes' range or beyond it" ("between about -0.45 and -0.6")
assert -0.6 < slope < -0.44
# "a local slope shallower than -1/2" at the smaller widths, "near -1" between the two largest
assert (local[:-1] > -0.5).all() and -1.3 < local[-1] < -0.8
# "the largest width lies well below the line through the others" ("by a factor 2 or more")
assert mean[-1] < np.polyval(np.polyfit(logN[:-1], mean[:-1], 1), logN[-1]) - np.log(2)
# "every seed's drift at the largest width is below every seed's drift at the next width"
assert drift[1, -1].max() < drift[1, -2].min()
# "at half the steps the local slope between the two largest widths is also close to -1" and
# "the four-width fit is steeper at half the steps"
assert -1.3 < local_half[-1] < -0.8 and slope_half < slope
# "the kernel changes by tens of percent" below the largest width
assert (0.1 < drift[1, :-1].mean(axis=1)).all()
# "the relative-displacement slope close to -1/2"
assert -0.6 < np.polyfit(logN, np.log(disp.mean(axis=1)), 1)[0] < -0.45

# %% [markdown]
# ## (d) Mode by mode
#
# With a frozen kernel $\Theta$ the residual obeys, for gradient **descent**,
# $\Delta_{k+1}=\Delta_k-\eta\,\Theta\,\Delta_k$ (to first order in the step; exactly for
# the linearized network). Diagonalize $\Theta_0=U\,\mathrm{diag}(s_1^2,\dots,s_n^2)\,U^T$
# with $s_1^2\ge s_2^2\ge\dots$ (Section 4.2: the columns $u_k$ of $U$ are the features,
# $s_k^2$ their strengths). Then the mode amplitudes $\hat\Delta_k=u_k\cdot\Delta$ decouple,
# $$
# \hat\Delta_k(t)=(1-\eta s_k^2)^t\,\hat\Delta_k(0)\;\approx\;e^{-\eta s_k^2t}\,\hat\Delta_k(0)
# \qquad(\eta s_k^2\ll1), \tag{4.35}
# $$
# straight lines of slope $\log(1-\eta s_k^2)\approx-\eta s_k^2$ on a semilog plot: mode $k$
# is learned at $t_k\approx1/(\eta s_k^2)$, largest eigenvalue first. (Stability of gradient
# descent needs $\eta s_1^2<2$; here $\eta s_1^2\approx0.5$, so for the top mode the discrete
# factor $1-\eta s_1^2$ differs visibly from $e^{-\eta s_1^2}$.)
#
# **Task.** Implement `residual_modes(ntk0, residuals)`.

# %% tags=["graded"]
def residual_modes(ntk0, residuals):
    """Eigen-decomposition of the initial NTK and the residual's mode amplitudes (Ex 4.4(d)).

    Theta_0 = U diag(s2) U^T with eigenvalues s2 in DESCENDING order (s2 = s_k^2, the
    squared singular values of the Jacobian, notes Section 4.2).

    Args:
        ntk0: symmetric PSD array (n, n), the NTK at initialization.
        residuals: array (R, n), residuals Delta(t) at R times (e.g. train(...)["residual"]).
    Returns:
        (s2, amplitudes): s2 float array (n,), descending; amplitudes float array (R, n) with
        amplitudes[r, k] = |u_k . Delta(t_r)| (absolute value: eigenvectors have no sign).
    """
    s2, U = np.linalg.eigh(np.asarray(ntk0, dtype=float))
    order = np.argsort(s2)[::-1]
    s2, U = s2[order], U[:, order]
    amplitudes = np.abs(np.atleast_2d(np.asarray(residuals, dtype=float)) @ U)
    return s2, amplitudes


# %% tags=["check"]
@check
def check_residual_modes():
    "residual_modes: a diagonal kernel and a rotated one"
    s2, amp = residual_modes(np.diag([1.0, 3.0, 2.0]), np.array([[1.0, -2.0, 3.0]]))
    assert np.allclose(s2, [3.0, 2.0, 1.0]), "eigenvalues in descending order"
    assert np.allclose(amp, [[2.0, 3.0, 1.0]]), "amplitude of the largest mode first, absolute values"
    R = np.array([[np.cos(0.3), -np.sin(0.3)], [np.sin(0.3), np.cos(0.3)]])
    s2, amp = residual_modes(R @ np.diag([5.0, 0.5]) @ R.T, np.array([R[:, 1], 2 * R[:, 0]]))
    assert np.allclose(s2, [5.0, 0.5]) and np.allclose(amp, [[0.0, 1.0], [2.0, 0.0]], atol=1e-12)


# %% [markdown]
# The figure projects the residuals of the main run onto the eigenvectors of $\Theta_0$:
# dots are the measured $|\hat\Delta_k(t)|$, lines the frozen-kernel prediction
# $(1-\eta s_k^2)^t|\hat\Delta_k(0)|$. The fast modes do not decay forever: once they are
# small, the residual still carried by the slow modes leaks into them through the (small)
# kernel drift and the curvature of the network, and they settle on a floor that falls with
# $N$. Look for the dips where $u_k\cdot\Delta$ changes sign.

# %% tags=["figure"]
s2_0, amps = residual_modes(run["ntk"][0], run["residual"])
fig, ax = plt.subplots(figsize=(7, 4.5))
for k, color in zip(range(4), ["C0", "C1", "C2", "C3"]):
    pred = (1 - ETA_LAB * s2_0[k]) ** run["step"] * amps[0, k]
    ax.semilogy(run["step"], amps[:, k], "o", ms=2, color=color,
                label=f"$k={k + 1}$: $s_k^2={s2_0[k]:.3g}$, $t_k=1/(\\eta s_k^2)={1 / (ETA_LAB * s2_0[k]):.3g}$")
    ax.semilogy(run["step"], np.maximum(pred, 1e-300), "-", color=color, lw=1)
ax.set_xscale("symlog", linthresh=10)
ax.set(xlabel="step $t$ (linear up to 10, then logarithmic)", ylabel=r"$|u_k\cdot\Delta(t)|$", ylim=(1e-8, 10),
       xlim=(0, STEPS), title="(d) the residual decays mode by mode, largest eigenvalue first")
ax.legend(fontsize=8)
plt.show()

# %% tags=["solution"]
# Independent check: the decay rates of the two leading modes are
# fitted from the *trained network's* residuals (least squares on $\log|\hat\Delta_k|$,
# a wide network, $N=5000$, recorded at every step) and compared with
# $-\log(1-\eta s_k^2)$ from the eigenvalues of $\Theta_0$ (agreement to 2%). The same fit on
# the main run shows the slower modes departing from the frozen-kernel rate by several
# percent: the kernel drift is small compared with $\|\Theta_0\|$, i.e. with $s_1^2$, but not
# compared with the small eigenvalues $s_k^2$ that set the slow rates.
wide = train(init_params(5000, GAMMA_LAZY, 3), X_TRAIN, Y_TRAIN, GAMMA_LAZY, ETA_LAB, 80, 1)
s2_w, amps_w = residual_modes(wide["ntk"][0], wide["residual"])
for k, window in [(0, slice(0, 9)), (1, slice(0, 81))]:
    t_k = wide["step"][window].astype(float)
    rate_fit = -np.polyfit(t_k, np.log(amps_w[window, k]), 1)[0]
    rate_pred = -np.log(1 - ETA_LAB * s2_w[k])
    print(f"N=5000, mode {k + 1}: fitted decay rate {rate_fit:.4g} per step, -log(1 - eta s^2) = {rate_pred:.4g}, "
          f"eta s^2 = {ETA_LAB * s2_w[k]:.4g}  (relative difference {abs(rate_fit / rate_pred - 1):.1e})")
    assert abs(rate_fit / rate_pred - 1) < 0.02
# the same fit on the main run (N = N_main): slower modes feel the kernel drift more
for k in range(1, 3):
    t_k = run["step"].astype(float)
    rate_pred = -np.log(1 - ETA_LAB * s2_0[k])
    window = (t_k * rate_pred < 6) & (t_k * rate_pred > 0.3)
    rate_fit = -np.polyfit(t_k[window], np.log(amps[window, k]), 1)[0]
    print(f"N={N_MAIN}, mode {k + 1}: fitted {rate_fit:.4g}, frozen kernel {rate_pred:.4g} "
          f"(relative difference {abs(rate_fit / rate_pred - 1):.1e})")

# %% [markdown]
# ## (e) Prediction: the frozen-kernel (linearized) network
#
# Exercise 4.3: if $\Theta$ is constant, the test-point output obeys
# $\dot f(x)=-\eta\,\Theta(x,X)\,\Delta(t)$ with $\Delta(t)=e^{-\eta\Theta t}\Delta(0)$,
# and integrating from $0$ to $t$,
# $$
# f_t(x)=f_0(x)-\Theta(x,X)\,\Theta^{-1}\big(I-e^{-\eta\Theta t}\big)\,\big(f_0(X)-Y\big),
# \tag{4.36}
# $$
# where $\Theta=\Theta_0(X,X)$ is the $n\times n$ train kernel and $\Theta(x,X)$ the
# test-train kernel (`ntk(params, x_test, gamma, x2=x_train)`), both at initialization.
# This is gradient *flow* with time $t$ measured in steps ($t$ steps of size $\eta$).
#
# **Numerics.** $\Theta_0$ is very ill-conditioned (its eigenvalues fall by a factor
# $\sim20$–$50$ per mode, down to round-off), so do not form $\Theta^{-1}$. In the eigenbasis
# the operator $\Theta^{-1}(I-e^{-\eta\Theta t})$ is $\mathrm{diag}\big((1-e^{-\eta s_k^2t})/s_k^2\big)$,
# a bounded function that tends to $\eta t$ as $s_k^2\to0$: evaluate it as
# `-np.expm1(-eta*s2*t)/s2` with that limit where $s_k^2\,\eta t$ is tiny (or zero, or
# round-off negative).
#
# **Task.** Implement `frozen_kernel_prediction`.

# %% tags=["graded"]
def frozen_kernel_prediction(params, x_train, y_train, x_test, gamma, eta, t):
    """Prediction of the linearized (frozen-NTK) network after training time t (Ex 4.3, eq. (4.36)).

    f_t(x) = f_0(x) - Theta(x, X) Theta^{-1} (I - exp(-eta Theta t)) (f_0(X) - Y),
    with Theta = ntk(params, x_train, gamma), Theta(x, X) = ntk(params, x_test, gamma,
    x2=x_train), both at the given (initial) parameters; gradient flow, t in units of steps.
    Evaluated stably in the eigenbasis of Theta (no explicit inverse; see the notebook).

    Args:
        params: dict {"a": (N,), "c": (N,)}, the weights at initialization.
        x_train, y_train: float arrays (n,).  x_test: float array (m,).
        gamma, eta: floats.  t: float >= 0.
    Returns:
        float array (m,). At t = 0 this is f_0(x_test).
    """
    x_train = np.asarray(x_train, dtype=float)
    s2, U = np.linalg.eigh(ntk(params, x_train, gamma))
    s2 = np.clip(s2, 0.0, None)
    ht = eta * float(t)
    small = s2 * ht < 1e-12
    gain = np.where(small, ht, -np.expm1(-s2 * ht) / np.where(small, 1.0, s2))
    delta0 = forward(params, x_train, gamma) - np.asarray(y_train, dtype=float)
    cross = ntk(params, x_test, gamma, x2=x_train)
    return forward(params, x_test, gamma) - cross @ (U @ (gain * (U.T @ delta0)))


# %% tags=["check"]
@check
def check_frozen_kernel_prediction():
    "frozen prediction: f_0 at t=0, and at the training points it follows exp(-eta Theta t)"
    p = init_params(50, 0.5, 8)
    x_test = np.array([-2.3, 0.1, 1.7])
    assert np.allclose(frozen_kernel_prediction(p, X_TRAIN, Y_TRAIN, x_test, 0.5, 0.02, 0.0), forward(p, x_test, 0.5))
    Theta = ntk(p, X_TRAIN, 0.5)
    lam, V = np.linalg.eigh(Theta)
    t = 30.0
    want = Y_TRAIN + V @ (np.exp(-0.02 * lam * t) * (V.T @ (forward(p, X_TRAIN, 0.5) - Y_TRAIN)))
    got = frozen_kernel_prediction(p, X_TRAIN, Y_TRAIN, X_TRAIN, 0.5, 0.02, t)
    assert np.allclose(got, want, atol=1e-7), "on the training inputs, f_t - y = exp(-eta Theta t) (f_0 - y)"
    assert np.all(np.isfinite(frozen_kernel_prediction(p, X_TRAIN, Y_TRAIN, x_test, 0.5, 0.02, 1e8)))
    p = init_params(20, 1.0, 3)                                        # mean-field prefactor, other data
    xs, ys = np.array([-1.5, -0.2, 0.4, 1.9]), np.array([0.5, 0.0, -0.3, 0.8])
    lam, V = np.linalg.eigh(ntk(p, xs, 1.0))
    want = ys + V @ (np.exp(-0.3 * lam * 4.0) * (V.T @ (forward(p, xs, 1.0) - ys)))
    assert np.allclose(frozen_kernel_prediction(p, xs, ys, xs, 1.0, 0.3, 4.0), want, atol=1e-9), \
        "gamma = 1, eta = 0.3: f_t - y = exp(-eta Theta t) (f_0 - y) on the training inputs"


# %% [markdown]
# The figure compares the network trained in (a) with the frozen-kernel prediction from
# the same initialization at the same time, on a fine grid that includes points outside the
# training interval, and shows how their difference shrinks with the width.

# %% tags=["figure"]
pred_frozen = frozen_kernel_prediction(params0, X_TRAIN, Y_TRAIN, x_fine, GAMMA_LAZY, ETA_LAB, STEPS)
pred_trained = forward(final, x_fine, GAMMA_LAZY)
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
axes[0].plot(x_fine, teacher(x_fine), "k--", lw=1, label="teacher")
axes[0].plot(x_fine, pred_trained, "C0", lw=2, label="trained network")
axes[0].plot(x_fine, pred_frozen, "C1", lw=1, label="frozen-kernel prediction (4.36)")
axes[0].plot(X_TRAIN, Y_TRAIN, "ko", ms=3)
axes[0].set(xlabel="$x$", title=f"(e) $N={N_MAIN}$, step {STEPS}")
axes[0].legend(fontsize=8)
gap = []
steps_e = min(STEPS, 1000)
for N in PARAMS["Ns"]:
    g = []
    for s in range(2):
        p = init_params(N, GAMMA_LAZY, 50 + s)
        rec = train(p, X_TRAIN, Y_TRAIN, GAMMA_LAZY, ETA_LAB, steps_e, steps_e)
        f_tr = forward({"a": rec["a"][-1], "c": rec["c"][-1]}, x_fine, GAMMA_LAZY)
        f_fr = frozen_kernel_prediction(p, X_TRAIN, Y_TRAIN, x_fine, GAMMA_LAZY, ETA_LAB, steps_e)
        g.append(np.max(np.abs(f_tr - f_fr)))
    gap.append(np.mean(g))
axes[1].loglog(PARAMS["Ns"], gap, "o-")
axes[1].set(xlabel="width $N$", ylabel=r"$\max_x|f_{\rm trained}-f_{\rm frozen}|$",
            title=f"(e) the network linearizes ({steps_e} steps)")
plt.tight_layout()
plt.show()
print(f"max |trained - frozen| on the grid at N={N_MAIN}: {np.max(np.abs(pred_trained - pred_frozen)):.3e}")

# %% tags=["solution"]
# Independent check: the linearized model
# $f_{\rm lin}(x;\theta)=f_0(x)+\nabla_\theta f_0(x)\cdot(\theta-\theta_0)$, with the Jacobian
# from autograd, is trained explicitly by gradient descent in parameter space ($2N$
# parameters); its test predictions must equal the kernel formula with the discrete factor
# $(1-\eta s_k^2)^t$ to round-off, and `frozen_kernel_prediction` (gradient flow) up to the
# flow/descent difference. A direct `np.linalg.inv` evaluation of (4.36) is shown for
# contrast.
N_lin, t_lin = 200, 400
p_lin = init_params(N_lin, GAMMA_LAZY, 77)
x_te = np.linspace(-2.4, 2.4, 9)
_, _, J_tr = torch_loss_and_jacobian(p_lin, X_TRAIN, Y_TRAIN, GAMMA_LAZY)
_, _, J_te = torch_loss_and_jacobian(p_lin, x_te, np.zeros_like(x_te), GAMMA_LAZY)
f0_tr, f0_te = forward(p_lin, X_TRAIN, GAMMA_LAZY), forward(p_lin, x_te, GAMMA_LAZY)
dtheta = np.zeros(2 * N_lin)
for _ in range(t_lin):                               # GD on the linearized model
    dtheta -= ETA_LAB * J_tr.T @ (f0_tr + J_tr @ dtheta - Y_TRAIN)
pred_gd_lin = f0_te + J_te @ dtheta
lam, V = np.linalg.eigh(J_tr @ J_tr.T)
lam = np.clip(lam, 0, None)
gain_gd = np.where(lam * ETA_LAB > 1e-14, (1 - (1 - ETA_LAB * lam) ** t_lin) / np.where(lam > 0, lam, 1), ETA_LAB * t_lin)
pred_kernel_gd = f0_te - (J_te @ J_tr.T) @ (V @ (gain_gd * (V.T @ (f0_tr - Y_TRAIN))))
pred_flow = frozen_kernel_prediction(p_lin, X_TRAIN, Y_TRAIN, x_te, GAMMA_LAZY, ETA_LAB, t_lin)
assert np.max(np.abs(pred_gd_lin - pred_kernel_gd)) < 1e-9
assert np.max(np.abs(pred_gd_lin - pred_flow)) < 1e-3
print("linearized model trained by GD vs kernel formula (discrete): < 1e-9")   # round-off: a bound
print(f"linearized model trained by GD vs frozen_kernel_prediction (flow): {np.max(np.abs(pred_gd_lin - pred_flow)):.1e}")
Th = ntk(p_lin, X_TRAIN, GAMMA_LAZY)
lamT, VT = np.linalg.eigh(Th)
# Theta_0 is numerically singular: inv either returns garbage or (on an exact zero pivot, which
# depends on the BLAS build) refuses; both say why frozen_kernel_prediction works in the eigenbasis
try:
    with np.errstate(all="ignore"):
        naive = f0_te - ntk(p_lin, x_te, GAMMA_LAZY, x2=X_TRAIN) @ np.linalg.inv(Th) @ (
            VT @ (-np.expm1(-ETA_LAB * lamT * t_lin)[:, None] * VT.T)) @ (f0_tr - Y_TRAIN)
    verdict = f"max |difference| = {np.max(np.abs(naive - pred_flow)):.0e}"
except np.linalg.LinAlgError as e:
    verdict = f"np.linalg.inv refuses ({e})"
print(f"for contrast, np.linalg.inv route: {verdict} (condition number of Theta_0: {np.linalg.cond(Th):.0e})")

# %% [markdown]
# **(e), written.** How close is the trained network to the frozen-kernel prediction, how
# does the gap scale with $N$, and where (in $x$) is it largest? What does this say about
# feature learning in this network?

# %% [markdown] tags=["answer"] points=2
# *Model answer.* At $N\approx500$ the two curves are hard to tell apart by eye; the maximal
# gap on the grid is a few $10^{-2}$, and it falls with the width roughly like $N^{-0.6}$ over
# this range (between $N^{-1/2}$ and $N^{-1}$, like the kernel drift: the gap is the
# second-order Taylor term $\frac12\delta\theta\cdot\nabla^2f\cdot\delta\theta$ plus the effect of
# the kernel change on the slow modes). It is largest near the steep part of the teacher
# around $x\approx\pm0.2$, and sometimes at the edges of the interval, where the prediction
# depends on the slow, barely-learned modes in which the small kernel drift accumulates; it is
# present at the training points too (the trained network fits them slightly differently
# from kernel regression). So the trained network is, to good accuracy, kernel regression
# with the *initial* NTK (early-stopped at $\eta t$, with the GP draw $f_0$ as offset): its
# features (NTK eigenvectors) barely change — no feature learning as $N\to\infty$. Where the
# initial kernel is misaligned with the teacher the fit stays poor, whatever the width.
#
# *Rubric (2 points):* size and $N$-dependence of the gap with a reason (1); interpretation:
# kernel regression with the initial NTK, no feature learning (1).

# %% tags=["tests"]
def _lab():
    return ref.lab_data()


def _random_params(rng, N, scale=1.0):
    return {"a": scale * rng.standard_normal(N), "c": scale * rng.standard_normal(N)}


def _drift_from_params(params, gamma, eta, steps):
    x, y = _lab()
    return ref._relative_drift(ref.train(params, x, y, gamma, eta, steps, max(steps, 1)))


# False-fail budget 1e-4 (any stream, any course seed): seven checks on N = 40000 independent
# standard normals, each at 5 standard errors of its estimator (mean 1/sqrt(N), variance
# sqrt(2/N), kurtosis sqrt(24/N), correlation 1/sqrt(N); all near-Gaussian at this N): about
# 6e-7 each, 4e-6 together.
@points(2)
def test_init_params_statistics(student):
    "init_params: weights are independent standard normals (large-width statistics)"
    rng = rng_for("init_params_statistics")
    N = 40_000
    p = student.init_params(N, 0.5, int(rng.integers(0, 2**31)))
    assert isinstance(p, dict) and {"a", "c"} <= set(p), "init_params must return a dict with keys 'a' and 'c'"
    for key in ("a", "c"):
        w = np.asarray(p[key], dtype=float)
        assert w.shape == (N,), f"{key} must have shape (N,)"
        assert abs(w.mean()) < 5 / np.sqrt(N), f"{key}: mean should be 0"
        assert abs(w.var() - 1) < 5 * np.sqrt(2 / N), f"{key}: variance should be 1 (order-one weights, no 1/N)"
        kurt = np.mean((w - w.mean()) ** 4) / w.var() ** 2
        assert abs(kurt - 3) < 5 * np.sqrt(24 / N), f"{key}: the weights should be Gaussian"
    corr = np.corrcoef(p["a"], p["c"])[0, 1]
    assert abs(corr) < 5 / np.sqrt(N), "a and c should be independent"


# False-fail budget 1e-4: reproducibility and "other seeds, other weights" hold for every correct
# stream; the variances of 30000 standard normals (standard error sqrt(2/30000) = 0.008) must lie
# within 0.05 of 1, 6 standard errors: about 2e-9.
@points(1)
def test_init_params_seeds(student):
    "init_params: the same seed gives the same weights, other seeds and widths give other draws, for any gamma"
    rng = rng_for("init_params_seeds")
    s = int(rng.integers(0, 2**31))
    p1, p2 = student.init_params(50, 0.5, s), student.init_params(50, 0.5, s)
    assert np.array_equal(p1["a"], p2["a"]) and np.array_equal(p1["c"], p2["c"]), "same seed, same weights"
    q = student.init_params(50, 0.5, s + 1)
    assert not np.allclose(p1["a"], q["a"]), "different seeds should give different weights"
    r = student.init_params(30_000, 1.0, s)
    assert abs(np.var(r["c"]) - 1) < 0.05 and abs(np.var(r["a"]) - 1) < 0.05, \
        "the weights stay N(0, 1) for gamma = 1 (the width dependence is in forward)"


@points(2)
def test_forward(student):
    "forward on random weights and inputs, for several widths and exponents gamma"
    rng = rng_for("forward")
    for N, gamma in [(1, 0.5), (7, 0.5), (40, 1.0), (25, 0.75)]:
        p = _random_params(rng, N)
        x = rng.uniform(-3, 3, 11)
        assert_close(student.forward(p, x, gamma), ref.forward(p, x, gamma), rtol=1e-9, atol=1e-12,
                     name=f"f(x) for N={N}, gamma={gamma}")


@points(1)
def test_init_params_edges(student):
    "init_params at width N = 1, and the draw does not depend on gamma"
    rng = rng_for("init_params_edges")
    s = int(rng.integers(0, 2**31))
    p = student.init_params(1, 0.5, s)
    assert np.shape(p["a"]) == (1,) and np.shape(p["c"]) == (1,), "N = 1: a and c should have shape (1,)"
    p, q = student.init_params(30, 0.5, s), student.init_params(30, 1.0, s)
    assert np.array_equal(p["a"], q["a"]) and np.array_equal(p["c"], q["c"]), \
        "gamma is unused by the draw: the same seed should give the same weights for every gamma"


@points(1)
def test_forward_edges(student):
    "forward with gamma = 0, a single input, the input 0 and saturating inputs"
    rng = rng_for("forward_edges")
    p = _random_params(rng, 9)
    for x, gamma in [(np.array([float(rng.uniform(-2, 2))]), 0.0), (np.array([0.0, -40.0, 60.0]), 0.5)]:
        assert_close(student.forward(p, x, gamma), ref.forward(p, x, gamma), rtol=1e-9, atol=1e-12,
                     name=f"f(x) for {x.size} input(s), gamma={gamma}")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(3)
def test_train_lazy(student):
    "train on the lab data at gamma = 1/2: every record (steps, loss, residual, NTK, weights)"
    rng = rng_for("train_lazy")
    x, y = _lab()
    p = _random_params(rng, 12)
    got = student.train(p, x, y, 0.5, 0.02, 60, 20)
    want = ref.train(p, x, y, 0.5, 0.02, 60, 20)
    assert isinstance(got, dict) and set(want) <= set(got), f"train must return a dict with keys {sorted(want)}"
    assert_close(got["step"], want["step"], rtol=0, atol=0, name="recorded steps")
    for key in ("loss", "residual", "ntk", "a", "c"):
        assert_close(got[key], want[key], rtol=1e-7, atol=1e-10, name=f"record '{key}'")


@points(2)
def test_train_other_settings(student):
    "train with gamma = 1 and 3/4, other data, a larger learning rate, and steps not a multiple of record_every"
    rng = rng_for("train_other_settings")
    for N, gamma, eta, steps, every in [(9, 1.0, 0.4, 25, 10), (15, 0.75, 0.1, 13, 4)]:
        x = np.sort(rng.uniform(-2, 2, 7))
        y = np.sin(2 * x)
        p = _random_params(rng, N)
        got = student.train(p, x, y, gamma, eta, steps, every)
        want = ref.train(p, x, y, gamma, eta, steps, every)
        assert_close(got["step"], want["step"], rtol=0, atol=0, name=f"recorded steps ({steps} steps, every {every})")
        for key in ("loss", "residual", "a", "c", "ntk"):
            assert_close(got[key], want[key], rtol=1e-7, atol=1e-10, name=f"record '{key}' (gamma={gamma})")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_train_zero_steps(student):
    "train with zero steps records only the initial state"
    rng = rng_for("train_zero_steps")
    x, y = _lab()
    p = _random_params(rng, 5)
    got = student.train(p, x, y, 0.5, 0.02, 0, 1)
    want = ref.train(p, x, y, 0.5, 0.02, 0, 1)
    assert_close(got["step"], want["step"], rtol=0, atol=0, name="recorded steps")
    assert_close(got["loss"], want["loss"], rtol=1e-9, atol=1e-12, name="loss at step 0")
    for key in ("residual", "ntk", "a", "c"):
        assert_close(got[key], want[key], rtol=1e-9, atol=1e-12, name=f"record '{key}' at step 0")


@points(1)
def test_train_edges(student):
    "train at width N = 1, with record_every larger than steps, and with a record at every step"
    rng = rng_for("train_edges")
    x = np.sort(rng.uniform(-2, 2, 6))
    y = np.tanh(2 * x)
    for N, steps, every in [(1, 7, 3), (6, 4, 10), (4, 5, 1)]:
        p = _random_params(rng, N)
        got = student.train(p, x, y, 0.5, 0.1, steps, every)
        want = ref.train(p, x, y, 0.5, 0.1, steps, every)
        assert_close(got["step"], want["step"], rtol=0, atol=0, name=f"recorded steps ({steps} steps, every {every})")
        for key in ("loss", "residual", "ntk", "a", "c"):
            assert_close(got[key], want[key], rtol=1e-7, atol=1e-10, name=f"record '{key}' (N={N}, every {every})")


@points(2)
def test_gp_kernel(student):
    "gp_kernel on random pairs of inputs (arrays, broadcasting, zero and negative inputs)"
    rng = rng_for("gp_kernel")
    x1 = np.concatenate([rng.uniform(-2.5, 2.5, 12), [0.0, ref.PARAMS["x_probe"]]])
    x2 = np.concatenate([rng.uniform(-2.5, 2.5, 12), [1.0, ref.PARAMS["x_pair"]]])
    assert_close(student.gp_kernel(x1, x2), ref.gp_kernel(x1, x2), rtol=1e-8, atol=1e-10, name="K(x1, x2)")
    g = rng.uniform(0.2, 2.0, 4)
    assert_close(student.gp_kernel(g[:, None], g[None, :]), ref.gp_kernel(g[:, None], g[None, :]),
                 rtol=1e-8, atol=1e-10, name="K on a (4, 4) grid by broadcasting")


@points(1)
def test_gp_kernel_steep(student):
    "gp_kernel at larger inputs, where tanh(a x) is nearly a step (quadrature accuracy)"
    rng = rng_for("gp_kernel_steep")
    x1 = rng.uniform(2.0, 4.0, 6) * rng.choice([-1, 1], 6)
    x2 = rng.uniform(2.0, 4.0, 6)
    assert_close(student.gp_kernel(x1, x2), ref.gp_kernel(x1, x2), rtol=1e-8, atol=1e-10, name="K(x1, x2), |x| in [2, 4]")


@points(1)
def test_gp_kernel_largest_inputs(student):
    "gp_kernel up to the edge of its promised range |x| <= 5, and on float inputs"
    rng = rng_for("gp_kernel_largest_inputs")
    x1 = rng.uniform(4.0, 5.0, 6) * rng.choice([-1, 1], 6)
    x2 = np.concatenate([rng.uniform(4.0, 5.0, 3), [5.0], rng.uniform(0.05, 1.0, 2)])
    assert_close(student.gp_kernel(x1, x2), ref.gp_kernel(x1, x2), rtol=1e-8, atol=1e-10, name="K(x1, x2), |x1| in [4, 5]")
    u, v = float(rng.uniform(-5, 5)), float(rng.uniform(-5, 5))
    k = student.gp_kernel(u, v)
    assert np.ndim(k) == 0, "two floats should give a float, not an array"
    assert_close(k, ref.gp_kernel(u, v), rtol=1e-8, atol=1e-10, name="K of two floats")


@points(2)
def test_kernel_drift(student):
    "kernel_drift: relative Frobenius change of the NTK after training your init_params(N, gamma, seed)"
    rng = rng_for("kernel_drift")
    for N, gamma, eta, steps in [(12, 0.5, 0.02, 300), (20, 1.0, 0.4, 120)]:
        seed = int(rng.integers(0, 2**31))
        params = student.init_params(N, gamma, seed)
        expected = _drift_from_params(params, gamma, eta, steps)
        got = (student.kernel_drift(N, gamma, seed, steps=steps) if eta == 0.02      # the lab's default eta
               else student.kernel_drift(N, gamma, seed, eta=eta, steps=steps))
        assert_close(got, expected, rtol=1e-6, atol=1e-12, name=f"kernel drift (N={N}, gamma={gamma}, {steps} steps)")


@points(1)
def test_kernel_drift_edges(student):
    "kernel_drift with zero steps (no drift) and at width N = 1"
    rng = rng_for("kernel_drift_edges")
    seed = int(rng.integers(0, 2**31))
    assert_close(student.kernel_drift(7, 0.5, seed, steps=0), 0.0, rtol=0, atol=1e-15, name="drift after zero steps")
    expected = _drift_from_params(student.init_params(1, 0.5, seed), 0.5, 0.02, 30)
    assert_close(student.kernel_drift(1, 0.5, seed, steps=30), expected, rtol=1e-6, atol=1e-12, name="drift at N = 1")


@points(2)
def test_drift_exponent(student):
    "drift_exponent: least-squares log-log slope of the seed-averaged drift"
    rng = rng_for("drift_exponent")
    Ns, steps = [8, 16, 32], 100
    seeds = [int(s) for s in rng.integers(0, 2**31, 2)]
    mean_drift = [np.mean([_drift_from_params(student.init_params(N, 0.5, s), 0.5, 0.02, steps) for s in seeds])
                  for N in Ns]
    expected = np.polyfit(np.log(Ns), np.log(mean_drift), 1)[0]
    assert_close(student.drift_exponent(Ns, seeds, 0.5, 0.02, steps), expected, rtol=1e-5, atol=1e-8,
                 name="fitted slope")


@points(1)
def test_drift_exponent_two_widths_one_seed(student):
    "drift_exponent with the fewest allowed widths (two) and a single seed"
    rng = rng_for("drift_exponent_two_widths_one_seed")
    Ns, steps, seed = [6, 24], 60, int(rng.integers(0, 2**31))
    d = [_drift_from_params(student.init_params(N, 0.5, seed), 0.5, 0.02, steps) for N in Ns]
    expected = np.log(d[1] / d[0]) / np.log(Ns[1] / Ns[0])
    assert_close(student.drift_exponent(Ns, [seed], 0.5, 0.02, steps), expected, rtol=1e-5, atol=1e-8,
                 name="fitted slope from two widths")


# False-fail budget 1e-4 (any stream for init_params, any course seed): the slope of the mean drift
# between N = 50 and 500 after 200 steps is -0.737 +- 0.006 (4000 seeds per width, the reference's
# and another stream agree); the drift of one seed has a relative spread of 0.63 at both widths, so
# the slope of 64-seed means has a standard error of 0.049 (delta method; resampled: 0.049, skewness
# 0.00), and -1/2 and -1 lie 4.9 and 5.4 standard errors away: P(fail) < 1e-6 (the old 8 seeds in
# (-1.3, -0.4) failed correct code in about 1 % of seeds).
@points(1)
def test_kernel_freezes_at_gamma_half(student):
    "the lazy network's kernel drift decays with a log-log slope between -1 and -1/2 (statistical: 64 seeds)"
    rng = rng_for("kernel_freezes_at_gamma_half")
    seeds = [int(s) for s in rng.integers(0, 2**31, 64)]
    slope = student.drift_exponent([50, 500], seeds, steps=200)     # defaults: gamma = 1/2, eta = 0.02
    assert -1 < slope < -0.5, "the fitted drift exponent at gamma = 1/2 should lie between -1 and -1/2"


@pytest.mark.reference_input  # inputs computed from a reference result
@points(2)
def test_residual_modes(student):
    "residual_modes: eigenvalues of a random NTK and the leading mode amplitudes of random residuals"
    rng = rng_for("residual_modes")
    for N, n in [(40, 8), (200, 12)]:
        p = _random_params(rng, N)
        x = np.sort(rng.uniform(-2, 2, n))
        K = ref.ntk(p, x, 0.5)
        res = rng.standard_normal((5, n))
        s2, amp = student.residual_modes(K, res)
        s2_ref, amp_ref = ref.residual_modes(K, res)
        assert_close(s2, s2_ref, rtol=1e-7, atol=1e-9 * s2_ref[0], name="eigenvalues s_k^2 (descending)")
        top = 4   # well-separated leading modes (the tail is near-degenerate round-off)
        assert_close(np.asarray(amp)[:, :top], amp_ref[:, :top], rtol=1e-6, atol=1e-9,
                     name="amplitudes |u_k . Delta| of the leading modes")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_residual_modes_edges(student):
    "residual_modes for a single residual and a rank-deficient NTK (fewer neurons than data points)"
    rng = rng_for("residual_modes_edges")
    p = _random_params(rng, 2)
    x = np.sort(rng.uniform(-2, 2, 10))
    K = ref.ntk(p, x, 0.5)                      # rank <= 2N = 4 < n = 10
    res = rng.standard_normal((1, 10))
    s2, amp = student.residual_modes(K, res)
    s2_ref, amp_ref = ref.residual_modes(K, res)
    assert_close(s2, s2_ref, rtol=1e-7, atol=1e-9 * s2_ref[0], name="eigenvalues s_k^2 (descending, zeros last)")
    assert np.shape(amp) == (1, 10), "amplitudes should have shape (R, n) = (1, n)"
    assert_close(np.asarray(amp)[:, :3], amp_ref[:, :3], rtol=1e-6, atol=1e-9, name="amplitudes of the leading modes")


# False-fail budget 1e-4 (any course seed; train and residual_modes are deterministic, so only the
# weights drawn by rng_for vary): over 40 draws of the N = 1500 weights the fitted rates of modes 1
# and 2 differ from -log(1 - eta s_k^2) by a relative 0.001 +- 0.003 and -0.001 +- 0.005 (largest
# 0.009 and 0.018): the 5 % tolerance is 14 and 10 standard deviations away, P(fail) < 1e-6.
@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_mode_decay_rates(student):
    "the residual of a wide lazy network decays in each leading NTK mode at the frozen-kernel rate"
    rng = rng_for("mode_decay_rates")
    x, y = _lab()
    p = _random_params(rng, 1500)
    rec = student.train(p, x, y, 0.5, 0.02, 40, 1)
    s2, amp = student.residual_modes(np.asarray(rec["ntk"])[0], rec["residual"])
    for k, window in [(0, slice(0, 8)), (1, slice(0, 40))]:
        t = np.arange(40 + 1)[window]
        rate = -np.polyfit(t, np.log(np.asarray(amp)[window, k]), 1)[0]
        assert_close(rate, -np.log(1 - 0.02 * s2[k]), rtol=0.05, atol=0, name=f"decay rate of mode {k + 1}")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(2)
def test_frozen_kernel_prediction(student):
    "frozen_kernel_prediction at several times, including t = 0 and very long times"
    rng = rng_for("frozen_kernel_prediction")
    x, y = _lab()
    for N, gamma, eta in [(60, 0.5, 0.02), (25, 1.0, 0.5)]:
        p = _random_params(rng, N)
        x_test = rng.uniform(-2.6, 2.6, 7)
        for t in [0.0, 7.0, 350.0, 1e6]:
            assert_close(student.frozen_kernel_prediction(p, x, y, x_test, gamma, eta, t),
                         ref.frozen_kernel_prediction(p, x, y, x_test, gamma, eta, t),
                         rtol=1e-5, atol=1e-6, name=f"f_t(x_test), N={N}, t={t:g}")


@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_frozen_kernel_prediction_singular_kernel(student):
    "frozen_kernel_prediction when the NTK is singular (N = 3 neurons, 30 data points): the stable eigenbasis form"
    rng = rng_for("frozen_kernel_prediction_singular_kernel")
    x, y = _lab()
    p = _random_params(rng, 3)
    x_test = rng.uniform(-2.6, 2.6, 7)
    for t in [5.0, 300.0, 1e6]:
        assert_close(student.frozen_kernel_prediction(p, x, y, x_test, 0.5, 0.02, t),
                     ref.frozen_kernel_prediction(p, x, y, x_test, 0.5, 0.02, t),
                     rtol=1e-5, atol=1e-6, name=f"f_t(x_test) with a singular kernel, t={t:g}")


# False-fail budget 1e-4 (any course seed; both sides are deterministic given the weights drawn by
# rng_for): over 40 draws of the N = 3000 weights the largest gap between the trained network and the
# frozen-kernel prediction is 0.0014 +- 0.0006 (largest 0.0028), and it shrinks like 1/sqrt(N): the
# bound 0.02 is 32 standard deviations away, P(fail) < 1e-6.
@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_wide_network_is_linear(student):
    "a wide lazy network trained by your train agrees with your frozen-kernel prediction"
    rng = rng_for("wide_network_is_linear")
    x, y = _lab()
    p = _random_params(rng, 3000)
    steps = 200
    rec = student.train(p, x, y, 0.5, 0.02, steps, steps)
    x_test = np.linspace(-2.2, 2.2, 23)
    trained = ref.forward({"a": np.asarray(rec["a"])[-1], "c": np.asarray(rec["c"])[-1]}, x_test, 0.5)
    frozen = student.frozen_kernel_prediction(p, x, y, x_test, 0.5, 0.02, steps)
    assert_close(frozen, trained, rtol=0, atol=0.02, name="frozen-kernel prediction vs trained network (N = 3000)")


# %% tags=["wrong"]
# wrong: the loss is the mean squared error (1/(2n)) sum (f - y)^2, so every gradient carries 1/n
# hint: The loss of this lab is the unnormalized ½ Σ_μ (f(x^μ) − y^μ)², with no 1/n (Section 4.1 and the
#   lab's conventions): a mean over the data rescales every gradient, and so the learning rate, by
#   1/n.
_train_right = train


def train(params, x, y, gamma, eta, steps, record_every):
    out = _train_right(params, x, y, gamma, eta / len(x), steps, record_every)
    out["loss"] = out["loss"] / len(x)
    return out


# %% tags=["wrong"]
# wrong: sequential update, a_i is updated with the already-updated c_i
# hint: Gradient descent moves all the parameters at once, along the gradient at the current θ: compute
#   the gradients for a and for c before updating either (Section 4.1).
def train(params, x, y, gamma, eta, steps, record_every):
    a = np.array(params["a"], dtype=float)
    c = np.array(params["c"], dtype=float)
    x, y = np.asarray(x, float), np.asarray(y, float)
    s = a.size ** (-gamma)
    rec = {k: [] for k in ("step", "loss", "residual", "ntk", "a", "c")}
    for k in range(steps + 1):
        T = np.tanh(np.outer(a, x))
        d = s * (c @ T) - y
        if k % record_every == 0 or k == steps:
            for key, v in zip(rec, (k, 0.5 * d @ d, d, ntk({"a": a, "c": c}, x, gamma), a.copy(), c.copy())):
                rec[key].append(v)
        if k == steps:
            break
        c = c - eta * s * (T @ d)
        a = a - eta * s * c * ((1 - T**2) @ (d * x))
    return {key: np.array(v) for key, v in rec.items()}


# %% tags=["wrong"]
# wrong: the final step recorded a second time when steps is a multiple of record_every
# hint: Records are taken at the steps 0, r, 2r, ... and at the final step, once: when the last step is
#   itself a multiple of r it is not recorded twice (the records of train, Exercise 4.4(a)).
_train_recorded_once = train


def train(params, x, y, gamma, eta, steps, record_every):
    out = _train_recorded_once(params, x, y, gamma, eta, steps, record_every)
    if steps % record_every == 0:
        out = {key: np.concatenate([val, val[-1:]]) for key, val in out.items()}
    return out


# %% tags=["wrong"]
# wrong: forward always uses the fan-in prefactor 1/sqrt(N), whatever gamma
# hint: The prefactor of eq. (4.40) is N^{−γ}: it equals 1/√N only at γ = ½ (the mean-field lab uses γ =
#   1).
def forward(params, x, gamma):
    a, c = np.asarray(params["a"], float), np.asarray(params["c"], float)
    return np.tanh(np.outer(np.asarray(x, float), a)) @ c / np.sqrt(a.size)


# %% tags=["rewrite"]
# rewrite: the same 1/sqrt(N) prefactor for every gamma, written as a sum over neurons
def forward(params, x, gamma):
    a, c = np.asarray(params["a"], float), np.asarray(params["c"], float)
    x = np.asarray(x, float)
    return np.sum(c[None, :] * np.tanh(x[:, None] * a[None, :]), axis=1) * a.size ** -0.5


# %% tags=["wrong"]
# wrong: readout weights drawn with variance 1/N (mixing the fan-in prefactor into the initialization)
# hint: All weights are of order one at initialization, a_i, c_i ~ N(0, 1) (eq. (4.40)): the 1/√N lives
#   in the prefactor N^{−γ}, not in the initialization.
def init_params(N, gamma, rng):
    rng = np.random.default_rng(rng)
    return {"a": rng.standard_normal(N), "c": rng.standard_normal(N) / np.sqrt(N)}


# %% tags=["wrong"]
# wrong: Gauss-Hermite nodes for exp(-t^2) used as if they were N(0, 1) samples (a has variance 1/2)
# hint: numpy's hermgauss integrates against e^{−t²}, the weight of N(0, ½): for a ~ N(0, 1) rescale the
#   nodes by √2, or use hermegauss, whose weight is e^{−t²/2} (the tanh NNGP kernel, Section 3.4).
def gp_kernel(x1, x2):
    t, w = np.polynomial.hermite.hermgauss(120)
    x1, x2 = np.broadcast_arrays(np.asarray(x1, float), np.asarray(x2, float))
    vals = np.tensordot(np.tanh(np.multiply.outer(x1, t)) * np.tanh(np.multiply.outer(x2, t)), w / np.sqrt(np.pi), axes=1)
    return vals if vals.ndim else float(vals)


# %% tags=["wrong"]
# wrong: Gauss-Hermite with too few nodes (30): fine at small |x|, off where tanh(a x) is steep
# hint: With few Gauss–Hermite nodes the kernel is accurate only for small |x|: tanh(a x) is steep when
#   |x| is large, so use many more nodes or an adaptive integral (Section 3.4).
def gp_kernel(x1, x2):
    t, w = np.polynomial.hermite_e.hermegauss(30)
    x1, x2 = np.broadcast_arrays(np.asarray(x1, float), np.asarray(x2, float))
    vals = np.tensordot(np.tanh(np.multiply.outer(x1, t)) * np.tanh(np.multiply.outer(x2, t)),
                        w / np.sqrt(2 * np.pi), axes=1)
    return vals if vals.ndim else float(vals)


# %% tags=["wrong"]
# wrong: kernel drift not normalized by ||Theta_0||
# hint: The kernel drift is relative, ||Θ_t − Θ_0|| / ||Θ_0|| (eqs. (4.30)–(4.31)): divide by the norm
#   of the initial kernel.
def kernel_drift(N, gamma, seed, eta=0.02, steps=40_000):
    x, y = lab_data()
    K = train(init_params(N, gamma, seed), x, y, gamma, eta, steps, max(steps, 1))["ntk"]
    return float(np.linalg.norm(K[-1] - K[0]))


# %% tags=["wrong"]
# wrong: drift exponent fitted with log10 of the drift against the natural log of N
# hint: A fitted exponent is a slope of log against log: use the same logarithm on both axes (Section
#   4.3, eq. (4.31)).
def drift_exponent(Ns, seeds, gamma=0.5, eta=0.02, steps=40_000):
    d = [np.mean([kernel_drift(int(N), gamma, int(s), eta, steps) for s in seeds]) for N in Ns]
    return float(np.polyfit(np.log(Ns), np.log10(d), 1)[0])


# %% tags=["wrong"]
# wrong: eigenvalues in ascending order (numpy's eigh order) and singular values s_k instead of s_k^2
# hint: residual_modes lists the eigenvalues of Θ_0 in decreasing order (numpy's eigh returns them in
#   increasing order), and they are the eigenvalues s_k² themselves, not their square roots (eq.
#   (4.35)).
def residual_modes(ntk0, residuals):
    s2, U = np.linalg.eigh(np.asarray(ntk0, float))
    return np.sqrt(np.clip(s2, 0, None)), np.abs(np.atleast_2d(residuals) @ U)


# %% tags=["wrong"]
# wrong: forgets Theta^{-1}: f_t = f_0 - Theta(x, X) (I - exp(-eta Theta t)) (f_0 - Y)
# hint: The frozen-kernel prediction f_t(x) = f_0(x) − Θ(x, X) Θ^{-1}(I − e^{−ηtΘ})(f_0(X) − y) needs
#   the inverse of the training kernel (eq. (4.36), Exercise 4.3).
def frozen_kernel_prediction(params, x_train, y_train, x_test, gamma, eta, t):
    lam, V = np.linalg.eigh(ntk(params, x_train, gamma))
    d0 = forward(params, x_train, gamma) - y_train
    return forward(params, x_test, gamma) - ntk(params, x_test, gamma, x2=x_train) @ (
        V @ (-np.expm1(-eta * lam * t) * (V.T @ d0)))


# %% tags=["alternative"]
# alternative: training by torch autograd (float64), kernel drift via a loop of single steps, GP kernel by scipy quad
import torch as _torch

_torch.set_num_threads(1)


def train(params, x, y, gamma, eta, steps, record_every):
    a = _torch.tensor(np.array(params["a"], dtype=float), requires_grad=True)
    c = _torch.tensor(np.array(params["c"], dtype=float), requires_grad=True)
    xt, yt = _torch.tensor(np.asarray(x, float)), _torch.tensor(np.asarray(y, float))
    rec = {k: [] for k in ("step", "loss", "residual", "ntk", "a", "c")}
    for k in range(steps + 1):
        f = a.numel() ** (-gamma) * (_torch.tanh(xt[:, None] * a[None, :]) @ c)
        loss = 0.5 * _torch.sum((f - yt) ** 2)
        if k % record_every == 0 or k == steps:
            an, cn = a.detach().numpy().copy(), c.detach().numpy().copy()
            rec["step"].append(k)
            rec["loss"].append(loss.item())
            rec["residual"].append((f - yt).detach().numpy())
            rec["ntk"].append(ntk({"a": an, "c": cn}, np.asarray(x, float), gamma))
            rec["a"].append(an)
            rec["c"].append(cn)
        if k == steps:
            break
        ga, gc = _torch.autograd.grad(loss, (a, c))
        with _torch.no_grad():
            a -= eta * ga
            c -= eta * gc
    return {k: np.array(v) for k, v in rec.items()}


def gp_kernel(x1, x2):
    out = np.vectorize(lambda p, q: integrate.quad(
        lambda s: np.exp(-s * s / 2) / np.sqrt(2 * np.pi) * np.tanh(s * p) * np.tanh(s * q),
        -np.inf, np.inf, epsabs=1e-12, limit=200)[0])(x1, x2)
    return out if np.ndim(out) else float(out)


def drift_exponent(Ns, seeds, gamma=0.5, eta=0.02, steps=40_000):
    from scipy import stats
    d = [sum(kernel_drift(N, gamma, s, eta, steps) for s in seeds) / len(seeds) for N in Ns]
    return float(stats.linregress(np.log(Ns), np.log(d)).slope)


# %% tags=["alternative"]
# alternative: another random stream for init_params, SVD of the Jacobian for the modes, and a scipy expm route for (4.36)
import scipy.linalg as _sla


def init_params(N, gamma, rng):
    g = np.random.default_rng([int(rng), 12345]) if not isinstance(rng, np.random.Generator) else rng
    z = g.normal(size=(2, N))
    return {"a": z[1].copy(), "c": z[0].copy()}


def residual_modes(ntk0, residuals):
    U, s, _ = np.linalg.svd(np.asarray(ntk0, float))     # PSD: singular values = eigenvalues, descending
    return s, np.abs(np.atleast_2d(residuals) @ U)


def frozen_kernel_prediction(params, x_train, y_train, x_test, gamma, eta, t):
    Th = ntk(params, x_train, gamma)
    d0 = forward(params, x_train, gamma) - np.asarray(y_train, float)
    # Theta^{-1}(I - e^{-eta Theta t}) = eta * int_0^t e^{-eta Theta s} ds, via the block-matrix exponential
    n = len(d0)
    M = np.zeros((2 * n, 2 * n))
    M[:n, :n] = -eta * Th * t
    M[:n, n:] = np.eye(n) * eta * t
    E = _sla.expm(M)
    return forward(params, x_test, gamma) - ntk(params, x_test, gamma, x2=x_train) @ (E[:n, n:] @ d0)
