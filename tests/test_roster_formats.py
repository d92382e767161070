"""Rosters as the LMS exports them (issue 37, item 3): ``--roster`` reads Canvas's gradebook export
(``canvas.csv`` too), Moodle's participants export and Moodle's grading worksheet as they are,
recognised by their header, and says which it recognised; the roster's own five columns work as
before. Bad input (a short roster line, an unknown header, a folder of PDFs, a path that does not
exist) is refused in words with exit 2, and nothing in --out or the gradebook changes.

Built from small CSV files and synthetic records: nothing is graded here."""

import csv

import pytest
from conftest import EXEMPLAR

import course_config
from autograder import cli
from autograder.cohort import exports, roster
from autograder.cohort.handscores import write_rows
from autograder.cohort.record import CohortSummary, Record

BOM = "\ufeff"


def rec(student, score, **extra):
    return Record.from_dict({
        "student": student, "assignment": EXEMPLAR, "score": float(score), "max_score": 10.0, "version": "v",
        "tests": [{"name": "test_a", "points": float(score), "max_points": 10.0, "passed": score == 10,
                   "message": "checked a"}],
        "errors": [], "manual": [], "seconds": 0.1, "name": "", "email": "", "submitted_at": "",
        "lms": "", "lms_id": "", "lms_late": None, **extra})


def write(path, text, newline="\n"):
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def fields(students):
    return [(s.id, s.name, s.email, s.section, s.aliases) for s in students]


