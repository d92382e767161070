import numpy as np
from scipy import special


# %% mistake: Zipf frequencies with exponent alpha
# function: zipf_probs
# kind: factor
# truth: the frequencies are k^-alpha instead of k^-(alpha+1): the Zipf exponent alpha is the exponent of the tail, the frequencies fall one power faster.
def zipf_probs(n_quanta, alpha):
    k = np.arange(1, n_quanta + 1, dtype=float)
    w = k ** -alpha
    return w / w.sum()


# %% mistake: sum starts at the last learned quantum
# function: quanta_loss
# kind: off-by-one
# truth: the remaining loss sums p_k from k = m instead of k = m + 1, so the m-th (already learned) quantum is still counted.
def quanta_loss(m, alpha, delta, n_quanta):
    m_arr = np.asarray(m)
    if n_quanta is None:
        Z = special.zeta(alpha + 1.0)
        out = delta * special.zeta(alpha + 1.0, np.maximum(m_arr, 1)) / Z
    else:
        k = np.arange(1, n_quanta + 1, dtype=float)
        p = k ** -(alpha + 1.0)
        p /= p.sum()
        tail = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])   # tail[j] = sum_{k > j} p_k
        out = delta * tail[np.maximum(m_arr - 1, 0)]
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: data exponent equal to the parameter exponent
# function: exponents
# kind: concept
# truth: alpha_n is taken equal to alpha_P = alpha; with the threshold n p_k >= tau the number of learned quanta grows like n^(1/(alpha+1)), so alpha_n = alpha/(alpha+1) (and alpha_S too).
def exponents(alpha):
    return {"alpha_P": float(alpha), "alpha_n": float(alpha), "alpha_S": float(alpha / (alpha + 1))}


# %% mistake: while loop on a scalar n
# function: learned_quanta
# kind: array-crash
# truth: the count is found with a while loop on `n * p_k >= tau`, which only works for a float n; an array of n raises (ambiguous truth value).
def learned_quanta(n, alpha, tau, n_quanta=None):
    Z = special.zeta(alpha + 1.0) if n_quanta is None else np.sum(np.arange(1, n_quanta + 1) ** -(alpha + 1.0))
    m = 0
    while n * (m + 1) ** -(alpha + 1.0) / Z >= tau:
        m += 1
        if n_quanta is not None and m == n_quanta:
            break
    return m


# %% mistake: exponent returned as the slope
# function: fit_power_law
# kind: term
# truth: the fitted log-log slope is returned as the exponent without its sign flipped: y ~ x^(-exponent), so exponent = -slope.
def fit_power_law(x, y):
    slope, icpt = np.polyfit(np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float)), 1)
    return float(slope), float(np.exp(icpt))


# %% mistake: strict threshold for learning
# function: simulate_data_limited
# kind: branch
# truth: a quantum is counted as learned only if more than tau samples use it (count > tau); the rule is at least tau uses (count >= tau).
def simulate_data_limited(n, alpha, tau, delta, seed):
    rng = np.random.default_rng(seed)
    Z = special.zeta(alpha + 1.0)
    if n == 0:
        return float(delta)
    ks = rng.zipf(alpha + 1.0, size=n)
    used, counts = np.unique(ks, return_counts=True)
    learned = used[counts > tau]
    return float(delta * (1.0 - np.sum(learned.astype(float) ** -(alpha + 1.0)) / Z))
