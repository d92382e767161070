import numpy as np


def _um_ou(k, D, dt, steps, n_paths, rng, x0=None, noise_factor=1.0, reseed=False):
    g = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    x[0] = g.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths) if x0 is None else x0
    for i in range(steps):
        if reseed:
            g = np.random.default_rng(rng)
        z = g.standard_normal(n_paths)
        x[i + 1] = x[i] - k * x[i] * dt + np.sqrt(noise_factor * D * dt) * z
    return x


# %% mistake: noise variance 2 D dt
# function: simulate_ou
# kind: factor
# truth: the noise increment is sqrt(2 D dt) z, but with the correlator D delta(t - t') it is sqrt(D dt) z (the factor 2 belongs to the convention 2D delta).
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    return _um_ou(k, D, dt, steps, n_paths, rng, x0, noise_factor=2.0)


# %% mistake: generator re-seeded every step
# function: simulate_ou
# kind: reseed
# truth: np.random.default_rng(rng) is called inside the time loop, so with an int seed every step draws the same noise vector z instead of independent increments.
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    return _um_ou(k, D, dt, steps, n_paths, rng, x0, reseed=True)


# %% mistake: response 1 at equal times
# function: ou_response
# kind: branch
# truth: the step function is taken as theta(tau >= 0), so R(0) = 1; in the Ito convention R(0) = 0 (only tau > 0 responds).
def ou_response(tau, k):
    tau = np.asarray(tau, dtype=float)
    out = np.where(tau >= 0, np.exp(-k * np.abs(tau)), 0.0)
    return float(out) if out.ndim == 0 else out


# %% mistake: last pair of every lag dropped
# function: empirical_correlation
# kind: off-by-one
# truth: the products run over i = 0..S-j-1 (paths[:S-j] * paths[j:S]) instead of i = 0..S-j, so the last time point is never used and each lag has one pair too few.
def empirical_correlation(paths, max_lag):
    p = np.asarray(paths, dtype=float)
    if p.ndim == 1:
        p = p[:, None]
    S = p.shape[0] - 1
    return np.array([np.mean(p[:S - j] * p[j:S]) for j in range(max_lag + 1)])


# %% mistake: field left on for the whole run
# function: empirical_response
# kind: concept
# truth: the field h is applied at every step instead of during the first step only, so this measures the integrated (step) response, not the impulse response R.
def empirical_response(k, D, dt, h, steps, n_paths, rng):
    g = np.random.default_rng(rng)
    x = g.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths)
    xk = x.copy()
    out = np.zeros(steps + 1)
    for i in range(steps):
        z = g.standard_normal(n_paths)
        x = x - k * x * dt + np.sqrt(D * dt) * z
        xk = xk + (-k * xk + h) * dt + np.sqrt(D * dt) * z
        out[i + 1] = np.mean((xk - x) / (h * dt))
    return out


# %% mistake: FDT residual with the wrong sign
# function: fdt_residual
# kind: term
# truth: the derivative term is subtracted, (D/2) R - dC/dtau, instead of added; the FDT says T R + dC/dtau = 0.
def fdt_residual(C, R, dt, D):
    C, R = np.asarray(C, dtype=float), np.asarray(R, dtype=float)
    return D / 2 * R[1:-1] - (C[2:] - C[:-2]) / (2 * dt)
