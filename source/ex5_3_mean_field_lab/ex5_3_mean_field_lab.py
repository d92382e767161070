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
# # ex5_3_mean_field_lab: The mean-field network (lab), the scaling dial, and two readings on grokking
#
# *Notes: Sections 5.2–5.4 and Exercises 5.2–5.4 (computational), Exercises 5.5–5.6
# (Sections 5.6–5.7, readings on grokking) and the discussion prompts of Section 1
# (written). This lab continues `ex4_4_lazy_lab` (Exercise 4.4): same data, same teacher,
# same student.*
#
# **The student** (notes, eq. (4.40)), with order-one weights $a_i,c_i\sim\mathcal N(0,1)$,
# $$
# f(x)=N^{-\gamma}\sum_{i=1}^Nc_i\,\phi(a_ix),\qquad \phi=\tanh ,
# $$
# trained on $n=30$ equispaced points $x^\mu\in[-2,2]$ with labels
# $y(x)=2\tanh(3x)-\frac32\tanh(x)$ and the loss
# $\mathcal L=\frac12\sum_\mu(f(x^\mu)-y^\mu)^2$, residual $\Delta^\mu=f(x^\mu)-y^\mu$. In
# Exercise 4.4 the exponent was $\gamma=\frac12$ (fan-in, lazy); here it is the **mean-field**
# value $\gamma=1$, and in Exercise 5.4 anything in between (the *scaling dial*, (5.27)).
#
# **What you implement** (graded by hidden tests):
#
# | part | function | notes |
# |---|---|---|
# | (a), 5.4 | `mf_train(N, steps, dtau, seed, gamma, ...)` | rescaled updates (5.15), Ex 5.3; dial (5.27) |
# | (b), 5.4(b) | `init_output_scale(N, gamma, seeds, ...)` | Section 5.2.1 |
# | (c), 5.4(c) | `kernel_drift_dial(N, gamma, seed, ...)` | Sections 5.3–5.4 |
# | 5.4 | `dial_exponents(gammas, Ns, ...)` | Section 5.4, Exercise 5.4 |
# | 5.2(b) | `balancedness(params)` | Exercise 5.2(b) |
#
# Written answers (graded by hand): Exercise 5.4(c)–(d) on the measured exponents, 5.3(e)
# (feature learning or feature copying?), Exercises 5.5 and 5.6 (the two readings on
# grokking, including an experiment that tells them apart), and the three prompts of the
# Section 1 reading.
#
# **Conventions in code.** Parameters are a dict `{"a": array (N,), "c": array (N,)}`. The
# provided cells give the data (`lab_data`), the teacher, the monitored NTK
# `ntk(params, x, gamma, x2=None, activation="tanh")` (eq. (4.41)), the activations
# `ACTIVATIONS = {"tanh": (phi, phi'), "relu": (phi, phi')}`, the network output
# `network(params, x, gamma)` and the initialization `init_neurons(N, seed)`, which every
# function below must use for its seeds (so that runs are reproducible and comparable).
#
# **Run time.** By default the mean-field runs use $\Delta\tau=5\times10^{-3}$ with
# $4\times10^3$ steps instead of the notes' $\Delta\tau=5\times10^{-4}$ with $4\times10^4$
# steps (both reach $\tau=20$, and the coarser step gives the same cloud). Set `FULL_SIZE = True` in the cell after the parameters for the notes' sizes.

# %% tags=["setup"]
import numpy as np
from scipy import integrate
import matplotlib.pyplot as plt

# %% tags=["params"]
def draw_params(rng):
    """This year's lab parameters, drawn within their valid ranges."""
    n0 = int(rng.integers(25, 36))
    ratio = float(rng.uniform(3.0, 3.4))
    d0 = int(rng.integers(80, 121))
    return {
        # widths of the lazy-vs-mean-field drift curves (c): ~30 to ~1300
        "Ns": [int(round(n0 * ratio**k)) for k in range(4)],
        # width and seed of the particle-cloud runs (d)
        "N_cloud": int(rng.choice([250, 300, 350])),
        "seed": int(rng.integers(0, 1000)),
        # input at which f_0 is sampled in (b)
        "x_probe": round(float(rng.uniform(0.7, 1.5)), 2),
        # the scaling dial (Exercise 5.4): gamma from 1/2 to 1 and a range of widths
        "gammas": [0.5, round(float(rng.uniform(0.58, 0.66)), 3), round(float(rng.uniform(0.70, 0.80)), 3),
                   round(float(rng.uniform(0.84, 0.92)), 3), 1.0],
        "dial_Ns": [int(round(d0 * 3.16**k)) for k in range(4)],
    }


# %% tags=["provided"]
# pdl-include: _shared/tanh_net.py


def init_neurons(N, seed):
    """The lab's initial neurons: a_i, c_i ~ N(0, 1), drawn as rng = np.random.default_rng(seed),
    a = rng.standard_normal(N), then c = rng.standard_normal(N). Returns {"a": (N,), "c": (N,)}."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(N)
    return {"a": a, "c": rng.standard_normal(N)}


def network(params, x, gamma, activation="tanh"):
    """The student's output N^(-gamma) sum_i c_i phi(a_i x) at the inputs x (array (m,))."""
    phi = ACTIVATIONS[activation][0]
    weights_in, weights_out = np.asarray(params["a"], float), np.asarray(params["c"], float)
    return weights_in.size ** (-gamma) * (phi(np.multiply.outer(np.asarray(x, float), weights_in)) @ weights_out)


# Lab constants (notes, Exercise 5.3).
FULL_SIZE = False                         # True: the notes' dtau = 5e-4 and 4e4 steps (several minutes)
DTAU = 5e-4 if FULL_SIZE else 5e-3        # rescaled time step of the mean-field runs
TAU_END = 20.0                            # rescaled training time tau = eta_tilde * t
ETA_LAZY = 0.02                           # the lazy run of Exercise 4.4 (gamma = 1/2): eta = eta_tilde
X_TRAIN, Y_TRAIN = lab_data()

# %% tags=["reference"]
# Reference-only helpers (not shown to students).
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(256)


def _gp_variance(x):
    """K(x, x) = E_a tanh(a x)^2, a ~ N(0, 1), by Gauss-Legendre on [0, 12] (even integrand)."""
    a = 6.0 * (_GL_NODES + 1.0)
    w = 6.0 * _GL_WEIGHTS * np.exp(-a**2 / 2) / np.sqrt(2 * np.pi)
    return float(2.0 * np.sum(w * np.tanh(a * x) ** 2))


def _slope(Ns, values):
    return float(np.polyfit(np.log(np.asarray(Ns, dtype=float)), np.log(np.asarray(values, dtype=float)), 1)[0])


# %% [markdown]
# ## The rescaled updates, for every $\gamma$ on the dial
#
# *Exercise 5.2(a).* Expanding the square with $f=\frac1N\sum_ic_i\phi(a_ix)$ ($\gamma=1$),
# $$
# N\mathcal L=\frac N2\sum_\mu(y^\mu)^2+\sum_{i}V(\theta_i)+\frac1{2N}\sum_{i,j}U(\theta_i,\theta_j),
# \qquad V(\theta)=-\sum_\mu y^\mu c\,\phi(ax^\mu),\quad
# U(\theta,\theta')=\sum_\mu c\,\phi(ax^\mu)\,c'\phi(a'x^\mu), \tag{5.12–5.13}
# $$
# a mean-field energy: a one-body potential (the data, the "external field") and a $1/N$
# pair interaction (neurons that produce the same output on the data repel). The gradient
# of $\mathcal L$ per neuron is $O(1/N)$, so gradient flow needs $\eta=N\tilde\eta$ (5.14),
# and with $\tau=\tilde\eta t$,
# $$
# \frac{dc_i}{d\tau}=-\sum_\mu\Delta^\mu\phi(a_ix^\mu),\qquad
# \frac{da_i}{d\tau}=-c_i\sum_\mu\Delta^\mu\phi'(a_ix^\mu)\,x^\mu . \tag{5.15}
# $$
# Neuron $i$ feels the others only through the residual, i.e. through the mean field
# $f_\rho$.
#
# **The dial** (Section 5.4). For general $\gamma$ the NTK is $\Theta=O(N^{1-2\gamma})$
# (a sum of $N$ terms times $N^{-2\gamma}$), so keeping $\dot f=-\eta\Theta\Delta$ of order one
# needs $\eta=N^{2\gamma-1}\tilde\eta$. The gradient carries $N^{-\gamma}$, so one Euler step
# $\Delta\tau$ of the rescaled flow is
# $$
# c_i\leftarrow c_i-\Delta\tau\,N^{\gamma-1}\sum_\mu\Delta^\mu\phi(a_ix^\mu),\qquad
# a_i\leftarrow a_i-\Delta\tau\,N^{\gamma-1}c_i\sum_\mu\Delta^\mu\phi'(a_ix^\mu)\,x^\mu ,
# $$
# i.e. plain gradient descent on $\mathcal L$ with learning rate $\eta=N^{2\gamma-1}\Delta\tau$,
# both updates from the current parameters. At $\gamma=1$ these are the updates of
# Exercise 5.3 (no $1/N$ anywhere: the $O(N)$ learning rate is built in); at $\gamma=\frac12$
# they are the lazy run of Exercise 4.4 with $\eta=\Delta\tau$. The rescaled time after $k$
# steps is $\tau=k\Delta\tau$ for every $\gamma$, so runs along the dial are compared at equal
# $\tau$ (the same initial function-space speed: $N^{2\gamma-1}\Theta$ tends to the same kernel
# for every $\gamma$).
#
# **Task.** Implement `mf_train`.

# %% tags=["graded"]
def mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None):
    """Rescaled gradient descent on the lab data at prefactor exponent gamma (Ex 5.3, eqs. (5.15), (5.27)).

    Plain GD on L = 1/2 sum_mu (f(x^mu) - y^mu)^2 with learning rate eta = N^(2 gamma - 1) * dtau,
    i.e. per step (both from the current parameters):
        c_i -= dtau * N^(gamma - 1) * sum_mu Delta^mu phi(a_i x^mu)
        a_i -= dtau * N^(gamma - 1) * c_i * sum_mu Delta^mu phi'(a_i x^mu) x^mu
    on the inputs x = lab_data()[0]. At gamma = 1 these are the notes' updates of Ex 5.3.

    Args:
        N: int, the width.
        steps: int >= 0, number of steps; the rescaled time after k steps is tau = k * dtau.
        dtau: float, the rescaled time step (eta_tilde).
        seed: int, initial neurons init_neurons(N, seed) (ignored if params0 is given).
        gamma: float in [1/2, 1], the prefactor exponent (default 1, mean field).
        record_every: int >= 1 or None (None: only the first and the last step). Records at
            steps 0, r, 2r, ... and at the final step.
        y: None (the lab teacher's labels) or a float array (30,) of labels on the lab inputs.
        activation: "tanh" or "relu" (phi and phi' from ACTIVATIONS).
        params0: None or a dict {"a": (N,), "c": (N,)} of initial weights (then N = its length).
    Returns:
        dict of numpy arrays, R = number of records:
          "tau":  (R,) rescaled times k * dtau;   "loss": (R,) L at those times;
          "a", "c": (R, N) the neurons;           "ntk": (R, 30, 30) the NTK (4.41) at exponent
          gamma (ntk(params, x, gamma, activation=activation)).
    """
    x, y_lab = lab_data()
    y = y_lab if y is None else np.asarray(y, dtype=float)
    p = init_neurons(N, seed) if params0 is None else params0
    a = np.array(p["a"], dtype=float)
    c = np.array(p["c"], dtype=float)
    N = a.size
    act, act_prime = ACTIVATIONS[activation]
    every = steps if record_every is None else record_every
    record_at = set(range(0, steps + 1, max(every, 1))) | {steps}
    speed = dtau * N ** (gamma - 1.0)
    out = {"tau": [], "loss": [], "a": [], "c": [], "ntk": []}
    for k in range(steps + 1):
        z = np.outer(a, x)                                   # (N, n) pre-activations a_i x^mu
        P = act(z)
        delta = N ** (-gamma) * (c @ P) - y
        if k in record_at:
            out["tau"].append(k * dtau)
            out["loss"].append(0.5 * delta @ delta)
            out["a"].append(a.copy())
            out["c"].append(c.copy())
            out["ntk"].append(ntk({"a": a, "c": c}, x, gamma, activation=activation))
        if k == steps:
            break
        step_c = speed * (P @ delta)
        step_a = speed * c * (act_prime(z) @ (delta * x))
        a, c = a - step_a, c - step_c
    return {key: np.array(val) for key, val in out.items()}


# %% tags=["check"]
@check
def check_mf_train_records():
    "mf_train: records, shapes, the initial state, and tau = k dtau"
    run = mf_train(8, 25, 0.01, 3, 1.0, record_every=10)
    assert np.allclose(run["tau"], [0.0, 0.1, 0.2, 0.25]), "records at 0, r, 2r, ... and at the last step"
    assert np.shape(run["a"]) == (4, 8) and np.shape(run["ntk"]) == (4, 30, 30)
    p0 = init_neurons(8, 3)
    assert np.allclose(run["a"][0], p0["a"]) and np.allclose(run["c"][0], p0["c"]), "start from init_neurons(N, seed)"
    f0 = network(p0, X_TRAIN, 1.0)
    assert np.isclose(run["loss"][0], 0.5 * np.sum((f0 - Y_TRAIN) ** 2))
    assert np.shape(mf_train(8, 5, 0.01, 3)["tau"]) == (2,), "record_every=None: first and last step only"


