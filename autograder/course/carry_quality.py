"""Does error carried forward charge each mistake exactly once, and can it be forged? (issue 32)

Every ``wrong`` and ``rewrite`` cell of a source and a fixed sample of mutants (one graded function
changed each) is graded in-process, as ``pdl grade`` grades (``autograder.run.carry`` on): the points
it loses are compared with the points the release advertises for the functions it makes wrong.

* over-charged: loses more than those functions' points (a mistake paid twice);
* under-charged: loses points with carrying off but none with it on (a mistake paid zero times).

Forging variants are generated from the reference for pairs of graded functions (A, B) where B's
reference calls A or a test passes A's answer to B:

* ``stateful``: B is wrong (a guess), and A switches to wrong answers once B has been called;
* ``arguments``: B is wrong, and A is right exactly on the inputs of its own tests (an oracle: the
  inputs are read from a run of the reference) and wrong elsewhere, as if it recognised the re-runs
  that carry an error forward;
* ``replay``: A is wrong (so B's tests are re-run on fresh copies with A replaced) and B keeps, in
  the notebook's memory, every answer it computed, and gives the kept answer when asked again;
* ``recording``: A is wrong, and every graded function writes down each number it receives
  (arguments, and what its calls of other graded functions return) and shows them, 15 digits each,
  in the error message of every later call (in the feedback).

Each forging variant must gain nothing from carrying forward (its score with it on equals its score
with it off), and no number the reference handed to the student's code during a re-run (the values
of the replaced functions) may appear in what the student sees. (Files and the process: checked
through the sandbox in ``tests/test_carry_forward.py``; here everything is in-process.)
"""

from __future__ import annotations

import ast
import base64
import contextlib
import os
import pickle
import random
import re
import types
from dataclasses import dataclass, field

import numpy as np

from autograder.course.generate import graded_points, module_text
from autograder.course.inprocess import Baseline, RecordingStudent, namespace_of
from autograder.course.mutate import _graded_defs, _Mutator, count_mutants, mutant
from autograder.course.source import load
from autograder.run import carry
from autograder.run.diagnose.leaks import numbers_of
from autograder.run.grading import TestResult, run_hidden_tests
from autograder.run.owners import owners_of

MUTANTS = 12          # mutants per assignment (a fixed sample, seed 0)
PAIRS = 3             # (A, B) pairs per assignment for the forging variants
SHOWN_DIGITS = 6      # a number shown with at least this many significant digits is evidence


@dataclass
class Cell:
    kind: str          # wrong, rewrite, mutant, or forge:<variant>
    label: str
    code: str          # appended to (or, for a mutant, replacing) the reference module
    wrong: frozenset   # the graded functions it makes wrong
    forged: str = ""   # a forging variant: the function whose credit it tries to forge (B)


@dataclass
class Measured:
    cell: Cell
    max_score: float
    lost: float            # with carrying forward
    lost_without: float    # the same grade's points had nothing been carried forward
    advertised: float      # the points the release advertises for the cell's wrong functions
    shown: list = field(default_factory=list)  # reference values of re-runs found in visible text
    carried: int = 0
    credited: dict = field(default_factory=dict)  # points credited by carrying forward, per function
    delegated: int = 0  # numbers the reference handed the student's code in re-runs

    @property
    def over(self) -> bool:
        return self.cell.kind in ("wrong", "rewrite", "mutant") and self.lost > self.advertised + 1e-9

    @property
    def under(self) -> bool:
        return self.cell.kind in ("wrong", "rewrite", "mutant") and self.lost_without > 0 and self.lost <= 1e-9

    @property
    def forged(self) -> float:
        """The points a forging variant's wrong B gained from carrying forward (other functions that
        are right and fail only through its wrong A are credited as for any student)."""
        return self.credited.get(self.cell.forged, 0.0) if self.cell.kind.startswith("forge:") else 0.0


