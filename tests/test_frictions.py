"""The smaller frictions of a TA's term (issue 37, item 5), one test each: names next to ids in the
CSVs a TA reads, grace shown as forgiven, times in the deadline's zone, plain text in the Markdown
feedback, no empty public-check message, no no-op row in changes.csv, a late headline that counts
the LMS's flags, a demo that says why it took no screenshots, the LMS import steps in the README.
Records are built here: nothing is graded."""

import csv
from pathlib import Path

import pytest
from conftest import EXEMPLAR

import course_config
from autograder.cohort import late, outputs
from autograder.cohort.handscores import csv_uncell
from autograder.cohort.record import CohortSummary

REPO = Path(__file__).resolve().parents[1]
DEADLINE = "2026-10-15 23:59:59 Europe/Berlin"  # 21:59:59 UTC


@pytest.fixture
def policy(monkeypatch):
    monkeypatch.setattr(course_config, "DEADLINES", {EXEMPLAR: DEADLINE}, raising=False)
    monkeypatch.setattr(course_config, "LATE_POLICY", {"grace_minutes": 15, "per_day": 0.1}, raising=False)


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [{k: csv_uncell(v) for k, v in row.items()} for row in csv.DictReader(f)]


def rec(student, passed=(True, False), sha="a", version="v1", answers=("an answer long enough", ""), **extra):
    tests = [{"name": name, "points": 2.0 if ok else 0.0, "max_points": 2.0, "passed": ok, "message": "checked"}
             for name, ok in zip(("test_a", "test_b"), passed)]
    manual = [{"question": q, "points": 1.0, "cell": 3, "text": text, "missing": False, "blank": not text}
              for q, text in zip(("written_1", "written_2"), answers)]
    return {"student": student, "assignment": EXEMPLAR, "score": sum(t["points"] for t in tests), "max_score": 4.0,
            "tests": tests, "errors": [], "manual": manual, "sha256": sha, "version": version, "seconds": 1.0,
            **extra}


def late_rec(submitted_at):
    from autograder.cohort.record import Record
    return Record.from_dict(rec("x", submitted_at=submitted_at))


def run(out, *records):
    """One cohort run's outputs (what `pdl grade-cohort` writes after grading), no gradebook."""
    summary = CohortSummary.from_dict({"assignment": EXEMPLAR, "version": records[0]["version"], "unmatched": [],
                                       "results": [dict(r, manual=[dict(m) for m in r["manual"]]) for r in records]})
    hand = outputs.hand_scores(summary, out)
    return outputs.write_outputs(summary, out, None, hand), hand, summary


def type_scores(path, changes):
    """A TA types scores in written_scores.csv (keeping the columns it has)."""
    table = rows(path)
    for row in table:
        row.update(changes.get((row["student"], row["question"]), {}))
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)


# -- no no-op change rows ------------------------------------------------------------------------
def test_changes_csv_has_no_row_whose_grade_did_not_move(tmp_path):
    """A hand score of 0 cleared because the answer changed, and tests that flip without moving
    the total, leave the grade 0 -> 0: no row (the rows that move stay)."""
    out = tmp_path / "cohort"
    zero = rec("zed", passed=(False, False))
    run(out, zero, rec("ada"))
    run(out, zero, rec("ada"))
    type_scores(out / "written_scores.csv", {("zed", "written_1"): {"score": "0"}})
    moved, _, _ = run(out, zero, rec("ada", passed=(True, True), sha="b"))
    assert [r["student"] for r in moved["rows"]] == ["ada"]
    # zed's scored answer changes (the 0 is cleared: still 0) and a renamed test fails as the old one did
    changed = dict(rec("zed", passed=(False, False), sha="c", answers=("a different answer now", "")))
    changed["tests"] = [dict(t, name="test_c") if t["name"] == "test_b" else t for t in changed["tests"]]
    again, hand, _ = run(out, changed, rec("ada", passed=(True, True), sha="b"))
    assert ("zed", "written_1") in hand.stale                 # the case that made a 0 -> 0 row
    assert again["rows"] == [] and "no grade changed" in again["message"]
    assert [(r["student"], r["old"], r["new"]) for r in rows(out / "changes.csv")] == [("ada", "2", "4")]


