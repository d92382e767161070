"""Name the mistake: turn a failing hidden test into feedback that says *why*.

When a hidden test fails, the grader has the answers the student's functions returned on the
test's inputs (``call_log`` of the student proxy: ``(name, args, kwargs, value)``). Here, in the
grader's process (never in the student's), those inputs are replayed on

* each **known mistake**: the reference module with one ``wrong`` cell of the source applied
  (so a wrong helper also changes the functions that call it, as in a student's notebook).
  A mistake is named when the student's answers match it on every call of the test that the
  mistake affects, and the mistake shows on those inputs (it differs from the reference on at
  least one). Functions that draw random numbers match only where the wrong variant is
  deterministic given its inputs, otherwise they are skipped: under a tolerance looser than
  ``LOOSE`` a replay must give the same answer; under a tighter one, random draws cannot
  agree by chance.
* the **reference**, when no known mistake matches, for generic diagnoses: the same constant
  factor on every input (named when it is 2, 1/2, pi, ...), correct up to the sign, transposed,
  wrong shape, nan/inf where finite values are expected, an argument ignored (correct only at
  its default value), correct for small inputs only.

Answers match within the loosest tolerance the test passed to ``assert_close`` (the default
when it passed none: ``DEFAULT_RTOL``, ``DEFAULT_ATOL``; never tighter than ``MIN_RTOL``,
``MIN_ATOL``). No text produced here contains a value the reference returned: hints are the
author's words, generic diagnoses name only factors from a fixed list, shapes and argument
names.

Cost: only failing tests are diagnosed, and only where the student's function answered (a
function that raised, hung or is not implemented already has its reason); each wrong cell is
applied once per process (``catalogue``); a test replays at most ``MAX_CALLS`` calls within
``TEST_BUDGET_S``, a submission spends at most ``GRADE_BUDGET_S`` on diagnoses.
``PDL_DIAGNOSE=0`` in the environment (or ``run_hidden_tests(..., diagnose=False)``) turns the
diagnosis off.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import math
import os
import re
import threading
import time
import types
import warnings
from dataclasses import dataclass

import numpy as np

from autograder.protocol import ProtocolError, dumps, encode, roundtrip
from autograder.testing import LocalStudent, StudentError

ENV = "PDL_DIAGNOSE"
DEFAULT_RTOL, DEFAULT_ATOL = 1e-6, 1e-9  # a test that passed no tolerance to assert_close
MIN_RTOL, MIN_ATOL = 1e-9, 1e-12         # exact tests (rtol = atol = 0) still forgive round-off
MAX_CALLS = 64                           # calls of one test that are replayed
CALL_LIMIT_S = 20.0                      # one replayed call (main thread only)
TEST_BUDGET_S = 20.0                     # all replays for one failing test
GRADE_BUDGET_S = 60.0                    # all diagnoses of one submission
LOOSE = 1e-6                             # a looser tolerance: replay once to rule out chance
MAX_KEY_BYTES = 4 * 2**20                # answers kept per variant: inputs up to this size,
MAX_KEPT = 4096                          # and this many
KNOWN = "Your results match a known mistake: "
TOGETHER = "Your results match known mistakes made together: "


def enabled() -> bool:
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "no", "off")


@dataclass
class Call:
    name: str
    args: tuple
    kwargs: dict
    value: object


class RecordingStudent(LocalStudent):
    """In-process student (course code: wrong, rewrite and alternative cells) that records its
    answers like the sandbox proxy does, so the same diagnosis runs on it. ``history`` keeps
    every call with the test it belongs to; ``call_log`` is the grader's per-test slice."""

    def __init__(self, namespace: dict):
        super().__init__(namespace)
        self.call_log: list = []
        self.history: list = []

    def __getattr__(self, name):
        call = super().__getattr__(name)

        def recorded(*args, **kwargs):
            value = call(*args, **kwargs)
            self.call_log.append((name, args, kwargs, value))
            test = os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[-1].split(" ")[0]
            self.history.append((test, Call(name, args, kwargs, value)))
            return value
        return recorded


