"""Course code graded in-process: ``wrong``, ``rewrite``, ``alternative`` cells and mutants.

These variants are the course's own code, not students', so they are graded here (``LocalStudent``:
the same plain-data conversion and the same hidden tests as ``pdl grade``) with a per-call time
limit, which makes a run of dozens of variants fast (``pdl validate``, ``autograder.course.mutate``).
"""

from __future__ import annotations

import ast
import contextlib
import os
import types

import numpy as np
import pytest

from autograder.course.refinputs import call_key
from autograder.run import refmemo
from autograder.run.carry import plain
from autograder.run.diagnose.catalogue import _FAILED, Call, catalogue
from autograder.run.diagnose.leaks import numbers_of
from autograder.run.grading import run_hidden_tests
from autograder.run.ledger import Ledger
from autograder.run.owners import owners_of
from autograder.run.record import TestResult
from autograder.run.testing import LocalStudent, StudentError
from autograder.run.timelimit import time_limit

CALL_LIMIT_S = 20


class _CallTimeout(Exception):
    pass


def _alarm(seconds: float):
    """A time limit for course code: ``seconds`` of CPU time, the wall clock an outer bound, so
    that a busy host does not fail a correct variant; an outer limit already running (a re-run's,
    ``carry.rerun``) is kept: it still fires, at the latest right after this one ends."""
    return time_limit(seconds, _CallTimeout)


class TimedNamespace(dict):
    """A namespace whose functions give up after CALL_LIMIT_S (a mutant may loop forever)."""

    def get(self, key, default=None):
        fn = super().get(key, default)
        if not callable(fn):
            return fn

        def timed(*args, **kwargs):
            with _alarm(CALL_LIMIT_S):
                return fn(*args, **kwargs)
        return timed


def namespace_of(assignment: str, code: str) -> TimedNamespace:
    """The functions ``code`` defines, each under the time limit."""
    ns: dict = {"__name__": f"pdl_variant_{assignment}"}
    try:
        with _alarm(CALL_LIMIT_S * 3):
            exec(compile(code, f"<variant of {assignment}>", "exec"), ns)  # noqa: S102 - course code
    except Exception:  # noqa: BLE001 - a mutant may fail at import; it then scores as defined so far
        pass
    timed = TimedNamespace(ns)
    timed.module_globals = ns  # what the functions look names up in (a re-run carrying an error replaces some)
    return timed


def score_code(assignment: str, code: str, baseline: Baseline | None = None) -> tuple[float, float]:
    """(score, max score) of the hidden tests against functions defined by ``code``; with a
    ``baseline``, the tests that reach nothing ``code`` changed keep the baseline's pass unrun."""
    ns = namespace_of(assignment, code)
    plugins = [baseline.plugin(ns, code)] if baseline is not None else []
    results = run_hidden_tests(assignment, RecordingStudent(ns, code, assignment), diagnose=False, plugins=plugins)
    return sum(r.points for r in results), sum(r.max_points for r in results)


def _current_test() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[-1].split(" ")[0]


# What lets a function reach module globals that its code does not name.
_DYNAMIC = frozenset({"globals", "vars", "locals", "eval", "exec", "__import__", "__dict__", "sys"})


def _same(a, b) -> bool:
    """Whether two globals of the same name behave the same: the same object, equal plain data
    (numbers, strings, arrays and their containers), or functions with the same code, defaults and
    no closure."""
    if a is b:
        return True
    if isinstance(a, types.FunctionType) and isinstance(b, types.FunctionType):
        return (a.__code__ == b.__code__ and a.__closure__ is None and b.__closure__ is None
                and _same(a.__defaults__, b.__defaults__) and _same(a.__kwdefaults__, b.__kwdefaults__))
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):  # a grid the module computes as it loads, the same each time
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return isinstance(a, (int, float, complex, str, bytes, bool, type(None))) and a == b