@check
def check_mf_train_is_scaled_gradient_descent():
    "mf_train: one step is eta grad L with eta = N^(2 gamma - 1) dtau (finite differences)"
    for gamma in (1.0, 0.5, 0.8):
        p = init_neurons(6, 1)
        th = np.concatenate([p["a"], p["c"]])

        def loss(t):
            r = network({"a": t[:6], "c": t[6:]}, X_TRAIN, gamma) - Y_TRAIN
            return 0.5 * r @ r

        h = 1e-6
        grad = np.array([(loss(th + h * e) - loss(th - h * e)) / (2 * h) for e in np.eye(12)])
        run = mf_train(6, 1, 0.01, 1, gamma, record_every=1)
        want = th - 6 ** (2 * gamma - 1) * 0.01 * grad
        assert np.allclose(np.concatenate([run["a"][1], run["c"][1]]), want, atol=1e-8), f"gamma = {gamma}"


@check
def check_mf_train_labels_and_start():
    "mf_train with given labels y, given initial weights params0 (their width counts) and ReLU"
    p = {"a": np.array([0.5, -1.2, 0.8, 2.0]), "c": np.array([1.0, 0.3, -0.7, -0.1])}
    y = np.linspace(-0.5, 0.5, 30)
    th = np.concatenate([p["a"], p["c"]])

    def loss(t):
        r = network({"a": t[:4], "c": t[4:]}, X_TRAIN, 0.75, "relu") - y
        return 0.5 * r @ r

    h = 1e-6
    grad = np.array([(loss(th + h * e) - loss(th - h * e)) / (2 * h) for e in np.eye(8)])
    run = mf_train(100, 1, 0.02, 0, 0.75, record_every=1, y=y, activation="relu", params0=p)
    assert np.allclose(run["a"][0], p["a"]), "with params0 the run starts from those weights (the seed is ignored)"
    want = th - 4 ** (2 * 0.75 - 1) * 0.02 * grad
    assert np.allclose(np.concatenate([run["a"][1], run["c"][1]]), want, atol=1e-8), \
        "labels y, width N = len(params0) = 4 (not the argument N), ReLU derivative"


# %% tags=["solution"]
# Independent checks: (i) one step of `mf_train` against PyTorch
# autograd of $\mathcal L$ times the learning rate $N^{2\gamma-1}\Delta\tau$; (ii) the Euler
# scheme against an accurate ODE solver (`scipy.integrate.solve_ivp`, RK45 with tight
# tolerances) for the flow (5.15) at $N=20$ up to $\tau=2$: the discrepancy must shrink
# linearly with $\Delta\tau$; (iii) the default step $\Delta\tau=5\times10^{-3}$ against the
# notes' $5\times10^{-4}$ at $\tau=20$ for the cloud of part (d).
import torch

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)
worst = 0.0
for N_chk, gamma_chk in [(9, 1.0), (30, 0.5), (17, 0.75)]:
    p = init_neurons(N_chk, 42)
    a_t, c_t = torch.tensor(p["a"], requires_grad=True), torch.tensor(p["c"], requires_grad=True)
    f_t = N_chk ** (-gamma_chk) * torch.tanh(torch.outer(torch.tensor(X_TRAIN), a_t)) @ c_t
    L_t = 0.5 * torch.sum((f_t - torch.tensor(Y_TRAIN)) ** 2)
    ga, gc = torch.autograd.grad(L_t, (a_t, c_t))
    lr = N_chk ** (2 * gamma_chk - 1) * 0.01
    run = mf_train(N_chk, 1, 0.01, 42, gamma_chk, record_every=1)
    worst = max(worst, np.max(np.abs(run["a"][1] - (p["a"] - lr * ga.numpy()))),
                np.max(np.abs(run["c"][1] - (p["c"] - lr * gc.numpy()))))
assert worst < 1e-12
print("(i) one step of mf_train vs autograd: max |difference| < 1e-12")   # round-off: a bound


def flow_rhs(tau, theta, N, gamma, phi=np.tanh, dphi=lambda u: 1 / np.cosh(u) ** 2):
    a, c = theta[:N], theta[N:]
    z = np.outer(a, X_TRAIN)
    delta = N ** (-gamma) * (c @ phi(z)) - Y_TRAIN
    return -N ** (gamma - 1) * np.concatenate([c * (dphi(z) @ (delta * X_TRAIN)), phi(z) @ delta])


N_ode, tau_ode = 20, 2.0
p_ode = init_neurons(N_ode, 5)
sol = integrate.solve_ivp(flow_rhs, (0, tau_ode), np.concatenate([p_ode["a"], p_ode["c"]]), args=(N_ode, 1.0),
                          rtol=1e-11, atol=1e-12)
theta_ode = sol.y[:, -1]
errs = []
for dt in [0.004, 0.002, 0.001]:
    r = mf_train(N_ode, int(round(tau_ode / dt)), dt, 5, 1.0)
    errs.append(np.max(np.abs(np.concatenate([r["a"][-1], r["c"][-1]]) - theta_ode)))
print("(ii) Euler vs RK45 at tau = 2, dtau = 0.004, 0.002, 0.001: max |difference| =",
      ", ".join(f"{e:.2e}" for e in errs), f"; ratios {errs[0] / errs[1]:.2f}, {errs[1] / errs[2]:.2f} (first order: 2)")
assert errs[-1] < 0.02 and 1.8 < errs[0] / errs[1] < 2.3 and 1.8 < errs[1] / errs[2] < 2.3

# %% [markdown]
# ## (a) It fits
#
# The figure trains the mean-field network ($\gamma=1$, width `PARAMS["N_cloud"]`) to
# $\tau=20$ and, for comparison, the lazy network of Exercise 4.4 ($\gamma=\frac12$,
# $\eta=\tilde\eta=0.02$, also to $\tau=20$, i.e. 1000 steps), and plots the loss against
# rescaled time. Both fit. Compared at *equal* rescaled time, the mean-field network is not
# the slower one here: once the lazy network has fitted its top NTK modes it is stuck with the
# slow ones ($t_k=1/(\eta s_k^2)$, Exercise 4.4(d)), while the mean-field network moves its
# kernel. (The notes' remark that the mean-field run fits "more slowly" compares the two lab runs
# as specified: the lazy one runs to $\eta t=800$, the mean-field one to $\tau=20$.)

# %% tags=["figure"]
N_CL, SEED = PARAMS["N_cloud"], PARAMS["seed"]
mf_steps = int(round(TAU_END / DTAU))
mf_run = mf_train(N_CL, mf_steps, DTAU, SEED, 1.0, record_every=int(round(0.2 / DTAU)))
lazy_run = mf_train(N_CL, int(round(TAU_END / ETA_LAZY)), ETA_LAZY, SEED, 0.5, record_every=10)
x_fine = np.linspace(-2.5, 2.5, 300)
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
axes[0].semilogy(lazy_run["tau"], lazy_run["loss"], label=r"lazy, $\gamma=1/2$")
axes[0].semilogy(mf_run["tau"], mf_run["loss"], label=r"mean field, $\gamma=1$")
axes[0].set(xlabel=r"rescaled time $\tau$", ylabel=r"$\mathcal{L}$", title=f"(a) training loss, $N={N_CL}$")
axes[0].legend()
for run_, lab in [(lazy_run, r"lazy, $\gamma=1/2$"), (mf_run, r"mean field, $\gamma=1$")]:
    g = 0.5 if run_ is lazy_run else 1.0
    axes[1].plot(x_fine, network({"a": run_["a"][-1], "c": run_["c"][-1]}, x_fine, g), label=lab)
axes[1].plot(x_fine, teacher(x_fine), "k--", lw=1, label="teacher")
axes[1].plot(X_TRAIN, Y_TRAIN, "ko", ms=3)
axes[1].set(xlabel="$x$", title=r"(a) the fits at $\tau=20$")
axes[1].legend(fontsize=8)
plt.tight_layout()
plt.show()
print(f"loss at tau = 20: lazy {lazy_run['loss'][-1]:.2e}, mean field {mf_run['loss'][-1]:.2e}")

# %% [markdown]
# ## (b) Initialization: the output collapses to zero
#
# From Section 5.2.1 (and `ex4_4_lazy_lab` (b)): for every $N$ the summands
# $c_i\tanh(a_ix)$ are i.i.d. with mean zero, so
# $$
# \mathrm{std}\,f_0(x)=N^{\frac12-\gamma}\sqrt{K(x,x)},\qquad K(x,x)=\mathbb E_a\tanh^2(ax),
# $$
# exactly (not only asymptotically): $O(1)$ at $\gamma=\frac12$ (the GP), $N^{-1/2}$ at
# $\gamma=1$, and $N^{1/2-\gamma}$ along the dial (Exercise 5.4(b)).
#
# **Task.** Implement `init_output_scale`: the sample standard deviation (`ddof=1`) of
# $f_0(x)$ over networks `init_neurons(N, s)`, $s$ in `seeds`.

# %% tags=["graded"]
def init_output_scale(N, gamma, seeds, x=1.0):
    """Sample standard deviation of the initial output f_0(x) over seeds (Ex 5.3(b), Ex 5.4(b)).

    Args:
        N: int, the width.  gamma: float, the prefactor exponent.
        seeds: list of at least two ints; network s has weights init_neurons(N, s).
        x: float, the input (default 1, as in the notes).
    Returns:
        float, std of {f_0(x; seed s)} with ddof = 1 (the sample standard deviation, not the
        variance). Expected: N^(1/2 - gamma) sqrt(K(x, x)).
    """
    f0 = [network(init_neurons(N, int(s)), np.array([x]), gamma)[0] for s in seeds]
    return float(np.std(f0, ddof=1))


# %% tags=["check"]
@check
def check_init_output_scale():
    "init_output_scale: matches the seeds by hand, and gamma only rescales it by N^(1/2 - gamma)"
    seeds = list(range(20))
    f0 = [np.sum(init_neurons(50, s)["c"] * np.tanh(init_neurons(50, s)["a"] * 0.8)) / 50 for s in seeds]
    assert np.isclose(init_output_scale(50, 1.0, seeds, x=0.8), np.std(f0, ddof=1)), "std with ddof=1 over the seeds"
    assert np.isclose(init_output_scale(50, 0.5, seeds), init_output_scale(50, 1.0, seeds) * np.sqrt(50))
    f2 = [network(init_neurons(7, s), np.array([-0.4]), 0.8)[0] for s in (3, 9)]
    assert np.isclose(init_output_scale(7, 0.8, [3, 9], x=-0.4), abs(f2[1] - f2[0]) / np.sqrt(2)), \
        "two seeds (the fewest): the sample std with ddof = 1 is |f_1 - f_2| / sqrt(2)"
    assert init_output_scale(7, 0.8, [3, 9], x=0.0) == 0.0, "x = 0.0 is an input: f_0(0) = 0 for every network"


# %% [markdown]
# The figure samples $f_0(x)$ at $x$ = `PARAMS["x_probe"]` over 200 seeds for several widths
# at $\gamma=1$: the histograms collapse toward zero; the right panel shows the standard
# deviation against $N$ for $\gamma=1$ and $\gamma=\frac12$ with the exact prediction.

# %% tags=["figure"]
x_b = PARAMS["x_probe"]
seeds_b = list(range(200))
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
for N in [30, 300, 3000]:
    f0 = [network(init_neurons(N, s), np.array([x_b]), 1.0)[0] for s in seeds_b]
    axes[0].hist(f0, bins=25, density=True, histtype="step", lw=1.5, label=f"$N={N}$")
axes[0].set(xlabel=f"$f_0(x={x_b})$", title=r"(b) mean-field initialization, $\gamma=1$, 200 seeds")
axes[0].legend()
Ns_b = np.array([10, 30, 100, 300, 1000, 3000])
K_b = 2 * integrate.quad(lambda a: np.exp(-a * a / 2) / np.sqrt(2 * np.pi) * np.tanh(a * x_b) ** 2, 0, np.inf)[0]
for gamma, color in [(0.5, "C0"), (1.0, "C1")]:
    sd = [init_output_scale(int(N), gamma, seeds_b, x=x_b) for N in Ns_b]
    slope = np.polyfit(np.log(Ns_b), np.log(sd), 1)[0]
    axes[1].loglog(Ns_b, sd, "o", color=color, label=f"$\\gamma={gamma}$: fitted slope {slope:.3f}")
    axes[1].loglog(Ns_b, Ns_b ** (0.5 - gamma) * np.sqrt(K_b), "-", color=color, lw=1)
axes[1].set(xlabel="$N$", ylabel=r"std $f_0(x)$", title=r"lines: $N^{1/2-\gamma}\sqrt{K(x,x)}$")
axes[1].legend()
plt.tight_layout()
plt.show()

