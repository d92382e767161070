"""What a failing test shows its student after grades are published (issue 35, item 4): her own
value, the call that produced it and the expected value, made into short text here, in the grader,
from the one comparison that failed (``testing.assert_close``) and the calls of that test.

A hidden input and a reference value are secrets until grades are published: the text is kept with
the test (``TestResult.shown``) and read only where hidden results are read after publication
(Gradescope's hidden-test results; the cohort's feedback pages written with ``PDL_PUBLISHED=1``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

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
    # where her answer is off, in words with no value of hers, the reference's or an input (``lead_of``):
    # what a failing test without a diagnosis says before publication (``TestResult.lead``)
    lead: str = field(default="", compare=False)
    # numbers of the expected value (some): a test message that shows one is redacted before
    # publication (``autograder.run.redact``)
    reference: tuple = field(default=(), compare=False)

    def text(self) -> str:
        """One sentence: what her call returned and what was expected."""
        part = f" (item {self.item} of its answer)" if self.item else ""
        head = (f"Your {self.call} returned {self.yours}{part}" if self.call
                else f"The value the test computed from your answers was {self.yours}{part}")
        return f"{head}; expected {self.expected}" + (f" ({self.where})" if self.where else "") + "."

    def to_dict(self) -> dict:
        return {**asdict(self), "reference": [float(v) for v in self.reference]}

    @classmethod
    def from_dict(cls, data) -> Shown | None:
        if not isinstance(data, dict):
            return None
        numbers = []
        for v in data.get("reference") or ():
            try:
                numbers.append(float(v))
            except (TypeError, ValueError):
                continue
        return cls(**{k: str(data.get(k) or "") for k in ("yours", "expected", "call", "item", "where", "lead")},
                   reference=tuple(numbers))


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


MAX_REFERENCE = 256  # numbers of the expected value kept for redaction


def numbers(value, limit: int) -> tuple:
    """Up to ``limit`` finite numbers of a (nested) value, single numbers first."""
    scalars: list[float] = []
    entries: list[float] = []
    stack = [value]
    while stack and len(scalars) < limit:
        x = stack.pop()
        if isinstance(x, dict):
            stack += list(x.values())
        elif isinstance(x, (list, tuple)):
            stack += list(x)
        elif isinstance(x, (bool, np.bool_, str, bytes)) or x is None:
            continue
        else:
            try:
                arr = np.asarray(x)
            except (TypeError, ValueError):
                continue
            if arr.dtype.kind not in "iuf":
                continue
            flat = arr.ravel()[:limit].astype(float)
            flat = flat[np.isfinite(flat)]
            (scalars if arr.ndim == 0 else entries).extend(flat.tolist())
    return tuple((scalars + entries)[:limit])


def _magnitude(a: np.ndarray, e: np.ndarray) -> str:
    """How the off entries of ``a`` differ from those of ``e`` in sign or size ("" where mixed)."""
    if not a.size:
        return ""
    if np.all(a * e < 0):
        return "of the wrong sign"
    with np.errstate(all="ignore"):
        ratio = np.abs(a) / np.abs(e)
    ratio = ratio[np.isfinite(ratio) & (ratio > 0)]
    if ratio.size == a.size and (np.all(ratio > 1) or np.all(ratio < 1)):
        orders = int(round(float(np.median(np.log10(ratio)))))
        big = bool(np.all(ratio > 1))
        if abs(orders) >= 2:
            return f"too {'large' if big else 'small'} in magnitude, by about {abs(orders)} orders of magnitude"
        if abs(orders) == 1:
            return f"too {'large' if big else 'small'} in magnitude, by about an order of magnitude"
        return f"too {'large' if big else 'small'} in magnitude"
    return ""


def lead_of(name: str, path: str, actual, expected, rtol: float, atol: float) -> str:
    """Where a failed comparison's answer is off, in words a student may read before publication:
    the function whose answer it is (its name, not its call), the tuple item, the entry most off
    (its index, not its value) and how many are, nan or inf, the sign, the order of magnitude,
    the shape. No value of hers, of the reference or of an input."""
    subject = f"your `{name}`'s answer" if name else "the value the test computed from your answers"
    if path:
        subject = f"item {path} of {subject}"
    try:
        a = np.asarray(actual, dtype=float)
        e = np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        return f"Where it is off: {subject} is not of the expected kind (numbers where numbers are expected)."
    if a.shape != e.shape and not (a.size == e.size == 1):
        return f"Where it is off: {subject} has shape {a.shape}, not the expected shape."
    a, e = a.reshape(e.shape), e
    with np.errstate(all="ignore"):
        nonfinite = ~np.isfinite(a) & np.isfinite(e)
        off = np.where(np.isfinite(a) & np.isfinite(e), np.abs(a - e) > atol + rtol * np.abs(e),
                       ~((a == e) | (np.isnan(a) & np.isnan(e))))
    parts = []
    if e.ndim >= 1 and e.size > 1 and np.any(off):
        with np.errstate(all="ignore"):
            score = np.where(nonfinite, np.inf, np.abs(a - e) / np.maximum(atol + rtol * np.abs(e), 1e-300))
        score = np.where(off, np.nan_to_num(score, nan=0.0, posinf=np.inf), -1.0)
        k = np.unravel_index(int(np.argmax(score)), e.shape)
        at = ", ".join(map(str, k))
        parts.append(f"off at {int(np.sum(off))} of its {e.size} entries, most at [{at}]")
    if np.any(nonfinite):
        parts.append("nan or inf where a finite value is expected")
    else:
        fin = off & np.isfinite(a) & np.isfinite(e)
        how = _magnitude(a[fin], e[fin])
        if how:
            parts.append(how + (" there" if e.size > 1 else ""))
    if not parts:
        return f"Where it is off: {subject} is not the expected value."
    return f"Where it is off: {subject} is " + "; ".join(parts) + "."


def shown(actual, expected, rtol: float, atol: float, calls, holds) -> Shown:
    """The Shown of a failed comparison of ``actual`` with ``expected``; ``calls``: the test's
    (name, args, kwargs, value) in order; ``holds(value, actual)``: whether ``actual`` is (part of)
    the answer ``value``."""
    holder = next(((n, a, k) for n, a, k, v in reversed(list(calls)) if holds(v, actual)), None)
    call = call_text(*holder) if holder is not None else ""
    path, a, e = _first_off(actual, expected, rtol, atol)
    try:
        lead = lead_of(holder[0] if holder is not None else "", path, a, e, rtol, atol)
    except Exception:  # noqa: BLE001 - a lead is a bonus; never lose the comparison to it
        lead = ""
    return Shown(yours=brief(a), expected=brief(e), call=call, item=path, where=where_off(a, e, rtol, atol),
                 lead=lead, reference=numbers(expected, MAX_REFERENCE))
