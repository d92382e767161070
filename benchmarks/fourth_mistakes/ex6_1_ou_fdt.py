import numpy as np


# %% mistake: noise in the 2D convention
# function: simulate_ou
# kind: factor
# truth: simulate_ou adds sqrt(2 D dt) z per step (the convention <xi xi> = 2 D delta) although the docstring's correlator is D delta, so the noise variance per step is 2 D dt instead of D dt and the stationary variance of the paths is D/k instead of D/(2k).
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    rng = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    if x0 is None:
        x[0] = rng.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths)
    else:
        x[0] = x0
    for i in range(steps):
        x[i + 1] = x[i] - k * x[i] * dt + np.sqrt(2 * D * dt) * rng.standard_normal(n_paths)
    return x


# %% mistake: causality with a Python if
# function: ou_response
# kind: array-crash
# truth: ou_response writes causality as `if tau <= 0: return 0.0`, which raises "truth value of an array is ambiguous" for an array of lags; it must be elementwise, e.g. np.where(tau > 0, np.exp(-k tau), 0.0).
def ou_response(tau, k):
    if tau <= 0:
        return 0.0
    return float(np.exp(-k * tau))


# %% mistake: last pair of each lag dropped
# function: empirical_correlation
# kind: off-by-one
# truth: empirical_correlation multiplies paths[:S - j] by paths[j:S], which stops one time early and leaves out the last pair (i = S - j) of every lag, while it still divides by S + 1 - j pairs; the slices must be paths[:S + 1 - j] and paths[j:].
def empirical_correlation(paths, max_lag):
    x = np.asarray(paths, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    S = x.shape[0] - 1
    n = x.shape[1]
    out = np.empty(max_lag + 1)
    for j in range(max_lag + 1):
        out[j] = np.sum(x[:S - j] * x[j:S]) / ((S + 1 - j) * n)
    return out


# %% mistake: field left on after the first step
# function: empirical_response
# kind: concept
# truth: empirical_response keeps the field h in the kicked twin's drift at every step instead of during the first step only, so it measures the response to a step field (the running integral of R, which grows to 1/(k dt)) instead of the impulse response R.
def empirical_response(k, D, dt, h, steps, n_paths, rng):
    rng = np.random.default_rng(rng)
    x = rng.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths)
    xh = x.copy()
    R = np.zeros(steps + 1)
    for i in range(steps):
        z = np.sqrt(D * dt) * rng.standard_normal(n_paths)
        x = x - k * x * dt + z
        xh = xh + dt * (-k * xh + h) + z
        R[i + 1] = np.mean(xh - x) / (h * dt)
    return R