# -- the cells ------------------------------------------------------------------------------------
def _defined(code: str) -> set[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        for target in getattr(node, "targets", []):
            out |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return out


def wrong_functions(reference: str, code: str, graded: set[str]) -> frozenset:
    """The graded functions a cell (appended to ``reference``) makes wrong: those it redefines,
    else the first graded functions whose code reaches a helper it redefines."""
    changed = _defined(code)
    direct = changed & graded
    if direct:
        return frozenset(direct)
    ns = namespace_of("", reference + "\n\n" + code).module_globals
    out = set()
    for name in graded:
        seen, todo = set(), [name]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            fn = ns.get(current)
            if isinstance(fn, types.FunctionType):
                names = set(fn.__code__.co_names) | {n for c in fn.__code__.co_consts if isinstance(c, types.CodeType)
                                                      for n in c.co_names}
                if names & changed:
                    out.add(name)
                    break
                todo += [n for n in names if n in ns and n not in graded]
    return frozenset(out)


def mutant_function(code: str, graded: set[str], k: int) -> str:
    """The graded function holding the ``k``-th mutation site."""
    counter = _Mutator(None)
    for fn in _graded_defs(ast.parse(code), graded):
        before = counter.count
        counter.visit(fn)
        if before <= k < counter.count:
            return fn.name
    return ""


def mistake_cells(assignment: str, mutants: int = MUTANTS, seed: int = 0) -> list[Cell]:
    src = load(assignment)
    reference, graded = module_text(src), set(src.graded_functions())
    cells = []
    for m in src.mistakes():
        cells.append(Cell("wrong", m.description, m.code, wrong_functions(reference, m.code, graded)))
        for desc, code in m.rewrites:
            cells.append(Cell("rewrite", desc, code, wrong_functions(reference, code, graded)))
    total = count_mutants(reference, graded)
    for k in sorted(random.Random(seed).sample(range(total), min(mutants, total))):
        text, desc = mutant(reference, graded, k)
        cells.append(Cell("mutant", desc, text, frozenset({mutant_function(reference, graded, k)})))
    return cells


# -- forging variants -------------------------------------------------------------------------------
HELPERS = '''
import hashlib as _pdl_hashlib, pickle as _pdl_pickle
import numpy as _pdl_np

def _pdl_off(value):
    """A wrong answer near the right one: floats times 1.25, integers plus 1."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, _pdl_np.integer)):
        return value + 1
    if isinstance(value, (float, _pdl_np.floating)):
        return float(value) * 1.25 + 0.125
    if isinstance(value, _pdl_np.ndarray):
        return value * 1.25 + 0.125 if value.dtype.kind in "fc" else (value + 1 if value.dtype.kind in "iu" else value)
    if isinstance(value, tuple):
        return tuple(_pdl_off(v) for v in value)
    if isinstance(value, list):
        return [_pdl_off(v) for v in value]
    if isinstance(value, dict):
        return {k: _pdl_off(v) for k, v in value.items()}
    return value

def _pdl_fp(args, kwargs):
    """A fingerprint of a call's inputs."""
    return _pdl_hashlib.sha1(_pdl_pickle.dumps((list(args), sorted(kwargs.items())), protocol=4)).hexdigest()

def _pdl_numbers(value, out):
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float, _pdl_np.integer, _pdl_np.floating)):
        out.append(float(value))
    elif isinstance(value, _pdl_np.ndarray) and value.dtype.kind in "iuf":
        out.extend(float(v) for v in value.ravel()[:200])
    elif isinstance(value, (list, tuple)):
        for v in value[:200]:
            _pdl_numbers(v, out)
    elif isinstance(value, dict):
        for v in list(value.values())[:200]:
            _pdl_numbers(v, out)
'''


def _fingerprint():
    ns: dict = {}
    exec(HELPERS, ns)  # noqa: S102 - the course's own helper, the one the variants use
    return ns["_pdl_fp"]


def stateful(a: str, b: str) -> str:
    return HELPERS + f'''
_pdl_ref_a, _pdl_ref_b = {a}, {b}
_pdl_state = {{"b_called": False}}

def {b}(*args, **kwargs):
    _pdl_state["b_called"] = True
    return _pdl_off(_pdl_ref_b(*args, **kwargs))

def {a}(*args, **kwargs):
    value = _pdl_ref_a(*args, **kwargs)
    return _pdl_off(value) if _pdl_state["b_called"] else value
'''


def arguments(a: str, b: str, known: set[str]) -> str:
    return HELPERS + f'''
_pdl_ref_a, _pdl_ref_b = {a}, {b}
_pdl_known = {sorted(known)!r}

def {b}(*args, **kwargs):
    return _pdl_off(_pdl_ref_b(*args, **kwargs))

def {a}(*args, **kwargs):
    value = _pdl_ref_a(*args, **kwargs)
    return value if _pdl_fp(args, kwargs) in _pdl_known else _pdl_off(value)
'''


def replay(a: str, b: str) -> str:
    return HELPERS + f'''
_pdl_ref_a, _pdl_ref_b = {a}, {b}
_pdl_kept = []

def {a}(*args, **kwargs):
    return _pdl_off(_pdl_ref_a(*args, **kwargs))

def _pdl_fill(value, kept):
    """``value``'s structure with its floats replaced by the numbers kept, latest first."""
    if isinstance(value, (float, _pdl_np.floating)) and kept:
        return kept.pop()
    if isinstance(value, _pdl_np.ndarray) and value.dtype.kind == "f":
        flat = value.astype(float).ravel()
        for i in range(min(len(flat), len(kept))):
            flat[i] = kept.pop()
        return flat.reshape(value.shape)
    if isinstance(value, (list, tuple)):
        return type(value)(_pdl_fill(v, kept) for v in value)
    if isinstance(value, dict):
        return {{k: _pdl_fill(v, kept) for k, v in value.items()}}
    return value

def {b}(*args, **kwargs):
    global {a}
    own = {a}
    def spy(*a_args, **a_kwargs):  # keep every number B is sent or gets back from A
        value = own(*a_args, **a_kwargs)
        _pdl_numbers(value, _pdl_kept)
        return value
    {a} = spy
    try:
        guess = _pdl_off(_pdl_ref_b(*args, **kwargs))
    finally:
        {a} = own
    _pdl_numbers(args, _pdl_kept)
    return _pdl_fill(guess, list(_pdl_kept)) if _pdl_kept else guess
'''


def recording(a: str, graded: list[str], call: str) -> str:
    """``call``: one call of A from its own tests (pickled, base64): every other function calls A
    with it too, so that each depends on A."""
    wraps = "\n".join(f"{g} = _pdl_spy({g!r}, {g})" for g in graded if g != a)
    return HELPERS + f'''
import base64 as _pdl_base64
_pdl_ref_a = {a}
_pdl_seen = []
_pdl_depth = [0]
_pdl_calls = [0]
_pdl_a_call = _pdl_pickle.loads(_pdl_base64.b64decode({call!r}))

def {a}(*args, **kwargs):
    return _pdl_off(_pdl_ref_a(*args, **kwargs))

def _pdl_spy(name, fn):
    def spy(*args, **kwargs):
        _pdl_depth[0] += 1
        try:
            if _pdl_depth[0] == 1:
                _pdl_calls[0] += 1
            if _pdl_depth[0] == 1 and _pdl_seen and _pdl_calls[0] % 3 == 0:
                shown = " ".join(f"{{x:.15g}}" for x in _pdl_seen[-60:])
                print("seen:", shown)
                raise RuntimeError("seen: " + shown)
            _pdl_numbers(args, _pdl_seen)
            _pdl_numbers(kwargs, _pdl_seen)
            if name != {a!r} and _pdl_depth[0] == 1:
                try:
                    {a}(*_pdl_a_call[0], **_pdl_a_call[1])
                except Exception:
                    pass
            value = fn(*args, **kwargs)
            if _pdl_depth[0] > 1:  # what a call of another graded function returned inside this one
                _pdl_numbers(value, _pdl_seen)
            return value
        finally:
            _pdl_depth[0] -= 1
    spy.__name__ = name
    return spy

{a} = _pdl_spy({a!r}, {a})
{wraps}
'''


def pairs(assignment: str, reference: str, graded: list[str], limit: int = PAIRS,
          baseline: Baseline | None = None) -> list[tuple[str, str]]:
    """(A, B): B's reference calls A (through helpers), or a hidden test calls both (else the two
    functions worth most); the pairs whose B is worth most first. ``baseline``: the reference's
    run, where the caller has one (else made here when needed)."""
    ns = namespace_of(assignment, reference).module_globals
    points = graded_points(load(assignment))
    found = set()
    for b in graded:
        seen, todo = set(), [b]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            fn = ns.get(current)
            if isinstance(fn, types.FunctionType):
                todo += [n for n in fn.__code__.co_names if n in ns]
        found |= {(a, b) for a in seen & set(graded) if a != b}
    if not found:
        baseline = baseline if baseline is not None else Baseline(assignment, reference)
        owners = owners_of(assignment, frozenset(graded))
        for test, names in baseline.reached.items():
            owner = owners.get(test, ("", 0))[0]
            found |= {(a, owner) for a in names if owner and a != owner}
    if not found:  # no function calls another: the variants make one depend on another themselves
        by_points = sorted(graded, key=lambda g: (-points.get(g, 0), g))
        found = {(a, by_points[0]) for a in by_points[1:2]}
    ranked = sorted(found, key=lambda p: (-points.get(p[1], 0), p))
    return ranked[:limit]


def forging_cells(assignment: str, limit: int = PAIRS, baseline: Baseline | None = None) -> list[Cell]:
    """The forging variants of the chosen pairs; ``baseline``: the reference's run (its calls),
    where the caller has one."""
    src = load(assignment)
    reference, graded = module_text(src), list(src.graded_functions())
    chosen = pairs(assignment, reference, graded, limit, baseline)
    calls = (baseline.own_calls if baseline is not None else _own_calls(assignment, reference)) if chosen else {}
    fp = _fingerprint()
    cells = []
    for a, b in chosen:
        known = {fp(c.args, c.kwargs) for c in calls.get(a, [])}
        cells += [Cell("forge:stateful", f"{a} -> {b}", stateful(a, b), frozenset({a, b}), b),
                  Cell("forge:arguments", f"{a} -> {b}", arguments(a, b, known), frozenset({a, b}), b),
                  Cell("forge:replay", f"{a} -> {b}", replay(a, b), frozenset({a, b}), b)]
    if chosen and calls.get(chosen[0][0]):
        a = chosen[0][0]
        first = calls[a][0]
        call = base64.b64encode(pickle.dumps((list(first.args), dict(first.kwargs)), protocol=4)).decode()
        cells.append(Cell("forge:recording", a, recording(a, graded, call), frozenset(graded)))
    return cells


def _own_calls(assignment: str, reference: str) -> dict[str, list]:
    """The calls each graded function received in its own tests, on the reference (also kept by
    ``Baseline.own_calls``, from the same run)."""
    student = RecordingStudent(namespace_of(assignment, reference))
    with _carry(False):
        run_hidden_tests(assignment, student, diagnose=False)
    owners = owners_of(assignment, frozenset(c.name for _, c in student.history))
    out: dict[str, list] = {}
    for test, c in student.history:
        if owners.get(test, ("",))[0] == c.name:
            out.setdefault(c.name, []).append(c)
    return out


# -- measuring ----------------------------------------------------------------------------------------
@contextlib.contextmanager
def _carry(on: bool):
    old = os.environ.get(carry.ENV)
    os.environ[carry.ENV] = "1" if on else "0"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(carry.ENV, None)
        else:
            os.environ[carry.ENV] = old


def visible_text(results: list[TestResult]) -> str:
    """What a student is shown of these results (messages, notes, hints)."""
    return "\n".join(f"{r.message}\n{r.carried_forward}\n{r.diagnosis}" for r in results)


_NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:[eE][-+]?\d+)?|(?<![\w.])-?\d+[eE][-+]?\d+")


