"""The smaller frictions of a TA's term (issue 37, item 5), one test each: names next to ids in the
CSVs a TA reads, grace shown as forgiven, times in the deadline's zone, plain text in the Markdown
feedback, no empty public-check message, no no-op row in changes.csv, a late headline that counts
the LMS's flags, a demo that says why it took no screenshots, the LMS import steps in the README.
Records are built here: nothing is graded."""

import csv
from pathlib import Path

from conftest import EXEMPLAR

from autograder.cohort import outputs
from autograder.cohort.handscores import csv_uncell
from autograder.cohort.record import CohortSummary

REPO = Path(__file__).resolve().parents[1]


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
