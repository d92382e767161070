"""Feedback that names the mistake (autograder/run/diagnose.py): hints of the wrong cells, generic
diagnoses, and never a reference value in the text.

Every wrong cell of every assignment is graded with the diagnosis inside `pdl validate`
(`validate.mistake_checks`, run for all assignments by tests/test_validate.py): there each must
lose points and be named by its own hint, each alternative must pass with no diagnosis, and no
diagnosis may show a number the reference returned. Here, per assignment, the `rewrite` cell
(the same mistake written differently) and its wrong cell are graded in-process the same way,
and one notebook with two mistakes goes through `pdl grade` end to end.
"""

import json

import numpy as np
import pytest

from autograder.run import diagnose
from autograder.course.inprocess import RecordingStudent, grade_code, reference_values
from autograder.run.diagnose.catalogue import Call, Variant
from autograder.run.diagnose.leaks import leaked_numbers, numbers_of
from autograder.course.generate import module_text
from autograder.run.paths import REPO
from autograder.course.source import all_assignments, load
from autograder.run.mistakes import cell_hint, read_mistakes
from conftest import EXEMPLAR

ASSIGNMENTS = all_assignments()


def test_hint_syntax():
    cell = ("# wrong: the natural log instead of log2\n"
            "# hint: Entropies are in bits here:\n"
            "#   use log base 2 (Section 1).\n"
            "# a remark for instructors\n"
            "def f(x):\n    # hint: not this one\n    return x\n")
    assert cell_hint(cell) == "Entropies are in bits here: use log base 2 (Section 1)."
    assert cell_hint("# wrong: no hint\ndef f():\n    pass") == ""


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_wrong_cell_has_a_hint_and_a_rewrite_exists(assignment):
    mistakes = read_mistakes(assignment)
    assert mistakes == load(assignment).mistakes(), "the grader's light reader must agree with jupytext"
    assert len(mistakes) >= 3 and all(m.hint for m in mistakes), \
        [m.description for m in mistakes if not m.hint]
    assert len({m.hint for m in mistakes}) == len(mistakes), "two wrong cells share a hint"
    assert sum(len(m.rewrites) for m in mistakes) >= 1, "no rewrite cell (the same mistake written differently)"
    # wrong and rewrite cells are instructor code: never in what students receive
    release = ""
    for path in (REPO / "assignments" / assignment).rglob("*"):
        if path.is_file():
            text = path.read_text(errors="ignore")
            if path.suffix == ".ipynb":
                text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"])
            release += text + "\n"
    assert "# wrong:" not in release and "# rewrite:" not in release and "# hint:" not in release
    for m in mistakes:
        assert m.hint not in " ".join(release.split())


def _named(assignment, code, hint):
    """Grade ``code`` in-process; (lost points?, named by ``hint``?, numbers of the reference shown)."""
    results, student = grade_code(assignment, module_text(load(assignment)) + "\n\n" + code)
    leaked = [n for r in results if r.diagnosis
              for n in leaked_numbers(r.diagnosis, reference_values(assignment, student, r.name))]
    lost = any(not r.passed for r in results)
    return lost, any(hint in r.diagnosis for r in results), leaked, results


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_a_mistake_written_twice_gets_the_same_hint(assignment):
    for m in read_mistakes(assignment):
        for desc, code in m.rewrites:
            for what, text in (("wrong cell", m.code), (f"rewrite {desc!r}", code)):
                lost, named, leaked, results = _named(assignment, text, m.hint)
                assert lost, f"{what} of {m.description!r} scores full marks"
                assert named, (f"{what} of {m.description!r} not named by its hint; diagnoses: "
                               f"{[r.diagnosis for r in results if r.diagnosis]}")
                assert not leaked, f"a diagnosis shows reference values {leaked}"


def test_reference_and_alternatives_get_no_diagnosis():
    src = load(EXEMPLAR)
    for code in [""] + [c.source for c in src.cells if c.role == "alternative"]:
        results, _ = grade_code(EXEMPLAR, module_text(src) + "\n\n" + code)
        assert all(r.passed and not r.diagnosis for r in results)


def test_switch_off(monkeypatch):
    """PDL_DIAGNOSE=0: failing tests, no diagnosis (what the benchmark compares against)."""
    code = read_mistakes(EXEMPLAR)[0].code
    monkeypatch.setenv("PDL_DIAGNOSE", "0")
    results, _ = _grade_env(code)
    assert any(not r.passed for r in results) and not any(r.diagnosis for r in results)
    monkeypatch.setenv("PDL_DIAGNOSE", "1")
    results, _ = _grade_env(code)
    assert any(r.diagnosis for r in results)


def test_a_proxy_without_a_call_log_gets_no_diagnosis():
    """Mutation runs grade through a plain LocalStudent (no call_log): graded as before."""
    from autograder.course.inprocess import score_code

    score, full = score_code(EXEMPLAR, module_text(load(EXEMPLAR)) + "\n\n" + read_mistakes(EXEMPLAR)[0].code)
    assert 0 <= score < full


def _grade_env(code):
    from autograder.run.grading import run_hidden_tests
    from autograder.course.inprocess import TimedNamespace

    ns = {"__name__": "variant"}
    exec(module_text(load(EXEMPLAR)) + "\n\n" + code, ns)
    student = RecordingStudent(TimedNamespace(ns))
    return run_hidden_tests(EXEMPLAR, student), student  # diagnose=None: the environment decides


