import numpy as np
from scipy import integrate


# %% mistake: a and c drawn from two generators with the same seed
# function: init_params
# kind: reseed
# truth: init_params builds a fresh np.random.default_rng(rng) for a and another for c, so with an integer seed c is an exact copy of a; draw both from one generator.
def init_params(N, gamma, rng):
    a = np.random.default_rng(rng).standard_normal(N)
    c = np.random.default_rng(rng).standard_normal(N)
    return {"a": a, "c": c}


# %% mistake: sum over all neurons and inputs at once
# function: forward
# kind: array-crash
# truth: forward computes np.sum(c * np.tanh(a * x)), which multiplies the (N,) weights with the (m,) inputs elementwise, so it raises when m != N (and mixes inputs when m == N); use the outer product np.tanh(np.outer(x, a)) @ c.
def forward(params, x, gamma):
    a, c = np.asarray(params["a"], dtype=float), np.asarray(params["c"], dtype=float)
    x = np.asarray(x, dtype=float)
    return np.sum(c * np.tanh(a * x)) / a.size**gamma


# %% mistake: recorded NTK always at gamma = 1/2
# function: train
# kind: ignored-arg
# truth: train records ntk(params, x, GAMMA_LAZY) instead of ntk(params, x, gamma), so the "ntk" records are wrong by a factor N^(2 gamma - 1) whenever gamma != 1/2 (the gradient steps themselves use gamma correctly).
def train(params, x, y, gamma, eta, steps, record_every):
    a = np.array(params["a"], dtype=float)
    c = np.array(params["c"], dtype=float)
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    N = a.size
    pref = N ** (-gamma)
    rec = {"step": [], "loss": [], "residual": [], "ntk": [], "a": [], "c": []}

    def record(k, delta):
        rec["step"].append(k)
        rec["loss"].append(0.5 * delta @ delta)
        rec["residual"].append(delta.copy())
        rec["ntk"].append(ntk({"a": a, "c": c}, x, GAMMA_LAZY))
        rec["a"].append(a.copy())
        rec["c"].append(c.copy())

    for k in range(steps + 1):
        T = np.tanh(np.outer(a, x))                  # (N, n)
        delta = pref * (c @ T) - y
        if k % record_every == 0 or k == steps:
            record(k, delta)
        if k == steps:
            break
        gc = pref * (T @ delta)
        ga = pref * c * ((1 - T**2) @ (delta * x))
        a, c = a - eta * ga, c - eta * gc
    return {key: np.array(v) for key, v in rec.items()}


# %% mistake: Gaussian weight exp(-a^2) instead of exp(-a^2/2)
# function: gp_kernel
# kind: concept
# truth: gp_kernel averages over a with the weight exp(-a^2)/sqrt(pi), which is the density of N(0, 1/2), not of the standard normal N(0, 1); the weight must be exp(-a^2/2)/sqrt(2 pi), otherwise the kernel is that of a narrower weight distribution.
def gp_kernel(x1, x2):
    x1, x2 = np.broadcast_arrays(np.asarray(x1, dtype=float), np.asarray(x2, dtype=float))
    out = np.empty(x1.shape)
    for idx in np.ndindex(x1.shape):
        u, v = x1[idx], x2[idx]
        g = lambda a: np.exp(-a * a) / np.sqrt(np.pi) * np.tanh(a * u) * np.tanh(a * v)  # noqa: E731
        out[idx] = 2 * integrate.quad(g, 0, np.inf, epsabs=1e-14, epsrel=1e-12, limit=400)[0]
    return out if out.ndim else float(out)


# %% mistake: eigenvectors taken as rows of eigh's output
# function: residual_modes
# kind: transpose
# truth: residual_modes projects the residual on the rows of the matrix returned by np.linalg.eigh, but the eigenvectors are its columns; the amplitudes must be |U[:, k] . Delta|.
def residual_modes(ntk0, residuals):
    w, U = np.linalg.eigh(np.asarray(ntk0, dtype=float))
    order = np.argsort(w)[::-1]
    s2 = w[order]
    U = U[order, :]
    amp = np.abs(np.asarray(residuals, dtype=float) @ U.T)
    return s2, amp
