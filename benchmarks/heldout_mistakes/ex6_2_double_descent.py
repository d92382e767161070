import numpy as np


# %% mistake: n truncated instead of rounded
# function: make_teacher_student
# kind: off-by-one
# truth: the number of samples is n = max(1, round(P / nu)); int(P / nu) truncates, so whenever P/nu has a fractional part above 1/2 the data set has one sample too few (and nu = P/n is off).
def make_teacher_student(P, nu, r, D, sigma0, rng):
    g = np.random.default_rng(rng)
    n = max(1, int(P / nu))
    X = g.standard_normal((n, P))
    w_star = np.sqrt(r) * g.standard_normal(P)
    y = X @ w_star / np.sqrt(P) + np.sqrt(D) * g.standard_normal(n)
    w0 = sigma0 * g.standard_normal(P)
    return {"X": X, "y": y, "w_star": w_star, "w0": w0, "P": int(P), "n": int(n),
            "nu": float(nu), "r": float(r), "D": float(D), "sigma0": float(sigma0)}


# %% mistake: test error without the label noise of a fresh example
# function: gd_train
# kind: term
# truth: the population error includes the noise of the test label, eps_g = |w - w*|^2 / P + D; the code records only |w - w*|^2 / P, too small by D at every time.
def gd_train(data, eta, steps, record_every=1):
    X = np.asarray(data["X"], dtype=float)
    y = np.asarray(data["y"], dtype=float)
    ws = np.asarray(data["w_star"], dtype=float)
    w = np.array(data["w0"], dtype=float)
    P = X.shape[1]
    sq = np.sqrt(P)
    t, tr, te = [], [], []
    for s in range(steps + 1):
        if s % record_every == 0:
            res = X @ w / sq - y
            t.append(eta * s)
            tr.append(np.mean(res ** 2))
            te.append(np.sum((w - ws) ** 2) / P)
        if s < steps:
            w = w - eta * X.T @ (X @ w / sq - y) / sq
    return {"t": np.array(t), "train_error": np.array(tr), "test_error": np.array(te), "w": w}


# %% mistake: the limit forgets the initialization
# function: gd_limit
# kind: concept
# truth: gradient descent never changes the null-space part of w0, so w_inf = w0 + sqrt(P) X^+ (y - X w0 / sqrt(P)); the code returns the min-norm solution sqrt(P) X^+ y, which agrees for nu < 1 but drops the remembered null-space part of w0 for nu > 1.
def gd_limit(data):
    X = np.asarray(data["X"], dtype=float)
    y = np.asarray(data["y"], dtype=float)
    ws = np.asarray(data["w_star"], dtype=float)
    P = X.shape[1]
    w = np.sqrt(P) * np.linalg.pinv(X) @ y
    res = X @ w / np.sqrt(P) - y
    return {"w": w, "train_error": float(np.mean(res ** 2)),
            "test_error": float(np.sum((w - ws) ** 2) / P + data["D"])}


# %% mistake: infinite error at nu = 1 even without noise
# function: asymptotic_test_error
# kind: branch
# truth: at nu = 1 the test error is inf only with label noise; for D = 0 both branches vanish there and the answer is 0, but the code returns inf at nu = 1 whatever D is.
def asymptotic_test_error(nu, r, D, sigma0):
    v = np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        under = D / (1 - v)
        over = (1 - 1 / v) * (sigma0 ** 2 + r) + D / (v - 1) + D
    out = np.where(v < 1, under, np.where(v > 1, over, np.inf))
    return float(out) if out.ndim == 0 else out


# %% mistake: separation as a distance, not a squared distance
# function: clone_separation
# kind: factor
# truth: the separation is the ratio of squared distances |w_B - w_A|^2 / |delta w(0)|^2, with plateau (nu - 1)/nu; the code returns the ratio of the norms, the square root of it (plateau sqrt((nu - 1)/nu)).
def clone_separation(nu, P, eta, steps, rng, record_every=1, delta=1e-3):
    g = np.random.default_rng(rng)
    data = make_teacher_student(P, nu, 1.0, 0.1, 1.0, g)
    X = np.asarray(data["X"], dtype=float)
    y = np.asarray(data["y"], dtype=float)
    z = g.standard_normal(P)
    wA = np.array(data["w0"], dtype=float)
    wB = wA + delta * z
    sq = np.sqrt(P)
    d0 = np.linalg.norm(wB - wA)
    t, sep = [], []
    for s in range(steps + 1):
        if s % record_every == 0:
            t.append(eta * s)
            sep.append(np.linalg.norm(wB - wA) / d0)
        if s < steps:
            wA = wA - eta * X.T @ (X @ wA / sq - y) / sq
            wB = wB - eta * X.T @ (X @ wB / sq - y) / sq
    return {"t": np.array(t), "separation": np.array(sep)}
