"""Hints lead, then tell (issue 35, item 3): the first hint a student reads for a known mistake
names the place and the symptom, never the rule (the catalogued hint) nor a reference value; the
rule text comes after publication or from a second resubmission, as ``course_config.HINTS`` says."""

import json

import pytest
from conftest import EXEMPLAR

from autograder.course import diagnosis_quality
from autograder.course.generate import module_text
from autograder.course.inprocess import grade_code, reference_values
from autograder.course.source import load
from autograder.gradescope import plugin
from autograder.gradescope.results import results
from autograder.run import settings
from autograder.run.diagnose.catalogue import catalogue
from autograder.run.diagnose.leaks import leaked_numbers
from autograder.run.diagnosis import KNOWN, Diagnosis, Found, sentence, tells
from autograder.run.mistakes import read_mistakes
from autograder.run.record import Evidence, Fault, GradeReport, TestResult


def test_the_one_place_that_decides():
    assert not tells("lead", published=True, resubmissions=5)
    assert tells("tell-after-publication", published=True) and not tells("tell-after-publication", published=False)
    assert not tells("tell-on-resubmission", published=True, resubmissions=1)
    assert tells("tell-on-resubmission", published=False, resubmissions=2)


def test_the_setting(monkeypatch):
    monkeypatch.delenv("PDL_HINTS", raising=False)
    assert settings.current().hints == "tell-after-publication"
    monkeypatch.setenv("PDL_HINTS", "lead")
    assert settings.current().hints == "lead"
    monkeypatch.setenv("PDL_HINTS", "always")
    with pytest.raises(ValueError, match="HINTS"):
        settings.current()


def test_the_lead_of_a_known_mistake_names_place_and_symptom_and_no_value():
    """Every catalogued mistake of the exemplar: where it is named, its lead names a function the
    mistake's cell defines, says nothing of the rule, shows no number the reference returned on
    the test's inputs, and a generic claim it makes holds (checked against the reference)."""
    reference = catalogue(EXEMPLAR).reference
    leads = 0
    for m in read_mistakes(EXEMPLAR):
        results_, student = grade_code(EXEMPLAR, module_text(load(EXEMPLAR)) + "\n\n" + m.code)
        for r in results_:
            known = [d for d in r.diagnoses if d.kind is Found.KNOWN]
            if not known:
                continue
            lead, told = r.hint(False), r.hint(True)
            assert m.hint not in lead and KNOWN not in lead and m.hint in told
            assert known[0].function and known[0].function in lead, lead
            assert not leaked_numbers(lead, reference_values(EXEMPLAR, student, r.name)), lead
            if known[0].params.get("lead"):
                calls = [c for test, c in student.history if test == r.name]
                assert diagnosis_quality.claim_holds(Diagnosis.from_dict(known[0].params["lead"]), calls,
                                                     reference, *diagnosis_quality.tolerance_of(EXEMPLAR, r.name))
            leads += 1
    assert leads


def _report() -> GradeReport:
    d = Diagnosis(Found.KNOWN, "overlap_entropy", {"hints": ["use 0 log 0 = 0 in h(R)"],
                                                   "functions": ["overlap_entropy"], "symptom": "nonfinite",
                                                   "wrong": 2, "calls": 5})
    t = TestResult("test_entropy", 0.0, 2.0, False, "overlap_entropy: differs from the expected value",
                   function="overlap_entropy", fault=Fault("overlap_entropy", Evidence.ANSWER, diagnoses=(d,)))
    return GradeReport(EXEMPLAR, "nb.ipynb", score=0.0, max_score=2.0, tests=[t])


@pytest.mark.parametrize("mode, resubmissions, told", [
    ("lead", 5, False), ("tell-after-publication", 0, True),
    ("tell-on-resubmission", 1, False), ("tell-on-resubmission", 2, True)])
def test_gradescope_leads_or_tells_as_the_course_chooses(monkeypatch, mode, resubmissions, told):
    monkeypatch.setenv("PDL_HINTS", mode)
    out = json.dumps(results(_report(), resubmissions=resubmissions))
    assert ("use 0 log 0 = 0" in out) is told
    lead = "overlap_entropy is wrong on 2 of the 5 calls of this test: its answers there are nan or inf"
    assert (lead in out) is not told


def test_previous_submissions_are_read_from_gradescopes_metadata(tmp_path):
    assert plugin.previous_submissions(str(tmp_path)) == 0
    (tmp_path / "submission_metadata.json").write_text(json.dumps({"previous_submissions": [{}, {}]}))
    assert plugin.previous_submissions(str(tmp_path)) == 2


def test_feedback_pages_lead_until_published(monkeypatch):
    from autograder.cohort.pages import mistake_groups
    from autograder.cohort.record import Record
    rec = Record(EXEMPLAR, "nb.ipynb", score=0.0, max_score=2.0, tests=_report().tests, student="s1")
    monkeypatch.setenv("PDL_HINTS", "tell-after-publication")
    monkeypatch.delenv("PDL_PUBLISHED", raising=False)
    assert "0 log 0" not in " ".join(mistake_groups(rec)[0]["what"])
    monkeypatch.setenv("PDL_PUBLISHED", "1")
    assert "use 0 log 0 = 0" in " ".join(mistake_groups(rec)[0]["what"])


def test_a_generic_diagnosis_reads_the_same_led_or_told():
    d = Diagnosis(Found.FACTOR, "f", {"factor": "2"})
    assert sentence(d, tell=False) == sentence(d, tell=True)


# -- numbers a student can use (issue 35, item 4) ----------------------------------------------
def test_a_statistical_check_gives_its_tolerance_in_standard_errors():
    import numpy as np

    from autograder.run.testing import assert_close
    with pytest.raises(AssertionError, match=r"by 20 standard errors where 5 are allowed"):
        assert_close(np.float64(1.4), 1.0, rtol=0, atol=0.1, name="E[f f] at N = 3 (5 standard errors)")
    with pytest.raises(AssertionError, match=r"worst by 4x the tolerance"):
        assert_close(np.float64(1.4), 1.0, rtol=0, atol=0.1, name="E[f f] at N = 3")


def test_a_failing_statistical_test_says_grading_is_seeded():
    from autograder.run.testing import SEEDED
    code = ("_hm_reference_evs = enumerate_version_space\n\n"
            "def enumerate_version_space(N, alpha, seed):\n    return _hm_reference_evs(N, alpha, 0)\n")
    results_, _ = grade_code(EXEMPLAR, module_text(load(EXEMPLAR)) + "\n\n" + code)
    failed = [r for r in results_ if not r.passed]
    assert failed and all((SEEDED in r.message) == ("(statistical" in r.message) for r in failed)
    assert any(SEEDED in r.message for r in failed), [r.message for r in failed]


def test_the_terminal_report_names_the_isolation_only_where_it_is_not_the_default():
    from autograder.run.report_text import format_report
    report = _report()
    report.isolation = "namespace"
    assert "isolation" not in format_report(report)
    report.isolation = "process"
    assert "isolation: process" in format_report(report)
