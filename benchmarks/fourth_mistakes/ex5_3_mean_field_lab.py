import numpy as np


def _hm_mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None,
                 tanh_derivative=False):
    """Rescaled gradient descent as in the docstring of mf_train (shared by the cells)."""
    x = lab_data()[0]
    y = lab_data()[1] if y is None else np.asarray(y, dtype=float)
    p = init_neurons(N, seed) if params0 is None else params0
    a = np.array(p["a"], dtype=float)
    c = np.array(p["c"], dtype=float)
    N = a.size
    phi, dphi = ACTIVATIONS[activation]
    if tanh_derivative:
        dphi = ACTIVATIONS["tanh"][1]
    rec = {k: [] for k in ("tau", "loss", "a", "c", "ntk")}

    def record(k):
        r = network({"a": a, "c": c}, x, gamma, activation) - y
        rec["tau"].append(k * dtau)
        rec["loss"].append(0.5 * r @ r)
        rec["a"].append(a.copy())
        rec["c"].append(c.copy())
        rec["ntk"].append(ntk({"a": a, "c": c}, x, gamma, activation=activation))

    record(0)
    scale = dtau * N ** (gamma - 1.0)
    for k in range(1, steps + 1):
        U = np.outer(a, x)
        r = N ** (-gamma) * (c @ phi(U)) - y
        gc = phi(U) @ r
        ga = c * (dphi(U) @ (r * x))
        c = c - scale * gc
        a = a - scale * ga
        if (record_every is not None and k % record_every == 0) or k == steps:
            record(k)
    return {k: np.array(v) for k, v in rec.items()}


# %% mistake: tanh derivative for every activation
# function: mf_train
# kind: ignored-arg
# truth: mf_train takes phi from ACTIVATIONS[activation] but writes the derivative as sech^2 (the tanh one) in the a-update, so with activation="relu" the first-layer gradient uses tanh'(a x) instead of the step function (the argument is ignored for phi').
def mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None):
    return _hm_mf_train(N, steps, dtau, seed, gamma, record_every, y, activation, params0, tanh_derivative=True)


# %% mistake: output scale always at gamma = 1/2
# function: init_output_scale
# kind: upstream (init_output_scale)
# truth: init_output_scale evaluates f_0 with the NTK prefactor N^(-1/2) (network(..., 0.5)) whatever gamma is, so the returned scale is sqrt(K) for every gamma instead of N^(1/2 - gamma) sqrt(K); dial_exponents, written correctly on top of it, then reports init exponents 0 instead of 1/2 - gamma.
def init_output_scale(N, gamma, seeds, x=1.0):
    f0 = [network(init_neurons(N, s), np.array([x]), 0.5)[0] for s in seeds]
    return float(np.std(f0, ddof=1))


def dial_exponents(gammas, Ns, init_seeds=tuple(range(200)), drift_seeds=(0, 1, 2), tau=0.2, dtau=0.01, x=1.0):
    logN = np.log(np.asarray(Ns, dtype=float))
    ie, de = [], []
    for g in gammas:
        s = [init_output_scale(N, g, list(init_seeds), x) for N in Ns]
        d = [np.mean([kernel_drift_dial(N, g, seed, tau, dtau) for seed in drift_seeds]) for N in Ns]
        ie.append(np.polyfit(logN, np.log(s), 1)[0])
        de.append(np.polyfit(logN, np.log(d), 1)[0])
    return np.array(ie), np.array(de)


# %% mistake: drift divided by the final kernel
# function: kernel_drift_dial
# kind: concept
# truth: kernel_drift_dial normalizes the change by the norm of the final kernel, ||Theta_end - Theta_0|| / ||Theta_end||, instead of the initial one, ||Theta_0||; the relative drift is measured against the kernel at initialization.
def kernel_drift_dial(N, gamma, seed, tau=20.0, dtau=0.02):
    steps = int(round(tau / dtau))
    run = mf_train(N, steps, dtau, seed, gamma)
    T0, T1 = run["ntk"][0], run["ntk"][-1]
    return float(np.linalg.norm(T1 - T0) / np.linalg.norm(T1))


# %% mistake: |a|^2 summed over neurons
# function: balancedness
# kind: transpose
# truth: balancedness sums a**2 over axis 0 (over the neurons) instead of over the input dimension (axis 1, or nothing when a has shape (N,)), so it subtracts the same total sum_i |a_i|^2 from every c_i^2 instead of each neuron's own |a_i|^2.
def balancedness(params):
    a = np.asarray(params["a"], dtype=float)
    c = np.asarray(params["c"], dtype=float)
    return c**2 - np.sum(a**2, axis=0)
