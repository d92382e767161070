"""Grade one submitted notebook: run it in a sandbox, run the hidden tests here.

The hidden tests (pytest, ``grading_tests/<id>/``) run in this, the grader's, process.
They reach the student's functions only through ``proxy.SandboxStudent``, which sends inputs to
the student's process and receives plain data back; the reference and the comparison
never leave this process. The pieces: the proxy (``run/proxy.py``, a ``student.GradedStudent``),
what the grader keeps of her answers (``run/ledger.py``), the pytest plugin that turns the tests
into results (``run/collector.py``), the assignment's version (``run/versions.py``) and the
report as the terminal shows it (``run/report_text.py``); here, the orchestration.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

import course_config
from autograder.run import carry, diagnose, packages, protocol, refmemo
from autograder.run.bounded import run_bounded
from autograder.run.channel import WorkerDied, WorkerTimeout
from autograder.run.collector import Collector
from autograder.run.diagnose import enabled
from autograder.run.isolation import PROCESS_WARNING, SandboxUnavailable, resolve_isolation
from autograder.run.notebook import (
    SubmissionError,
    _tagged_cells,
    code_cells,
    load_release,
    load_submission,
    read_answers,
    release_questions,
)
from autograder.run.paths import REPO
from autograder.run.proxy import SandboxStudent, Unreadable
from autograder.run.record import Answer, Check, FunctionSubtotal, GradeReport, Kind, TestResult
from autograder.run.settings import Limits
from autograder.run.student import GradedStudent
from autograder.run.templates import start_templates, template_lease
from autograder.run.testing import StudentError
from autograder.run.versions import assignment_version

# cells the grader need not run (plots, public checks, instructor cross-checks)
SKIP_TAGS = {"figure", "check", "solution"}
MAX_ERRORS = 30   # grader notes kept in one report


class GraderError(RuntimeError):
    """The grader itself is broken (e.g. a hidden test does not import)."""


def run_hidden_tests(assignment: str, student: GradedStudent, diagnose: bool | None = None, plugins=(),
                     stream=None) -> list[TestResult]:
    """The hidden tests against ``student``. ``diagnose`` (default: unless ``PDL_DIAGNOSE=0``):
    name the mistake of each failing test from the answers a recording proxy kept. ``plugins``:
    more pytest plugins (``pdl validate``'s checks of the tests themselves)."""
    test_dir = REPO / "grading_tests" / assignment
    if not test_dir.is_dir():
        raise GraderError(f"no hidden tests for {assignment!r} in {test_dir}; run `pdl generate {assignment}`")
    if diagnose is None:
        diagnose = enabled()
    collector = Collector(student, assignment, diagnose, stream, carry=carry.enabled())
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
        student: Unreadable | SandboxStudent = Unreadable(f"the notebook could not be read: {exc}")
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
    if isinstance(student, Unreadable):
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