# -- comparing answers ----------------------------------------------------------------------
def close(actual, expected, rtol: float, atol: float) -> bool:
    """``assert_close``'s verdict as a bool, for nested tuples, lists, dicts and arrays."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and close(actual[k], v, rtol, atol) for k, v in expected.items())
    if isinstance(expected, (tuple, list)):
        return isinstance(actual, (tuple, list, np.ndarray)) and len(actual) == len(expected) and all(
            close(a, e, rtol, atol) for a, e in zip(actual, expected))
    if isinstance(expected, str) or expected is None:
        return actual == expected
    try:
        e = np.asarray(expected)
        a = np.asarray(actual)
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
        if not isinstance(actual, (tuple, list, np.ndarray)) or np.ndim(actual) == 0:
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
    if e.dtype.kind not in "biuf" or a.dtype.kind not in "biuf":
        if e.dtype.kind == "c" and a.dtype.kind in "biufc":
            return  # complex answers: no generic diagnosis
        if not np.array_equal(a, e):
            yield path, None, f"{_kind(actual)} where {_kind(expected)} is expected"
        return
    yield path, a.astype(float), e.astype(float)


# -- the known mistakes ----------------------------------------------------------------------
@contextlib.contextmanager
def _quiet(limit: float):
    """No output, no warnings, and (in the main thread) a time limit for course code."""
    import signal

    # only in the main thread, and never over someone else's running timer
    timer = threading.current_thread() is threading.main_thread() and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    if timer:
        def fire(signum, frame):
            raise TimeoutError(f"no answer within {limit:g} s")
        old = signal.signal(signal.SIGALRM, fire)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"), \
                contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        if timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


_FAILED = object()


def _names_used(fn) -> set:
    out, stack = set(), [fn.__code__]
    while stack:
        code = stack.pop()
        out |= set(code.co_names)
        stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return out


class Variant:
    """A namespace of the reference with one wrong (or rewrite) cell applied."""

    def __init__(self, label: str, hint: str, ns: dict, defined: set, code: str = ""):
        self.label, self.hint, self.ns, self.defined, self.code = label, hint, ns, defined, code
        self._affects: dict[str, bool] = {}
        self._answers: dict[str, object] = {}

    def affects(self, name: str) -> bool:
        """Whether the cell changes ``name``: it redefines it, or something it uses."""
        if name not in self._affects:
            seen, todo, hit = set(), [name], False
            while todo and not hit:
                n = todo.pop()
                if n in seen:
                    continue
                seen.add(n)
                hit = n in self.defined
                obj = self.ns.get(n)
                if isinstance(obj, types.FunctionType) and obj.__globals__ is self.ns:
                    todo += _names_used(obj)
                elif isinstance(obj, type) and obj.__module__ == self.ns.get("__name__"):
                    for member in vars(obj).values():
                        member = getattr(member, "__func__", member)
                        if isinstance(member, types.FunctionType):
                            todo += _names_used(member)
            self._affects[name] = hit
        return self._affects[name]

    def call(self, c: Call, limit: float = CALL_LIMIT_S, fresh: bool = False):
        """The variant's answer to the recorded call, as it would cross the wire; _FAILED if it
        raises, is missing or does not answer in time. Answers are kept (``fresh``: computed
        anew): the hidden tests draw the same inputs for every submission, so a cohort pays for
        each replay once per process."""
        fn = self.ns.get(c.name)
        if not callable(fn):
            return _FAILED
        try:
            key = dumps(encode([c.name, list(c.args), dict(c.kwargs)]))
        except (ProtocolError, TypeError, ValueError):
            key = None
        if key is not None and len(key) > MAX_KEY_BYTES:
            key = None
        if not fresh and key in self._answers:
            return self._answers[key]
        try:
            args, kwargs = roundtrip(list(c.args)), roundtrip(dict(c.kwargs))
            with _quiet(limit):
                value = fn(*args, **kwargs)
            value = roundtrip(value)
        except (Exception, TimeoutError):  # noqa: BLE001 - course code under replay
            value = _FAILED
        if key is not None and len(self._answers) < MAX_KEPT:
            self._answers[key] = value
        return value


def _defined_names(code: str) -> set:
    import ast

    names = set()
    for node in ast.parse(code).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
    return names


class Catalogue:
    """An assignment's reference and known mistakes, built once per process (``catalogue()``)."""

    def __init__(self, assignment: str):
        from autograder.sandbox import REPO
        from autograder.source import read_mistakes

        self.assignment = assignment
        path = REPO / "solutions" / assignment / "__init__.py"
        self._module = compile(path.read_text(), str(path), "exec")
        try:
            self.mistakes = read_mistakes(assignment)
        except OSError:  # a copy of the grader without the sources (generic diagnoses only)
            self.mistakes = []
        self.reference = self.variant("reference", "", "")
        self._variants: list[Variant] | None = None
        self._combined: dict[tuple, Variant | None] = {}

    def variant(self, label: str, hint: str, code: str) -> Variant:
        ns: dict = {"__name__": f"pdl_diagnose_{self.assignment}"}
        with _quiet(CALL_LIMIT_S * 3):
            exec(self._module, ns)  # noqa: S102 - the course's reference
            if code:
                exec(compile(code, f"<{label}>", "exec"), ns)  # noqa: S102 - the course's wrong cell
        return Variant(label, hint, ns, _defined_names(code) if code else set(), code)

    def combined(self, pair: tuple) -> Variant | None:
        """Two known mistakes made together (None if they redefine the same names)."""
        if pair not in self._combined:
            a, b = (self.variants()[k] for k in pair)
            self._combined[pair] = None
            if not a.defined & b.defined:
                try:
                    self._combined[pair] = self.variant(a.label + " + " + b.label, "",
                                                        a.code + "\n\n" + b.code)
                except Exception:  # noqa: BLE001
                    pass
        return self._combined[pair]

    def variants(self) -> list[Variant]:
        if self._variants is None:
            self._variants = []
            for m in self.mistakes:
                try:
                    self._variants.append(self.variant(m.description, m.hint, m.code))
                except Exception:  # noqa: BLE001 - a wrong cell that does not run names nothing
                    continue
        return self._variants


