"""What changed between two cohort runs, and why (changes.csv); the mistakes found across a
cohort (mistakes.csv, the report's students under each mistake, links checked in Chromium); a
hand score holds only while its answer is unchanged (grades.csv, written_scores.csv, the
gradebook, written.html, feedback). Records are built here: nothing is graded."""

import csv
import re
from urllib.parse import unquote

import pytest
from conftest import EXEMPLAR

from autograder.cohort import browser, handscores, outputs
from autograder.cohort.handscores import csv_uncell
from autograder.cohort.record import CohortSummary
from autograder.run.diagnosis import Diagnosis, Found
from autograder.run.mistakes import read_mistakes

QUESTIONS = ("written_1", "written_2")


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [{k: csv_uncell(v) for k, v in row.items()} for row in csv.DictReader(f)]


def rec(student, passed=(True, False), sha="a", version="2026.one", answers=("yes, a sigmoid", ""), **extra):
    tests = [{"name": name, "points": 2.0 if ok else 0.0, "max_points": 2.0, "passed": ok, "message": "checked"}
             for name, ok in zip(("test_a", "test_b"), passed)]
    manual = [{"question": q, "points": 1.0, "cell": 3, "text": text, "missing": False, "blank": not text}
              for q, text in zip(QUESTIONS, answers)]
    return {"student": student, "assignment": EXEMPLAR, "score": sum(t["points"] for t in tests), "max_score": 4.0,
            "tests": tests, "errors": [], "manual": manual, "sha256": sha, "version": version, "seconds": 1.0,
            **extra}


def run(out, *records, db=None):
    """One cohort run's outputs (what `pdl grade-cohort` writes after grading), no gradebook."""
    summary = CohortSummary.from_dict({"assignment": EXEMPLAR, "version": records[0]["version"], "unmatched": [],
                                       "results": [dict(r, manual=[dict(m) for m in r["manual"]]) for r in records]})
    hand = outputs.hand_scores(summary, out, db)
    return outputs.write_outputs(summary, out, None, hand), hand, summary


def type_scores(path, changes):
    """A TA types scores and comments in written_scores.csv."""
    table = rows(path)
    for row in table:
        row.update(changes.get((row["student"], row["question"]), {}))
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)


def test_changes_csv_says_what_changed_and_why(tmp_path):
    out = tmp_path / "cohort"
    ada, bob = rec("ada"), rec("bob", name="=HYPERLINK(1)")
    first, _, _ = run(out, ada, bob)
    assert first["first"] and not (out / "changes.csv").exists()
    same, _, _ = run(out, ada, bob)
    assert same["rows"] == [] and "no grade changed" in same["message"] and not (out / "changes.csv").exists()

    # ada resubmits (a test now passes); the TA scores bob's written_1
    type_scores(out / "written_scores.csv", {("bob", "written_1"): {"score": "1"}})
    ada = rec("ada", passed=(True, True), sha="b")
    third, _, _ = run(out, ada, bob)
    assert third["message"] == f"2 grades changed; see {out / 'changes.csv'}"
    got = {r["student"]: r for r in rows(out / "changes.csv")}
    assert (got["ada"]["old"], got["ada"]["new"]) == ("2", "4")
    assert got["ada"]["tests_flipped"] == "test_b: fail -> pass" and got["ada"]["why"] == "resubmitted"
    assert (got["bob"]["old"], got["bob"]["new"], got["bob"]["tests_flipped"]) == ("2", "3", "")
    assert got["bob"]["why"] == "hand score edited: written_1"
    assert got["bob"]["name"] == "=HYPERLINK(1)"                    # as written, and inert:
    assert "'=HYPERLINK(1)" in (out / "changes.csv").read_text()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", got["ada"]["run"])

    # the tests change (a new version): bob's test_a now fails, ada's grade is the same
    ada, bob = rec("ada", passed=(True, True), sha="b", version="2026.two"), \
        rec("bob", passed=(False, False), version="2026.two", name="=HYPERLINK(1)")
    fourth, _, _ = run(out, ada, bob)
    assert [r["student"] for r in fourth["rows"]] == ["bob"]
    last = rows(out / "changes.csv")[-1]
    assert (last["student"], last["old"], last["new"]) == ("bob", "3", "1")
    assert last["tests_flipped"] == "test_a: pass -> fail" and last["why"] == "tests changed: 2026.one -> 2026.two"

    # bob changes the scored answer: the hand score no longer holds; a new student arrives
    bob = rec("bob", passed=(False, False), sha="c", version="2026.two", answers=("a new answer", ""))
    fifth, _, _ = run(out, ada, bob, rec("cy", version="2026.two"))
    got = {r["student"]: r for r in fifth["rows"]}
    assert got["bob"]["why"] == "resubmitted; written_1: answer changed, to be graded again"
    assert (got["bob"]["old"], got["bob"]["new"]) == ("1", "0")
    assert (got["cy"]["old"], got["cy"]["why"]) == ("", "first graded")
    before = (out / "changes.csv").read_text()
    sixth, _, _ = run(out, ada, bob, rec("cy", version="2026.two"))
    assert sixth["rows"] == [] and (out / "changes.csv").read_text() == before
    assert len(rows(out / "changes.csv")) == 5


