"""Generic diagnoses, tried when no known mistake matches: a constant factor, a sign, transposed,
the wrong shape, nan/inf, an argument ignored, right only for small inputs. They name only
factors from a fixed list, shapes and argument names, never a value."""

from __future__ import annotations

import inspect
import math

import numpy as np

from autograder.run.diagnose.catalogue import _FAILED, Call
from autograder.run.diagnose.compare import _leaves, close
from autograder.run.protocol import ProtocolError
from autograder.run.testing import StudentError

_FACTORS = [("2", 2.0), ("1/2", 0.5), ("3", 3.0), ("1/3", 1 / 3), ("4", 4.0), ("1/4", 0.25),
            ("π", math.pi), ("1/π", 1 / math.pi), ("2π", 2 * math.pi), ("1/(2π)", 1 / (2 * math.pi)),
            ("√2", math.sqrt(2)), ("1/√2", 1 / math.sqrt(2)), ("√π", math.sqrt(math.pi)),
            ("1/√π", 1 / math.sqrt(math.pi)), ("√(2π)", math.sqrt(2 * math.pi)),
            ("1/√(2π)", 1 / math.sqrt(2 * math.pi)), ("e", math.e), ("1/e", 1 / math.e),
            ("log 2", math.log(2)), ("1/log 2", 1 / math.log(2)), ("log 10", math.log(10)),
            ("1/log 10", 1 / math.log(10))]
_FACTORS += [("-" + k, -v) for k, v in _FACTORS] + [("-1", -1.0)]


def _factor_name(c: float, rtol: float) -> str | None:
    for label, value in _FACTORS:
        if abs(c - value) <= max(1e-6, 10 * rtol) * abs(value):
            return label
    return None


def _finite_arrays(obj, skip_bools: bool = False):
    """The finite numbers of each leaf of a nested value (dicts, tuples, lists), as flat arrays."""
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack += list(x.values())
        elif isinstance(x, (tuple, list)):
            stack += list(x)
        elif not (skip_bools and isinstance(x, (bool, np.bool_))):
            try:
                arr = np.asarray(x, dtype=float).ravel()
            except (TypeError, ValueError):
                continue
            yield arr[np.isfinite(arr)]


def _sizes(obj) -> float:
    """The largest magnitude among the numbers of a call's inputs (nan if none)."""
    best = math.nan
    for arr in _finite_arrays(obj, skip_bools=True):
        if arr.size:
            best = float(np.nanmax([best, np.abs(arr).max()]))
    return best


def _function_diagnosis(cat, name, calls, idx, ref, rtol, atol) -> str:
    """A sentence about the function ``name`` from its calls ``idx`` (some failing), or ""."""
    pairs = [(i, calls[i].value, ref(i)) for i in idx]
    pairs = [(i, a, e) for i, a, e in pairs if e is not _FAILED]
    bad = [(i, a, e) for i, a, e in pairs if not close(a, e, rtol, atol)]
    if not bad:
        return ""
    good = [(i, a, e) for i, a, e in pairs if close(a, e, rtol, atol)]
    leaves = [leaf for _, a, e in pairs for leaf in _leaves(a, e)]
    # 1. structure and shape
    broken = [why for _, a, why in leaves if a is None]
    if broken:
        return f"{name} returns {broken[0]} (see the docstring for what it returns)."
    shaped = [(a, e) for _, a, e in leaves if a.shape != e.shape and not (a.size == e.size == 1)]
    if shaped:
        if all(a.ndim == 2 and a.shape == e.T.shape and close(a.T, e, rtol, atol) for a, e in shaped):
            return f"{name} returns the transpose of the expected matrix (rows and columns swapped)."
        a, e = shaped[0]
        return f"{name} returns an array of shape {tuple(a.shape)} where shape {tuple(e.shape)} is expected."
    leaves = [(p, a.reshape(e.shape), e) for p, a, e in leaves]
    # 2. nan or inf where the expected values are finite
    nonfinite = [(p, a, e) for p, a, e in leaves if np.any(~np.isfinite(a) & np.isfinite(e))]
    if nonfinite:
        where = " for large inputs (overflow?)" if _small_only(calls, good, bad, rtol, atol) else ""
        return (f"{name} returns nan or inf{where} where finite values are expected: look for 0 log 0, "
                "0/0, the log of 0 or an exp that overflows, and use the limiting value there.")
    # 3. an argument ignored: correct at its default value only (before the factor: a kernel
    #    linear in sigma_w is off by a constant factor when sigma_w is ignored)
    ignored = _ignored_argument(cat, name, calls, [i for i, _, _ in bad], rtol, atol)
    if ignored:
        return (f"{name} answers as if the argument `{ignored}` always had its default value: "
                f"check that your code uses `{ignored}`.")
    only = _default_only(cat, name, calls, [i for i, _, _ in good], [i for i, _, _ in bad])
    if only:
        return (f"{name} is correct only when `{only}` has its default value: check how your code "
                f"uses `{only}`.")
    # 4. the same factor (or sign) on every input
    a_all = np.concatenate([a.ravel() for _, a, _ in leaves]) if leaves else np.array([])
    e_all = np.concatenate([e.ravel() for _, _, e in leaves]) if leaves else np.array([])
    fin = np.isfinite(e_all) & np.isfinite(a_all)
    a_f, e_f = a_all[fin], e_all[fin]
    scale = np.abs(e_f) > max(atol, 1e-12) * 10
    if scale.sum() >= 3 and np.all(np.abs(a_f[~scale]) <= 10 * atol + 10 * rtol * np.abs(a_f).max()):
        ratios = a_f[scale] / e_f[scale]
        c = float(np.median(ratios))
        if abs(c - 1) > 1e-6 and c != 0 and np.all(np.abs(a_f - c * e_f) <= 10 * atol + max(10 * rtol, 1e-9) * np.abs(c * e_f)):
            label = _factor_name(c, rtol)
            if label == "-1":
                return f"{name} is correct up to the sign: every value has the opposite sign."
            if label:
                return (f"{name} is off by the same factor {label} on every input: your values are "
                        f"{label} times the expected ones (a missing or extra constant or normalization).")
            return (f"{name} is off by the same constant factor on every input: look for a missing or "
                    "extra constant or normalization.")
        shift = a_f - e_f
        d = float(np.median(shift))
        if a_f.size >= 3 and abs(d) > atol and np.all(np.abs(shift - d) <= 10 * atol + 10 * rtol * np.abs(e_f)):
            return (f"{name} is off by the same additive constant on every input: look for a missing or "
                    "extra constant term.")
    # 5. correct for small inputs, wrong for large ones
    if _small_only(calls, good, bad, rtol, atol):
        return (f"{name} is correct for small inputs but wrong for large ones: look for overflow, "
                "underflow or loss of precision (an exp of a large number, a difference of nearly "
                "equal numbers), or a grid or series too coarse or too short for large arguments.")
    return ""


