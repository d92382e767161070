import math

import numpy as np


def _hm_set_partitions(items):
    """All set partitions of the list items (list of lists of blocks)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _hm_set_partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]


# %% mistake: remaining elements assumed to be 2..p-1 in the recursion
# function: pair_partitions
# kind: off-by-one
# truth: pair_partitions pairs 0 with j and then relabels the pairings of the other p - 2 elements by adding 2, as if the rest were always 2..p-1; for j != 1 the rest is {1..p-1} without j, so the result contains j twice and misses 1 — map sub-pairings through the list of remaining elements.
def pair_partitions(p):
    if p % 2:
        return []
    if p == 0:
        return [()]
    out = []
    for j in range(1, p):
        for sub in pair_partitions(p - 2):
            out.append(((0, j),) + tuple((a + 2, b + 2) for a, b in sub))
    return out


# %% mistake: empty product taken as 0
# function: gaussian_moment
# kind: branch
# truth: gaussian_moment returns 0.0 for an empty idx, but the expectation of the empty product is 1 (there is exactly one, empty, pairing); only odd p gives 0.
def gaussian_moment(K, idx):
    K = np.asarray(K, dtype=float)
    idx = list(idx)
    p = len(idx)
    if p == 0 or p % 2:
        return 0.0
    total = 0.0
    for pi in pair_partitions(p):
        term = 1.0
        for a, b in pi:
            term *= K[idx[a], idx[b]]
        total += term
    return float(total)


# %% mistake: |Pi|! instead of (|Pi| - 1)! in the partition sum
# function: moments_to_cumulants
# kind: factor
# truth: moments_to_cumulants weights each set partition with (|Pi|)! instead of (|Pi| - 1)!, so every term with two or more blocks is too large by a factor |Pi| and all cumulants from the covariance up are wrong.
def moments_to_cumulants(moments):
    moments = np.asarray(moments, dtype=float)
    p = int(round(math.log2(len(moments))))
    out = np.zeros(2**p)
    for mask in range(1, 2**p):
        members = [i for i in range(p) if mask >> i & 1]
        total = 0.0
        for part in _hm_set_partitions(members):
            n = len(part)
            prod = 1.0
            for block in part:
                prod *= moments[sum(1 << i for i in block)]
            total += (-1) ** (n - 1) * math.factorial(n) * prod
        out[mask] = total
    return out
