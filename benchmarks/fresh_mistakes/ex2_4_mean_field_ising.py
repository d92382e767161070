import numpy as np
from scipy import optimize


# %% mistake: coupling dJ dropped from the self-consistency
# function: mean_field_magnetization
# kind: ignored-arg
# truth: mean_field_magnetization solves m = tanh(beta (m + B)), leaving out the coupling dJ, so it is right only for dJ = 1; the self-consistency is m = tanh(beta (dJ m + B)) (and the critical point is beta dJ = 1).
def mean_field_magnetization(beta, dJ, B):
    def f(m):
        return np.tanh(beta * (m + B)) - m

    if B > 0:
        return float(optimize.brentq(f, 0.0, 1.0, xtol=1e-15, rtol=1e-15))
    if B < 0:
        return float(optimize.brentq(f, -1.0, 0.0, xtol=1e-15, rtol=1e-15))
    if beta <= 1:
        return 0.0
    return float(optimize.brentq(f, 1e-12, 1.0, xtol=1e-15, rtol=1e-15))


# %% mistake: field not multiplied by beta in the iteration
# function: curie_weiss_iterate
# kind: factor
# truth: curie_weiss_iterate computes tanh(beta m_k + B), so the field enters without the factor beta; the map is m_{k+1} = tanh(beta (m_k + B)).
def curie_weiss_iterate(beta, B, m0, steps):
    m = np.asarray(m0, dtype=float)
    out = [m]
    for _ in range(steps):
        m = np.tanh(beta * m + B)
        out.append(m)
    return np.array(out)


# %% mistake: three fixed points assumed whenever beta > 1
# function: curie_weiss_fixed_points
# kind: branch
# truth: curie_weiss_fixed_points looks for three fixed points whenever beta > 1, but at a field |B| beyond the spinodal only one exists, and the bracketing root finder then fails on the empty brackets; check for a sign change in each bracket before solving.
def curie_weiss_fixed_points(beta, B):
    def f(m):
        return np.tanh(beta * (m + B)) - m

    if beta <= 1:
        pts = np.array([optimize.brentq(f, -1.0, 1.0, xtol=1e-15)])
    else:
        ms = np.arctanh(np.sqrt(1.0 - 1.0 / beta)) / beta - B   # where g'(m) = 1: tanh(beta (m + B))^2 = 1 - 1/beta
        ms2 = -np.arctanh(np.sqrt(1.0 - 1.0 / beta)) / beta - B
        pts = np.array([optimize.brentq(f, -1.0, ms2, xtol=1e-15),
                        optimize.brentq(f, ms2, ms, xtol=1e-15),
                        optimize.brentq(f, ms, 1.0, xtol=1e-15)])
    stable = beta * (1.0 - np.tanh(beta * (pts + B)) ** 2) < 1.0
    return pts, stable


# %% mistake: amplitude returned as the log-intercept
# function: critical_exponent_fit
# kind: concept
# truth: critical_exponent_fit returns the intercept of the log-log fit as the amplitude A; the fit is log m = log A + b log t, so A = exp(intercept).
def critical_exponent_fit(dJ, reduced_temperatures):
    t = np.asarray(reduced_temperatures, dtype=float)
    m = np.array([mean_field_magnetization(1.0 / (dJ * (1.0 - ti)), dJ, 0.0) for ti in t])
    b, c = np.polyfit(np.log(t), np.log(m), 1)
    return float(b), float(c)
