"""Written answers: otter's manual questions, nbgrader's manual-grade cells, and the TA's pages."""

import csv
import json
import zipfile

import nbformat
import pytest
from otter.export.exporters.base_exporter import BaseExporter

from autograder.cohort import outputs, pages
from autograder.cohort.record import CohortSummary, Record
from autograder.course.generate import build_otter_zip, otter_config
from autograder.course.source import all_assignments, load
from autograder.run import notebook
from autograder.run.mistakes import SourceError
from autograder.run.paths import REPO
from autograder.run.record import Answer

WITH_ANSWERS = [a for a in all_assignments() if load(a).written_questions()]
LAB = "ex5_3_mean_field_lab"


def release(assignment):
    return nbformat.read(REPO / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)


@pytest.mark.parametrize("assignment", WITH_ANSWERS)
def test_otter_filtering_keeps_exactly_the_written_questions(assignment):
    """otter's own filter (what `otter export --filtering` and the Gradescope PDF use) keeps each
    prompt and answer cell and drops all code."""
    questions = load(assignment).written_questions()
    kept = BaseExporter.filter_cells(release(assignment), pagebreaks=False).cells
    answers = [c for c in kept if "answer" in c.metadata.get("tags", [])]
    assert [c.metadata["pdl"]["question"] for c in answers] == [q.name for q in questions]
    assert not [c for c in kept if c.cell_type == "code"]
    text = "\n".join(c.source for c in kept)
    for q in questions:
        if q.prompt:
            assert q.prompt.splitlines()[0] in text
    # nothing but the questions: the first markdown cell of the notebook (the title) is gone
    assert load(assignment).cells[0].source.splitlines()[0] not in text


def test_nbgrader_manual_cells_carry_the_source_points():
    questions = load(LAB).written_questions()
    nb = nbformat.read(REPO / "nbgrader" / "source" / LAB / f"{LAB}.ipynb", as_version=4)
    manual = [c.metadata["nbgrader"] for c in nb.cells
              if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "markdown"]
    assert [(m["grade_id"], m["points"]) for m in manual] == [(q.name, q.points) for q in questions]
    assert sum(q.points for q in questions) == 24


def test_answer_points_must_be_positive(tmp_path, monkeypatch):
    text = (REPO / "source" / LAB / f"{LAB}.py").read_text()
    bad = text.replace('tags=["answer"] points=4', 'tags=["answer"] points=-4', 1)
    assert bad != text
    (tmp_path / "source" / LAB).mkdir(parents=True)
    (tmp_path / "source" / LAB / f"{LAB}.py").write_text(bad)
    (tmp_path / "source" / "_shared").mkdir()
    for f in (REPO / "source" / "_shared").glob("*.py"):
        (tmp_path / "source" / "_shared" / f.name).write_text(f.read_text())
    monkeypatch.setattr("autograder.run.mistakes.REPO", tmp_path)
    with pytest.raises(SourceError, match="points must be a positive number"):
        load(LAB)


def test_otter_zip_exports_the_written_answers(monkeypatch, capsys):
    config = json.loads(zipfile.ZipFile(build_otter_zip(LAB)).read("otter_config.json"))
    assert config["filtering"] is True and "token" not in config
    import course_config
    monkeypatch.setattr(course_config, "GRADESCOPE_COURSE_ID", 111, raising=False)
    monkeypatch.setattr(course_config, "GRADESCOPE_MANUAL_ASSIGNMENTS", {LAB: 222}, raising=False)
    monkeypatch.delenv("GRADESCOPE_TOKEN", raising=False)
    assert "assignment_id" not in otter_config(LAB)
    assert "GRADESCOPE_TOKEN is not set" in capsys.readouterr().err
    monkeypatch.setenv("GRADESCOPE_TOKEN", "secret")
    got = otter_config(LAB)
    assert (got["course_id"], got["assignment_id"], got["token"]) == (111, 222, "secret")
    assert "assignment_id" not in otter_config("ex2_1_cumulants")  # no manual assignment named


def test_read_answers_by_name_with_points_from_the_release():
    questions = notebook.release_questions(LAB)
    assert [q["question"] for q in questions] == [f"written_{k}" for k in range(1, 8)]
    nb = json.loads((REPO / "assignments" / LAB / f"{LAB}.ipynb").read_text())
    answer_cells = [c for c in nb["cells"] if "answer" in c["metadata"].get("tags", [])]
    answer_cells[0]["source"] = "my drift exponents"
    answer_cells[0]["metadata"]["pdl"]["points"] = 1000          # the student's metadata is ignored
    nb["cells"].remove(answer_cells[2])                            # a deleted answer cell
    nb["cells"].remove(answer_cells[1])
    nb["cells"].append(answer_cells[1])                            # a moved one is still found
    got = {m["question"]: m for m in notebook.read_answers(json.loads(json.dumps(nb)), questions)}
    assert got["written_1"]["text"] == "my drift exponents" and got["written_1"]["points"] == 4
    assert got["written_3"]["missing"] and not got["written_2"]["missing"]
    assert got["written_2"]["blank"] and not got["written_1"]["blank"]
    assert got["written_2"]["cell"] == len(nb["cells"]) - 1
    assert notebook.read_answers({"cells": "not a list"}, questions)[0]["missing"]
    hostile = {"cells": ["text", {"cell_type": "markdown", "metadata": {"tags": ["answer"], "pdl": {"question": [1]}},
                                  "source": ["odd"]}]}
    got = notebook.read_answers(hostile, questions)
    assert got[0]["text"] == "odd" and all(m["missing"] for m in got[1:])


