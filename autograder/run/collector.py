"""The pytest plugin that grades (``Collector``): it hands the hidden tests the student
(``student.GradedStudent``), turns each test's outcome into a ``TestResult`` with the clues of
whose fault a failure is and its diagnoses, carries errors forward on fresh copies of the notebook
(``run/carry.py``) once every test has run, and then decides each failing test's fault."""

from __future__ import annotations

import contextlib
import gc
import importlib
import time

import pytest

from autograder.run import carry, diagnose, redact, shown
from autograder.run.diagnosis import Diagnosis
from autograder.run.ledger import holds
from autograder.run.notebook import graded_functions, load_release
from autograder.run.owners import owners_of
from autograder.run.record import STUDENT_ERROR_KINDS, Clues, Kind, TestResult, decide
from autograder.run.student import GradedStudent
from autograder.run.testing import SEEDED, StudentError, observing, points_of, statistical


def _describe(item) -> str:
    doc = (getattr(item.function, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else item.name


def _reason(excinfo) -> tuple[str, str]:
    """(message for the student, detail for the TA) from a failed test's exception."""
    exc = excinfo.value
    detail = f"{type(exc).__name__}: {exc}"[:2000]
    if isinstance(exc, StudentError):
        return str(exc), detail
    if isinstance(exc, AssertionError):
        first = (str(exc).strip().splitlines() or [""])[0]
        if first and not first.startswith("assert "):
            return first, detail
        return "the result does not match the expected behaviour", detail
    return "your function returned data of an unexpected type or shape", detail


class Collector:
    """The pytest plugin that grades: each hidden test's outcome as a ``TestResult`` (streamed as
    soon as it is known), its diagnoses, and, once every test has run, the errors carried forward and
    the fault of each failing test decided for good."""

    def __init__(self, student: GradedStudent, assignment: str = "", diagnose: bool = False, stream=None, carry=False):
        self.student = student
        self.stream = stream  # sends each result (and the list of tests) as soon as it is known
        self.results: list[TestResult] = []
        self.collect_errors: list[str] = []
        self.assignment = assignment
        # the diagnosis needs the answers the student gave: a proxy that records them
        self.ledger = student.ledger
        self.diagnose = diagnose and self.ledger is not None
        self._tolerances: list = []
        self._failed_actual = None  # the answer whose comparison failed in this test
        self._failed: shown.Shown | None = None  # that comparison, for after publication (run/shown.py)
        self._found: list = []  # known mistakes matched so far in this submission
        self._spent = 0.0       # seconds of diagnosis so far in this submission
        self._trace = self.ledger.trace if self.ledger is not None else None  # for charging a failure
        # error carried forward (autograder/run/carry.py): re-runs on fresh copies of the notebook
        self.carry = carry and student.can_copy
        self._failures: list[carry.Failure] = []
        self._graded: frozenset[str] = frozenset()
        self._owners: dict[str, tuple[str, float]] = {}
        self._reaches: dict[str, frozenset | None] = {}  # what the student's functions call (her code)
        # each failing test: what it showed of whose fault it is, and its diagnoses (``_decide``)
        self._evidence: dict[str, tuple[Clues, tuple[Diagnosis, ...]]] = {}

    def pytest_configure(self, config):
        config.pdl_student = self.student
        # the failure text comes from _reason: pytest need not render source and locals (its
        # --tb option belongs to the terminal plugin, which is off)
        config.option.tbstyle = "native"

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append(str(report.longrepr)[-2000:])

    def pytest_collection_finish(self, session):
        try:
            self._graded = (frozenset(graded_functions(load_release(self.assignment))) if self.assignment
                            else frozenset())
            self._owners = owners_of(self.assignment, self._graded)
        except (OSError, ValueError, SyntaxError):  # no release or tests to read: nothing is attributed
            self._graded, self._owners = frozenset(), {}
        if self.stream:
            self.stream({"collected": [[item.name, points_of(item.function), _describe(item)]
                                       for item in session.items]})

    def _observe(self, actual, expected, rtol, atol, held):
        try:
            self._tolerances.append((float(rtol), float(atol)))
        except (TypeError, ValueError):
            pass
        if not held:  # the comparison that failed last ended the test
            self._failed_actual = actual
            self._failed = self._shown(actual, expected, rtol, atol)

    def _shown(self, actual, expected, rtol, atol) -> shown.Shown | None:
        """The failed comparison as a student reads it after publication: her value, the call of
        this test that returned it, the expected value (``run/shown.py``); None without a ledger."""
        if self.ledger is None:
            return None
        try:
            return shown.shown(actual, expected, float(rtol), float(atol), self.ledger.call_log, holds)
        except Exception:  # noqa: BLE001 - feedback is a bonus; never lose a grade to it
            return None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        """Keep only this test's calls in the log, and note the tolerances it compares with."""
        if self.ledger is not None:
            self.ledger.new_test()  # with or without a diagnosis: nothing of a test outlives it
        self._tolerances, self._failed_actual, self._failed = [], None, None
        try:
            with observing(self._observe):
                yield
        finally:
            self._free_large_answers()

    def _free_large_answers(self):
        """A failed test's traceback keeps the student's answers in reference cycles until the
        collector runs: after a large answer, run it now, so one answer is held at a time."""
        if self.ledger is not None and self.ledger.large_answers:
            self.ledger.large_answers = False
            gc.collect()

    def _diagnosis(self, excinfo) -> tuple[list[Diagnosis], str]:
        """(diagnoses, note for the TA) of a failed test; only for wrong answers, not for a
        function that could not answer (its message says why)."""
        if not self.diagnose or excinfo is None:
            return [], ""
        if isinstance(excinfo.value, StudentError):  # it could not answer: only a crash on arrays is told
            return self._crash_diagnosis(excinfo.value), ""

        left = diagnose.GRADE_BUDGET_S - self._spent
        if left <= 0:
            return [], "\n(no diagnosis: the time for diagnoses of this submission is spent)"
        start = time.process_time()  # CPU: the same diagnoses at any load
        try:
            assert self.ledger is not None  # self.diagnose says so
            return diagnose.diagnose(self.assignment, list(self.ledger.call_log), self._tolerances,
                                     budget_s=min(diagnose.TEST_BUDGET_S, left), found=self._found,
                                     reach=self._reach), ""
        except Exception as exc:  # noqa: BLE001 - feedback is a bonus; never lose a grade to it
            return [], f"\n(no diagnosis: {type(exc).__name__}: {exc})"[:500]
        finally:
            self._spent += time.process_time() - start
            if self.ledger is not None:
                self.ledger.call_log.clear()

    def _reach(self, name: str) -> frozenset | None:
        """The graded functions the student's ``name`` can call, read from her code
        (``carry.student_reach``; None where unknown): a wrong answer is blamed on the function it
        comes from, through her calls as well as the reference's."""
        if name not in self._reaches:
            sources = self.student.sources()
            self._reaches[name] = carry.student_reach(sources, {name}, self._graded) if sources else None
        return self._reaches[name]

    def _crash_diagnosis(self, exc: StudentError) -> list[Diagnosis]:
        """"Works for single numbers, fails for arrays" for a function that raised on a call with
        array inputs (``diagnose.arrays_only``: its answers at single entries tried), within the
        submission's budget for diagnoses; [] otherwise."""
        ledger = self.ledger
        raised = [r for r in (ledger.raised if ledger is not None else []) if r[0] == exc.function]
        if exc.kind != "error" or not raised or diagnose.GRADE_BUDGET_S - self._spent <= 0:
            return []
        if getattr(exc, "origin", "") in self._graded - {exc.function}:
            return []  # it raised in another graded function it calls: that one fails on arrays, not this one
        start = time.process_time()
        try:
            return diagnose.arrays_only(self.assignment, self.student, raised[-1], self._tolerances)
        except Exception:  # noqa: BLE001 - feedback is a bonus; never lose a grade to it
            return []
        finally:
            self._spent += time.process_time() - start
            if ledger is not None:
                ledger.call_log.clear()
                ledger.raised.clear()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        rep = outcome.get_result()
        if rep.when == "call" or (rep.when == "setup" and not rep.passed):
            pts = points_of(item.function)
            desc = _describe(item)
            owner = self._owners.get(item.name, ("", pts))[0]
            secrets = redact.secrets_of(self.ledger, self._failed)  # before the diagnosis clears the ledger
            if rep.passed:
                self.results.append(TestResult(item.name, pts, pts, True, desc, function=owner, kind=Kind.PASS,
                                               secrets=secrets))
            else:
                exc = call.excinfo.value if call.excinfo else None
                msg, detail = _reason(call.excinfo) if call.excinfo else ("skipped", "")
                clues = carry.clues_of(exc, self._trace, self._failed_actual, self._graded, owner)
                diagnoses, note = self._diagnosis(call.excinfo) if rep.when == "call" else ([], "")
                self._evidence[item.name] = (clues, tuple(diagnoses))
                error = exc.kind if isinstance(exc, StudentError) else ""
                kind = STUDENT_ERROR_KINDS.get(error, Kind.STUDENT_ERROR) if error else Kind.FAIL
                if rep.when == "call" and not error and statistical(desc):  # a wrong answer, not bad luck
                    msg = f"{msg} {SEEDED}"
                # the fault as the test alone shows it (what a grader stopped before carrying
                # forward reports); decided for good once carrying forward is over (``_decide``)
                fault = decide(clues, (), diagnoses)
                self.results.append(TestResult(item.name, 0.0, pts, False, f"{desc}: {msg}", detail + note,
                                               function=owner, kind=kind, error=error,
                                               shown=self._failed if kind is Kind.FAIL else None, fault=fault,
                                               secrets=secrets))
                if self.carry and rep.when == "call" and owner:
                    self._failures.append(self._failure(item, exc, owner, fault.function, pts))
            if self.stream:
                self.stream({"test": self.results[-1].to_dict()})

    def _failure(self, item, exc, owner: str, culprit: str, pts: float) -> carry.Failure:
        kind = exc.kind if isinstance(exc, StudentError) else ""
        called = set(self._trace.called) if self._trace is not None else set()
        sources = self.student.sources()
        return carry.Failure(
            test=item.name, owner=owner, culprit=culprit, points=pts, run=item.obj,
            reaches=carry.student_reach(sources, called | {owner}, self._graded) if sources else None,
            hopeless=(kind in ("missing", "invalid_notebook", "refused")
                      or (kind == "not_implemented" and culprit == owner)))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtestloop(self, session):
        outcome = yield
        if outcome.excinfo is None:
            self._decide(self._carry_forward() if self.carry and self._failures else {})

    def _decide(self, credited: dict[str, list[str]]) -> None:
        """Each failing test's fault, decided once every direct test has run and carrying forward
        is over (``record.decide``), from what the test showed and the credits (``credited``:
        test -> the functions it is credited from); a credited test keeps its points."""
        for result in self.results:
            if result.passed or result.name not in self._evidence:
                continue
            clues, diagnoses = self._evidence[result.name]
            fault = decide(clues, credited.get(result.name, ()), diagnoses)
            if fault == result.fault:
                continue
            result.fault = fault
            if fault.credited:
                result.points, result.carried_forward = result.max_points, carry.note(fault.carried_from)
                result.kind = Kind.CARRIED
            if self.stream:
                self.stream({"test": result.to_dict()})

    def _carry_forward(self) -> dict[str, list[str]]:
        """After every direct test: the failures that follow from a mistake charged elsewhere
        (``autograder.run.carry``), each decided on fresh copies of the notebook: test -> the
        functions it is credited from."""
        self.student.close()  # the direct tests' process ends before any copy starts
        reference = importlib.import_module(f"solutions.{self.assignment}")
        with contextlib.ExitStack() as warm_copies:
            started: list = []  # where the copies come from (the sandbox's held template), entered once

            def evaluate(failure, substitute):
                if not started:  # the sandbox's copies are forked warm
                    started.append(warm_copies.enter_context(self.student.copies_from(self.assignment)))
                return carry.rerun(failure, self.student.fresh_copy, reference, substitute, carry.TEST_LIMIT_S)
            try:
                return carry.decide(self._failures, evaluate)
            except Exception:  # noqa: BLE001 - a credit that cannot be established is not given
                return {}
