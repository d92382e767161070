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
import itertools
import math
import re
from dataclasses import dataclass, field

import numpy as np

from autograder.course.inprocess import grade_code
from autograder.run.diagnose.catalogue import _FAILED, Call, catalogue, leaving_out
from autograder.run.diagnose.compare import DEFAULT_ATOL, DEFAULT_RTOL, _leaves, close, tolerance
from autograder.run.diagnose.generic import _FACTORS, _same, bessel_factor, repeated_slices, repeated_steps
from autograder.run.diagnose.mutants import mutants
from autograder.run.diagnosis import Diagnosis, Found, hints_of, sentence
from autograder.run.mistakes import read_mistakes
from autograder.run.paths import REPO

RTOL, ATOL = 1e-6, 1e-9  # "equal" in a checked claim: relative, and absolute per unit of the largest value
FACTORS = dict(_FACTORS)
RELATIONS = {"1 minus": lambda x: 1.0 - x, "the reciprocal of": lambda x: 1.0 / x,
             "the square of": lambda x: x ** 2, "the square root of": lambda x: x ** 0.5}


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


def claim_holds(d: Diagnosis, calls: list[Call], reference, rtol: float = DEFAULT_RTOL,
                atol: float = DEFAULT_ATOL) -> bool:
    """Whether one generic diagnosis ``d`` is true of ``calls`` (the recorded answers of one
    test), checked against ``reference`` (a ``Variant``: the reference module) on the same inputs:
    an answer is right within the test's tolerance (``rtol``, ``atol``), and a claimed equality
    (a factor, a shift, a transpose) holds within ``RTOL``. A kind with no check here does not
    hold."""

    def right(actual, expected) -> bool:
        return close(actual, expected, rtol, atol)

    kind, f, q = d.kind, d.function, d.params
    fn = reference.ns.get(f)
    mine = [(c, reference.call(c)) for c in calls if c.name == f]
    mine = [(c, e) for c, e in mine if e is not _FAILED]
    if not mine:
        return False
    wrong = [(c, e) for c, e in mine if not right(c.value, e)]
    if kind is Found.ARRAY_CRASH:  # the calls recorded answered (those that raised are not here): all right
        return not wrong
    if not wrong:
        return False
    if kind is Found.STRUCTURE:
        return any(why == q["what"] for c, e in wrong for _, a, why in _leaves(c.value, e) if a is None)
    if kind is Found.SHAPE:
        got, want = tuple(q["got"]), tuple(q["want"])
        return any(a is not None and a.shape == got and np.shape(why) == want
                   for c, e in wrong for _, a, why in _leaves(c.value, e))
    if kind is Found.TRANSPOSE:
        return all(_equal(np.asarray(c.value).T, e) for c, e in wrong)
    if kind in (Found.SIGN, Found.FACTOR, Found.SOME_FACTOR, Found.SHIFT):
        if kind in (Found.SHIFT, Found.SOME_FACTOR):
            a0, e0 = _numbers(wrong[0][0].value), _numbers(wrong[0][1])
            j = int(np.nanargmax(np.abs(e0))) if e0.size else 0
            if not e0.size or not np.isfinite(a0[j]) or (kind is Found.SOME_FACTOR and e0[j] == 0):
                return False
            c0 = a0[j] - e0[j] if kind is Found.SHIFT else a0[j] / e0[j]
        else:
            factor = -1.0 if kind is Found.SIGN else FACTORS.get(q["factor"])
            if factor is None:
                return False
            c0 = factor
        model = (lambda arr: arr + c0) if kind is Found.SHIFT else (lambda arr: c0 * arr)
        return all(_equal(c.value, _map(e, model)) for c, e in mine)
    if kind is Found.PARTS:
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
        for part in q["parts"]:
            cut = re.fullmatch(r"\[(\d+):(\d*)\]", part)  # a slice of entries, as generic writes it
            claimed |= ({f"[{j}]" for j in range(int(cut[1]), int(cut[2]) if cut[2] else len(paths or []))}
                        if cut else {part})
        return off == claimed and off < set(paths or [])
    if kind is Found.SPECIAL:
        p, values = q["p"], {float(v) for v in q["values"]}
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
    if kind is Found.POWER:
        powers = q["powers"]
        for c, e in mine:
            args = _arguments(fn, c)
            sig = inspect.signature(fn)
            values = {p: args.get(p, sig.parameters[p].default if p in sig.parameters else None) for p in powers}
            if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or v == 0
                   or (v < 0 and not float(powers[p]).is_integer()) for p, v in values.items()):
                return False
            factor = float(np.prod([float(values[p]) ** k for p, k in powers.items()]))
            if not _equal(c.value, _map(e, lambda arr, k=factor: k * arr)):
                return False
        return True
    if kind is Found.RELATION:
        g = RELATIONS[q["relation"]]
        with np.errstate(all="ignore"):
            return all(_equal(c.value, _map(e, g)) for c, e in mine)
    if kind is Found.OFF_BY_ONE:
        p, step = q["p"], 1 if q["d"] > 0 else -1
        sig = inspect.signature(fn)
        for c, _ in mine:
            bound = sig.bind(*c.args, **c.kwargs)
            bound.apply_defaults()
            n = bound.arguments.get(p)
            if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
                return False
            bound.arguments[p] = n + step
            e = reference.call(Call(f, bound.args, bound.kwargs, None))
            if e is _FAILED or not right(c.value, e):
                return False
        return True
    if kind is Found.IGNORED:
        p = q["p"]
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
    if kind is Found.DEFAULT_ONLY:
        p = q["p"]
        default = inspect.signature(fn).parameters[p].default
        for c, e in mine:
            value = _arguments(fn, c).get(p, default)
            at_default = close(value, default, 0.0, 0.0)
            if at_default != right(c.value, e):
                return False
        return True
    if kind is Found.TERM:
        # a mutant of the reference with one term (reading those arguments) dropped or flipped
        # gives every answer
        for how, involves, v, _ in mutants(reference, f):
            if how == q["how"] and list(involves) == list(q["involves"]):
                answers = [v.call(c) for c, _ in mine]
                if all(a is not _FAILED and _equal(c.value, a) for (c, _), a in zip(mine, answers)):
                    return True
        return False
    if kind is Found.UNUSED:
        # two calls that differ in p alone: the same answer where the reference's differ; or one
        # call with p elementwise, the answer the same at every entry where the reference's differ
        p, seen = q["p"], 0
        for (c, e), (c2, e2) in itertools.combinations(mine, 2):
            x, y = _arguments(fn, c), _arguments(fn, c2)
            if set(x) != set(y) or p not in x or _same(x[p], y[p]) or \
                    not all(_same(x[k], y[k]) for k in x if k != p) or right(e, e2):
                continue
            if not _equal(c.value, c2.value):
                return False
            seen += 1
        for c, e in mine:
            arr = _arguments(fn, c).get(p)
            a = np.asarray(c.value, dtype=float) if np.ndim(c.value) else None
            if a is not None and np.shape(arr) == np.shape(e) == a.shape and np.all(a == a.ravel()[0]) \
                    and not right(np.full(a.shape, a.ravel()[0]), e):
                seen += 2
        return seen >= 2
    if kind is Found.BESSEL:
        for c, e in mine:
            x = _arguments(fn, c).get(q["p"])
            m = int(x) if q["how"] == "value" else int(np.shape(x)[q["axis"]])
            k = bessel_factor(m, q["d"], bool(q.get("root")))
            if not _equal(c.value, _map(e, lambda arr, k=k: k * arr)):
                return False
        return True
    if kind is Found.SAME_DRAWS:
        seen = repeated_steps if q.get("how") == "steps" else repeated_slices
        return all(any(a is not None and seen(a, x) for _, a, x in _leaves(c.value, e)) for c, e in wrong)
    if kind is Found.UPSTREAM:
        # the functions named are used by f (in the reference, or in the student's code: ``yours``,
        # read from it where the claim is made) and, where this test called them, answered wrongly
        # on some call (where it did not, an earlier test saw them wrong)
        reach = set(reference.reaches(f)) | set(q.get("yours") or ())
        for u in q["upstream"]:
            theirs = [(c, reference.call(c)) for c in calls if c.name == u]
            if u == f or u not in reach or (theirs and all(e is _FAILED or right(c.value, e) for c, e in theirs)):
                return False
        return True
    if kind not in (Found.NONFINITE, Found.SMALL_ONLY):
        return False
    # the threshold claims: every right input smaller in the argument than every wrong one
    p = q.get("p")
    how = {"entries": "has few entries"}.get(q.get("how", ""), "is small")
    if kind is Found.NONFINITE:
        if not any(_nonfinite(c.value, e) for c, e in wrong):
            return False
        if p is None or q.get("branch"):  # a branch's region is where its nan or inf are, by construction
            return True
    good, off = [], []
    for c, e in mine:
        entries = _inputs(fn, c, e, p, how)
        if entries is None:
            return False
        for size, a, x in entries:
            if kind is Found.NONFINITE:
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


