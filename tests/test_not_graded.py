"""A grader failure is never a grade (issue 34, item 3): tried once more, then recorded as "not
graded" with its reason, never a score; the next run grades it again."""

import csv
import json
from pathlib import Path

import pytest
from conftest import EXEMPLAR

from autograder.cohort import grade as cohort_grade
from autograder.cohort.grade import grade_cohort

LIMITS = dict(timeout=15, call_timeout=5, memory_mb=2048)


def _flaky(real, fails: dict, counter: Path):
    """``grade`` failing for the submissions named in ``fails`` as many times as it says (a count
    kept in a file: the pool's processes are forks)."""
    def grade(path, assignment, **limits):
        student = Path(path).parent.name
        done = int(counter.read_text()) if counter.exists() else 0
        if student in fails and done < fails[student]:
            counter.write_text(str(done + 1))
            raise SystemError("AST validation failed (a set-up race)")
        return real(path, assignment, **limits)
    return grade


def test_a_grader_failure_is_retried_then_not_graded_and_regraded_next_run(tmp_path, write_nb, correct_nb,
                                                                           monkeypatch):
    subs = write_nb("unlucky", correct_nb).parent.parent
    write_nb("lucky", correct_nb)
    out = tmp_path / "out"
    real = cohort_grade.grade

    monkeypatch.setattr(cohort_grade, "grade", _flaky(real, {"lucky": 1}, tmp_path / "lucky.count"))
    once = {r.student: r for r in grade_cohort(subs, EXEMPLAR, out, workers=1, progress=False, **LIMITS).results}
    assert once["lucky"].graded and once["lucky"].score == once["lucky"].max_score > 0  # the retry graded it

    (out / "records" / "unlucky.json").unlink()
    monkeypatch.setattr(cohort_grade, "grade", _flaky(real, {"unlucky": 2}, tmp_path / "unlucky.count"))
    twice = {r.student: r for r in grade_cohort(subs, EXEMPLAR, out, workers=1, progress=False, **LIMITS).results}
    failed = twice["unlucky"]
    assert not failed.graded and "SystemError" in failed.not_graded and failed.max_score == 0
    assert json.loads((out / "records" / "unlucky.json").read_text())["not_graded"]

    monkeypatch.setattr(cohort_grade, "grade", real)
    summary = grade_cohort(subs, EXEMPLAR, out, workers=1, progress=False, **LIMITS)
    again = {r.student: r for r in summary.results}
    assert summary.graded == 1 and summary.reused == 1  # only the one not graded is graded again
    assert again["unlucky"].graded and again["unlucky"].score == again["lucky"].score > 0


def test_grade_cohort_exits_1_and_says_how_many_were_unreadable_or_not_graded(tmp_path, write_nb, correct_nb,
                                                                              monkeypatch, capsys):
    from autograder import cli

    subs = write_nb("fine", correct_nb).parent.parent
    write_nb("broken", "{ not json")
    write_nb("unlucky", correct_nb)
    real = cohort_grade.grade
    monkeypatch.setattr(cohort_grade, "grade", _flaky(real, {"unlucky": 2}, tmp_path / "count"))
    args = ["grade-cohort", str(subs), "--assignment", EXEMPLAR, "--out", str(tmp_path / "out"), "--workers", "1",
            "--no-gradebook", "--quiet", "--timeout", "15", "--call-timeout", "5"]
    assert cli.main(args) == 1
    last = capsys.readouterr().err.rstrip().splitlines()[-1]
    assert last.startswith("pdl: 1 not graded") and "1 unreadable" in last and "unlucky" in last and "broken" in last
    out = tmp_path / "out"
    grades = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open())}
    assert grades["unlucky"]["auto"] == grades["unlucky"]["final"] == "" and "not graded" in grades["unlucky"]["error"]
    assert float(grades["broken"]["auto"]) == 0 and float(grades["fine"]["auto"]) > 0  # unreadable: a 0, with why
    canvas = list(csv.reader((out / "canvas.csv").open()))
    assert {row[0]: row[-1] for row in canvas[2:]}["unlucky"] == ""  # an empty cell: Canvas keeps what it has
    moodle = {row["Full name"]: row for row in csv.DictReader((out / "moodle.csv").open())}
    assert moodle["unlucky"]["Grade"] == "" and "Not graded" in moodle["unlucky"]["Feedback comments"]
    monkeypatch.setattr(cohort_grade, "grade", real)
    assert cli.main(args) == 1  # the unlucky one graded now; the unreadable one still is
    last = capsys.readouterr().err.rstrip().splitlines()[-1]
    assert last.startswith("pdl: 0 not graded") and "1 unreadable" in last


def test_a_grader_child_killed_from_outside_is_a_grader_failure_not_a_grade(write_nb, correct_nb, monkeypatch,
                                                                            capsys):
    """The grading child's own memory cap raises MemoryError inside it (a grade: the answers made
    the reference need too much); a SIGKILL with no such word, or a crash, is the host's doing."""
    from autograder import cli
    from autograder.run import grading

    monkeypatch.setattr(grading, "run_bounded", lambda work, **kw: ([], "died (SIGKILL)"))
    path = write_nb("killed", correct_nb)
    with pytest.raises(grading.GraderError, match="died"):
        grading.grade(path, EXEMPLAR, **LIMITS)
    assert cli.main(["grade", str(path), "--assignment", EXEMPLAR]) == 1
    assert "not graded" in capsys.readouterr().err
    monkeypatch.setattr(grading, "run_bounded", lambda work, **kw: (
        [{"exception": "MemoryError", "message": ""}], "error"))
    report = grading.grade(path, EXEMPLAR, **LIMITS)  # the grader's memory cap: graded, unfinished tests 0
    assert report.score == 0 and any("needed more than" in e for e in report.errors)


def test_a_pool_worker_that_dies_loses_no_record(tmp_path, write_nb, correct_nb, monkeypatch):
    """A pool process killed while grading (here: it kills itself on one submission) breaks the pool:
    what it had not finished is listed as not graded (never a 0), the run goes on to write every
    record, and the next run grades them."""
    import os
    import signal

    subs = write_nb("doomed", correct_nb).parent.parent
    write_nb("other", correct_nb)
    out = tmp_path / "out"
    real = cohort_grade.grade

    def grade(path, assignment, **limits):
        if Path(path).parent.name == "doomed":
            os.kill(os.getpid(), signal.SIGKILL)  # the pool's worker process dies
        return real(path, assignment, **limits)

    monkeypatch.setattr(cohort_grade, "grade", grade)
    once = {r.student: r for r in grade_cohort(subs, EXEMPLAR, out, workers=1, progress=False, **LIMITS).results}
    assert set(once) == {"doomed", "other"}
    assert not once["doomed"].graded and once["doomed"].not_graded.startswith("worker lost: BrokenProcessPool")
    assert "not graded: the worker grading it was lost" in once["doomed"].errors[0]
    assert json.loads((out / "records" / "doomed.json").read_text())["not_graded"]
    monkeypatch.setattr(cohort_grade, "grade", real)
    again = {r.student: r for r in grade_cohort(subs, EXEMPLAR, out, workers=1, progress=False, **LIMITS).results}
    assert all(r.graded and r.score == r.max_score > 0 for r in again.values())