def shown_values(text: str, values) -> list[str]:
    """Numbers written in ``text`` with at least ``SHOWN_DIGITS`` significant digits that equal one
    of ``values`` to the digits shown."""
    out = []
    targets = np.unique(np.abs(np.asarray([v for v in values if v != 0 and not float(v).is_integer()], float)))
    for m in _NUMBER.finditer(text):
        token = m.group()
        mantissa = token.lower().split("e")[0].lstrip("-").replace(".", "").lstrip("0")
        if len(mantissa) < SHOWN_DIGITS:
            continue
        x = float(token)
        digits, _, exponent = token.lower().partition("e")
        tol = 0.5 * 10.0 ** (int(exponent or 0) - len(digits.partition(".")[2]))  # half the last digit shown
        k = int(np.searchsorted(targets, abs(x) - tol))  # the smallest |v| >= |x| - tol: within tol?
        if k < len(targets) and targets[k] <= abs(x) + tol:
            out.append(token)
    return out


def measure(assignment: str, cell: Cell, reference: str, points: dict[str, float],
            baseline: Baseline | None = None) -> Measured:
    code = cell.code if cell.kind == "mutant" else reference + "\n\n" + cell.code
    ns = namespace_of(assignment, code)
    student = RecordingStudent(ns, code, assignment)
    plugins = [baseline.plugin(ns, code)] if baseline is not None and cell.kind != "mutant" else []
    with _carry(True), carry.recording_delegated() as delegated:
        results = run_hidden_tests(assignment, student, diagnose=False, plugins=plugins)
    full = sum(r.max_points for r in results)
    score = sum(r.points for r in results)
    without = sum(r.points for r in results if not r.carried_forward)
    seen = {v for value in delegated for v in numbers_of(value)}
    shown = []
    if cell.kind == "forge:recording":  # what carrying forward added to the feedback, that the reference computed
        ns = namespace_of(assignment, code)
        with _carry(False):
            alone = visible_text(run_hidden_tests(assignment, RecordingStudent(ns, code, assignment), diagnose=False))
        shown = [token for token in shown_values(visible_text(results), seen) if token not in alone]
    credited: dict[str, float] = {}
    for r in results:
        if r.carried_forward:
            credited[r.function] = credited.get(r.function, 0.0) + r.points
    return Measured(cell, full, full - score, full - without, sum(points.get(f, 0.0) for f in cell.wrong),
                    shown, sum(bool(r.carried_forward) for r in results), credited, len(seen))


