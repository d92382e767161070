import numpy as np


def _hm_errors(data, w):
    X, y = np.asarray(data["X"], dtype=float), np.asarray(data["y"], dtype=float)
    P = X.shape[1]
    r = X @ w / np.sqrt(P) - y
    return float(np.mean(r**2)), float(np.sum((w - data["w_star"]) ** 2) / P + data["D"])


# %% mistake: final step recorded as an extra point
# function: gd_train
# kind: branch
# truth: gd_train also records the final step when steps is not a multiple of record_every (as some other labs ask), but this docstring records only at s = 0, k, 2k, ... <= steps, so "t", "train_error" and "test_error" get one entry too many.
def gd_train(data, eta, steps, record_every=1):
    X, y = np.asarray(data["X"], dtype=float), np.asarray(data["y"], dtype=float)
    P = X.shape[1]
    w = np.array(data["w0"], dtype=float)
    t, tr, te = [], [], []
    for s in range(steps + 1):
        if s % record_every == 0 or s == steps:
            a, b = _hm_errors(data, w)
            t.append(eta * s)
            tr.append(a)
            te.append(b)
        if s < steps:
            w = w - eta * X.T @ (X @ w / np.sqrt(P) - y) / np.sqrt(P)
    return {"t": np.array(t), "train_error": np.array(tr), "test_error": np.array(te), "w": w}


# %% mistake: limit from zero, forgetting w0
# function: gd_limit
# kind: concept
# truth: gd_limit returns the minimum-norm least-squares solution sqrt(P) pinv(X) y, which is where GD from w = 0 would end; GD started at w0 keeps the null-space part of w0, w_inf = w0 + sqrt(P) pinv(X) (y - X w0 / sqrt(P)), so for nu > 1 the weights and the test error are wrong (for nu < 1 both agree).
def gd_limit(data):
    X, y = np.asarray(data["X"], dtype=float), np.asarray(data["y"], dtype=float)
    P = X.shape[1]
    w = np.sqrt(P) * np.linalg.pinv(X) @ y
    tr, te = _hm_errors(data, w)
    return {"w": w, "train_error": tr, "test_error": te}


# %% mistake: separation divided by delta^2
# function: clone_separation
# kind: factor
# truth: clone_separation normalizes |w_B - w_A|^2 by delta^2 instead of by the initial |w_B(0) - w_A(0)|^2 = delta^2 |z|^2, so the separation starts near P (|z|^2 ~ P) instead of at 1.
def clone_separation(nu, P, eta, steps, rng, record_every=1, delta=1e-3):
    g = np.random.default_rng(rng)
    data = make_teacher_student(P, nu, 1.0, 0.1, 1.0, g)
    z = g.standard_normal(P)
    X, y = np.asarray(data["X"], dtype=float), np.asarray(data["y"], dtype=float)
    wa = np.array(data["w0"], dtype=float)
    wb = wa + delta * z
    t, sep = [], []
    for s in range(steps + 1):
        if s % record_every == 0:
            t.append(eta * s)
            sep.append(np.sum((wb - wa) ** 2) / delta**2)
        if s < steps:
            wa = wa - eta * X.T @ (X @ wa / np.sqrt(P) - y) / np.sqrt(P)
            wb = wb - eta * X.T @ (X @ wb / np.sqrt(P) - y) / np.sqrt(P)
    return {"t": np.array(t), "separation": np.array(sep)}


# %% mistake: branches chosen with a Python if
# function: asymptotic_train_error
# kind: array-crash
# truth: asymptotic_train_error picks the branch with `if nu < 1:`, which raises "truth value of an array is ambiguous" for an array of ratios; the two branches must be selected elementwise (np.where(nu < 1, D (1 - nu), 0.0)).
def asymptotic_train_error(nu, D):
    if nu < 1:
        return D * (1 - nu)
    return 0.0