# %% tags=["solution"]
# Independent check: `init_output_scale` against the closed form
# $N^{1/2-\gamma}\sqrt{K(x,x)}$ with $K$ by adaptive quadrature, in units of the standard
# error of a sample standard deviation, $\sigma/\sqrt{2(S-1)}$, for several $(N,\gamma)$ and
# $S=400$ seeds.
S = 400
for N, gamma in [(20, 1.0), (500, 1.0), (200, 0.75), (1000, 0.6)]:
    sigma = N ** (0.5 - gamma) * np.sqrt(K_b)
    got = init_output_scale(N, gamma, list(range(1000, 1000 + S)), x=x_b)
    z = (got - sigma) / (sigma / np.sqrt(2 * (S - 1)))
    print(f"N={N:5d}, gamma={gamma}: sampled std {got:.4f}, N^(1/2-gamma) sqrt(K) = {sigma:.4f}, z = {z:+.2f}")
    assert abs(z) < 4

# %% [markdown]
# ## (c) The kernel moves
#
# In mean-field scaling each neuron moves an order-one distance (Section 5.3), so the
# kernel $N\Theta=\int k_\theta\,d\rho$ is dragged along at order one; at $\gamma=\frac12$ it
# freezes. We measure both at the same rescaled horizon $\tau=20$ (with $\tilde\eta=\Delta\tau=0.02$,
# 1000 steps, for both; at $\gamma=\frac12$ this is exactly the lazy run of Exercise 4.4 stopped at
# $\eta t=20$):
# $$
# \mathrm{drift}=\frac{\|\Theta_{\rm end}-\Theta_0\|_F}{\|\Theta_0\|_F},
# $$
# where the prefactor $N^{-2\gamma}$ cancels in the ratio.
#
# **Task.** Implement `kernel_drift_dial` (use `mf_train`).

# %% tags=["graded"]
def kernel_drift_dial(N, gamma, seed, tau=20.0, dtau=0.02):
    """Relative NTK drift after rescaled time tau at prefactor exponent gamma (Ex 5.3(c), Ex 5.4(c)).

    Trains with mf_train(N, steps, dtau, seed, gamma) with steps = round(tau / dtau) (learning
    rate eta = N^(2 gamma - 1) dtau) and returns ||Theta_end - Theta_0||_F / ||Theta_0||_F for
    the NTK (4.41) at exponent gamma.

    Args:
        N: int.  gamma: float in [1/2, 1].  seed: int (init_neurons(N, seed)).
        tau: float, the rescaled training time (default 20, the lab's).
        dtau: float, the rescaled step (default 0.02: at gamma = 1/2 this is the lazy lab's eta).
    Returns:
        float >= 0.
    """
    run = mf_train(N, int(round(tau / dtau)), dtau, seed, gamma)
    return float(np.linalg.norm(run["ntk"][-1] - run["ntk"][0]) / np.linalg.norm(run["ntk"][0]))


# %% tags=["check"]
@check
def check_kernel_drift_dial():
    "kernel_drift_dial: agrees with mf_train, and is zero at tau = 0"
    run = mf_train(10, 30, 0.01, 4, 0.75)
    want = np.linalg.norm(run["ntk"][-1] - run["ntk"][0]) / np.linalg.norm(run["ntk"][0])
    assert np.isclose(kernel_drift_dial(10, 0.75, 4, tau=0.3, dtau=0.01), want)
    assert kernel_drift_dial(10, 1.0, 4, tau=0.0) == 0.0
    run = mf_train(10, 29, 0.01, 4, 0.75)
    want = np.linalg.norm(run["ntk"][-1] - run["ntk"][0]) / np.linalg.norm(run["ntk"][0])
    assert np.isclose(kernel_drift_dial(10, 0.75, 4, tau=0.29, dtau=0.01), want), \
        "steps = round(tau / dtau): 0.29 / 0.01 is 28.999... in floating point, and int() would drop a step"


# %% [markdown]
# One plot, two curves, the whole dichotomy (widths `PARAMS["Ns"]`, three seeds each):

# %% tags=["figure"]
Ns_c = PARAMS["Ns"]
drift_c = {g: np.array([[kernel_drift_dial(N, g, s) for s in range(3)] for N in Ns_c]) for g in (0.5, 1.0)}
fig, ax = plt.subplots(figsize=(7, 4.5))
for g, label in [(0.5, r"lazy, $\gamma=1/2$"), (1.0, r"mean field, $\gamma=1$")]:
    slope = np.polyfit(np.log(Ns_c), np.log(drift_c[g].mean(axis=1)), 1)[0]
    ax.loglog(np.repeat(Ns_c, 3), drift_c[g].ravel(), "o", color="0.75", ms=4)
    ax.loglog(Ns_c, drift_c[g].mean(axis=1), "o-", label=f"{label}: slope {slope:.2f}")
ax.set(xlabel="width $N$", ylabel=r"$\|\Theta_{\rm end}-\Theta_0\|_F/\|\Theta_0\|_F$",
       title=r"(c) kernel drift at $\tau=20$: frozen vs moving")
ax.legend()
plt.show()

# %% [markdown]
# ## (d) Watch the particles (Figure 6)
#
# Each neuron is a particle $(a_i,c_i)$. The figure shows the clouds of the two runs of (a)
# at $\tau\approx0,\ 0.4,\ 2,\ 20$, with the trajectories of 40 particles. Lazy: the cloud is
# static (each weight moves $O(N^{-1/2})$). Mean field: it transports and condenses onto thin
# filaments. The last mean-field panel also shows (contours) the final cloud of a run with
# a much larger width, $N=2000$ (at $\Delta\tau=0.01$): the pattern is the same, because both
# sample one deterministic limiting measure $\rho_\tau$. The cloud is symmetric under
# $(a,c)\mapsto(-a,-c)$, the oddness of $\tanh$.

# %% tags=["figure"]
snap_taus = [0.0, 0.4, 2.0, TAU_END]
N_BIG = 2000
big = mf_train(N_BIG, int(round(TAU_END / 0.01)), 0.01, SEED + 1, 1.0, record_every=40)
fig, axes = plt.subplots(2, 4, figsize=(16, 7.5), sharex=True, sharey=True)
track = np.arange(40)
for row, (run_, name) in enumerate([(lazy_run, r"lazy $\gamma=1/2$"), (mf_run, r"mean field $\gamma=1$")]):
    for col, tau in enumerate(snap_taus):
        ax = axes[row, col]
        k = int(np.argmin(np.abs(run_["tau"] - tau)))
        ax.plot(run_["a"][: k + 1, track], run_["c"][: k + 1, track], color="0.7", lw=0.6)
        ax.scatter(run_["a"][k], run_["c"][k], s=5, c=np.full(N_CL, run_["tau"][k]), cmap="viridis",
                   vmin=0, vmax=TAU_END)
        ax.set_title(f"{name}, $\\tau={run_['tau'][k]:.1f}$", fontsize=10)
        if row == 1 and col == 3:
            H, xe, ye = np.histogram2d(big["a"][-1], big["c"][-1], bins=60, range=[[-6, 6], [-8, 8]])
            ax.contour(0.5 * (xe[1:] + xe[:-1]), 0.5 * (ye[1:] + ye[:-1]), H.T, levels=[1, 4, 16], colors="C3",
                       linewidths=0.7)
for ax in axes[1]:
    ax.set_xlabel("$a_i$")
for ax in axes[:, 0]:
    ax.set_ylabel("$c_i$")
axes[0, 0].set(xlim=(-6, 6), ylim=(-8, 8))
plt.tight_layout()
plt.show()
moves = {name: np.median(np.hypot(r_["a"][-1] - r_["a"][0], r_["c"][-1] - r_["c"][0]))
         for name, r_ in [("lazy", lazy_run), ("mean field", mf_run)]}
print("median distance moved by a neuron up to tau = 20:", {k: round(float(v), 4) for k, v in moves.items()})

# %% tags=["solution"]
# Independent check: (iii) the default step against the notes' step
# (at the same seed, $N=100$): the final clouds agree particle by particle to within the
# Euler error, and the final outputs $f(x)$ agree closely; (iv) the limit: the functions
# $f_{\rho_\tau}$ at $N$ = `N_cloud` and $N=2000$ (independent seeds) differ by $O(N^{-1/2})$ at every
# $\tau$: two draws of the same deterministic limiting measure.
fine = mf_train(100, 40_000, 5e-4, SEED, 1.0)
coarse = mf_train(100, 4_000, 5e-3, SEED, 1.0)
move = np.median(np.hypot(fine["a"][-1] - fine["a"][0], fine["c"][-1] - fine["c"][0]))
dev = np.median(np.hypot(fine["a"][-1] - coarse["a"][-1], fine["c"][-1] - coarse["c"][-1]))
f_fine = network({"a": fine["a"][-1], "c": fine["c"][-1]}, x_fine, 1.0)
f_coarse = network({"a": coarse["a"][-1], "c": coarse["c"][-1]}, x_fine, 1.0)
print(f"(iii) N=100, dtau = 5e-3 vs 5e-4 at tau = 20: median particle difference {dev:.3f} "
      f"(median distance moved {move:.2f}); max |f difference| {np.max(np.abs(f_fine - f_coarse)):.1e}")
assert dev < 0.1 * move and np.max(np.abs(f_fine - f_coarse)) < 0.02
for tau in [0.4, 2.0, TAU_END]:
    k_small, k_big = int(np.argmin(np.abs(mf_run["tau"] - tau))), int(np.argmin(np.abs(big["tau"] - tau)))
    f_small = network({"a": mf_run["a"][k_small], "c": mf_run["c"][k_small]}, x_fine, 1.0)
    f_big = network({"a": big["a"][k_big], "c": big["c"][k_big]}, x_fine, 1.0)
    gap_iv = np.max(np.abs(f_small - f_big))
    print(f"(iv)  N={N_CL} vs N={N_BIG} (independent seeds) at tau = {tau:g}: max |f difference| = {gap_iv:.3f} "
          f"(N^-1/2 = {N_CL ** -0.5:.3f}; spread of f: {np.ptp(f_big):.2f})")
    assert gap_iv < 4 * N_CL ** -0.5

# %% [markdown]
# ## Exercise 5.2(b): balancedness
#
# For a positively homogeneous activation, $\phi'(z)z=\phi(z)$ (ReLU). Along (5.15),
# $$
# \frac{d}{d\tau}\big(c_i^2-a_i^2\big)=2c_i\dot c_i-2a_i\dot a_i
# =-2c_i\sum_\mu\Delta^\mu\big[\phi(a_ix^\mu)-\phi'(a_ix^\mu)\,a_ix^\mu\big]=0 ,
# $$
# for every neuron and every $\gamma$ (the common factor $N^{\gamma-1}$ does not matter). The
# two layers of a neuron stay tied together: each particle moves on its own hyperbola
# $c^2-a^2=\mathrm{const}$. Gradient *descent* conserves it only approximately: one Euler step
# changes it by $(\delta c_i)^2-(\delta a_i)^2=O(\Delta\tau^2)$, so the violation after a
# fixed time $\tau$ is $O(\Delta\tau)$ — "conserved under small-step flow". For $\tanh$,
# $\phi(z)-z\phi'(z)\neq0$ and nothing is conserved.
#
# **Task.** Implement `balancedness` ($d=1$: $|a_i|^2=a_i^2$).

# %% tags=["graded"]
def balancedness(params):
    """Per-neuron balancedness c_i^2 - |a_i|^2 (Ex 5.2(b)); conserved by the ReLU flow.

    Args:
        params: dict {"a": array (N,) (scalar input, d = 1) or (N, d), "c": array (N,)}.
    Returns:
        float array (N,), c_i^2 - |a_i|^2.
    """
    a = np.asarray(params["a"], dtype=float)
    c = np.asarray(params["c"], dtype=float)
    a2 = a**2 if a.ndim == 1 else np.sum(a**2, axis=1)
    return c**2 - a2


# %% tags=["check"]
@check
def check_balancedness():
    "balancedness: by hand, and (nearly) conserved by a small-step ReLU run"
    assert np.allclose(balancedness({"a": np.array([1.0, -2.0]), "c": np.array([3.0, 0.5])}), [8.0, -3.75])
    run = mf_train(20, 200, 1e-3, 0, 1.0, activation="relu")
    b0 = balancedness({"a": run["a"][0], "c": run["c"][0]})
    b1 = balancedness({"a": run["a"][-1], "c": run["c"][-1]})
    assert np.max(np.abs(b1 - b0)) < 1e-2 * np.max(np.abs(b0)), "ReLU: c^2 - a^2 should barely change"


# %% [markdown]
# The figure follows the maximal violation $\max_i|B_i(\tau)-B_i(0)|$ of a ReLU student
# (on the lab teacher, $N=100$) for three step sizes, and a $\tanh$ student for contrast.

