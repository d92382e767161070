"""Grade one submitted notebook: run it in a sandbox, run the hidden tests here.

The hidden tests (pytest, ``grading_tests/<id>/``) run in this, the grader's, process.
They reach the student's functions only through ``SandboxStudent``, which sends inputs to
the student's process and receives plain data back; the reference and the comparison
never leave this process.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import hashlib
import importlib
import os
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import course_config
from autograder.run import carry, diagnose, messages, packages, protocol, redact, refmemo, shown
from autograder.run.bounded import run_bounded
from autograder.run.channel import Worker, WorkerDied, WorkerTimeout
from autograder.run.diagnose import enabled
from autograder.run.diagnose.catalogue import _FAILED, Call
from autograder.run.diagnose.compare import _leaves
from autograder.run.diagnosis import Diagnosis
from autograder.run.isolation import PROCESS_WARNING, SandboxUnavailable, resolve_isolation
from autograder.run.messages import Op, Status
from autograder.run.notebook import (
    SubmissionError,
    _tagged_cells,
    code_cells,
    graded_functions,
    load_release,
    load_submission,
    read_answers,
    release_questions,
)
from autograder.run.owners import owners_of
from autograder.run.paths import REPO
from autograder.run.record import (
    EVIDENCE_WORDS,
    STUDENT_ERROR_KINDS,
    Answer,
    Check,
    Clues,
    FunctionSubtotal,
    GradeReport,
    Kind,
    TestResult,
    decide,
)
from autograder.run.settings import Limits
from autograder.run.templates import held_template, start_templates, template_lease
from autograder.run.testing import SEEDED, StudentError, observing, points_of, statistical

# cells the grader need not run (plots, public checks, instructor cross-checks)
SKIP_TAGS = {"figure", "check", "solution"}
MAX_RESTARTS = 3  # runs of the notebook after the first, whatever the cause: hangs, crashes, forged answers
MAX_ERRORS = 30   # grader notes kept in one report


class GraderError(RuntimeError):
    """The grader itself is broken (e.g. a hidden test does not import)."""


def assignment_version(assignment: str) -> str:
    """``<year>.<hash of the hidden tests and reference>``: what a grade was computed against.
    The hash is of the code as Python parses it (docstrings, comments and layout left out, see
    ``normalised_code``), so only a change that can change a grade (test code, points, the
    reference's code, the year's parameters) changes the version."""
    paths = [path for folder in ("grading_tests", "solutions")
             for path in sorted((REPO / folder / assignment).glob("*.py"))]
    # parsing the code takes ~0.2 s: kept while the files are unchanged (a cohort's forks inherit it from warm)
    key = (assignment, course_config.SEED, course_config.YEAR,
           tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths))
    if key not in _VERSIONS:
        digest = hashlib.sha256(str(course_config.SEED).encode())
        for path in paths:
            digest.update(normalised_code(path.read_text()).encode())
        _VERSIONS[key] = f"{course_config.YEAR}.{digest.hexdigest()[:10]}"
    return _VERSIONS[key]


_VERSIONS: dict[tuple, str] = {}


def normalised_code(text: str) -> str:
    """``ast.dump`` of the module without docstrings (comments and line numbers are never in it);
    text that does not parse is hashed as it is."""

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


@dataclass
class Ledger:
    """What the grader keeps of one test's calls, held apart from the proxy the tests call (whose
    attributes are the student's functions): the answers, for the diagnosis (``call_log``:
    (name, args, kwargs, value)); the calls, for charging a failure to the function that failed
    (``trace``); what the student's functions returned, by id (kept alive, so no id is reused: an
    input that carries one is never replayed through the reference); whether an answer was large
    (the collector then frees it at once); the calls that raised (``raised``: (name, args, kwargs)),
    for the diagnosis of a function that fails on arrays only."""
    call_log: list = field(default_factory=list)
    raised: list = field(default_factory=list)
    trace: carry.Trace = field(default_factory=carry.Trace)
    returned: dict[int, object] = field(default_factory=dict)
    large_answers: bool = False

    def new_test(self) -> None:
        self.call_log.clear()
        self.raised.clear()
        self.returned.clear()
        self.trace.clear()


def ledger_of(student) -> Ledger | None:
    """A recording proxy's ledger, or None for a plain one (``testing.LocalStudent``). Looked up in
    the instance: any other attribute of a proxy is one of the student's functions."""
    found = vars(student).get("ledger") if hasattr(student, "__dict__") else None
    return found if isinstance(found, Ledger) else None


