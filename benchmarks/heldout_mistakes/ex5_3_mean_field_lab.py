import numpy as np


# %% mistake: dial prefactor N^(1 - gamma) instead of N^(gamma - 1)
# function: mf_train
# kind: factor
# truth: one Euler step is c_i -= dtau N^(gamma-1) sum_mu Delta phi (learning rate N^(2 gamma - 1) dtau times the N^-gamma of the gradient); the code multiplies by N^(1-gamma), right only at gamma = 1 and too large by N^(2 - 2 gamma) elsewhere on the dial.
def mf_train(N, steps, dtau, seed, gamma=1.0, record_every=None, y=None, activation="tanh", params0=None):
    phi, dphi = ACTIVATIONS[activation]
    x = lab_data()[0]
    y = lab_data()[1] if y is None else np.asarray(y, dtype=float)
    p = init_neurons(N, seed) if params0 is None else params0
    a = np.array(p["a"], dtype=float)
    c = np.array(p["c"], dtype=float)
    N = a.size
    scale = N ** (1.0 - gamma)
    rec = {"tau": [], "loss": [], "a": [], "c": [], "ntk": []}

    def _hm_record(k):
        r = network({"a": a, "c": c}, x, gamma, activation) - y
        rec["tau"].append(k * dtau)
        rec["loss"].append(0.5 * r @ r)
        rec["a"].append(a.copy())
        rec["c"].append(c.copy())
        rec["ntk"].append(ntk({"a": a, "c": c}, x, gamma, activation=activation))

    _hm_record(0)
    for k in range(1, steps + 1):
        u = np.outer(a, x)
        r = N ** (-gamma) * c @ phi(u) - y
        gc = phi(u) @ r
        ga = c * ((dphi(u) * x[None, :]) @ r)
        c = c - dtau * scale * gc
        a = a - dtau * scale * ga
        if (record_every is not None and k % record_every == 0) or k == steps:
            _hm_record(k)
    return {key: np.array(v) for key, v in rec.items()}


# %% mistake: initial output always measured at x = 1
# function: init_output_scale
# kind: ignored-arg
# truth: the std of f_0 must be measured at the given input x; the code evaluates the networks at the default x = 1.0 whatever x is passed, so the answer is right only for x = 1.
def init_output_scale(N, gamma, seeds, x=1.0):
    f0 = [network(init_neurons(N, s), np.array([1.0]), gamma)[0] for s in seeds]
    return float(np.std(f0, ddof=1))


# %% mistake: drift normalized by the final kernel
# function: kernel_drift_dial
# kind: concept
# truth: the relative drift is ||Theta_end - Theta_0|| / ||Theta_0||, relative to the kernel at initialization; the code divides by ||Theta_end||, which differs whenever the kernel's size changes in training (order one in mean field).
def kernel_drift_dial(N, gamma, seed, tau=20.0, dtau=0.02):
    steps = int(round(tau / dtau))
    run = mf_train(N, steps, dtau, seed, gamma)
    K0, K1 = run["ntk"][0], run["ntk"][-1]
    return float(np.linalg.norm(K1 - K0) / np.linalg.norm(K1))


# %% mistake: balancedness only for scalar inputs
# function: balancedness
# kind: array-crash
# truth: for input weights of shape (N, d) the balancedness is c_i^2 - |a_i|^2 with the norm summed over the d coordinates; the code computes c**2 - a**2 elementwise, which only works for d = 1 (it crashes or broadcasts wrongly for a 2-d a).
def balancedness(params):
    a = np.asarray(params["a"], dtype=float)
    c = np.asarray(params["c"], dtype=float)
    return c ** 2 - a ** 2