# %% tags=["figure"]
fig, ax = plt.subplots(figsize=(7, 4.5))
viol_relu = {}
for dt in [0.02, 0.01, 0.005]:
    r = mf_train(100, int(round(2.0 / dt)), dt, 7, 1.0, record_every=int(round(0.1 / dt)), activation="relu")
    B = np.array([balancedness({"a": a_, "c": c_}) for a_, c_ in zip(r["a"], r["c"])])
    viol_relu[dt] = np.max(np.abs(B - B[0]), axis=1)
    ax.semilogy(r["tau"][1:], viol_relu[dt][1:], label=rf"ReLU, $\Delta\tau={dt}$")
r = mf_train(100, 200, 0.01, 7, 1.0, record_every=10)
B = np.array([balancedness({"a": a_, "c": c_}) for a_, c_ in zip(r["a"], r["c"])])
ax.semilogy(r["tau"][1:], np.max(np.abs(B - B[0]), axis=1)[1:], "k--", label=r"tanh, $\Delta\tau=0.01$")
ax.set(xlabel=r"$\tau$", ylabel=r"$\max_i|B_i(\tau)-B_i(0)|$", title="Ex. 5.2(b): balancedness $B_i=c_i^2-a_i^2$")
ax.legend()
plt.show()
print("ReLU violation at tau = 2 for dtau = 0.02, 0.01, 0.005:", [f"{viol_relu[d][-1]:.2e}" for d in viol_relu])

# %% tags=["solution"]
# Independent check: the ReLU flow integrated by RK45
# (`solve_ivp`, tight tolerances) conserves every $B_i$ to round-off level, and the Euler
# violation halves with $\Delta\tau$ (first order).
relu, drelu = ACTIVATIONS["relu"]
p_b = init_neurons(30, 7)
sol_b = integrate.solve_ivp(flow_rhs, (0, 2.0), np.concatenate([p_b["a"], p_b["c"]]), args=(30, 1.0, relu, drelu),
                            rtol=1e-11, atol=1e-12)
B_ode = balancedness({"a": sol_b.y[:30, -1], "c": sol_b.y[30:, -1]})
drift_ode = np.max(np.abs(B_ode - balancedness(p_b)))
assert drift_ode < 1e-10   # at the integrator's tolerance: printed as a bound
print("RK45 ReLU flow to tau = 2: max |B(2) - B(0)| < 1e-10")
ratios = [viol_relu[0.02][-1] / viol_relu[0.01][-1], viol_relu[0.01][-1] / viol_relu[0.005][-1]]
print(f"Euler violation ratios when dtau halves: {ratios[0]:.2f}, {ratios[1]:.2f} (first order: 2)")
assert all(1.6 < q < 2.4 for q in ratios)

# %% [markdown]
# ## Exercise 5.4: lazy vs. rich along the dial
#
# For the family (5.27), $f=N^{-\gamma}\sum_ic_i\phi(a_ix)$ with $\eta=N^{2\gamma-1}\tilde\eta$:
#
# * (a) $\Theta=N^{-2\gamma}\sum_ik_{\theta_i}=N^{1-2\gamma}\cdot\frac1N\sum_ik_{\theta_i}=O(N^{1-2\gamma})$,
#   so $\eta\Theta=\tilde\eta\cdot O(1)$;
# * (b) $f_0=O(N^{1/2-\gamma})$ (part (b) above), and per-neuron velocities
#   $\dot\theta_i=-\eta\,\partial\mathcal L/\partial\theta_i=N^{2\gamma-1}\tilde\eta\cdot
#   N^{-\gamma}O(1)=O(N^{\gamma-1})$ (the displayed updates);
# * (c) the per-neuron kernel $k_{\theta_i}$ then changes by $O(N^{\gamma-1})$ over a fixed
#   horizon, so the normalized drift of $N^{2\gamma-1}\Theta=\frac1N\sum_ik_{\theta_i}$ is at most
#   $O(N^{\gamma-1})$: zero for $\gamma<1$, order one at $\gamma=1$.
#   This is an upper bound: compare it with the exponents you measure below.
#
# **Task.** Implement `dial_exponents`: for each $\gamma$, the least-squares slopes of
# $\log(\mathrm{std}\,f_0)$ and of $\log(\overline{\mathrm{drift}})$ (mean over seeds) against
# $\log N$. The default horizon is short ($\tau=0.2$): the exponents concern any fixed horizon,
# and a short one reaches the asymptotic regime at smaller $N$.

# %% tags=["graded"]
def dial_exponents(gammas, Ns, init_seeds=tuple(range(200)), drift_seeds=(0, 1, 2), tau=0.2, dtau=0.01, x=1.0):
    """Fitted width exponents of the initial output scale and of the kernel drift along the dial (Ex 5.4).

    For each gamma: slope of log init_output_scale(N, gamma, init_seeds, x) against log N,
    and slope of log(mean over s in drift_seeds of kernel_drift_dial(N, gamma, s, tau, dtau))
    against log N; both by least squares (np.polyfit of degree 1 on natural logs).

    Args:
        gammas: list of floats in [1/2, 1].  Ns: list of ints (at least two widths).
        init_seeds: list of ints for init_output_scale.  drift_seeds: list of ints.
        tau, dtau: passed to kernel_drift_dial.  x: input for init_output_scale.
    Returns:
        (init_exponents, drift_exponents): two float arrays of shape (len(gammas),).
        Expected: init exponent 1/2 - gamma; drift exponent <= 0, about 0 at gamma = 1.
    """
    init_exp, drift_exp = [], []
    for gamma in gammas:
        scale = [init_output_scale(int(N), gamma, list(init_seeds), x) for N in Ns]
        drift = [np.mean([kernel_drift_dial(int(N), gamma, int(s), tau, dtau) for s in drift_seeds]) for N in Ns]
        init_exp.append(np.polyfit(np.log(Ns), np.log(scale), 1)[0])
        drift_exp.append(np.polyfit(np.log(Ns), np.log(drift), 1)[0])
    return np.array(init_exp), np.array(drift_exp)


# %% tags=["check"]
@check
def check_dial_exponents():
    "dial_exponents: two widths give the two-point slopes, and the init exponent is near 1/2 - gamma"
    ie, de = dial_exponents([1.0], [20, 80], init_seeds=range(60), drift_seeds=(0,), tau=0.1)
    s = [init_output_scale(N, 1.0, range(60)) for N in (20, 80)]
    d = [kernel_drift_dial(N, 1.0, 0, tau=0.1, dtau=0.01) for N in (20, 80)]
    assert np.shape(ie) == (1,) and np.shape(de) == (1,)
    assert np.isclose(ie[0], np.log(s[1] / s[0]) / np.log(4)) and np.isclose(de[0], np.log(d[1] / d[0]) / np.log(4))
    assert abs(ie[0] + 0.5) < 0.25, "the initial output scale at gamma = 1 should fall like N^(-1/2)"
    gammas, Ns = [0.5, 0.75], [10, 20, 40]
    ie, de = dial_exponents(gammas, Ns, init_seeds=range(10), drift_seeds=(1, 2), tau=0.1, dtau=0.02, x=-0.5)
    for k, g in enumerate(gammas):
        s = [init_output_scale(N, g, range(10), -0.5) for N in Ns]
        d = [np.mean([kernel_drift_dial(N, g, seed, tau=0.1, dtau=0.02) for seed in (1, 2)]) for N in Ns]
        assert np.isclose(ie[k], np.polyfit(np.log(Ns), np.log(s), 1)[0]), f"init exponent at gamma = {g} (x, seeds)"
        assert np.isclose(de[k], np.polyfit(np.log(Ns), np.log(d), 1)[0]), f"drift exponent at gamma = {g} (dtau)"


# %% [markdown]
# The figure runs the dial for this year's $\gamma$ grid (`PARAMS["gammas"]`) and widths
# `PARAMS["dial_Ns"]`, with eight drift seeds (the drift fluctuates strongly from seed to
# seed at small width), and compares the fitted exponents with
# $\frac12-\gamma$ (initial output), with the bound $\gamma-1$ of Exercise 5.4(c), and with
# $2(\gamma-1)$ (drift).

# %% tags=["figure"]
gam = np.array(PARAMS["gammas"])
init_e, drift_e = dial_exponents(list(gam), PARAMS["dial_Ns"], init_seeds=range(200), drift_seeds=range(8))
g_line = np.linspace(0.5, 1.0, 50)
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
axes[0].plot(gam, init_e, "o", label="fitted")
axes[0].plot(g_line, 0.5 - g_line, "k-", lw=1, label=r"$1/2-\gamma$")
axes[0].set(xlabel=r"$\gamma$", ylabel="exponent", title=r"(b) initial output scale $\sim N^{1/2-\gamma}$")
axes[1].plot(gam, drift_e, "o", label=r"fitted ($\tau=0.2$)")
axes[1].plot(g_line, g_line - 1, "k--", lw=1, label=r"bound $\gamma-1$")
axes[1].plot(g_line, 2 * (g_line - 1), "k:", lw=1, label=r"$2(\gamma-1)$")
axes[1].set(xlabel=r"$\gamma$", title="(c) kernel drift exponent")
for ax in axes:
    ax.legend()
plt.tight_layout()
plt.show()
print("gamma:", gam, "\ninit exponents: ", np.round(init_e, 3), "\ndrift exponents:", np.round(drift_e, 3))

# %% tags=["solution"]
# Independent check: the drift exponent $2(\gamma-1)$ and its prefactor.
# Write $\epsilon=N^{\gamma-1}$. As $N\to\infty$ at fixed $\gamma<1$ the error obeys the
# frozen-kernel dynamics $\Delta_{k+1}=(1-\Delta\tau\,\bar K)\Delta_k$, $\Delta_0=-y$, with
# $\bar K=\mathbb E_\theta k_\theta$, and each neuron moves by the updates of `mf_train`
# with this prescribed error. The $O(\epsilon)$ change of $\mathbb E_\theta k_\theta$ vanishes
# by $c\mapsto-c$, so $\|\Delta\bar K\|/\|\bar K\|\to\epsilon^{2}D(\tau)$. Here $D$ is computed
# by quadrature over the *initial distribution* (Gauss–Legendre in $a$, where $\tanh$ has poles
# near the real axis, Gauss–Hermite in $c$, where the integrand is a polynomial) with no
# sampled neurons, and compared with $N^{2(1-\gamma)}$ times the mean sampled drift of
# `kernel_drift_dial` at $\gamma=\frac34$, where the seed-to-seed fluctuation
# ($O(N^{\gamma-3/2})$) is already small against the coherent term. The $O(\epsilon)$
# corrections (about $N^{-1/4}$ relative) are allowed for in the tolerance.
def coherent_drift_coefficient(tau, dtau, n_a=400, n_c=30, eps=1e-3):
    """D(tau): the N = infinity normalized kernel drift divided by eps^2, by quadrature over (a, c)."""
    za, wa = np.polynomial.legendre.leggauss(n_a)
    za, wa = 10 * za, 10 * wa * np.exp(-(10 * za) ** 2 / 2) / np.sqrt(2 * np.pi)
    zc, wc = np.polynomial.hermite_e.hermegauss(n_c)
    wc = wc / np.sqrt(2 * np.pi)
    a, c = (v.ravel() for v in np.meshgrid(za, zc, indexing="ij"))
    w = np.outer(wa, wc).ravel()

    def mean_kernel(a, c):
        P, dP = np.tanh(np.outer(a, X_TRAIN)), 1 / np.cosh(np.outer(a, X_TRAIN)) ** 2
        return (P * w[:, None]).T @ P + ((dP * (w * c**2)[:, None]).T @ dP) * np.outer(X_TRAIN, X_TRAIN)

    K_bar = mean_kernel(a, c)
    err = -Y_TRAIN
    for _ in range(int(round(tau / dtau))):
        z = np.outer(a, X_TRAIN)
        a, c = (a - eps * dtau * c * ((1 / np.cosh(z) ** 2) @ (err * X_TRAIN)),
                c - eps * dtau * (np.tanh(z) @ err))
        err = err - dtau * K_bar @ err
    return np.linalg.norm(mean_kernel(a, c) - K_bar) / np.linalg.norm(K_bar) / eps**2


D_quad = coherent_drift_coefficient(0.2, 0.01)
D_coarse = coherent_drift_coefficient(0.2, 0.01, n_a=200, n_c=20)
print(f"quadrature: D(tau = 0.2) = {D_quad:.4f} (coarser grid: {D_coarse:.4f})")
assert abs(D_quad - D_coarse) < 1e-3 * D_quad
g_chk, seeds_chk = 0.75, range(16)
for N in [1000, 3000, 10000, 30000]:
    d = np.array([kernel_drift_dial(N, g_chk, s, 0.2, 0.01) for s in seeds_chk]) * N ** (2 * (1 - g_chk))
    se = d.std(ddof=1) / np.sqrt(d.size)
    print(f"gamma = 3/4, N = {N:5d}: N^(2(1-gamma)) <drift> = {d.mean():.3f} +- {se:.3f}   (quadrature {D_quad:.3f})")
assert abs(d.mean() - D_quad) < 3 * se + 2 * N ** (-0.25) * D_quad

# %% [markdown]
# **Exercise 5.4(c)–(d), written.** Compare the fitted drift exponents with the bound
# $\gamma-1$. Why is the measured drift at $\gamma=\frac12$ smaller than the guaranteed
# $N^{-1/2}$, and what do the exponents between $\frac12$ and $1$ show? Reconcile
# $\gamma=\frac12$ with Section 4.3, and (optional) relate $\gamma$ to the output scale
# $\alpha$ of Chizat et al.

