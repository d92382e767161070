import numpy as np


# %% mistake: sample count truncated instead of rounded
# function: make_teacher_student
# kind: off-by-one
# truth: make_teacher_student sets n = int(P / nu), which truncates, so whenever P / nu has a fractional part of 1/2 or more it draws one sample too few; n is round(P / nu) (at least 1).
def make_teacher_student(P, nu, r, D, sigma0, rng):
    g = np.random.default_rng(rng)
    n = max(1, int(P / nu))
    X = g.standard_normal((n, P))
    w_star = g.normal(0.0, np.sqrt(r), size=P)
    y = X @ w_star / np.sqrt(P) + g.normal(0.0, np.sqrt(D), size=n)
    w0 = g.normal(0.0, sigma0, size=P)
    return {"X": X, "y": y, "w_star": w_star, "w0": w0, "P": int(P), "n": int(n),
            "nu": float(nu), "r": float(r), "D": float(D), "sigma0": float(sigma0)}


# %% mistake: test error without the label noise of a fresh example
# function: gd_train
# kind: term
# truth: gd_train records the test error as |w - w*|^2 / P only; the population error of a fresh example also contains its label noise, so + D is missing.
def gd_train(data, eta, steps, record_every=1):
    X, y = np.asarray(data["X"], dtype=float), np.asarray(data["y"], dtype=float)
    ws, w = np.asarray(data["w_star"], dtype=float), np.array(data["w0"], dtype=float)
    P = X.shape[1]
    sP = np.sqrt(P)
    t, tr, te = [], [], []
    for s in range(steps + 1):
        res = X @ w / sP - y
        if s % record_every == 0:
            t.append(eta * s)
            tr.append(np.mean(res**2))
            te.append(np.sum((w - ws) ** 2) / P)
        if s < steps:
            w = w - eta * X.T @ res / sP
    return {"t": np.array(t), "train_error": np.array(tr), "test_error": np.array(te), "w": w}


# %% mistake: minimum-norm solution instead of keeping w0's null-space part
# function: gd_limit
# kind: concept
# truth: gd_limit returns sqrt(P) pinv(X) y, the minimum-norm interpolator, forgetting that gradient descent starts at w0 and never changes its null-space part; the limit is w0 + sqrt(P) pinv(X) (y - X w0 / sqrt(P)).
def gd_limit(data):
    X, y = np.asarray(data["X"], dtype=float), np.asarray(data["y"], dtype=float)
    ws = np.asarray(data["w_star"], dtype=float)
    P = X.shape[1]
    w = np.sqrt(P) * np.linalg.pinv(X) @ y
    res = X @ w / np.sqrt(P) - y
    return {"w": w, "train_error": float(np.mean(res**2)),
            "test_error": float(np.sum((w - ws) ** 2) / P + data["D"])}


# %% mistake: if/else on nu fails for arrays
# function: asymptotic_test_error
# kind: array-crash
# truth: asymptotic_test_error branches with `if nu < 1:` on the whole argument, which raises "truth value of an array is ambiguous" for an array of nu; evaluate the two branches with np.where (or a mask).
def asymptotic_test_error(nu, r, D, sigma0):
    if nu == 1:
        return float("inf") if D > 0 else 0.0
    if nu < 1:
        return D / (1 - nu)
    return (1 - 1 / nu) * (sigma0**2 + r) + D / (nu - 1) + D


# %% mistake: lower edge without the 1/nu
# function: relaxation_time
# kind: factor
# truth: relaxation_time uses lambda_- = (1 - sqrt(nu))^2, dropping the 1/nu of the Marchenko-Pastur edge, so tau = 1/(1 - sqrt(nu))^2 is off by a factor nu; tau = nu / (1 - sqrt(nu))^2.
def relaxation_time(nu):
    nu = np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore"):
        out = 1.0 / (1 - np.sqrt(nu)) ** 2
    return out if out.ndim else float(out)
