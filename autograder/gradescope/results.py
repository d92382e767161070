"""Gradescope's results.json from a pdl report, and its specification as a check."""

from __future__ import annotations

import json
import re

from autograder.run.carry import RULE
from autograder.run.record import TestResult


def results(report: dict) -> dict:
    """Gradescope's results.json from a pdl report (``GradeReport.to_dict()``).

    Students see, before the deadline, the public checks (pass/fail and their message) and the
    grader's notes about their notebook known before any hidden test ran (``public_notes``: both
    computed before a hidden input reached the student's process, so neither can carry one); the
    hidden tests, later notes and the score become visible when the instructor publishes grades
    (``after_published``). No line claims a test passed that did not run.
    """
    tests = []
    for description, passed, message in report.get("checks", []):
        tests.append({"name": f"Public check: {description}", "status": "passed" if passed else "failed",
                      "output": "ok" if passed else message, "visibility": "visible"})
    if not report.get("checks"):
        tests.append({"name": "Public checks", "status": "failed", "visibility": "visible",
                      "output": "No public check could run on this notebook (see the notes below)."})
    # Visible now: only what was known before the first hidden test ran; the rest with the grades.
    if report.get("public_notes"):
        tests.append({"name": "Notes from the grader", "visibility": "visible",
                      "output": "\n".join(report["public_notes"])})
    later = [e for e in report.get("errors", []) if e not in report.get("public_notes", [])]
    if later:
        tests.append({"name": "Notes from the grader (while grading)", "visibility": "after_published",
                      "output": "\n".join(later)})
    for t in report.get("tests", []):
        output = t.get("message", "")
        if t.get("carried_forward"):
            output += "\n" + t["carried_forward"]
        diagnosis = TestResult.from_dict(t).diagnosis  # its words, here at the edge
        if diagnosis:
            output += "\n" + diagnosis
        tests.append({"name": t["name"], "score": t["points"], "max_score": t["max_points"],
                      "status": "passed" if t.get("passed") else "failed",
                      "output": output, "visibility": "after_published"})
    if report.get("functions"):
        rows = [f"{row['function']}: {row['max_points']:g} points"
                + (f", lost {row['lost']:g}" if row.get("lost") else "")
                for row in report["functions"]]
        if any(t.get("carried_forward") for t in report.get("tests", [])):
            rows += ["", RULE]
        tests.append({"name": "By function (points the release gives it; points lost here)",
                      "visibility": "after_published", "output": "\n".join(rows)})
    written = report.get("manual") or []
    summary = (f"Hidden tests: {len(report.get('tests', []))} tests worth {report.get('max_score', 0):g} "
               "points; their results appear when grades are published.")
    if written:
        summary += (f" Written answers ({sum(m['points'] for m in written):g} points) are graded by hand "
                    "in a separate Gradescope assignment.")
    if report.get("version"):  # which hidden tests and reference graded it: a regrade shows the new one
        summary += f" Assignment version {report['version']}."
    return {"score": report.get("score", 0.0), "output": summary, "visibility": "after_published",
            "stdout_visibility": "hidden", "tests": tests}


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