# %% [markdown] tags=["answer"] points=4
# *Model answer.* The initial-output exponents sit on $\frac12-\gamma$ (exact in
# expectation at every $N$; the small common offset is the sampling error of the shared seeds).
# The drift exponents are $\approx0$ at $\gamma=1$ (order-one feature movement at every width),
# negative for $\gamma<1$, and for $\gamma\lesssim\frac34$ **steeper than the bound** $\gamma-1$: close
# to $2(\gamma-1)$ (about $-1$ at $\gamma=\frac12$, $-\frac12$ at $\gamma=\frac34$). The bound assumes
# that the $O(N^{\gamma-1})$ displacements of the $N$ neurons change the averaged kernel
# $\frac1N\sum_ik_{\theta_i}$ coherently at first order. They do not: $k_\theta$ is even in $c$,
# while the displacement of a neuron ($\delta c\propto\phi(ax)$, $\delta a\propto c$) makes
# $\nabla k\cdot\delta\theta$ odd in $c$, so the first-order change averages to zero over the
# symmetric initial cloud. What is left is its fluctuation, $O(N^{-1/2}\cdot N^{\gamma-1})$, and
# the second-order term, coherent and $O(N^{2(\gamma-1)})$ (e.g. $\overline{\delta c^2}>0$), which
# dominates for $\gamma>\frac12$; at $\gamma=\frac12$ both are $N^{-1}$. Close to $\gamma=1$ the fitted
# slopes are shallower than both $\gamma-1$ and $2(\gamma-1)$: the asymptotic regime needs
# $N^{1-\gamma}$ large compared with the mean-field displacement of a neuron over the horizon,
# which is out of reach, so over accessible widths a $\gamma=0.9$ network still behaves like a
# mean-field one (a crossover; a longer horizon $\tau$ makes it worse). The conclusion of
# Section 5.4 stands: every $\gamma<1$ is lazy in the limit (frozen kernel, zero initial
# output), and only $\gamma=1$ learns features at order one.
#
# (d) At $\gamma=\frac12$: $\eta=\tilde\eta$ (no rescaling), $\Theta=O(1)$, per-weight motion
# $O(N^{-1/2})$, total displacement $O(1)$ (4.30), and drift $\le O(N^{-1/2})$ (4.31) — the
# bound of Section 4.3; the measured $\approx N^{-1}$ is the "typical" value quoted in
# Exercise 4.4(c). Writing $f=N^{1/2-\gamma}\cdot\big(N^{-1/2}\sum_ic_i\phi(a_ix)\big)$, the dial is
# the fan-in network multiplied by $\alpha=N^{1/2-\gamma}$, with the learning rate
# $\eta\propto\alpha^{-2}$ as in Chizat et al.: $\gamma<\frac12$ is $\alpha\to\infty$ (lazier than
# NTK), $\gamma=1$ is $\alpha=N^{-1/2}\to0$ (rich). (Chizat et al. also centre the model,
# $f-f_0$, which removes the diverging initial output for $\gamma<\frac12$.)
#
# *Rubric (4 points):* exponents reported, init on $\frac12-\gamma$ (1); drift: $0$ at
# $\gamma=1$, negative below, steeper than $\gamma-1$ (1); explanation (bound vs. typical:
# first-order cancellation / $c\mapsto-c$ symmetry, or an equivalent argument; crossover near
# $\gamma=1$) (1); (d) and the $\alpha=N^{1/2-\gamma}$ correspondence (1).

# %% [markdown]
# ## (e) Now play: feature learning or feature copying?
#
# The starter teacher is itself a two-neuron $\tanh$ network. The figure repeats the
# mean-field run with two teachers outside the model class, $y=\sin(2x)$ and $y=|x|-1$, and a
# ReLU student on the $\tanh$ teacher, and shows the final clouds and fits. (Try more:
# $d=2$ with $y=\tanh(x_1+x_2)$, where the cloud of directions $a_i/|a_i|$ is the thing to
# plot.)

# %% tags=["figure"]
runs_e = {
    r"tanh student, $y=\sin 2x$": (mf_train(N_CL, mf_steps, DTAU, SEED, 1.0, y=np.sin(2 * X_TRAIN)), "tanh", np.sin(2 * x_fine)),
    r"tanh student, $y=|x|-1$": (mf_train(N_CL, mf_steps, DTAU, SEED, 1.0, y=np.abs(X_TRAIN) - 1), "tanh", np.abs(x_fine) - 1),
    r"ReLU student, tanh teacher": (mf_train(N_CL, mf_steps, DTAU, SEED, 1.0, activation="relu"), "relu", teacher(x_fine)),
}
fig, axes = plt.subplots(2, 3, figsize=(15, 8))
for col, (name, (r_, act, target)) in enumerate(runs_e.items()):
    ax = axes[0, col]
    ax.scatter(r_["a"][0], r_["c"][0], s=4, color="0.75", label=r"$\tau=0$")
    ax.scatter(r_["a"][-1], r_["c"][-1], s=5, color="C2", label=rf"$\tau={TAU_END:g}$")
    ax.set(xlabel="$a_i$", ylabel="$c_i$", title=name, xlim=(-6, 6))
    ax.legend(fontsize=8)
    ax = axes[1, col]
    ax.plot(x_fine, target, "k--", lw=1, label="target")
    ax.plot(x_fine, network({"a": r_["a"][-1], "c": r_["c"][-1]}, x_fine, 1.0, act), "C2", label="trained")
    drift = np.linalg.norm(r_["ntk"][-1] - r_["ntk"][0]) / np.linalg.norm(r_["ntk"][0])
    ax.set(xlabel="$x$", title=f"loss {r_['loss'][-1]:.2e}, kernel drift {drift:.2f}")
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# **(e), written.** Is what the cloud does with the starter teacher *feature learning* or
# *feature copying*? Which aspects of (c)–(d) are universal, and which were special to the
# aligned (realizable) case? Explain what happens with $y=|x|-1$.

# %% [markdown] tags=["answer"] points=3
# *Model answer.* With the two-neuron $\tanh$ teacher the target lies in the model class, and
# the cloud condenses onto thin one-dimensional filaments (Figure 6): steep neurons
# ($|a|\approx2$–$4$) with $c$ growing along with $a$ and the same sign ($ca>0$), which build the
# $2\tanh(3x)$ part, and nearly vertical filaments at small $|a|$ ($\approx0.7$) with $c$ of both
# signs, whose net contribution supplies the $-\frac32\tanh(x)$ part; plus the mirror image under
# $(a,c)\mapsto(-a,-c)$. The filaments are families of neurons whose *average*
# $\frac1N\sum c_i\tanh(a_ix)$ reproduces the teacher, not two points at the teacher's neurons;
# still, the features found are the teacher's own slopes, so this is closest to *feature copying*:
# a planted solution, in the model class, recovered. It is feature learning in the notes' sense
# (the NTK moves at order one), but the clean story "the student finds the teacher's features" is
# special to the realizable, aligned case.
#
# With $y=\sin2x$ (odd, outside the class) there is no teacher to copy: the cloud splits into a
# few narrow clusters at slopes the student chooses itself ($|a|\approx0.5$ and $\approx1.8$ in the
# reference run), whose readout weights grow large with opposite signs, building $\sin2x$ from
# nearly cancelling $\tanh$'s; the loss is still falling slowly at $\tau=20$ and the kernel drift is
# very large (the $c^2$ term of (4.41)). That is feature learning without copying. Universal (any
# learnable target, $\gamma=1$): order-one transport of the neurons, order-one kernel drift,
# width-independence (the same picture at $N=2000$: a deterministic limiting measure), the
# $(a,c)\mapsto(-a,-c)$ symmetry. Special to the aligned case: condensation onto filaments at the
# teacher's parameters and a fast, complete fit.
#
# With $y=|x|-1$ (even) a $\tanh$ student without bias is odd in $x$; on the symmetric data the
# gradients $\sum_\mu\Delta^\mu\tanh(a_ix^\mu)$ and $\sum_\mu\Delta^\mu x^\mu\mathrm{sech}^2(a_ix^\mu)$ see
# only the odd part of the residual, which is the network itself: the student can only remove its
# own $O(N^{-1/2})$ initial output. It learns nothing, the loss stays at
# $\frac12\sum_\mu(|x^\mu|-1)^2$, the cloud does not move and the kernel drift is tiny — no feature
# in the class correlates with the target. The ReLU student (no bias, $d=1$) can only represent
# $\alpha\,\mathrm{relu}(x)+\beta\,\mathrm{relu}(-x)$; on the odd teacher it converges to the best
# line $\kappa x$, its neurons sliding along their hyperbolas $c^2-a^2=$ const (Ex. 5.2(b)), with an
# order-one kernel drift but a poor fit.
#
# *Rubric (3 points):* copying vs. learning distinguished with reference to realizability (1);
# universal vs. special aspects named with evidence from the runs (1); the $|x|-1$ symmetry
# argument (1).

# %% [markdown]
# ## Reading: two accounts of grokking (Sections 5.6–5.7)
#
# Read Kumar, Bordelon, Gershman and Pehlevan, *Grokking as the transition from lazy to rich
# training dynamics* (ICLR 2024) as assigned in Section 5.6, and Rubin, Seroussi and Ringel,
# *Grokking as a first order phase transition in two layer networks* (ICLR 2024) as assigned in
# Section 5.7. Answer Exercises 5.5 and 5.6 below (the questions are in the notes), citing where
# in each paper your answers live.
#
# **Exercise 5.5 (Grokking as a lazy-to-rich transition), written.** For Kumar et al., citing
# where in the paper each answer lives:
# **(a)** What regime is the analysis set in, and what dial controls it? With no thermodynamic
# limit and no equilibrium ensemble, what plays the role of a scaling limit? How is the laziness
# parameter $\alpha$ implemented, and how does it relate to the $\gamma$-dial of Section 5.4? Which
# half of Section 5.2's scaling prescription (the output scale or the learning-rate scale) does
# the work here?
# **(b)** What plays the role of the order parameter: what distinguishes the memorized state from
# the generalizing one, how would you measure it in a training run, and what does it share with
# the Fourier overlap of Exercise 5.6(b)?
# **(c)** The paper states three necessary conditions for grokking: find them, and translate each
# into the language of Sections 4.6, 4.3 and 5.4.
# **(d)** What parameter is tuned? What makes grokking more dramatic, what makes it vanish, and
# what does the theory predict for $\alpha\to\infty$ and for small $\alpha$?
# **(e)** Where does the delay come from, with no metastability and no noise? What does each of
# the two theories require to produce a delay (noise? weight decay? neither?), and how do the
# paper's zero-weight-decay, growing-norm experiments bear on earlier explanations?
# **(f)** Synthesis: are the equilibrium mechanism of Section 5.7 and the dynamical one of
# Section 5.6 incompatible, or two corners of one phenomenon? Design at least one experiment
# whose outcome would favour one over the other (e.g. how the delay depends on training noise at
# fixed hyperparameters, or how it fluctuates from seed to seed).