# -- names next to ids ---------------------------------------------------------------------------
def test_written_scores_csv_names_each_student_and_is_read_with_or_without_the_name(tmp_path):
    out = tmp_path / "cohort"
    run(out, rec("SatoHanako", name="佐藤花子"), rec("bob"))
    table = rows(out / "written_scores.csv")
    assert list(table[0])[:3] == ["student", "name", "question"]
    assert {(r["student"], r["name"]) for r in table} == {("SatoHanako", "佐藤花子"), ("bob", "")}
    # a TA's edit in the file as written (with names) counts
    type_scores(out / "written_scores.csv", {("SatoHanako", "written_1"): {"score": "1", "comment": "good"}})
    _, hand, _ = run(out, rec("SatoHanako", name="佐藤花子"), rec("bob"))
    assert hand.get("SatoHanako", "written_1") == {"score": "1", "comment": "good"}
    # ... and in a file without the name column (an older one, or the TA deleted it)
    table = [{k: v for k, v in r.items() if k != "name"} for r in rows(out / "written_scores.csv")]
    for r in table:
        if (r["student"], r["question"]) == ("bob", "written_1"):
            r["score"] = "0.5"
    with open(out / "written_scores.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    _, hand, _ = run(out, rec("SatoHanako", name="佐藤花子"), rec("bob"))
    assert hand.get("bob", "written_1")["score"] == "0.5" and hand.get("SatoHanako", "written_1")["score"] == "1"
    assert "name" in rows(out / "written_scores.csv")[0]       # written back with the names
    # a scored student absent from a run keeps her row, and her name
    run(out, rec("bob"))
    kept = {r["student"]: r for r in rows(out / "written_scores.csv") if r["answered"] == "not in this run"}
    assert kept["SatoHanako"]["name"] == "佐藤花子" and kept["SatoHanako"]["score"] == "1"


# -- grace shown as forgiven -----------------------------------------------------------------------
def test_a_submission_late_within_the_grace_period_is_told_it_was_not_penalised(tmp_path, policy):
    out = tmp_path / "cohort"
    run(out, rec("ada", submitted_at="2026-10-15T22:05:00Z"), rec("bob", submitted_at="2026-10-15T22:20:00Z"))
    said = "Submitted 0:05:01 after the deadline, within the 15-minute grace period: not penalised."
    for page in ("ada.md", "ada.html"):
        assert said in (out / "feedback" / page).read_text()
    grades = {r["student"]: r for r in rows(out / "grades.csv")}
    assert (grades["ada"]["late"], grades["ada"]["late_by"], grades["ada"]["late_penalty"]) == ("yes", "0:05:01", "0.0")
    bob = (out / "feedback" / "bob.md").read_text()          # past the grace: the penalty, no grace sentence
    assert "Late penalty 0.6 points" in bob and "grace period" not in bob
    on_time = late.assess(late_rec("2026-10-15T21:00:00Z"), late.parse_when(DEADLINE),
                          late.policy_for(EXEMPLAR), 4.0, 4.0)
    assert on_time["why"] == ""


# -- no empty check message ----------------------------------------------------------------------
def test_a_public_check_that_fails_without_a_message_says_what_failed():
    """The checks as a notebook's cell defines them (compiled here: pytest rewrites the asserts of
    its own files), run as the grader runs them (Gradescope's visible checks)."""
    import linecache

    from autograder.run import worker

    cell = (
        "def check_bare_assert():\n"
        "    'magnetization is small'\n"
        "    m = 0.7\n"
        "    assert abs(m) < 0.5\n"
        "def check_bare_raise():\n"
        "    'a function that raises without a message'\n"
        "    raise ValueError()\n"
        "def check_with_message():\n"
        "    'a message of its own'\n"
        "    raise AssertionError('m should be below 0.5, got 0.7')\n")
    name = "<pdl-test-check-cell>"
    linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)  # as IPython keeps a cell's source
    scope: dict = {}
    exec(compile(cell, name, "exec"), scope)  # noqa: S102 - a check cell, as the notebook runs it
    checks = (scope["check_bare_assert"], scope["check_bare_raise"], scope["check_with_message"])
    ns = {"_PDL_CHECKS": {f.__name__: f for f in checks}}
    got = {name: (passed, message) for name, passed, message, _ in worker._checks(ns, None, [])["value"]}
    assert got["magnetization is small"] == (
        False, "AssertionError: the check's condition does not hold: `assert abs(m) < 0.5`; the check's code in "
               "the notebook shows what it compares")
    assert got["a function that raises without a message"] == (
        False, "ValueError (raised without a message) at `raise ValueError()`; the check's code in the notebook "
               "shows what it calls")
    assert got["a message of its own"] == (False, "AssertionError: m should be below 0.5, got 0.7")