def test_a_score_typed_while_the_student_resubmitted_is_for_the_answer_the_ta_saw(tmp_path):
    """The TA scores the answer written.html showed; the student meanwhile changes it: the score
    is for the old answer, so it does not hold for the new one."""
    out = tmp_path / "cohort"
    run(out, rec("ada"))
    type_scores(out / "written_scores.csv", {("ada", "written_1"): {"score": "1", "comment": "good"}})
    _, hand, _ = run(out, rec("ada", sha="b", answers=("rewritten", "")))
    assert hand.get("ada", "written_1") == {"score": "", "comment": ""}
    assert hand.previous[("ada", "written_1")] == {"score": "1", "comment": "good"}
    assert any("the answer changed since it was scored" in p for p in hand.problems)
    # the same answer again: the TA's new score holds, and the previous grading is gone
    type_scores(out / "written_scores.csv", {("ada", "written_1"): {"score": "0.5"}})
    _, hand, _ = run(out, rec("ada", sha="b", answers=("rewritten", "")))
    assert hand.get("ada", "written_1")["score"] == "0.5" and not hand.previous and not hand.stale
    # whitespace and line endings are not a change
    _, hand, _ = run(out, rec("ada", sha="c", answers=("rewritten\r\n  ", "")))
    assert hand.get("ada", "written_1")["score"] == "0.5" and not hand.stale


@pytest.mark.xdist_group("nbgrader")
def test_a_hand_score_holds_only_while_its_answer_is_unchanged(tmp_path):
    out, db = tmp_path / "cohort", f"sqlite:///{tmp_path / 'gradebook.db'}"

    def everything(*records):
        _, hand, summary = run(out, *records, db=db)
        outputs.record_in_gradebook(summary, db, hand, log=lambda *a: None)
        handscores.remember_gradebook(out, EXEMPLAR, db)
        return hand

    everything(rec("ada"))
    type_scores(out / "written_scores.csv", {("ada", "written_1"): {"score": "1", "comment": "Right: *a sigmoid*."}})
    everything(rec("ada"))
    assert handscores.read_gradebook_scores(EXEMPLAR, db)[("ada", "written_1")] == \
        {"score": "1", "comment": "Right: *a sigmoid*."}
    assert rows(out / "grades.csv")[0]["written"] == "1.0"

    for again in range(2):  # the answer changes; a rerun does not bring the old score back
        hand = everything(rec("ada", sha="b", answers=("It is a step function.", "")))
        assert bool(hand.stale) == (again == 0)
        grades = rows(out / "grades.csv")[0]
        assert (grades["written"], grades["written_ungraded"], grades["total"]) == ("0.0", "1", "2.0")
        sheet = {r["question"]: r for r in rows(out / "written_scores.csv")}["written_1"]
        assert (sheet["score"], sheet["comment"]) == ("", "")
        assert sheet["previous_grading"] == "score 1; comment: Right: *a sigmoid*. (answer changed since)"
        assert handscores.read_gradebook_scores(EXEMPLAR, db)[("ada", "written_1")] == {"score": "", "comment": ""}
        page = (out / "written.html").read_text()
        assert "Previous grading (answer changed since):" in page and "<em>a sigmoid</em>" in page
        assert "to grade (the answer changed)" in page
        feedback = (out / "feedback" / "ada.md").read_text()
        assert "written_1: not graded yet" in feedback and "sigmoid" not in feedback

    from nbgrader.api import Gradebook  # heavy (nbgrader): the gradebook's own flag
    with Gradebook(db) as gb:
        assert gb.find_grade("written_1", EXEMPLAR, EXEMPLAR, "ada").needs_manual_grade

    # the TA scores the new answer: it holds, and the previous grading is no longer shown
    type_scores(out / "written_scores.csv", {("ada", "written_1"): {"score": "0"}})
    everything(rec("ada", sha="b", answers=("It is a step function.", "")))
    assert rows(out / "grades.csv")[0]["written_ungraded"] == "0"
    assert rows(out / "written_scores.csv")[0]["previous_grading"] == ""
    assert "Previous grading" not in (out / "written.html").read_text()
    assert handscores.read_gradebook_scores(EXEMPLAR, db)[("ada", "written_1")]["score"] == "0"


