import numpy as np


# %% mistake: recorded NTK always with tanh
# function: mf_train
# kind: ignored-arg
# truth: mf_train trains with the requested activation but records ntk(params, x, gamma) without activation=activation, so for a ReLU run the "ntk" records are the tanh kernel of the ReLU weights.
def mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None):
    p = init_neurons(N, seed) if params0 is None else params0
    a = np.array(p["a"], dtype=float)
    c = np.array(p["c"], dtype=float)
    N = a.size
    x = lab_data()[0]
    y = lab_data()[1] if y is None else np.asarray(y, dtype=float)
    phi, dphi = ACTIVATIONS[activation]
    pref = N ** (-gamma)
    lr = dtau * N ** (gamma - 1.0)
    rec = {"tau": [], "loss": [], "a": [], "c": [], "ntk": []}
    for k in range(steps + 1):
        U = np.outer(a, x)
        P = phi(U)
        delta = pref * (c @ P) - y
        if k == 0 or k == steps or (record_every is not None and k % record_every == 0):
            rec["tau"].append(k * dtau)
            rec["loss"].append(0.5 * delta @ delta)
            rec["a"].append(a.copy())
            rec["c"].append(c.copy())
            rec["ntk"].append(ntk({"a": a, "c": c}, x, gamma))
        if k == steps:
            break
        gc = P @ delta
        ga = c * (dphi(U) @ (delta * x))
        a, c = a - lr * ga, c - lr * gc
    return {key: np.array(v) for key, v in rec.items()}


# %% mistake: seeds replaced by 0..len(seeds)-1
# function: init_output_scale
# kind: ignored-arg
# truth: init_output_scale draws networks init_neurons(N, s) for s in range(len(seeds)) instead of for the seeds it is given, so only the number of seeds is used; loop over the seeds themselves.
def init_output_scale(N, gamma, seeds, x=1.0):
    f0 = [network(init_neurons(N, s), np.array([x], dtype=float), gamma)[0] for s in range(len(seeds))]
    return float(np.std(f0, ddof=1))


# %% mistake: learning rate scaled twice by N^(2 gamma - 1)
# function: kernel_drift_dial
# kind: factor
# truth: kernel_drift_dial passes N^(2 gamma - 1) dtau to mf_train as its time step, but mf_train already applies the factor N^(2 gamma - 1) to dtau, so for gamma != 1/2 the run uses the wrong learning rate; pass dtau itself.
def kernel_drift_dial(N, gamma, seed, tau=20.0, dtau=0.02):
    steps = int(round(tau / dtau))
    run = mf_train(N, steps, N ** (2 * gamma - 1) * dtau, seed, gamma)
    T0, T1 = run["ntk"][0], run["ntk"][-1]
    return float(np.linalg.norm(T1 - T0) / np.linalg.norm(T0))


# %% mistake: |a_i|^2 as an elementwise square
# function: balancedness
# kind: array-crash
# truth: balancedness computes c**2 - a**2, which works for scalar inputs (a of shape (N,)) but for a of shape (N, d) does not sum the squares over the d components (and fails to broadcast); use np.sum(a**2, axis=1) there.
def balancedness(params):
    a = np.asarray(params["a"], dtype=float)
    c = np.asarray(params["c"], dtype=float)
    return c**2 - a**2
