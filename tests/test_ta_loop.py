"""The TA's loop, closed: hand scores typed in written_scores.csv or in nbgrader's formgrader
reach grades.csv, the gradebook (`nbgrader export`) and the feedback pages; identities and
times are carried; nbgrader's own flow is clean; outputs are safe to open."""

import csv
import html
import json
import os
import subprocess
import sys
import time

import pytest
from conftest import EXEMPLAR

from autograder.cohort import grade as cohort
from autograder.cohort import handscores, layouts, outputs, pages
from autograder.cohort.handscores import csv_uncell
from autograder.cohort.record import CohortSummary, Record
from autograder.course import nbgrader as nbgrader_course
from autograder.run.paths import REPO
from autograder.run.record import Answer, TestResult

EXAMPLES = REPO / "examples" / "submissions" / EXEMPLAR


def pdl(*args, rc: int = 0):
    proc = subprocess.run([sys.executable, "-m", "autograder.cli", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == rc, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout + proc.stderr


def rows(path):
    with open(path, newline="") as f:
        return [{k: csv_uncell(v) for k, v in row.items()} for row in csv.DictReader(f)]


def export(db, dest):
    nbgrader_course._nbgrader("export", f"--to={dest}", db_url=db)
    return {r["student_id"]: r for r in rows(dest)}


def edit_scores(path, changes, later=True):
    """What a TA does in a spreadsheet: change some cells, save."""
    table = rows(path)
    for row in table:
        for (student, question), values in changes.items():
            if (row["student"], row["question"]) == (student, question):
                row.update(values)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    if later:  # saved after anything else touched the gradebook
        stamp = time.time() + 5
        os.utime(path, (stamp, stamp))


def formgrader(db, student, question, score=None, comment=None):
    """What nbgrader's formgrader writes when a TA grades a written answer there."""
    from nbgrader.api import Gradebook

    with Gradebook(db) as gb:
        if score is not None:
            grade = gb.find_grade(question, EXEMPLAR, EXEMPLAR, student)
            grade.manual_score = score
            grade.needs_manual_grade = False
        if comment is not None:
            gb.find_comment(question, EXEMPLAR, EXEMPLAR, student).manual_comment = comment
        gb.db.commit()


@pytest.mark.xdist_group("nbgrader")
def test_demo_cohort_then_hand_scores_reach_grades_gradebook_and_feedback(tmp_path):
    release = nbgrader_course.course_root() / "release"
    release_before = release.exists()
    out, db = tmp_path / "demo-cohort", f"sqlite:///{tmp_path / 'gradebook.db'}"
    # the demo's cohort step (scripts/demo.sh), into a folder of this test's own
    cmd = ["grade-cohort", EXAMPLES, "--assignment", EXEMPLAR, "--call-timeout", "5", "--out", out,
           "--gradebook", db, "--quiet"]
    first = pdl(*cmd, rc=1)  # the invalid JSON is unreadable: exit status 1, its last line says so
    assert "registering" in first and "5 graded now" in first
    assert first.rstrip().splitlines()[-1].startswith("pdl: 0 not graded") and "1 unreadable" in first
    assert release.exists() == release_before  # nbgrader's release went to a temporary folder
    grades = {r["student"]: r for r in rows(out / "grades.csv")}
    assert grades["partial"]["written"] == "0.0" and grades["partial"]["written_ungraded"] == "2"
    assert grades["stub"]["written_ungraded"] == "0"       # a blank answer needs no TA
    assert grades["invalid_json"]["written_max"] == grades["partial"]["written_max"] == "2.0"

    # the TA grades two answers in the spreadsheet, and reruns
    comment = "Right idea: $\\partial_\\alpha \\varphi$ is a sigmoid, but <b>no</b> latent heat."
    edit_scores(out / "written_scores.csv", {("partial", "written_1"): {"score": "1", "comment": comment},
                                             ("correct", "written_1"): {"score": "1"}})
    second = pdl(*cmd, rc=1)
    assert "0 graded now" in second and "2 new in the CSV" in second
    grades = {r["student"]: r for r in rows(out / "grades.csv")}
    auto = float(grades["partial"]["auto"])  # the tests' score, as graded in the first run
    top = float(grades["correct"]["auto"])  # the correct notebook's: every hidden test's points
    assert top == float(grades["correct"]["auto_max"]) > 0
    assert 0 < auto < top and grades["partial"]["written"] == "1.0" and float(grades["partial"]["total"]) == auto + 1
    assert grades["partial"]["written_ungraded"] == "1"
    exported = export(db, tmp_path / "export1.csv")
    assert float(exported["partial"]["score"]) == auto + 1 and float(exported["correct"]["score"]) == top + 1
    page = (out / "feedback" / "partial.html").read_text()
    assert ("Right idea" in page and "<math" in page and "&lt;b&gt;no&lt;/b&gt;" in page
            and f"{auto + 1:g} / {top + 2:g}" in page)
    md = (out / "feedback" / "partial.md").read_text()
    assert "written_1: 1 / 1" in md and "Right idea" in md and "\\<b>no\\</b>" in md  # shown as typed, not markup

    # another TA grades in formgrader (same gradebook); the CSV's scores stay
    formgrader(db, "correct", "written_2", score=0.5, comment="half: the spinodal is missing")
    third = pdl(*cmd, rc=1)
    assert "1 new in the gradebook" in third
    scores = {(r["student"], r["question"]): r for r in rows(out / "written_scores.csv")}
    assert (scores[("correct", "written_2")]["score"], scores[("correct", "written_2")]["comment"]) == \
           ("0.5", "half: the spinodal is missing")
    assert scores[("partial", "written_1")]["comment"] == comment
    assert "half: the spinodal is missing" in (out / "feedback" / "correct.html").read_text()
    assert float(export(db, tmp_path / "export2.csv")["correct"]["score"]) == top + 1.5

    # both places changed the same score: the one saved last wins, the other is kept aside
    formgrader(db, "partial", "written_1", score=0.5)
    edit_scores(out / "written_scores.csv", {("partial", "written_1"): {"score": "0"}}, later=True)
    fourth = subprocess.run([sys.executable, "-m", "autograder.cli", *map(str, cmd)], cwd=REPO,
                            capture_output=True, text=True, timeout=600)
    assert fourth.returncode == 1 and "changed in both places" in fourth.stderr
    scores = {(r["student"], r["question"]): r for r in rows(out / "written_scores.csv")}
    assert scores[("partial", "written_1")]["score"] == "0"
    conflicts = rows(out / "hand_score_conflicts.csv")
    assert [(c["kept"], c["dropped"], c["dropped_from"]) for c in conflicts] == [("0", "0.5", "gradebook")]
    assert float(export(db, tmp_path / "export3.csv")["partial"]["score"]) == auto  # the written answer now scores 0


@pytest.mark.xdist_group("nbgrader")
def test_nbgrader_flow_identities_and_times(tmp_path, correct_nb):
    """nbgrader's own autograde accepts an honest release without checksum warnings (and still
    warns about a tampered cell); names, emails and submission times reach the gradebook."""
    from nbgrader.api import Gradebook

    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    root = tmp_path / "course"
    released = nbgrader_course.generate_assignment(EXEMPLAR, db_url=db, root=root)
    text = released.read_text()
    assert "*Your answer here.*" in text and "BEGIN HIDDEN TESTS" not in text
    nb = json.loads(text)
    tampered = json.loads(text)
    hidden = next(c for c in tampered["cells"] if "hidden-test" in c["metadata"].get("tags", []))
    hidden["source"] = "pass  # my own test"
    for student, content in {"honest": nb, "mallory": tampered}.items():
        path = tmp_path / f"{student}.ipynb"
        path.write_text(json.dumps(content))
        nbgrader_course.submit(EXEMPLAR, student, path, root=root)
    log = nbgrader_course.autograde(EXEMPLAR, db_url=db, root=root).stderr
    warned = [ln for ln in log.splitlines() if "checksum" in ln and "has changed" in ln]
    assert len(warned) == 1 and hidden["metadata"]["nbgrader"]["grade_id"] in warned[0], warned

    # the cohort's identities and times, recorded in the same gradebook (no second release)
    (root / "submitted" / "honest" / EXEMPLAR / "timestamp.txt").write_text("2026-10-15 21:30:00.5 UTC")
    subs, unmatched = layouts.discover(root / "submitted", EXEMPLAR)
    assert not [u for u in unmatched if "timestamp.txt" in u]
    by = {s.student: s for s in subs}
    assert by["honest"].submitted_at == "2026-10-15T21:30:00Z" and by["mallory"].submitted_at == ""
    rec = Record(assignment=EXEMPLAR, submission="", score=3.0, max_score=24.0)
    who = layouts.Submission("dan42", tmp_path, name="Dan van Damme", email="dan@uni.example",
                            submitted_at="2026-10-16T08:00:00Z", raw="dan42")
    summary = CohortSummary(assignment=EXEMPLAR, results=[cohort.with_identity(rec, who)])
    outputs.record_in_gradebook(summary, db)
    with Gradebook(db) as gb:
        student = gb.find_student("dan42")
        assert (student.first_name, student.last_name, student.email) == ("Dan van", "Damme", "dan@uni.example")
        assert str(gb.find_submission(EXEMPLAR, "dan42").timestamp).startswith("2026-10-16 08:00:00")


def test_gradescope_identities_collisions_and_late_flags(tmp_path, monkeypatch, correct_nb):
    text = json.dumps(correct_nb)
    meta = ("submission_1:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: S001\n    :email: ada@uni.example\n"
            "  :created_at: 2026-10-15 23:30:00.123456000 +02:00\n"
            "submission_2:\n  :submitters:\n  - :name: Bob\n    :sid: S002\n  - :name: Carl\n    :sid: S003\n"
            "  :created_at: 2026-10-16 09:00:00 +02:00\n")
    files = {"submission_metadata.yml": meta, "submission_1/x.ipynb": text, "submission_2/y.ipynb": text,
             "carol/a.ipynb": text, "carol!/a.ipynb": text, "Carol/a.ipynb": text, ".../a.ipynb": text}
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    subs, unmatched = layouts.discover(tmp_path, EXEMPLAR)
    ids = [s.student.lower() for s in subs]
    assert len(set(ids)) == len(ids) == 7 and not unmatched  # distinct even where case is not
    by_raw = {s.raw: s for s in subs}
    assert by_raw["Carol"].student == "Carol" and not by_raw["Carol"].note  # first of the clean names
    assert by_raw["carol"].student.startswith("carol_") and by_raw["carol!"].student.startswith("carol_")
    assert "collides" in by_raw["carol!"].note and by_raw["..."].student.startswith("student_")
    assert layouts.discover(tmp_path, EXEMPLAR)[0] == subs      # the same ids on every run
    ada = by_raw["S001"]
    assert (ada.student, ada.name, ada.email, ada.submitted_at) == ("S001", "Ada Lovelace", "ada@uni.example",
                                                                    "2026-10-15T21:30:00Z")
    assert "group submission" in by_raw["S002"].note
    assert by_raw["S003"].path == by_raw["S002"].path  # every submitter of a group gets the grade

    import course_config
    monkeypatch.setattr(course_config, "DEADLINES", {EXEMPLAR: "2026-10-15 23:59:59 Europe/Berlin"}, raising=False)
    rec = Record(assignment=EXEMPLAR, submission="", score=1.0, max_score=2.0,
                 tests=[TestResult("t", 1, 2, False, "m")])
    summary = CohortSummary(assignment=EXEMPLAR, version="v", notes=[s.note for s in subs if s.note],
                            results=[cohort.with_identity(rec, s) for s in subs])
    outputs.write_outputs(summary, tmp_path / "out")
    grades = {r["student"]: r for r in rows(tmp_path / "out" / "grades.csv")}
    assert grades["S001"]["late"] == "no" and grades["S002"]["late"] == "yes" and grades["S002"]["late_by"] == "9:00:01"
    assert grades["S001"]["name"] == "Ada Lovelace" and grades["Carol"]["late"] == ""
    assert "late 9:00:01" in (tmp_path / "out" / "report.html").read_text()


def test_csv_cells_that_look_like_formulas_are_inert(tmp_path):
    ids = [layouts._student_id(raw) for raw in ("-1-1", "@SUM_1", "--x")]   # ids keep - and @
    names = ["=HYPERLINK(\"http://x\",\"y\")", "+1", "\t=1"]
    results = [Record(student=s, name=n, email=f"@{s}", assignment=EXEMPLAR, submission="", score=0.0, max_score=1.0,
                      errors=[f"=cmd|' /C calc'!A0 {s}"],
                      manual=[Answer("written_1", 1.0, text="x")])
               for s, n in zip(ids, names)]
    summary = CohortSummary(assignment=EXEMPLAR, version="v", results=results)
    outputs.write_outputs(summary, tmp_path)
    edit_scores(tmp_path / "written_scores.csv", {("-1-1", "written_1"): {"score": "1", "comment": "=1+1 sure"}})
    outputs.write_outputs(summary, tmp_path)
    for name in ("grades.csv", "written_scores.csv"):
        with open(tmp_path / name, newline="") as f:
            for row in csv.reader(f):
                assert not [cell for cell in row if cell[:1] in ("=", "+", "-", "@", "\t", "\r")], (name, row)
    grades = {r["student"]: r for r in rows(tmp_path / "grades.csv")}
    assert set(grades) == set(ids) == {"-1-1", "@SUM_1", "--x"} and grades["-1-1"]["written"] == "1.0"
    assert grades["@SUM_1"]["name"] == "+1"
    scores = {(r["student"], r["question"]): r for r in rows(tmp_path / "written_scores.csv")}
    assert scores[("-1-1", "written_1")]["comment"] == "=1+1 sure"   # read back as typed


def test_feedback_says_one_problem_once_escapes_html_and_counts_nbgrader_placeholder_as_blank():
    reason = ("the notebook is not valid JSON (Expecting ',' delimiter: line 785 column 56 (char 30889)); "
              "re-download it from Jupyter with File > Save and submit that file")
    tests = [{"name": f"test_{k}", "points": 0.0, "max_points": 1.0, "passed": False,
              "message": f"check {k}: the notebook could not be read: {reason}", "diagnosis": ""} for k in range(5)]
    tests[0]["diagnosis"] = "used <the> wrong sign"
    rec = Record.from_dict({"student": "s", "assignment": EXEMPLAR, "score": 0.0, "max_score": 5.0, "version": "v",
                            "errors": [f"invalid notebook: {reason}"], "tests": tests,
                            "manual": [{"question": "written_1", "points": 1.0, "text": "YOUR ANSWER HERE",
                                        "missing": False, "blank": False}]})
    md, page = pages.feedback_markdown(rec), pages.feedback_html(rec)
    assert md.count(reason) == 1 and page.count(html.escape(reason, quote=False)) == 1  # .md: plain text
    assert "written_1: left blank" in md and "0 of 1 answered" in md
    assert "used \\<the> wrong sign" in md and "used &lt;the&gt; wrong sign" in page


def test_eta_says_it_does_not_know_while_a_submission_hangs():
    import io

    from autograder.cohort.grade import progress_bar

    screen = io.StringIO()
    bar = progress_bar(3, "grading", True, {"call_timeout": 60, "timeout": 300}, patience=0.5, file=screen)
    bar.update()
    bar.update()
    time.sleep(2.2)                      # the third one hangs
    stalled = screen.getvalue().split("\r")[-1]
    bar.update()
    bar.close()
    assert "<?" in stalled and "waiting" in stalled and "60 s per call" in stalled, stalled


def test_hand_score_merge_rule(tmp_path, monkeypatch):
    """One side's edit wins; equal edits agree; a deleted row keeps its value; an unusable score
    is kept as typed and reported; nothing from a student absent from the run is dropped."""

    out, db = tmp_path, "postgresql://gradebook"
    maxima = {("ann", "written_1"): 2.0, ("ann", "written_2"): 2.0, ("ben", "written_1"): 2.0}
    gradebook = {}
    monkeypatch.setattr(handscores, "read_gradebook_scores", lambda aid, url: dict(gradebook))

    def run():
        hand = handscores.merge(out, EXEMPLAR, maxima, db)
        summary = CohortSummary(assignment=EXEMPLAR, results=[
            Record(student=s, assignment=EXEMPLAR, submission="",
                   manual=[Answer(q, 2.0, text="x") for (s2, q) in maxima if s2 == s])
            for s in ("ann", "ben")])
        handscores.remember_csv(out, hand, outputs.write_written_scores(summary, out / "written_scores.csv", hand))
        state = handscores.State(out / "hand_scores.json")
        state.gradebooks[db] = {k: dict(v) for k, v in hand.values.items() if k in maxima}
        state.save()
        gradebook.clear()
        gradebook.update({k: dict(v) for k, v in hand.values.items() if k in maxima})
        return hand

    run()
    edit_scores(out / "written_scores.csv", {("ann", "written_1"): {"score": "1.5", "comment": "ok"}})
    gradebook[("ben", "written_1")] = {"score": "2", "comment": "from formgrader"}
    hand = run()
    assert hand.get("ann", "written_1") == {"score": "1.5", "comment": "ok"}
    assert hand.get("ben", "written_1") == {"score": "2", "comment": "from formgrader"} and not hand.conflicts
    # the same new score typed in both places is no conflict
    edit_scores(out / "written_scores.csv", {("ann", "written_2"): {"score": "1"}})
    gradebook[("ann", "written_2")] = {"score": "1.0", "comment": ""}
    assert not run().conflicts
    # a row deleted from the CSV keeps its value; a score out of range stays as typed, not counted
    table = [r for r in rows(out / "written_scores.csv") if r["student"] != "ben"]
    for r in table:
        if (r["student"], r["question"]) == ("ann", "written_2"):
            r["score"] = "5"
    with open(out / "written_scores.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    hand = run()
    assert hand.get("ben", "written_1")["comment"] == "from formgrader"
    assert hand.get("ann", "written_2")["score"] == "5" and hand.points("ann", "written_2", 2.0) is None
    assert any("outside 0..2" in p for p in hand.problems)
    # a student absent from this run keeps the TA's row
    maxima.pop(("ben", "written_1"))
    run()
    kept = {(r["student"], r["question"]): r for r in rows(out / "written_scores.csv")}
    assert kept[("ben", "written_1")]["answered"] == "not in this run"
    assert kept[("ben", "written_1")]["comment"] == "from formgrader"
