"""The TA's term: the roster (names, sections, extensions), the late policy, and the final grades
in Canvas's and Moodle's import formats (canvas.csv, moodle.csv beside grades.csv). Built from
synthetic records: nothing is graded here."""

import csv
import datetime as dt
import json

import pytest
from conftest import EXEMPLAR

import course_config
from autograder import cli
from autograder.cohort import exports, late, outputs, roster
from autograder.cohort.handscores import csv_uncell
from autograder.cohort.record import CohortSummary, Record

DEADLINE = "2026-10-15 23:59:59 Europe/Berlin"  # 21:59:59 UTC
POLICY = {"grace_minutes": 15, "per_day": 0.10, "cap": 0.5}


def rec(student, score, **extra):
    return Record.from_dict({
            "student": student, "assignment": EXEMPLAR, "score": float(score), "max_score": 10.0, "version": "v",
            "tests": [{"name": "test_a", "points": float(score), "max_points": 10.0, "passed": score == 10,
                       "message": "checked a"}],
            "errors": [], "manual": [], "seconds": 0.1, "name": "", "email": "", "submitted_at": "",
            "lms": "", "lms_id": "", "lms_late": None, **extra})


def table(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def policy(monkeypatch):
    monkeypatch.setattr(course_config, "DEADLINES", {EXEMPLAR: DEADLINE}, raising=False)
    monkeypatch.setattr(course_config, "LATE_POLICY", dict(POLICY), raising=False)
    monkeypatch.setattr(course_config, "CANVAS_ASSIGNMENT_IDS", {EXEMPLAR: 98765}, raising=False)


# -- the roster --------------------------------------------------------------------------------
def test_roster_is_read_with_names_as_written_sections_and_extensions(tmp_path):
    path = write(tmp_path / "roster.csv", "\ufeffID, Name ,Email,Section,Extension\n"
                 "111,Ada Lovelace,ada@uni.example,A1,\n"
                 "222,Émile Zola,emile@uni.example,B2,2\n"
                 "\n"
                 "333,王伟,,B2,2026-10-20 12:00 Europe/Berlin\n")
    students = roster.read_roster(path)
    assert [(s.id, s.name, s.email, s.section, s.extension, s.line) for s in students] == [
        ("111", "Ada Lovelace", "ada@uni.example", "A1", "", 2),
        ("222", "Émile Zola", "emile@uni.example", "B2", "2", 3),
        ("333", "王伟", "", "B2", "2026-10-20 12:00 Europe/Berlin", 5)]


@pytest.mark.parametrize("text, where, says", [
    ("name,email\nAda,ada@x\n", "line 1", "no id column"),
    ("id,name,grade\n1,Ada,3\n", "line 1", "unknown column 'grade'"),
    ("id,name\n1,Ada\n2,Bob\n1,Carol\n", "line 4", "already on line 2"),
    ("id,name\n1,Ada\nA7,Bob\na7,Carol\n", "line 4", "already on line 3"),
    ("id,email\n1,a@x\n2,A@X\n", "line 3", "email 'A@X' is already on line 2"),
    ("id,extension\n1,2\n2,two days\n", "line 3", "neither a number of days"),
    ("id,extension\n1,-1\n", "line 2", "neither a number of days"),
    ("id,extension\n1,2026-10-20\n", "line 2", "neither a number of days"),
    ("id,extension\n1,2026-10-20 12:00 Mars/Olympus\n", "line 2", "not a time zone"),
    ("id,extension\n1,2026-10-01 12:00\n", "line 2", "before the deadline"),
    ("id,name\n1,Ada\n,Bob\n", "line 3", "no id"),
    ("id,name\n1,Ada,extra\n", "line 2", "3 cells"),
    ('id,name\n1,"Ada\nLovelace"\n2,Bob\n2,Carl\n', "line 5", "already on line 4"),
])
def test_a_malformed_roster_is_refused_with_its_line(tmp_path, text, where, says):
    path = write(tmp_path / "roster.csv", text)
    with pytest.raises(roster.RosterError) as err:
        roster.read_roster(path, dt.datetime(2026, 10, 15, 21, 59, 59))
    assert f"{path}, {where}:" in str(err.value) and says in str(err.value)


def test_grade_cohort_refuses_a_malformed_roster_before_grading_anything(tmp_path, monkeypatch, capsys):
    def never(*args, **kwargs):
        raise AssertionError("graded with a malformed roster")

    monkeypatch.setattr("autograder.cohort.grade.grade_cohort", never)
    bad = write(tmp_path / "roster.csv", "id,name\n1,Ada\n1,Bob\n")
    out = tmp_path / "out"
    rc = cli.main(["grade-cohort", str(tmp_path), "--assignment", EXEMPLAR, "--out", str(out), "--roster", str(bad),
                   "--no-gradebook", "--quiet"])
    assert rc == 2 and "line 3: the id '1' is already on line 2" in capsys.readouterr().err
    assert not out.exists()


def test_a_bad_late_policy_is_refused_before_grading_anything(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr("autograder.cohort.grade.grade_cohort", lambda *a, **k: pytest.fail("graded"))
    monkeypatch.setattr(course_config, "LATE_POLICY", {"per_day": 0.1, "per_week": 0.3}, raising=False)
    rc = cli.main(["grade-cohort", str(tmp_path), "--assignment", EXEMPLAR, "--out", str(tmp_path / "o"),
                   "--no-gradebook", "--quiet"])
    assert rc == 2 and "unknown key(s) per_week" in capsys.readouterr().err


def test_roster_matches_by_lms_id_else_student_id_or_email():
    students = [roster.Student("12345", "John Smith", "", "A1", "", 2),
                roster.Student("alice", "Alice Liddell", "", "B2", "1", 3),
                roster.Student("S9", "Bob Builder", "bob@uni.example", "B2", "", 4),
                roster.Student("smithjohn", "Not Him", "", "C3", "", 5),
                roster.Student("777", "Bo Li", "bo@uni.example", "C3", "", 6)]
    summary = CohortSummary(assignment=EXEMPLAR, results=[
        rec("smithjohn", 5, name="smithjohn", lms="canvas", lms_id="12345"),   # by Canvas's id, not the name
        rec("ALICE", 5),                                                         # by student id, case ignored
        rec("bobb", 5, email="Bob@Uni.Example"),                                 # by email, case ignored
        rec("carol", 5, lms="moodle", lms_id="4242"),                           # an LMS id not on the roster
        rec("dave", 5, email="bob@uni.example")])                               # Bob's row is taken
    notes = roster.apply_roster(summary, students)
    by = {r.student: r for r in summary.results}
    assert (by["smithjohn"].name, by["smithjohn"].section, by["smithjohn"].roster_id) == ("John Smith", "A1", "12345")
    assert (by["ALICE"].name, by["ALICE"].section, by["ALICE"].extension) == ("Alice Liddell", "B2", "1")
    assert (by["bobb"].name, by["bobb"].email, by["bobb"].roster_match) == ("Bob Builder", "bob@uni.example", "email")
    assert by["carol"].roster_id == "" and by["dave"].roster_id == ""
    assert notes == ["carol: not on the roster",
                     "dave: matches roster line 4 (email), which is already bobb's; not matched"]
    assert [a.roster_id for a in summary.absent] == ["smithjohn", "777"]


# -- the late policy ---------------------------------------------------------------------------
D = dt.datetime(2026, 10, 15, 21, 59, 59)


def fate(when, policy, total=8.0, total_max=10.0, **extra):
    return late.assess(rec("s", total, submitted_at=when, **extra), D, late.check_policy(policy), total, total_max)


def test_per_day_with_grace_and_cap():
    assert fate("2026-10-15T22:14:59Z", POLICY)["penalty"] == 0            # 15 min: grace
    f = fate("2026-10-15T22:15:00Z", POLICY)                                # 15:01 late: 1 started day
    assert (f["late"], f["by"], f["penalty"], f["final"]) == ("yes", "0:15:01", 1.0, 7.0)
    f = fate("2026-10-17T23:00:00Z", POLICY)                                # 2 d 1:00:01: 3 started days
    assert (f["by"], f["penalty"], f["final"]) == ("2 d 1:00:01", 3.0, 5.0)
    assert "3 started days × 10% of 10" in f["why"]
    f = fate("2026-10-25T00:00:00Z", POLICY)                                # 10 days: capped at 50% of 10
    assert (f["penalty"], f["final"]) == (5.0, 3.0)
    f = fate("2026-10-25T00:00:00Z", POLICY, total=2.0)                     # never below 0
    assert (f["penalty"], f["final"]) == (2.0, 0.0)
    assert fate("2026-10-15T21:00:00Z", POLICY)["late"] == "no"


def test_per_hour():
    f = fate("2026-10-16T00:30:00Z", {"per_hour": 0.05})                    # 2:30:01: 3 started hours
    assert (f["penalty"], f["final"]) == (1.5, 6.5)


def test_no_credit_after_and_an_extension_moves_it():
    policy = {"no_credit_after": "2026-10-18 00:00:00 UTC"}
    assert fate("2026-10-17T23:00:00Z", policy)["penalty"] == 0
    f = fate("2026-10-18T00:00:01Z", policy)
    assert (f["penalty"], f["final"]) == (8.0, 0.0) and "no credit" in f["why"]
    assert fate("2026-10-18T00:00:01Z", policy, extension="1")["penalty"] == 0   # her cutoff is a day later


def test_an_extension_in_days_or_until_a_date():
    f = fate("2026-10-17T23:00:00Z", POLICY, extension="2")                 # her deadline 2026-10-17 21:59:59
    assert (f["by"], f["penalty"]) == ("1:00:01", 1.0)
    f = fate("2026-10-17T23:00:00Z", POLICY, extension="2026-10-18 12:00 Europe/Berlin")
    assert (f["late"], f["penalty"], f["deadline"]) == ("no", 0.0, dt.datetime(2026, 10, 18, 10, 0))


def test_the_lms_flag_is_shown_but_only_a_time_sets_a_penalty():
    f = fate("", POLICY, lms="canvas", lms_late=True)
    assert (f["lms_late"], f["late"], f["penalty"], f["final"]) == ("yes", "", 0.0, 8.0)
    assert f["why"].startswith("Canvas marked this submission late")
    f = fate("2026-10-15T21:00:00Z", POLICY, lms="canvas", lms_late=True)   # the time says on time
    assert (f["lms_late"], f["late"], f["penalty"]) == ("yes", "no", 0.0)


@pytest.mark.parametrize("bad, says", [
    ({"per_day": 0.1, "per_hour": 0.01}, "not both"),
    ({"per_day": 1.5}, "fraction from 0 to 1"),
    ({"cap": "half"}, "fraction from 0 to 1"),
    ({"grace_minutes": -5}, "grace_minutes"),
    ({"no_credit_after": "next friday"}, "no_credit_after"),
    ({"per_day": 0.1, "per_week": 0.3}, "unknown key(s) per_week"),
    ({EXEMPLAR: {"per_day": 0.1}, "*": 0.2}, "must be a policy"),
])
def test_a_bad_policy_is_refused(monkeypatch, bad, says):
    monkeypatch.setattr(course_config, "LATE_POLICY", bad, raising=False)
    with pytest.raises(late.PolicyError) as err:
        late.policy_for(EXEMPLAR)
    assert says in str(err.value)


def test_a_policy_per_assignment(monkeypatch):
    monkeypatch.setattr(course_config, "LATE_POLICY", {EXEMPLAR: {"per_hour": 0.01}, "*": {"per_day": 0.2}},
                        raising=False)
    assert late.policy_for(EXEMPLAR) == {"grace_minutes": 0.0, "per_hour": 0.01}
    assert late.policy_for("other") == {"grace_minutes": 0.0, "per_day": 0.2}


# -- grades.csv, canvas.csv, moodle.csv, the pages ---------------------------------------------
def canvas_cohort():
    summary = CohortSummary(assignment=EXEMPLAR, version="v", results=[
        rec("lovelaceada", 9, name="lovelaceada", lms="canvas", lms_id="111", submitted_at="2026-10-15T22:10:00Z"),
        rec("zolaemile", 8, name="zolaemile", lms="canvas", lms_id="222", submitted_at="2026-10-17T23:00:00Z"),
        rec("wangwei", 7, name="wangwei", lms="canvas", lms_id="333", lms_late=True),
        rec("zed", 6, name="zed", lms="canvas", lms_id="444", submitted_at="2026-10-17T23:00:00Z"),
        rec("stranger", 4, name="stranger", lms="canvas", lms_id="999")])
    return summary


ROSTER = ("id,name,email,section,extension\n"
          "111,Ada Lovelace,ada@uni.example,A1,\n"
          "222,Émile Zola,emile@uni.example,B2,\n"
          "333,王伟,wang@uni.example,B2,\n"
          "444,=HYPERLINK(\"http://x\"),zed@uni.example,A1,3\n"
          "666,Bo Li,bo@uni.example,C3,\n")


def test_grades_csv_canvas_csv_and_pages_hold_the_final_grade(tmp_path, policy):
    summary = canvas_cohort()
    notes = roster.apply_roster(summary, roster.read_roster(write(tmp_path / "roster.csv", ROSTER)))
    assert notes == ["stranger: not on the roster"]
    out = tmp_path / "out"
    outputs.write_outputs(summary, out)

    grades = table(out / "grades.csv")
    head = grades[0]
    assert head[:18] == ["student", "name", "email", "section", "submitted_at", "late", "late_by", "lms_late", "auto",
                         "auto_max", "written", "written_max", "written_ungraded", "total", "total_max",
                         "late_penalty", "final", "error"] and head[18:] == ["test_a"]
    by = {row[0]: dict(zip(head, row)) for row in grades[1:]}
    assert list(by) == ["lovelaceada", "zolaemile", "wangwei", "zed", "stranger", "666"]
    pick = ("name", "section", "late", "late_by", "lms_late", "total", "late_penalty", "final", "error")
    assert [by["lovelaceada"][k] for k in pick] == ["Ada Lovelace", "A1", "yes", "0:10:01", "", "9.0", "0.0", "9.0", ""]
    assert [by["zolaemile"][k] for k in pick] == ["Émile Zola", "B2", "yes", "2 d 1:00:01", "", "8.0", "3.0", "5.0", ""]
    assert [by["wangwei"][k] for k in pick] == ["王伟", "B2", "", "", "yes", "7.0", "0.0", "7.0", ""]
    assert [by["zed"][k] for k in pick] == ["'=HYPERLINK(\"http://x\")", "A1", "no", "", "", "6.0", "0.0", "6.0", ""]
    assert [by["stranger"][k] for k in pick] == ["stranger", "", "", "", "", "4.0", "0.0", "4.0", ""]
    assert [by["666"][k] for k in ("name", "email", "section", "auto_max", "total", "total_max", "late_penalty",
                                   "final", "error", "test_a")] == \
        ["Bo Li", "bo@uni.example", "C3", "10.0", "0.0", "10.0", "0.0", "0.0", "no submission", "0"]

    assert table(out / "canvas.csv") == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", f"{EXEMPLAR} (98765)"],
        ["    Points Possible", "", "", "", "", "10"],
        ["Ada Lovelace", "111", "", "", "A1", "9"],
        ["Émile Zola", "222", "", "", "B2", "5"],
        ["王伟", "333", "", "", "B2", "7"],
        ["'=HYPERLINK(\"http://x\")", "444", "", "", "A1", "6"],
        ["stranger", "999", "", "", "", "4"],
        ["Bo Li", "666", "", "", "C3", "0"]]

    moodle = table(out / "moodle.csv")
    assert moodle[0] == exports.MOODLE_HEADER and [row[0] for row in moodle[1:]] == \
        ["Participant 111", "Participant 222", "Participant 333", "Participant 444", "Participant stranger",
         "Participant 666"]
    assert [row[4] for row in moodle[1:]] == ["9.00", "5.00", "7.00", "6.00", "4.00", "0.00"]
    assert [row[7] for row in moodle[1:]] == ["Thursday, 15 October 2026, 10:10 PM",
                                              "Saturday, 17 October 2026, 11:00 PM",
                                              "", "Saturday, 17 October 2026, 11:00 PM", "", ""]

    page = (out / "feedback" / "zolaemile.html").read_text()
    assert "Late penalty 3 points (late by 2 d 1:00:01: 3 started days × 10% of 10, at most 50%)." in page
    assert "Final: <b>5 / 10</b>" in page
    md = (out / "feedback" / "zolaemile.md").read_text()
    assert "Late penalty 3 points" in md and "**Final: 5 / 10**" in md
    assert "Canvas marked this submission late" in (out / "feedback" / "wangwei.html").read_text()
    assert "Late penalty" not in (out / "feedback" / "zed.html").read_text()     # three days' extension
    report = (out / "report.html").read_text()
    assert "<th class=\"num\">final</th>" in report and "(−3 late)" in report
    assert "On the roster, no submission (1)" in report and "Bo Li" in report
    assert "late (Canvas)" in report


def test_moodle_worksheet_cell_by_cell(tmp_path, policy):
    summary = CohortSummary(assignment=EXEMPLAR, version="v", results=[
        rec("Jane_Doe", 8, name="Jane Doe", lms="moodle", lms_id="4242", submitted_at="2026-10-17T23:00:00Z",
            manual=[{"question": "written_1", "points": 2.0, "text": "x", "missing": False, "blank": False}]),
        rec("S001", 10, name="S001", email="ada@uni.example", submitted_at="2026-10-15T09:05:00Z",
            manual=[{"question": "written_1", "points": 2.0, "text": "", "missing": False, "blank": True}])])
    roster.apply_roster(summary, [roster.Student("4242", "Jane Doe", "jane@uni.example", "A", "", 2),
                                  roster.Student("S001", "Ada Lovelace", "", "A", "", 3),
                                  roster.Student("5151", "Émile Zola", "emile@uni.example", "B", "", 4)])
    rows = exports.moodle_rows(summary, None, D, now=dt.datetime(2026, 10, 20, 0, 5, tzinfo=dt.UTC))
    stamp = "Tuesday, 20 October 2026, 12:05 AM"
    assert rows == [
        ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Grade can be changed",
         "Last modified (submission)", "Last modified (grade)", "Feedback comments"],
        ["Participant 4242", "Jane Doe", "jane@uni.example", "Submitted for grading", "4.40", "12.00", "Yes",
         "Saturday, 17 October 2026, 11:00 PM", stamp,
         "Tests 8 / 10; written answers 0 / 2 (1 not graded yet); late penalty 3.6; final 4.4 / 12."],
        ["Participant S001", "Ada Lovelace", "ada@uni.example", "Submitted for grading", "10.00", "12.00", "Yes",
         "Thursday, 15 October 2026, 9:05 AM", stamp, "Tests 10 / 10; written answers 0 / 2; final 10 / 12."],
        ["Participant 5151", "Émile Zola", "emile@uni.example", "No submission", "0.00", "12.00", "Yes", "", stamp,
         "No submission."]]
    exports.write_exports(summary, tmp_path, None, D, now=dt.datetime(2026, 10, 20, 0, 5, tzinfo=dt.UTC))
    assert [[csv_uncell(c) for c in row] for row in table(tmp_path / "moodle.csv")] == rows


