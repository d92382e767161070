"""Error carried forward that cannot be forged, leaks nothing, and charges each mistake exactly once
(issue 32): the rule (``autograder.run.carry.decide``), re-runs on fresh copies, and hostile
notebooks through the sandbox."""

from __future__ import annotations

import re
import time

import pytest
from conftest import EXEMPLAR

from autograder.run import carry
from autograder.run.grading import grade
from autograder.run.notebook import code_cell, with_cells


# -- the rule, on made-up failures ------------------------------------------------------------------
def _failure(test, owner, culprit=None, points=1.0, reaches=None):
    return carry.Failure(test, owner, culprit or owner, points, run=None,
                         reaches=None if reaches is None else frozenset(reaches))


def _evaluator(passes: dict, log: list):
    """``passes[(test, frozenset(substitute))]`` -> (passed, used); anything else fails."""
    def evaluate(f, substitute):
        log.append((f.test, substitute))
        passed, used = passes.get((f.test, substitute), (False, ()))
        return carry.Outcome(passed, frozenset(used))
    return evaluate


def test_a_test_is_credited_from_a_function_that_lost_points_of_its_own():
    failures = [_failure("test_a", "a"), _failure("test_b", "b", reaches={"a", "b"})]
    log: list = []
    credited = carry.decide(failures, _evaluator({("test_b", frozenset({"a"})): (True, {"a"})}, log))
    assert credited == {"test_b": ["a"]}
    assert ("test_b", frozenset()) in log  # and it was checked to fail on a fresh copy with nothing replaced


def test_no_credit_from_a_function_that_lost_nothing_of_its_own():
    """b's test passes with a replaced, but a passed all of its own tests: the mistake (if any) would
    be charged zero times."""
    failures = [_failure("test_b", "b", reaches={"a", "b"})]
    log: list = []
    assert carry.decide(failures, _evaluator({("test_b", frozenset({"a"})): (True, {"a"})}, log)) == {}
    assert log == []  # nothing to replace: no copy made


def test_a_credit_whose_function_is_itself_credited_moves_to_the_root():
    """c calls b calls a; a is wrong. b's own test is credited from a, so b lost nothing of its own:
    c's test is credited from a, not from b."""
    failures = [_failure("test_a", "a"), _failure("test_b", "b", reaches={"a", "b"}),
                _failure("test_c", "c", reaches={"a", "b", "c"})]
    passes = {("test_b", frozenset({"a", "c"})): (True, {"a"}),
              ("test_c", frozenset({"a"})): (True, {"a"})}
    credited = carry.decide(failures, _evaluator(passes, []))
    assert credited == {"test_b": ["a"], "test_c": ["a"]}


def test_a_failure_that_passes_on_a_fresh_copy_unreplaced_is_not_credited():
    """The failure came from the state the direct tests left (b's own state bug): not a's doing."""
    failures = [_failure("test_a", "a"), _failure("test_b", "b", reaches={"a", "b"})]
    passes = {("test_b", frozenset({"a"})): (True, {"a"}), ("test_b", frozenset()): (True, ())}
    assert carry.decide(failures, _evaluator(passes, [])) == {}


def test_a_pass_that_did_not_call_the_replaced_function_is_not_credited():
    failures = [_failure("test_a", "a"), _failure("test_b", "b", reaches={"a", "b"})]
    passes = {("test_b", frozenset({"a"})): (True, ())}
    assert carry.decide(failures, _evaluator(passes, [])) == {}


def test_a_test_that_cannot_reach_the_wrong_function_is_not_re_run():
    failures = [_failure("test_a", "a", reaches={"a"}), _failure("test_b", "b", reaches={"b"})]
    log: list = []
    assert carry.decide(failures, _evaluator({}, log)) == {} and log == []


def test_a_copy_that_hangs_ends_the_re_runs():
    """Like a function that hung in a direct test, a copy that hangs is not tried again."""
    failures = [_failure("test_a", "a")] + [_failure(f"test_b{i}", "b", reaches={"a", "b"}) for i in range(5)]
    log: list = []

    def evaluate(f, substitute):
        log.append(f.test)
        return carry.Outcome(False, frozenset(), broke=True)
    assert carry.decide(failures, evaluate) == {} and len(log) == 1


