"""One decision of fault (issue 43, items 1 and 2): for each failing test the grader decides once
which graded function is at fault and on what evidence (``record.Fault``, ``record.decide``), and
every view reads that decision: the feedback pages (HTML and Markdown), Gradescope's results,
``pdl grade``'s table, the points charged to functions. "What went wrong" tells each function at
fault once; the credits have a section of their own."""

from __future__ import annotations

import html
import json
import re
from dataclasses import FrozenInstanceError

import pytest
from conftest import EXEMPLAR

from autograder.run.carry import RULE
from autograder.run.diagnosis import Diagnosis, Found
from autograder.run.paths import REPO
from autograder.run.record import Clues, Evidence, Fault, GradeReport, Kind, TestResult, at_fault, decide

PARTIAL = REPO / "examples" / "submissions" / EXEMPLAR / "partial.ipynb"


# -- (a) the demo's partial notebook, through the real grading -----------------------------------
@pytest.fixture(scope="module")
def partial():
    """The demo cohort's ``partial`` graded as the cohort grades it, and its record as a cohort
    reads it back from its JSON."""
    from autograder.cohort.record import Record
    from autograder.run.grading import grade

    report = grade(PARTIAL, EXEMPLAR)
    data = json.loads(json.dumps(report.to_dict()))
    return report, data, Record.from_dict({**data, "student": "partial"})


def _section(text: str, start: str, end: str) -> str:
    """The part of ``text`` from ``start`` to the next ``end`` (the rest where none follows)."""
    assert start in text, start
    rest = text.split(start, 1)[1]
    return rest.split(end, 1)[0] if end in rest else rest


def _names(text: str, names) -> set[str]:
    """The ``names`` that ``text`` mentions as words (``test_annealed_counts`` does not mention
    ``annealed_counts``)."""
    return {n for n in names if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)}


def _block(table: str, name: str) -> str:
    """A test's lines in ``pdl grade``'s table: its own and those indented under it."""
    lines = table.splitlines()
    start = next(i for i, x in enumerate(lines) if re.match(rf"  \S+\s+{re.escape(name)}\s", x))
    rest = [x for x in lines[start + 1:]]
    end = next((i for i, x in enumerate(rest) if not x.startswith("        ")), len(rest))
    return "\n".join([lines[start], *rest[:end]])


def _failing(report) -> list[TestResult]:
    return [t for t in report.tests if not t.passed]


def test_the_demo_credits_what_its_page_does_not_blame(partial, monkeypatch):
    """``annealed_counts`` is right: its tests are credited to the wrong ``generalization_error``.
    No function named under "What went wrong" is one the page credits; the credited tests are
    listed under "Kept by error carried forward"; each function at fault is listed once."""
    from autograder.cohort.pages import feedback_html, feedback_markdown, mistake_groups

    report, _, rec = partial
    credited = [t for t in report.tests if t.credited]
    kept_owners = {t.function for t in credited}
    assert {"annealed_counts", "interior_minimum", "enumerate_version_space"} <= kept_owners, kept_owners
    faults = list(dict.fromkeys(t.fault.function for t in _failing(report) if not t.credited))
    assert "generalization_error" in faults and not kept_owners & set(faults)
    graded = {t.function for t in report.tests} | set(faults)

    for published in ("0", "1"):  # the lead before publication, the rule text after
        monkeypatch.setenv("PDL_PUBLISHED", published)
        groups = mistake_groups(rec)
        assert [g["function"] for g in groups] == faults  # each function at fault once, in order
        page = html.unescape(feedback_html(rec))
        wrong = _section(page, "<h2>What went wrong</h2>", "<h2>")
        assert re.findall(r"<b>(\w+)</b>", wrong) == faults
        assert not _names(wrong, kept_owners), _names(wrong, kept_owners)
        assert _names(wrong, graded) <= set(faults)
        kept = _section(page, "<h2>Kept by error carried forward</h2>", "<h2>")
        md = feedback_markdown(rec)
        md_wrong = _section(md, "What went wrong", "Kept by error carried forward")
        assert re.findall(r"^\d+\. \*\*(\w+)\*\*", md_wrong, flags=re.M) == faults
        assert not _names(md_wrong, kept_owners) and _names(md_wrong, graded) <= set(faults)
        md_kept = _section(md, "Kept by error carried forward", RULE)
        for t in credited:  # each credited test, with the function it is charged to first
            assert re.search(rf"{t.name} \(\d+ points? kept\): it follows from your {t.fault.function}\b", kept)
            assert re.search(rf"^- {t.name} \(\d+ points? kept\): it follows from your {t.fault.function}\b",
                             md_kept, flags=re.M)
        # each diagnosis's words once, under the one function at fault they are about
        for g in groups:
            assert len(g["what"]) == len(set(g["what"]))
            assert all(_names(w, graded) <= {g["function"]} for w in g["what"]), g


