"""Numbers a student can use (issue 35, item 4): after publication a failing test shows her own
value, the call that returned it and the expected value; before publication nothing she reads
shows a hidden input or a reference value."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import EXEMPLAR

from autograder.cohort import pages
from autograder.cohort.record import Record
from autograder.course.generate import module_text
from autograder.course.inprocess import grade_code
from autograder.course.source import load
from autograder.gradescope.results import results
from autograder.run.diagnose.catalogue import Call, catalogue
from autograder.run.grading import grade
from autograder.run.ledger import holds
from autograder.run.mistakes import read_mistakes
from autograder.run.notebook import code_cell
from autograder.run.record import Kind, TestResult
from autograder.run.shown import MAX_TEXT, Shown, brief, call_text, shown


def test_values_in_words():
    assert brief(0.123456789) == "0.123457" and brief(3) == "3" and brief(np.float32(2.5)) == "2.5"
    assert brief(np.array([1.0, 2.5])) == "[1, 2.5]" and brief(None) == "None" and brief(True) == "True"
    assert brief(np.zeros((40, 3))).startswith("an array of shape (40, 3) starting [0, 0, 0, ...]")
    assert brief((1, [2, 3])) == "(1, [2, 3])" and brief({"q": 1.0}) == "{'q': 1}"
    assert brief(list(range(100))) == "[0, 1, 2, 3, 4, 5, ...]"
    assert brief(lambda x: x) == "the function <lambda>" and brief(object()) == "a object"


def test_what_a_hostile_answer_makes_of_it_is_short():
    """A student's value is hers to see, but never a page's worth: every text is cut."""
    deep = []
    for _ in range(500):
        deep = [deep]
    for value in ("<script>" * 10_000, list(range(10**5)), {str(k): "x" * 999 for k in range(999)}, deep,
                  np.zeros(10**6), np.array(["a" * 50] * 3)):
        assert len(brief(value)) <= MAX_TEXT
    assert len(call_text("f", (np.zeros(10**5), "y" * 10**5), {"k": list(range(10**5))})) <= MAX_TEXT + 40


def test_a_failed_comparison_names_the_call_the_item_and_the_entry_most_off():
    answer = (1.0, np.array([[1.0, 2.0], [3.0, 4.0]]))
    expected = (1.0, np.array([[1.0, 2.0], [3.0, 8.0]]))
    got = shown(answer, expected, 1e-7, 0.0, [("g", (2,), {}, 0.5), ("f", (3, np.ones(2)), {"beta": 0.5}, answer)],
                holds)
    assert got == Shown(yours="an array of shape (2, 2) starting [1, 2, 3, ...]",
                        expected="an array of shape (2, 2) starting [1, 2, 3, ...]", call="f(3, [1, 1], beta=0.5)",
                        item="[1]", where="most off at [1, 1]: yours 4, expected 8; 1 of 4 entries off")
    assert got.text().startswith("Your f(3, [1, 1], beta=0.5) returned an array")
    assert Shown.from_dict(json.loads(json.dumps(got.to_dict()))) == got
    computed = shown(0.25, 0.5, 1e-7, 0.0, [("f", (3,), {}, 0.125)], holds)  # not an answer: the test's arithmetic
    assert computed.call == "" and computed.text() == ("The value the test computed from your answers was 0.25; "
                                                       "expected 0.5.")


def _a_wrong_answer_graded_in_process():
    """The exemplar with its first catalogued mistake whose tests fail on a wrong answer."""
    for m in read_mistakes(EXEMPLAR):
        got, student = grade_code(EXEMPLAR, module_text(load(EXEMPLAR)) + "\n\n" + m.code)
        failed = [r for r in got if r.kind is Kind.FAIL and r.shown is not None and r.shown.call]
        if failed:
            return failed, student
    raise AssertionError("no catalogued mistake of the exemplar fails a test on a wrong answer")


def test_the_values_shown_are_those_of_her_function_and_of_the_reference_on_that_call():
    """Independently of how the grader made them: the call shown is one the test made, her value
    is what her function returned on it, the expected value what the reference returns on it."""
    failed, student = _a_wrong_answer_graded_in_process()
    reference = catalogue(EXEMPLAR).reference
    for r in failed:
        calls = [c for test, c in student.history if test == r.name]
        made = [c for c in calls if call_text(c.name, c.args, c.kwargs) == r.shown.call]
        assert made, (r.name, r.shown.call)
        c = made[-1]
        want = reference.call(Call(c.name, c.args, c.kwargs, None))
        if r.shown.item:  # the item of a sequence answer that is off
            index = [int(i) for i in re.findall(r"\[(\d+)\]", r.shown.item)]
            mine, want = c.value, want
            for i in index:
                mine, want = mine[i], want[i]
        else:
            mine = c.value
        assert r.shown.yours == brief(mine) and r.shown.expected == brief(want), r.shown
        assert r.shown.yours != r.shown.expected or r.shown.where


@pytest.fixture(scope="module")
def wrong_report(tmp_path_factory, correct_nb):
    """A sandboxed grade of the correct notebook with one catalogued mistake appended."""
    failed, _ = _a_wrong_answer_graded_in_process()
    mistake = next(m for m in read_mistakes(EXEMPLAR)
                   if any(r.shown.call.startswith(f"{name}(") for r in failed for name in _defined(m.code)))
    nb = json.loads(json.dumps(correct_nb))
    nb["cells"].append(code_cell(mistake.code))
    path = tmp_path_factory.mktemp("wrong") / f"{EXEMPLAR}.ipynb"
    path.write_text(json.dumps(nb))
    report = grade(path, EXEMPLAR, public_checks=True)
    assert any(t.shown is not None for t in report.tests if t.kind is Kind.FAIL), report.tests
    return report


def _defined(code: str) -> list[str]:
    return re.findall(r"^def (\w+)\(", code, flags=re.M)


def _numbers(text: str) -> set[str]:
    """Numbers with three decimals or more (a reference's values; not a check's 0.5 or 1.0)."""
    return set(re.findall(r"-?\d+\.\d{3,}(?:e[-+]?\d+)?", text))


def test_gradescope_shows_the_values_with_the_hidden_tests_only(wrong_report):
    data = results(wrong_report)
    values = [t.shown.text() for t in wrong_report.tests if t.shown is not None and not t.passed
              and not t.carried_forward]
    shown_after = "\n".join(t["output"] for t in data["tests"] if t["visibility"] == "after_published")
    visible = "\n".join(t.get("output", "") for t in data["tests"] if t["visibility"] == "visible")
    assert values and all(v in shown_after for v in values)
    expected_numbers = set().union(*(_numbers(t.shown.expected + t.shown.call) for t in wrong_report.tests
                                     if t.shown is not None))
    assert not _numbers(visible) & expected_numbers, visible


@pytest.mark.parametrize("published", [False, True])
def test_the_feedback_pages_show_values_only_when_written_for_after_publication(wrong_report, monkeypatch,
                                                                                published):
    monkeypatch.setenv("PDL_PUBLISHED", "1" if published else "0")
    rec = Record(**{**vars(wrong_report), "student": "s1"})
    html, md = pages.feedback_html(rec), pages.feedback_markdown(rec)
    failing = [t for t in rec.tests if t.shown is not None and not t.passed and not t.carried_forward]
    assert failing
    for t in failing:
        text = t.shown.text()
        for page, escaped in ((html, text.replace("'", "&#39;")), (md, text)):
            assert (escaped in page or pages.md_text(text) in page) is published, (published, text)
    secret = set().union(*(_numbers(t.shown.expected + t.shown.call) for t in failing))
    if not published:
        assert not (_numbers(html) | _numbers(md)) & secret
    assert ("the expected value." in html) is published and ("not the expected values" in html) is not published


def test_a_record_keeps_its_values_and_an_old_record_reads_without_them():
    t = TestResult("t", 0.0, 1.0, False, "m", kind=Kind.FAIL, shown=Shown("1", "2", "f(0)"))
    assert TestResult.from_dict(json.loads(json.dumps(t.to_dict()))) == t
    old = {k: v for k, v in t.to_dict().items() if k != "shown"}
    assert TestResult.from_dict(old).shown is None


def test_grade_cohort_published_rewrites_the_pages_with_the_values_without_grading_again(tmp_path, monkeypatch,
                                                                                        wrong_report):
    """The TA's route: pages written before publication show no value; after grades are published,
    `pdl grade-cohort --published` into the same --out rewrites them with the values (nothing is
    graded again)."""
    from autograder.cli import main as pdl

    # set (not deleted), so that what the CLI sets in this process is undone after the test
    monkeypatch.setenv("PDL_PUBLISHED", "0")
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "ana.ipynb").write_bytes(Path(wrong_report.submission).read_bytes())
    out = tmp_path / "out"
    args = ["grade-cohort", str(subs), "--assignment", EXEMPLAR, "--out", str(out), "--no-gradebook", "--quiet",
            "--workers", "1"]
    assert pdl(args) == 0
    page = (out / "feedback" / "ana.html").read_text()
    record = json.loads((out / "records" / "ana.json").read_text())
    values = [t["shown"] for t in record["tests"] if t.get("shown") and not t["passed"] and not t["carried_forward"]]
    assert values and "not the expected values" in page
    assert not _numbers(page) & set().union(*(_numbers(v["expected"] + v["call"]) for v in values))
    assert pdl(args + ["--published"]) == 0
    page = (out / "feedback" / "ana.html").read_text()
    assert json.loads((out / "records" / "ana.json").read_text()) == record  # not graded again
    assert all(Shown.from_dict(v).text().replace("'", "&#39;") in page for v in values), page
