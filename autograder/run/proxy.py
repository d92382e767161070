"""The student's functions as the grader calls them: living in her sandboxed process
(``SandboxStudent``: inputs sent, plain data received back, restarted after a crash), or a
submission that could not be read (``Unreadable``: every call fails). Both are a
``student.GradedStudent``."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Sequence

from autograder.run import carry, diagnose, messages, protocol
from autograder.run.channel import Worker, WorkerDied, WorkerTimeout
from autograder.run.diagnose.catalogue import _FAILED, Call
from autograder.run.diagnose.compare import _leaves
from autograder.run.isolation import SandboxUnavailable
from autograder.run.ledger import Ledger, identities, payload_bytes
from autograder.run.messages import Op, Status
from autograder.run.record import Check
from autograder.run.settings import Limits
from autograder.run.student import StudentBase
from autograder.run.templates import held_template
from autograder.run.testing import StudentError

MAX_RESTARTS = 3  # runs of the notebook after the first, whatever the cause: hangs, crashes, forged answers


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
        self.ledger: Ledger = Ledger()  # what the grader keeps of this test's calls
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
            supplied = any(i in ledger.returned for a in (*args, *kwargs.values()) for i in identities(a))
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
                self._dead[name] = ("memory" if killed(exc) else "crashed",
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
                if payload_bytes(value) > protocol.LARGE:  # one threshold with the worker's skeletons
                    ledger.large_answers = True
                    wrong = "" if supplied else self._contract_problem(name, args, kwargs, value)
                    if wrong:
                        del answer, value  # a traceback keeps this frame: let the answer go now
                        raise StudentError("invalid", f"{name} returned {wrong} (see the docstring for what "
                                                      "it returns)", name)
                ledger.returned.update(identities(value))
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

    @property
    def can_copy(self) -> bool:
        return True

    def copies_from(self, assignment: str):
        """The warm template the fresh copies are forked from, held while they are made."""
        return held_template(assignment, self._isolation)

    @contextlib.contextmanager
    def fresh_copy(self, substitute: frozenset, delegate, limit_s: float) -> Iterator[SandboxStudent]:
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


class Unreadable(StudentBase):
    """Stands in for a submission that could not be read: every call fails."""

    def __init__(self, reason: str):
        self._reason = reason

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            raise StudentError("invalid_notebook", self._reason)
        return call


def killed(exc: Exception) -> bool:
    """The student's process was killed (its memory limit, or out of memory): from its exit status
    (``WorkerDied.killed``), never from the message."""
    return isinstance(exc, WorkerDied) and exc.killed
