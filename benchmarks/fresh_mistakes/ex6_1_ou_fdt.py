import numpy as np


# %% mistake: stationary variance used as the standard deviation of the start
# function: simulate_ou
# kind: concept
# truth: simulate_ou draws the default start with rng.normal(0, D/(2k)), i.e. with standard deviation D/(2k), but D/(2k) is the stationary variance; the scale must be sqrt(D/(2k)).
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    rng = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    if x0 is None:
        x[0] = rng.normal(0.0, D / (2 * k), size=n_paths)
    else:
        x[0] = x0
    s = np.sqrt(D * dt)
    for i in range(steps):
        x[i + 1] = x[i] - k * x[i] * dt + s * rng.standard_normal(n_paths)
    return x


# %% mistake: exp(-k tau) without the absolute value
# function: ou_correlation
# kind: branch
# truth: ou_correlation uses exp(-k tau) instead of exp(-k |tau|), so for negative lags it grows instead of decaying; the stationary correlation is even in tau.
def ou_correlation(tau, k, D):
    tau = np.asarray(tau, dtype=float)
    out = D / (2 * k) * np.exp(-k * tau)
    return out if out.ndim else float(out)


# %% mistake: every lag normalized by the total number of samples
# function: empirical_correlation
# kind: bessel
# truth: empirical_correlation divides the sum of products at lag j by (S + 1) * n_paths at every lag instead of by the number of pairs (S + 1 - j) * n_paths, so C_j is biased low by a factor (S + 1 - j)/(S + 1).
def empirical_correlation(paths, max_lag):
    P = np.asarray(paths, dtype=float)
    if P.ndim == 1:
        P = P[:, None]
    T, n = P.shape
    out = np.empty(max_lag + 1)
    for j in range(max_lag + 1):
        out[j] = np.sum(P[: T - j] * P[j:]) / (T * n)
    return out


# %% mistake: twins driven by different noise
# function: empirical_response
# kind: concept
# truth: empirical_response simulates the kicked twin with fresh draws from the generator instead of reusing the plain twin's noise increments z[i], so the difference x_kicked - x is dominated by noise rather than by the kick; both twins must use the same z.
def empirical_response(k, D, dt, h, steps, n_paths, rng):
    rng = np.random.default_rng(rng)
    x0 = rng.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths)
    s = np.sqrt(D * dt)
    x = x0.copy()
    xk = x0.copy()
    R = np.zeros(steps + 1)
    for i in range(steps):
        x = x - k * x * dt + s * rng.standard_normal(n_paths)
        kick = h if i == 0 else 0.0
        xk = xk + (-k * xk + kick) * dt + s * rng.standard_normal(n_paths)
        R[i + 1] = np.mean(xk - x) / (h * dt)
    return R


# %% mistake: central difference with the wrong sign
# function: fdt_residual
# kind: term
# truth: fdt_residual uses (C[j-1] - C[j+1]) / (2 dt), i.e. -dC/dtau, so it adds T R and -dC/dtau instead of T R + dC/dtau, and the residual is 2 T R instead of 0 in equilibrium.
def fdt_residual(C, R, dt, D):
    C = np.asarray(C, dtype=float)
    R = np.asarray(R, dtype=float)
    return (D / 2) * R[1:-1] + (C[:-2] - C[2:]) / (2 * dt)