_CATALOGUES: dict[str, Catalogue] = {}


def catalogue(assignment: str) -> Catalogue:
    if assignment not in _CATALOGUES:
        _CATALOGUES[assignment] = Catalogue(assignment)
    return _CATALOGUES[assignment]


def tolerance(recorded) -> tuple[float, float]:
    """The loosest (rtol, atol) the test passed to assert_close, or the defaults."""
    recorded = [(float(r), float(a)) for r, a in recorded]
    if not recorded:
        return DEFAULT_RTOL, DEFAULT_ATOL
    return max(MIN_RTOL, max(r for r, _ in recorded)), max(MIN_ATOL, max(a for _, a in recorded))


def as_calls(log) -> list[Call]:
    out = []
    for entry in log:
        if isinstance(entry, Call):
            out.append(entry)
        else:
            name, args, kwargs, value = entry
            out.append(Call(name, tuple(args), dict(kwargs or {}), value))
    return out


def _matches(v: Variant, calls, ref, rtol, atol) -> bool:
    """The student's answers match ``v`` on every call it affects, and the mistake shows there."""
    relevant = [i for i, c in enumerate(calls) if v.affects(c.name)]
    if not relevant:
        return False
    answers = {}
    for i in relevant:
        answers[i] = v.call(calls[i])
        if answers[i] is _FAILED or not close(calls[i].value, answers[i], rtol, atol):
            return False
    if not any(ref(i) is not _FAILED and not close(answers[i], ref(i), rtol, atol) for i in relevant):
        return False
    if rtol <= LOOSE and atol <= LOOSE:
        return True  # random draws cannot agree this closely by chance
    replay = v.call(calls[relevant[0]], fresh=True)  # random draws not fixed by the inputs: no verdict
    return replay is not _FAILED and close(replay, answers[relevant[0]], rtol, atol)


def diagnose(assignment: str, log, tolerances=(), budget_s: float = TEST_BUDGET_S,
             found: list | None = None) -> str:
    """The diagnosis of one failing test from its calls, or "" when there is nothing to say.

    ``found`` (kept by the caller across the tests of one submission) collects the known
    mistakes matched so far; a test that no single mistake explains is then tried against each
    pair of them made together (a wrong helper and a wrong caller compound)."""
    calls = as_calls(log)[:MAX_CALLS]
    if not calls:
        return ""
    rtol, atol = tolerance(tolerances)
    cat = catalogue(assignment)
    deadline = time.monotonic() + budget_s
    reference: dict[int, object] = {}

    def ref(i):
        if i not in reference:
            reference[i] = cat.reference.call(calls[i])
        return reference[i]

    hits = []
    for k, v in enumerate(cat.variants()):
        if time.monotonic() > deadline:
            break
        if v.hint and v.hint not in [cat.variants()[j].hint for j in hits] and _matches(v, calls, ref, rtol, atol):
            hits.append(k)
    if found is not None:
        found.extend(k for k in hits if k not in found)
    if hits:
        return KNOWN + " Or this one: ".join(cat.variants()[k].hint for k in hits)
    pairs = [(a, b) for n, a in enumerate(found or []) for b in (found or [])[n + 1:]]
    for pair in pairs:
        if time.monotonic() > deadline:
            return ""
        v = cat.combined(pair)
        if v is not None and _matches(v, calls, ref, rtol, atol):
            return TOGETHER + " And: ".join(cat.variants()[k].hint for k in pair)
    if time.monotonic() > deadline:
        return ""
    return generic(cat, calls, ref, rtol, atol)


