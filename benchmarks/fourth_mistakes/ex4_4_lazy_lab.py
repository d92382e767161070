import numpy as np


def _hm_records(rec, step, a, c, x, y, gamma):
    r = forward({"a": a, "c": c}, x, gamma) - y
    rec["step"].append(step)
    rec["loss"].append(0.5 * r @ r)
    rec["residual"].append(r)
    rec["ntk"].append(ntk({"a": a, "c": c}, x, gamma))
    rec["a"].append(a.copy())
    rec["c"].append(c.copy())


# %% mistake: one seed for both weight vectors
# function: init_params
# kind: reseed
# truth: init_params draws a with np.random.default_rng(rng) and then c with a second np.random.default_rng(rng), so for an integer seed the two generators give the same numbers and c == a (not independent: E c tanh(a x) > 0, so f_0 no longer has mean 0); one generator must draw both.
def init_params(N, gamma, rng):
    a = np.random.default_rng(rng).standard_normal(N)
    c = np.random.default_rng(rng).standard_normal(N)
    return {"a": a, "c": c}


# %% mistake: input x missing from the a-gradient
# function: train
# kind: factor
# truth: train computes dL/da_i = N^(-gamma) c_i sum_mu Delta^mu sech^2(a_i x^mu) without the factor x^mu that the chain rule brings from d(a_i x)/da_i, so the first-layer update is wrong (the c-update is right).
def train(params, x, y, gamma, eta, steps, record_every):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    a = np.array(params["a"], dtype=float)
    c = np.array(params["c"], dtype=float)
    N = a.size
    pref = N ** (-gamma)
    rec = {k: [] for k in ("step", "loss", "residual", "ntk", "a", "c")}
    _hm_records(rec, 0, a, c, x, y, gamma)
    for k in range(1, steps + 1):
        U = np.outer(a, x)
        T = np.tanh(U)
        r = pref * c @ T - y
        grad_c = pref * T @ r
        grad_a = pref * c * ((1.0 / np.cosh(U) ** 2) @ r)
        a -= eta * grad_a
        c -= eta * grad_c
        if k % record_every == 0 or k == steps:
            _hm_records(rec, k, a, c, x, y, gamma)
    return {k: np.array(v) for k, v in rec.items()}


# %% mistake: amplitudes with U instead of U^T
# function: residual_modes
# kind: transpose
# truth: residual_modes computes the amplitudes as U @ Delta (components of U Delta) instead of U^T @ Delta (the projections u_k . Delta on the eigenvector columns u_k of U), which is wrong unless U is symmetric.
def residual_modes(ntk0, residuals):
    s2, U = np.linalg.eigh(np.asarray(ntk0, dtype=float))
    order = np.argsort(s2)[::-1]
    s2, U = s2[order], U[:, order]
    R = np.atleast_2d(np.asarray(residuals, dtype=float))
    return s2, np.abs(R @ U.T)


# %% mistake: gradient-descent factor for the flow
# function: frozen_kernel_prediction
# kind: concept
# truth: frozen_kernel_prediction uses the discrete gradient-descent filter (1 - (1 - eta s_k^2)^t) / s_k^2 instead of the gradient-flow filter (1 - e^{-eta s_k^2 t}) / s_k^2 of (4.36), so modes with eta s_k^2 not small are wrong (the docstring asks for gradient flow, t in units of steps).
def frozen_kernel_prediction(params, x_train, y_train, x_test, gamma, eta, t):
    Th = ntk(params, x_train, gamma)
    Tx = ntk(params, x_test, gamma, x2=x_train)
    s2, U = np.linalg.eigh(Th)
    r0 = forward(params, x_train, gamma) - np.asarray(y_train, dtype=float)
    tiny = np.abs(s2) * eta * max(t, 1e-300) < 1e-12
    safe = np.where(tiny, 1.0, s2)
    filt = np.where(tiny, eta * t, (1.0 - (1.0 - eta * safe) ** t) / safe)
    return forward(params, x_test, gamma) - Tx @ (U @ (filt * (U.T @ r0)))