# %% [markdown] tags=["answer"] points=6
# *Model answer.* (Pointers: introduction and abstract; the two-layer polynomial-regression
# model and its sufficient statistics; the experiments section.)
#
# **(a)** No thermodynamic limit and no ensemble: the role of the scaling limit is played by
# the *laziness* $\alpha$, an output multiplier on the (centred) network, $f=\alpha(f_\theta-f_{\theta_0})$,
# with the loss/learning rate co-scaled by $\alpha^{-2}$ (Chizat et al.) so that the
# function-space speed at initialization is fixed. It is the continuous version of the dial:
# $\alpha=N^{1/2-\gamma}$ (see Ex. 5.4 above), $\alpha\to\infty$ lazy, small $\alpha$ rich. Of the two
# halves of Section 5.2's prescription, the **output scale** does the work (it sets how far each
# weight must move, $\propto1/\alpha$); the learning-rate co-scaling only keeps the clock of the
# lazy (kernel) dynamics fixed. (In 5.6 the other half reappears as a temperature.)
#
# **(b)** The order parameter is the alignment of the network's features with the task:
# in the polynomial model, the sufficient statistics are the overlaps of the hidden weights with
# the target direction (and their norms); more generally, kernel–task alignment (e.g. centred
# kernel alignment of the NTK with $yy^T$). Memorizing state: low alignment (kernel regression
# with the initial, misaligned NTK); generalizing state: high alignment. In a real run, track
# the alignment of the empirical NTK (or of the last hidden layer's Gram matrix) with the labels
# over training, or the projection of the first-layer weights on the task directions. The
# Fourier overlap $\Phi(w)$ of 5.6 carries the same information at the level of single neurons:
# how much weight sits on the teacher's features (for modular addition, the Fourier modes);
# the alignment is its population/kernel-level average.
#
# **(c)** (1) The top eigenvectors of the initial NTK are misaligned with the labels, so the
# lazy solution is kernel regression that memorizes without generalizing — the target's weight
# sits in small-eigenvalue modes, which the mode filter of Section 4.6 does not learn from the
# available data. (2) The dataset is large enough that generalization is eventually possible
# (feature learning can find the rule) but not so large that train and test losses track each
# other (a large $n$ would make the kernel fit generalize, or force feature learning at once;
# cf. the $n/N$ caveat of Section 4.5). (3) Training starts lazy (large $\alpha$, near the NTK end
# of the dial, Sections 4.3 and 5.4), so features do not move immediately — but not infinitely
# lazy.
#
# **(d)** The tuned parameter is $\alpha$ (together with the initial alignment). Larger $\alpha$
# delays feature learning and makes grokking more dramatic; $\alpha\to\infty$ freezes the kernel
# forever: the network memorizes and never generalizes (no grokking, test loss stuck at the
# kernel-regression value). Small $\alpha$ (rich) learns features while it fits: train and test
# losses fall together, no grokking. An aligned initial kernel also removes it. In 5.6 the control
# parameter is instead the amount of data (and the noise/weight-decay couplings) in an
# equilibrium phase diagram.
#
# **(e)** The delay is a separation of time scales in one deterministic flow: the kernel part
# fits the training set on the fast, $\alpha$-independent NTK time scale, while the features move
# at a rate $\propto1/\alpha$, so the generalizing solution arrives after a time growing with
# $\alpha$. Nothing is metastable and no noise is needed. This theory needs neither noise nor weight
# decay; the equilibrium theory needs both (the Gibbs posterior is defined by the noise
# temperature and the weight-decay prior, and the delay is a barrier-crossing time). The paper's
# examples grok under full-batch GD with zero weight decay while the parameter norm *grows*,
# contradicting accounts in which weight decay drives a slow shrinkage of the norm toward a
# generalizing, low-norm solution.
#
# **(f)** Not necessarily incompatible: the equilibrium picture says which state wins at long
# times in the presence of noise and a prior, the dynamical one how a deterministic flow gets from
# the lazy to the rich solution; real runs could show lazy-to-rich escape that is itself a noise-
# assisted barrier crossing. Distinguishing experiments: (i) vary the training noise (batch size,
# or Langevin temperature $T$) at fixed hyperparameters: a metastable (nucleation) mechanism gives
# a delay depending exponentially on the barrier over the noise, $t\sim e^{\Delta F/T}$, which
# diverges as $T\to0$ (grokking only at the spinodal); the lazy-to-rich mechanism gives a delay set
# by $\alpha$ and alignment, present at $T=0$ and only weakly noise-dependent. (ii) Seed-to-seed
# statistics: nucleation is a Poisson process, so delays are broadly (roughly exponentially)
# distributed with a coefficient of variation near one; the deterministic flow gives narrowly
# distributed, self-averaging delays. (iii) Scan $\alpha$: the dynamical theory predicts a delay
# growing smoothly with $\alpha$. (iv) Look for coexistence: a bimodal distribution of per-neuron
# task overlaps (a fraction of neurons specialized, the rest not) signals the mixed phase of a
# first-order transition; a gradual, collective rotation of all neurons signals the lazy-to-rich
# flow.
#
# *Rubric (6 points, one per part):* (a) $\alpha$ as the dial, output-scale half; (b) an
# alignment/overlap order parameter and how to measure it; (c) the three conditions translated;
# (d) $\alpha$, both extremes; (e) time-scale separation, no noise/weight decay, growing norm;
# (f) at least one concrete experiment with opposite predictions (noise dependence or delay
# statistics).

# %% [markdown]
# **Exercise 5.6 (Grokking as a first-order phase transition), written.** For Rubin et al.,
# citing where in the paper each answer lives:
# **(a)** What scaling limit is taken (look for where the output-layer weight decay is fixed, and
# for "mean-field scaling")? How does it relate to the parametrization (5.7) and to the
# $\gamma$-dial? In an equilibrium (Bayesian) framework there is no learning rate: which part of
# Section 5.2's scaling prescription survives, and in what combination?
# **(b)** What is the order parameter for modular addition? What does the posterior of a single
# neuron's input weights look like on each side of the transition, and which figure of
# Section 5.2 does the ordered side resemble?
# **(c)** What are the main computational techniques? List them, and match each to the section of
# the notes where its ancestor appears.
# **(d)** What parameter is tuned to cross the transition in the paper's phase diagrams?
# **(e)** Where did the time go? The paper computes a static equilibrium ensemble: how does a
# first-order transition in an equilibrium free energy produce delayed, abrupt generalization
# in a training run? Compare, line by line, with the metastability of the Ising perceptron
# (Section 2.6).

# %% [markdown] tags=["answer"] points=5
# *Model answer.* (Pointers: the setup section, where the mean-field scaling of the readout is
# stated; the phase diagrams and the mixed-phase discussion of the modular-addition results.)
#
# **(a)** The readout prior (set by the output-layer weight decay) has variance $\sigma_a^2/N$
# with $\sigma_a^2\propto1/N$, so readout weights are $O(1/N)$: $c_i/N$ with $c_i=O(1)$, which is
# (5.7), $\gamma=1$. In equilibrium there is no learning rate, so the half of the prescription
# that survives directly is the **output scale**, now as a prior variance; the learning-rate half
# survives in disguise: gradient flow with $\eta=N\tilde\eta$ is gradient flow on the extensive
# energy $N\mathcal L$ (Section 5.2.2), and its equilibrium counterpart is a temperature $T\propto1/N$
# (equivalently $\beta\propto N$), so that each neuron's data term, $O(1/N)$ per neuron in $\mathcal L$,
# competes with its $O(1)$ prior/entropy. What matters is the combination of the readout scale and
# the noise level (data term per neuron vs. prior), not either alone.
#
# **(b)** The order parameter is the Fourier overlap $\Phi(w)$ of a neuron's input weights with a
# single mode $k$ of $\mathbb Z_P$ (how concentrated $w$ is on $\cos(2\pi kn/P)$, $\sin(2\pi kn/P)$).
# Before the transition (GFL phase) a single neuron's posterior is Gaussian, centred at zero
# overlap, with only perturbatively adapted covariance. After it (mixed phase) it is a mixture: a
# finite fraction of neurons sits on Fourier modes (Gromov-like plane waves, random phases), the
# rest stay Gaussian. The ordered side resembles Figure 6: the cloud of neurons condensed onto
# low-dimensional structures that realize the teacher.
#
# **(c)** The Gibbs posterior of Langevin training with weight decay (Section 2.1); GP/NNGP kernels
# and kernel regression (Sections 3.3–3.4, 4.6); the adaptive-kernel self-consistency — kernel
# determines the single-neuron posterior determines the kernel (the self-consistent Gibbs measure
# (5.22), with the Curie–Weiss iteration of Section 5.1 as ancestor); the equivalent-kernel
# (dense-data) approximation (Section 4.6); a large-$N$ saddle point / mean-field decoupling of
# neurons (Sections 2.4, 5.2); comparison of the free energies of competing phases, first-order
# transitions, coexistence and metastability (Sections 2.5–2.6).
#
# **(d)** The amount of data: the number of training examples (for modular addition, the
# fraction of the $P^2$ table shown), at fixed width, weight decay and noise — the analogue of
# the load $\alpha$ of the Ising perceptron; the other axis of the phase diagrams is a
# prior/temperature-type coupling.
#
# **(e)** As in Section 2.6: above the transition the generalizing (mixed) phase has the lower
# free energy, but the memorizing GFL state remains a local minimum, separated by a barrier.
# Langevin training starts near initialization, in the GFL basin, fits the training data there
# (train loss drops), and must nucleate a droplet of Fourier-aligned neurons to cross the barrier;
# the crossing time grows exponentially with barrier over temperature, so generalization is
# delayed and then abrupt. Line by line with the perceptron: interior basin $R^*$ ↔ GFL phase;
# teacher $R=1$ ↔ mixed/Fourier phase; load $\alpha$ ↔ number of examples; $\alpha_c$ ↔ the
# transition; barrier $\propto N$ and metastable lag up to the spinodal ↔ the grokking delay; jump of
# $\varepsilon$ (latent heat) ↔ the jump in test accuracy. Differences: the perceptron was analysed
# at zero temperature with single-flip dynamics (lag until the spinodal), here finite noise allows
# activated crossing; and the ordered side is a coexistence (mixed) phase, like a liquid–gas
# mixture, rather than a single state.
#
# *Rubric (5 points, one per part):* (a) $\gamma=1$ via the readout prior and the temperature
# $\propto1/N$ as the surviving learning-rate half; (b) Fourier overlap, Gaussian vs. mixture,
# Figure 6; (c) at least four techniques with their sections; (d) amount of data; (e)
# metastability/nucleation with the perceptron dictionary.

# %% [markdown]
# ## Reading: learning mechanics (Section 1)
#
# Read Section 2 of Simon et al. (2026) and answer the three discussion prompts of Section 1
# of the notes, drawing on what you have seen in Exercises 4.4 and 5.3.
#
# **Prompt 1.** Rank the physics analogies of Table 1 of the reading (solvable models ↔
# hydrogen atom; limits ↔ thermodynamic limit; empirical laws ↔ Kepler and Planck;
# hyperparameters ↔ Reynolds number; universality ↔ critical phenomena). Which are the most
# compelling, and which the most useful?

# %% [markdown] tags=["answer"] points=2
# *Model answer (one defensible ranking; others earn full marks if argued).* Most compelling:
# **limits ↔ thermodynamic limit** — the NNGP, NTK and mean-field limits are literally large-$N$
# limits driven by the law of large numbers and the CLT; in these labs we saw the GP at
# initialization, the frozen kernel, and a deterministic limiting measure of neurons, each with
# controlled $1/\sqrt N$ or $1/N$ corrections, exactly like intensive quantities in statistical
# mechanics. **Hyperparameters ↔ Reynolds number** is also compelling and the most *useful* in
# practice: dimensionless combinations (the dial $\gamma$, the laziness $\alpha$, $\eta\Theta$)
# decide the regime, and identifying them (µP) gives hyperparameter transfer. **Empirical laws ↔
# Kepler/Planck** is apt for scaling laws — precise, compressive regularities awaiting a theory —
# and the Planck half is a reminder that explaining them may need genuinely new ideas.
# **Solvable models ↔ hydrogen atom** is pedagogically powerful (perceptron, linear and kernel
# models), but a hydrogen atom is a real system, while solvable learning models are caricatures
# whose relevance must be checked. **Universality ↔ critical phenomena** is the least established:
# there are suggestive universal phenomena (scaling exponents, grokking, edge of stability) but
# rarely a renormalization-group argument for why details drop out; it is the most ambitious and,
# if it holds, the most useful.
#
# *Rubric (2 points):* a ranking with reasons (1); at least two concrete examples from the
# notes/labs tied to the analogies, with a limitation of at least one analogy (1).

# %% [markdown]
# **Prompt 2.** The Discretization Hypothesis: are practical networks best understood as
# noisy finite approximations of an infinite-size limit, so that finite-size effects cost
# performance? What experiments could falsify it?

# %% [markdown] tags=["answer"] points=2
# *Model answer.* Support: in the mean-field lab the finite-$N$ cloud is a Monte-Carlo sample of
# the limiting measure (the $N=300$ and $N=2000$ clouds agree), and the finite-$N$ effects we saw —
# the random initial output, the $O(N^{-1/2})$ fluctuations of the kernel and of the trained
# function — are noise around the limit; in µP "wider is better" is widely observed, and ensembling
# finite networks (which averages this noise) helps. But the hypothesis depends on choosing the
# right limit: the NTK limit is a limit with *no* feature learning, so relative to it finite width
# is a benefit (the $L/N$ corrections of Section 3.6 and the kernel drift are how a fan-in network
# learns features). Candidate falsifiers: (i) a width sweep in µP, at matched data and compute,
# with all hyperparameters transferred, in which performance is non-monotone in width (an optimum
# at finite $N$ that no retuning removes); (ii) a phenomenon that requires finite-size
# fluctuations — symmetry breaking or escape from saddles/metastable states driven by finite-$N$
# noise (e.g. nucleation-driven grokking of Section 5.7, whose rate vanishes as $N\to\infty$),
# giving a benefit that vanishes in every limit; (iii) finite learning-rate effects (catapult,
# edge of stability) that improve generalization and are absent in the gradient-flow limit, unless
# an appropriate large-step limit reproduces them; (iv) sparse/lottery-ticket subnetworks that
# outperform the corresponding dense wide limit at equal compute.
#
# *Rubric (2 points):* a position supported by evidence from the course (1); at least one concrete,
# falsifiable experiment with what outcome would refute the hypothesis (1).

# %% [markdown]
# **Prompt 3.** What actually matters for alignment? The reading wants falsifiable,
# quantitative, average-case predictions rather than worst-case bounds. What is lost? Which of
# the five lines of evidence is most relevant for alignment?