def table(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


@pytest.fixture
def no_policy(monkeypatch):
    monkeypatch.setattr(course_config, "DEADLINES", {}, raising=False)
    monkeypatch.setattr(course_config, "LATE_POLICY", {}, raising=False)
    monkeypatch.setattr(course_config, "CANVAS_ASSIGNMENT_IDS", {EXEMPLAR: 98765}, raising=False)


# -- Canvas's gradebook export -----------------------------------------------------------------
CANVAS_EXPORT = (
    BOM + '"Student","ID","SIS User ID","SIS Login ID","Integration ID","Section","Homework 1 (98765)",'
    '"Assignments Current Score","Current Score","Final Score"\n'
    ',,,,,,"Manual Posting",,,\n'
    '"    Points Possible",,,,,,10.00,(read only),(read only),(read only)\n'
    '"Lovelace, Ada",1101,S-001,ada@uni.example,,Section A,9.00,90.00,90.00,90.00\n'
    '"Zola, Émile",1102,S-002,ezola,,Section B,,,,\n'
    '"佐藤, 花子",1103,,,,"Section A and Section B",7.00,70.00,70.00,70.00\n'
    '"Student, Test",1199,,,,Section A,,,,\n')


def test_canvas_gradebook_export_is_read_as_exported(tmp_path):
    path = write(tmp_path / "Grades-PHYS101.csv", CANVAS_EXPORT, newline="\r\n")  # Excel's BOM and CRLF
    students = roster.read_roster(path)
    assert students.format == "canvas"
    assert fields(students) == [
        ("1101", "Lovelace, Ada", "ada@uni.example", "Section A", ("S-001", "ada@uni.example")),
        ("1102", "Zola, Émile", "", "Section B", ("S-002", "ezola")),
        ("1103", "佐藤, 花子", "", "Section A and Section B", ())]
    assert [s.line for s in students] == [4, 5, 6] and not any(s.match_name for s in students)
    assert students.left_out == ["line 2 (a line naming nobody)", 'line 3 ("Points Possible")',
                                 "line 7 (Canvas's Test Student)"]
    said = students.describe()
    assert said.startswith(f"{path}: Canvas's gradebook export, 3 student(s); not students: line 2") and \
        '"Points Possible"' in said and "\n" not in said


def test_canvas_export_without_sis_columns_and_a_muted_line(tmp_path):
    path = write(tmp_path / "grades.csv", 'Student,ID,Section,Quiz 1 (55)\n'
                                          ',,,Muted\n'
                                          '    Points Possible,,,5\n'
                                          '"Doe, Jane",4711,L01,4\n')
    students = roster.read_roster(path)
    assert students.format == "canvas" and fields(students) == [("4711", "Doe, Jane", "", "L01", ())]


def test_canvas_csv_round_trips_as_a_roster_in_a_canvas_cohort(tmp_path, no_policy):
    """canvas.csv written for a Canvas download is read back as the next run's roster: every
    submission matched by Canvas's user id, the absent student listed again."""
    own = write(tmp_path / "roster.csv", "id,name,email,section\n"
                                         "1101,Ada Lovelace,ada@uni.example,A\n"
                                         "1102,Émile Zola,emile@uni.example,B\n"
                                         "1103,佐藤花子,,A\n")

    def cohort():
        return CohortSummary(assignment=EXEMPLAR, version="v", results=[
            rec("lovelaceada", 9, name="lovelaceada", lms="canvas", lms_id="1101"),
            rec("zolaemile", 8, name="zolaemile", lms="canvas", lms_id="1102"),
            rec("stranger", 4, name="stranger", lms="canvas", lms_id="999")])

    first = cohort()
    assert roster.apply_roster(first, roster.read_roster(own)) == ["stranger: not on the roster"]
    write_rows(tmp_path / "canvas.csv", exports.canvas_rows(first))
    again = roster.read_roster(tmp_path / "canvas.csv")
    assert again.format == "canvas" and again.left_out == ['line 2 ("Points Possible")']
    assert [(s.id, s.name, s.section) for s in again] == [
        ("1101", "Ada Lovelace", "A"), ("1102", "Émile Zola", "B"), ("999", "stranger", ""),
        ("1103", "佐藤花子", "A")]
    second = cohort()
    assert roster.apply_roster(second, again) == []
    assert [(r.roster_id, r.name, r.roster_match) for r in second.results] == [
        ("1101", "Ada Lovelace", "canvas id"), ("1102", "Émile Zola", "canvas id"), ("999", "stranger", "canvas id")]
    assert [a.roster_id for a in second.absent] == ["1103"]


def test_canvas_csv_round_trips_outside_a_canvas_cohort_by_sis_user_id(tmp_path, no_policy):
    own = write(tmp_path / "roster.csv", "id,name,section\nA-17,Alice Liddell,B\nB-18,Bob Builder,B\n")
    first = CohortSummary(assignment=EXEMPLAR, results=[rec("A-17", 7, name="A-17"), rec("ghost", 3, name="ghost")])
    roster.apply_roster(first, roster.read_roster(own))
    write_rows(tmp_path / "canvas.csv", exports.canvas_rows(first))
    again = roster.read_roster(tmp_path / "canvas.csv")
    assert [(s.id, s.name) for s in again] == [("A-17", "Alice Liddell"), ("B-18", "Bob Builder")]
    assert again.left_out == ['line 2 ("Points Possible")',
                              "line 4 ('ghost' without an ID, SIS User ID or SIS Login ID)"]
    second = CohortSummary(assignment=EXEMPLAR, results=[rec("a-17", 7), rec("B-18", 5)])
    assert roster.apply_roster(second, again) == []
    assert [(r.roster_id, r.name, r.roster_match) for r in second.results] == [
        ("A-17", "Alice Liddell", "student id"), ("B-18", "Bob Builder", "student id")]


def test_a_canvas_rosters_sis_ids_match_folders_named_by_them(tmp_path):
    """An nbgrader cohort whose folders are named by the SIS id or login: matched by those, while
    the roster's id stays Canvas's user id (canvas.csv's ID)."""
    students = roster.read_roster(write(tmp_path / "g.csv", CANVAS_EXPORT))
    summary = CohortSummary(assignment=EXEMPLAR, results=[rec("s-001", 9), rec("ezola", 8), rec("1103", 7)])
    assert roster.apply_roster(summary, students) == [  # its one assignment column is not this one's
        f"the roster has no column of {EXEMPLAR} ('Homework 1 (98765)'); canvas.csv's column is {EXEMPLAR!r} "
        "(Canvas matches it by name)"]
    assert [(r.roster_id, r.name, r.email) for r in summary.results] == [
        ("1101", "Lovelace, Ada", "ada@uni.example"), ("1102", "Zola, Émile", ""), ("1103", "佐藤, 花子", "")]
    assert exports.canvas_rows(summary)[2:] == [  # the roster's ID, SIS User ID and SIS Login ID, as they are
        ["Lovelace, Ada", "1101", "S-001", "ada@uni.example", "Section A", "9"],
        ["Zola, Émile", "1102", "S-002", "ezola", "Section B", "8"],
        ["佐藤, 花子", "1103", "", "", "Section A and Section B", "7"]]


# -- Moodle's participants export --------------------------------------------------------------
MOODLE_PARTICIPANTS = (
    BOM + "First name,Last name,ID number,Username,Email address,Roles,Groups,Last access to course,Status\n"
    "Ada,Lovelace,S-001,alovelace,ada@uni.example,Student,Group A,Now,Active\n"
    "Émile,Zola,,ezola,emile@uni.example,Student,Group B,2 days,Active\n"
    "花子,佐藤,,hsato,hanako@uni.example,Student,,Never,Active\n"
    "Tess,Teacher,T-9,tteach,tess@uni.example,Teacher,,Now,Active\n"
    "John,Smith,S-004,jsmith1,john1@uni.example,Student,,Now,Active\n"
    "John,Smith,S-005,jsmith2,john2@uni.example,Student,,Now,Active\n")


def test_moodle_participants_export_is_read_as_exported(tmp_path):
    students = roster.read_roster(write(tmp_path / "courseid_7_participants.csv", MOODLE_PARTICIPANTS))
    assert students.format == "moodle-participants"
    assert fields(students) == [
        ("S-001", "Ada Lovelace", "ada@uni.example", "Group A", ("alovelace", "ada@uni.example")),
        ("ezola", "Émile Zola", "emile@uni.example", "Group B", ("emile@uni.example",)),
        ("hsato", "花子 佐藤", "hanako@uni.example", "", ("hanako@uni.example",)),
        ("S-004", "John Smith", "john1@uni.example", "", ("jsmith1", "john1@uni.example")),
        ("S-005", "John Smith", "john2@uni.example", "", ("jsmith2", "john2@uni.example"))]
    assert all(s.match_name for s in students) and students.left_out == ["line 5 (staff)"]
    assert "Moodle's participants export, 5 student(s)" in students.describe()


def test_moodle_participants_match_a_moodle_download_by_a_name_on_one_line_only(tmp_path):
    """A Moodle download carries its participant id, which the participants export lacks: matched by
    the full name where it is one roster line's and one submission's; two John Smiths are not."""
    students = roster.read_roster(write(tmp_path / "p.csv", MOODLE_PARTICIPANTS))
    summary = CohortSummary(assignment=EXEMPLAR, results=[
        rec("Ada_Lovelace", 9, name="Ada  Lovelace", lms="moodle", lms_id="501"),
        rec("Emile_Zola", 8, name="émile zola", lms="moodle", lms_id="502"),
        rec("John_Smith", 5, name="John Smith", lms="moodle", lms_id="503"),
        rec("hsato", 7, name="hsato")])                                      # an nbgrader folder: her username
    notes = roster.apply_roster(summary, students)
    assert notes == ["John_Smith: not on the roster"]
    assert [(r.roster_id, r.name, r.section, r.roster_match) for r in summary.results] == [
        ("S-001", "Ada Lovelace", "Group A", "name"), ("ezola", "Émile Zola", "Group B", "name"),
        ("", "John Smith", "", ""), ("hsato", "花子 佐藤", "", "student id")]
    assert [a.roster_id for a in summary.absent] == ["S-004", "S-005"]


def test_a_semicolon_separated_export_as_a_spreadsheet_saves_it(tmp_path):
    path = write(tmp_path / "p.csv", BOM + "First name;Surname;Email address\nÉmile;Zola;emile@uni.example\n",
                 newline="\r\n")
    students = roster.read_roster(path)
    assert students.format == "moodle-participants"
    assert fields(students) == [("emile@uni.example", "Émile Zola", "emile@uni.example", "", ())]


# -- Moodle's grading worksheet ----------------------------------------------------------------
def test_moodle_grading_worksheet_is_read_as_exported(tmp_path):
    path = write(tmp_path / "Grades-Homework 1.csv", BOM + ",".join(exports.MOODLE_HEADER) + "\n"
                 '"Participant 4242","Jane Doe",jane@uni.example,"Submitted for grading",,10.00,Yes,'
                 '"Thursday, 15 October 2026, 9:30 PM",-,\n'
                 '"Participant 4243","Zoë Ångström",zoe@uni.example,"No submission",,10.00,Yes,-,-,\n')
    students = roster.read_roster(path)
    assert students.format == "moodle-worksheet" and students.left_out == []
    assert fields(students) == [("4242", "Jane Doe", "jane@uni.example", "", ()),
                                ("4243", "Zoë Ångström", "zoe@uni.example", "", ())]
    summary = CohortSummary(assignment=EXEMPLAR, results=[rec("Jane_Doe", 8, name="Jane Doe", lms="moodle",
                                                              lms_id="4242")])
    assert roster.apply_roster(summary, students) == []
    assert summary.results[0].roster_match == "moodle id" and [a.name for a in summary.absent] == ["Zoë Ångström"]


def test_moodle_csv_round_trips_as_a_roster(tmp_path, no_policy):
    first = CohortSummary(assignment=EXEMPLAR, results=[
        rec("Jane_Doe", 8, name="Jane Doe", email="jane@uni.example", lms="moodle", lms_id="4242"),
        rec("Zoe", 6, name="Zoë Ångström", lms="moodle", lms_id="4243")])
    exports.write_exports(first, tmp_path)
    again = roster.read_roster(tmp_path / "moodle.csv")
    assert again.format == "moodle-worksheet"
    assert [(s.id, s.name, s.email) for s in again] == [("4242", "Jane Doe", "jane@uni.example"),
                                                        ("4243", "Zoë Ångström", "")]
    assert roster.apply_roster(first, again) == [] and [r.roster_id for r in first.results] == ["4242", "4243"]


# -- the roster's own layout, unchanged ---------------------------------------------------------
def test_the_rosters_own_five_columns_are_read_as_before(tmp_path):
    students = roster.read_roster(write(tmp_path / "roster.csv", BOM + "id,name,email,section,extension\n"
                                        "111,Ada Lovelace,ada@uni.example,A1,\n222,王伟,,B2,2\n"))
    assert students.format == "roster" and students.left_out == []
    assert [(s.id, s.name, s.email, s.section, s.extension, s.line, s.aliases, s.match_name) for s in students] == [
        ("111", "Ada Lovelace", "ada@uni.example", "A1", "", 2, (), False),
        ("222", "王伟", "", "B2", "2", 3, (), False)]
    assert "the roster's own columns (id, name, email, section, extension), 2 student(s)" in students.describe()


# -- malformed rosters ------------------------------------------------------------------------
@pytest.mark.parametrize("text, where, says", [
    ("id,name,email,section,extension\n1,Ada,ada@x,A,\n2,Bob\n", "line 3",
     "2 cells, but the header names 5 (a cell missing"),
    (CANVAS_EXPORT.replace("S-002,ezola,,Section B,,,,", "S-002,ezola"), "line 5", "4 cells, but the header names 10"),
    ("Identifier,Full name,Email address\nParticipant 1,Ada,ada@x,extra\n", "line 2", "4 cells"),
    ("Name,Student number,Mail\nAda,1,ada@x\n", "line 1", "unknown column 'student number'"),
    ("Student,ID,Section,ID\nAda,1,A,2\n", "line 1", "the column 'id' is there twice"),
    ("First name,Last name,Email address\nAda,Lovelace,\n", "line 2", "no id (none of the id columns"),
    ("First name,Last name,Username\nAda,Lovelace,ada\nAlan,Turing,ADA\n", "line 3", "the id 'ADA' is already on"),
])
def test_a_malformed_roster_in_any_layout_is_refused_with_its_line(tmp_path, text, where, says):
    path = write(tmp_path / "roster.csv", text)
    with pytest.raises(roster.RosterError) as err:
        roster.read_roster(path)
    assert f"{path}, {where}:" in str(err.value) and says in str(err.value), str(err.value)


def test_an_unknown_header_names_the_layouts_that_are_known(tmp_path):
    path = write(tmp_path / "roster.csv", "Vorname,Nachname,E-Mail-Adresse\nAda,Lovelace,ada@x\n")
    with pytest.raises(roster.RosterError) as err:
        roster.read_roster(path)
    message = str(err.value)
    assert "unknown column 'vorname'" in message
    for known in ("id, name, email, section, extension", "Canvas's gradebook export", "SIS User ID",
                  "Moodle's participants", "First name", "Moodle's grading worksheet", "Identifier"):
        assert known in message


def test_a_roster_that_does_not_exist_is_refused_in_words(tmp_path):
    with pytest.raises(roster.RosterError, match="roster.csv does not exist; give the roster's CSV file"):
        roster.read_roster(tmp_path / "roster.csv")
    with pytest.raises(roster.RosterError, match="is not a file"):
        roster.read_roster(tmp_path)


# -- pdl grade-cohort -------------------------------------------------------------------------
def _graded_out(tmp_path):
    """An --out of an earlier run and a gradebook file, as bytes to compare."""
    out = tmp_path / "out"
    (out / "records").mkdir(parents=True)
    (out / "records" / "ada.json").write_text('{"student": "ada", "score": 9}')
    (out / "grades.csv").write_text("student,final\nada,9\nbob,7\n")
    (out / "canvas.csv").write_text("Student,ID\nAda,1\n")
    db = tmp_path / "gradebook.db"
    db.write_bytes(b"SQLite format 3\x00 as it was")
    return out, db


def _state(out, db):
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} | \
        {"db": db.read_bytes()}


