import numpy as np


# %% mistake: x0 = 0.0 taken for "no x0"
# function: simulate_ou
# kind: branch
# truth: the start must be drawn from N(0, D/(2k)) only when x0 is None; the test `if x0:` is also false for x0 = 0.0, so paths meant to start at 0 start from the stationary law.
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    g = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    if x0:
        x[0] = float(x0)
    else:
        x[0] = g.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths)
    amp = np.sqrt(D * dt)
    for i in range(steps):
        x[i + 1] = x[i] - k * x[i] * dt + amp * g.standard_normal(n_paths)
    return x


# %% mistake: noise amplitude sqrt(2 D dt)
# function: simulate_ou
# kind: concept
# truth: with the correlator <xi xi> = D delta the noise per step is sqrt(D dt) z; the code uses sqrt(2 D dt), the convention of a diffusion constant D_diff = D, which doubles the noise variance (stationary variance D/k instead of D/(2k)).
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    g = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    if x0 is None:
        x[0] = g.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths)
    else:
        x[0] = float(x0)
    amp = np.sqrt(2 * D * dt)
    for i in range(steps):
        x[i + 1] = x[i] - k * x[i] * dt + amp * g.standard_normal(n_paths)
    return x


# %% mistake: every lag divided by the full record length
# function: empirical_correlation
# kind: bessel
# truth: at lag j only S + 1 - j pairs exist, so the sum must be divided by (S + 1 - j) n; the code divides by (S + 1) n at every lag, biasing C_j down by the factor (S + 1 - j)/(S + 1).
def empirical_correlation(paths, max_lag):
    x = np.asarray(paths, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    S1, n = x.shape
    out = np.empty(max_lag + 1)
    for j in range(max_lag + 1):
        out[j] = np.sum(x[: S1 - j] * x[j:]) / (S1 * n)
    return out


# %% mistake: the field kept on for the whole run
# function: empirical_response
# kind: concept
# truth: the response is the reaction to an impulse, a field h during the first step only; the code keeps h on at every step, so it measures the integrated (step) response sum_i (1 - k dt)^i instead of R(j dt).
def empirical_response(k, D, dt, h, steps, n_paths, rng):
    g = np.random.default_rng(rng)
    x = g.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths)
    xh = x.copy()
    out = np.zeros(steps + 1)
    amp = np.sqrt(D * dt)
    for i in range(steps):
        z = amp * g.standard_normal(n_paths)
        x = x - k * x * dt + z
        xh = xh + dt * (-k * xh + h) + z
        out[i + 1] = np.mean(xh - x) / (h * dt)
    return out


# %% mistake: FDT residual with the derivative's sign flipped
# function: fdt_residual
# kind: term
# truth: the FDT is T R = -dC/dtau, so the residual is T R_j + (C_{j+1} - C_{j-1})/(2 dt); the code subtracts the central difference, which doubles the signal instead of cancelling it.
def fdt_residual(C, R, dt, D):
    C = np.asarray(C, dtype=float)
    R = np.asarray(R, dtype=float)
    return 0.5 * D * R[1:-1] - (C[2:] - C[:-2]) / (2 * dt)


# %% mistake: generator re-created at every step
# function: simulate_ou
# kind: reseed
# truth: the noise increments z_i must be independent across steps; the code calls np.random.default_rng(rng) inside the time loop, so with an int seed every step replays the same draws (z_i identical for all i), and the paths are driven by a constant kick instead of white noise.
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    x = np.empty((steps + 1, n_paths))
    if x0 is None:
        x[0] = np.random.default_rng(rng).normal(0.0, np.sqrt(D / (2 * k)), size=n_paths)
    else:
        x[0] = float(x0)
    amp = np.sqrt(D * dt)
    for i in range(steps):
        z = np.random.default_rng(rng).standard_normal(n_paths)
        x[i + 1] = x[i] - k * x[i] * dt + amp * z
    return x