def _only_definitions(code: str) -> bool:
    """Whether running ``code`` only defines names (functions, classes, imports, assignments to
    names): no statement of it can change a library's state that the baseline's functions share."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            continue
        targets = (node.targets if isinstance(node, ast.Assign) else [node.target]
                   if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else None)
        if targets is not None and all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Starred, ast.Store))
                                       for x in targets for n in ast.walk(x)):  # names, unpacked or not
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):  # a docstring
            continue
        return False
    return True


def _names_of(code: types.CodeType) -> set[str]:
    """Global (and attribute) names a code object and the code nested in it use."""
    out = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out |= _names_of(const)
    return out


def _reach(ns: dict, name: str) -> set[str] | None:
    """The module globals that calling ``ns[name]`` can reach: the names its code uses, through
    the module's own functions; None where a function may look names up at run time."""
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        fn = dict.get(ns, current)
        if isinstance(fn, types.FunctionType):
            names = _names_of(fn.__code__)
            if names & _DYNAMIC:
                return None
            todo += [n for n in names if n in ns]
    return seen


class Baseline:
    """The reference graded once in-process, for many variants that each change a few of its
    functions (``wrong``, ``rewrite`` and ``alternative`` cells after the reference, mutants of
    it): which of the student's functions each hidden test reached, and which tests passed. A
    variant whose changes none of a test's functions can reach (through the module's globals)
    calls the same code on the same inputs, so that test keeps the reference's pass without
    running (``plugin``). A test whose inputs or streams depend on earlier tests' calls is, by the
    false-fail budgets, as likely to pass after fewer of them.

    The same run records ``own_calls``: the calls each graded function received in the tests that
    count for it (``owners_of``), what ``carry_quality`` builds its forging variants from; one
    baseline serves ``pdl validate``'s mistake checks and its error-carried-forward checks (each
    built its own, and the forging variants ran the hidden tests on the reference once more)."""

    def __init__(self, assignment: str, code: str, fill_memo: bool = False):
        self.ns = namespace_of(assignment, code)
        self.reached: dict[str, set[str]] = {}
        # the arguments of each call, test by test, as ``refinputs`` compares them (its run of the
        # reference as it is: ``reference_dependent_tests(..., plain=baseline.call_keys)``)
        self.call_keys: dict[str, list[str]] = {}
        history: list[tuple[str, Call]] = []
        baseline = self

        class Reaching(LocalStudent):
            def __getattr__(self, name):
                if not name.startswith("_"):
                    baseline.reached.setdefault(_current_test(), set()).add(name)
                call = super().__getattr__(name)

                def recorded(*args, **kwargs):
                    baseline.call_keys.setdefault(_current_test(), []).append(call_key(name, args, kwargs))
                    value = call(*args, **kwargs)
                    history.append((_current_test(), Call(name, args, kwargs, value)))
                    return value
                return recorded

        ran: list = []

        def run(assignment_, _student=None, diagnose=False):
            ran.append(run_hidden_tests(assignment_, Reaching(self.ns), diagnose=False))
            return ran[-1]
        if fill_memo:  # this run keeps the reference's answers to the tests' own calls too (``refmemo``)
            refmemo.fill(assignment, run)
        results = ran[-1] if ran else run(assignment)
        self.passed = {r.name for r in results if r.passed}
        self.max_score = sum(r.max_points for r in results)
        owners = owners_of(assignment, frozenset(c.name for _, c in history))
        self.own_calls: dict[str, list[Call]] = {}
        for test, c in history:
            if owners.get(test, ("",))[0] == c.name:
                self.own_calls.setdefault(c.name, []).append(c)

    def unaffected(self, ns: dict, code: str) -> set[str]:
        """The tests that passed here and reach nothing that the variant ``code`` (run into
        ``ns``) defines differently; none where ``code`` does more than define names."""
        if not _only_definitions(code):
            return set()
        changed = {k for k in set(ns) | set(self.ns)
                   if k not in ns or k not in self.ns or not _same(dict.get(ns, k), dict.get(self.ns, k))}
        # each student function once: whether calling it can reach a change (or may, at run time)
        affected = {name: (found := _reach(ns, name)) is None or bool(found & changed)
                    for names in self.reached.values() for name in names}
        return {test for test in self.passed if not any(affected[n] for n in self.reached.get(test, ()))}

    def plugin(self, ns: dict, code: str):
        """A pytest plugin for the variant ``code`` (run into ``ns``): its unaffected tests pass unrun."""
        skip = self.unaffected(ns, code)

        class Unaffected:
            @staticmethod
            def pytest_collection_modifyitems(items):
                for item in items:
                    if item.name in skip:
                        item.runtest = lambda: None  # the reference's pass: nothing it reaches differs
        return Unaffected()


