"""What a student reads in her notebook (issue 44, item 4): a failing public check says what it
compared and which function a nan came from, the check helper's cell is plain code with no word of
the course's tools, check_notebook.py counts only checks, and the claims of the text (a written
question's premise, the introduction's count) hold on the reference (``claim`` cells, run by
``pdl validate``)."""

import json
import linecache
import subprocess
import sys

import nbformat
import pytest

from autograder.course import release_checks as rc
from autograder.course.checks import CHECK_HELPER
from autograder.course.source import Claim
from autograder.run.paths import REPO


def run_checks(cell: str, name: str = "<pdl-test-cell>") -> list[str]:
    """The lines the release's check helper prints for a cell of checks (and the functions they
    use), run as a notebook runs them: the cell's source in linecache, as IPython keeps it."""
    import contextlib
    import io

    scope: dict = {"__name__": "__main__"}
    exec(compile(CHECK_HELPER, "<helper>", "exec"), scope)  # noqa: S102 - the helper cell
    linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(cell, name, "exec"), scope)  # noqa: S102 - a check cell
    return out.getvalue().splitlines()


# -- a bare assert says what it compared ----------------------------------------------------------
def test_a_bare_assert_shows_the_values_it_compared():
    lines = run_checks(
        "import numpy as np\n"
        "def mean_of(x):\n"
        "    return float(np.mean(x))\n"
        "@check\n"
        "def check_small():\n"
        "    'magnetization is small'\n"
        "    m = 0.7\n"
        "    assert abs(m) < 0.5\n"
        "@check\n"
        "def check_close():\n"
        "    'the mean of 0, 1, 2, 3'\n"
        "    assert np.isclose(mean_of(np.arange(4.0)), 2.0)\n"
        "@check\n"
        "def check_and():\n"
        "    'shape and first entry'\n"
        "    x = np.arange(3.0)\n"
        "    assert x.shape == (3,) and x[0] > 1\n"
        "@check\n"
        "def check_message():\n"
        "    'a message of its own'\n"
        "    assert mean_of([1.0]) == 2.0, 'the mean of [1] should be 2'\n")
    assert lines == [
        "FAIL     magnetization is small: AssertionError: `assert abs(m) < 0.5` does not hold, where abs(m) = 0.7",
        "FAIL     the mean of 0, 1, 2, 3: AssertionError: `assert np.isclose(mean_of(np.arange(4.0)), 2.0)` does "
        "not hold, where mean_of(np.arange(4.0)) = 1.5",
        "FAIL     shape and first entry: AssertionError: `assert x.shape == (3,) and x[0] > 1` does not hold, "
        "where x[0] = 0.0",
        "FAIL     a message of its own: AssertionError: the mean of [1] should be 2",
    ]


def test_a_bare_assert_on_arrays_shows_them_short():
    lines = run_checks(
        "import numpy as np\n"
        "@check\n"
        "def check_big():\n"
        "    'a big array'\n"
        "    x = np.linspace(0, 1, 1000)\n"
        "    assert np.allclose(x, 0.5)\n")
    assert len(lines) == 1 and lines[0].startswith("FAIL     a big array: AssertionError: `assert np.allclose(x, 0.5)`")
    assert "where x = [0. , 0.001001, ..., 0.998999, 1. ]" in lines[0] and len(lines[0]) < 200


# -- a nan is blamed on the function that made it --------------------------------------------------
NAN_CELL = (
    "import numpy as np\n"
    "def features(n):\n"
    "    return np.log(np.arange(n) - 1.0)   # a bug: log of -1 and of 0\n"
    "def mean_of(x):\n"
    "    return float(np.mean(x))            # correct: a nan in, a nan out\n"
    "def sign_or_nan(x):\n"
    "    return np.nan if x < 0 else 1.0     # its documented convention: nan below 0\n"
    "@check\n"
    "def check_mean_of():\n"
    "    'mean_of averages the features'\n"
    "    assert np.isnan(sign_or_nan(-1.0))\n"
    "    assert abs(mean_of(features(4)) - 1.0) < 10\n"
    "@check\n"
    "def check_mean_of_message():\n"
    "    'mean_of is positive'\n"
    "    assert mean_of(features(4)) > 0, 'the mean should be positive'\n"
    "@check\n"
    "def check_finite_failure():\n"
    "    'a failure with finite values names nobody'\n"
    "    assert np.isnan(sign_or_nan(-1.0))\n"
    "    assert mean_of([1.0, 2.0]) > 2\n")