def test_canvas_ids_outside_a_canvas_cohort_go_to_sis_user_id(policy):
    summary = CohortSummary(assignment=EXEMPLAR, results=[rec("alice", 7, name="alice")])
    roster.apply_roster(summary, [roster.Student("A-17", "Alice Liddell", "", "B", "", 2),
                                  roster.Student("B-18", "Bob", "", "B", "", 3)])
    rows = exports.canvas_rows(summary)
    assert rows[2:] == [["alice", "", "", "", "", "7"],   # alice is not on the roster (her id is not A-17)
                        ["Alice Liddell", "", "A-17", "", "B", "0"], ["Bob", "", "B-18", "", "B", "0"]]
    summary = CohortSummary(assignment=EXEMPLAR, results=[rec("A-17", 7, name="alice")])
    roster.apply_roster(summary, [roster.Student("A-17", "Alice Liddell", "", "B", "", 2),
                                  roster.Student("B-18", "Bob", "", "B", "", 3)])
    assert exports.canvas_rows(summary)[2:] == [["Alice Liddell", "", "A-17", "", "B", "7"],
                                                ["Bob", "", "B-18", "", "B", "0"]]


# -- the Canvas loop (issue 44, item 3): times, the roster's column and SIS ids ------------------
EMPTY_NB = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
CANVAS_GRADEBOOK = ('Student,ID,SIS User ID,SIS Login ID,Section,Homework 0 (11111),'
                    f'{EXEMPLAR} (123456),Current Score\n'
                    '    Points Possible,,,,,10,10,(read only)\n'
                    '"Lovelace, Ada",111,S-001,ada@uni.example,A1,7,,70\n'
                    '"Zola, Émile",222,S-002,ezola,B2,,,\n'
                    '"Li, Bo",666,S-006,bli,C3,,,\n')