def _subs(tmp_path):
    subs = tmp_path / "subs"
    (subs / "ada").mkdir(parents=True)
    (subs / "ada" / f"{EXEMPLAR}.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, '
                                                     '"nbformat_minor": 5}')
    return subs


@pytest.mark.parametrize("case, says", [
    ("short roster line", "roster.csv, line 3: 2 cells, but the header names 3"),
    ("unknown roster header", "unknown column 'matrikel'; a roster's header is the roster's own"),
    ("roster missing", "missing.csv does not exist"),
    ("submissions missing", "nowhere does not exist"),
    ("only PDFs", f"no notebook of {EXEMPLAR} found in"),
])
def test_grade_cohort_refuses_bad_input_with_exit_2_and_changes_nothing(case, says, tmp_path, capsys, monkeypatch):
    out, db = _graded_out(tmp_path)
    before = _state(out, db)
    subs = _subs(tmp_path)
    rost = write(tmp_path / "roster.csv", "id,name,section\nada,Ada Lovelace,A\n")
    if case == "short roster line":
        write(rost, "id,name,section\nada,Ada Lovelace,A\nbob,Bob\n")
    elif case == "unknown roster header":
        write(rost, "Matrikel,Name\n1,Ada\n")
    elif case == "roster missing":
        rost = tmp_path / "missing.csv"
    elif case == "submissions missing":
        subs = tmp_path / "nowhere"
    elif case == "only PDFs":
        subs = tmp_path / "pdfs"
        (subs / "ada").mkdir(parents=True)
        (subs / "ada" / "ex2_3.pdf").write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        (subs / "Bob_Builder_12_assignsubmission_file_").mkdir()
        (subs / "Bob_Builder_12_assignsubmission_file_" / "answers.pdf").write_bytes(b"%PDF-1.4\n")
    rc = cli.main(["grade-cohort", str(subs), "--assignment", EXEMPLAR, "--out", str(out), "--roster", str(rost),
                   "--gradebook", f"sqlite:///{db}", "--quiet", "--workers", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and says in err and "Nothing was graded" in err and "Traceback" not in err, err
    assert _state(out, db) == before


def test_grade_cohort_says_which_layout_it_recognised(tmp_path, capsys, monkeypatch, no_policy):
    """The whole command with a Moodle worksheet as the roster (grading stubbed: synthetic records),
    then its canvas.csv as the next run's roster."""
    def graded(source, assignment, out, **kwargs):
        return CohortSummary(assignment=assignment, version="v", graded=2, students=2, results=[
            rec("Jane_Doe", 8, name="Jane Doe", lms="moodle", lms_id="4242"),
            rec("Zoe", 6, name="Zoe", lms="moodle", lms_id="4243")])

    monkeypatch.setattr("autograder.cohort.grade.grade_cohort", graded)
    worksheet = write(tmp_path / "worksheet.csv", BOM + "Identifier,Full name,Email address,Status,Grade,"
                      "Maximum Grade\nParticipant 4242,Jane Doe,jane@uni.example,Submitted for grading,,10\n"
                      "Participant 4243,Zoë Ångström,zoe@uni.example,Submitted for grading,,10\n"
                      "Participant 4244,佐藤花子,hanako@uni.example,No submission,,10\n", newline="\r\n")
    out = tmp_path / "out"
    args = ["grade-cohort", str(tmp_path), "--assignment", EXEMPLAR, "--out", str(out), "--no-gradebook", "--quiet"]
    assert cli.main([*args, "--roster", str(worksheet)]) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if "Moodle's offline grading worksheet" in line]
    assert said == [f"roster: {worksheet}: Moodle's offline grading worksheet, 3 student(s)"]
    grades = {row[0]: row for row in table(out / "grades.csv")[1:]}
    assert grades["Zoe"][1:3] == ["Zoë Ångström", "zoe@uni.example"] and grades["4244"][1] == "佐藤花子"

    assert cli.main([*args, "--roster", str(out / "canvas.csv")]) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("roster:")]
    assert said[0] == (f"roster: {out / 'canvas.csv'}: Canvas's gradebook export, 3 student(s); "
                       'not students: line 2 ("Points Possible")')
