"""Error carried forward: a result that is right given the student's own earlier result keeps
its credit, as physics courses grade by hand (``course_config.CARRY_FORWARD``, on by default).

When a hidden test of function B fails, B's recorded calls (inputs the grader made) are
evaluated here, in the grader's process, by the reference's B with the student's own versions
of the other graded functions in place of those that B calls. Those calls go to the student's
process over the channel, like any other call: nothing of the reference enters it. If that
reproduces every answer the student's B gave, within the test's tolerance, and some function it
used answered differently from the reference on those inputs, the test keeps its points, with a
note naming the functions the error follows from. A B that is wrong on its own does not match,
and loses its points.
"""

from __future__ import annotations

import os
import time

import course_config
from autograder.run.diagnose.catalogue import _FAILED, CALL_LIMIT_S, Call, _quiet, as_calls, catalogue
from autograder.run.diagnose.compare import close, tolerance
from autograder.run.protocol import ProtocolError, roundtrip

ENV = "PDL_CARRY_FORWARD"
NOTE = "credited: it follows from your {names} (error carried forward)"
TEST_BUDGET_S = 30.0   # re-evaluating one failing test
GRADE_BUDGET_S = 90.0  # all of one submission


def enabled() -> bool:
    value = os.environ.get(ENV)
    if value is not None:
        return value.strip().lower() not in ("0", "false", "no", "off")
    return bool(getattr(course_config, "CARRY_FORWARD", True))


class Hybrid:
    """The reference's code with the student's own graded functions in place of the reference's
    (each call of one goes to the student's process); built once per submission."""

    def __init__(self, assignment: str, student, graded: set[str]):
        self.assignment, self.student, self.graded = assignment, student, set(graded)
        self.ns: dict = {"__name__": f"pdl_carry_{assignment}"}
        with _quiet(CALL_LIMIT_S * 3):
            exec(catalogue(assignment)._module, self.ns)  # noqa: S102 - the course's reference
        self.reference = dict(self.ns)
        self.used: list[Call] = []

    def _proxy(self, name: str):
        def call(*args, **kwargs):
            value = getattr(self.student, name)(*args, **kwargs)
            self.used.append(Call(name, args, kwargs, value))
            return value
        return call

    def answer(self, c: Call, limit: float):
        """The reference's ``c.name`` on the recorded inputs, the student's other functions in."""
        for name in self.graded:
            self.ns[name] = self.reference[name] if name == c.name else self._proxy(name)
        fn = self.ns.get(c.name)
        if not callable(fn):
            return _FAILED
        try:
            with _quiet(limit):
                return roundtrip(fn(*roundtrip(list(c.args)), **roundtrip(dict(c.kwargs))))
        except (Exception, TimeoutError):  # noqa: BLE001 - the student's functions under the reference
            return _FAILED
        finally:
            self.ns.update(self.reference)


def carried_from(hybrid: Hybrid, log, tolerances=(), budget_s: float = TEST_BUDGET_S, _depth: int = 0) -> list[str]:
    """The graded functions whose (wrong) answers explain every answer of the failing test's
    calls in ``log``; [] when the test's failure is not explained by them. A function whose own
    error follows from another's is replaced by that one (the mistake is named once, where it is)."""
    calls = [c for c in as_calls(log) if c.name in hybrid.graded]
    if not calls:
        return []
    rtol, atol = tolerance(tolerances)
    deadline = time.monotonic() + budget_s
    hybrid.used = []
    for c in calls:
        if time.monotonic() > deadline:
            return []
        try:
            expected = hybrid.answer(c, max(1.0, deadline - time.monotonic()))
        except ProtocolError:
            return []
        if expected is _FAILED or not close(c.value, expected, rtol, atol):
            return []
    used, reference, roots = list(hybrid.used), catalogue(hybrid.assignment).reference, set()
    for name in dict.fromkeys(u.name for u in used):  # the student's functions that answered wrongly
        theirs = [u for u in used if u.name == name]
        if all(ref is _FAILED or close(u.value, ref, rtol, atol) for u in theirs for ref in [reference.call(u)]):
            continue
        deeper = [] if _depth >= 3 else carried_from(hybrid, theirs[:3], tolerances,
                                                      max(0.0, deadline - time.monotonic()), _depth + 1)
        roots |= set(deeper) or {name}
    return sorted(roots)