def test_the_culprit_is_the_function_whose_answer_failed():
    trace = carry.Trace()
    first, second = {"R": [1.0, 2.0]}, (3.0, 4.0)
    trace.call("a"), trace.answer("a", first), trace.call("b"), trace.answer("b", second)
    assert trace.culprit(first["R"]) == "a" and trace.culprit(second) == "b" and trace.culprit(None) == "b"
    assert carry.culprit_of(None, trace, first, {"a", "b"}) == "a"


def test_the_reach_is_read_from_the_notebooks_code():
    cells = ["import numpy as np\ndef a(x):\n    return x\n", "def helper(x):\n    return a(x)\n",
             "%matplotlib inline\ndef b(x):\n    return helper(x) + 1\n", "def c(x):\n    return globals()['a'](x)\n"]
    graded = {"a", "b", "c"}
    assert carry.student_reach(cells, {"b"}, graded) == {"a", "b"}
    assert carry.student_reach(cells, {"a"}, graded) == {"a"}
    assert carry.student_reach(cells, {"c"}, graded) is None  # looks names up at run time: anything


def test_a_number_shown_is_found_only_to_the_digits_shown():
    from autograder.course.carry_quality import shown_values

    values = [0.7836531040612153, 12.5]
    assert shown_values("seen: 0.783653104061215 and 0.7837", values) == ["0.783653104061215"]
    assert shown_values("seen: 0.783653 and 12.5", values) == ["0.783653"]
    assert shown_values("seen: 0.783654", values) == []


# -- in-process: the exemplar's own mistakes --------------------------------------------------------
def _in_process(code: str, carry_on: bool = True):
    from autograder.course.carry_quality import _carry
    from autograder.course.generate import module_text
    from autograder.course.inprocess import RecordingStudent, namespace_of
    from autograder.course.source import load
    from autograder.run.grading import run_hidden_tests

    code = module_text(load(EXEMPLAR)) + "\n\n" + code
    with _carry(carry_on):
        return {r.name: r for r in run_hidden_tests(EXEMPLAR, RecordingStudent(namespace_of(EXEMPLAR, code), code,
                                                                                EXEMPLAR), diagnose=False)}


FLOATS_RAISE = ("_ge = generalization_error\n"
                "def generalization_error(R):\n"
                "    if isinstance(R, float):\n"
                "        raise TypeError('expected an array')\n"
                "    return _ge(R)\n")


def test_an_upstream_exception_inside_a_downstream_test_is_carried_forward():
    """generalization_error fails on floats (charged in its own float test); critical_load, which
    calls it with a float, raises inside its own test: credited from it."""
    results = _in_process(FLOATS_RAISE)
    assert results["test_scalar_overlap_gives_float"].points == 0
    critical = results["test_critical_load"]
    assert "raised TypeError" in critical.message and critical.carried_from == ["generalization_error"]
    assert critical.points == critical.max_points
    lost = sum(r.max_points - r.points for r in results.values())
    assert lost == 1  # the one float test of generalization_error: charged once


