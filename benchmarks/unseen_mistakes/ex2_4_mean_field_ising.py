import numpy as np
from scipy import optimize, special


def _um_h(m):
    m = np.asarray(m, dtype=float)
    return np.log(2.0) - special.xlogy((1 - m) / 2, 1 - m) - special.xlogy((1 + m) / 2, 1 + m)


def _um_s(m, beta, dJ, B):
    m = np.asarray(m, dtype=float)
    return -dJ * m**2 / 2 - B * m - _um_h(m) / beta


# %% mistake: entropy multiplied by beta
# function: ising_action
# kind: factor
# truth: the entropy enters as -beta h(m) instead of -h(m)/beta (temperature and inverse temperature confused).
def ising_action(m, beta, dJ, B):
    m = np.asarray(m, dtype=float)
    s = -dJ * m**2 / 2 - B * m - beta * _um_h(m)
    return float(s) if np.ndim(s) == 0 else s


# %% mistake: zero field returns the paramagnet
# function: mean_field_magnetization
# kind: branch
# truth: at B = 0 it always returns 0, also below T_c (beta dJ > 1) where the convention asks for the positive minimum +m_bar.
def mean_field_magnetization(beta, dJ, B):
    if B == 0:
        return 0.0
    f = lambda m: m - np.tanh(beta * (dJ * m + B))
    if B > 0:
        return float(optimize.brentq(f, 0.0, 1.0, xtol=1e-15))
    return float(optimize.brentq(f, -1.0, 0.0, xtol=1e-15))


# %% mistake: trajectory without the last step
# function: curie_weiss_iterate
# kind: off-by-one
# truth: the loop runs steps - 1 times, so the trajectory has steps rows instead of steps + 1 (the last iterate is missing).
def curie_weiss_iterate(beta, B, m0, steps):
    m = np.asarray(m0, dtype=float)
    rows = [m]
    for _ in range(steps - 1):
        m = np.tanh(beta * (m + B))
        rows.append(m)
    return np.array(rows)


# %% mistake: float field only
# function: finite_N_magnetization
# kind: array-crash
# truth: the m grid and an array of fields B are combined without a new axis, so an array of fields fails to broadcast (and one max shift would be shared); each field needs its own integral.
def finite_N_magnetization(B, N, beta, dJ):
    m = np.linspace(-1, 1, 200001)
    logw = -N * beta * _um_s(m, beta, dJ, B)
    w = np.exp(logw - np.max(logw))
    return float(np.trapezoid(m * w, m) / np.trapezoid(w, m))


# %% mistake: second moment instead of variance
# function: finite_N_susceptibility
# kind: concept
# truth: chi = N beta Var(m), but it uses the raw second moment E(m^2) without subtracting E(m)^2.
def finite_N_susceptibility(B, N, beta, dJ):
    Bs = np.atleast_1d(np.asarray(B, dtype=float))
    m = np.linspace(-1, 1, 200001)
    out = []
    for b in Bs:
        logw = -N * beta * _um_s(m, beta, dJ, b)
        w = np.exp(logw - logw.max())
        Z = np.trapezoid(w, m)
        out.append(N * beta * np.trapezoid(m**2 * w, m) / Z)
    out = np.array(out)
    return float(out[0]) if np.ndim(B) == 0 else out.reshape(np.shape(B))


# %% mistake: entropy in bits, used by the action
# function: binary_entropy
# kind: upstream (binary_entropy)
# truth: binary_entropy uses log base 2 (h(0) = 1 bit) instead of the natural log; ising_action, which calls it, is right but inherits the wrong entropy.
def binary_entropy(m):
    m = np.asarray(m, dtype=float)
    h = 1.0 - (special.xlogy((1 - m) / 2, 1 - m) + special.xlogy((1 + m) / 2, 1 + m)) / np.log(2)
    return float(h) if h.ndim == 0 else h


def ising_action(m, beta, dJ, B):
    m = np.asarray(m, dtype=float)
    s = -dJ * m**2 / 2 - B * m - binary_entropy(m) / beta
    return float(s) if np.ndim(s) == 0 else s
