import numpy as np
from scipy import optimize, special


# %% mistake: log 2 dropped from the entropy
# function: binary_entropy
# kind: term
# truth: h(m) starts with log 2; without it h(0) = 0 instead of log 2 and h(+-1) = -log 2 instead of 0.
def binary_entropy(m):
    m = np.asarray(m, dtype=float)
    out = -special.xlogy((1 - m) / 2, 1 - m) - special.xlogy((1 + m) / 2, 1 + m)
    return float(out) if out.ndim == 0 else out


# %% mistake: coupling term without the one half
# function: ising_action
# kind: factor
# truth: the interaction term of s(m) is -dJ m^2 / 2; the code uses -dJ m^2, doubling the coupling.
def ising_action(m, beta, dJ, B):
    m = np.asarray(m, dtype=float)
    out = -dJ * m ** 2 - B * m - binary_entropy(m) / beta
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: field left out of the iteration
# function: curie_weiss_iterate
# kind: ignored-arg
# truth: the map is m -> tanh(beta (m + B)); the code iterates tanh(beta m), so the field B never enters the trajectory.
def curie_weiss_iterate(beta, B, m0, steps):
    m = np.asarray(m0, dtype=float)
    out = [m]
    for _ in range(steps):
        m = np.tanh(beta * m)
        out.append(m)
    return np.array(out)


# %% mistake: amplitude left as the log-log intercept
# function: critical_exponent_fit
# kind: concept
# truth: the fit log(m_bar) = log(A) + b log(t) gives log(A) as its intercept; the code returns the intercept itself as A instead of exp(intercept).
def critical_exponent_fit(dJ, reduced_temperatures):
    t = np.asarray(reduced_temperatures, dtype=float)
    m = np.array([mean_field_magnetization(1.0 / (dJ * (1 - ti)), dJ, 0.0) for ti in t])
    b, c = np.polyfit(np.log(t), np.log(m), 1)
    return float(b), float(c)


# %% mistake: susceptibility without beta
# function: finite_N_susceptibility
# kind: factor
# truth: chi_N = N beta Var_N(m); the factor beta is missing, so chi_N is off by 1/beta.
def finite_N_susceptibility(B, N, beta, dJ):
    m = np.linspace(-1, 1, 200001)
    Bs = np.atleast_1d(np.asarray(B, dtype=float))
    out = np.empty(Bs.shape)
    for i, b in enumerate(Bs):
        logw = -N * beta * ising_action(m, beta, dJ, b)
        w = np.exp(logw - logw.max())
        Z = np.trapezoid(w, m)
        mean = np.trapezoid(w * m, m) / Z
        out[i] = N * np.trapezoid(w * (m - mean) ** 2, m) / Z
    return float(out[0]) if np.ndim(B) == 0 else out.reshape(np.shape(B))
