"""How good are the diagnoses? Precision and recall over the course's own known mistakes.

Each ``wrong`` cell (and each ``rewrite``) of a source is graded in-process (``grade_code``) and
every diagnosis of its failing tests is judged:

* a known mistake's hint is right only when it is the cell's own (``Your results match a known
  mistake: <its hint>``, nothing else named);
* a generic diagnosis is right only when every sentence of it holds for the cell's answers on
  the test's inputs, checked here directly against the reference (``claim_holds``: a claimed
  factor c means the answers equal c times the reference's on every call, and so on).

Two modes: ``normal`` (the full catalogue: what a student making that mistake is told) and
``loo``, leave-one-out (the catalogue without the cell's own mistake: what a student making a
mistake nobody catalogued is told; any hint is then another mistake's, so wrong). Precision is
right diagnoses / diagnoses given; recall is cells that got a right diagnosis (in ``normal``:
their own hint; in ``loo``: a true generic one) / cells. ``benchmarks/diagnosis_quality.py``
prints them per assignment and in total.
"""

from __future__ import annotations

import ast
import inspect
import math
import re
from dataclasses import dataclass, field

import numpy as np

from autograder.course.inprocess import grade_code
from autograder.run.diagnose import named_hints
from autograder.run.diagnose.catalogue import _FAILED, Call, catalogue, leaving_out
from autograder.run.diagnose.compare import DEFAULT_ATOL, DEFAULT_RTOL, _leaves, close, tolerance
from autograder.run.diagnose.generic import _FACTORS
from autograder.run.mistakes import read_mistakes
from autograder.run.paths import REPO

RTOL, ATOL = 1e-6, 1e-9  # "equal" in a checked claim: relative, and absolute per unit of the largest value
FACTORS = dict(_FACTORS)
_WHO = r"(?P<f>\w+)"
_ARG = r"(?:`(?P<p>\w+)`|argument (?P<k>\d+))"
CLAIMS = [
    ("transpose", rf"{_WHO} returns the transpose of the expected matrix"),
    ("structure", rf"{_WHO} returns (?P<what>.+?) \(see the docstring for what it returns\)"),
    ("shape", rf"{_WHO} returns an array of shape \((?P<got>[^)]*)\) where shape \((?P<want>[^)]*)\) is expected"),
    ("nonfinite", rf"{_WHO} returns nan or inf(?: for large {_ARG})? where finite values are expected"),
    ("ignored", rf"{_WHO} answers as if the argument `(?P<p>\w+)` always had its default value"),
    ("default_only", rf"{_WHO} is correct only when `(?P<p>\w+)` has its default value"),
    ("sign", rf"{_WHO} is correct up to the sign"),
    ("factor", rf"{_WHO} is off by the same factor (?P<c>.+?) on every input"),
    ("some_factor", rf"{_WHO} is off by the same constant factor on every input"),
    ("shift", rf"{_WHO} is off by the same additive constant on every input"),
    ("small_only", rf"{_WHO} is right when {_ARG} (?P<how>is small|has few entries) and wrong for every larger one"),
    ("parts", (r"(?P<parts>`\w+\(\.\.\.\)[^`]+`(?:, `\w+\(\.\.\.\)[^`]+`)*) (?:is|are) wrong, and the rest of "
               r"what (?P<f>\w+) returns is right on every input of this test")),
    ("special", rf"{_WHO} is wrong only where (?P<where>.+?), and right at every other input of this test"),
    ("power", rf"{_WHO} is off by a factor (?P<m>\S+) on every input of this test"),
    ("relation", (rf"{_WHO} returns (?P<rel>1 minus|the reciprocal of|the square of|the square root of) "
                  r"the expected value on every input of this test")),
    ("off_by_one", rf"{_WHO} answers as if `(?P<p>\w+)` were one (?P<d>more|less) on every input of this test"),
]
RELATIONS = {"1 minus": lambda x: 1.0 - x, "the reciprocal of": lambda x: 1.0 / x,
             "the square of": lambda x: x ** 2, "the square root of": lambda x: x ** 0.5}