def test_a_nan_is_blamed_on_the_function_that_returned_it():
    lines = run_checks(NAN_CELL)
    assert lines[0].startswith("FAIL     mean_of averages the features: features returned nan from finite "
                               "arguments in this check: fix features first (AssertionError: `assert abs(mean_of(")
    assert lines[0].endswith("= nan)")
    assert lines[1] == ("FAIL     mean_of is positive: features returned nan from finite arguments in this check: "
                        "fix features first (AssertionError: the mean should be positive)")
    assert lines[2] == ("FAIL     a failure with finite values names nobody: AssertionError: "
                        "`assert mean_of([1.0, 2.0]) > 2` does not hold, where mean_of([1.0, 2.0]) = 1.5")


def test_a_nan_that_the_function_under_check_makes_itself_is_its_own():
    lines = run_checks(
        "import numpy as np\n"
        "def inner(x):\n"
        "    return x + 1.0\n"
        "def outer(x):\n"
        "    return np.sqrt(inner(x) - 10.0)   # nan from finite values its helper returned\n"
        "@check\n"
        "def check_outer():\n"
        "    'outer is real'\n"
        "    assert np.isfinite(outer(2.0))\n")
    assert lines == ["FAIL     outer is real: outer returned nan from finite arguments in this check: fix outer first "
                     "(AssertionError: `assert np.isfinite(outer(2.0))` does not hold, where outer(2.0) = nan)"]


def test_an_inf_from_a_nested_function_is_blamed_on_the_inner_one():
    lines = run_checks(
        "import numpy as np\n"
        "def inner(x):\n"
        "    return 1.0 / np.float64(x - x)      # inf\n"
        "def outer(x):\n"
        "    return 2.0 * inner(x)\n"
        "@check\n"
        "def check_outer():\n"
        "    'outer is finite'\n"
        "    assert outer(3.0) < 1e300\n")
    assert lines[0].startswith("FAIL     outer is finite: inner returned inf from finite arguments in this check")


# -- the helper cell is plain code, with no word of the course's tools ------------------------------
def test_the_helper_cell_shows_no_course_tool_text():
    assert rc._tool_text(CHECK_HELPER) == []
    for word in ("course tools", "course/", "autograder", "pdl ", "Do not edit", "do not edit", "worker"):
        assert word not in CHECK_HELPER, word
    # the scan of a release reads the helper's cell too: the old helper's words are found there
    old = ("# Public checks (inserted by the course tools; do not edit).\n"
           "def _pdl_why(exc):\n    '''... the release notebooks' check helper carries this function's source\n"
           "    and imports ``traceback`` itself (course/checks.py).'''\n")
    nb = {"cells": [{"cell_type": "code", "source": old, "metadata": {"tags": ["pdl-checks"]}},
                    {"cell_type": "code", "source": CHECK_HELPER, "metadata": {"tags": ["pdl-checks"]}}]}
    found = rc.course_tool_text("x", nb)
    assert [f.split(":")[0] for f in found] == ["cell 0", "cell 0"]
    assert any("'Do not edit'" in f for f in found) and any("a path of the course's code" in f for f in found)


@pytest.mark.parametrize("assignment", ["ex2_3_ising_perceptron", "ex4_4_lazy_lab", "ex7_1_quanta"])
def test_every_release_carries_the_plain_helper(assignment):
    release = json.loads((REPO / "assignments" / assignment / f"{assignment}.ipynb").read_text())
    helpers = ["".join(c["source"]) for c in release["cells"] if "pdl-checks" in c["metadata"].get("tags", [])]
    assert helpers == [CHECK_HELPER.rstrip("\n")]
    assert rc.course_tool_text(assignment, release) == []


