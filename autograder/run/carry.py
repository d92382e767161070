"""Error carried forward: a test that fails only because of a mistake the student already lost
points for elsewhere keeps its credit, as physics courses grade by hand (``course_config.CARRY_FORWARD``,
on by default; ``PDL_CARRY_FORWARD=0`` switches it off).

The rule. A failing test of function B is credited from functions R1, R2, ... when

1. each R lost points in a test of its own in this submission (a failing test whose failure is R's
   own answer or exception, and that is not itself credited): a mistake is charged once, never zero
   times;
2. re-run on a **fresh copy** of the notebook (a new sandbox in which the notebook has just run, no
   call of the direct tests before it), with R1, R2, ... answered by the reference, both where the
   test calls them and where the student's own code does, the test passes; and it called them;
3. re-run on another fresh copy with nothing replaced, it still fails (so the failure is not the
   state the direct tests left behind).

Whatever happens in those re-runs stays there: each fresh copy is a sandbox of its own, started
after every direct test has finished and the direct tests' process has been stopped, and thrown
away afterwards with its output, files and state. The reference's answers it received (hidden
values) can reach no later call and no feedback: only "carried or not" and the names of R come
back. A function that behaves differently once it has seen a failing call, or that recognises
the re-run by its arguments, gains nothing: it is either not called (replaced) or called in a copy
that has seen nothing, and a wrong B stays wrong when its inputs are right.

Cost: at most ``MAX_EVALUATIONS`` re-runs and ``GRADE_BUDGET_S`` seconds per submission, each
under the direct tests' limits and ``TEST_LIMIT_S``: seconds of CPU time, the grader's and the
fresh copies' (``timelimit.Allowance``), so a busy host gives no fewer credits, with the wall
clock only an outer bound; a test that calls none of the candidates, directly or through
the student's own functions (read from the notebook's code), is not re-run.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import re
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from autograder.run import messages, protocol, record, settings
from autograder.run.diagnose.catalogue import _quiet
from autograder.run.ledger import Trace, holds  # noqa: F401 - holds: imported from here before the split
from autograder.run.messages import Status
from autograder.run.protocol import roundtrip
from autograder.run.testing import StudentError
from autograder.run.timelimit import Allowance

ENV = "PDL_CARRY_FORWARD"
NOTE = ("credited: it fails only because of your {names}, which lost points in its own tests "
        "(error carried forward: with a correct {names} this test passes)")
MAX_EVALUATIONS = 40     # fresh copies of the notebook per submission
GRADE_BUDGET_S = settings.CARRY_BUDGET_S  # seconds of re-runs per submission
TEST_LIMIT_S = 45.0      # one re-run (a fresh copy's start and notebook included)
BROKEN = ("timeout", "crashed", "memory", "refused")  # a copy that did this costs no more re-runs
ROUNDS = 10              # passes over the failures until the credits are stable
MAX_DELEGATED = 50_000   # calls of replaced functions answered by the reference in one re-run
NOTEBOOK_FACTOR = 3.0    # a fresh copy's notebook run may take this many times the first run's
MIN_NOTEBOOK_S = 20.0    # (and at least this long)


def enabled() -> bool:
    return settings.current().carry_forward


# What the feedback says about the rule, once, wherever a test was credited.
RULE = ("Error carried forward: a test that failed only because of another function that lost points in "
        "its own tests keeps its points (each mistake is charged once). It is decided by re-running the test "
        "on a fresh copy of your notebook with that function replaced by a correct one: it must pass then, "
        "and still fail with nothing replaced.")


def note(names) -> str:
    return NOTE.format(names=", ".join(names))


# -- what a test's calls showed: whose answer failed (``ledger.Trace``) ------------------------
def clues_of(exc: BaseException | None, trace: Trace | None, failed_actual, graded, owner: str = "") -> record.Clues:
    """What a failed test showed of whose fault it is (``record.decide`` weighs it): the function
    whose call raised (where its own code raised, when that is a graded function), else the graded
    function whose answer failed the comparison, else the graded function called last."""
    if isinstance(exc, StudentError) and exc.function:
        origin = getattr(exc, "origin", "")
        return record.Clues(owner=owner, raised=origin if origin in graded else exc.function)
    if trace is None:
        return record.Clues(owner=owner)
    holder = trace.holder(failed_actual)
    if holder:  # the failed value is a function's answer: that one, or none if it is not graded
        return record.Clues(owner=owner, answered=holder if holder in graded else "")
    last = trace.called[-1] if trace.called else ""
    return record.Clues(owner=owner, called=last if last in graded else "")


def culprit_of(exc: BaseException | None, trace: Trace | None, failed_actual, graded) -> str:
    """The graded function a failed test is charged to on what it showed ("" for none): the
    function ``record.decide`` names from ``clues_of``."""
    return record.decide(clues_of(exc, trace, failed_actual, graded)).function


# -- the re-runs ---------------------------------------------------------------------------------
_RECORDERS: list[list] = []


@contextlib.contextmanager
def recording_delegated():
    """Every answer the reference gives a re-run's student code, kept in the list this yields
    (``pdl validate`` checks that none of them shows in feedback)."""
    kept: list = []
    _RECORDERS.append(kept)
    try:
        yield kept
    finally:
        _RECORDERS.remove(kept)


class Delegate:
    """The reference's answers for the replaced functions of one re-run (computed here, in the
    grader); notes which of them were called."""

    def __init__(self, reference, names):
        self.reference, self.names = reference, frozenset(names)
        self.used: set[str] = set()
        self.calls = 0

    def answer(self, name: str, args: list, kwargs: dict):
        if name not in self.names:
            raise KeyError(name)
        self.calls += 1
        if self.calls > MAX_DELEGATED:
            raise RuntimeError("too many calls of replaced functions")
        self.used.add(name)
        with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            value = roundtrip(getattr(self.reference, name)(*args, **kwargs))
        for kept in _RECORDERS:
            kept.append(value)
        return value

    def on_event(self, msg: dict) -> dict:
        """Answer a ``{"event": "delegate"}`` message of the student's process."""
        try:
            name, args, kwargs = msg.get("name"), protocol.decode(msg.get("args")), protocol.decode(msg.get("kwargs"))
            states = msg.get("generators") or []
            if (not isinstance(name, str) or not isinstance(args, list) or not isinstance(kwargs, dict)
                    or not isinstance(states, list) or len(states) > 8):
                return messages.answer(Status.ERROR)
            generators = [protocol.generator_from(s) for s in states]

            def unplace(value):
                if isinstance(value, str) and value.startswith(protocol.GENERATOR):
                    index = value[len(protocol.GENERATOR):]
                    if index.isdigit() and int(index) < len(generators):
                        return generators[int(index)]
                return value
            value = self.answer(name, [unplace(a) for a in args], {k: unplace(v) for k, v in kwargs.items()})
            return messages.answer(Status.OK, value=protocol.encode(value),
                                   generators=[protocol.generator_state(g) for g in generators])
        except TimeoutError:  # the re-run's own limit: it ends here
            raise
        except Exception:  # noqa: BLE001 - the reference on inputs the student's code chose
            return messages.answer(Status.ERROR)