class SandboxStudent:
    """The student's functions, living in a sandboxed process; restarted after a crash."""

    def __init__(self, files: dict[str, bytes], cells, *, timeout: float, call_timeout: float,
                 memory_mb: int | None, isolation: str | None = None, assignment: str = ""):
        self._files, self._cells = files, list(cells)
        self._assignment = assignment  # whose reference is the contract of a large answer
        self._timeout, self._call_timeout = timeout, call_timeout
        self._memory_mb, self._isolation = memory_mb, isolation
        self._cpu_s = Limits(timeout, call_timeout, memory_mb).cpu_s
        self.refused: SandboxUnavailable | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._early: Worker | None = None  # started by prestart, its notebook run in self._thread
        self._early_outcome: tuple = (None, None, None)
        self._current: Worker | None = None
        self._closed = False
        self._worker: Worker | None = None
        self._bad_cells: set[int] = set()
        self._restarts = 0
        self._fatal = ""
        self._dead: dict[str, tuple[str, str]] = {}
        self.errors: list[str] = []
        self.cell_errors: list[dict] = []
        self.isolation = ""
        self.ledger = Ledger()  # what the grader keeps of this test's calls
        self.notebook_s = 0.0  # how long the notebook's cells took to run
        self._substitute: frozenset = frozenset()  # a fresh copy's functions answered by the grader
        self._delegate = None  # and who answers them (``carry.Delegate.on_event``)
        self._max_restarts = MAX_RESTARTS
        self._spawned: list[Worker] = []  # every process started for it (their CPU time)

    def _start(self) -> Worker:
        with self._lock:
            return self._start_locked()

    def _start_locked(self) -> Worker:
        if self._worker is not None:
            return self._worker
        if self._fatal:
            raise StudentError("crashed", self._fatal)
        while True:
            if self._closed:
                raise StudentError("crashed", "grading of this notebook was stopped")
            if self._restarts > self._max_restarts:
                self._fatal = "the notebook crashed too often; no more attempts"
                self.errors.append(self._fatal)
                raise StudentError("crashed", self._fatal)
            if self._early is not None:  # started by prestart: wait for its thread
                worker, self._early = self._early, None
                assert self._thread is not None  # prestart sets it before _early
                self._thread.join()
                errors, exc, cell = self._early_outcome
            else:
                try:
                    worker = self._current = self._spawn()
                except SandboxUnavailable as exc_:
                    self._refuse(exc_)
                errors, exc, cell = self._attempt(worker, self._runnable())
            self.isolation = worker.isolation
            self.errors += [n for n in worker.notes if n not in self.errors]  # what it could not confine
            if isinstance(exc, SandboxUnavailable):
                worker.close()
                self._refuse(exc)
            if exc is not None and not isinstance(exc, (WorkerTimeout, WorkerDied, protocol.ProtocolError)):
                worker.close()  # Ctrl-C or a bug: nothing of this submission may outlive it
                raise exc
            if exc is not None:
                worker.close()
                self._restarts += 1
                what = "ran past the time limit" if isinstance(exc, WorkerTimeout) else f"stopped the notebook ({exc})"
                if cell is None:
                    self._fatal = f"the notebook could not start: {exc}"
                    self.errors.append(self._fatal)
                    raise StudentError("crashed", self._fatal) from None
                self._bad_cells.add(cell)
                self.errors.append(f"cell {cell} {what}; it is skipped and the rest is graded")
                continue
            self.cell_errors = errors
            if self._substitute:
                self._replace(worker)
            self._worker = worker
            return worker

    def _replace(self, worker: Worker) -> None:
        """In a fresh copy made to carry an error forward: the functions the grader answers."""
        try:
            answer = worker.request(messages.request(Op.SUBSTITUTE, names=sorted(self._substitute)), self._call_timeout)
        except (WorkerTimeout, WorkerDied, protocol.ProtocolError) as exc:
            answer = {"status": str(exc)}
        if answer.get("status") != Status.OK:
            worker.close()
            self._fatal = "the notebook's copy did not start"
            raise StudentError("crashed", self._fatal)

    def _runnable(self) -> list[tuple[int, str]]:
        return [(i, s) for i, s, _ in self._cells if i not in self._bad_cells]

    def _attempt(self, worker: Worker, cells) -> tuple:
        """Boot ``worker`` and run ``cells``: (cell errors, None, None), or (None, exception,
        the cell that was running or None)."""
        current = {"cell": None}
        try:
            worker.wait_ready(60)
            start = time.monotonic()
            errors = worker.run_cells(cells, self._timeout, on_cell=lambda i: current.update(cell=i))
            self.notebook_s = time.monotonic() - start
            return errors, None, None
        except BaseException as exc:  # noqa: BLE001 - sorted out by the caller
            return None, exc, current["cell"]

    def _spawn(self) -> Worker:
        worker = Worker(self._files, memory_mb=self._memory_mb, isolation=self._isolation, cpu_s=self._cpu_s)
        self._spawned.append(worker)
        return worker

    def cpu_seconds(self) -> float:
        """CPU seconds the processes started for this notebook have used (as last read, for those
        that ended): what a re-run carrying an error forward spent in its fresh copy."""
        return sum(w.cpu_seconds() for w in self._spawned)

    def prestart(self) -> None:
        """Start the student's process and run the notebook now, while the grader loads the
        hidden tests and the reference; the first call waits for the outcome. The process is
        spawned from this (the calling) thread: a child dies with the thread that made it."""
        if self._worker is not None or self._early is not None or self._fatal:
            return
        try:
            worker = self._spawn()
        except SandboxUnavailable as exc:
            self.refused = exc
            return
        cells = self._runnable()

        def run():
            self._early_outcome = self._attempt(worker, cells)
        self._thread = threading.Thread(target=run, name="pdl-notebook", daemon=True)
        self._early = worker
        self._thread.start()

    def _refuse(self, exc: SandboxUnavailable):
        """The sandbox broke down: no student code runs; ``grade`` raises after the tests."""
        self.refused = exc
        self._fatal = "the grading sandbox could not be built; not graded"
        raise StudentError("refused", self._fatal) from None

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            # inputs that carry a value the student returned are never replayed through the
            # reference by the diagnosis: reference code only ever sees inputs the grader made
            ledger = self.ledger
            supplied = any(i in ledger.returned for a in (*args, *kwargs.values()) for i in _identities(a))
            ledger.trace.call(name)
            if name in self._dead:  # one hang or crash per function costs a restart, not one per test
                kind, message = self._dead[name]
                raise StudentError(kind, f"{message} in an earlier test, so it was not called again", name)
            worker = self._start()
            msg = messages.request(Op.CALL, name=name, args=protocol.encode(list(args)),
                                   kwargs=protocol.encode(kwargs))
            try:
                answer = worker.request(msg, self._call_timeout, self._delegate)
            except SandboxUnavailable as exc:
                self._drop_worker()
                self._refuse(exc)
            except WorkerTimeout:
                self._drop_worker()
                self._restarts += 1
                self._dead[name] = ("timeout", f"{name} did not finish within {self._call_timeout:.0f} s")
                raise StudentError(*self._dead[name], name) from None
            except (WorkerDied, protocol.ProtocolError) as exc:
                self._drop_worker()
                self._restarts += 1
                self._dead[name] = ("memory" if _killed(exc) else "crashed",
                                    f"the notebook's process {exc} while running {name}")
                raise StudentError(*self._dead[name], name) from None
            status = answer.get("status")
            if status == Status.LARGE:  # announced by its skeleton: taken only if it fits the contract
                try:
                    shape = protocol.decode_skeleton(answer.get("skeleton"))
                except (protocol.ProtocolError, ValueError, TypeError) as exc:
                    shape, wrong = None, f"unreadable data ({exc})"
                else:
                    wrong = "" if supplied else self._contract_problem(name, args, kwargs, shape)
                answer = worker.request(messages.request(Op.PENDING, take=not wrong), self._call_timeout)
                if wrong:
                    raise StudentError("invalid", f"{name} returned {wrong} (see the docstring for what it "
                                                  "returns)", name)
                status = answer.get("status")
            if status == Status.OK:
                try:
                    value = protocol.decode(answer.get("value"))
                except (protocol.ProtocolError, ValueError, TypeError) as exc:
                    raise StudentError("invalid", f"{name} returned unreadable data: {exc}", name) from None
                if _payload_bytes(value) > protocol.LARGE:  # one threshold with the worker's skeletons
                    ledger.large_answers = True
                    wrong = "" if supplied else self._contract_problem(name, args, kwargs, value)
                    if wrong:
                        del answer, value  # a traceback keeps this frame: let the answer go now
                        raise StudentError("invalid", f"{name} returned {wrong} (see the docstring for what "
                                                      "it returns)", name)
                ledger.returned.update(_identities(value))
                ledger.trace.answer(name, value)
                if not supplied:
                    ledger.call_log.append((name, args, kwargs, value))
                return value
            if not supplied:
                ledger.raised.append((name, args, kwargs))
            error = StudentError(protocol.short(str(status), 40), protocol.short(answer.get("message", status)), name)
            origin = answer.get("origin")
            error.origin = origin if isinstance(origin, str) and origin.isidentifier() and len(origin) < 100 else ""
            raise error

        return call

    def _contract_problem(self, name: str, args, kwargs, value) -> str:
        """A large answer must have the structure of the reference's answer to the same call
        (the same containers, keys, lengths and array sizes), or it never reaches a test: what
        differs, or ""."""
        if not self._assignment:
            return ""
        expected = diagnose.catalogue(self._assignment).reference.call(Call(name, args, kwargs, None))
        if expected is _FAILED:
            return ""
        try:
            return next((why for _, a, why in _leaves(value, expected) if a is None), "")
        except (ValueError, TypeError):  # no verdict on a structure we cannot read: the test decides
            return ""

    def sources(self) -> list[str]:
        """The code of the cells the grader runs (to read which functions call which)."""
        return [text for _, text, _ in self._cells]

    @contextlib.contextmanager
    def _fresh(self, substitute: frozenset, delegate, limit_s: float):
        """A fresh copy of this notebook, for a re-run that carries an error forward: a new sandbox in
        which the notebook's cells (those that ran here) have just run, ``substitute`` answered by
        ``delegate``; under this one's limits, its notebook run under ``limit_s`` and a few times
        this one's; no restart; closed, with all it made, when the block ends."""
        notebook_s = max(carry.MIN_NOTEBOOK_S, carry.NOTEBOOK_FACTOR * self.notebook_s)
        fresh = SandboxStudent(self._files, self._cells, timeout=max(1.0, min(self._timeout, limit_s, notebook_s)),
                               call_timeout=max(1.0, min(self._call_timeout, limit_s)), memory_mb=self._memory_mb,
                               isolation=self._isolation, assignment=self._assignment)
        fresh._bad_cells = set(self._bad_cells)
        fresh._max_restarts = 0
        fresh._substitute, fresh._delegate = frozenset(substitute), delegate.on_event
        try:
            yield fresh
        finally:
            fresh.close()

    def public_checks(self, cells: Sequence[str] = ()) -> list[Check]:
        """The notebook's public checks (``cells``: the check cells' sources, run now with a
        registering ``check``; none: those already run)."""
        worker = self._start()
        answer = worker.request(messages.request(Op.CHECKS, cells=list(cells)), self._call_timeout)
        value = answer.get("value") if answer.get("status") == Status.OK else None
        return [Check(protocol.short(str(r[0]), 100), bool(r[1]), protocol.short(str(r[2])), bool(r[3]) and not r[1])
                for r in (value if isinstance(value, list) else [])[:200]
                if isinstance(r, list) and len(r) == 4]

    def _drop_worker(self):
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def close(self):
        self._closed = True
        workers = [w for w in (self._early, self._current, self._worker) if w is not None]
        for worker in workers:
            worker.kill()
        if self._thread is not None:
            self._thread.join(timeout=30)
        for worker in workers:
            worker.close()
        self._worker = self._current = self._early = None