def _stub_grading(monkeypatch, scores):
    """grade_cohort as it is, but each submission "graded" at once with a score (no sandbox)."""
    from autograder.cohort import grade as cohort_grade

    def run(todo, assignment, limits, workers, scheduler, progress):
        for sub, digest in todo:
            yield rec(sub.student, scores[sub.lms_id]).with_(submission=str(sub.path), sha256=digest)

    monkeypatch.setattr(cohort_grade, "_run", run)
    monkeypatch.setattr(cohort_grade, "resolve_isolation", lambda isolation: "process")


@pytest.mark.parametrize("times_file", ["times.csv", "submissions.json", None])
def test_a_canvas_download_with_a_times_file_gets_a_late_penalty(tmp_path, monkeypatch, policy, times_file):
    """The whole command (grading stubbed): a Canvas download carries no time, so without a times
    file Canvas's _LATE flag costs nothing; with times.csv or Canvas's submissions JSON at its root,
    the late policy takes its penalty, in grades.csv, canvas.csv and the feedback."""
    _stub_grading(monkeypatch, {"111": 9, "222": 8})
    subs = tmp_path / "submissions"
    subs.mkdir()
    (subs / f"lovelaceada_111_5001_{EXEMPLAR}.ipynb").write_text(EMPTY_NB)
    (subs / f"zolaemile_LATE_222_5002_{EXEMPLAR}.ipynb").write_text(EMPTY_NB)
    if times_file == "times.csv":
        (subs / "times.csv").write_text("student,submitted_at\n111,2026-10-15 23:00 Europe/Berlin\n"
                                        "222,2026-10-17T23:00:00Z\n")
    elif times_file == "submissions.json":
        (subs / "submissions.json").write_text(json.dumps([
            {"user_id": 111, "assignment_id": 98765, "attempt": 1, "submitted_at": "2026-10-15T21:00:00Z",
             "late": False, "attachments": [{"id": 5001}]},
            {"user_id": 222, "assignment_id": 98765, "attempt": 1, "submitted_at": "2026-10-17T23:00:00Z",
             "late": True, "attachments": [{"id": 5002}]}]))
    out = tmp_path / "out"
    assert cli.main(["grade-cohort", str(subs), "--assignment", EXEMPLAR, "--out", str(out), "--no-gradebook",
                     "--quiet"]) == 0
    grades = {row["student"]: row for row in csv.DictReader(open(out / "grades.csv", encoding="utf-8"))}
    pick = ("submitted_at", "late", "late_by", "lms_late", "late_penalty", "final")
    if times_file is None:
        assert [grades["zolaemile"][k] for k in pick] == ["", "", "", "yes", "0.0", "8.0"]
        assert "no late penalty was computed" in (out / "feedback" / "zolaemile.html").read_text()
        return
    assert [grades["lovelaceada"][k] for k in pick] == ["2026-10-15T21:00:00Z", "no", "", "no", "0.0", "9.0"]
    assert [grades["zolaemile"][k] for k in pick] == ["2026-10-17T23:00:00Z", "yes", "2 d 1:00:01", "yes", "3.0",
                                                       "5.0"]
    assert [row[5] for row in table(out / "canvas.csv")[2:]] == ["9", "5"]
    assert "Late penalty 3 points (late by 2 d 1:00:01" in (out / "feedback" / "zolaemile.html").read_text()
    assert not [line for line in (out / "unmatched.txt").read_text().splitlines() if times_file in line]