# %% [markdown] tags=["answer"] points=2
# *Model answer.* Average-case theory predicts typical behaviour under a data distribution; it is
# silent about rare inputs, adversarial or strategically chosen inputs, distribution shift, and
# low-probability but high-stakes failures — exactly the regime of many safety concerns (jailbreaks,
# deceptive or reward-hacking behaviour that appears rarely). Worst-case guarantees are what one
# wants for deployment in adversarial settings, but classical bounds are usually vacuous for large
# networks. Forecasting typical capabilities is nevertheless central for governance and for
# timing safety work (when does a capability appear?). Physics offers a middle ground: large-deviation
# theory quantifies rare events beyond the average, and phase-transition language predicts abrupt
# capability jumps (emergence, grokking) that average-case smooth extrapolation would miss. Most
# relevant lines: **empirical laws and universality** for forecasting capabilities and their
# emergence (scaling laws, quanta/cliffs), and **solvable models and limits** for mechanistic
# understanding of what features a network learns (feature learning vs. lazy kernel behaviour,
# relevant to interpretability); disentangled hyperparameters matter mostly for reproducibility.
#
# *Rubric (2 points):* identifies what average-case analysis loses (tails/adversarial/shift) and
# weighs it against forecasting (1); picks and justifies a most relevant line of evidence (1).

# %% tags=["tests"]
def _lab_x():
    return ref.lab_data()[0]


def _same_record(got, want, what, rtol=1e-7, atol=1e-10):
    assert isinstance(got, dict) and set(want) <= set(got), f"{what}: must return a dict with keys {sorted(want)}"
    for key in want:
        assert_close(got[key], want[key], rtol=rtol, atol=atol, name=f"{what}: record '{key}'")


@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@points(3)
def test_mf_train_mean_field(student):
    "mf_train at gamma = 1 (the rescaled updates of Ex 5.3): every record"
    rng = rng_for("mf_train_mean_field")
    seed = int(rng.integers(0, 2**31))
    _same_record(student.mf_train(20, 80, 5e-3, seed, record_every=20), ref.mf_train(20, 80, 5e-3, seed, 1.0, 20),
                 "mf_train(N=20, 80 steps, default gamma)")


@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@points(2)
def test_mf_train_dial(student):
    "mf_train along the dial (gamma = 1/2 and 3/4): learning rate N^(2 gamma - 1) dtau, final record"
    rng = rng_for("mf_train_dial")
    for N, gamma, steps, every in [(16, 0.5, 37, 10), (24, 0.75, 30, 7)]:
        seed = int(rng.integers(0, 2**31))
        _same_record(student.mf_train(N, steps, 0.01, seed, gamma, every),
                     ref.mf_train(N, steps, 0.01, seed, gamma, every), f"mf_train(N={N}, gamma={gamma})")


@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_mf_train_options(student):
    "mf_train with given initial weights, other labels, and the ReLU activation"
    rng = rng_for("mf_train_options")
    p0 = {"a": rng.standard_normal(12), "c": rng.standard_normal(12)}
    y = np.sin(2 * _lab_x())
    _same_record(student.mf_train(12, 40, 0.01, 0, 1.0, None, y, "tanh", p0),
                 ref.mf_train(12, 40, 0.01, 0, 1.0, None, y, "tanh", p0), "mf_train(params0, y = sin 2x)")
    seed = int(rng.integers(0, 2**31))
    _same_record(student.mf_train(15, 50, 0.01, seed, 1.0, 25, None, "relu"),
                 ref.mf_train(15, 50, 0.01, seed, 1.0, 25, None, "relu"), "mf_train(ReLU)")
    _same_record(student.mf_train(7, 4, 0.02, seed, 0.9, 1), ref.mf_train(7, 4, 0.02, seed, 0.9, 1),
                 "mf_train(record_every=1)")


@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@points(1)
def test_mf_train_edges(student):
    "mf_train with zero steps, width N = 1, record_every larger than steps, and params0 overriding N and seed"
    rng = rng_for("mf_train_edges")
    seed = int(rng.integers(0, 2**31))
    _same_record(student.mf_train(9, 0, 0.01, seed, 0.75), ref.mf_train(9, 0, 0.01, seed, 0.75), "mf_train(0 steps)")
    _same_record(student.mf_train(1, 6, 0.02, seed, 1.0, 4), ref.mf_train(1, 6, 0.02, seed, 1.0, 4), "mf_train(N=1)")
    _same_record(student.mf_train(8, 5, 0.02, seed, 0.5, 20), ref.mf_train(8, 5, 0.02, seed, 0.5, 20),
                 "mf_train(record_every > steps)")
    p0 = {"a": rng.standard_normal(14), "c": rng.standard_normal(14)}
    # the width and the seed come from params0 when it is given: N = 5 and the seed are ignored
    _same_record(student.mf_train(5, 12, 0.01, seed, 0.8, 4, None, "tanh", p0),
                 ref.mf_train(5, 12, 0.01, seed, 0.8, 4, None, "tanh", p0), "mf_train(params0 of another width)")


@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@points(2)
def test_init_output_scale(student):
    "init_output_scale for several widths, exponents and inputs (seeds through init_neurons)"
    rng = rng_for("init_output_scale")
    for N, gamma, x in [(10, 1.0, 1.0), (250, 0.5, ref.PARAMS["x_probe"]), (80, 0.7, -1.6)]:
        seeds = [int(s) for s in rng.integers(0, 2**31, 40)]
        assert_close(student.init_output_scale(N, gamma, seeds, x), ref.init_output_scale(N, gamma, seeds, x),
                     rtol=1e-7, atol=1e-12, name=f"std f_0(x={x}) for N={N}, gamma={gamma}")


@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@points(1)
def test_init_output_scale_edges(student):
    "init_output_scale with the fewest seeds (two), at the input x = 0.0, and with the default input"
    rng = rng_for("init_output_scale_edges")
    seeds = [int(s) for s in rng.integers(0, 2**31, 2)]
    N, gamma = int(rng.integers(5, 50)), float(rng.uniform(0.5, 1.0))
    sd = student.init_output_scale(N, gamma, seeds, 0.7)
    assert np.ndim(sd) == 0, "init_output_scale returns a float, not an array"
    assert_close(sd, ref.init_output_scale(N, gamma, seeds, 0.7), rtol=1e-7, atol=1e-12, name="std over two seeds")
    assert_close(student.init_output_scale(N, gamma, seeds, 0.0), ref.init_output_scale(N, gamma, seeds, 0.0),
                 rtol=0, atol=1e-15, name="std at the input x = 0.0 (an input, not 'no input given')")
    seeds = [int(s) for s in rng.integers(0, 2**31, 10)]
    assert_close(student.init_output_scale(N, gamma, seeds), ref.init_output_scale(N, gamma, seeds),
                 rtol=1e-7, atol=1e-12, name="std at the default input")


# False-fail budget 1e-4 (any stream, any course seed): the
# sample standard deviation of S = 300 draws of f_0(1) has standard error sigma / sqrt(2 (S - 1))
# for Gaussian f_0; f_0 is a sum of N products with excess kurtosis 1.6 / N (at most 0.027 here),
# which widens the standard error by a factor sqrt(1 + kurtosis / 2) < 1.007, and the skew of a
# 300-draw standard deviation is 0.04: 5 standard errors are at least 4.96 true ones, 7e-7 per
# setting two-sided, 1.4e-6 for the two settings.
@points(1)
def test_init_output_scale_theory(student):
    "init_output_scale agrees with N^(1/2 - gamma) sqrt(K(x,x)) within sampling error (statistical)"
    rng = rng_for("init_output_scale_theory")
    S = 300
    for N, gamma in [(400, 0.75), (60, 1.0)]:
        seeds = [int(s) for s in rng.integers(0, 2**31, S)]
        sigma = N ** (0.5 - gamma) * np.sqrt(ref._gp_variance(1.0))
        got = student.init_output_scale(N, gamma, seeds)
        assert abs(got - sigma) < 5 * sigma / np.sqrt(2 * (S - 1)), \
            f"the std of f_0(1) at N={N}, gamma={gamma} is off by more than 5 standard errors"


@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@points(2)
def test_kernel_drift_dial(student):
    "kernel_drift_dial at gamma = 1/2 and 1 (short horizons)"
    rng = rng_for("kernel_drift_dial")
    for N, gamma, tau, dtau in [(15, 0.5, 0.6, 0.01), (25, 1.0, 0.5, 0.005), (30, 0.8, 0.3, 0.01)]:
        seed = int(rng.integers(0, 2**31))
        assert_close(student.kernel_drift_dial(N, gamma, seed, tau, dtau), ref.kernel_drift_dial(N, gamma, seed, tau, dtau),
                     rtol=1e-6, atol=1e-12, name=f"drift (N={N}, gamma={gamma}, tau={tau})")


@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@points(1)
def test_kernel_drift_dial_edges(student):
    "kernel_drift_dial at tau = 0.0 (no training, not the default horizon), at width N = 1, and where tau / dtau is not an exact float"
    rng = rng_for("kernel_drift_dial_edges")
    seed = int(rng.integers(0, 2**31))
    d = student.kernel_drift_dial(12, 1.0, seed, 0.0, 0.01)
    assert np.ndim(d) == 0, "kernel_drift_dial returns a float, not an array"
    assert_close(d, 0.0, rtol=0, atol=1e-15, name="drift after tau = 0.0")
    assert_close(student.kernel_drift_dial(1, 0.75, seed, 0.2, 0.01), ref.kernel_drift_dial(1, 0.75, seed, 0.2, 0.01),
                 rtol=1e-6, atol=1e-12, name="drift at N = 1")
    assert_close(student.kernel_drift_dial(10, 0.9, seed, 0.29, 0.01), ref.kernel_drift_dial(10, 0.9, seed, 0.29, 0.01),
                 rtol=1e-6, atol=1e-12, name="drift at tau = 0.29, dtau = 0.01 (round(tau / dtau) steps)")


@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@points(1)
def test_default_horizons(student):
    "kernel_drift_dial and dial_exponents with their default horizons, steps and seeds"
    rng = rng_for("default_horizons")
    seed = int(rng.integers(0, 2**31))
    assert_close(student.kernel_drift_dial(10, 1.0, seed), ref.kernel_drift_dial(10, 1.0, seed),
                 rtol=1e-6, atol=1e-12, name="kernel_drift_dial(N=10, gamma=1) with the default tau and dtau")
    got, want = student.dial_exponents([0.75], [10, 20]), ref.dial_exponents([0.75], [10, 20])
    assert_close(got[0], want[0], rtol=1e-6, atol=1e-9, name="initial-output exponent with the default seeds")
    assert_close(got[1], want[1], rtol=1e-6, atol=1e-9, name="drift exponent with the default seeds and horizon")


@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@points(2)
def test_dial_exponents(student):
    "dial_exponents on a small grid of exponents and widths"
    rng = rng_for("dial_exponents")
    seeds = [int(s) for s in rng.integers(0, 2**31, 30)]
    args = ([0.5, 0.8, 1.0], [10, 20, 40], seeds, seeds[:2], 0.3, 0.01, 1.2)
    got = student.dial_exponents(*args)
    want = ref.dial_exponents(*args)
    assert len(got) == 2, "dial_exponents returns (init_exponents, drift_exponents)"
    assert_close(got[0], want[0], rtol=1e-6, atol=1e-9, name="initial-output exponents")
    assert_close(got[1], want[1], rtol=1e-6, atol=1e-9, name="drift exponents")


# False-fail budget 1e-4: not random. The seeds are fixed (range(60), (0, 1, 2, 3)) and the provided
# init_neurons fixes the stream (fixed_stream), so every correct implementation computes the same
# exponents up to round-off; the reference's lie 0.108, 0.45 and 0.17 inside the three bounds (init exponents
# -0.012 and -0.512, drift exponents -1.05 and -0.03), far beyond any round-off.
@pytest.mark.fixed_stream  # init_neurons (provided) states the exact calls: the seed fixes the weights
@points(1)
def test_dial_exponents_physics(student):
    "the dial: f_0 ~ N^(1/2 - gamma), and the kernel drift is O(1) at gamma = 1 but decays at gamma = 1/2"
    init_e, drift_e = student.dial_exponents([0.5, 1.0], [30, 300, 3000], list(range(60)), [0, 1, 2, 3], 0.2, 0.01, 1.0)
    assert_close(init_e, np.array([0.0, -0.5]), rtol=0, atol=0.12, name="initial-output exponents at gamma = 1/2, 1")
    assert drift_e[0] < -0.6, "at gamma = 1/2 the kernel drift should decay with the width"
    assert abs(drift_e[1]) < 0.2, "at gamma = 1 the kernel drift should not depend on the width"


@points(1)
def test_balancedness(student):
    "balancedness on random weights (scalar input, and vector inputs with a of shape (N, d))"
    rng = rng_for("balancedness")
    p = {"a": rng.standard_normal(17), "c": rng.standard_normal(17)}
    assert_close(student.balancedness(p), ref.balancedness(p), rtol=1e-12, atol=1e-12, name="c^2 - a^2")
    p2 = {"a": rng.standard_normal((9, 3)), "c": rng.standard_normal(9)}
    assert_close(student.balancedness(p2), ref.balancedness(p2), rtol=1e-12, atol=1e-12, name="c^2 - |a|^2 for d = 3")