def _payload_bytes(value) -> int:
    """Roughly how much memory an answer holds (arrays by their bytes, anything else 8 a value)."""
    total, stack = 0, [value]
    while stack:
        x = stack.pop()
        if isinstance(x, np.ndarray):
            total += x.nbytes
        elif isinstance(x, dict):
            stack += list(x.values())
        elif isinstance(x, (list, tuple)):
            total += 8 * len(x)
            stack += list(x)
        else:
            total += 8
    return total


def _identities(value) -> dict[int, object]:
    """The objects inside ``value`` that could carry a student's data into another call, by id:
    containers, arrays and numbers (small ints are shared by every Python object: left out)."""
    out: dict[int, object] = {}
    stack = [value]
    while stack and len(out) < 100_000:
        x = stack.pop()
        if isinstance(x, (bool, str)) or x is None or (type(x) is int and -5 <= x <= 256):
            continue
        out[id(x)] = x
        if isinstance(x, dict):
            stack += list(x.values())
        elif isinstance(x, (list, tuple)):
            stack += list(x)
    return out


class _Unreadable:
    """Stands in for a submission that could not be read: every call fails."""

    def __init__(self, reason: str):
        self._reason = reason

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            raise StudentError("invalid_notebook", self._reason)
        return call


def _killed(exc: Exception) -> bool:
    """The student's process was killed (its memory limit, or out of memory): from its exit status
    (``WorkerDied.killed``), never from the message."""
    return isinstance(exc, WorkerDied) and exc.killed


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