def test_cohort_written_pages_keep_entered_scores(tmp_path):
    questions = notebook.release_questions(LAB)

    def rec(student, missing=()):
        manual = [{**q, "cell": 1, "text": f"{student} on {q['question']}", "missing": q["question"] in missing,
                   "blank": q["question"] in missing or q["question"] == "written_7"} for q in questions]
        return Record(student=student, assignment=LAB, submission="", score=1, max_score=2,
                      manual=[Answer.from_dict(m) for m in manual])

    summary = CohortSummary(assignment=LAB, results=[rec("alice"), rec("bob", missing={"written_2"})])
    outputs.write_written_scores(summary, tmp_path / "written_scores.csv")
    rows = list(csv.DictReader(open(tmp_path / "written_scores.csv")))
    assert len(rows) == 14 and {r["answered"] for r in rows if r["student"] == "bob"} == {"yes", "no cell", "blank"}
    rows[0]["score"], rows[0]["comment"] = "3.5", "good"
    with open(tmp_path / "written_scores.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    summary.results.append(rec("carol"))                        # a late submission, re-run
    outputs.write_written_scores(summary, tmp_path / "written_scores.csv")
    again = list(csv.DictReader(open(tmp_path / "written_scores.csv")))
    assert len(again) == 21 and (again[0]["score"], again[0]["comment"]) == ("3.5", "good")
    page = pages.written_answers_html(summary)
    assert page.count("<section>") == 7 and "bob on written_1" in page and "no answer cell" in page
    assert "Model answer" in page
    assert "6 of 7 answered" in pages.feedback_markdown(summary.results[0])
    assert "written_7: left blank" in pages.feedback_markdown(summary.results[0])
    assert "written_2: no answer cell found" in pages.feedback_markdown(summary.results[1])


def test_fences_are_those_otter_assign_writes_for_a_manual_question(tmp_path):
    """Run `otter assign` on a master notebook holding one of our written questions as a
    `manual: true` question, and compare its student notebook with our release."""
    import subprocess
    import sys

    src = load(LAB)
    q = src.written_questions()[0]
    after = next(c.source
                 for c in src.cells[src.cells.index(next(c for c in src.cells if c.source == q.model_answer)) + 1:]
                 if c.kind == "markdown")
    master = nbformat.v4.new_notebook()
    master.cells = [
        nbformat.v4.new_raw_cell("# ASSIGNMENT CONFIG\nrequirements: null\ngenerate: false\nexport_cell: false\n"
                                 "init_cell: false\ncheck_all_cell: false\nrun_tests: false"),
        nbformat.v4.new_markdown_cell("# title"),
        nbformat.v4.new_raw_cell(f"# BEGIN QUESTION\nname: {q.name}\nmanual: true\npoints: {q.points:g}"),
        nbformat.v4.new_markdown_cell(q.prompt),
        nbformat.v4.new_raw_cell("# BEGIN SOLUTION"),
        nbformat.v4.new_markdown_cell(q.model_answer),
        nbformat.v4.new_raw_cell("# END SOLUTION"),
        nbformat.v4.new_raw_cell("# END QUESTION"),
        nbformat.v4.new_markdown_cell(after),
    ]
    master.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(master, tmp_path / "master.ipynb")
    run = subprocess.run([sys.executable, "-m", "otter", "assign", "master.ipynb", "out"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    theirs = nbformat.read(tmp_path / "out" / "student" / "master.ipynb", as_version=4).cells[1:]
    ours = release(LAB).cells
    k = next(i for i, c in enumerate(ours) if c.metadata.get("pdl", {}).get("question") == q.name)
    assert [c.source for c in ours[k - 1:k + 2:2]] == [theirs[0].source, theirs[2].source]
    for mine, other in zip(ours[k - 1:k + 2], theirs):
        assert {key: mine.metadata.get(key) for key in ("deletable", "editable")} == \
               {key: other.metadata.get(key) for key in ("deletable", "editable")}
    assert "otter_answer_cell" in ours[k].metadata["tags"] and "otter_answer_cell" in theirs[1].metadata["tags"]
