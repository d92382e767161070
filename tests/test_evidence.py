"""Evidence for a diagnosis's cause, something to go on where there is none, and no hidden input or
reference value in what a student reads before publication (issue 43, items 3 and 4).

* non-finite-arithmetic advice (0 log 0, 0/0, an overflow) only for a nan or inf at a limit point
  (``generic._at_limit``); an infinity a branch returns at an ordinary input is told with the region
  it answers in, without that advice;
* a random-stream claim only where the stream is seen repeating in her answers
  (``generic.repeated_steps``), and it names the stream, not the step;
* a failing test without a diagnosis says where her answer is off (``Shown.lead``), with no value;
* before publication a test message shows none of the test's hidden inputs nor a reference value
  (``TestResult.message_before_publication``), and no page or visible Gradescope entry does.
"""

import numpy as np

from autograder.course.generate import module_text
from autograder.course.inprocess import grade_code
from autograder.course.source import load
from autograder.run.diagnosis import Found


def _grade(assignment, code):
    results, student = grade_code(assignment, module_text(load(assignment)) + "\n\n" + code)
    return results, student


def _diagnoses(results, test):
    return [d for r in results if r.name == test for d in r.diagnoses]


# -- rule 1: arithmetic advice only at a limit point ------------------------------------------------
BRANCH_INF = '''
_ref_annealed_action = annealed_action
def annealed_action(R, alpha):
    out = _ref_annealed_action(R, alpha)
    # a wrong branch: "too large a load" answered inf, at an ordinary input
    return np.where(np.asarray(alpha) + 0 * np.asarray(R) > 100, np.inf, out)
'''

LIMIT_NAN = '''
def overlap_entropy(R):
    R = np.asarray(R, dtype=float)
    p, q = (1 + R) / 2, (1 - R) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(p * np.log(p) + q * np.log(q))   # 0 log 0 = nan at R = -1 and R = 1
'''


def test_an_infinity_a_branch_returns_gets_no_arithmetic_advice():
    # the failing call is a table whose R and alpha arrays reach 0 and 1 (limit points of other
    # entries): the inf entries are at alpha = 1000, R ordinary, so no 0 log 0 advice
    results, _ = _grade("ex2_3_ising_perceptron", BRANCH_INF)
    found = _diagnoses(results, "test_annealed_action")
    assert found and found[0].kind is Found.NONFINITE and found[0].params.get("branch"), found
    text = next(r.diagnosis for r in results if r.name == "test_annealed_action")
    assert "0 log 0" not in text and "overflow" not in text, text
    assert "for the largest values of `alpha`" in text, text  # the region it answers in


def test_a_nan_at_a_limit_point_keeps_the_arithmetic_advice():
    results, _ = _grade("ex2_3_ising_perceptron", LIMIT_NAN)
    texts = [r.diagnosis for r in results if not r.passed]
    assert any("0 log 0" in t for t in texts), texts


# -- rule 2: a random-stream claim needs the stream seen repeating ---------------------------------
RESEEDED = '''
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    g = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    x[0] = g.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths) if x0 is None else x0
    for i in range(steps):
        g = np.random.default_rng(rng)          # re-created with the same seed: the same draws
        z = g.standard_normal(n_paths)
        x[i + 1] = x[i] - k * x[i] * dt + np.sqrt(D * dt) * z
    return x
'''

WRONG_DRIFT = '''
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    g = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    x[0] = g.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths) if x0 is None else x0
    for i in range(steps):
        z = g.standard_normal(n_paths)
        x[i + 1] = x[i] - 2 * k * x[i] * dt + np.sqrt(D * dt) * z   # the drift step wrong, fresh draws
    return x
'''


def test_a_generator_recreated_in_the_loop_is_named_by_its_stream():
    results, _ = _grade("ex6_1_ou_fdt", RESEEDED)
    found = _diagnoses(results, "test_simulate_ou_increments")
    assert [(d.kind, d.params.get("how")) for d in found] == [(Found.SAME_DRAWS, "steps")], found
    r = next(r for r in results if r.name == "test_simulate_ou_increments")
    assert "random draws repeat" in r.diagnosis and "generator re-created" in r.diagnosis
    # the test's own step advice is not what she reads once the stream is seen repeating
    assert "drift step" in r.message and "drift step" not in r.message_before_publication
    assert "drift step" not in r.told_message(published=True)


def test_no_stream_claim_where_the_draws_do_not_repeat():
    results, _ = _grade("ex6_1_ou_fdt", WRONG_DRIFT)
    assert any(not r.passed for r in results)
    assert not [d for r in results for d in r.diagnoses if d.kind is Found.SAME_DRAWS]
    r = next(r for r in results if r.name == "test_simulate_ou_increments")
    assert "drift step" in r.message_before_publication  # the step advice stays where it may be right


def test_repeated_steps_on_made_up_paths():
    from autograder.run.diagnose.generic import repeated_steps
    rng = np.random.default_rng(0)
    z = rng.standard_normal(50)
    same = np.empty((20, 50))
    fresh = np.empty((20, 50))
    same[0] = fresh[0] = z
    for i in range(19):
        same[i + 1] = 0.9 * same[i] + 0.1 * z
        fresh[i + 1] = 0.9 * fresh[i] + 0.1 * rng.standard_normal(50)
    assert repeated_steps(same, fresh)
    assert not repeated_steps(fresh, same)
    assert not repeated_steps(fresh, fresh + 1e-3 * rng.standard_normal(fresh.shape))
