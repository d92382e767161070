import numpy as np
from scipy import optimize


def _hm_fN_moments(B, N, beta, dJ, jacobian=True):
    """E_N(m) and Var_N(m) for each field, by the trapezoid rule in u with m = tanh(u)."""
    u = np.linspace(-20.0, 20.0, 200001)
    m = np.tanh(u)
    jac = 1.0 - m**2 if jacobian else np.ones_like(m)
    Bs = np.atleast_1d(np.asarray(B, dtype=float))
    mean, var = np.empty(Bs.shape), np.empty(Bs.shape)
    for i, b in enumerate(Bs.ravel()):
        logw = -N * beta * ising_action(m, beta, dJ, b)
        with np.errstate(divide="ignore"):
            logw = logw + np.log(jac)
        w = np.exp(logw - logw.max())
        w[0] *= 0.5
        w[-1] *= 0.5
        w /= w.sum()
        mu = w @ m
        mean.flat[i] = mu
        var.flat[i] = w @ (m - mu) ** 2
    return mean.reshape(np.shape(B)), var.reshape(np.shape(B))


# %% mistake: entropy multiplied by beta
# function: ising_action
# kind: factor
# truth: ising_action subtracts beta h(m) instead of h(m)/beta: the entropy enters the free-energy density with the temperature T = 1/beta (s = energy - T h), so the action is wrong whenever beta != 1 (and the stationary points are no longer the tanh fixed points).
def ising_action(m, beta, dJ, B):
    return -dJ * np.asarray(m) ** 2 / 2 - B * np.asarray(m) - beta * binary_entropy(m)


# %% mistake: sign of B never restored
# function: mean_field_magnetization
# kind: branch
# truth: mean_field_magnetization solves for |m_bar| with |B| on (0, 1] but never puts the sign back, so for B < 0 it returns +|m_bar| (the wrong well) instead of -|m_bar|; the global minimizer has the sign of B.
def mean_field_magnetization(beta, dJ, B):
    if B == 0:
        if beta * dJ <= 1:
            return 0.0
        return float(optimize.brentq(lambda m: np.tanh(beta * dJ * m) / m - 1.0, 1e-300, 1.0, xtol=1e-15))
    b = abs(B)
    return float(optimize.brentq(lambda m: m - np.tanh(beta * (dJ * m + b)), 0.0, 1.0, xtol=1e-15))


# %% mistake: trajectory without the start
# function: curie_weiss_iterate
# kind: off-by-one
# truth: curie_weiss_iterate stores each iterate after updating it, so row k holds m_{k+1} and row 0 is already one step in (and the shape is (steps,) + shape(m0)); row 0 must be m0 itself, with steps + 1 rows.
def curie_weiss_iterate(beta, B, m0, steps):
    m = np.asarray(m0, dtype=float)
    rows = []
    for _ in range(steps):
        m = np.tanh(beta * (m + B))
        rows.append(m)
    if not rows:
        return np.empty((0,) + np.shape(m0))
    return np.array(rows)


# %% mistake: substitution without its Jacobian
# function: finite_N_magnetization
# kind: concept
# truth: finite_N_magnetization substitutes m = tanh(u) but integrates exp(-N beta s(tanh u)) du without the Jacobian dm = (1 - m^2) du, so the weights near m = +-1 are far too large (the u-integral does not even converge as the u-range grows).
def finite_N_magnetization(B, N, beta, dJ):
    mean, _ = _hm_fN_moments(B, N, beta, dJ, jacobian=False)
    return float(mean) if np.ndim(mean) == 0 else mean