class _Collector:
    def __init__(self, student, assignment: str = "", diagnose: bool = False, stream=None, carry=False):
        self.student = student
        self.stream = stream  # sends each result (and the list of tests) as soon as it is known
        self.results: list[TestResult] = []
        self.collect_errors: list[str] = []
        self.assignment = assignment
        # the diagnosis needs the answers the student gave: a proxy that records them
        self.ledger = ledger_of(student)
        self.diagnose = diagnose and self.ledger is not None
        self._tolerances: list = []
        self._failed_actual = None  # the answer whose comparison failed in this test
        self._failed: shown.Shown | None = None  # that comparison, for after publication (run/shown.py)
        self._found: list = []  # known mistakes matched so far in this submission
        self._spent = 0.0       # seconds of diagnosis so far in this submission
        self._trace = self.ledger.trace if self.ledger is not None else None  # for charging a failure
        # error carried forward (autograder/run/carry.py): re-runs on fresh copies of the notebook
        self.carry = carry and callable(getattr(student, "_fresh", None))
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
            return shown.shown(actual, expected, float(rtol), float(atol), self.ledger.call_log, carry.holds)
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
            sources = type(self.student).sources(self.student) if hasattr(type(self.student), "sources") else []
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
            if rep.passed:
                self.results.append(TestResult(item.name, pts, pts, True, desc, function=owner, kind=Kind.PASS))
            else:
                exc = call.excinfo.value if call.excinfo else None
                msg, detail = _reason(call.excinfo) if call.excinfo else ("skipped", "")
                clues = carry.clues_of(exc, self._trace, self._failed_actual, self._graded, owner)
                secrets = redact.secrets_of(self.ledger, self._failed)  # before the diagnosis clears the ledger
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
        sources = type(self.student).sources(self.student) if hasattr(type(self.student), "sources") else []
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
        if isinstance(self.student, SandboxStudent):
            self.student.close()  # the direct tests' process ends before any copy starts
        reference = importlib.import_module(f"solutions.{self.assignment}")
        with contextlib.ExitStack() as warm_copies:
            started: list = []  # the held template's context, entered once

            def evaluate(failure, substitute):
                if not started and isinstance(self.student, SandboxStudent):  # copies forked warm
                    started.append(warm_copies.enter_context(held_template(self.assignment, self.student._isolation)))
                return carry.rerun(failure, self.student._fresh, reference, substitute, carry.TEST_LIMIT_S)
            try:
                return carry.decide(self._failures, evaluate)
            except Exception:  # noqa: BLE001 - a credit that cannot be established is not given
                return {}