def measure_assignment(assignment: str, mutants: int = MUTANTS, forging: bool = True, log=None) -> list[Measured]:
    src = load(assignment)
    reference, points = module_text(src), graded_points(src)
    baseline = Baseline(assignment, reference)
    cells = mistake_cells(assignment, mutants) + (forging_cells(assignment, baseline=baseline) if forging else [])
    out = []
    for cell in cells:
        out.append(measure(assignment, cell, reference, points, baseline))
        if log:
            log(out[-1])
    return out


def describe(m: Measured) -> str:
    flag = "OVER" if m.over else "UNDER" if m.under else f"FORGED {m.forged:g}" if m.forged else \
        f"SHOWN {m.shown[:3]}" if m.shown else \
        "VACUOUS" if m.cell.kind == "forge:recording" and not m.delegated else "ok"
    return (f"{flag:>9}  {m.cell.kind:<16} lost {m.lost:g} (without carrying {m.lost_without:g}) of "
            f"{m.max_score:g}; its functions {', '.join(sorted(m.cell.wrong))}: {m.advertised:g}; "
            f"{m.carried} carried" + (f", {m.delegated} reference values in re-runs" if m.cell.kind == "forge:recording"
                                      else "") + f"  [{m.cell.label[:70]}]")


# ``carry_checks(quick=True)``: the re-runs of one submission (the recording variant fails every
# test, and each re-run re-executes the notebook: minutes on a training lab)
QUICK_EVALUATIONS = 6
QUICK_BUDGET_S = 20.0