def powers_of(text: str) -> dict | None:
    """{argument: power} of a product of powers as the diagnosis writes it ("1/√`N`",
    "`N`·`beta`", "`N`²/(√`d`·`k`)"), or None where ``text`` is not one."""
    top, _, bottom = text.partition("/")
    if bottom.startswith("(") and bottom.endswith(")"):
        bottom = bottom[1:-1]
    out: dict = {}
    for part, sign in ((top, 1.0), (bottom, -1.0)):
        if not part or (sign > 0 and part == "1"):
            continue
        for term in part.split("·"):
            t = re.fullmatch(r"(√?)`(\w+)`(²?)", term)
            if t is None or t[2] in out:
                return None
            out[t[2]] = sign * (0.5 if t[1] else 1.0) * (2.0 if t[3] else 1.0)
    return out or None


def sentences(diagnosis: str) -> list[str]:
    """A generic diagnosis cut into its sentences, one per function."""
    text = diagnosis.strip()
    starts = [0] + [m.end() for m in re.finditer(r"\. ", text)
                    if any(re.match(pattern, text[m.end():]) for _, pattern in CLAIMS)]
    return [text[a:b].strip() for a, b in zip(starts, starts[1:] + [len(text)]) if text[a:b].strip()]


def _map(value, f):
    """``value`` (nested dicts, tuples, lists, arrays) with ``f`` applied to each numeric leaf."""
    if isinstance(value, dict):
        return {k: _map(v, f) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_map(v, f) for v in value)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return value
    return f(arr)


def _numbers(value) -> np.ndarray:
    out = []
    _map(value, lambda arr: out.append(arr.ravel()) or arr)
    return np.concatenate(out) if out else np.array([])


def _equal(actual, expected) -> bool:
    big = np.abs(_numbers(expected))
    big = float(big[np.isfinite(big)].max()) if np.isfinite(big).any() else 1.0
    return close(actual, expected, RTOL, ATOL * max(big, 1e-300))


def _nonfinite(actual, expected) -> bool:
    """nan or inf in ``actual`` where ``expected`` is finite."""
    a, e = _numbers(actual), _numbers(expected)
    return a.size == e.size and bool(np.any(~np.isfinite(a) & np.isfinite(e)))


def _arguments(fn, c: Call) -> dict:
    try:
        return dict(inspect.signature(fn).bind(*c.args, **c.kwargs).arguments)
    except (TypeError, ValueError):
        return {**{f"#{k}": v for k, v in enumerate(c.args)}, **c.kwargs}


def _inputs(fn, c: Call, expected, p: str, how: str):
    """[(size of argument ``p``, answer, expected)]: one per entry where ``p`` is an array with
    the answer's shape (elementwise), else one for the call; None if ``p`` has no size. The size
    is the magnitude (``how``: "is small"), the number of entries ("has few entries") or the
    value itself ("signed": scalars and elementwise entries only)."""
    x = _arguments(fn, c).get(p)
    if x is None or isinstance(x, (bool, str)):
        return None
    try:
        arr = np.asarray(x, dtype=float)
        a, e = np.asarray(c.value, dtype=float), np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        arr, a, e = np.asarray(x, dtype=object), None, None
    if a is not None and arr.ndim and arr.shape == e.shape == a.shape:
        return [(float(s) if how == "signed" else abs(float(s)), u, v)
                for s, u, v in zip(arr.ravel(), a.ravel(), e.ravel())]
    try:
        if how == "signed":
            return [(float(arr), c.value, expected)] if arr.ndim == 0 else None
        size = float(arr.size) if how == "has few entries" else float(np.nanmax(np.abs(arr)))
    except (TypeError, ValueError):
        return None
    return [(size, c.value, expected)]