class RecordingStudent(LocalStudent):
    """In-process student (course code: wrong, rewrite and alternative cells) that records its
    answers like the sandbox proxy does, so the same diagnosis runs on it. ``history`` keeps
    every call with the test it belongs to; its ``ledger`` is the grader's per-test slice.
    ``code``: what defined the namespace, run again for each fresh copy that error carried
    forward needs (``autograder.run.carry``); without it nothing is carried forward."""

    def __init__(self, namespace: dict, code: str | None = None, assignment: str = ""):
        super().__init__(namespace)
        self.ledger: Ledger = Ledger()
        self.history: list = []
        self._code, self._assignment = code, assignment

    def __getattr__(self, name):
        ledger = self.ledger
        ledger.trace.call(name)
        call = super().__getattr__(name)

        def recorded(*args, **kwargs):
            ledger.trace.call(name)
            try:
                value = call(*args, **kwargs)
            except StudentError:
                ledger.raised.append((name, args, kwargs))  # for the diagnosis of a crash on arrays
                raise
            ledger.trace.answer(name, value)
            ledger.call_log.append((name, args, kwargs, value))
            self.history.append((_current_test(), Call(name, args, kwargs, value)))
            return value
        return recorded

    def sources(self) -> list[str]:
        return [self._code] if self._code is not None else []

    @property
    def can_copy(self) -> bool:
        return self._code is not None

    @contextlib.contextmanager
    def fresh_copy(self, substitute: frozenset, delegate, limit_s: float):
        """A fresh copy: ``code`` run again into a new namespace, ``substitute`` answered by ``delegate``."""
        assert self._code is not None  # can_copy says so
        ns = namespace_of(self._assignment, self._code)
        for name in substitute:
            def stand_in(*args, _name=name, **kwargs):
                return delegate.answer(_name, *plain(args, kwargs))
            ns.module_globals[name] = ns[name] = stand_in
        yield LocalStudent(ns)


class StopWhen:
    """A pytest plugin that runs no more tests once ``done(result)`` held for a test's result (a
    ``TestResult``, as the grader streams it): the tests after it are not run and not reported."""

    def __init__(self, done):
        self.done, self.stopped = done, False

    def seen(self, message: dict) -> None:
        if "test" in message and not self.stopped:
            self.stopped = bool(self.done(TestResult.from_dict(message["test"])))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        return True if self.stopped else None  # True: handled, nothing run


def grade_code(assignment: str, code: str, baseline: Baseline | None = None, until=None):
    """(results with diagnoses, the recording student) of the hidden tests against the functions
    defined by ``code`` (the reference plus a wrong, rewrite or alternative cell), in-process; with
    a ``baseline`` (``Baseline``), the tests that reach nothing ``code`` changed are not run.
    ``until(result)``: once it holds for a test's result, the later tests are not run (a wrong cell
    is caught and named as soon as one failing test names its hint)."""
    ns = namespace_of(assignment, code)
    student = RecordingStudent(ns, code, assignment)
    plugins: list = [baseline.plugin(ns, code)] if baseline is not None else []
    stop = StopWhen(until) if until is not None else None
    if stop is not None:
        plugins.append(stop)
    results = run_hidden_tests(assignment, student, diagnose=True, plugins=plugins,
                               stream=stop.seen if stop is not None else None)
    return results, student


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
