"""nbgrader's gradebook written in bulk (issue 42, item 2): ``record_in_gradebook`` gives the
gradebook that nbgrader's per-student API gives (``outputs._record_per_student``, the route
before), every student, submission, grade's auto and manual score and comment, on a first run, a
rerun with nothing new (nothing written), a rerun with a changed score, and a hand score entered
in formgrader (kept, and read back by ``handscores.read_gradebook_scores`` as nbgrader's API reads
it). Records are built here: nothing is graded; the assignment is registered once."""

import os
import shutil

import pytest
from conftest import EXEMPLAR

from autograder.cohort import handscores, outputs
from autograder.cohort.handscores import HandScores
from autograder.cohort.record import CohortSummary
from autograder.course import nbgrader as nbgrader_course

pytestmark = pytest.mark.xdist_group("nbgrader")  # nbgrader's generate_assignment, as test_nbgrader


@pytest.fixture(scope="module")
def registered(tmp_path_factory):
    """A gradebook with the exemplar registered by nbgrader, and its cells: (path, tests, questions)."""
    from nbgrader.api import Gradebook  # heavy (nbgrader)

    tmp = tmp_path_factory.mktemp("registered")
    db = tmp / "gradebook.db"
    nbgrader_course.generate_assignment(EXEMPLAR, db_url=f"sqlite:///{db}", root=tmp / "course")
    with Gradebook(f"sqlite:///{db}") as gb:
        cells = gb.find_notebook(EXEMPLAR, EXEMPLAR).grade_cells
        tests = {c.name: c.max_score for c in cells if c.cell_type == "code"}
        questions = {c.name: c.max_score for c in cells if c.cell_type == "markdown"}
    assert tests and len(questions) == 2
    return db, tests, questions


def summary(tests, questions, flip=(), **more):
    """Five students (and one the grader failed on): names with and without a last name, emails,
    times, errors, answered and blank written answers. ``flip``: students whose results flip."""
    people = {"ada": dict(name="Ada Lovelace", email="ada@uni.example", submitted_at="2026-10-15T21:30:00Z"),
              "bob": dict(name="Bob"), "cy": dict(email="cy@uni.example"),
              "dan42": dict(name="Dan van Damme", errors=["NameError: name 'x' is not defined"]),
              "eve": dict(name="Ève Zoë", submitted_at="2026-10-16T08:00:00Z"),
              "fay": dict(not_graded="worker lost")}
    results = []
    for s, (student, who) in enumerate(people.items()):
        rows = []
        for i, (name, pts) in enumerate(tests.items()):
            ok = ((i + s) % 3 != 0) != (student in flip)
            rows.append({"name": name, "points": pts if ok else 0.0, "max_points": pts, "passed": ok, "message": ""})
        manual = [{"question": q, "points": pts, "cell": 3, "text": "an answer" if (s + k) % 2 else "",
                   "missing": False, "blank": not (s + k) % 2} for k, (q, pts) in enumerate(questions.items())]
        results.append({"student": student, "assignment": EXEMPLAR, "score": sum(r["points"] for r in rows),
                        "max_score": sum(tests.values()), "tests": rows, "manual": manual, "sha256": "a",
                        "version": "one", **{**who, **more.get(student, {})}})
    return CohortSummary.from_dict({"assignment": EXEMPLAR, "version": "one", "results": results})


def content(db) -> dict:
    """Everything the gradebook holds, read with plain SQL: the assignment, and by student her
    name, email, submission time, every grade and every comment (by cell name and kind)."""
    import sqlite3

    con = sqlite3.connect(db)
    try:
        out = {"assignment": con.execute("select name, duedate from assignment").fetchall()}
        for sid, *who in con.execute("select s.id, s.first_name, s.last_name, s.email, sa.timestamp from student s "
                                     "left join submitted_assignment sa on sa.student_id = s.id"):
            out[sid] = {"who": who, "grades": {}, "comments": {}}
        for sid, cell, kind, *values in con.execute(
                "select sa.student_id, b.name, b.type, g.auto_score, g.manual_score, g.extra_credit, "
                "g.needs_manual_grade from grade g join submitted_notebook sn on sn.id = g.notebook_id "
                "join submitted_assignment sa on sa.id = sn.assignment_id join base_cell b on b.id = g.cell_id"):
            assert (cell, kind) not in out[sid]["grades"]
            out[sid]["grades"][(cell, kind)] = values
        for sid, cell, kind, *values in con.execute(
                "select sa.student_id, b.name, b.type, c.auto_comment, c.manual_comment from comment c "
                "join submitted_notebook sn on sn.id = c.notebook_id join submitted_assignment sa on "
                "sa.id = sn.assignment_id join base_cell b on b.id = c.cell_id"):
            assert (cell, kind) not in out[sid]["comments"]
            out[sid]["comments"][(cell, kind)] = values
    finally:
        con.close()
    return out


def read_with_nbgrader_api(db) -> dict:
    """The written answers' manual grades and comments as nbgrader's API reads them."""
    from nbgrader.api import Gradebook  # heavy (nbgrader)

    out = {}
    with Gradebook(f"sqlite:///{db}") as gb:
        for sub in gb.assignment_submissions(EXEMPLAR):
            for nb in sub.notebooks:
                comments = {c.cell.name: c for c in nb.comments}
                for grade in nb.grades:
                    if grade.cell.cell_type == "markdown":
                        comment = comments.get(grade.cell.name)
                        out[(sub.student.id, grade.cell.name)] = {
                            "score": "" if grade.manual_score is None else f"{grade.manual_score:g}",
                            "comment": (comment.manual_comment or "") if comment is not None else ""}
    return out