def run_hidden_tests(assignment: str, student, diagnose: bool | None = None, plugins=(),
                     stream=None) -> list[TestResult]:
    """The hidden tests against ``student``. ``diagnose`` (default: unless ``PDL_DIAGNOSE=0``):
    name the mistake of each failing test from the answers a recording proxy kept. ``plugins``:
    more pytest plugins (``pdl validate``'s checks of the tests themselves)."""
    test_dir = REPO / "grading_tests" / assignment
    if not test_dir.is_dir():
        raise GraderError(f"no hidden tests for {assignment!r} in {test_dir}; run `pdl generate {assignment}`")
    if diagnose is None:
        diagnose = enabled()
    collector = _Collector(student, assignment, diagnose, stream, carry=carry.enabled())
    # no unraisable/thread-exception plugins: their gc.collect() at the end cost 0.4-0.8 s a submission;
    # nor the plugins no hidden test uses (source/FORMAT.md: the one fixture is `student`), set up
    # afresh for every submission
    unused = ("cacheprovider", "terminal", "warnings", "unraisableexception", "threadexception", "logging",
              "doctest", "junitxml", "pastebin", "faulthandler", "debugging", "stepwise", "setuponly",
              "setupplan", "tmpdir", "monkeypatch", "recwarn", "legacypath")
    args = [str(test_dir), *(a for name in unused for a in ("-p", f"no:{name}")), f"--rootdir={REPO}",
            "-o", "python_files=test_*.py"]
    with _no_plugin_autoload():
        code = pytest.main(args, plugins=[collector, *refmemo.plugin(assignment), *plugins])
    # a collection error also ends pytest as INTERRUPTED ("Interrupted: 1 error during collection")
    if collector.collect_errors or code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR):
        raise GraderError(f"hidden tests of {assignment} failed to load:\n" + "\n".join(collector.collect_errors))
    if code == pytest.ExitCode.INTERRUPTED:  # pytest swallows Ctrl-C; a half-run is no grade
        raise KeyboardInterrupt
    return collector.results