def named_hints(diagnosis: str) -> list[str]:
    """The hints of the known mistakes a diagnosis names (none for a generic diagnosis): what a
    cohort report counts."""
    for prefix, sep in ((KNOWN, " Or this one: "), (TOGETHER, " And: ")):
        if diagnosis.startswith(prefix):
            return diagnosis[len(prefix):].split(sep)
    return []


# -- generic diagnoses ----------------------------------------------------------------------
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


# -- no reference value in a diagnosis --------------------------------------------------------
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def numbers_of(value) -> list[float]:
    """Every finite number in a (nested) answer."""
    return [float(v) for arr in _finite_arrays(value) for v in arr]


_REFERENCE = re.compile(r"(?:Sections?|Exercises?|Ex|Figures?|Fig\.|Appendix|App\.|eqs?\.|Chapter)\s*\(?$")
_LIST = re.compile(r"^\)?(?:\([a-z](?:,\s*[a-z])*\))?\s*(?:–|-|,|and|, and)\s*\(?$")


def _references(text: str) -> set:
    """Start positions of the numbers that point into the notes (Section 2.4, eq. (2.24),
    Exercises 7.2 and 7.3, eqs. (3.26)–(3.30)): not values."""
    refs, previous = set(), None
    for m in _NUMBER.finditer(text):
        s, e = m.span()
        before = text[max(0, s - 16):s]
        equation = s > 0 and text[s - 1] == "(" and text[e:e + 1] == ")" and "." in m.group()
        listed = previous is not None and previous[0] in refs and _LIST.match(text[previous[1]:s])
        if _REFERENCE.search(before) or equation or listed:
            refs.add(s)
        previous = (s, e)
    return refs


def leaked_numbers(text: str, values) -> list[str]:
    """The numbers written in ``text`` that show a value of ``values`` (numbers the reference
    returned). Small integers (|v| < 100: counts, shapes, factors such as 2) are not evidence,
    nor are references into the notes (Section 2.4, eq. (2.24))."""
    leaked = []
    values = [v for v in values if not (float(v).is_integer() and abs(v) < 100)]
    if not values:
        return leaked
    arr = np.array(values)
    refs = _references(text)
    for m in _NUMBER.finditer(text):
        token = m.group()
        if m.start() in refs:
            continue
        x = float(token)
        if "." in token or "e" in token.lower():
            digits = token.lower().split("e")[0]
            decimals = len(digits.split(".")[1]) if "." in digits else 0
            exponent = int(token.lower().split("e")[1]) if "e" in token.lower() else 0
            tol = 0.5 * 10.0 ** (exponent - decimals)
        elif abs(x) < 100:
            continue
        else:
            tol = 0.5
        if np.any(np.abs(np.abs(arr) - abs(x)) <= tol):
            leaked.append(token)
    return leaked


# -- course code graded in-process (pdl validate, tests) ---------------------------------------
def grade_code(assignment: str, code: str):
    """(results with diagnoses, the recording student) of the hidden tests against the functions
    defined by ``code`` (the reference plus a wrong, rewrite or alternative cell), in-process."""
    from autograder.grading import run_hidden_tests
    from autograder.mutate import CALL_LIMIT_S as LIMIT, TimedNamespace, _alarm

    ns: dict = {"__name__": f"pdl_variant_{assignment}"}
    try:
        with _alarm(LIMIT * 3):
            exec(compile(code, f"<variant of {assignment}>", "exec"), ns)  # noqa: S102 - course code
    except Exception:  # noqa: BLE001 - scores as defined so far, as in mutate.score_code
        pass
    student = RecordingStudent(TimedNamespace(ns))
    return run_hidden_tests(assignment, student, diagnose=True), student


def reference_values(assignment: str, student: RecordingStudent, test: str) -> list[float]:
    """The numbers the reference returns on the inputs ``student`` received in ``test``."""
    ref = catalogue(assignment).reference
    out = []
    for name, c in student.history:
        if name == test:
            value = ref.call(c)
            if value is not _FAILED:
                out += numbers_of(value)
    return out
