import itertools
import math

import numpy as np


# %% mistake: covariance indexed by positions
# function: gaussian_moment
# kind: ignored-arg
# truth: each pair (a, b) of positions must contribute K[idx[a], idx[b]]; the code uses K[a, b], so the variable labels in idx are ignored (only their number matters).
def gaussian_moment(K, idx):
    K = np.asarray(K, dtype=float)
    total = 0.0
    for pairing in pair_partitions(len(idx)):
        prod = 1.0
        for a, b in pairing:
            prod *= K[a, b]
        total += prod
    return float(total)


# %% mistake: empty product taken as 0
# function: gaussian_moment
# kind: branch
# truth: for p = 0 the moment is the empty product, 1.0; the special case returns 0.0.
def gaussian_moment(K, idx):
    K = np.asarray(K, dtype=float)
    idx = list(idx)
    if len(idx) == 0:
        return 0.0
    total = 0.0
    for pairing in pair_partitions(len(idx)):
        total += math.prod(K[idx[a], idx[b]] for a, b in pairing)
    return float(total)


# %% mistake: partition sign (-1)**|Pi|
# function: moments_to_cumulants
# kind: term
# truth: the Moebius weight is (-1)**(|Pi| - 1) (|Pi| - 1)!; with (-1)**|Pi| every term flips sign, so even the first cumulant comes out as -E[X].
def moments_to_cumulants(moments):
    moments = np.asarray(moments, dtype=float)
    p = int(round(math.log2(len(moments))))

    def _hm_partitions(items):
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        for part in _hm_partitions(rest):
            yield [[first]] + part
            for i in range(len(part)):
                yield part[:i] + [[first] + part[i]] + part[i + 1:]

    out = np.zeros(2 ** p)
    for mask in range(1, 2 ** p):
        members = [i for i in range(p) if mask >> i & 1]
        s = 0.0
        for part in _hm_partitions(members):
            k = len(part)
            s += (-1) ** k * math.factorial(k - 1) * math.prod(
                moments[sum(1 << i for i in block)] for block in part)
        out[mask] = s
    return out


# %% mistake: odd p pairs the leftover with itself
# function: pair_partitions
# kind: branch
# truth: for odd p there is no pairing and the list must be empty; the recursion's base case for one object returns the self-pair ((i, i),), so odd p yields pairings with a singleton.
def pair_partitions(p):
    def _hm_rec(items):
        if not items:
            return [()]
        if len(items) == 1:
            return [((items[0], items[0]),)]
        first, rest = items[0], items[1:]
        out = []
        for k, j in enumerate(rest):
            for sub in _hm_rec(rest[:k] + rest[k + 1:]):
                out.append(((first, j),) + sub)
        return out
    return _hm_rec(list(range(p)))