def test_the_exemplar_charges_each_mistake_once_and_cannot_be_forged():
    """``benchmarks/carry_quality.py`` on the exemplar (the CI run of the benchmark): no cell of the
    catalogue or mutant loses more than its function's points, or nothing where it should lose; the
    forging variants gain nothing and show no reference value of a re-run (and received some)."""
    import subprocess
    import sys

    from autograder.run.paths import REPO

    out = subprocess.run([sys.executable, "benchmarks/carry_quality.py", EXEMPLAR, "--mutants", "6", "--workers", "1",
                          "--verbose"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "over-charged 0, under-charged 0" in out.stdout and "forged points 0, reference values shown 0" in out.stdout
    for kind in ("wrong", "rewrite", "mutant", "forge:stateful", "forge:arguments", "forge:replay", "forge:recording"):
        assert f" {kind} " in out.stdout, kind
    assert re.search(r"ok  wrong .* [1-9]\d* carried", out.stdout)  # the rule is exercised


# -- through the sandbox -----------------------------------------------------------------------------
# A switches to wrong answers once B has failed; B is a guess; both keep what they saw in the
# notebook's memory, in /tmp and in the working folder, and show it in every error message.
HOSTILE = '''
import json, os
_ge, _aa = generalization_error, annealed_action
_STATE = {"b_failed": False, "seen": []}
_FILES = ["/tmp/pdl_seen.json", "pdl_seen.json"]

def _remember(values):
    _STATE["seen"] += [float(v) for v in np.ravel(np.asarray(values, dtype=float))[:50]]
    for path in _FILES:
        try:
            old = json.load(open(path)) if os.path.exists(path) else []
            json.dump(old + _STATE["seen"][-50:], open(path, "w"))
        except OSError:
            pass

def _everything_seen():
    seen = list(_STATE["seen"])
    for path in _FILES:
        try:
            seen += json.load(open(path))
        except (OSError, ValueError):
            pass
    return seen

def generalization_error(R):
    _remember(R)
    value = _ge(R)
    return value * 1.25 if _STATE["b_failed"] else value

def annealed_action(R, alpha):
    _STATE["b_failed"] = True
    seen = _everything_seen()
    if len(seen) > 400:
        print("seen:", " ".join(f"{x:.15g}" for x in seen[-200:]))
        raise RuntimeError("seen: " + " ".join(f"{x:.15g}" for x in seen[-200:]))
    return _aa(R, alpha) * 1.5 + 0.25
'''


def _grade(write_nb, correct_nb, name: str, code: str, carry_on: bool, monkeypatch):
    monkeypatch.setenv("PDL_CARRY_FORWARD", "1" if carry_on else "0")
    return grade(write_nb(name, with_cells(correct_nb, [code_cell(code)])), EXEMPLAR, call_timeout=10)


def test_a_hostile_notebook_gains_nothing_and_sees_nothing_through_the_sandbox(write_nb, correct_nb, monkeypatch):
    """Graded with and without carrying forward: the guess is never credited, and no number shows in
    the feedback that the notebook did not show without re-runs (the re-runs come after every direct
    test, in copies thrown away with their memory and files)."""
    on = _grade(write_nb, correct_nb, "hostile", HOSTILE, True, monkeypatch)
    off = _grade(write_nb, correct_nb, "hostile_off", HOSTILE, False, monkeypatch)
    on_b = sum(t.points for t in on.tests if t.function == "annealed_action")
    off_b = sum(t.points for t in off.tests if t.function == "annealed_action")
    assert on_b == off_b  # the guess is never credited
    assert on.score >= off.score  # other functions, right but fed a wrong generalization_error, may be

    def numbers(report):
        text = "\n".join([t.message + t.detail + t.carried_forward + t.diagnosis for t in report.tests] + report.errors)
        return set(re.findall(r"-?\d+\.\d{6,}(?:e[-+]?\d+)?", text)), text
    shown_on, text_on = numbers(on)
    shown_off, _ = numbers(off)
    assert "seen:" in text_on and shown_off  # the notebook does show what it saw
    assert shown_on == shown_off, sorted(shown_on - shown_off)[:5]


HANGS_IN_A_COPY = '''
_ge, _im = generalization_error, interior_minimum
_own = None
def generalization_error(R):
    return _ge(R) * 1.25
_own = generalization_error
def interior_minimum(alpha):
    if generalization_error is not _own:  # a re-run that carries an error forward: hang
        while True:
            pass
    return _im(alpha)
'''


def test_a_notebook_that_hangs_in_a_re_run_costs_one_call_limit(write_nb, correct_nb, monkeypatch):
    start = time.monotonic()
    off = _grade(write_nb, correct_nb, "hang_off", HANGS_IN_A_COPY, False, monkeypatch)
    alone = time.monotonic() - start
    start = time.monotonic()
    on = _grade(write_nb, correct_nb, "hang", HANGS_IN_A_COPY, True, monkeypatch)
    spent = time.monotonic() - start
    assert on.score >= off.score
    hung = [t for t in on.tests if t.function == "interior_minimum" and not t.passed]
    assert hung and not any(t.carried_forward for t in hung)
    # one copy hangs for one call limit (10 s), then no copy is made again; a template start and a few copies
    assert spent < alone + 10 + 30, (spent, alone)


@pytest.mark.parametrize("kind", ["not_implemented"])
def test_a_stub_upstream_is_charged_where_it_is_and_its_callers_follow_it(write_nb, correct_nb, monkeypatch, kind):
    """generalization_error left as the release's stub: its own tests lose their points, and the
    functions that call it (right otherwise) are credited, each test once."""
    stub = "def generalization_error(R):\n    raise NotImplementedError('generalization_error: replace this line')\n"
    report = _grade(write_nb, correct_nb, "stub_ge", stub, True, monkeypatch)
    ge = [t for t in report.tests if t.function == "generalization_error"]
    assert ge and all(t.points == 0 for t in ge)
    callers = [t for t in report.tests if t.function == "annealed_action" and not t.passed]
    assert callers and all(t.carried_from == ["generalization_error"] for t in callers)
    lost = {row.function: row.lost for row in report.functions}
    advertised = {row.function: row.max_points for row in report.functions}
    assert lost["generalization_error"] == advertised["generalization_error"]
    assert report.max_score - report.score == advertised["generalization_error"]


NORMS_FROM_OUTPUTS = '''
_outputs = dln_outputs
def dln_outputs(L, N, M, rng):
    return 1.25 * _outputs(L, N, M, rng)  # wrong: the variance is off by 25/16

def dln_output_norms(L, N, M, rng):  # right, built on dln_outputs, passing its generator on
    return np.sum(dln_outputs(L, N, M, np.random.default_rng(rng)) ** 2, axis=1)
'''


def test_a_generator_passed_to_a_replaced_function_draws_the_students_stream(tmp_path, monkeypatch):
    """dln_output_norms, right, builds on a wrong dln_outputs and hands it a numpy Generator: in the
    re-run the reference draws from that generator (its state goes to the grader and comes back
    moved on), so the norms follow the right law and their tests are credited."""
    import json

    from autograder.course.synth import variant_notebook

    monkeypatch.setenv("PDL_CARRY_FORWARD", "1")
    assignment = "ex3_6_depth_width"
    path = tmp_path / f"{assignment}.ipynb"
    path.write_text(json.dumps(with_cells(variant_notebook(assignment, "correct"), [code_cell(NORMS_FROM_OUTPUTS)])))
    report = grade(path, assignment, call_timeout=20)
    norms = [t for t in report.tests if t.function == "dln_output_norms" and not t.passed]
    assert norms and all(t.carried_from == ["dln_outputs"] for t in norms), [(t.name, t.message) for t in norms]
    lost = {row.function: row.lost for row in report.functions}
    assert lost.get("dln_output_norms", 0) == 0 and lost["dln_outputs"] > 0


MODULE_GENERATOR = '''
_draws = np.random.default_rng(2026)
def init_params(N, gamma, rng):  # wrong: one generator for the whole module, the seed ignored
    return {"a": _draws.standard_normal(N), "c": _draws.standard_normal(N)}
'''


def test_a_test_rebuilding_its_expected_value_from_an_upstream_state_bug_is_carried():
    """ex4_4's kernel_drift test rebuilds the expected drift from the student's own init_params:
    with a module-level generator that ignores the seed, the test's draw and the one kernel_drift
    makes inside differ, so a right kernel_drift fails. init_params loses its seed test; the
    kernel_drift test, re-run with init_params replaced in both places, passes and is credited."""
    from autograder.course.carry_quality import _carry
    from autograder.course.generate import module_text
    from autograder.course.inprocess import RecordingStudent, namespace_of
    from autograder.course.source import load
    from autograder.run.grading import run_hidden_tests

    assignment = "ex4_4_lazy_lab"
    keep = ("test_init_params_seeds", "test_kernel_drift")

    class Only:
        @staticmethod
        def pytest_collection_modifyitems(items):
            items[:] = [item for item in items if item.name in keep]

    code = module_text(load(assignment)) + "\n\n" + MODULE_GENERATOR
    with _carry(True):
        results = {r.name: r for r in run_hidden_tests(assignment, RecordingStudent(namespace_of(assignment, code),
                                                                                   code, assignment),
                                                       diagnose=False, plugins=[Only()])}
    assert results["test_init_params_seeds"].points == 0
    drift = results["test_kernel_drift"]
    assert not drift.passed and drift.carried_from == ["init_params"] and drift.points == drift.max_points
