import numpy as np
from scipy import special


# %% mistake: tail sum starts at the m-th quantum
# function: quanta_loss
# kind: off-by-one
# truth: quanta_loss sums p[m-1:], i.e. from quantum k = m, although the first m quanta (k = 1..m) are learned and the reducible loss is delta times the sum of p_k for k = m+1..N (p[m:] with 0-based indexing); at m = 0 p[-1:] even gives just the last quantum.
def quanta_loss(m, alpha, delta, n_quanta):
    m_arr = np.asarray(m)
    if n_quanta is None:
        Z = special.zeta(alpha + 1.0)
        mm = m_arr.astype(float)
        out = delta * special.zeta(alpha + 1.0, mm + 1.0) / Z
    else:
        k = np.arange(1, n_quanta + 1, dtype=float)
        p = k ** -(alpha + 1.0)
        p = p / p.sum()
        out = np.array([delta * p[int(mi) - 1:].sum() if mi < n_quanta else 0.0 for mi in m_arr.ravel()])
        out = out.reshape(m_arr.shape)
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: data exponent of m(n) instead of the loss
# function: exponents
# kind: concept
# truth: exponents returns alpha_n = alpha_S = 1/(alpha+1), the exponent of the number of learned quanta m ~ n^(1/(alpha+1)); the loss falls as m^-alpha, so the data and step exponents are alpha/(alpha+1).
def exponents(alpha):
    return {"alpha_P": float(alpha), "alpha_n": float(1.0 / (alpha + 1.0)), "alpha_S": float(1.0 / (alpha + 1.0))}


# %% mistake: zeta normalization used for a finite number of quanta
# function: learned_quanta
# kind: ignored-arg
# truth: learned_quanta normalizes p_k with zeta(alpha+1) even when n_quanta = N is given (using N only as a cap on m); with finitely many quanta p_k is normalized over k <= N, which makes every p_k larger.
def learned_quanta(n, alpha, tau, n_quanta=None):
    n_arr = np.asarray(n, dtype=float)
    Z = special.zeta(alpha + 1.0)
    m = np.floor((n_arr / (tau * Z)) ** (1.0 / (alpha + 1.0)) + 1e-12)
    # guard against round-off at the threshold
    m = np.where(n_arr * (m + 1) ** -(alpha + 1.0) / Z >= tau, m + 1, m)
    m = np.where((m > 0) & (n_arr * np.maximum(m, 1) ** -(alpha + 1.0) / Z < tau), m - 1, m)
    if n_quanta is not None:
        m = np.minimum(m, n_quanta)
    m = m.astype(int)
    return int(m) if m.ndim == 0 else m


# %% mistake: exponent returned with the slope's sign
# function: fit_power_law
# kind: term
# truth: fit_power_law returns the slope of log y against log x as the exponent, but y ~ prefactor x^(-exponent), so the exponent is minus the slope (a decaying law must give a positive exponent).
def fit_power_law(x, y):
    slope, icpt = np.polyfit(np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float)), 1)
    return float(slope), float(np.exp(icpt))


# %% mistake: a quantum learned only if used more than tau times
# function: simulate_data_limited
# kind: branch
# truth: simulate_data_limited counts a quantum as learned only when more than tau samples use it (count > tau); the rule is at least tau samples (count >= tau), so quanta used exactly tau times are wrongly left unlearned.
def simulate_data_limited(n, alpha, tau, delta, seed):
    rng = np.random.default_rng(seed)
    if n == 0:
        return float(delta)
    ks = rng.zipf(alpha + 1.0, size=int(n))
    uniq, counts = np.unique(ks, return_counts=True)
    learned = uniq[counts > tau].astype(float)
    Z = special.zeta(alpha + 1.0)
    return float(delta * (1.0 - np.sum(learned ** -(alpha + 1.0)) / Z))
