"""`pdl grade` on real notebooks: scores, the JSON record, broken files, the sandbox.

The hostile suite (loops, exits, memory bombs, lying values, patched checkers...) is graded
within a cohort in tests/test_cohort.py.
"""

import json

import pytest
from conftest import EXEMPLAR

from autograder.cli import main as pdl
from autograder.course.source import stub
from autograder.course.synth import code_cell, with_cells
from autograder.run.grading import grade
from autograder.run.paths import REPO

LIMITS = dict(timeout=20, call_timeout=8, memory_mb=2048)


@pytest.fixture(scope="module")
def full_score(tmp_path_factory):
    from autograder.course.validate import variant_notebook

    path = tmp_path_factory.mktemp("full") / f"{EXEMPLAR}.ipynb"
    path.write_text(json.dumps(variant_notebook(EXEMPLAR, "correct")))
    report = grade(path, EXEMPLAR, **LIMITS)
    assert report.max_score > 0
    return report.score, report.max_score


def test_reference_solution_gets_full_marks(full_score):
    score, max_score = full_score
    assert score == max_score


def test_untouched_release_scores_zero_with_a_reason(write_nb, stub_nb):
    report = grade(write_nb("stub", stub_nb), EXEMPLAR, **LIMITS)
    assert report.score == 0 and report.max_score > 0
    assert all("not implemented" in t.message for t in report.tests)
    placeholders = [c for c in stub_nb["cells"] if "answer" in c["metadata"].get("tags", [])]
    assert len(report.manual) == len(placeholders) > 0  # written answers are collected for the TA


def test_json_record_has_the_promised_fields(write_nb, correct_nb, tmp_path, capsys):
    out = tmp_path / "report.json"
    assert pdl(["grade", str(write_nb("ok", correct_nb)), "--assignment", EXEMPLAR,
                "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert {"assignment", "submission", "score", "max_score", "tests", "errors"} <= set(data)
    assert data["score"] == data["max_score"] > 0
    assert all({"name", "points", "max_points", "passed", "message"} <= set(t) for t in data["tests"])
    printed = capsys.readouterr().out
    assert "total:" in printed and "PASS" in printed


def test_reading_private_files_fails_inside_the_sandbox(write_nb, correct_nb):
    cell = f"print(open('{REPO}/solutions/{EXEMPLAR}/__init__.py').read())"
    report = grade(write_nb("read", with_cells(correct_nb, [code_cell(cell)])), EXEMPLAR, **LIMITS)
    if report.isolation != "namespace":
        pytest.skip("Linux namespaces unavailable: file isolation is not enforced here")
    assert any("FileNotFoundError" in e or "Permission" in e for e in report.errors), report.errors


@pytest.mark.parametrize("content,reason", [
    ("{not json", "not valid JSON"),
    ("", "empty"),
    ('{"hello": "world"}', "no list of cells"),
    ("[1, 2, 3]", "not a notebook"),
])
def test_unreadable_notebooks_score_zero_with_a_clear_error(content, reason, write_nb):
    report = grade(write_nb("bad", content), EXEMPLAR, **LIMITS)
    assert report.score == 0 and report.max_score > 0
    assert any(reason in e for e in report.errors), report.errors


def test_partly_stubbed_notebook_scores_between(write_nb, correct_nb, full_score):
    from autograder.course.validate import variant_notebook

    report = grade(write_nb("partial", variant_notebook(EXEMPLAR, "partial")), EXEMPLAR, **LIMITS)
    assert 0 < report.score < full_score[0]


def test_stub_transform_keeps_signature_and_docstring():
    src = 'def f(x, y=2):\n    """Contract."""\n    z = x + y\n    return z\n\n\ndef g():\n    return 1\n'
    out = stub(src, only={"f"})
    assert 'def f(x, y=2):\n    """Contract."""' in out and "z = x + y" not in out
    assert "NotImplementedError" in out and "def g():\n    return 1" in out


def test_hidden_tests_that_fail_to_import_are_a_grader_error_not_a_ctrl_c(tmp_path, monkeypatch):
    """pytest ends a run with a collection error as INTERRUPTED, like Ctrl-C: the grader must
    say the tests failed to load (seen: a Gradescope venv without tqdm for lab7)."""
    from autograder.run import grading
    from autograder.run.testing import LocalStudent

    tests = tmp_path / "grading_tests" / "fake"
    tests.mkdir(parents=True)
    (tests / "test_fake.py").write_text("import not_a_module_anywhere\n\n\ndef test_a(student):\n    pass\n")
    monkeypatch.setattr(grading, "REPO", tmp_path)
    with pytest.raises(grading.GraderError, match="failed to load(.|\n)*not_a_module_anywhere"):
        grading.run_hidden_tests("fake", student=LocalStudent({}), diagnose=False)
