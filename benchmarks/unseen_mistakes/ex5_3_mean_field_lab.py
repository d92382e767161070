import numpy as np


def _um_mf(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None,
        deriv_act=None, lr_exp=None):
    p = init_neurons(N, seed) if params0 is None else params0
    a = np.array(p["a"], dtype=float)
    c = np.array(p["c"], dtype=float)
    N = a.size
    x = lab_data()[0]
    y = lab_data()[1] if y is None else np.asarray(y, dtype=float)
    phi = ACTIVATIONS[activation][0]
    dphi = ACTIVATIONS[deriv_act or activation][1]
    lr = N ** (gamma - 1) if lr_exp is None else N ** lr_exp
    r_every = record_every if record_every else max(steps, 1)
    rec = {k: [] for k in ("tau", "loss", "a", "c", "ntk")}

    def record(k):
        r = network({"a": a, "c": c}, x, gamma, activation) - y
        rec["tau"].append(k * dtau)
        rec["loss"].append(0.5 * r @ r)
        rec["a"].append(a.copy())
        rec["c"].append(c.copy())
        rec["ntk"].append(ntk({"a": a, "c": c}, x, gamma, activation=activation))

    record(0)
    for k in range(steps):
        U = np.outer(a, x)
        r = phi(U).T @ c / N ** gamma - y
        gc = phi(U) @ r
        ga = c * (dphi(U) @ (r * x))
        a, c = a - dtau * lr * ga, c - dtau * lr * gc
        if (k + 1) % r_every == 0 or k + 1 == steps:
            record(k + 1)
    return {k: np.array(v) for k, v in rec.items()}


# %% mistake: tanh derivative for every activation
# function: mf_train
# kind: ignored-arg
# truth: the activation argument is used for phi but not for phi': the a-update always uses the tanh derivative sech^2, so ReLU runs are wrong.
def mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None):
    return _um_mf(N, steps, dtau, seed, gamma, record_every, y, activation, params0, deriv_act="tanh")


# %% mistake: learning rate not rescaled with N
# function: mf_train
# kind: factor
# truth: the step uses eta = dtau instead of eta = N^(2 gamma - 1) dtau, so each update is dtau N^(-gamma) times the sum instead of dtau N^(gamma - 1).
def mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None):
    return _um_mf(N, steps, dtau, seed, gamma, record_every, y, activation, params0, lr_exp=-gamma)


# %% mistake: population standard deviation over seeds
# function: init_output_scale
# kind: bessel
# truth: the standard deviation over the seeds uses ddof=0 instead of the sample standard deviation with ddof=1 (low by sqrt((M-1)/M)).
def init_output_scale(N, gamma, seeds, x=1.0):
    f0 = [network(init_neurons(N, s), np.array([x], dtype=float), gamma)[0] for s in seeds]
    return float(np.std(f0))


# %% mistake: int() truncation of the step count
# function: kernel_drift_dial
# kind: off-by-one
# truth: the number of steps is int(tau / dtau), which drops a step when tau / dtau is 28.999... in floating point; it should be round(tau / dtau).
def kernel_drift_dial(N, gamma, seed, tau=20.0, dtau=0.02):
    run = _um_mf(N, int(tau / dtau), dtau, seed, gamma)
    return float(np.linalg.norm(run["ntk"][-1] - run["ntk"][0]) / np.linalg.norm(run["ntk"][0]))


# %% mistake: balancedness per coordinate
# function: balancedness
# kind: branch
# truth: for weights a of shape (N, d) it returns c_i^2 - a_ij^2 per coordinate (an (N, d) array) instead of c_i^2 - |a_i|^2 summed over j; only the scalar-input case d = 1 is right.
def balancedness(params):
    a = np.asarray(params["a"], dtype=float)
    c = np.asarray(params["c"], dtype=float)
    if a.ndim == 1:
        return c**2 - a**2
    return c[:, None] ** 2 - a**2