@contextlib.contextmanager
def _no_plugin_autoload():
    """pytest without the plugins installed in the environment (xdist, anyio, ...): the hidden tests
    use none, and looking them up and registering them cost ~0.1 s a submission."""
    old = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = old


def assignment_files(assignment: str) -> dict[str, bytes]:
    """Data files shipped with the release (everything but the notebook)."""
    folder = REPO / "assignments" / assignment
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*"))
            if p.is_file() and p.suffix != ".ipynb"} if folder.is_dir() else {}


def grade(submission, assignment: str, *, timeout: float = 300, call_timeout: float = 60,
          memory_mb: int | None = 4096, isolation: str | None = None,
          public_checks: bool = False) -> GradeReport:
    """Grade one notebook. Never raises for a bad submission: errors go into the report.
    ``public_checks``: also run the notebook's public checks (what students see on Gradescope).
    Raises ``SandboxUnavailable`` when the sandbox cannot be built (nothing is graded then),
    ``KeyboardInterrupt`` on Ctrl-C (no partial report).

    The grader's side runs in a child process (``autograder.run.bounded``) under the student's
    memory cap and a wall-clock cap: whatever the answers make the reference or the diagnosis
    do, this process and the rest of a cohort are safe; tests not finished by then score 0."""
    start = time.monotonic()
    seconds = Limits(timeout, call_timeout, memory_mb).grader_s
    options: dict[str, Any] = dict(timeout=timeout, call_timeout=call_timeout, memory_mb=memory_mb,
                                   isolation=isolation, public_checks=public_checks)
    warm(assignment, isolation)
    with template_lease(assignment, isolation):  # a cohort's: the student's process is forked warm
        received, how = run_bounded(lambda send: send({"report": _grade(submission, assignment, stream=send,
                                                                        **options).to_dict()}),
                                    memory_mb=memory_mb, seconds=seconds)
    final = next((m["report"] for m in received if "report" in m), None)
    usage: dict = next((m for m in received if "peak_mb" in m), {})
    if final is not None:
        return GradeReport.from_dict({**final, "grader_mb": usage.get("peak_mb", 0.0),
                                      "grader_cpu_s": usage.get("cpu_s", 0.0)})
    failure = next((m for m in received if "exception" in m), None)
    if how == "interrupted" or (failure and failure["exception"] == "KeyboardInterrupt"):
        raise KeyboardInterrupt
    if failure and failure["exception"] == "SandboxUnavailable":
        raise SandboxUnavailable(failure["message"])
    if failure and failure["exception"] not in ("MemoryError", "_ArrayMemoryError"):
        raise GraderError(f"grading {submission} failed: {failure['exception']}: {failure['message']}")
    if how != "timeout" and not failure:  # killed from outside (its own cap raises MemoryError), or a crash:
        # the grader's failure, not the submission's (a cohort tries it again, then leaves it not graded)
        raise GraderError(f"grading {submission} failed: the grader's process {how}")
    why = (f"it took longer than {seconds:.0f} s" if how == "timeout" else
           f"it needed more than the {memory_mb} MB the grader allows one submission")
    return _stopped_report(submission, assignment, received, why, time.monotonic() - start)


def warm(assignment: str, isolation: str | None = None, mistakes: bool = False) -> None:
    """What every submission of ``assignment`` needs, made once in this process, so that each
    bounded child (a fork) starts with it: the Python packages the student's process may see and,
    for a cohort (``mistakes``), the reference and the hidden tests with their imports, the known mistakes and the warm
    template the students' processes are forked from (``sandbox.Template``; not for ``PDL_WARM=0``). (For one
    notebook the child imports the reference itself, while the student's notebook runs.)"""
    namespace = resolve_isolation(isolation, lazy=True) == "namespace"
    if namespace:
        packages.visible_entries(packages.release_modules(assignment))
    if mistakes and namespace:  # a cohort: the students' processes are forks of a warm template
        start_templates(assignment)
    if mistakes:
        try:
            importlib.import_module(f"solutions.{assignment}")
            importlib.import_module(f"grading_tests.{assignment}.test_{assignment}")  # pytest finds it loaded
            diagnose.catalogue(assignment)
            refmemo.fill(assignment, run_hidden_tests)  # the reference's answers to the tests' own calls
            assignment_version(assignment)
        except Exception:  # noqa: BLE001 - the child meets (and reports) the same problem
            pass


