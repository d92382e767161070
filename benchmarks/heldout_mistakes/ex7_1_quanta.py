import numpy as np
from scipy import special


# %% mistake: tail slice starts one quantum late
# function: quanta_loss
# kind: off-by-one
# truth: the unlearned quanta are k = m+1, ..., N, which are p[m:] in 0-based indexing; the code sums p[m+1:], so it also drops quantum m+1 (L_0 = delta (1 - p_1) instead of delta) for a finite number of quanta.
def quanta_loss(m, alpha, delta, n_quanta):
    s = alpha + 1.0
    if n_quanta is None:
        mm = np.asarray(m, dtype=float)
        out = delta * special.zeta(s, mm + 1.0) / special.zeta(s)
        return float(out) if out.ndim == 0 else out
    p = zipf_probs(n_quanta, alpha)

    def _hm_one(mi):
        return delta * float(np.sum(p[int(mi) + 1:]))

    out = np.vectorize(_hm_one, otypes=[float])(np.asarray(m))
    return float(out) if out.ndim == 0 else out


# %% mistake: finite-N loss summed with range(m + 1, N + 1)
# function: quanta_loss
# kind: array-crash
# truth: the formula is right for one m, but the finite-N branch loops over range(m + 1, N + 1), which fails for an integer array of m; the tail sums must be computed for every entry (e.g. from a reversed cumulative sum).
def quanta_loss(m, alpha, delta, n_quanta):
    s = alpha + 1.0
    if n_quanta is None:
        return delta * special.zeta(s, np.asarray(m, dtype=float) + 1.0) / special.zeta(s)
    p = zipf_probs(n_quanta, alpha)
    total = 0.0
    for k in range(m + 1, n_quanta + 1):
        total += p[k - 1]
    return delta * total


# %% mistake: step exponent taken equal to the parameter exponent
# function: exponents
# kind: concept
# truth: in single-epoch training a rare quantum appears in a batch with probability ~ B p_k, so after S steps it is learned when S B p_k >= tau, exactly the data rule: alpha_S = alpha/(alpha+1); the code sets alpha_S = alpha as if every step taught one more quantum.
def exponents(alpha):
    return {"alpha_P": float(alpha), "alpha_n": float(alpha / (alpha + 1.0)), "alpha_S": float(alpha)}


# %% mistake: finite-N threshold uses the infinite normalization
# function: learned_quanta
# kind: ignored-arg
# truth: with N quanta the frequencies are normalized over k <= N, p_k = k^-(alpha+1) / sum_{j<=N} j^-(alpha+1); the code always divides by zeta(alpha+1) and uses n_quanta only as a cap, so p_k (and the learned count) is too small for small N.
def learned_quanta(n, alpha, tau, n_quanta=None):
    s = alpha + 1.0
    Z = special.zeta(s)

    def _hm_one(ni):
        if ni * 1.0 / Z < tau:
            return 0
        m = int(np.floor((ni / (tau * Z)) ** (1.0 / s)))
        while m > 0 and ni * m ** -s / Z < tau:
            m -= 1
        while ni * (m + 1) ** -s / Z >= tau:
            m += 1
        if n_quanta is not None:
            m = min(m, int(n_quanta))
        return m

    arr = np.asarray(n, dtype=float)
    if arr.ndim == 0:
        return int(_hm_one(float(arr)))
    return np.vectorize(_hm_one, otypes=[int])(arr)


# %% mistake: strict threshold on the sampled counts
# function: simulate_data_limited
# kind: branch
# truth: a quantum is learned when at least tau samples use it, counts >= tau; the code requires counts > tau, so a quantum used exactly tau times stays unlearned.
def simulate_data_limited(n, alpha, tau, delta, seed):
    g = np.random.default_rng(seed)
    s = alpha + 1.0
    if n == 0:
        return float(delta)
    ks, counts = np.unique(g.zipf(s, size=int(n)), return_counts=True)
    learned = ks[counts > tau].astype(float)
    return float(delta * (1.0 - np.sum(learned ** -s) / special.zeta(s)))


# %% mistake: Zipf frequencies k^-alpha, and the loss built on them
# function: zipf_probs
# kind: upstream (zipf_probs)
# truth: with Zipf exponent alpha the frequencies fall as k^-(alpha+1); zipf_probs uses k^-alpha, and quanta_loss, correctly summing the tail of zipf_probs for finite N, inherits the too-flat frequencies.
def zipf_probs(n_quanta, alpha):
    w = np.arange(1.0, n_quanta + 1.0) ** -alpha
    return w / w.sum()


def quanta_loss(m, alpha, delta, n_quanta):
    s = alpha + 1.0
    if n_quanta is None:
        out = delta * special.zeta(s, np.asarray(m, dtype=float) + 1.0) / special.zeta(s)
        return float(out) if np.ndim(out) == 0 else out
    p = zipf_probs(n_quanta, alpha)
    tails = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])
    out = delta * tails[np.asarray(m, dtype=int)]
    return float(out) if np.ndim(out) == 0 else out
