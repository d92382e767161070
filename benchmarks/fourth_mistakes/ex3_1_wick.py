import itertools
import math

import numpy as np


def _hm_set_partitions(elements):
    """All set partitions of the list `elements` (blocks as lists)."""
    if not elements:
        yield []
        return
    first, rest = elements[0], elements[1:]
    for r in range(len(rest) + 1):
        for others in itertools.combinations(rest, r):
            block = [first, *others]
            remaining = [e for e in rest if e not in others]
            for part in _hm_set_partitions(remaining):
                yield [block, *part]


# %% mistake: odd p leaves one element unpaired
# function: pair_partitions
# kind: branch
# truth: pair_partitions stops its recursion when at most one element is left (`if len(rest) <= 1: yield ()`), so for odd p it returns the pairings of p - 1 elements with one element silently left out instead of [] (odd p has no pairings; the base case must be the empty list only).
def pair_partitions(p):
    def rec(rest):
        if len(rest) <= 1:
            yield ()
            return
        first = rest[0]
        for k in range(1, len(rest)):
            partner = rest[k]
            remaining = rest[1:k] + rest[k + 1:]
            for tail in rec(remaining):
                yield ((first, partner),) + tail

    return list(rec(list(range(p))))


# %% mistake: orderings divided by 2^(p/2) only
# function: gaussian_moment
# kind: factor
# truth: gaussian_moment sums over all p! orderings of the positions, pairing consecutive entries, and divides by 2^(p/2) for the order inside each pair but not by (p/2)! for the order of the pairs, so every pairing is counted (p/2)! times (E[X^4] = 6 K^2 instead of 3 K^2; right only for p <= 2).
def gaussian_moment(K, idx):
    K = np.asarray(K, dtype=float)
    idx = list(idx)
    p = len(idx)
    if p % 2:
        return 0.0
    if p == 0:
        return 1.0
    total = 0.0
    for perm in itertools.permutations(range(p)):
        term = 1.0
        for a in range(0, p, 2):
            term *= K[idx[perm[a]], idx[perm[a + 1]]]
        total += term
    return float(total / 2 ** (p // 2))


# %% mistake: |Pi|! instead of (|Pi|-1)!
# function: moments_to_cumulants
# kind: off-by-one
# truth: moments_to_cumulants weights each set partition with (-1)^(|Pi|-1) |Pi|! instead of (-1)^(|Pi|-1) (|Pi|-1)!, so every partition with two or more blocks is over-weighted (the covariance comes out as m01 - 2 m0 m1).
def moments_to_cumulants(moments):
    moments = np.asarray(moments, dtype=float)
    p = int(round(math.log2(len(moments))))
    out = np.zeros(2**p)
    for mask in range(1, 2**p):
        members = [i for i in range(p) if mask >> i & 1]
        total = 0.0
        for part in _hm_set_partitions(members):
            nb = len(part)
            prod = 1.0
            for block in part:
                prod *= moments[sum(1 << i for i in block)]
            total += (-1) ** (nb - 1) * math.factorial(nb) * prod
        out[mask] = total
    return out
