import math

import numpy as np


def _um_pairings(items):
    if not items:
        return [()]
    first, rest = items[0], items[1:]
    out = []
    for k in range(len(rest)):
        for sub in _um_pairings(rest[:k] + rest[k + 1:]):
            out.append(((first, rest[k]),) + sub)
    return out


def _um_set_partitions(elems):
    if not elems:
        yield []
        return
    first, rest = elems[0], elems[1:]
    for part in _um_set_partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]
        yield [[first]] + part


# %% mistake: no empty pairing for p = 0
# function: pair_partitions
# kind: branch
# truth: for p = 0 it returns [] instead of [()], the one empty pairing (so the empty moment would be 0 instead of 1).
def pair_partitions(p):
    if p == 0 or p % 2:
        return []
    return _um_pairings(list(range(p)))


# %% mistake: partner loop skips the last element
# function: pair_partitions
# kind: upstream (pair_partitions)
# truth: pair_partitions lets 0 pair only with j = 1..p-2 (range stops one early), so pairings are missing; gaussian_moment, which sums over them, is right but inherits the missing terms.
def pair_partitions(p):
    if p % 2:
        return []

    def rec(items):
        if not items:
            return [()]
        first, rest = items[0], items[1:]
        out = []
        for k in range(max(len(rest) - 1, 1)):
            for sub in rec(rest[:k] + rest[k + 1:]):
                out.append(((first, rest[k]),) + sub)
        return out
    return rec(list(range(p)))


def gaussian_moment(K, idx):
    K = np.asarray(K, dtype=float)
    idx = list(idx)
    if len(idx) % 2:
        return 0.0
    total = 0.0
    for pi in pair_partitions(len(idx)):
        total += math.prod(K[idx[a], idx[b]] for a, b in pi)
    return float(total)


# %% mistake: moments as if the variables were independent
# function: gaussian_moment
# kind: concept
# truth: it factorizes the moment over distinct indices, E[X_i^k] = (k-1)!! K_ii^(k/2), ignoring the off-diagonal covariances; Wick's theorem sums over all pairings of the positions.
def gaussian_moment(K, idx):
    K = np.asarray(K, dtype=float)
    idx = list(idx)
    if len(idx) % 2:
        return 0.0
    out = 1.0
    for i in set(idx):
        k = idx.count(i)
        if k % 2:
            return 0.0
        out *= math.prod(range(k - 1, 0, -2)) * K[i, i] ** (k // 2)
    return float(out)


# %% mistake: partition weight without the factorial
# function: moments_to_cumulants
# kind: factor
# truth: the weight of a set partition is (-1)^(|Pi|-1) (|Pi|-1)!; the factorial (|Pi|-1)! is missing, so cumulants of order 3 and up are wrong.
def moments_to_cumulants(moments):
    moments = np.asarray(moments, dtype=float)
    p = int(round(math.log2(len(moments))))
    out = np.zeros(2**p)
    for mask in range(1, 2**p):
        members = [i for i in range(p) if mask >> i & 1]
        total = 0.0
        for part in _um_set_partitions(members):
            prod = 1.0
            for block in part:
                prod *= moments[sum(1 << i for i in block)]
            total += (-1) ** (len(part) - 1) * prod
        out[mask] = total
    return out
