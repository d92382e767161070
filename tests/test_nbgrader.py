"""Real nbgrader on the generated course: generate_assignment, autograde, and the gradebook
agrees with `pdl grade` on the same answers."""

import json

import pytest
from conftest import EXEMPLAR

from autograder.course import nbgrader as nbg
from autograder.course.source import load, stub
from autograder.course.validate import variant_notebook
from autograder.run.grading import grade


@pytest.mark.xdist_group("nbgrader")  # shares nbgrader/release with test_cohort
def test_nbgrader_autograde_matches_pdl_grade(tmp_path):
    db = f"sqlite:///{tmp_path / 'gradebook.db'}"  # a gradebook of its own, whatever the course's holds
    release = nbg.generate_assignment(EXEMPLAR, db_url=db)
    text = release.read_text()
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text

    source_nb = json.loads((nbg.course_root() / "source" / EXEMPLAR / f"{EXEMPLAR}.ipynb").read_text())
    stubbed = set(load(EXEMPLAR).graded_functions()[1::2])
    partial_nb = json.loads(json.dumps(source_nb))
    for cell in partial_nb["cells"]:
        if "graded" in cell["metadata"].get("tags", []):
            cell["source"] = stub("".join(cell["source"]), only=stubbed)
    for student, nb in {"correct": source_nb, "partial": partial_nb}.items():
        path = tmp_path / student / f"{EXEMPLAR}.ipynb"
        path.parent.mkdir()
        path.write_text(json.dumps(nb))
        nbg.submit(EXEMPLAR, student, path)
    nbg.submit(EXEMPLAR, "untouched", release)
    nbg.autograde(EXEMPLAR, db_url=db)
    scores = nbg.code_scores(EXEMPLAR, db)

    for kind in ("correct", "partial", "stub"):
        path = tmp_path / f"pdl-{kind}" / f"{EXEMPLAR}.ipynb"
        path.parent.mkdir()
        path.write_text(json.dumps(variant_notebook(EXEMPLAR, kind)))
        report = grade(path, EXEMPLAR)
        student = {"stub": "untouched"}.get(kind, kind)
        # nbgrader runs the hidden tests in the student's kernel and carries no error forward
        assert scores[student] == (report.score_without_carry_forward, report.max_score), (kind, scores, report.score)
