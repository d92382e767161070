"""Fair grades (issue 22): what the grader says about a mistake is true and points at the
student's own code."""

from __future__ import annotations

import json

from conftest import EXEMPLAR

from autograder.run.grading import grade
from autograder.run.notebook import code_cell, with_cells


def test_an_error_inside_a_library_is_placed_in_the_students_cell(write_nb, correct_nb):
    """scipy raising deep inside itself: the message cites the student's cell and line, the
    deepest frame of the student's code, never scipy's own line."""
    wrong = code_cell("import scipy.optimize\n"
                      "def spinodal_load():\n"
                      "    # a bracket with no sign change: brentq raises inside scipy\n"
                      "    return scipy.optimize.brentq(lambda a: a * a + 1.0, 0.0, 1.0)\n")
    nb = with_cells(correct_nb, [wrong])
    report = grade(write_nb("scipy", nb), EXEMPLAR)
    message = next(t.message for t in report.tests if t.name == "test_spinodal_load")
    cell = len(nb["cells"])  # the appended cell, counted from 1
    assert f"line 4 of your cell {cell}, which starts `import scipy.optimize`" in message, message
    assert "_zeros.py" not in message and "of your code)" not in message


# -- error carried forward --------------------------------------------------------------------
def _graded(code: str, monkeypatch=None, carry=True):
    """The hidden tests in-process on the reference plus ``code`` (the same collector as pdl grade)."""
    from autograder.course.generate import module_text
    from autograder.course.inprocess import RecordingStudent, namespace_of
    from autograder.course.source import load
    from autograder.run.grading import run_hidden_tests

    if monkeypatch is not None:
        monkeypatch.setenv("PDL_CARRY_FORWARD", "1" if carry else "0")
    code = module_text(load(EXEMPLAR)) + "\n\n" + code
    student = RecordingStudent(namespace_of(EXEMPLAR, code), code, EXEMPLAR)
    return {r.name: r for r in run_hidden_tests(EXEMPLAR, student, diagnose=False)}


WRONG_EPS = ("def generalization_error(R):\n"
             "    return np.arccos(np.clip(np.asarray(R, dtype=float), -1.0, 1.0)) / (2 * np.pi)\n")
WRONG_ACTION = ("def annealed_action(R, alpha):\n"
                "    return overlap_entropy(R) + 2 * alpha * np.log(1.0 - generalization_error(R))\n")


def test_a_result_right_given_the_students_own_earlier_result_keeps_its_credit(monkeypatch):
    """One mistake (ε(R) = arccos R / 2π, a 1-point function) is charged once: the tests of the
    functions built on it keep their points, with a note naming it."""
    results = _graded(WRONG_EPS, monkeypatch)
    assert results["test_generalization_error"].points == 0
    credited = {n for n, r in results.items() if r.carried_forward}
    assert {"test_annealed_action", "test_annealed_counts", "test_figure_loads"} <= credited
    for name in credited:
        r = results[name]
        assert r.points == r.max_points and not r.passed
        assert r.carried_from == ["generalization_error"] and "your generalization_error" in r.carried_forward
    without = _graded(WRONG_EPS, monkeypatch, carry=False)
    assert sum(r.points for r in without.values()) < sum(r.points for r in results.values())
    assert not any(r.carried_forward for r in without.values())


def test_a_function_wrong_on_its_own_still_loses_its_points(monkeypatch):
    """annealed_action wrong by itself (a factor 2 in the energy term), and the same mistake on top
    of a wrong ε: neither is explained by the student's other functions."""
    alone = _graded(WRONG_ACTION, monkeypatch)
    both = _graded(WRONG_EPS + "\n\n" + WRONG_ACTION, monkeypatch)
    for results in (alone, both):
        assert results["test_annealed_action"].points == 0 and not results["test_annealed_action"].carried_forward


def test_the_report_gives_the_score_with_and_without_carry_forward(write_nb, correct_nb):
    """The sandbox route: the hybrid's calls of the student's functions go over the channel."""
    report = grade(write_nb("eps", with_cells(correct_nb, [code_cell(WRONG_EPS)])), EXEMPLAR)
    credited = [t for t in report.tests if t.carried_forward]
    assert credited and report.score == report.score_without_carry_forward + sum(t.points for t in credited)
    assert json.loads(json.dumps(report.to_dict()))["score_without_carry_forward"] < report.score


def test_feedback_says_each_mistake_once_and_lists_the_tests_it_explains(monkeypatch):
    """Each function at fault once, with its failing tests and its diagnosis once; the credited
    test in a section of its own, with the function it follows from (issue 43)."""
    from autograder.cohort.pages import feedback_html, feedback_markdown, mistake_groups

    monkeypatch.setenv("PDL_PUBLISHED", "1")  # pages for after publication: the catalogued hint is told
    from autograder.cohort.record import Record

    hint = "Your results match a known mistake: count both wedges."
    note = "credited: it follows from your generalization_error (error carried forward)"
    known = {"kind": "known", "function": "generalization_error", "params": {"hints": ["count both wedges."]}}
    rec = Record.from_dict({
        "assignment": EXEMPLAR, "student": "ada", "score": 3.0, "max_score": 5.0, "errors": [],
        "tests": [{"name": "test_a", "points": 0.0, "max_points": 1.0, "passed": False, "message": "a",
                   "function": "generalization_error", "charged_to": "generalization_error", "diagnoses": [known]},
                  {"name": "test_a2", "points": 0.0, "max_points": 1.0, "passed": False, "message": "a2",
                   "function": "generalization_error", "charged_to": "generalization_error", "diagnoses": [known]},
                  {"name": "test_b", "points": 3.0, "max_points": 3.0, "passed": False, "message": "b",
                   "function": "annealed_counts", "carried_from": ["generalization_error"],
                   "diagnoses": [{**known, "function": "annealed_counts"}], "carried_forward": note}]})
    assert mistake_groups(rec) == [{"function": "generalization_error", "tests": ["test_a", "test_a2"], "lost": 2.0,
                                    "what": [hint]}]
    for page in (feedback_markdown(rec), feedback_html(rec)):
        assert page.count("count both wedges") == 1 and "test_a, test_a2" in page and note in page
        assert "Kept by error carried forward" in page and "test_b (3 points kept): it follows from your " \
            "generalization_error" in page