def _small_only(calls, good, bad, rtol, atol) -> bool:
    """Correct on the calls (or entries) with small inputs, wrong on those with large ones."""
    if len(good) >= 2 and len(bad) >= 2:
        small = [_sizes((calls[i].args, calls[i].kwargs)) for i, _, _ in good]
        large = [_sizes((calls[i].args, calls[i].kwargs)) for i, _, _ in bad]
        if all(np.isfinite(small + large)) and max(small) < min(large):
            return True
    for i, a, e in bad:  # elementwise: one array input with the output's shape
        arrays = [np.asarray(x, dtype=float) for x in list(calls[i].args) + list(calls[i].kwargs.values())
                  if isinstance(x, np.ndarray) and x.dtype.kind in "iuf"]
        try:
            a, e = np.asarray(a, dtype=float), np.asarray(e, dtype=float)
        except (TypeError, ValueError):
            return False
        shaped = [x for x in arrays if x.shape == e.shape and e.ndim >= 1]
        if len(shaped) != 1 or a.shape != e.shape:
            return False
        x = np.abs(shaped[0]).ravel()
        ok = np.array([close(u, v, rtol, atol) for u, v in zip(a.ravel(), e.ravel())])
        if ok.sum() >= 3 and (~ok).sum() >= 2 and x[ok].max() < x[~ok].min():
            return True
    return False


def _non_default(sig, call) -> set | None:
    """The parameters with a default that ``call`` sets to another value (None: cannot bind)."""
    try:
        bound = sig.bind(*call.args, **call.kwargs)
    except TypeError:
        return None
    out = set()
    for p, value in bound.arguments.items():
        param = sig.parameters[p]
        if param.default is inspect.Parameter.empty or param.kind not in (
                inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            continue
        try:
            same = close(value, param.default, 0.0, 0.0)
        except Exception:  # noqa: BLE001
            same = False
        if not same:
            out.add(p)
    return out


def _default_only(cat, name, calls, good, bad) -> str:
    """The one parameter that every wrong call sets and no right call does, or ""."""
    try:
        sig = inspect.signature(cat.reference.ns.get(name))
    except (TypeError, ValueError):
        return ""
    if not good or not bad:
        return ""
    sets = [_non_default(sig, calls[i]) for i in good + bad]
    if any(x is None for x in sets):
        return ""
    on_good, on_bad = set().union(*sets[:len(good)]), set.intersection(*sets[len(good):])
    candidates = sorted(on_bad - on_good)
    return candidates[0] if len(candidates) == 1 and not on_good else ""


def _ignored_argument(cat, name, calls, bad, rtol, atol) -> str:
    """A parameter whose value the student's answers ignore: with it reset to its default,
    the reference gives the student's answers on every wrong call. "" if none."""
    try:
        sig = inspect.signature(cat.reference.ns.get(name))
    except (TypeError, ValueError):
        return ""
    sets = [_non_default(sig, calls[i]) for i in bad[:16]]
    if not sets or any(x is None for x in sets):
        return ""
    for p in sorted(set.intersection(*sets)):
        for i in bad[:16]:
            bound = sig.bind(*calls[i].args, **calls[i].kwargs)
            bound.arguments.pop(p)
            answer = cat.reference.call(Call(name, bound.args, bound.kwargs, None))
            if answer is _FAILED or not close(calls[i].value, answer, rtol, atol):
                break
        else:
            return p
    return ""


def generic(cat, calls, ref, rtol, atol) -> str:
    """Generic diagnoses, one sentence per function that answered wrongly (at most two)."""
    by_name: dict[str, list[int]] = {}
    for i, c in enumerate(calls):
        by_name.setdefault(c.name, []).append(i)
    out = []
    for name, idx in by_name.items():
        try:
            text = _function_diagnosis(cat, name, calls, idx, ref, rtol, atol)
        except (ProtocolError, StudentError, ValueError, TypeError, IndexError):
            text = ""
        if text:
            out.append(text)
        if len(out) == 2:
            break
    return " ".join(out)
