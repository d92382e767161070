import numpy as np
from scipy import integrate


def _um_fwd(a, c, x, gamma):
    return np.tanh(np.outer(np.asarray(x, dtype=float), a)) @ c / a.size ** gamma


def _um_train(params, x, y, gamma, eta, steps, record_every, per_n=False, late_record=False):
    a = np.array(params["a"], dtype=float)
    c = np.array(params["c"], dtype=float)
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    N = a.size
    rec = {k: [] for k in ("step", "loss", "residual", "ntk", "a", "c")}

    def record(k):
        r = _um_fwd(a, c, x, gamma) - y
        rec["step"].append(k)
        rec["loss"].append(0.5 * r @ r)
        rec["residual"].append(r)
        rec["ntk"].append(ntk({"a": a, "c": c}, x, gamma))
        rec["a"].append(a.copy())
        rec["c"].append(c.copy())

    if not late_record:
        record(0)
    for k in range(steps):
        T = np.tanh(np.outer(a, x))
        r = T.T @ c / N ** gamma - y
        scale = len(x) if per_n else 1
        gc = T @ r / N ** gamma / scale
        ga = c * ((1 - T**2) @ (r * x)) / N ** gamma / scale
        a, c = a - eta * ga, c - eta * gc
        if late_record:
            if k % record_every == 0 or k == steps - 1:
                record(k)
        elif (k + 1) % record_every == 0 or k + 1 == steps:
            record(k + 1)
    return {k: np.array(v) for k, v in rec.items()}


# %% mistake: prefactor exponent ignored
# function: forward
# kind: ignored-arg
# truth: gamma is ignored: the output is always divided by sqrt(N) (the NTK prefactor), so the mean-field gamma = 1 network is wrong.
def forward(params, x, gamma):
    a, c = np.asarray(params["a"], dtype=float), np.asarray(params["c"], dtype=float)
    return np.tanh(np.outer(np.asarray(x, dtype=float), a)) @ c / np.sqrt(a.size)


# %% mistake: records one step late
# function: train
# kind: off-by-one
# truth: each record is taken after the update of step k but labeled k, so the weights, residual and NTK recorded at step k are those of step k + 1 (step 0 is never the initial network).
def train(params, x, y, gamma, eta, steps, record_every):
    return _um_train(params, x, y, gamma, eta, steps, record_every, late_record=True)


# %% mistake: gradient of the mean loss
# function: train
# kind: factor
# truth: the gradient is divided by the number of training points n (the gradient of the mean squared error); the loss here is 1/2 sum (f - y)^2 with no 1/n.
def train(params, x, y, gamma, eta, steps, record_every):
    return _um_train(params, x, y, gamma, eta, steps, record_every, per_n=True)


# %% mistake: quad on arrays
# function: gp_kernel
# kind: array-crash
# truth: scipy.integrate.quad is called with array arguments x1, x2 inside the integrand, which only works for floats; loop (np.vectorize) over the broadcast inputs.
def gp_kernel(x1, x2):
    f = lambda a: np.exp(-a * a / 2) / np.sqrt(2 * np.pi) * np.tanh(a * x1) * np.tanh(a * x2)
    return 2 * integrate.quad(f, 0, np.inf, epsabs=1e-13, epsrel=1e-12, limit=200)[0]


# %% mistake: projection on the rows of U
# function: residual_modes
# kind: transpose
# truth: the amplitudes are computed as Delta @ U.T, projecting on the rows of U; the eigenvectors u_k are the columns of U, so it must be Delta @ U.
def residual_modes(ntk0, residuals):
    s2, U = np.linalg.eigh(np.asarray(ntk0, dtype=float))
    order = np.argsort(s2)[::-1]
    s2, U = s2[order], U[:, order]
    return s2, np.abs(np.atleast_2d(np.asarray(residuals, dtype=float)) @ U.T)


# %% mistake: drift normalised by the final kernel
# function: kernel_drift
# kind: upstream (kernel_drift)
# truth: kernel_drift divides by ||Theta_end||_F instead of ||Theta_0||_F; drift_exponent, which averages kernel_drift and fits the slope, is right but inherits the error.
def kernel_drift(N, gamma, seed, eta=0.02, steps=40_000):
    x, y = lab_data()
    rec = _um_train(init_params(N, gamma, seed), x, y, gamma, eta, steps, max(steps, 1))
    return float(np.linalg.norm(rec["ntk"][-1] - rec["ntk"][0]) / np.linalg.norm(rec["ntk"][-1]))


def drift_exponent(Ns, seeds, gamma=0.5, eta=0.02, steps=40_000):
    d = [np.mean([kernel_drift(N, gamma, s, eta, steps) for s in seeds]) for N in Ns]
    return float(np.polyfit(np.log(Ns), np.log(d), 1)[0])


# %% mistake: correction added instead of subtracted
# function: frozen_kernel_prediction
# kind: term
# truth: the kernel correction is added to f_0(x) instead of subtracted, so training moves the prediction away from the labels.
def frozen_kernel_prediction(params, x_train, y_train, x_test, gamma, eta, t):
    Th = ntk(params, x_train, gamma)
    Tx = ntk(params, x_test, gamma, x2=x_train)
    lam, V = np.linalg.eigh(Th)
    r = forward(params, x_train, gamma) - np.asarray(y_train, dtype=float)
    filt = np.where(lam > 1e-12, -np.expm1(-eta * t * lam) / np.where(lam > 1e-12, lam, 1.0), eta * t)
    return forward(params, x_test, gamma) + Tx @ (V @ (filt * (V.T @ r)))