def _stopped_report(submission, assignment: str, received: list, why: str, seconds: float) -> GradeReport:
    """What is known when the grader's child stopped early: the tests it finished; the rest 0."""
    report = GradeReport(assignment=assignment, submission=str(submission), version=assignment_version(assignment),
                         seconds=round(seconds, 2))
    for m in received:
        report.manual = [Answer.from_dict(a) for a in m["manual"]] if "manual" in m else report.manual
        report.checks = [Check.from_data(c) for c in m["checks"]] if "checks" in m else report.checks
        report.public_notes = m.get("public_notes", report.public_notes)
        report.isolation = m.get("isolation", report.isolation)
    done = {t.name: t for m in received if "test" in m for t in [TestResult.from_dict(m["test"])]}
    collected: list = next((m["collected"] for m in received if "collected" in m), [])
    report.tests = [done.get(name) or TestResult(name, 0.0, float(pts), False, f"{desc}: not graded: the grader "
                                                 f"stopped on this submission ({why})", kind=Kind.NOT_GRADED)
                    for name, pts, desc in collected] or list(done.values())
    report.errors = [f"the grader stopped on this submission: {why}; the tests it had not finished score 0"]
    report.score = sum(t.points for t in report.tests)
    report.max_score = sum(t.max_points for t in report.tests)
    report.functions = function_subtotals(report.tests)
    return report


def _grade(submission, assignment: str, *, timeout: float, call_timeout: float, memory_mb: int | None,
           isolation: str | None, public_checks: bool, stream) -> GradeReport:
    """``grade``'s work, in the bounded child; ``stream`` sends what is known as soon as it is."""
    start = time.monotonic()
    isolation = resolve_isolation(isolation, lazy=True)
    path = Path(submission)
    report = GradeReport(assignment=assignment, submission=str(path),
                         version=assignment_version(assignment))
    try:
        raw, nb = load_submission(path)  # the one read of the file
        cells = code_cells(nb)
    except SubmissionError as exc:
        report.errors.append(f"invalid notebook: {exc}")
        student: _Unreadable | SandboxStudent = _Unreadable(f"the notebook could not be read: {exc}")
    else:
        release = load_release(assignment)  # the one read of the release
        report.manual = [Answer.from_dict(a) for a in read_answers(nb, release_questions(assignment, release))]
        stream({"manual": [a.to_dict() for a in report.manual]})
        files = assignment_files(assignment)
        files[f"{assignment}.ipynb"] = raw
        student = SandboxStudent(files, [c for c in cells if not (c[2] & SKIP_TAGS)],
                                 timeout=timeout, call_timeout=call_timeout,
                                 memory_mb=memory_mb, isolation=isolation, assignment=assignment)
        student.prestart()
    try:
        if public_checks and isinstance(student, SandboxStudent):
            # Before any hidden input reaches the student's process, from the release's check cells
            # (not the submission's): nothing a student sees before publication can carry one.
            report.checks = _public_checks(student, [text for _, _, text in _tagged_cells(release, "check", "code")])
            report.public_notes = _notes(student)
            stream({"checks": [c.to_dict() for c in report.checks], "public_notes": report.public_notes,
                    "isolation": student.isolation})
        report.tests = run_hidden_tests(assignment, student, stream=stream)
    finally:
        if isinstance(student, SandboxStudent):
            student.close()
            report.isolation = student.isolation or isolation
            if student.refused is not None:
                raise student.refused
            report.errors += _notes(student)
    if len(report.errors) > MAX_ERRORS:
        report.errors[MAX_ERRORS:] = [f"... and {len(report.errors) - MAX_ERRORS} more notes"]
    if isinstance(student, _Unreadable):
        report.public_notes = list(report.errors)
    elif note := year_note(nb, release):  # a notebook of another year: say so (graded as usual)
        report.errors.insert(0, note)
        report.public_notes.insert(0, note)
    if report.isolation == "process":
        report.errors.insert(0, "WARNING: " + PROCESS_WARNING)
        report.public_notes.insert(0, "WARNING: " + PROCESS_WARNING)
    report.public_notes = report.public_notes[:MAX_ERRORS]
    report.score = sum(t.points for t in report.tests)
    report.score_without_carry_forward = sum(t.points for t in report.tests if not t.carried_forward)
    report.max_score = sum(t.max_points for t in report.tests)
    report.functions = function_subtotals(report.tests)
    report.seconds = round(time.monotonic() - start, 2)
    return report


