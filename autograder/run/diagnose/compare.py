"""Comparing a student's answers with another implementation's, as ``assert_close`` would."""

from __future__ import annotations

import numpy as np

DEFAULT_RTOL, DEFAULT_ATOL = 1e-6, 1e-9  # a test that passed no tolerance to assert_close
MIN_RTOL, MIN_ATOL = 1e-9, 1e-12         # exact tests (rtol = atol = 0) still forgive round-off


def close(actual, expected, rtol: float, atol: float) -> bool:
    """``assert_close``'s verdict as a bool, for nested tuples, lists, dicts and arrays."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and close(actual[k], v, rtol, atol) for k, v in expected.items())
    if isinstance(expected, (tuple, list)):
        if not isinstance(actual, (tuple, list, np.ndarray)) or len(actual) != len(expected):
            return False
        same = _real_arrays(actual, expected)
        if same is not None:  # the element-wise verdict at once: a list of 10^5 numbers costs one comparison
            return _close_arrays(*same, rtol, atol)
        return all(close(a, e, rtol, atol) for a, e in zip(actual, expected))
    if isinstance(expected, str) or expected is None:
        return actual == expected
    try:
        e = np.asarray(expected)
        a = np.asarray(actual)
        if a.size != e.size:  # before any conversion: the expected answer bounds the work
            return False
        if e.dtype.kind not in "biufc" or a.dtype.kind not in "biufc":
            return bool(np.array_equal(a, e))
        a = a.astype(complex if a.dtype.kind == "c" else float)
        e = e.astype(complex if e.dtype.kind == "c" else float)
    except (TypeError, ValueError):
        return False
    if a.shape != e.shape:
        if a.size == e.size == 1:
            a = a.reshape(e.shape)
        else:
            return False
    return _close_arrays(a, e, rtol, atol)


def _real_arrays(actual, expected) -> tuple[np.ndarray, np.ndarray] | None:
    """(actual, expected) as float arrays of one shape where both are (nested) sequences of real
    numbers, where comparing them whole gives the element-wise verdict; else None."""
    try:
        e = np.asarray(expected)
        a = np.asarray(actual)
    except (TypeError, ValueError):  # ragged
        return None
    if e.dtype.kind not in "biuf" or a.dtype.kind not in "biuf" or a.shape != e.shape:
        return None
    return a.astype(float), e.astype(float)


def _close_arrays(a: np.ndarray, e: np.ndarray, rtol: float, atol: float) -> bool:
    fa, fe = np.isfinite(a), np.isfinite(e)
    if not np.array_equal(fa, fe):
        return False
    if not np.all(np.abs(a[fe] - e[fe]) <= atol + rtol * np.abs(e[fe])):
        return False
    inf_a, inf_e = a[~fe], e[~fe]
    return bool(np.all((inf_a == inf_e) | (np.isnan(inf_a) & np.isnan(inf_e))))


def _kind(x) -> str:
    if isinstance(x, dict):
        return "a dict"
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of {len(x)} values"
    if isinstance(x, np.ndarray) and x.ndim:
        return "an array"
    if isinstance(x, str):
        return "a string"
    if x is None:
        return "None"
    return "a single number" if np.ndim(x) == 0 else f"a {type(x).__name__}"


def _leaves(actual, expected, path=""):
    """Aligned numeric leaves ``(path, actual array, expected array)``; ``(path, None, what)``
    where the structures differ (``what``: "<what was returned> where <what> is expected")."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            yield path, None, f"{_kind(actual)} where a dict is expected"
            return
        for k, v in expected.items():
            if k not in actual:
                yield f"{path}[{k!r}]", None, f"a dict without the key {k!r}"
            else:
                yield from _leaves(actual[k], v, f"{path}[{k!r}]")
        return
    if isinstance(expected, (tuple, list)):
        # (np.ndim of a list of arrays of different shapes raises: only an array's ndim is asked)
        if not isinstance(actual, (tuple, list, np.ndarray)) or (isinstance(actual, np.ndarray) and actual.ndim == 0):
            yield path, None, f"{_kind(actual)} where {len(expected)} values are expected"
            return
        if len(actual) != len(expected):
            yield path, None, f"{len(actual)} values where {len(expected)} are expected"
            return
        for i, (a, e) in enumerate(zip(actual, expected)):
            yield from _leaves(a, e, f"{path}[{i}]")
        return
    try:
        e = np.asarray(expected)
        a = np.asarray(actual)
    except (TypeError, ValueError):
        yield path, None, f"{_kind(actual)} where {_kind(expected)} is expected"
        return
    if a.size != e.size:  # before any conversion: the expected answer bounds the work
        yield path, None, f"an array of shape {tuple(a.shape)} where shape {tuple(e.shape)} is expected"
        return
    if e.dtype.kind not in "biuf" or a.dtype.kind not in "biuf":
        if e.dtype.kind == "c" and a.dtype.kind in "biufc":
            return  # complex answers: no generic diagnosis
        if not np.array_equal(a, e):
            yield path, None, f"{_kind(actual)} where {_kind(expected)} is expected"
        return
    yield path, a.astype(float), e.astype(float)


def tolerance(recorded) -> tuple[float, float]:
    """The loosest (rtol, atol) the test passed to assert_close, or the defaults."""
    recorded = [(float(r), float(a)) for r, a in recorded]
    if not recorded:
        return DEFAULT_RTOL, DEFAULT_ATOL
    return max(MIN_RTOL, max(r for r, _ in recorded)), max(MIN_ATOL, max(a for _, a in recorded))
