import numpy as np
from scipy import integrate


# %% mistake: a updated with the already-updated c
# function: train
# kind: concept
# truth: gradient descent updates a and c simultaneously from the current parameters; the code updates c first and then computes dL/da with the new c (and the residual of the new c), which is a different, sequential algorithm.
def train(params, x, y, gamma, eta, steps, record_every):
    a = np.array(params["a"], dtype=float)
    c = np.array(params["c"], dtype=float)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    N = a.size
    pref = N ** (-gamma)
    rec = {"step": [], "loss": [], "residual": [], "ntk": [], "a": [], "c": []}

    def _hm_record(k):
        r = pref * np.tanh(np.outer(x, a)) @ c - y
        rec["step"].append(k)
        rec["loss"].append(0.5 * r @ r)
        rec["residual"].append(r)
        rec["ntk"].append(ntk({"a": a, "c": c}, x, gamma))
        rec["a"].append(a.copy())
        rec["c"].append(c.copy())

    _hm_record(0)
    for k in range(1, steps + 1):
        T = np.tanh(np.outer(a, x))                       # (N, n)
        r = pref * c @ T - y
        c = c - eta * pref * T @ r
        r = pref * c @ np.tanh(np.outer(a, x)) - y        # residual recomputed with the new c
        S = 1.0 / np.cosh(np.outer(a, x)) ** 2
        a = a - eta * pref * c * ((S * x[None, :]) @ r)
        if k % record_every == 0 or k == steps:
            _hm_record(k)
    return {key: np.array(v) for key, v in rec.items()}


# %% mistake: eigenvectors taken as rows of U
# function: residual_modes
# kind: transpose
# truth: numpy.linalg.eigh returns the eigenvectors as the columns of U, so the amplitudes are |U^T Delta|; the code projects on the rows (residuals @ U.T), which mixes the modes for any non-diagonal kernel.
def residual_modes(ntk0, residuals):
    s2, U = np.linalg.eigh(np.asarray(ntk0, dtype=float))
    order = np.argsort(s2)[::-1]
    s2, U = s2[order], U[:, order]
    R = np.atleast_2d(np.asarray(residuals, dtype=float))
    return s2, np.abs(R @ U.T)


# %% mistake: frozen prediction without f_0 at the test points
# function: frozen_kernel_prediction
# kind: term
# truth: (4.36) is f_t(x) = f_0(x) - Theta(x, X) Theta^-1 (I - e^{-eta Theta t}) (f_0(X) - Y); the code drops the initial function f_0(x), so it returns only the learned correction (0 at t = 0 instead of f_0).
def frozen_kernel_prediction(params, x_train, y_train, x_test, gamma, eta, t):
    x_train = np.asarray(x_train, dtype=float)
    x_test = np.asarray(x_test, dtype=float)
    Th = ntk(params, x_train, gamma)
    Tx = ntk(params, x_test, gamma, x2=x_train)
    s2, U = np.linalg.eigh(Th)
    z = eta * t * s2
    with np.errstate(divide="ignore", invalid="ignore"):
        filt = np.where(np.abs(z) > 1e-12, -np.expm1(-z) / np.where(s2 == 0, 1.0, s2), eta * t)
    d0 = forward(params, x_train, gamma) - np.asarray(y_train, dtype=float)
    return -Tx @ (U @ (filt * (U.T @ d0)))


# %% mistake: the intercept of polyfit returned as the slope
# function: drift_exponent
# kind: off-by-one
# truth: np.polyfit(..., 1) returns [slope, intercept]; the code returns element [1], the intercept of the log-log fit, instead of element [0].
def drift_exponent(Ns, seeds, gamma=0.5, eta=0.02, steps=40_000):
    means = [np.mean([kernel_drift(N, gamma, s, eta, steps) for s in seeds]) for N in Ns]
    return float(np.polyfit(np.log(Ns), np.log(means), 1)[1])
