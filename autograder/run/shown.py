"""What a failing test shows its student after grades are published (issue 35, item 4): her own
value, the call that produced it and the expected value, made into short text here, in the grader,
from the one comparison that failed (``testing.assert_close``) and the calls of that test.

A hidden input and a reference value are secrets until grades are published: the text is kept with
the test (``TestResult.shown``) and read only where hidden results are read after publication
(Gradescope's hidden-test results; the cohort's feedback pages written with ``PDL_PUBLISHED=1``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

MAX_TEXT = 200  # characters of one value or one call
MAX_ITEMS = 6   # entries of a sequence, keys of a mapping, shown before "..."


@dataclass(frozen=True)
class Shown:
    """A failing comparison, in words a student can check by hand."""
    yours: str
    expected: str
    call: str = ""   # "ising_action(0.3, beta=1.5)"; "" where the test computed the value from her answers
    item: str = ""   # a sequence: the first item off ("[1]"), as the comparison goes item by item
    where: str = ""  # arrays: the entry most off ("most off at [2, 1]: yours ..., expected ...; 4 of 15 entries off")

    def text(self) -> str:
        """One sentence: what her call returned and what was expected."""
        part = f" (item {self.item} of its answer)" if self.item else ""
        head = (f"Your {self.call} returned {self.yours}{part}" if self.call
                else f"The value the test computed from your answers was {self.yours}{part}")
        return f"{head}; expected {self.expected}" + (f" ({self.where})" if self.where else "") + "."

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data) -> Shown | None:
        if not isinstance(data, dict):
            return None
        return cls(**{k: str(data.get(k) or "") for k in ("yours", "expected", "call", "item", "where")})


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def brief(x, depth: int = 0) -> str:
    """A value as short text: numbers to 6 significant digits, arrays by their shape and first
    entries, containers to ``MAX_ITEMS`` items; anything else by its type."""
    if x is None or isinstance(x, (bool, np.bool_)):
        return str(x)
    if isinstance(x, (int, float, complex, np.number)):
        return format(x, ".6g") if not isinstance(x, (int, np.integer)) else str(int(x))
    if isinstance(x, str):
        return repr(_cut(x, 40))
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "biufc":
            return f"an array of shape {x.shape}"
        if x.size <= MAX_ITEMS and x.ndim <= 1:
            return _cut("[" + ", ".join(brief(v) for v in x) + "]")
        flat = ", ".join(brief(v) for v in x.ravel()[:3])
        return _cut(f"an array of shape {x.shape} starting [{flat}, ...]")
    if depth >= 2:
        return type(x).__name__
    if isinstance(x, (list, tuple)):
        inner = ", ".join(brief(v, depth + 1) for v in x[:MAX_ITEMS]) + (", ..." if len(x) > MAX_ITEMS else "")
        return _cut(f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})")
    if isinstance(x, dict):
        items = list(x.items())
        inner = ", ".join(f"{brief(k, depth + 1)}: {brief(v, depth + 1)}" for k, v in items[:MAX_ITEMS])
        return _cut("{" + inner + (", ..." if len(items) > MAX_ITEMS else "") + "}")
    name = getattr(x, "__name__", None)
    return f"the function {name}" if callable(x) and isinstance(name, str) else f"a {type(x).__name__}"


def call_text(name: str, args, kwargs) -> str:
    parts = [brief(a, 1) for a in args] + [f"{k}={brief(v, 1)}" for k, v in dict(kwargs).items()]
    return _cut(f"{name}({', '.join(parts)})", MAX_TEXT + 40)


def where_off(actual, expected, rtol: float, atol: float) -> str:
    """For arrays of one shape: the entry most off and how many are ("" otherwise)."""
    try:
        a, e = np.asarray(actual, dtype=complex), np.asarray(expected, dtype=complex)
    except (TypeError, ValueError):
        return ""
    if a.shape != e.shape or a.size <= 1:
        return ""
    with np.errstate(all="ignore"):
        off = np.where(np.isfinite(a) != np.isfinite(e), np.inf,
                       np.abs(a - e) / np.maximum(atol + rtol * np.abs(e), 1e-300))
    off = np.where(np.isnan(off), 0.0, off)
    bad = int(np.sum(off > 1))
    if not bad:
        return ""
    k = np.unravel_index(int(np.argmax(off)), a.shape)
    yours, exp = np.asarray(actual)[k], np.asarray(expected)[k]
    at = ", ".join(map(str, k))
    return f"most off at [{at}]: yours {brief(yours)}, expected {brief(exp)}; {bad} of {a.size} entries off"


def _first_off(actual, expected, rtol: float, atol: float, path: str = "", depth: int = 0):
    """(path, actual, expected) of the first item of a sequence that is off, as ``assert_close``
    compares sequences item by item; the whole pair where it is not a sequence of one length."""
    if (depth < 4 and isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple, np.ndarray))
            and len(actual) == len(expected)):
        for i, (a, e) in enumerate(zip(actual, expected)):
            try:
                close = np.allclose(np.asarray(a, dtype=complex), np.asarray(e, dtype=complex),
                                    rtol=rtol, atol=atol, equal_nan=True)
            except (TypeError, ValueError):
                close = False
            if not close:
                return _first_off(a, e, rtol, atol, f"{path}[{i}]", depth + 1)
    return path, actual, expected


def shown(actual, expected, rtol: float, atol: float, calls, holds) -> Shown:
    """The Shown of a failed comparison of ``actual`` with ``expected``; ``calls``: the test's
    (name, args, kwargs, value) in order; ``holds(value, actual)``: whether ``actual`` is (part of)
    the answer ``value``."""
    call = next((call_text(n, a, k) for n, a, k, v in reversed(list(calls)) if holds(v, actual)), "")
    path, a, e = _first_off(actual, expected, rtol, atol)
    return Shown(yours=brief(a), expected=brief(e), call=call, item=path, where=where_off(a, e, rtol, atol))