def function_subtotals(tests) -> list[FunctionSubtotal]:
    """Per graded function: the points the release advertises for it (its tests' points) and the
    points lost in this grade that are charged to it (a failing test counts against the function
    at fault, ``TestResult.fault``, which is not always the one it counts for)."""
    table: dict[str, FunctionSubtotal] = {}
    for t in tests:
        if t.function:
            table.setdefault(t.function, FunctionSubtotal(t.function)).max_points += t.max_points
    for t in tests:
        lost = t.max_points - t.points
        who = t.fault.function if t.fault is not None else ""
        if lost > 0 and who:
            table.setdefault(who, FunctionSubtotal(who)).lost += lost
    return list(table.values())


def year_note(nb: dict, release: dict) -> str | None:
    """A grader note for a submission made from another year's (or another seed's) release: its
    header names another course year, or its ``PARAMS`` differ from this year's release. None
    when it matches (or says nothing either way)."""
    def params(notebook):
        return next((m.group() for _, _, text in _tagged_cells(notebook, "params")
                     for m in [re.search(r"^PARAMS = .*", text, flags=re.M | re.S)] if m), None)

    years = {int(y) for _, _, text in _tagged_cells(nb, "pdl-header")
             for y in re.findall(r"course year (\d{4})", text)}
    other = sorted(years - {course_config.YEAR})
    if other:
        return (f"this notebook is from course year {other[0]} (its header says so); it was graded as usual "
                f"against course year {course_config.YEAR}: this year's parameters and hidden tests. "
                f"Work from this year's release notebook.")
    theirs, ours = params(nb), params(release)
    if theirs is not None and ours is not None and theirs.split() != ours.split():
        return (f"this notebook's PARAMS are not this year's (course year {course_config.YEAR}): it comes from "
                "another year's or another course's release, or PARAMS were edited; it was graded as usual "
                "with this year's parameters. Work from this year's release notebook.")
    return None


def _notes(student: SandboxStudent) -> list[str]:
    """The grader's notes on the notebook so far: restarts, and errors of its cells."""
    return list(student.errors) + [f"cell {e.get('cell')}: {e.get('error')}" for e in student.cell_errors
                                   if isinstance(e, dict)]


def _public_checks(student: SandboxStudent, cells: list[str]) -> list[Check]:
    try:
        return student.public_checks(cells)
    except (StudentError, WorkerTimeout, WorkerDied, protocol.ProtocolError) as exc:
        student._drop_worker()
        student.errors.append(f"the public checks did not finish ({protocol.short(str(exc), 200)})")
        return []


def format_report(report: GradeReport) -> str:
    width = max([len(t.name) for t in report.tests] + [4])
    lines = [f"{report.assignment}  {report.submission}", ""]
    for t in report.tests:
        mark = "PASS" if t.passed else "CARRIED" if t.carried_forward else "FAIL"
        lines.append(f"  {mark}  {t.name:<{width}}  {t.points:g}/{t.max_points:g}")
        if not t.passed:
            lines.append(f"        {t.message}")
            if t.values:  # the TA's view: the values are shown
                lines.append(f"        {t.values}")
            if t.carried_forward:
                lines.append(f"        {t.carried_forward}")
            if t.fault is not None and t.fault.function:
                lines.append(f"        at fault: {t.fault.function} ({EVIDENCE_WORDS[t.fault.evidence]})")
            if t.diagnosis:
                lines.append(f"        hint: {t.diagnosis}")
    if any(t.carried_forward for t in report.tests):
        lines += ["", f"  {carry.RULE}"]
    if report.functions:
        lines += ["", "  by function (the points the release gives it; the points lost here, charged to the "
                      "function whose answer failed):"]
        lines += [f"    {row.function:<{width}}  {row.max_points:g}" + (f"  lost {row.lost:g}" if row.lost else "")
                  for row in report.functions]
    if report.errors:
        lines.append("")
        lines += [f"  note: {e}" for e in report.errors]
    lines += ["", f"  total: {report.score:g} / {report.max_score:g}"]
    if report.isolation and report.isolation != "namespace":  # the default is no news to a reader
        lines.append(f"  isolation: {report.isolation}")
    if report.manual:
        got = [m.question for m in report.manual if not m.blank]
        lines.append(f"  written answers: {len(got)} of {len(report.manual)} answered "
                     f"({sum(m.points for m in report.manual):g} points, graded by hand, not in the total)")
    return "\n".join(lines)