def _diagnosed(student, *hints, generic=""):
    r = rec(student, passed=(False, False))
    r["tests"][0]["diagnoses"] = [Diagnosis(Found.KNOWN, params={"hints": list(hints)}).to_dict()] if hints else []
    r["tests"][1]["diagnoses"] = [Diagnosis(Found.TEXT, params={"text": generic}).to_dict()] if generic else []
    return r


@pytest.mark.skipif(browser.find_chromium() is None, reason="no Chromium here (apt-get install chromium)")
def test_mistakes_csv_and_the_report_list_who_made_each_mistake(tmp_path):
    out = tmp_path / "cohort"
    catalogue = read_mistakes(EXEMPLAR)
    spinodal = next(m for m in catalogue if "spinodal" in m.description and "critical" in m.description)
    wedge = next(m for m in catalogue if "wedge" in m.description)
    generic = "Your results are off by a factor 2 on every input."
    run(out, _diagnosed("ada", spinodal.hint, wedge.hint), _diagnosed("bob-2", spinodal.hint),
        _diagnosed("cy", generic=generic), rec("dee"))

    table = rows(out / "mistakes.csv")
    assert [(r["mistake"], r["function"], r["hint"], r["students"]) for r in table] == [
        (spinodal.description, "critical_load", spinodal.hint, "ada; bob-2"),
        (wedge.description, "generalization_error", wedge.hint, "ada")]

    dom = browser.dump_dom(out / "report.html")
    section = re.search(r'<table id="mistakes">(.*?)</table>', dom, re.DOTALL).group(1)
    listed = {}
    for row in re.findall(r"<tr>(.*?)</tr>", section, re.DOTALL)[1:]:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
        listed[re.sub(r"<[^>]+>", "", cells[0]).split("hint:")[0].strip()] = (
            re.sub(r"<[^>]+>", "", cells[1]), re.findall(r'href="([^"]+)"', cells[3]))
    assert listed == {spinodal.description: ("critical_load", ["feedback/ada.html", "feedback/bob-2.html"]),
                      wedge.description: ("generalization_error", ["feedback/ada.html"]),
                      generic: ("", ["feedback/cy.html"])}
    for _, links in listed.values():
        for href in links:
            target = out / unquote(href)
            assert target.is_file() and f": {target.stem}</title>" in target.read_text(), href
    seen = browser.probe(out / "report.html")
    text = seen["text"].split("Mistakes found in this cohort", 1)[1]
    assert spinodal.description in text and "ada, bob-2" in text and "mistakes.csv" in text


def test_grade_cohort_prints_how_many_grades_changed(tmp_path, monkeypatch, capsys):
    """`pdl grade-cohort` says in one line what changed (grading replaced by records built here)."""
    from autograder import cli
    from autograder.cohort import grade

    out = tmp_path / "cohort"
    records = [rec("ada"), rec("bob")]

    def graded(source, assignment, out, **kwargs):
        return CohortSummary.from_dict({"assignment": EXEMPLAR, "version": "2026.one", "graded": 0,
                                        "reused": len(records), "students": len(records), "unmatched": [], "notes": [],
                                        "results": [dict(r, manual=[dict(m) for m in r["manual"]]) for r in records]})

    monkeypatch.setattr(grade, "grade_cohort", graded)
    command = ["grade-cohort", str(tmp_path), "--assignment", EXEMPLAR, "--out", str(out), "--no-gradebook", "--quiet"]
    assert cli.main(command) == 0
    assert "grades kept for the next run's comparison" in capsys.readouterr().out
    assert cli.main(command) == 0
    assert "no grade changed since the last run" in capsys.readouterr().out
    hostile = "<img src=x onerror=alert(1)> **fine**"
    type_scores(out / "written_scores.csv", {("ada", "written_1"): {"score": "1", "comment": hostile},
                                             ("bob", "written_1"): {"score": "0.5"}})
    assert cli.main(command) == 0
    assert f"2 grades changed; see {out / 'changes.csv'}\n" in capsys.readouterr().out
    records[0] = rec("ada", sha="b", answers=("changed", ""))
    assert cli.main(command) == 0
    printed = capsys.readouterr()
    assert f"1 grade changed; see {out / 'changes.csv'}\n" in printed.out
    assert "ada, written_1: the answer changed since it was scored" in printed.err
    page = (out / "written.html").read_text()
    assert "Previous grading (answer changed since)" in page and "<strong>fine</strong>" in page
    assert "<img" not in page and "onerror=alert(1)&gt;" in page
