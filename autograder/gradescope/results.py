"""Gradescope's results.json from a pdl report, and its specification as a check."""

from __future__ import annotations

import json
import re

from autograder.run import settings
from autograder.run.carry import RULE
from autograder.run.diagnosis import tells
from autograder.run.record import GradeReport, TestResult, at_fault, credited


def results(report: GradeReport | dict, resubmissions: int = 0) -> dict:
    """Gradescope's results.json from a pdl report (a ``GradeReport``, or its ``to_dict()``).

    Students see, before the deadline, the public checks (pass/fail and their message) and the
    grader's notes about their notebook known before any hidden test ran (``public_notes``: both
    computed before a hidden input reached the student's process, so neither can carry one); the
    hidden tests, later notes and the score become visible when the instructor publishes grades
    (``after_published``). No line claims a test passed that did not run.

    A failing hidden test shows the student's value, the call that returned it and the expected
    value (``TestResult.shown``): read after publication only, like the test itself; and the
    function it is charged to (its ``fault``). After the tests, as on the feedback pages: each
    function at fault once (its failing tests, the points they lost, its diagnoses' words once),
    then the tests kept by error carried forward and the function each follows from.

    A hidden test's diagnosis tells a known mistake's rule text, or leads to it (the place and
    the symptom), as ``course_config.HINTS`` says (``diagnosis.tells``): its results are read
    after publication; ``resubmissions``: how many submissions the student made before this one
    (Gradescope's ``previous_submissions``).
    """
    r = report if isinstance(report, GradeReport) else GradeReport.from_dict(report)
    tell = tells(settings.current().hints, published=True, resubmissions=resubmissions)
    tests = []
    for c in r.checks:
        output = "ok" if c.passed else (f"not yet: {c.message}" if c.pending else c.message)
        tests.append({"name": f"Public check: {c.description}", "status": "passed" if c.passed else "failed",
                      "output": output, "visibility": "visible"})
    if not r.checks:
        tests.append({"name": "Public checks", "status": "failed", "visibility": "visible",
                      "output": "No public check could run on this notebook (see the notes below)."})
    # Visible now: only what was known before the first hidden test ran; the rest with the grades.
    if r.public_notes:
        tests.append({"name": "Notes from the grader", "visibility": "visible",
                      "output": "\n".join(r.public_notes)})
    later = [e for e in r.errors if e not in r.public_notes]
    if later:
        tests.append({"name": "Notes from the grader (while grading)", "visibility": "after_published",
                      "output": "\n".join(later)})
    for t in r.tests:
        told = t.told_message(published=True)
        output = "\n".join(x for x in (told, t.values, t.carried_forward, _charged(t), t.hint(tell)) if x)
        tests.append({"name": t.name, "score": t.points, "max_score": t.max_points,  # words, at the edge
                      "status": "passed" if t.passed else "failed",
                      "output": output, "visibility": "after_published"})
    charges = at_fault(r.tests)  # each function at fault once, as on the feedback pages
    if charges:
        rows = []
        for c in charges:
            rows.append(f"{c.function or 'tests charged to no function'}: {c.lost:g} "
                        f"{'point' if c.lost == 1 else 'points'} lost (tests: {', '.join(t.name for t in c.tests)})")
            rows += [f"  - {w}" for w in c.words(tell)]
        tests.append({"name": "What went wrong (each function at fault once)", "visibility": "after_published",
                      "output": "\n".join(rows)})
    kept = credited(r.tests)
    if kept:
        rows = [f"{t.name} ({t.max_points:g} {'point' if t.max_points == 1 else 'points'} kept): it follows from "
                f"your {', '.join(t.fault.roots if t.fault is not None else [])}" for t in kept]
        tests.append({"name": "Kept by error carried forward", "visibility": "after_published",
                      "output": "\n".join([*rows, "", RULE])})
    if r.functions:
        rows = [f"{row.function}: {row.max_points:g} points" + (f", lost {row.lost:g}" if row.lost else "")
                for row in r.functions]
        tests.append({"name": "By function (points the release gives it; points lost here)",
                      "visibility": "after_published", "output": "\n".join(rows)})
    summary = (f"Hidden tests: {len(r.tests)} tests worth {r.max_score:g} "
               "points; their results appear when grades are published.")
    if r.manual:
        summary += (f" Written answers ({sum(m.points for m in r.manual):g} points) are graded by hand "
                    "in a separate Gradescope assignment.")
    if r.version:  # which hidden tests and reference graded it: a regrade shows the new one
        summary += f" Assignment version {r.version}."
    return {"score": r.score, "output": summary, "visibility": "after_published",
            "stdout_visibility": "hidden", "tests": tests}


def _charged(t: TestResult) -> str:
    """The function a failing test that is not credited is charged to, in a line ("" for none)."""
    return f"Charged to {t.fault.function}." if t.fault is not None and t.fault.function and not t.credited else ""


def check_results_json(data: dict) -> None:
    """Raise ValueError where ``data`` breaks Gradescope's results.json specification."""
    visibilities = {"visible", "hidden", "after_due_date", "after_published"}
    if (not isinstance(data.get("tests"), list)
            or ("score" not in data and not all("score" in t for t in data["tests"]))):
        raise ValueError("results.json needs a score or per-test scores, and a list of tests")
    if data.get("visibility", "visible") not in visibilities:
        raise ValueError("bad top-level visibility")
    for t in data["tests"]:
        if not isinstance(t.get("name"), str) or t.get("visibility", "visible") not in visibilities:
            raise ValueError(f"bad test entry {t!r}"[:200])
        if t.get("status") not in (None, "passed", "failed"):
            raise ValueError(f"bad status in {t['name']}")
        if "score" in t and not isinstance(t["score"], (int, float)):
            raise ValueError(f"bad score in {t['name']}")
    if re.search(r"All test cases passed", json.dumps(data)):
        raise ValueError("claims 'All test cases passed'")