def test_canvas_csv_keeps_the_rosters_column_and_sis_ids(tmp_path, monkeypatch, policy):
    """With Canvas's gradebook export as the roster, canvas.csv's column is the roster's, id and all
    (here not course_config's 98765, which a note names), and each row carries the roster's ID,
    SIS User ID, SIS Login ID and Section, the absent student's too; read back as the next roster,
    it gives the same column."""
    _stub_grading(monkeypatch, {"111": 9, "222": 8})
    subs = tmp_path / "submissions"
    subs.mkdir()
    (subs / f"lovelaceada_111_5001_{EXEMPLAR}.ipynb").write_text(EMPTY_NB)
    (subs / f"zolaemile_222_5002_{EXEMPLAR}.ipynb").write_text(EMPTY_NB)
    gradebook = write(tmp_path / "Grades-PHYS101.csv", CANVAS_GRADEBOOK)
    out = tmp_path / "out"
    args = ["grade-cohort", str(subs), "--assignment", EXEMPLAR, "--out", str(out), "--no-gradebook", "--quiet"]
    assert cli.main([*args, "--roster", str(gradebook)]) == 0
    expected = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", f"{EXEMPLAR} (123456)"],
        ["    Points Possible", "", "", "", "", "10"],
        ["Lovelace, Ada", "111", "S-001", "ada@uni.example", "A1", "9"],
        ["Zola, Émile", "222", "S-002", "ezola", "B2", "8"],
        ["Li, Bo", "666", "S-006", "bli", "C3", "0"]]
    assert table(out / "canvas.csv") == expected
    again = roster.read_roster(out / "canvas.csv")
    assert again.canvas_column(EXEMPLAR) == f"{EXEMPLAR} (123456)"
    summary = CohortSummary(assignment=EXEMPLAR, results=[rec("x", 1, lms="canvas", lms_id="111")])
    assert roster.apply_roster(summary, roster.read_roster(gradebook)) == [
        f"canvas.csv's column is '{EXEMPLAR} (123456)', as the roster's header names it; "
        f"course_config.CANVAS_ASSIGNMENT_IDS gives {EXEMPLAR} the id 98765"]


def test_the_rosters_canvas_column_is_found_by_id_then_by_name(monkeypatch):
    monkeypatch.setattr(course_config, "CANVAS_ASSIGNMENT_IDS", {EXEMPLAR: 98765}, raising=False)
    named = roster.Roster(format="canvas", columns=["Quiz 1 (55)", "Ising perceptron (98765)",
                                                    "EX2.3 Ising Perceptron (4)"])
    assert named.canvas_column(EXEMPLAR) == "Ising perceptron (98765)"  # by course_config's id, any name
    monkeypatch.setattr(course_config, "CANVAS_ASSIGNMENT_IDS", {}, raising=False)
    assert named.canvas_column(EXEMPLAR) == "EX2.3 Ising Perceptron (4)"  # by name, case and punctuation aside
    assert roster.Roster(format="canvas", columns=["Quiz 1 (55)"]).canvas_column(EXEMPLAR) == ""
