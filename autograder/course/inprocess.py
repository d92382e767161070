"""Course code graded in-process: ``wrong``, ``rewrite``, ``alternative`` cells and mutants.

These variants are the course's own code, not students', so they are graded here (``LocalStudent``:
the same plain-data conversion and the same hidden tests as ``pdl grade``) with a per-call time
limit, which makes a run of dozens of variants fast (``pdl validate``, ``autograder.course.mutate``).
"""

from __future__ import annotations

import contextlib
import os
import signal

from autograder.run.diagnose.catalogue import _FAILED, Call, catalogue
from autograder.run.diagnose.leaks import numbers_of
from autograder.run.grading import run_hidden_tests
from autograder.run.testing import LocalStudent

CALL_LIMIT_S = 20


class _CallTimeout(Exception):
    pass


@contextlib.contextmanager
def _alarm(seconds: float):
    def fire(signum, frame):
        raise _CallTimeout(f"no answer within {seconds:g} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


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
    return TimedNamespace(ns)


def score_code(assignment: str, code: str) -> tuple[float, float]:
    """(score, max score) of the hidden tests against functions defined by ``code``."""
    results = run_hidden_tests(assignment, LocalStudent(namespace_of(assignment, code)))
    return sum(r.points for r in results), sum(r.max_points for r in results)


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


def grade_code(assignment: str, code: str):
    """(results with diagnoses, the recording student) of the hidden tests against the functions
    defined by ``code`` (the reference plus a wrong, rewrite or alternative cell), in-process."""
    student = RecordingStudent(namespace_of(assignment, code))
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