def test_every_view_names_the_function_at_fault(partial, monkeypatch):
    """For every failing test, ``fault.function`` (read back from the report's JSON too) is what
    the pages, Gradescope's results, ``pdl grade``'s table and the points by function show."""
    from autograder.cohort.pages import feedback_html, feedback_markdown, mistake_groups
    from autograder.gradescope.results import results
    from autograder.run.grading import function_subtotals
    from autograder.run.report_text import format_report

    monkeypatch.delenv("PDL_PUBLISHED", raising=False)
    report, data, rec = partial
    failing = _failing(report)
    assert failing and any(t.credited for t in failing) and any(not t.credited for t in failing)
    by_name = {t["name"]: t for t in data["tests"]}
    page = html.unescape(feedback_html(rec))
    md = feedback_markdown(rec)
    groups = {g["function"]: g for g in mistake_groups(rec)}
    gradescope = {t["name"]: t for t in results(data)["tests"]}
    table = format_report(report)
    kept_rows = gradescope["Kept by error carried forward"]["output"].splitlines()
    for t in failing:
        fault = t.fault
        assert fault is not None and fault.function
        written = by_name[t.name]
        assert Fault.from_dict(written["fault"]) == fault and TestResult.from_dict(written).fault == fault
        assert all(d.function == fault.function for d in fault.diagnoses)  # and no other function's
        row = _section(page, f"<td>{t.name}</td>", "</tr>")
        line = next(x for x in md.splitlines() if f"**{t.name}**" in x)
        ta = _block(table, t.name)
        assert f"at fault: {fault.function} (" in ta
        if fault.credited:
            assert fault.evidence is Evidence.CARRIED and fault.function in fault.carried_from
            assert t.function not in fault.carried_from and written["carried_from"] == list(fault.carried_from)
            assert written["charged_to"] == "" and "Charged to" not in row
            assert t.name not in groups.get(fault.function, {"tests": []})["tests"]
            assert any(r.startswith(f"{t.name} (") and f"follows from your {fault.function}" in r for r in kept_rows)
            assert f"your {fault.function}" in gradescope[t.name]["output"]
        else:
            assert written["charged_to"] == fault.function and t.name in groups[fault.function]["tests"]
            assert f"Charged to {fault.function}: see" in row
            assert f"(charged to {fault.function}: see" in line
            assert f"Charged to {fault.function}." in gradescope[t.name]["output"]
    # points lost by function: the same functions, the same points, as "What went wrong"
    lost = {row.function: row.lost for row in function_subtotals(report.tests) if row.lost}
    assert lost == {f: g["lost"] for f, g in groups.items()}
    assert {row.function: row.lost for row in report.functions if row.lost} == lost
    summary = gradescope["What went wrong (each function at fault once)"]["output"]
    assert re.findall(r"^(\w+): ", summary, flags=re.M) == list(groups)


# -- (b) a fault holds only diagnoses of its own function -----------------------------------------
def test_a_fault_refuses_a_diagnosis_of_another_function():
    mine, theirs = Diagnosis(Found.SIGN, "generalization_error"), Diagnosis(Found.SIGN, "annealed_counts")
    assert Fault("generalization_error", Evidence.ANSWER, diagnoses=(mine,)).diagnoses == (mine,)
    with pytest.raises(ValueError, match="annealed_counts"):
        Fault("generalization_error", Evidence.ANSWER, diagnoses=(mine, theirs))
    # a credited test: its own function's diagnosis cannot be in it, the root's can
    assert Fault("generalization_error", Evidence.CARRIED, ("generalization_error",), (mine,)).credited
    with pytest.raises(ValueError):
        Fault("generalization_error", Evidence.CARRIED, ("generalization_error",), (theirs,))
    with pytest.raises(ValueError):  # charged to a function it is not credited from
        Fault("annealed_counts", Evidence.CARRIED, ("generalization_error",))
    with pytest.raises(ValueError):  # credited from functions, but not credited
        Fault("annealed_counts", Evidence.ANSWER, ("generalization_error",))
    with pytest.raises(FrozenInstanceError):  # nor renamed once in a fault
        mine.function = "annealed_counts"  # type: ignore[misc]
    t = TestResult("test_annealed_counts", 0.0, 1.0, False, "m", function="annealed_counts",
                   fault=Fault("generalization_error", Evidence.ANSWER, diagnoses=(mine,)))
    with pytest.raises(AttributeError):  # the views of the fault are read-only
        t.diagnoses = [theirs]  # type: ignore[misc]
    with pytest.raises(ValueError):  # a test passed has no fault
        TestResult("t", 1.0, 1.0, True, "ok", fault=Fault("f", Evidence.OWNER))
    assert TestResult("t", 0.0, 1.0, False, "m", function="f").fault == Fault("f", Evidence.OWNER)