# -- generic diagnoses, on a small made-up reference -----------------------------------------
class _Cat:
    def __init__(self):
        ns = {"np": np}
        exec("def f(x, scale=1.0):\n    return scale * np.sin(x) + 0.25\n\n"
             "def g(n):\n    return np.outer(np.arange(1.0, n + 1), np.arange(2.0, n + 4))\n", ns)
        self.reference = Variant("reference", "", ns, set())


def _generic(name, answer, inputs):
    """The generic diagnosis of a student whose ``name`` answers ``answer(*args)`` on ``inputs``."""
    cat = _Cat()
    calls = [Call(name, args, kwargs, answer(*args, **kwargs)) for args, kwargs in inputs]
    text = diagnose.generic(cat, calls, lambda i: cat.reference.call(calls[i]), 1e-9, 1e-12)
    shown = [v for c in calls for v in numbers_of(cat.reference.call(c))]
    assert not leaked_numbers(text, shown), text
    return text


X = [((np.linspace(0.1, 3.0, 7),), {}), ((np.linspace(-2.0, -0.5, 5),), {"scale": 1.0})]


def ref_f(x, scale=1.0):
    return scale * np.sin(x) + 0.25


@pytest.mark.parametrize("answer,expected", [
    (lambda x, scale=1.0: 2 * ref_f(x, scale), "same factor 2 on every input"),
    (lambda x, scale=1.0: ref_f(x, scale) / np.pi, "same factor 1/π"),
    (lambda x, scale=1.0: -ref_f(x, scale), "up to the sign"),
    (lambda x, scale=1.0: 1.37 * ref_f(x, scale), "same constant factor on every input"),
    (lambda x, scale=1.0: ref_f(x, scale) + 0.3, "additive constant"),
    (lambda x, scale=1.0: np.where(x > 1, np.nan, ref_f(x, scale)), "nan or inf"),
    (lambda x, scale=1.0: ref_f(x, scale)[:-1], "shape"),
    (lambda x, scale=1.0: (ref_f(x, scale), 1.0), "returns a tuple of 2 values where an array is expected"),
])
def test_generic_diagnoses(answer, expected):
    assert expected in _generic("f", answer, X)


def test_generic_ignored_argument_and_small_inputs():
    inputs = [((np.linspace(0.1, 2.0, 5),), {"scale": 3.0}), ((np.array([0.3, 0.7]), 2.5), {})]
    assert "argument `scale`" in _generic("f", lambda x, scale=1.0: ref_f(x), inputs)
    mixed = [((np.linspace(0.1, 2.0, 5),), {}), ((np.array([0.3, 0.7]),), {"scale": 2.5}),
             ((np.array([0.2, 0.9]),), {"scale": 1.0})]
    text = _generic("f", lambda x, scale=1.0: ref_f(x, scale) + (scale != 1.0) * x ** 2, mixed)
    assert "correct only when `scale` has its default value" in text
    grid = [((np.linspace(0.1, 9.0, 12),), {})]
    text = _generic("f", lambda x: np.where(np.abs(x) < 4, ref_f(x), ref_f(x) * (1 + 1e-3 * x)), grid)
    assert "correct for small inputs but wrong for large ones" in text
    ok = [((np.array([0.1 * k]),), {}) for k in range(1, 4)]
    nan = [((np.array([50.0 + k]),), {}) for k in range(2)]
    assert "for large inputs" in _generic("f", lambda x: ref_f(x) if x[0] < 10 else np.full(1, np.inf), ok + nan)


def test_generic_transpose():
    assert "transpose" in _generic("g", lambda n: np.outer(np.arange(1.0, n + 1), np.arange(2.0, n + 4)).T,
                                   [((3,), {}), ((4,), {})])


def test_leak_scan_sees_a_reference_value():
    assert leaked_numbers("expected 0.7314 here", [0.731412]) == ["0.7314"]
    assert leaked_numbers("off by the factor 2, shape (3, 4)", [2.0, 3.0, 0.7314]) == []
    assert leaked_numbers("the value 1234", [1234.0]) == ["1234"]
    notes = "see Section 2.2, eq. (2.24), eqs. (3.26)–(3.30), Exercises 7.2 and 7.3 and Exercise 2.2(a)"
    assert leaked_numbers(notes, [2.2, 2.24, 3.26, 3.3, 7.2, 7.3]) == []
    assert leaked_numbers("Section 2.5: α_c ≈ 1.448", [1.4484]) == ["1.448"]


# -- end to end: `pdl grade` names both mistakes of one notebook ------------------------------
def test_pdl_grade_names_two_mistakes(write_nb, correct_nb, tmp_path, capsys):
    from autograder.cli import main as pdl
    from autograder.run.notebook import code_cell, with_cells

    mistakes = read_mistakes(EXEMPLAR)
    chosen = [m for m in mistakes if "wedges" in m.description] + \
             [m for m in mistakes if "without the factors 1/2" in m.description]
    assert len(chosen) == 2
    nb = with_cells(correct_nb, [code_cell(m.code) for m in chosen])
    out = tmp_path / "report.json"
    assert pdl(["grade", str(write_nb("two", nb)), "--assignment", EXEMPLAR, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    tests = json.loads(out.read_text())["tests"]
    assert all("diagnosis" in t for t in tests)
    for m in chosen:
        assert m.hint in printed, printed
        assert any(m.hint in t["diagnosis"] for t in tests if not t["passed"])
    assert not any(t["diagnosis"] for t in tests if t["passed"])
    assert "hint: Your results match a known mistake" in printed
    assert "hint: Your results match known mistakes made together" in printed  # a caller of both
    named = {h for t in tests for h in diagnose.named_hints(t["diagnosis"])}
    assert named == {m.hint for m in chosen}