class Replaced:
    """The student proxy a re-run hands the test: replaced functions answer from the reference,
    the others from the fresh copy of the notebook."""

    def __init__(self, fresh, delegate: Delegate, allowance: Allowance):
        self._fresh, self._delegate, self._allowance = fresh, delegate, allowance

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if self._allowance.over():
            raise TimeoutError("the re-run's time is spent")
        if name not in self._delegate.names:
            return getattr(self._fresh, name)

        def call(*args, **kwargs):
            try:
                return self._delegate.answer(name, *plain(args, kwargs))
            except TimeoutError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise StudentError("error", f"{name} raised {type(exc).__name__}", name) from None
        return call


def plain(args, kwargs) -> tuple[list, dict]:
    """A call's arguments as they would cross the wire (random generators kept as they are: the
    reference draws from the caller's own)."""
    def one(value):
        return value if isinstance(value, np.random.Generator) else roundtrip(value)
    return [one(a) for a in args], {k: one(v) for k, v in kwargs.items()}


@dataclass
class Outcome:
    passed: bool
    used: frozenset = frozenset()  # the replaced functions the re-run called
    broke: bool = False  # the copy hung, crashed or ran out of time: no more re-runs for this notebook
    seconds: float = 0.0  # CPU time it took (the grader's and the copy's)


@dataclass
class Failure:
    """A failing hidden test, as the carry phase sees it."""
    test: str
    owner: str            # the graded function it counts for (what the release advertises)
    culprit: str          # the graded function at fault, on what the test showed (``record.decide``)
    points: float
    run: Callable         # the test's body, called with a student proxy
    reaches: frozenset | None = None  # graded functions it can call (None: any)
    hopeless: bool = False  # its own function is missing or not implemented: nothing to re-run
    extra: dict = field(default_factory=dict)


def rerun(failure: Failure, fresh_copy, reference, substitute: frozenset, limit_s: float) -> Outcome:
    """``failure``'s test on a fresh copy of the notebook with ``substitute`` answered by the
    reference. ``fresh_copy(substitute, delegate, limit_s)``: a context manager giving the copy
    (``student.GradedStudent.fresh_copy``)."""
    delegate = Delegate(reference, substitute)
    allowance = Allowance(limit_s)  # CPU time, the grader's and the copy's: the same credits at any load
    try:
        with _quiet(limit_s), fresh_copy(substitute, delegate, limit_s) as fresh:
            # a sandboxed copy's own process (``GradedStudent.cpu_seconds``; None in this process)
            allowance.count((lambda: fresh.cpu_seconds() or 0.0) if fresh.cpu_seconds() is not None else None)
            failure.run(Replaced(fresh, delegate, allowance))
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - any failure of the re-run: not carried
        broke = isinstance(exc, TimeoutError) or (isinstance(exc, StudentError) and exc.kind in BROKEN)
        return Outcome(False, frozenset(delegate.used), broke, allowance.spent())
    return Outcome(True, frozenset(delegate.used), seconds=allowance.spent())