def tolerance_of(assignment: str, test: str) -> tuple[float, float]:
    """The loosest (rtol, atol) that the hidden test ``test`` writes as numbers in its
    ``assert_close`` calls (the grader's defaults where it writes none): what "right" means
    there."""
    tree = ast.parse((REPO / "grading_tests" / assignment / f"test_{assignment}.py").read_text())
    found = []
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == test:
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "assert_close":
                    kw = {k.arg: k.value for k in node.keywords}
                    try:
                        found.append((ast.literal_eval(kw["rtol"]) if "rtol" in kw else DEFAULT_RTOL,
                                      ast.literal_eval(kw["atol"]) if "atol" in kw else DEFAULT_ATOL))
                    except ValueError:
                        continue
    return tolerance(found)


def claim_holds(sentence: str, calls: list[Call], reference, rtol: float = DEFAULT_RTOL,
                atol: float = DEFAULT_ATOL) -> bool:
    """Whether one generic sentence is true of ``calls`` (the recorded answers of one test),
    checked against ``reference`` (a ``Variant``: the reference module) on the same inputs: an
    answer is right within the test's tolerance (``rtol``, ``atol``), and a claimed equality
    (a factor, a shift, a transpose) holds within ``RTOL``. An unrecognised sentence does not
    hold."""

    def right(actual, expected) -> bool:
        return close(actual, expected, rtol, atol)

    for kind, pattern in CLAIMS:  # noqa: B007 - `kind` of the claim matched, read after the loop
        m = re.match(pattern, sentence)
        if m:
            break
    else:
        return False
    f = m.group("f")
    fn = reference.ns.get(f)
    mine = [(c, reference.call(c)) for c in calls if c.name == f]
    mine = [(c, e) for c, e in mine if e is not _FAILED]
    if not mine:
        return False
    wrong = [(c, e) for c, e in mine if not right(c.value, e)]
    if not wrong:
        return False
    if kind == "structure":
        return any(why == m.group("what") for c, e in wrong for _, a, why in _leaves(c.value, e) if a is None)
    if kind == "shape":
        got, want = (tuple(int(t) for t in m.group(g).replace(" ", "").split(",") if t) for g in ("got", "want"))
        return any(a is not None and a.shape == got and np.shape(why) == want
                   for c, e in wrong for _, a, why in _leaves(c.value, e))
    if kind == "transpose":
        return all(_equal(np.asarray(c.value).T, e) for c, e in wrong)
    if kind in ("sign", "factor", "some_factor", "shift"):
        if kind == "shift" or kind == "some_factor":
            a0, e0 = _numbers(wrong[0][0].value), _numbers(wrong[0][1])
            j = int(np.nanargmax(np.abs(e0))) if e0.size else 0
            if not e0.size or not np.isfinite(a0[j]) or (kind == "some_factor" and e0[j] == 0):
                return False
            c0 = a0[j] - e0[j] if kind == "shift" else a0[j] / e0[j]
        else:
            c0 = -1.0 if kind == "sign" else FACTORS.get(m.group("c"))
            if c0 is None:
                return False
        model = (lambda arr: arr + c0) if kind == "shift" else (lambda arr: c0 * arr)
        return all(_equal(c.value, _map(e, model)) for c, e in mine)
    if kind == "parts":
        named = re.findall(r"`\w+\(\.\.\.\)([^`]+)`", m.group("parts"))
        paths, off = None, set()
        for c, e in mine:
            leaves = list(_leaves(c.value, e))
            if any(a is None for _, a, _ in leaves):
                return False
            if len(leaves) == 1 and leaves[0][0] == "" and leaves[0][2].ndim == 1:  # entry by entry
                y = leaves[0][2]
                x = leaves[0][1].reshape(y.shape)
                leaves = [(f"[{j}]", x[j], y[j]) for j in range(y.size)]
            here = [p for p, _, _ in leaves]
            paths = paths or here
            if here != paths:
                return False
            off |= {p for p, a, x in leaves if not right(a, x)}
        claimed = set()
        for part in named:
            cut = re.fullmatch(r"\[(\d+):(\d*)\]", part)
            claimed |= ({f"[{j}]" for j in range(int(cut[1]), int(cut[2]) if cut[2] else len(paths))}
                        if cut else {part})
        return off == claimed and off < set(paths)
    if kind == "special":
        where = re.findall(r"(?:`(\w+)`|argument (\d+)) = (-?\d+)", m.group("where"))
        if not where or len({(q or k) for q, k, _ in where}) != 1:
            return False
        q, k, _ = where[0]
        p, values = q or f"#{int(k) - 1}", {float(v) for _, _, v in where}
        elsewhere = 0
        for c, e in mine:
            entries = _inputs(fn, c, e, p, "signed")
            if entries is None:
                return False
            for value, a, x in entries:
                if right(a, x) == (value in values):
                    return False
                elsewhere += value not in values
        return elsewhere > 0
    if kind == "power":
        powers = powers_of(m.group("m"))
        if powers is None:
            return False
        for c, e in mine:
            args = _arguments(fn, c)
            sig = inspect.signature(fn)
            values = {p: args.get(p, sig.parameters[p].default if p in sig.parameters else None) for p in powers}
            if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or v <= 0
                   for v in values.values()):
                return False
            factor = float(np.prod([float(values[p]) ** k for p, k in powers.items()]))
            if not _equal(c.value, _map(e, lambda arr, k=factor: k * arr)):
                return False
        return True
    if kind == "relation":
        g = RELATIONS[m.group("rel")]
        with np.errstate(all="ignore"):
            return all(_equal(c.value, _map(e, g)) for c, e in mine)
    if kind == "off_by_one":
        p, d = m.group("p"), 1 if m.group("d") == "more" else -1
        sig = inspect.signature(fn)
        for c, _ in mine:
            bound = sig.bind(*c.args, **c.kwargs)
            bound.apply_defaults()
            n = bound.arguments.get(p)
            if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
                return False
            bound.arguments[p] = n + d
            e = reference.call(Call(f, bound.args, bound.kwargs, None))
            if e is _FAILED or not right(c.value, e):
                return False
        return True
    if kind == "ignored":
        p = m.group("p")
        sig = inspect.signature(fn)
        checked = 0
        for c, _ in mine:
            bound = sig.bind(*c.args, **c.kwargs)
            if p not in bound.arguments:
                continue
            bound.arguments.pop(p)
            e = reference.call(Call(f, bound.args, bound.kwargs, None))
            if e is _FAILED or not right(c.value, e):
                return False
            checked += 1
        return checked > 0
    if kind == "default_only":
        p = m.group("p")
        default = inspect.signature(fn).parameters[p].default
        for c, e in mine:
            value = _arguments(fn, c).get(p, default)
            at_default = close(value, default, 0.0, 0.0)
            if at_default != right(c.value, e):
                return False
        return True
    # the threshold claims: every right input smaller in the argument than every wrong one
    groups = m.groupdict()
    p = groups.get("p") or (f"#{int(groups['k']) - 1}" if groups.get("k") else None)
    how = groups.get("how") or "is small"
    if kind == "nonfinite":
        if not any(_nonfinite(c.value, e) for c, e in wrong):
            return False
        if p is None:
            return True
    good, off = [], []
    for c, e in mine:
        entries = _inputs(fn, c, e, p, how)
        if entries is None:
            return False
        for size, a, x in entries:
            if kind == "nonfinite":
                if right(a, x):
                    good.append(size)
                elif _nonfinite(a, x):
                    off.append(size)
                else:
                    return False
            else:
                (good if right(a, x) else off).append(size)
    return bool(good and off) and all(map(math.isfinite, good + off)) and max(good) < min(off)


