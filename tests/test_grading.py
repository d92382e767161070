"""`pdl grade` on real notebooks: scores, the JSON record, and hostile or broken submissions.

Every hostile case is graded like any other submission; it must end with the score its
honest content deserves, and the grader must survive it.
"""

import json

import nbformat
import pytest

from autograder.cli import main as pdl
from autograder.grading import grade
from autograder.sandbox import REPO
from autograder.source import load, stub
from conftest import EXEMPLAR, code_cell, with_cells

LIMITS = dict(timeout=20, call_timeout=8, memory_mb=2048)


@pytest.fixture(scope="module")
def full_score(tmp_path_factory):
    from autograder.validate import variant_notebook

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


def _one_function_broken(correct_nb, name: str, body: str) -> dict:
    """The correct notebook with `name` redefined in an extra cell after the graded ones."""
    return with_cells(correct_nb, [code_cell(f"def {name}(*args, **kwargs):\n{body}")])


def _first_graded():
    return load(EXEMPLAR).graded_functions()[0]


HONEST = {  # extra cell -> the notebook still deserves full marks
    "infinite_loop_cell": "while True:\n    pass",
    "os_exit": "import os\nos._exit(0)",
    "sys_exit": "import sys\nsys.exit()",
    "read_solutions": f"print(open('{REPO}/solutions/{EXEMPLAR}/__init__.py').read())",
    "import_solutions": f"import sys\nsys.path.insert(0, '{REPO}')\nfrom solutions.{EXEMPLAR} import *",
    "write_tests": f"open('{REPO}/grading_tests/{EXEMPLAR}/test_{EXEMPLAR}.py', 'w').write('')",
    "fake_results": "import json\njson.dump({'score': 1e9}, open('results.json', 'w'))",
    "output_flood": "import sys\nfor i in range(10**7):\n    sys.stdout.write(f'{i}\\n')",
    "memory_bomb": "x = bytearray(50 * 2**30)",
    "patch_checkers": "import numpy as np, math, pytest\nnp.allclose = lambda *a, **k: True\n"
                      "math.isclose = lambda *a, **k: True\npytest.approx = lambda *a, **k: 0",
}


@pytest.mark.parametrize("case", sorted(HONEST))
def test_hostile_cell_does_not_change_an_honest_score(case, write_nb, correct_nb, full_score):
    nb = with_cells(correct_nb, [code_cell(HONEST[case])], at=len(correct_nb["cells"]))
    report = grade(write_nb(case, nb), EXEMPLAR, **LIMITS)
    assert report.score == full_score[0], [t.message for t in report.tests if not t.passed]


def test_reading_private_files_fails_inside_the_sandbox(write_nb, correct_nb):
    nb = with_cells(correct_nb, [code_cell(HONEST["read_solutions"])])
    report = grade(write_nb("read", nb), EXEMPLAR, **LIMITS)
    if report.isolation != "namespace":
        pytest.skip("Linux namespaces unavailable: file isolation is not enforced here")
    assert any("FileNotFoundError" in e or "Permission" in e for e in report.errors), report.errors


@pytest.mark.parametrize("lie", ["eq", "array", "float"])
def test_lying_return_values_earn_nothing(lie, write_nb, correct_nb, full_score):
    name = _first_graded()
    liar = {
        "eq": "    class L(float):\n        def __eq__(self, o): return True\n"
              "        def __ne__(self, o): return False\n    return L(-123.0)",
        "array": "    class A:\n        def __array__(self, *a, **k):\n            import numpy as np\n"
                 "            return np.array(-123.0)\n        def __eq__(self, o): return True\n    return A()",
        "float": "    class F:\n        def __float__(self): return -123.0\n"
                 "        def __eq__(self, o): return True\n    return F()",
    }[lie]
    nb = _one_function_broken(correct_nb, name, liar)
    patched = with_cells(nb, [code_cell("import numpy as np\nnp.allclose = lambda *a, **k: True\n"
                                        "np.testing.assert_allclose = lambda *a, **k: None")])
    report = grade(write_nb(f"liar_{lie}", patched), EXEMPLAR, **LIMITS)
    assert report.score < full_score[0]


def test_function_that_never_returns_loses_only_its_tests(write_nb, correct_nb, full_score):
    name = _first_graded()
    nb = _one_function_broken(correct_nb, name, "    while True:\n        pass")
    report = grade(write_nb("slow", nb), EXEMPLAR, **LIMITS)
    timed_out = [t for t in report.tests if "did not finish" in t.message]
    assert timed_out and 0 < report.score < full_score[0]


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


def test_nbformat3_notebook_is_converted_and_graded(write_nb, correct_nb, full_score):
    v4 = nbformat.from_dict(correct_nb)
    for cell in v4.cells:
        cell.pop("id", None)
    v3 = nbformat.convert(v4, 3)
    report = grade(write_nb("v3", nbformat.writes(v3, version=3)), EXEMPLAR, **LIMITS)
    assert report.score == full_score[0]


def test_partly_stubbed_notebook_scores_between(write_nb, correct_nb, full_score):
    from autograder.validate import variant_notebook

    report = grade(write_nb("partial", variant_notebook(EXEMPLAR, "partial")), EXEMPLAR, **LIMITS)
    assert 0 < report.score < full_score[0]


def test_stub_transform_keeps_signature_and_docstring():
    src = 'def f(x, y=2):\n    """Contract."""\n    z = x + y\n    return z\n\n\ndef g():\n    return 1\n'
    out = stub(src, only={"f"})
    assert 'def f(x, y=2):\n    """Contract."""' in out and "z = x + y" not in out
    assert "NotImplementedError" in out and "def g():\n    return 1" in out