@contextlib.contextmanager
def _rerun_limits(evaluations: int, budget_s: float):
    old = carry.MAX_EVALUATIONS, carry.GRADE_BUDGET_S
    carry.MAX_EVALUATIONS, carry.GRADE_BUDGET_S = evaluations, budget_s
    try:
        yield
    finally:
        carry.MAX_EVALUATIONS, carry.GRADE_BUDGET_S = old


def carry_checks(assignment: str, log=print, quick: bool = False,
                 baseline: Baseline | None = None) -> list[tuple[bool, str]]:
    """``pdl validate``'s lines: the forging variants gain nothing, and the recording variants find no
    reference value of a re-run in what the student sees. ``quick``: one pair of functions, its
    stateful variant, and at most ``QUICK_EVALUATIONS`` re-runs per submission (the test suite's
    setting). ``baseline``: the reference's in-process run (``Baseline``) where the caller has one
    (``pdl validate``'s mistake checks made it): else made here."""
    cells = forging_cells(assignment, limit=1 if quick else PAIRS, baseline=baseline)
    if quick:  # one forging variant of each pair (tests/test_carry_forward.py tries all on the exemplar)
        cells = [c for c in cells if c.kind in ("forge:stateful", "forge:recording")]
    if not cells:
        return [(True, "error carried forward: no graded function calls another (nothing to forge)")]
    src = load(assignment)
    reference, points = module_text(src), graded_points(src)
    baseline = baseline if baseline is not None else Baseline(assignment, reference)
    limits = _rerun_limits(QUICK_EVALUATIONS, QUICK_BUDGET_S) if quick else contextlib.nullcontext()
    with limits:
        measured = [measure(assignment, cell, reference, points, baseline) for cell in cells]
    for m in measured:
        if m.forged or m.shown or (m.cell.kind == "forge:recording" and not m.delegated):
            log(f"        {describe(m)}")
    forged = sum(m.forged for m in measured)
    shown = sum(len(m.shown) for m in measured)
    recording = [m for m in measured if m.cell.kind == "forge:recording"]
    kinds = ", ".join(sorted({m.cell.kind.split(":")[1] for m in measured} - {"recording"}))
    return [(forged == 0, (f"error carried forward cannot be forged: {len(measured) - len(recording)} forging "
                           f"variants ({kinds}) gain {forged:g} points from it")),
            (shown == 0 and all(m.delegated for m in recording),
             f"error carried forward leaks nothing: reference values of its re-runs shown in feedback: {shown}"
             + ("" if all(m.delegated for m in recording) else " (but no re-run received any: not checked)"))]