# -- check_notebook.py counts checks, not figures ----------------------------------------------------
def test_check_notebook_counts_only_checks(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_code_cell(CHECK_HELPER.rstrip("\n")),
        nbformat.v4.new_code_cell("def f(x):\n"
                                  "    raise NotImplementedError('f: replace this line with your implementation')"),
        nbformat.v4.new_code_cell("def g(x):\n    return 2 * x"),
        nbformat.v4.new_code_cell("@check\ndef check_g():\n    'g doubles'\n    assert g(2) == 4\n"
                                  "@check\ndef check_g_wrong():\n    'g triples'\n    y = g(2)\n    assert y == 6\n"),
        nbformat.v4.new_code_cell("%%figure\nprint(f(1))"),
        nbformat.v4.new_code_cell("%%figure\nprint(f(2))"),
    ]
    path = tmp_path / "mini.ipynb"
    nbformat.write(nb, path)
    run = subprocess.run([sys.executable, str(REPO / "assignments" / "check_notebook.py"), str(path)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    lines = run.stdout.splitlines()
    assert "ok       g doubles" in lines
    assert "FAIL     g triples: AssertionError: `assert y == 6` does not hold, where y = 4" in lines
    assert sum(ln.startswith("figure   not yet  this figure needs f") for ln in lines) == 2, run.stdout
    assert "1/2 public checks pass. Public checks are a first test only; hidden tests use other inputs." in lines
    assert run.returncode == 1


# -- the claims of the text hold on the reference -------------------------------------------------
def test_claim_cells_are_read_with_their_question():
    from autograder.course.source import load

    claims = load("ex4_4_lazy_lab").claims()
    assert [c.question for c in claims] == ["written_1"]
    assert claims[0].description.startswith("(c) the drift fit near -1/2 and the largest width below the line")
    intro = load("ex7_1_quanta").claims()
    assert [(c.question, c.description) for c in intro] == [
        ("", "the introduction counts the written questions and gives each one's points and the total")]


def test_the_claims_hold_on_the_reference():
    lines = rc.claim_lines(rc.claim_results("ex7_1_quanta"))
    assert lines == [(True, "claims of the text hold on the reference at its default settings: 1/1 (the text "
                            "(the introduction counts the written questions and gives each one's points and the "
                            "total))")]
    assert rc.claim_lines(rc.claim_results("ex2_3_ising_perceptron")) == [
        (True, "claims of the text checked on the reference: none in the source")]


def test_a_false_claim_makes_validates_line_fail(monkeypatch):
    """The old premise of ex4_4 (c), a drift slope between -1 and -1/2, and an introduction that
    counts one written answer where there are three: each claim fails, saying what it compared."""
    from autograder.course import source as source_module

    real = source_module.Source.claims
    false = {
        "ex4_4_lazy_lab": ("(c) the drift slope lies between -1 and -1/2",
                           "Ns = np.array(ref.PARAMS['Ns'], dtype=float)\n"
                           "drift = [np.mean([ref.kernel_drift(int(N), 0.5, s, steps=ref.STEPS) for s in (0, 1, 2)])"
                           " for N in Ns]\n"
                           "slope = np.polyfit(np.log(Ns), np.log(drift), 1)[0]\n"
                           "assert -1 < slope < -0.5\n", "written_1"),
        "ex7_1_quanta": ("the introduction mentions one written answer",
                         "assert len(questions) == 1\n", ""),
    }

    def claims(self):
        if self.assignment not in false:
            return real(self)
        description, code, question = false[self.assignment]
        return [Claim(description, f"# claim: {description}\n{code}", 1, question)]

    monkeypatch.setattr(source_module.Source, "claims", claims)
    for assignment in false:
        results = rc._run_claims(assignment)  # in this process: the monkeypatched source
        [(good, text)] = rc.claim_lines(results)
        assert not good, text
        assert text.startswith("claims of the text that the reference at its default settings does not bear out: ")
    ex4_4 = rc.claim_lines(rc._run_claims("ex4_4_lazy_lab"))[0][1]
    assert "written_1 ((c) the drift slope lies between -1 and -1/2): AssertionError: " \
           "`assert -1 < slope < -0.5` does not hold, where slope = -0.4" in ex4_4
    ex7_1 = rc.claim_lines(rc._run_claims("ex7_1_quanta"))[0][1]
    assert ex7_1.endswith("the text (the introduction mentions one written answer): AssertionError: "
                          "`assert len(questions) == 1` does not hold, where len(questions) = 3")


def test_release_lines_include_the_claims(monkeypatch):
    monkeypatch.setattr(rc, "claim_results", lambda assignment: [
        {"question": "written_1", "description": "a slope", "ok": False, "message": "AssertionError: no",
         "seconds": 0}])
    lines = rc.release_lines("ex7_1_quanta", coverage=False)
    assert lines[-1] == (False, "claims of the text that the reference at its default settings does not bear out: "
                                "written_1 (a slope): AssertionError: no")
