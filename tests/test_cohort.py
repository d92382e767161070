"""`pdl grade-cohort`: layouts, a hostile cohort in one zip, resumability, gradebook, feedback, dask.

The hostile suite is graded *within a cohort of good submissions*: every case must get the
score its honest content deserves, the batch must finish, and the good submissions' scores
must be unaffected.
"""

import json
import os
import signal
import subprocess
import sys
import time
import zipfile

import pytest
from conftest import EXEMPLAR, HOSTILE_LIMITS

from autograder.cohort.grade import grade_cohort
from autograder.cohort.layouts import discover, safe_extract
from autograder.cohort.outputs import record_in_gradebook, write_outputs
from autograder.cohort.pages import feedback_html
from autograder.cohort.record import Record
from autograder.run.paths import REPO
from autograder.run.record import TestResult
from autograder.run.sandbox import namespaces_available

LIMITS = HOSTILE_LIMITS  # the exemplar runs in ~1 s, each call in <0.1 s
# The tests of the graded cohort below share one worker under `pytest -n`, so the cohort (a minute)
# is graded once; "nbgrader" because one of them also writes nbgrader's folders.
COHORT = pytest.mark.xdist_group("nbgrader")


def _nb(nb: dict) -> str:
    return json.dumps(nb)


@pytest.fixture(scope="module")
def cohort(graded_hostile_cohort):
    """The hostile cohort in one zip, graded by the pool (``conftest.graded_hostile_cohort``, which
    tests/test_dask_cluster.py compares a dask cluster's records with)."""
    return graded_hostile_cohort


@COHORT
def test_every_submission_has_a_row(cohort):
    cases, summary, _, _ = cohort
    assert sorted(r.student for r in summary.results) == sorted(cases)


@COHORT
def test_each_case_gets_what_its_honest_content_deserves(cohort):
    cases, summary, _, _ = cohort
    by = {r.student: r for r in summary.results}
    full = by["good1"].max_score
    assert full > 0
    for student, (_, deserves) in cases.items():
        score = by[student].score
        expected = {"full": score == full, "zero": score == 0, "less": 0 < score < full,
                    "partial": 0 < score < full}[deserves]
        assert expected, (student, score, full, by[student].errors[:2])
    assert by["good1"].score == by["good2"].score == by["good3"].score == full


@COHORT
def test_broken_submissions_say_why(cohort):
    _, summary, _, _ = cohort
    by = {r.student: r for r in summary.results}
    assert any("not valid JSON" in e for e in by["bad_json"].errors)
    assert any("empty" in e for e in by["empty"].errors)
    assert any("time limit" in e for e in by["loop"].errors)
    assert any("did not finish" in t.message for t in by["never_returns"].tests)


@COHORT
def test_unsafe_zip_members_are_refused_and_reported(cohort, tmp_path):
    _, summary, _, archive = cohort
    refused = [u for u in summary.unmatched if "refused" in u]
    assert len(refused) == 2 and not (archive.parent.parent / "escaped.ipynb").exists()
    assert any("notes.txt" in u for u in summary.unmatched)
    assert len(safe_extract(archive, tmp_path)) == 2


@COHORT
def test_rerun_reuses_every_finished_result(cohort):
    cases, summary, out, archive = cohort
    again = grade_cohort(archive, EXEMPLAR, out, workers=2, progress=False, **LIMITS)
    assert again.graded == 0 and again.reused == len(cases)
    assert [r.score for r in again.results] == [r.score for r in summary.results]


@pytest.mark.xdist_group("nbgrader")
def test_outputs_csv_feedback_report_and_gradebook(cohort, tmp_path):
    from nbgrader.api import Gradebook

    cases, summary, out, _ = cohort
    write_outputs(summary, out)
    header = (out / "grades.csv").read_text().splitlines()[0].split(",")
    assert header[0] == "student" and {"auto", "written", "total", "error"} <= set(header)
    assert len(header) > header.index("error") + 1  # then one column per test
    assert len((out / "grades.csv").read_text().splitlines()) == len(cases) + 1
    assert '<img src="data:image/png;base64,' in (out / "report.html").read_text()  # as the sanitizer writes it
    tests_src = (REPO / "grading_tests" / EXEMPLAR / f"test_{EXEMPLAR}.py").read_text()
    private = {ln.strip() for ln in tests_src.splitlines() if len(ln.strip()) >= 24}
    for student in cases:
        text = (out / "feedback" / f"{student}.html").read_text() + (out / "feedback" / f"{student}.md").read_text()
        assert not [ln for ln in private if ln in text], student
    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    record_in_gradebook(summary, db)
    with Gradebook(db) as gb:
        rows = {s.student.id: s.code_score for s in gb.assignment_submissions(EXEMPLAR)}
    assert rows == {r.student: r.score for r in summary.results}