def test_the_release_notebooks_check_helper_says_what_failed_too(capsys):
    """The check helper every release notebook carries (a student runs it with no engine
    installed) says why a message-less check failed: the condition, and the values it compared
    (tests/test_notebook_texts.py tries more)."""
    import json
    import linecache

    from autograder.course.checks import CHECK_HELPER

    release = json.loads((REPO / "assignments" / EXEMPLAR / f"{EXEMPLAR}.ipynb").read_text())
    helper = next("".join(c["source"]) for c in release["cells"] if "".join(c["source"]) == CHECK_HELPER.rstrip("\n"))
    scope: dict = {}
    exec(compile(helper.split("try:  # `%%figure`")[0], "<helper>", "exec"), scope)  # noqa: S102
    cell = "def check_small():\n    'magnetization is small'\n    m = 0.7\n    assert abs(m) < 0.5\n"
    name = "<pdl-test-release-check>"
    linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)
    exec(compile(cell, name, "exec"), scope)  # noqa: S102
    capsys.readouterr()
    scope["check"](scope["check_small"])
    assert capsys.readouterr().out.strip() == (
        "FAIL     magnetization is small: AssertionError: `assert abs(m) < 0.5` does not hold, where abs(m) = 0.7")


# -- a demo that says when screenshots were skipped and why ---------------------------------------
def _demo_outputs(out, **env):
    """scripts/demo.sh's last lines about the cohort's outputs (its function demo_cohort_outputs)."""
    import os
    import subprocess
    import sys

    script = (REPO / "scripts" / "demo.sh").read_text()
    start = script.index("demo_cohort_outputs() {")
    function = script[start:script.index("\n}\n", start) + 3]
    environ = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", **env}
    done = subprocess.run(["bash", "-c", f"set -euo pipefail\n{function}\ndemo_cohort_outputs {out}"],
                          cwd=Path.cwd(), env=environ, capture_output=True, text=True, check=True)
    return done.stdout


def test_the_demo_says_when_it_took_no_screenshots_and_why(tmp_path):
    out = tmp_path / "demo-cohort"
    said = _demo_outputs(out, PDL_CHROMIUM=str(tmp_path / "no-such-browser"))
    assert "screenshots/" not in said
    assert "No screenshots: Chromium is not installed (apt-get install chromium" in said
    said = _demo_outputs(out, PDL_CHROMIUM="/bin/true")     # a browser that saved nothing
    assert "No screenshots: /bin/true did not take them (the 'pdl: no screenshots' line above says why)" in said
    (out / "screenshots").mkdir(parents=True)
    (out / "screenshots" / "report.png").write_bytes(b"\x89PNG")
    said = _demo_outputs(out, PDL_CHROMIUM=str(tmp_path / "no-such-browser"))
    listed = "grades.csv,report.html,written.html,written_scores.csv,feedback/,screenshots/"
    assert said == f"Cohort outputs: {out}/{{{listed}}}\n"


# -- LMS import steps in the README ----------------------------------------------------------------
def test_the_readme_says_how_to_import_the_grades_and_that_ungraded_answers_go_out_as_0():
    readme = " ".join((REPO / "README.md").read_text().split())
    assert "Canvas: *Grades → Import*, choose `canvas.csv`" in readme
    assert "enable *Offline grading worksheet*" in readme and "Upload grading worksheet* with `moodle.csv`" in readme
    assert "Written answers not yet scored by hand go out as 0 until their scores are entered" in readme


# -- times in the deadline's zone ------------------------------------------------------------------
def test_submission_times_are_shown_in_the_deadlines_zone_with_its_name(tmp_path, policy, monkeypatch):
    out = tmp_path / "cohort"
    run(out, rec("ada", submitted_at="2026-10-15T22:05:00Z"))
    shown = "2026-10-16 00:05:00 Europe/Berlin"                   # 22:05 UTC is past midnight in Berlin
    assert f"Submitted {shown}" in (out / "feedback" / "ada.md").read_text()
    assert f"Submitted {shown}" in (out / "feedback" / "ada.html").read_text()
    assert shown in (out / "report.html").read_text()
    assert "UTC" not in (out / "feedback" / "ada.md").read_text()
    # a cutoff is said in the same zone
    monkeypatch.setattr(course_config, "LATE_POLICY", {"no_credit_after": "2026-10-16 00:00 Europe/Berlin"})
    run(out, rec("ada", submitted_at="2026-10-15T22:05:00Z"))
    assert "submitted after 2026-10-16 00:00:00 Europe/Berlin, when no credit is given" in \
        (out / "feedback" / "ada.md").read_text()
    # an offset, and no zone at all (UTC, said so)
    monkeypatch.setattr(course_config, "DEADLINES", {EXEMPLAR: "2026-10-15 23:59:59 -0500"})
    assert late.local_time("2026-10-15T22:05:00Z", EXEMPLAR) == "2026-10-15 17:05:00 -05:00"
    monkeypatch.setattr(course_config, "DEADLINES", {EXEMPLAR: "2026-10-15 23:59:59"})
    assert late.local_time("2026-10-15T22:05:00Z", EXEMPLAR) == "2026-10-15 22:05:00 UTC"