@points(1)
def test_balancedness_edges(student):
    "balancedness for one neuron, and a of shape (N, 1) agrees with a of shape (N,)"
    rng = rng_for("balancedness_edges")
    p = {"a": rng.standard_normal(1), "c": rng.standard_normal(1)}
    assert_close(student.balancedness(p), ref.balancedness(p), rtol=1e-12, atol=1e-12, name="one neuron")
    a, c = rng.standard_normal(6), rng.standard_normal(6)
    assert_close(student.balancedness({"a": a[:, None], "c": c}), ref.balancedness({"a": a, "c": c}),
                 rtol=1e-12, atol=1e-12, name="c^2 - |a|^2 for a of shape (N, 1)")


# False-fail budget 1e-4: not statistical. For phi = ReLU, phi(u) = u phi'(u), so each step of the
# rescaled updates satisfies c_i dc_i = a_i da_i exactly and the change of c^2 - a^2 is exactly the sum
# of dc^2 - da^2 over the steps (second order in dtau): both hold to round-off (measured 3e-15 and
# 2e-13 relative) for any correct implementation and any seed; the checks allow 1e-9 and 1e-6. For tanh
# the first-order term c dc - a da is 0.21 to 0.8 of its size (60 seeds), against the bound 0.01. (The
# old checks, a violation below 0.03 and a ratio in (1.6, 2.6) between two step sizes, failed correct
# code in about 1 course seed in 400.)
@points(1)
def test_balancedness_conserved_by_relu_flow(student):
    "a ReLU student conserves c^2 - a^2 at first order in every step (the Euler violation is second order); a tanh student does not"
    rng = rng_for("balancedness_conserved")
    seed = int(rng.integers(0, 2**31))
    for activation in ("relu", "tanh"):
        run = student.mf_train(20, 100, 0.01, seed, 1.0, 1, None, activation)
        a, c = np.asarray(run["a"], dtype=float), np.asarray(run["c"], dtype=float)
        assert a.shape == (101, 20) and c.shape == (101, 20), "one record per step (record_every = 1)"
        da, dc = np.diff(a, axis=0), np.diff(c, axis=0)
        first_order = np.max(np.abs(c[:-1] * dc - a[:-1] * da))
        size = np.max(np.abs(c[:-1] * dc) + np.abs(a[:-1] * da))
        if activation == "relu":
            assert first_order <= 1e-9 * size, \
                "ReLU: each step should move c^2 - a^2 only at second order (c dc = a da, Exercise 5.2(b))"
            b0 = student.balancedness({"a": a[0], "c": c[0]})
            b1 = student.balancedness({"a": a[-1], "c": c[-1]})
            assert_close(np.asarray(b1) - np.asarray(b0), np.sum(dc**2 - da**2, axis=0), rtol=1e-6, atol=1e-12,
                         name="ReLU: change of the balancedness against the sum of the squared Euler steps")
        else:
            assert first_order > 1e-2 * size, "tanh: c^2 - a^2 should not be conserved (no conservation law)"


# %% tags=["wrong"]
# wrong: no learning-rate co-scaling (eta = dtau at every gamma), so the mean-field run barely moves
# hint: The learning rate must be co-scaled with the width, as in the rescaled updates (5.15) and the
#   dial (5.27), so that Δτ is a step of the same time τ at every γ: with η = Δτ the mean-field run
#   (γ = 1) barely moves.
_mf_train_right = mf_train


def mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None):
    return _mf_train_right(N, steps, dtau * N ** (1 - 2 * gamma), seed, gamma, record_every, y, activation,
                           params0) | {"tau": _mf_train_right(N, steps, dtau, seed, gamma, record_every, y, activation,
                                                               params0)["tau"]}


# %% tags=["wrong"]
# wrong: sequential update, a_i is updated with the already-updated c_i
# hint: Gradient descent moves all the parameters at once, along the gradient at the current θ: compute
#   the gradients for a and for c before updating either (eq. (5.15)).
def mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None):
    x, y0 = lab_data()
    y = y0 if y is None else np.asarray(y, float)
    p = init_neurons(N, seed) if params0 is None else params0
    a, c = np.array(p["a"], float), np.array(p["c"], float)
    N = a.size
    phi, dphi = ACTIVATIONS[activation]
    every = steps if record_every is None else record_every
    out = {k: [] for k in ("tau", "loss", "a", "c", "ntk")}
    for k in range(steps + 1):
        d = N ** (-gamma) * (c @ phi(np.outer(a, x))) - y
        if k % max(every, 1) == 0 or k == steps:
            for key, v in zip(out, (k * dtau, 0.5 * d @ d, a.copy(), c.copy(), ntk({"a": a, "c": c}, x, gamma, activation=activation))):
                out[key].append(v)
        if k == steps:
            break
        c = c - dtau * N ** (gamma - 1) * (phi(np.outer(a, x)) @ d)
        a = a - dtau * N ** (gamma - 1) * c * (dphi(np.outer(a, x)) @ (d * x))
    return {k: np.array(v) for k, v in out.items()}


# %% tags=["wrong"]
# wrong: init_output_scale returns the variance of f_0 instead of its standard deviation
# hint: init_output_scale is the standard deviation of f_0(x) over initializations (Section 5.2.1), not
#   its variance.
def init_output_scale(N, gamma, seeds, x=1.0):
    return float(np.var([network(init_neurons(N, int(s)), np.array([x]), gamma)[0] for s in seeds], ddof=1))


# %% tags=["wrong"]
# wrong: the standard deviation over the seeds with ddof = 0 (np.std's default)
# hint: init_output_scale is the *sample* standard deviation over the seeds, ddof = 1 (divide by S − 1):
#   np.std's default ddof = 0 makes it √((S − 1)/S) too small, 1/√2 of it with the fewest seeds, two
#   (Section 5.2.1).
def init_output_scale(N, gamma, seeds, x=1.0):
    return float(np.std([network(init_neurons(N, int(s)), np.array([x]), gamma)[0] for s in seeds]))


# %% tags=["wrong"]
# wrong: x = 0.0 treated as "no input given" (x = x or 1.0), so the default input is used
# hint: An input of zero is an input like any other: use the default input only when no x is passed,
#   and never test a number by its truth value (Section 5.2.1).
def init_output_scale(N, gamma, seeds, x=1.0):
    x = x or 1.0
    return float(np.std([network(init_neurons(N, int(s)), np.array([x]), gamma)[0] for s in seeds], ddof=1))


# %% tags=["wrong"]
# wrong: number of steps int(tau / dtau), truncated (0.29 / 0.01 = 28.999... gives 28 steps)
# hint: The number of steps is round(τ/Δτ): τ/Δτ is rarely an exact float, and truncating with int()
#   loses the last step (Sections 5.3–5.4, the rescaled time τ = kΔτ).
def kernel_drift_dial(N, gamma, seed, tau=20.0, dtau=0.02):
    K = mf_train(N, int(tau / dtau), dtau, seed, gamma)["ntk"]
    return float(np.linalg.norm(K[-1] - K[0]) / np.linalg.norm(K[0]))


# %% tags=["wrong"]
# wrong: with params0 given, the prefactor and learning rate still use the argument N
# hint: When initial weights params0 are given, the width is their length: N^{−γ} and the learning rate
#   N^{2γ−1}Δτ must use it, whatever the argument N says (the rescaled updates (5.15), (5.27)).
def mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None):
    x, y_lab = lab_data()
    y = y_lab if y is None else np.asarray(y, dtype=float)
    p = init_neurons(N, seed) if params0 is None else params0
    a, c = np.array(p["a"], dtype=float), np.array(p["c"], dtype=float)
    act, act_prime = ACTIVATIONS[activation]
    every = steps if record_every is None else record_every
    record_at = set(range(0, steps + 1, max(every, 1))) | {steps}
    speed = dtau * N ** (gamma - 1.0)                    # the argument N, not a.size
    out = {"tau": [], "loss": [], "a": [], "c": [], "ntk": []}
    for k in range(steps + 1):
        z = np.outer(a, x)
        P = act(z)
        delta = N ** (-gamma) * (c @ P) - y
        if k in record_at:
            for key, v in zip(out, (k * dtau, 0.5 * delta @ delta, a.copy(), c.copy(),
                                    ntk({"a": a, "c": c}, x, gamma, activation=activation))):
                out[key].append(v)
        if k == steps:
            break
        a, c = a - speed * c * (act_prime(z) @ (delta * x)), c - speed * (P @ delta)
    return {key: np.array(val) for key, val in out.items()}


# %% tags=["wrong"]
# wrong: kernel drift normalized by the final kernel instead of the initial one
# hint: The kernel drift is measured relative to the initial kernel, ||Θ_τ − Θ_0|| / ||Θ_0|| (Sections
#   5.3–5.4).
def kernel_drift_dial(N, gamma, seed, tau=20.0, dtau=0.02):
    K = mf_train(N, int(round(tau / dtau)), dtau, seed, gamma)["ntk"]
    return float(np.linalg.norm(K[-1] - K[0]) / np.linalg.norm(K[-1]))


# %% tags=["wrong"]
# wrong: exponents fitted with log10 of the values against the natural log of N
# hint: A fitted exponent is the slope of log against log: use the same logarithm on both axes (Section
#   5.4, Exercise 5.4).
def dial_exponents(gammas, Ns, init_seeds=tuple(range(200)), drift_seeds=(0, 1, 2), tau=0.2, dtau=0.01, x=1.0):
    ie = [np.polyfit(np.log(Ns), np.log10([init_output_scale(int(N), g, list(init_seeds), x) for N in Ns]), 1)[0]
          for g in gammas]
    de = [np.polyfit(np.log(Ns), np.log10([np.mean([kernel_drift_dial(int(N), g, s, tau, dtau) for s in drift_seeds])
                                            for N in Ns]), 1)[0] for g in gammas]
    return np.array(ie), np.array(de)


# %% tags=["wrong"]
# wrong: balancedness with the opposite sign, |a|^2 - c^2
# hint: Balancedness is c_i² − a_i², the quantity that gradient flow conserves (Exercise 5.2(b)): check
#   the order of the two terms.
def balancedness(params):
    return np.asarray(params["a"], float) ** 2 - np.asarray(params["c"], float) ** 2


# %% tags=["rewrite"]
# rewrite: the same opposite sign, factored as (a - c)(a + c)
def balancedness(params):
    a, c = np.asarray(params["a"], float), np.asarray(params["c"], float)
    return (a - c) * (a + c)


# %% tags=["alternative"]
# alternative: mf_train by torch autograd on the loss scaled by N^(2 gamma - 1); exponents by scipy linregress
import torch as _torch

_torch.set_num_threads(1)
from scipy import stats as _stats


def mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None):
    x_np, y_lab = lab_data()
    y_np = y_lab if y is None else np.asarray(y, float)
    p = init_neurons(N, seed) if params0 is None else params0
    a = _torch.tensor(np.array(p["a"], float), requires_grad=True)
    c = _torch.tensor(np.array(p["c"], float), requires_grad=True)
    N = a.numel()
    act = {"tanh": _torch.tanh, "relu": _torch.relu}[activation]
    xt, yt = _torch.tensor(x_np), _torch.tensor(y_np)
    every = max(steps if record_every is None else record_every, 1)
    out = {k: [] for k in ("tau", "loss", "a", "c", "ntk")}
    for k in range(steps + 1):
        loss = 0.5 * _torch.sum((N ** (-gamma) * act(xt[:, None] * a[None, :]) @ c - yt) ** 2)
        if k % every == 0 or k == steps:
            an, cn = a.detach().numpy().copy(), c.detach().numpy().copy()
            out["tau"].append(k * dtau)
            out["loss"].append(loss.item())
            out["a"].append(an)
            out["c"].append(cn)
            out["ntk"].append(ntk({"a": an, "c": cn}, x_np, gamma, activation=activation))
        if k == steps:
            break
        ga, gc = _torch.autograd.grad(N ** (2 * gamma - 1) * loss, (a, c))
        with _torch.no_grad():
            a -= dtau * ga
            c -= dtau * gc
    return {k: np.array(v) for k, v in out.items()}


def dial_exponents(gammas, Ns, init_seeds=tuple(range(200)), drift_seeds=(0, 1, 2), tau=0.2, dtau=0.01, x=1.0):
    lN = np.log(np.asarray(Ns, float))
    ie = [_stats.linregress(lN, np.log([init_output_scale(N, g, init_seeds, x) for N in Ns])).slope for g in gammas]
    de = [_stats.linregress(lN, np.log([sum(kernel_drift_dial(N, g, s, tau, dtau) for s in drift_seeds) / len(drift_seeds)
                                        for N in Ns])).slope for g in gammas]
    return np.array(ie), np.array(de)


def init_output_scale(N, gamma, seeds, x=1.0):
    f0 = np.array([np.sum(init_neurons(N, s)["c"] * np.tanh(init_neurons(N, s)["a"] * x)) for s in seeds]) * N ** (-gamma)
    return float(np.sqrt(np.sum((f0 - f0.mean()) ** 2) / (len(f0) - 1)))


def balancedness(params):
    a = np.atleast_1d(np.asarray(params["a"], float))
    return np.asarray(params["c"], float) ** 2 - (a * a if a.ndim == 1 else np.einsum("ij,ij->i", a, a))