def judge(diagnoses: list[Diagnosis], hint: str, mode: str, calls: list[Call], reference,
          tol: tuple[float, float] = (DEFAULT_RTOL, DEFAULT_ATOL)) -> tuple[bool, str]:
    """(right?, why not) for the diagnoses of one test of a cell whose own mistake has ``hint``."""
    named = hints_of(diagnoses)
    for d in diagnoses:  # a known mistake's lead (what a student reads first) makes a generic claim: it must hold
        lead = d.params.get("lead") if d.kind in (Found.KNOWN, Found.TOGETHER) else None
        if lead and not claim_holds(Diagnosis.from_dict(lead), calls, reference, *tol):
            return False, f"false claim in a known mistake's lead: {sentence(Diagnosis.from_dict(lead))}"
    if named:
        if mode == "normal" and set(named) == {hint}:
            return True, ""
        return False, "names another mistake" if hint not in named else "names another mistake besides its own"
    for d in diagnoses:
        if not claim_holds(d, calls, reference, *tol):
            return False, f"false generic claim: {sentence(d)}"
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
                good, why = judge(r.diagnoses, hint, mode, calls, reference, tolerance_of(assignment, r.name))
                if good:
                    j.right.append((r.name, r.diagnosis))
                    j.own_hint |= bool(r.named_hints)
                    j.true_generic |= not r.named_hints
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
