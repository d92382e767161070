"""Evidence that a random stream repeats, seen in an answer (issue 43, item 3): a claim about the
stream needs the draws seen repeating, and then it names the stream, not the step."""

from __future__ import annotations

import numpy as np


def repeated_steps(a: np.ndarray, e: np.ndarray) -> bool:
    """The increments of ``a`` along some axis (three steps or more, across three entries or more)
    all proportional to one vector, where those of ``e`` are not: a simulation whose every step
    draws the same random numbers (its noise the same vector each step, its paths then a
    deterministic recurrence), where fresh draws give increments of full rank."""
    if a.shape != e.shape or a.ndim < 2 or not np.all(np.isfinite(a)) or not np.all(np.isfinite(e)):
        return False
    for axis, n in enumerate(a.shape):
        rest = a.size // n
        if n < 4 or rest < 3 or a.size > 4_000_000:
            continue
        da = np.moveaxis(np.diff(a, axis=axis), axis, 0).reshape(n - 1, rest)
        de = np.moveaxis(np.diff(e, axis=axis), axis, 0).reshape(n - 1, rest)
        try:
            sa = np.linalg.svd(da, compute_uv=False)
            se = np.linalg.svd(de, compute_uv=False)
        except np.linalg.LinAlgError:
            continue
        if sa.size >= 2 and sa[0] > 0 and se[0] > 0 and sa[1] <= 1e-9 * sa[0] and se[1] > 1e-3 * se[0]:
            return True
    return False