@dataclass
class Judged:
    """The diagnoses one cell got in one mode."""
    assignment: str
    cell: str              # the wrong cell's description (a rewrite: "rewrite: <its description>")
    mode: str              # "normal" or "loo"
    caught: bool           # lost points
    right: list = field(default_factory=list)   # [(test, diagnosis)]
    wrong: list = field(default_factory=list)   # [(test, diagnosis, why)]
    own_hint: bool = False  # named by its own hint (normal mode)
    true_generic: bool = False

    @property
    def recalled(self) -> bool:
        return self.own_hint if self.mode == "normal" else self.true_generic


def judge(diagnosis: str, hint: str, mode: str, calls: list[Call], reference,
          tol: tuple[float, float] = (DEFAULT_RTOL, DEFAULT_ATOL)) -> tuple[bool, str]:
    """(right?, why not) for one diagnosis of a cell whose own mistake has ``hint``."""
    named = named_hints(diagnosis)
    if named:
        if mode == "normal" and set(named) == {hint}:
            return True, ""
        return False, "names another mistake" if hint not in named else "names another mistake besides its own"
    for s in sentences(diagnosis):
        if not claim_holds(s, calls, reference, *tol):
            return False, f"false generic claim: {s}"
    return True, ""


def cells(assignment: str) -> list[tuple[str, str, str]]:
    """[(label, code, hint)]: the wrong cells and their rewrites."""
    out = []
    for m in read_mistakes(assignment):
        out.append((m.description, m.code, m.hint))
        out += [(f"rewrite: {desc}", code, m.hint) for desc, code in m.rewrites]
    return out