# -- plain text in .md feedback ------------------------------------------------------------------
def test_markdown_feedback_is_plain_text_with_no_html_entities_and_no_markup(tmp_path):
    from markdown_it import MarkdownIt

    out = tmp_path / "cohort"
    r = rec("ada", passed=(True, False))
    r["tests"][1]["message"] = "expected a value > 0 & < 1; got <b>bold</b> \\<i>, &amp; a <!-- comment -->"
    r["errors"] = ["File > Save, then submit <that> file"]
    run(out, r)
    md = (out / "feedback" / "ada.md").read_text()
    assert "&gt;" not in md and "&lt;" not in md and "&#" not in md
    assert "expected a value > 0 & < 1" in md and "File > Save" in md
    rendered = MarkdownIt("commonmark", {"html": True}).render(md)  # a renderer that passes raw HTML on
    assert "<b>" not in rendered and "<i>" not in rendered and "<that>" not in rendered and "<!--" not in rendered
    assert "&lt;b&gt;bold&lt;/b&gt; \\&lt;i&gt;, &amp;amp; a &lt;!-- comment --&gt;" in rendered  # shown as typed


# -- a late headline that counts the LMS's flags ---------------------------------------------------
def test_the_reports_headline_counts_rows_late_by_the_lms_flag(tmp_path, policy, monkeypatch):
    import re

    out = tmp_path / "cohort"
    canvas = {"lms": "canvas", "lms_id": "1", "lms_late": True}
    run(out, rec("ada", **canvas), rec("bob", submitted_at="2026-10-16T08:00:00Z"), rec("cy", lms="canvas",
        lms_id="2", lms_late=False))
    headline = re.search(r"<p>Version .*?</p>", (out / "report.html").read_text(), re.S).group(0)
    assert "; 2 late (1 by Canvas's flag alone)." in headline
    monkeypatch.setattr(course_config, "DEADLINES", {})              # no deadline: the flags alone
    run(out, rec("ada", **canvas), rec("cy", lms="canvas", lms_id="2", lms_late=False))
    headline = re.search(r"<p>Version .*?</p>", (out / "report.html").read_text(), re.S).group(0)
    assert "; 1 late (1 by Canvas's flag alone)." in headline


# -- names next to ids -----------------------------------------------------------------------------
def test_similarity_csv_names_both_students_next_to_their_ids(tmp_path):
    out = tmp_path / "cohort"
    same = "The order parameter is the overlap between the student and the teacher weights."
    run(out, rec("SatoHanako", answers=(same, ""), name="佐藤花子"), rec("bob", answers=(same, "")),
        rec("cy", answers=("Something else entirely, and long enough to be compared.", "")))
    written = [r for r in rows(out / "similarity.csv") if r["kind"] == "written"]
    assert list(written[0])[:6] == ["kind", "rank", "student_a", "name_a", "student_b", "name_b"]
    pair = next(r for r in written if r["flagged"] == "yes")
    named = {(pair["student_a"], pair["name_a"]), (pair["student_b"], pair["name_b"])}
    assert named == {("SatoHanako", "佐藤花子"), ("bob", "")}


def test_mistakes_csv_names_the_students_next_to_their_ids(tmp_path):
    from autograder.run.diagnosis import Diagnosis, Found
    from autograder.run.mistakes import read_mistakes

    hint = read_mistakes(EXEMPLAR)[0].hint

    def diagnosed(student, **extra):
        r = rec(student, passed=(False, False), **extra)
        r["tests"][0]["diagnoses"] = [Diagnosis(Found.KNOWN, params={"hints": [hint]}).to_dict()]
        return r

    out = tmp_path / "cohort"
    run(out, diagnosed("SatoHanako", name="佐藤花子"), diagnosed("bob"), rec("cy"))
    (row,) = rows(out / "mistakes.csv")
    assert list(row) == ["mistake", "function", "hint", "students", "names"]
    assert (row["hint"], row["students"], row["names"]) == (hint, "SatoHanako; bob", "佐藤花子; bob")
