import numpy as np
from scipy import special


# %% mistake: Hurwitz tail from m, not m+1
# function: quanta_loss
# kind: off-by-one
# truth: quanta_loss writes the infinite tail sum_{k > m} k^-(alpha+1) as zeta(alpha+1, m) instead of zeta(alpha+1, m+1), so the tail includes the last learned quantum k = m (and is infinite at m = 0); the finite-N branch is right.
def quanta_loss(m, alpha, delta, n_quanta):
    m_arr = np.asarray(m)
    s = alpha + 1.0
    if n_quanta is None:
        out = delta * special.zeta(s, m_arr.astype(float)) / special.zeta(s)
    else:
        p = zipf_probs(n_quanta, alpha)
        tail = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])
        out = delta * tail[m_arr]
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: alpha_P as the frequency exponent
# function: exponents
# kind: concept
# truth: exponents returns alpha_P = alpha + 1, the exponent of the frequencies p_k ~ k^-(alpha+1), but the loss after m quanta falls like the tail sum ~ m^-alpha, so with m ~ P the parameter exponent is alpha_P = alpha (alpha_n and alpha_S are right).
def exponents(alpha):
    return {"alpha_P": float(alpha + 1.0), "alpha_n": float(alpha / (alpha + 1.0)),
            "alpha_S": float(alpha / (alpha + 1.0))}


# %% mistake: learned only above tau uses
# function: simulate_data_limited
# kind: branch
# truth: simulate_data_limited counts a quantum as learned only if it is used more than tau times (counts > tau) instead of at least tau times (counts >= tau), so quanta used exactly tau times stay unlearned (e.g. one sample with tau = 1 teaches nothing).
def simulate_data_limited(n, alpha, tau, delta, seed):
    rng = np.random.default_rng(seed)
    if n == 0:
        return float(delta)
    ks = rng.zipf(alpha + 1.0, size=n)
    uniq, counts = np.unique(ks, return_counts=True)
    learned = uniq[counts > tau].astype(float)
    p_learned = np.sum(learned ** -(alpha + 1.0)) / special.zeta(alpha + 1.0)
    return float(delta * (1.0 - p_learned))
