import numpy as np


def _um_data(P, nu, r, D, sigma0, g, r_is_sd=False):
    n = max(1, int(round(P / nu)))
    X = g.standard_normal((n, P))
    w_star = g.normal(0.0, r if r_is_sd else np.sqrt(r), size=P)
    y = X @ w_star / np.sqrt(P) + g.normal(0.0, np.sqrt(D), size=n)
    w0 = g.normal(0.0, sigma0, size=P)
    return {"X": X, "y": y, "w_star": w_star, "w0": w0, "P": int(P), "n": n, "nu": float(nu),
            "r": float(r), "D": float(D), "sigma0": float(sigma0)}


# %% mistake: teacher variance used as standard deviation
# function: make_teacher_student
# kind: factor
# truth: w_star is drawn with standard deviation r instead of sqrt(r): r is the variance of the teacher weights.
def make_teacher_student(P, nu, r, D, sigma0, rng):
    return _um_data(P, nu, r, D, sigma0, np.random.default_rng(rng), r_is_sd=True)


# %% mistake: test error without the label noise
# function: gd_train
# kind: term
# truth: the recorded test error is |w - w*|^2 / P without the + D of a fresh example's label noise.
def gd_train(data, eta, steps, record_every=1):
    X, y = np.asarray(data["X"], dtype=float), np.asarray(data["y"], dtype=float)
    ws, w = np.asarray(data["w_star"], dtype=float), np.array(data["w0"], dtype=float)
    P = X.shape[1]
    t, tr, te = [], [], []
    for s in range(steps + 1):
        if s % record_every == 0:
            t.append(eta * s)
            tr.append(np.mean((X @ w / np.sqrt(P) - y) ** 2))
            te.append(np.sum((w - ws) ** 2) / P)
        if s < steps:
            w = w - eta * X.T @ (X @ w / np.sqrt(P) - y) / np.sqrt(P)
    return {"t": np.array(t), "train_error": np.array(tr), "test_error": np.array(te), "w": w}


# %% mistake: pseudo-inverse of the transpose
# function: gd_limit
# kind: transpose
# truth: it uses pinv(X.T) where pinv(X) (shape (P, n)) is needed to map the n residuals back to the P weights.
def gd_limit(data):
    X, y = np.asarray(data["X"], dtype=float), np.asarray(data["y"], dtype=float)
    ws, w0 = np.asarray(data["w_star"], dtype=float), np.asarray(data["w0"], dtype=float)
    P = X.shape[1]
    w = w0 + np.sqrt(P) * np.linalg.pinv(X.T) @ (y - X @ w0 / np.sqrt(P))
    return {"w": w, "train_error": float(np.mean((X @ w / np.sqrt(P) - y) ** 2)),
            "test_error": float(np.sum((w - ws) ** 2) / P + data["D"])}


# %% mistake: nu = 1 without noise is infinite
# function: asymptotic_test_error
# kind: branch
# truth: at nu = 1 it returns inf whatever D; without label noise (D = 0) the error at nu = 1 is 0.
def asymptotic_test_error(nu, r, D, sigma0):
    nu = np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        below = D / (1 - nu)
        above = (1 - 1 / nu) * (sigma0**2 + r) + D / (nu - 1) + D
        out = np.where(nu < 1, below, np.where(nu > 1, above, np.inf))
    return float(out) if out.ndim == 0 else out


# %% mistake: second generator for the clone kick
# function: clone_separation
# kind: reseed
# truth: the kick z is drawn from a new np.random.default_rng(rng), which replays the data's stream (z = X[0], in the row space of X), instead of continuing the generator g that drew the data.
def clone_separation(nu, P, eta, steps, rng, record_every=1, delta=1e-3):
    g = np.random.default_rng(rng)
    data = _um_data(P, nu, 1.0, 0.1, 1.0, g)
    z = np.random.default_rng(rng).standard_normal(P)
    X = data["X"]
    A = X.T @ X / P
    wa = data["w0"].copy()
    wb = wa + delta * z
    d0 = np.sum((wb - wa) ** 2)
    t, sep = [], []
    diff = wb - wa
    for s in range(steps + 1):
        if s % record_every == 0:
            t.append(eta * s)
            sep.append(np.sum(diff**2) / d0)
        diff = diff - eta * A @ diff
    return {"t": np.array(t), "separation": np.array(sep)}


# %% mistake: scalar test for the critical point
# function: relaxation_time
# kind: array-crash
# truth: `if nu == 1` only works for a float; an array of nu raises (ambiguous truth value). Use np.where / errstate.
def relaxation_time(nu):
    if nu == 1:
        return np.inf
    return nu / (1 - np.sqrt(nu)) ** 2