def decide(failures: list[Failure], evaluate: Callable[[Failure, frozenset], Outcome], *,
           max_evaluations: int | None = None, budget_s: float | None = None) -> dict[str, list[str]]:
    """Test -> the functions it is credited from, by the rule of the module docstring.
    ``evaluate(failure, substitute)`` re-runs a test on a fresh copy (``rerun``). The limits
    default to ``MAX_EVALUATIONS`` and ``GRADE_BUDGET_S`` as they are at the call."""
    max_evaluations = MAX_EVALUATIONS if max_evaluations is None else max_evaluations
    budget = GRADE_BUDGET_S if budget_s is None else budget_s  # CPU seconds of re-runs
    wall_end = time.monotonic() + settings.wall_bound(budget)
    outcomes: dict[tuple[str, frozenset], Outcome] = {}
    carried: dict[str, list[str]] = {}
    # a copy hung or crashed: like a function that hung in a direct test, it is not tried again
    broken: list[tuple[str, frozenset]] = []

    def charged(skip: str = "") -> set[str]:
        """The functions that lost points in a failure not credited (other than ``skip``'s)."""
        return {f.culprit for f in failures if f.test not in carried and f.test != skip and f.culprit}

    def attempt(f: Failure, substitute: frozenset) -> Outcome | None:
        key = (f.test, substitute)
        if key not in outcomes:
            if broken or len(outcomes) >= max_evaluations or time.monotonic() > wall_end \
                    or sum(o.seconds for o in outcomes.values()) > budget:
                return None
            outcomes[key] = evaluate(f, substitute)
            if outcomes[key].broke:
                broken.append(key)
        return outcomes[key]

    # functions that call few others first: an upstream function's own failures are settled (carried
    # from further up, or charged) before the tests of the functions that call it are tried
    order = sorted(failures, key=lambda f: (len(f.reaches) if f.reaches is not None else 1 << 20, -f.points, f.test))
    for _ in range(ROUNDS):  # each round settles about one more level of calls
        changed = False
        for f in order:
            if f.test in carried or f.hopeless:
                continue
            substitute = frozenset(charged(f.test) - {f.owner})
            if not substitute or (f.reaches is not None and not substitute & f.reaches):
                continue
            out = attempt(f, substitute)
            if out is None or not out.passed or not out.used & substitute:
                continue
            same = attempt(f, frozenset())  # fails on a fresh copy with nothing replaced
            if same is None or same.passed:  # (a copy that hung here reproduced the failure)
                continue
            carried[f.test] = sorted(out.used & substitute)
            changed = True
        while True:  # a credit stands only while each function it names still lost points of its own
            left = charged()
            drop = [t for t, names in carried.items() if not set(names) <= left]
            if not drop:
                break
            for t in drop:
                del carried[t]
            changed = True
        if not changed:
            break
    return carried


# -- what the student's own code can reach --------------------------------------------------------
_MAGIC = re.compile(r"^\s*[%!].*$", re.M)


def student_reach(sources, start, graded) -> frozenset | None:
    """The graded functions that the student's functions ``start`` (and the test itself) can
    call, read from the notebook's code: each top-level ``def``'s names, through the student's
    own functions. None where a function is not a plain ``def`` of the cells or looks names up
    at run time (it may call anything)."""
    uses = _uses(tuple(str(text) for text in sources))
    seen, todo = set(), list(start)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in graded and name not in uses:
            return None
        found = uses.get(name, frozenset())
        if found & {"globals", "eval", "exec", "getattr", "vars", "locals", "__import__"}:
            return None
        todo += [n for n in found if n in uses or n in graded]
    return frozenset(seen & set(graded))


@functools.lru_cache(maxsize=4)  # a submission's cells, asked for each failing test and diagnosis
def _uses(sources: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """Each top-level ``def`` of the cells -> the names it uses (a name assigned at top level
    after its ``def``: no entry)."""
    uses: dict[str, frozenset[str]] = {}
    for text in sources:
        try:
            tree = ast.parse(_MAGIC.sub("", str(text)))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in tree.body:
            names = {t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)}
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                uses[node.name] = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
            elif names:
                for name in names:  # redefined by an assignment: anything
                    uses.pop(name, None)
    return uses