# -- (c) a record written before faults -----------------------------------------------------------
def test_a_record_written_before_faults_loads_into_the_right_fault():
    sign = {"kind": "sign", "function": "generalization_error", "params": {}}
    counts = {"kind": "known", "function": "annealed_counts", "params": {"hints": ["count both wedges"]}}
    note = ("credited: it fails only because of your count_consistent_students, generalization_error, which lost "
            "points in its own tests (error carried forward: with a correct ... this test passes)")
    old = [
        {"name": "a", "points": 0.0, "max_points": 1.0, "passed": False, "message": "m", "kind": "fail",
         "function": "generalization_error", "charged_to": "generalization_error", "carried_from": [],
         "diagnoses": [sign]},
        {"name": "b", "points": 1.0, "max_points": 1.0, "passed": False, "message": "m", "kind": "carried",
         "function": "annealed_counts", "charged_to": "", "carried_from": ["generalization_error"],
         "carried_forward": "credited: ...", "diagnoses": [counts, sign]},
        {"name": "c", "points": 0.0, "max_points": 2.0, "passed": False, "message": "m", "kind": "student error",
         "error": "not_implemented", "function": "enumerate_version_space",
         "charged_to": "count_consistent_students", "carried_from": [], "diagnoses": []},
        {"name": "d", "points": 0.0, "max_points": 1.0, "passed": False, "message": "m", "kind": "fail",
         "function": "annealed_counts", "charged_to": "generalization_error", "diagnoses": [counts]},
        # e: before kinds and carried_from; f: before charged_to
        {"name": "e", "points": 2.0, "max_points": 2.0, "passed": False, "message": "m",
         "function": "enumerate_version_space", "carried_forward": note},
        {"name": "f", "points": 0.0, "max_points": 1.0, "passed": False, "message": "m",
         "function": "critical_load", "diagnosis": "returned the spinodal"},
        {"name": "g", "points": 1.0, "max_points": 1.0, "passed": True, "message": "ok", "function": "f",
         "charged_to": "", "carried_from": [], "diagnoses": []}]
    tests = {t.name: t for t in GradeReport.from_dict({"tests": old}).tests}
    assert tests["a"].fault == Fault("generalization_error", Evidence.ANSWER, (), (Diagnosis.from_dict(sign),))
    # a credit: charged to the root it follows from; the diagnosis of its own function is not told
    assert tests["b"].fault == Fault("generalization_error", Evidence.CARRIED, ("generalization_error",),
                                     (Diagnosis.from_dict(sign),))
    assert tests["b"].kind is Kind.CARRIED and tests["b"].charged_to == "" and tests["b"].named_hints == []
    assert tests["c"].fault == Fault("count_consistent_students", Evidence.RAISED)
    assert tests["d"].fault == Fault("generalization_error", Evidence.ANSWER)  # annealed_counts's words dropped
    assert tests["e"].fault == Fault("count_consistent_students", Evidence.CARRIED,
                                     ("count_consistent_students", "generalization_error"))
    assert tests["f"].fault.function == "critical_load" and tests["f"].fault.evidence is Evidence.OWNER
    assert tests["f"].diagnosis == "returned the spinodal"
    assert tests["g"].fault is None
    # written again: the fault, and the keys older readers read, derived from it; read back the same
    for t in tests.values():
        data = json.loads(json.dumps(t.to_dict()))
        assert (data["charged_to"], data["carried_from"]) == (t.charged_to, t.carried_from)
        assert data["diagnoses"] == [d.to_dict() for d in t.diagnoses]
        assert TestResult.from_dict(data) == t
    assert [c.function for c in at_fault(tests.values())] == ["generalization_error", "count_consistent_students",
                                                              "critical_load"]


# -- (d) the precedence ---------------------------------------------------------------------------
def test_decide_weighs_the_evidence_in_its_order():
    everything = Clues(owner="o", raised="r", answered="a", called="c")
    assert decide(everything) == Fault("r", Evidence.RAISED)
    assert decide(Clues(owner="o", answered="a", called="c")) == Fault("a", Evidence.ANSWER)
    assert decide(Clues(owner="o", called="c")) == Fault("c", Evidence.CALLED)
    assert decide(Clues(owner="o")) == Fault("o", Evidence.OWNER)
    assert decide(Clues()) == Fault("", Evidence.OWNER)
    # a credit comes first: charged to the root the evidence names, else to the first root
    assert decide(everything, ["a", "r"]) == Fault("r", Evidence.CARRIED, ("a", "r"))
    assert decide(everything, ["x", "y"]) == Fault("x", Evidence.CARRIED, ("x", "y"))
    assert decide(Clues(owner="o", answered="y"), ["x", "y"]).function == "y"
    # the diagnoses kept: those of the function at fault (or naming none)
    of = {name: Diagnosis(Found.SIGN, name) for name in ("o", "r", "x")}
    nameless = Diagnosis(Found.TEXT, params={"text": "t"})
    assert decide(everything, (), [*of.values(), nameless]).diagnoses == (of["r"], nameless)
    assert decide(Clues(owner="o"), ["x"], of.values()).diagnoses == (of["x"],)
    assert decide(Clues(owner="o"), (), of.values()).diagnoses == (of["o"],)