def enter_in_formgrader(db, student, question, score, comment) -> None:
    """What formgrader does when a TA grades a written answer: nbgrader's API."""
    from nbgrader.api import Gradebook  # heavy (nbgrader)

    with Gradebook(f"sqlite:///{db}") as gb:
        grade = gb.find_grade(question, EXEMPLAR, EXEMPLAR, student)
        grade.manual_score = score
        gb.find_comment(question, EXEMPLAR, EXEMPLAR, student).manual_comment = comment
        gb.db.commit()


def test_the_bulk_writer_gives_the_gradebook_nbgraders_api_gives(registered, tmp_path):
    template, tests, questions = registered
    q1, q2 = questions
    dbs = {"api": tmp_path / "api.db", "bulk": tmp_path / "bulk.db"}
    for db in dbs.values():
        shutil.copyfile(template, db)

    def write(cohort, hand):
        outputs._record_per_student(cohort, f"sqlite:///{dbs['api']}", hand, log=lambda *_: None)
        outputs.record_in_gradebook(cohort, f"sqlite:///{dbs['bulk']}", hand, log=lambda *_: None, progress=False)
        api, bulk = content(dbs["api"]), content(dbs["bulk"])
        assert api == bulk
        for db in dbs.values():
            assert handscores.read_gradebook_scores(EXEMPLAR, f"sqlite:///{db}") == read_with_nbgrader_api(db)
        return bulk

    # the first run: ada's first answer (answered) scored, bob's unusable score typed, a comment
    hand = HandScores(values={("ada", q2): {"score": "1", "comment": "Right."},
                              ("bob", q1): {"score": "lots", "comment": ""},
                              ("cy", q1): {"score": "", "comment": "see me"}})
    first = write(summary(tests, questions), hand)
    assert set(first) == {"assignment", "ada", "bob", "cy", "dan42", "eve"}  # fay: not graded, not recorded
    assert first["ada"]["who"][:3] == ["Ada", "Lovelace", "ada@uni.example"]
    assert first["ada"]["who"][3].startswith("2026-10-15 21:30:00")
    assert first["bob"]["who"][:3] == ["Bob", None, None]
    assert first["ada"]["grades"][(q2, "GradeCell")][:2] == [None, 1.0]
    assert any(v == ["NameError: name 'x' is not defined", None] for v in first["dan42"]["comments"].values())
    assert first["cy"]["comments"][(q1, "SolutionCell")] == [None, "see me"]
    read = handscores.read_gradebook_scores(EXEMPLAR, f"sqlite:///{dbs['bulk']}")
    assert read[("ada", q2)] == {"score": "1", "comment": "Right."} and read[("cy", q1)]["comment"] == "see me"

    # a rerun with nothing new: the same gradebook, and the bulk writer writes nothing at all
    stamp = os.stat(dbs["bulk"]).st_mtime_ns
    assert write(summary(tests, questions), hand) == first
    assert os.stat(dbs["bulk"]).st_mtime_ns == stamp

    # a TA grades eve's answered question in formgrader; the merge reads it, the rerun keeps it
    eve_q = q2 if first["eve"]["grades"][(q2, "GradeCell")][0] is None else q1
    for db in dbs.values():
        enter_in_formgrader(db, "eve", eve_q, 0.5, "Half right.")
    out = tmp_path / "out"
    out.mkdir()
    maxima = {(r.student, str(m.question)): m.points for r in summary(tests, questions).results for m in r.manual}
    merged = handscores.merge(out, EXEMPLAR, maxima, f"sqlite:///{dbs['bulk']}")
    assert merged.get("eve", eve_q) == {"score": "0.5", "comment": "Half right."}
    assert merged.get("ada", q2) == {"score": "1", "comment": "Right."}  # the CSV's side: none; the gradebook's
    again = write(summary(tests, questions), merged)
    assert again["eve"]["grades"][(eve_q, "GradeCell")][1:] == [0.5, None, 0]  # scored: formgrader lists it no more
    assert again["eve"]["comments"][(eve_q, "SolutionCell")] == [None, "Half right."]

    # a regrade: dan42's results flip and his error is gone; a score cleared by the TA
    merged.values[("ada", q2)] = {"score": "", "comment": "Right."}
    changed = write(summary(tests, questions, flip=("dan42",), dan42={"errors": []}), merged)
    assert changed["dan42"]["grades"] != again["dan42"]["grades"]
    assert not any(v[0] for v in changed["dan42"]["comments"].values())
    assert changed["ada"]["grades"][(q2, "GradeCell")][1:] == [None, None, 1]  # to grade again
    assert {s: changed[s] for s in ("bob", "cy", "eve")} == {s: again[s] for s in ("bob", "cy", "eve")}


def test_a_student_the_gradebook_knows_keeps_her_row(registered, tmp_path):
    """A student the gradebook knows already (from another assignment) keeps her row: her name as
    found this run, her email kept."""
    from nbgrader.api import Gradebook  # heavy (nbgrader)

    template, tests, questions = registered
    db = tmp_path / "gradebook.db"
    shutil.copyfile(template, db)
    with Gradebook(f"sqlite:///{db}") as gb:
        gb.add_student("bob", first_name="Robert", email="bob@old.example")
    outputs.record_in_gradebook(summary(tests, questions), f"sqlite:///{db}", None, log=lambda *_: None,
                                progress=False)
    got = content(db)
    assert got["bob"]["who"][:3] == ["Bob", None, "bob@old.example"]  # the name as found; the email kept
    assert len(got["bob"]["grades"]) == len(tests) + len(questions)