def measure(assignment: str, modes=("normal", "loo")) -> list[Judged]:
    """Every wrong and rewrite cell of ``assignment`` graded in each mode, its diagnoses judged."""
    reference_code = (REPO / "solutions" / assignment / "__init__.py").read_text()
    reference = catalogue(assignment).reference
    out = []
    for label, code, hint in cells(assignment):
        for mode in modes:
            if mode == "loo":
                with leaving_out(assignment, hint):
                    results, student = grade_code(assignment, reference_code + "\n\n" + code)
            else:
                results, student = grade_code(assignment, reference_code + "\n\n" + code)
            j = Judged(assignment, label, mode, caught=any(not r.passed for r in results))
            for r in results:
                if not r.diagnosis:
                    continue
                calls = [c for test, c in student.history if test == r.name]
                good, why = judge(r.diagnosis, hint, mode, calls, reference, tolerance_of(assignment, r.name))
                if good:
                    j.right.append((r.name, r.diagnosis))
                    j.own_hint |= bool(named_hints(r.diagnosis))
                    j.true_generic |= not named_hints(r.diagnosis)
                else:
                    j.wrong.append((r.name, r.diagnosis, why))
            out.append(j)
    return out


def figures(judged: list[Judged], mode: str) -> dict:
    """{"cells", "given", "right", "precision", "recalled", "recall"} of one mode."""
    js = [j for j in judged if j.mode == mode]
    right = sum(len(j.right) for j in js)
    given = right + sum(len(j.wrong) for j in js)
    recalled = sum(j.recalled for j in js)
    return {"cells": len(js), "given": given, "right": right,
            "precision": right / given if given else 1.0,
            "recalled": recalled, "recall": recalled / len(js) if js else 1.0}


def report(assignments, modes=("normal", "loo"), log=print) -> list[Judged]:
    """Measure each assignment; print a line per assignment and mode, each wrong diagnosis, and
    the totals."""
    everything: list[Judged] = []
    log(f"{'assignment':28s} {'mode':6s} {'cells':>5s} {'given':>5s} {'right':>5s} {'precision':>9s} "
        f"{'recalled':>8s} {'recall':>6s}")

    def line(name, judged, mode):
        f = figures(judged, mode)
        log(f"{name:28s} {mode:6s} {f['cells']:5d} {f['given']:5d} {f['right']:5d} {f['precision']:9.1%} "
            f"{f['recalled']:8d} {f['recall']:6.1%}")

    for a in assignments:
        judged = measure(a, modes)
        everything += judged
        for mode in modes:
            line(a, judged, mode)
        for j in judged:
            for test, _diagnosis, why in j.wrong:
                log(f"    WRONG [{j.mode}] {j.cell[:60]} / {test}: {why[:160]}")
    for mode in modes:
        line("TOTAL", everything, mode)
    return everything