def test_layouts_people_upload(tmp_path, correct_nb):
    text = _nb(correct_nb)
    files = {
        f"alice/{EXEMPLAR}.ipynb": text,
        "bob.ipynb": text,
        f"submitted/carol/{EXEMPLAR}/{EXEMPLAR}.ipynb": text,
        "submission_991/my_homework.ipynb": text,
        "submission_metadata.yml": "submission_991:\n  :submitters:\n  - :name: Dan D\n    :sid: dan42\n",
        f"erin/{EXEMPLAR}.ipynb": text, "erin/old_copy.ipynb": text,
        "frank/draft.ipynb": text,
        "grades.xlsx": "x",
    }
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    subs, unmatched = discover(tmp_path, EXEMPLAR)
    assert [s.student for s in subs] == ["alice", "bob", "carol", "dan42", "erin", "frank"]
    assert any("old_copy" in u for u in unmatched) and any("grades.xlsx" in u for u in unmatched)


def test_planted_names_and_metadata_do_not_move_records(tmp_path):
    """A hostile grade-cohort route: 'carol!' was graded first (id 'carol'); a week later 'carol'
    turns up, and mallory plants a submission_metadata.yml claiming to be 'carol'. Each record
    stays with its owner (and with it her hand scores, kept by id)."""
    stub = (REPO / "examples" / "submissions" / EXEMPLAR / "stub.ipynb").read_text()
    out = tmp_path / "out"
    week1 = tmp_path / "week1"
    (week1 / "carol!").mkdir(parents=True)
    (week1 / "carol!" / f"{EXEMPLAR}.ipynb").write_text(stub)
    first = grade_cohort(week1, EXEMPLAR, out, workers=1, progress=False, **LIMITS)
    assert [(r.student, r.found_as) for r in first.results] == [("carol", "carol!")]
    claim = "s:\n  :submitters:\n  - :name: Carol C\n    :sid: carol\n"
    files = {f"carol!/{EXEMPLAR}.ipynb": stub, f"carol/{EXEMPLAR}.ipynb": stub,
             "mallory/submission_metadata.yml": claim, f"mallory/s/{EXEMPLAR}.ipynb": stub}
    archive = tmp_path / "week2.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for rel, content in files.items():
            zf.writestr(rel, content)
    second = grade_cohort(archive, EXEMPLAR, out, workers=2, progress=False, **LIMITS)
    who = {r.found_as: r.student for r in second.results}
    assert who["carol!"] == "carol" and who["mallory"] == "mallory" and who["carol"].startswith("carol_")
    assert second.reused == 1 and second.graded == 2  # carol!'s record is hers, kept
    for raw, student in who.items():
        rec = json.loads((out / "records" / f"{student}.json").read_text())
        assert (rec["student"], rec["found_as"], rec["name"]) == (student, raw, raw)
    assert any(u.startswith("mallory/submission_metadata.yml") and "ignored" in u for u in second.unmatched)


def test_interrupted_run_loses_no_finished_result(tmp_path, correct_nb):
    folder = tmp_path / "subs"
    for i in range(6):
        (folder / f"s{i}").mkdir(parents=True)
        (folder / f"s{i}" / f"{EXEMPLAR}.ipynb").write_text(_nb(correct_nb))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "autograder.cli", "grade-cohort", str(folder), "--assignment", EXEMPLAR,
           "--out", str(out), "--workers", "1", "--no-gradebook", "--quiet"]
    proc = subprocess.Popen(cmd, cwd=REPO, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "records").glob("*.json"))) < 2:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = {p.stem for p in (out / "records").glob("*.json")}
    assert 2 <= len(kept) < 6
    for p in (out / "records").glob("*.json"):
        json.loads(p.read_text())  # every record on disk is whole
    summary = grade_cohort(folder, EXEMPLAR, out, workers=2, progress=False, **LIMITS)
    assert summary.reused >= len(kept) and len(summary.results) == 6
    assert len({r.score for r in summary.results}) == 1


def _templates_here() -> list:
    """On a dask worker: its warm templates, per assignment."""
    from autograder.run import sandbox

    return sorted((a, sum(t.running() for t in ts)) for a, ts in sandbox._FREE.items())


def test_dask_local_cluster_gives_the_same_scores(tmp_path, correct_nb, stub_nb):
    from distributed import Client, LocalCluster

    folder = tmp_path / "subs"
    for name, nb in {"good": correct_nb, "stub": stub_nb}.items():
        (folder / name).mkdir(parents=True)
        (folder / name / f"{EXEMPLAR}.ipynb").write_text(_nb(nb))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        summary = grade_cohort(folder, EXEMPLAR, tmp_path / "out", scheduler=cluster.scheduler_address,
                               progress=False, **LIMITS)
        with Client(cluster) as client:  # the plugin readied both workers with a warm template
            warm = client.run(_templates_here)
    scores = {r.student: r.score for r in summary.results}
    assert scores["stub"] == 0 and scores["good"] == summary.results[0].max_score > 0
    if namespaces_available():
        assert len(warm) == 2 and all(v == [(EXEMPLAR, 1)] for v in warm.values()), warm


def test_feedback_html_escapes_student_text():
    rec = Record(student="<script>x</script>", assignment=EXEMPLAR, submission="", score=0, max_score=1,
                 tests=[TestResult("t", 0, 1, False, "<b>oops</b>")], errors=["<img src=x onerror=alert(1)>"])
    out = feedback_html(rec)
    assert "<script>" not in out and "<img src=x" not in out
