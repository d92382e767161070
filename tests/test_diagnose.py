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
from conftest import EXEMPLAR

from autograder.course import diagnosis_quality
from autograder.course.generate import module_text
from autograder.course.inprocess import RecordingStudent, grade_code, reference_values
from autograder.course.source import all_assignments, load
from autograder.run import diagnose
from autograder.run.diagnose.catalogue import Call, Variant
from autograder.run.diagnose.leaks import leaked_numbers, numbers_of
from autograder.run.diagnosis import KNOWN, Diagnosis, Found, words
from autograder.run.mistakes import cell_hint, read_mistakes
from autograder.run.paths import REPO
from autograder.run.record import TestResult

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


def test_a_mistake_written_twice_gets_the_same_hint():
    """The exemplar, every hidden test run (no baseline). `pdl validate` checks the same on every
    assignment (tests/test_validate.py: wrong cells and rewrites named by their hint, no reference
    value shown)."""
    assignment = EXEMPLAR
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
    from autograder.course.inprocess import TimedNamespace
    from autograder.run.grading import run_hidden_tests

    ns = {"__name__": "variant"}
    exec(module_text(load(EXEMPLAR)) + "\n\n" + code, ns)
    student = RecordingStudent(TimedNamespace(ns))
    return run_hidden_tests(EXEMPLAR, student), student  # diagnose=None: the environment decides


# -- generic diagnoses, on a small made-up reference -----------------------------------------
_TERMS = ("def t(x, a):\n    return np.cos(x) + a * x ** 2 - np.exp(-x)\n\n"
          "def w(x, a):\n    return 2.0 * t(x, a) + 1.0\n\n"
          "def u(x, a):\n    return np.cos(a * x) + x\n\n"
          "def sv(x):\n    return float(np.var(x, ddof=1))\n\n"
          "def draws(n, rng):\n    g = np.random.default_rng(rng)\n    return g.normal(size=(n, 2))\n")


class _Cat:
    def __init__(self):
        import linecache
        ns = {"np": np}
        name = "<test_diagnose reference>"  # its source readable, for the mutants of a term
        linecache.cache[name] = (len(_TERMS), None, _TERMS.splitlines(True), name)
        exec(compile(_TERMS, name, "exec"), ns)
        exec("def f(x, scale=1.0):\n    return scale * np.sin(x) + 0.25\n\n"
             "def g(n):\n    return np.outer(np.arange(1.0, n + 1), np.arange(2.0, n + 4))\n\n"
             "def h(n, x):\n    return np.cos(x) * n + 1.0 / (1.0 + n * x ** 2)\n\n"
             "def k(x):\n    return {'mean': float(np.mean(x)), 'var': float(np.var(x))}\n\n"
             "def d(x, n):\n    return (1 - np.asarray(x) ** 2) ** ((n - 3) / 2)\n\n"
             "def s(n, x):\n    out, term = 0.0 * x, 1.0 + 0.0 * x\n    for j in range(n + 1):\n"
             "        out, term = out + term, term * x / (j + 1)\n    return out\n", ns)
        self.reference = Variant("reference", "", ns, set())


def _generic(name, answer, inputs, rtol=1e-9, atol=1e-12, wrong=(), reach=None):
    """The generic diagnosis of a student whose ``name`` answers ``answer(*args)`` on ``inputs``
    (``wrong``: the functions seen answering wrongly before)."""
    cat = _Cat()
    calls = [Call(name, args, kwargs, answer(*args, **kwargs)) for args, kwargs in inputs]
    found = diagnose.generic(cat, calls, lambda i: cat.reference.call(calls[i]), rtol, atol, wrong=wrong,
                             reach=reach)
    text = words(found)
    shown = [v for c in calls for v in numbers_of(cat.reference.call(c))]
    assert not leaked_numbers(text, shown), text
    for d in found:  # what it says holds on these inputs
        assert diagnosis_quality.claim_holds(d, calls, cat.reference), d
    return text


X = [((np.linspace(0.1, 3.0, 7),), {}), ((np.linspace(-2.0, -0.5, 5),), {"scale": 2.0}),
     ((np.array([0.5, 1.2]),), {"scale": -0.5})]


def ref_f(x, scale=1.0):
    return scale * np.sin(x) + 0.25


def ref_h(n, x):
    return np.cos(x) * n + 1.0 / (1.0 + n * x ** 2)


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


SIZES = [((n, np.linspace(0.1, 2.0, 4)), {}) for n in (3, 5, 8)]
ONE_SIZE = [((5, np.linspace(0.1, 2.0, 4)), {}), ((5, np.linspace(-1.0, 0.7, 3)), {}), ((5, np.array([2.5])), {})]


def test_a_factor_is_claimed_only_at_every_size():
    """A factor seen at one size only may depend on the size: no claim (it used to be "√π")."""
    assert "same factor √π" in _generic("h", lambda n, x: np.sqrt(np.pi) * ref_h(n, x), SIZES)
    one_size = _generic("h", lambda n, x: np.sqrt(np.pi * n / 5) * ref_h(n, x), ONE_SIZE)
    assert "factor" not in one_size
    assert "factor" not in _generic("h", lambda n, x: np.sqrt(np.pi * n / 5) * ref_h(n, x), SIZES)


def test_a_factor_or_shift_must_hold_tightly():
    """A loose tolerance no longer stretches a factor or a shift: 3.2 is not π, and a
    quadrature error that is nearly constant is not "the same additive constant"."""
    assert "π" not in _generic("f", lambda x, scale=1.0: 3.2 * ref_f(x, scale), X, rtol=1e-2)
    assert "same constant factor" in _generic("f", lambda x, scale=1.0: 3.2 * ref_f(x, scale), X, rtol=1e-2)
    step = _generic("f", lambda x, scale=1.0: ref_f(x, scale) + 0.05 + 1e-4 * x, X, rtol=1e-3, atol=1e-3)
    assert "additive constant" not in step
    assert "factor" not in _generic("f", lambda x, scale=1.0: 2 * ref_f(x, scale) * (1 + 1e-4 * x), X, rtol=1e-3)
    assert "additive constant" in _generic("f", lambda x, scale=1.0: ref_f(x, scale) + 0.05, X, rtol=1e-3)
    few = [((np.array([0.3]),), {}), ((np.array([0.9]),), {})]  # two inputs: too few for a claim
    assert _generic("f", lambda x: 2 * ref_f(x), few) == ""


def test_generic_ignored_argument_and_small_inputs():
    inputs = [((np.linspace(0.1, 2.0, 5),), {"scale": 3.0}), ((np.array([0.3, 0.7]), 2.5), {})]
    assert "argument `scale`" in _generic("f", lambda x, scale=1.0: ref_f(x), inputs)
    mixed = [((np.linspace(0.1, 2.0, 5),), {}), ((np.array([0.3, 0.7]),), {"scale": 2.5}),
             ((np.array([0.2, 0.9]),), {"scale": 1.0}), ((np.array([0.4]),), {"scale": -1.5})]
    text = _generic("f", lambda x, scale=1.0: ref_f(x, scale) + (scale != 1.0) * x ** 2, mixed)
    assert "correct only when `scale` has its default value" in text
    assert "default value" not in _generic(  # one value other than the default: not enough
        "f", lambda x, scale=1.0: ref_f(x, scale) + (scale != 1.0) * x ** 2, mixed[:3])
    grid = [((np.linspace(0.1, 9.0, 12),), {})]
    text = _generic("f", lambda x: np.where(np.abs(x) < 4, ref_f(x), ref_f(x) * (1 + 1e-3 * x)), grid)
    assert "right when `x` is small and wrong for every larger one" in text
    ok = [((np.array([0.1 * k]),), {}) for k in range(1, 7)]
    nan = [((np.array([50.0 + k]),), {}) for k in range(6)]
    assert "nan or inf for large `x`" in _generic("f", lambda x: ref_f(x) if x[0] < 10 else np.full(1, np.inf),
                                                  ok + nan)


def test_small_inputs_only_needs_a_clean_threshold_with_enough_on_both_sides():
    """Right on two small inputs and wrong on two large ones (a counting mistake that spares the
    base cases) is no threshold; nor is a split that is not clean. No "overflow" guess."""
    calls = [((n, np.array([0.5])), {}) for n in (1, 2, 6, 9)]
    counting = _generic("h", lambda n, x: ref_h(n, x) + (n > 2) * 0.1 * n ** 1.5, calls)
    assert counting == ""
    grid = [((np.linspace(0.1, 9.0, 12),), {})]
    unclean = _generic("f", lambda x: np.where((np.abs(x) < 4) | (np.abs(x) > 8), ref_f(x), ref_f(x) + x), grid)
    assert "small" not in unclean and "overflow" not in unclean


def test_a_wrong_part_or_a_wrong_special_input_is_named():
    """Facts about every input: which part of a dict is wrong; the one special input that is."""
    data = [((np.array([1.0, 2.0, 4.0]),), {}), ((np.array([0.5, -3.0]),), {}), ((np.arange(5.0),), {})]
    text = _generic("k", lambda x: {"mean": float(np.mean(x)), "var": float(np.var(x, ddof=1))}, data)
    assert "`k(...)['var']` is wrong, and the rest of what k returns is right" in text
    def moments(n):  # a fixed-length array answer: its entries are parts
        return np.array([n ** k / (k + 1.0) for k in range(5)])
    cat = _Cat()
    cat.reference.ns["moments"] = moments
    calls = [Call("moments", (n,), {}, moments(n) * [1, 1, 1.5, 2, 3]) for n in (3, 4, 6)]
    found = diagnose.generic(cat, calls, lambda i: cat.reference.call(calls[i]), 1e-9, 1e-12)
    assert found == [Diagnosis(Found.PARTS, "moments", {"parts": ["[2:]"]})]
    assert "`moments(...)[2:]` is wrong, and the rest of what moments returns is right" in words(found)
    assert diagnosis_quality.claim_holds(found[0], calls, cat.reference)
    assert not diagnosis_quality.claim_holds(Diagnosis(Found.PARTS, "moments", {"parts": ["[1:]"]}), calls,
                                             cat.reference)
    grid = [((np.linspace(-1.0, 1.0, 9),), {})]
    text = _generic("f", lambda x: np.where(x == 0, 0.0, ref_f(x)), grid)
    assert "f is wrong only where `x` = 0, and right at every other input" in text
    assert "wrong only" not in _generic("f", lambda x: np.where(x == 0.25, 0.0, ref_f(x)), grid)


def test_generic_transpose():
    def ref_g(n):
        return np.outer(np.arange(1.0, n + 1), np.arange(2.0, n + 4))
    assert "transpose" in _generic("g", lambda n: ref_g(n).T, [((3,), {}), ((4,), {})])
    # transposed at one size, wrong values at another: not "the transpose" (it used to be)
    mixed = _generic("g", lambda n: ref_g(n).T if n == 3 else 2 * ref_g(n), [((3,), {}), ((4,), {})])
    assert "transpose" not in mixed and "shape (5, 3) where shape (3, 5)" in mixed


def test_ignored_argument_and_nan_for_large_inputs_need_enough_inputs():
    """One wrong call is not "ignores `scale`"; two right and three nan inputs are no threshold."""
    one = [((np.linspace(0.1, 2.0, 5),), {"scale": 3.0}), ((np.array([0.3, 0.7]),), {})]
    assert "argument `scale`" not in _generic("f", lambda x, scale=1.0: ref_f(x), one)
    ok = [((np.array([0.1 * k]),), {}) for k in range(1, 3)]
    nan = [((np.array([50.0 + k]),), {}) for k in range(3)]
    text = _generic("f", lambda x: ref_f(x) if x[0] < 10 else np.full(1, np.inf), ok + nan)
    # inf from a branch at x = 50, no limit point: no 0 log 0 advice, no size claim either
    assert "returns nan or inf on some inputs" in text and "for large" not in text and "0 log 0" not in text


def ref_s(n, x):
    return sum(x ** j / np.prod(np.arange(1.0, j + 1)) for j in range(n + 1))


def test_a_factor_that_is_a_power_of_an_argument():
    """A sum where a mean is meant (factor n), a 1/√n too many: named as a power of the argument,
    only when it holds tightly on every call and no constant or other power fits as well."""
    assert "off by a factor `n` on every input of this test" in _generic("h", lambda n, x: n * ref_h(n, x), SIZES)
    assert "off by a factor 1/√`n` on every input" in _generic("h", lambda n, x: ref_h(n, x) / np.sqrt(n), SIZES)
    # near misses: all but one call, round-off-sized noise under a loose tolerance, a constant
    one_off = _generic("h", lambda n, x: n * ref_h(n, x) * (1.01 if n == 8 else 1.0), SIZES)
    assert "off by a factor" not in one_off
    noisy = _generic("h", lambda n, x: n * ref_h(n, x) * (1 + 1e-5 * np.cos(7 * x)), SIZES, rtol=1e-3)
    assert "off by a factor" not in noisy
    assert "off by a factor `n`" not in _generic("h", lambda n, x: 2 * ref_h(n, x), SIZES)
    # at one size a factor 2 is √n when n = 4: no telling which, no claim
    four = [((4, np.linspace(0.1, 2.0, 4)), {}), ((4, np.linspace(-1.0, 0.7, 3)), {})]
    assert _generic("h", lambda n, x: 2 * ref_h(n, x), four) == ""


def test_a_plain_factor_at_one_size():
    """At one size only a factor no size makes (2, √2, the sign, a change of log base) is
    named, and only where no power of an argument equals it; √π stays unnamed there."""
    assert "same factor 2 on every input" in _generic("h", lambda n, x: 2 * ref_h(n, x), ONE_SIZE)
    assert "up to the sign" in _generic("h", lambda n, x: -ref_h(n, x), ONE_SIZE)
    assert "factor" not in _generic("h", lambda n, x: np.sqrt(np.pi) * ref_h(n, x), ONE_SIZE)
    one_call = [((5, np.linspace(0.1, 2.0, 2)), {})]  # two values: too little evidence
    assert _generic("h", lambda n, x: 2 * ref_h(n, x), one_call) == ""


@pytest.mark.parametrize("answer,expected", [
    (lambda x, scale=1.0: 1 - ref_f(x, scale), "f returns 1 minus the expected value on every input"),
    (lambda x, scale=1.0: 1 / ref_f(x, scale), "f returns the reciprocal of the expected value on every input"),
    (lambda x, scale=1.0: ref_f(x, scale) ** 2, "f returns the square of the expected value on every input"),
])
def test_the_complement_reciprocal_or_square_of_the_expected_value(answer, expected):
    assert expected in _generic("f", answer, X)
    # near misses: true on all calls but one; a relation that holds only within a loose tolerance
    last = X[-1][0][0]
    assert "expected value on every input" not in _generic(
        "f", lambda x, scale=1.0: answer(x, scale) + 0.01 * (x is last), X)
    assert "expected value on every input" not in _generic(
        "f", lambda x, scale=1.0: answer(x, scale) * (1 + 1e-5 * np.cos(5 * x)), X, rtol=1e-3, atol=1e-3)


def test_the_square_root_of_the_expected_value():
    positive = [((np.linspace(0.1, 3.0, 7),), {}), ((np.linspace(0.2, 2.5, 5),), {"scale": 2.0})]
    assert "f returns the square root of the expected value" in _generic(
        "f", lambda x, scale=1.0: np.sqrt(ref_f(x, scale)), positive)


def test_an_integer_argument_off_by_one():
    """A loop that runs once too often: the reference at n + 1 on every call; not when one call
    is right, nor when the shift is only close."""
    calls = [((n, np.linspace(-1.0, 2.0, 4)), {}) for n in (2, 3, 5)]
    assert "s answers as if `n` were one more on every input of this test" in _generic(
        "s", lambda n, x: ref_s(n + 1, x), calls)
    assert "s answers as if `n` were one less" in _generic("s", lambda n, x: ref_s(n - 1, x), calls)
    assert "were one" not in _generic("s", lambda n, x: ref_s(n + (n != 5), x), calls)
    assert "were one" not in _generic("s", lambda n, x: ref_s(n + 1, x) * (1 + 1e-3), calls, rtol=1e-4, atol=1e-6)
    single = [((3, np.array([0.7])), {})]  # one wrong value: too little evidence
    assert "were one" not in _generic("s", lambda n, x: ref_s(n + 1, x), single)


def test_a_known_mistake_is_named_alone_where_a_generic_diagnosis_also_holds(monkeypatch):
    """A catalogued hint is never joined by, nor loses to, a generic diagnosis (the factor 2
    that also holds here): the generic diagnoses are tried only when no known mistake matches."""
    cat = _Cat()
    doubled = Variant("doubled", "Your f doubles the answer.", dict(cat.reference.ns), {"f"})
    exec("def f(x, scale=1.0):\n    return 2 * (scale * np.sin(x) + 0.25)\n", doubled.ns)
    cat.variants, cat.combined = (lambda: [doubled]), (lambda pair: None)
    monkeypatch.setattr(diagnose, "catalogue", lambda assignment: cat)
    log = [("f", args, kwargs, 2 * ref_f(*args, **kwargs)) for args, kwargs in X]
    (named,) = diagnose.diagnose("made_up", log)
    assert named.kind is Found.KNOWN and named.hints == ["Your f doubles the answer."] and named.function == "f"
    assert words([named]) == KNOWN + "Your f doubles the answer."
    # what a student reads first (issue 35): the place and the symptom, here the factor that holds
    assert named.params["lead"] == Diagnosis(Found.FACTOR, "f", {"factor": "2"}).to_dict()
    assert words([named], tell=False) == words([Diagnosis(Found.FACTOR, "f", {"factor": "2"})])
    cat.variants = lambda: []
    assert diagnose.diagnose("made_up", log) == [Diagnosis(Found.FACTOR, "f", {"factor": "2"})]
    assert "same factor 2 on every input" in words(diagnose.diagnose("made_up", log))


def test_a_false_generic_claim_is_caught_by_the_measure():
    """The leave-one-out measure checks a claim against the reference: a factor 3 is not 2."""
    cat = _Cat()
    calls = [Call("f", (x,), {}, 3 * ref_f(x)) for x in (np.linspace(0.1, 2.0, 5), np.array([0.4, 0.9]))]
    holds = diagnosis_quality.claim_holds
    assert holds(Diagnosis(Found.FACTOR, "f", {"factor": "3"}), calls, cat.reference)
    assert not holds(Diagnosis(Found.FACTOR, "f", {"factor": "2"}), calls, cat.reference)
    assert not holds(Diagnosis(Found.SHIFT, "f"), calls, cat.reference)
    claims = [Diagnosis(Found.RELATION, "f", {"relation": r}) for r in ("1 minus", "the reciprocal of")]
    assert not any(holds(c, calls, cat.reference) for c in claims)
    assert holds(claims[0], [Call("f", c.args, c.kwargs, 1 - ref_f(*c.args)) for c in calls], cat.reference)
    sized = [Call("h", (n, np.array([0.3, 1.1])), {}, n * ref_h(n, np.array([0.3, 1.1]))) for n in (3, 5)]
    assert holds(Diagnosis(Found.POWER, "h", {"powers": {"n": 1.0}}), sized, cat.reference)
    assert not holds(Diagnosis(Found.POWER, "h", {"powers": {"n": 0.5}}), sized, cat.reference)
    looped = [Call("s", (n, np.array([0.3, 1.1])), {}, ref_s(n + 1, np.array([0.3, 1.1]))) for n in (2, 4)]
    assert holds(Diagnosis(Found.OFF_BY_ONE, "s", {"p": "n", "d": 1}), looped, cat.reference)
    assert not holds(Diagnosis(Found.OFF_BY_ONE, "s", {"p": "n", "d": -1}), looped, cat.reference)


# -- a known mistake is named on the function it is about --------------------------------------
def _variant(code):
    ns = {"np": np}
    exec("def a(x):\n    return x + 1.0\n\ndef b(x):\n    return 2.0 * a(x)\n", ns)
    defined = set()
    if code:
        exec(code, ns)
        defined = {"a"}
    return Variant("v", "hint", ns, defined, code)


def test_a_helpers_mistake_is_not_named_on_a_caller_whose_helper_is_right():
    ref, v = _variant(""), _variant("def a(x):\n    return 2.0 * (x + 1.0)\n")
    xs = [np.array([0.5, 1.5]), np.array([2.0])]
    only_b = [Call("b", (x,), {}, 4.0 * (x + 1.0)) for x in xs]  # b wrong on its own: a never shown wrong

    def refs(calls):
        return lambda i: ref.call(calls[i])
    assert not diagnose._matches(v, only_b, refs(only_b), 1e-9, 1e-12)
    # evidence that the student's a has the mistake: on an earlier test, or in this one
    assert diagnose._matches(v, only_b, refs(only_b), 1e-9, 1e-12, evidenced=True)
    with_a = only_b + [Call("a", (x,), {}, 2.0 * (x + 1.0)) for x in xs]
    assert diagnose._matches(v, with_a, refs(with_a), 1e-9, 1e-12)
    right_a = only_b + [Call("a", (np.array([-1.0]),), {}, np.array([0.0]))]  # where a's mistake does not show
    assert not diagnose._matches(v, right_a, refs(right_a), 1e-9, 1e-12)


def test_a_mistake_that_assumes_a_helper_right_is_not_named_once_the_helper_was_seen_wrong():
    """b's own mistake matches b's answers, but the student's a answered wrongly on an earlier
    test: b's answers may come from a, so b's mistake is not named (it is without that evidence)."""
    ref = _variant("")
    ns = {"np": np}
    exec("def a(x):\n    return x + 1.0\n\ndef b(x):\n    return 4.0 * a(x)\n", ns)
    v = Variant("v", "hint", ns, {"b"})
    calls = [Call("b", (x,), {}, 4.0 * (x + 1.0)) for x in (np.array([0.5, 1.5]), np.array([2.0]))]
    assert diagnose._matches(v, calls, lambda i: ref.call(calls[i]), 1e-9, 1e-12, False, {"a"}, None)
    assert diagnose._matches(v, calls, lambda i: ref.call(calls[i]), 1e-9, 1e-12, False, {"c"}, ref)
    assert not diagnose._matches(v, calls, lambda i: ref.call(calls[i]), 1e-9, 1e-12, False, {"a"}, ref)
    # c, which the reference's b does not use, but the student's b does (her code), was seen wrong
    mine = {"b": frozenset({"b", "c"})}.get
    assert diagnose._matches(v, calls, lambda i: ref.call(calls[i]), 1e-9, 1e-12, False, {"c"}, ref)
    assert not diagnose._matches(v, calls, lambda i: ref.call(calls[i]), 1e-9, 1e-12, False, {"c"}, ref, mine)


def test_a_mistake_the_students_answers_contradicted_is_not_named_later(monkeypatch):
    """A catalogued mistake that agrees with the student's answers only on some inputs (here x < 0)
    is not named on a later test that has only those inputs, once an earlier test showed her answer
    differ from the mistake's at a call it affects: her function is not that mistake."""
    cat = _Cat()
    other = Variant("other", "Your f drops the sine for x > 0.", dict(cat.reference.ns), {"f"})
    exec("def f(x, scale=1.0):\n    return np.where(x > 0, 0.25, scale * np.sin(x) + 0.25) + "
         "np.where(x < 0, 1.0, 0.0)\n", other.ns)
    cat.variants, cat.combined = (lambda: [other]), (lambda pair: None)
    monkeypatch.setattr(diagnose, "catalogue", lambda assignment: cat)
    mine = lambda x, scale=1.0: ref_f(x, scale) + np.where(x < 0, 1.0, 0.0)  # noqa: E731 - wrong for x < 0 only
    both = [("f", (x,), {}, mine(x)) for x in (np.array([-1.0, 0.5]), np.array([-2.0, 1.5]))]
    negative = [("f", (x,), {}, mine(x)) for x in (np.array([-1.0, -0.5]), np.array([-2.0]))]
    assert diagnose.diagnose("made_up", negative)[0].kind is Found.KNOWN  # alone, it agrees
    found: list = []
    assert not any(d.kind is Found.KNOWN for d in diagnose.diagnose("made_up", both, found=found))
    assert not any(d.kind is Found.KNOWN for d in diagnose.diagnose("made_up", negative, found=found))


def test_a_caller_that_is_wrong_on_its_own_is_not_given_its_helpers_hint(monkeypatch):
    """ex2_3: annealed_action computing a one-wedge error inline, generalization_error right: the
    wedges mistake (a generalization_error cell) is not named on annealed_action. With the
    helper's own mistake, it is named on the caller's test only where that test is charged to
    the caller (not credited by error carried forward: issue 43)."""
    src = load(EXEMPLAR)
    wedges = next(m for m in read_mistakes(EXEMPLAR) if "wedges" in m.description)
    code = ("def annealed_action(R, alpha):\n"
            "    R = np.asarray(R, dtype=float)\n"
            "    alpha = np.asarray(alpha, dtype=float)\n"
            "    eps = np.arccos(np.clip(R, -1.0, 1.0)) / (2 * np.pi)\n"
            "    with np.errstate(divide='ignore'):\n"
            "        return LOG2 - overlap_entropy(R) - alpha * np.log1p(-eps)\n")
    results, _ = grade_code(EXEMPLAR, module_text(src) + "\n\n" + code)
    failing = [r for r in results if not r.passed]
    assert any(r.name == "test_annealed_action" for r in failing)
    assert not any(wedges.hint in r.diagnosis for r in results)
    results, _ = grade_code(EXEMPLAR, module_text(src) + "\n\n" + wedges.code)  # the helper's own mistake
    named = {r.name for r in results if wedges.hint in r.diagnosis}
    assert "test_generalization_error" in named
    caller = next(r for r in results if r.name == "test_annealed_action")
    assert caller.credited and caller.fault.function == "generalization_error" and not caller.diagnoses
    monkeypatch.setenv("PDL_CARRY_FORWARD", "0")  # charged to the caller: the mistake it shows is named there
    results, _ = grade_code(EXEMPLAR, module_text(src) + "\n\n" + wedges.code)
    named = {r.name for r in results if wedges.hint in r.diagnosis}
    assert {"test_generalization_error", "test_annealed_action"} <= named


# -- leave-one-out: no mistake's hint on another, no false claim -------------------------------
def test_leave_one_out_on_the_exemplar_is_never_misleading():
    judged = diagnosis_quality.measure(EXEMPLAR, modes=("loo",))
    assert len(judged) == sum(1 + len(m.rewrites) for m in read_mistakes(EXEMPLAR))
    assert all(j.caught for j in judged)
    wrong = [(j.cell, w) for j in judged for w in j.wrong]
    assert diagnosis_quality.figures(judged, "loo")["precision"] == 1.0, wrong


def test_leaving_out_a_mistake_removes_only_it():
    from autograder.run.diagnose.catalogue import catalogue, leaving_out

    full = catalogue(EXEMPLAR)
    hints = [v.hint for v in full.variants()]
    with leaving_out(EXEMPLAR, hints[0]) as loo:
        assert catalogue(EXEMPLAR) is loo and [v.hint for v in loo.variants()] == hints[1:]
    assert catalogue(EXEMPLAR) is full and [v.hint for v in full.variants()] == hints


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
    assert all("diagnoses" in t for t in tests)
    for m in chosen:
        assert m.hint in printed, printed
        assert any(m.hint in TestResult.from_dict(t).named_hints for t in tests if not t["passed"])
    assert not any(t["diagnoses"] for t in tests if t["passed"])
    assert "hint: Your results match a known mistake" in printed
    # a caller of both: its tests are credited (error carried forward), charged to a helper, and
    # tell nothing of the caller (issue 43; with PDL_CARRY_FORWARD=0 they name both mistakes together)
    assert "hint: Your results match known mistakes made together" not in printed
    caller = next(t for t in tests if t["name"] == "test_annealed_action")
    assert caller["kind"] == "carried" and not caller["diagnoses"]
    assert caller["fault"]["function"] in {"generalization_error", "overlap_entropy"}
    named = {h for t in tests for h in TestResult.from_dict(t).named_hints}
    assert named == {m.hint for m in chosen}


def test_two_mistakes_that_answer_alike_are_not_both_named(monkeypatch):
    """Two catalogued mistakes that give the same answers on a test: naming both would send the
    student after one she did not make. Neither is named, unless an earlier test matched one alone."""
    import autograder.run.diagnose as dg

    class V:
        def __init__(self, hint):
            self.hint = hint

    class Cat:
        reference = type("R", (), {"call": lambda self, c: 1.0})()

        def variants(self):
            return [V("first mistake"), V("second mistake")]

    monkeypatch.setattr(dg, "catalogue", lambda assignment: Cat())
    monkeypatch.setattr(dg, "as_calls", lambda log: list(log))
    monkeypatch.setattr(dg, "_matches", lambda v, *a, **k: True)
    monkeypatch.setattr(dg, "generic", lambda *a, **k: [])
    monkeypatch.setattr(dg, "close", lambda *a, **k: True)
    call = type("C", (), {"name": "f", "value": 1.0})()
    assert dg.diagnose("x", [call]) == []
    found = [1]  # the second matched alone on an earlier test
    assert dg.diagnose("x", [call], found=found) == [Diagnosis(Found.KNOWN, params={"hints": ["second mistake"]})]


def test_a_list_is_close_exactly_where_every_element_is():
    """``close`` compares a list of numbers whole; its verdict must be the element-wise one (the
    definition), on lists with nan, inf, ints, bools, nesting, 1-element arrays and wrong shapes."""
    from autograder.run.diagnose.compare import close

    def elementwise(actual, expected, rtol, atol):
        if isinstance(expected, (tuple, list)):
            return isinstance(actual, (tuple, list, np.ndarray)) and len(actual) == len(expected) and all(
                elementwise(a, e, rtol, atol) for a, e in zip(actual, expected))
        return close(actual, expected, rtol, atol)  # a leaf: never the list path

    rng = np.random.default_rng(3)
    pool = [0.0, 1.0, -2.5, 1e-12, np.nan, np.inf, -np.inf, 3, True]
    tried = agreed_false = 0
    for _ in range(3000):
        shape = tuple(rng.integers(1, 4, size=rng.integers(1, 3)))
        e = rng.choice(pool, size=shape).astype(float)
        a = e + rng.choice([0.0, 1e-10, 1e-3], size=shape) * rng.integers(0, 2, size=shape)
        kind = rng.integers(0, 5)
        actual = (a.tolist() if kind == 0 else tuple(a.tolist()) if kind == 1 else a if kind == 2
                  else [np.array([x]) for x in a.reshape(-1)] if kind == 3 else a.reshape(-1).tolist())
        expected = e.tolist() if rng.integers(0, 2) else [int(x) if np.isfinite(x) and x == int(x) else x
                                                           for x in e.reshape(-1)]
        rtol, atol = [(1e-6, 1e-9), (0.0, 0.0), (1e-2, 0.0)][rng.integers(0, 3)]
        want = elementwise(actual, expected, rtol, atol)
        assert close(actual, expected, rtol, atol) == want, (actual, expected, rtol, atol)
        tried += 1
        agreed_false += not want
    assert 0.2 * tried < agreed_false < 0.9 * tried  # both verdicts were tried often


# -- issue 35: claims only where the evidence isolates them; new kinds -----------------------------
def ref_t(x, a):
    return np.cos(x) + a * x ** 2 - np.exp(-x)


T_CALLS = [((np.linspace(0.1, 2.0, 5), 0.5), {}), ((np.linspace(-1.0, 1.0, 4), 2.0), {}),
           ((np.array([0.3, 3.0]), -1.5), {})]


def test_a_missing_term_or_a_flipped_sign():
    flipped = _generic("t", lambda x, a: np.cos(x) + a * x ** 2 + np.exp(-x), T_CALLS)
    assert "one term of a sum (a term that involves `x`) has the wrong sign" in flipped
    missing = _generic("t", lambda x, a: np.cos(x) - np.exp(-x), T_CALLS)
    assert "(a term that involves `x` and `a`) is missing" in missing
    assert "one term" not in _generic("t", lambda x, a: np.cos(x) + a * x ** 2 - 0.9 * np.exp(-x), T_CALLS)


def test_a_caller_of_a_wrong_function_names_the_wrong_one():
    calls = [((np.linspace(0.1, 2.0, 5), 0.5), {}), ((np.linspace(0.2, 1.0, 4), 2.0), {})]
    text = _generic("w", lambda x, a: 2.0 * (ref_t(x, a) + x) + 1.0, calls, wrong={"t"})
    assert text.startswith("w uses t, whose answers are wrong: fix t first"), text
    assert "off by" not in text


def test_the_function_a_wrong_answer_comes_from_is_found_through_the_students_calls_too():
    """Her t calls her u (the reference's t does not), both answered wrongly: w, which uses t, is
    wrong through u, the one to fix first."""
    calls = [((np.linspace(0.1, 2.0, 5), 0.5), {}), ((np.linspace(0.2, 1.0, 4), 2.0), {})]
    wrong_w = lambda x, a: 2.0 * (ref_t(x, a) + x) + 1.0  # noqa: E731
    assert _generic("w", wrong_w, calls, wrong={"t", "u"}).startswith("w uses t, whose answers are wrong")
    mine = {"w": frozenset({"w", "t", "u"}), "t": frozenset({"t", "u"}), "u": frozenset({"u"})}
    text = _generic("w", wrong_w, calls, wrong={"t", "u"}, reach=mine.get)
    assert text.startswith("w uses u, whose answers are wrong: fix u first"), text


def test_an_argument_the_answer_does_not_change_with():
    calls = [((np.linspace(0.1, 2.0, 5), a), {}) for a in (0.5, 1.5, 2.5)]
    assert "gives the same answer when only `a` changes" in _generic("u", lambda x, a: np.cos(x) + x, calls)
    assert "only `a` changes" not in _generic("u", lambda x, a: np.cos(1.1 * a * x) + x, calls)
    # right at a = 0.5, the same answer elsewhere: one pair of wrong answers is no evidence (an
    # empty product answered 0 like the odd ones is a special case, not an argument ignored)
    assert "only `a` changes" not in _generic("u", lambda x, a: np.cos(0.5 * x) + x, calls)


def test_no_argument_called_unused_where_another_call_shows_the_answer_change_with_it():
    """(1 - x²)^((n-2)/2) for (1 - x²)^((n-3)/2): at n = 2 the answer is the same for every x, at
    any other n it changes with x: x is used, its power is wrong."""
    calls = [((np.linspace(-0.9, 0.9, 7), n), {}) for n in (2, 2.0, 5, 9)]
    answer = lambda x, n: (1 - np.asarray(x) ** 2) ** ((n - 2) / 2)  # noqa: E731
    assert "only `x` changes" not in _generic("d", answer, calls)
    assert "only `x` changes" in _generic("d", lambda x, n: 0.0 * np.asarray(x) + n, calls[1:3])
    assert "only `x` changes" not in _generic("d", answer, calls[:1])  # at n = 2 only: no telling


def test_a_sample_statistic_off_by_m_minus_one_over_m():
    calls = [((np.arange(n, dtype=float) ** 1.5,), {}) for n in (3, 5, 8, 13)]
    text = _generic("sv", lambda x: float(np.var(x)), calls)
    assert "off by a factor (M-1)/M on every input of this test, with M = the length of `x`" in text
    text = _generic("sv", lambda x: float(np.std(x)), calls)
    assert "(M-1)/M" not in text


def test_identical_draws_where_fresh_ones_are_expected():
    calls = [((n, seed), {}) for n, seed in ((4, 1), (6, 2))]
    text = _generic("draws", lambda n, rng: np.tile(np.random.default_rng(rng).normal(size=(1, 2)), (n, 1)), calls)
    assert "returns the same sample again and again" in text


def test_nan_advice_only_at_a_limit_point():
    grid = [((np.linspace(-1.0, 1.0, 9),), {}), ((np.linspace(0.3, 2.0, 6),), {"scale": 2.0})]
    at_zero = _generic("f", lambda x, scale=1.0: np.where(x == 0, np.nan, ref_f(x, scale)), grid)
    assert "look for 0 log 0" in at_zero
    branch = _generic("f", lambda x, scale=1.0: np.where(np.abs(x - 0.75) < 0.01, np.inf, ref_f(x, scale)),
                      grid + [((np.array([0.75, 1.5]),), {})])
    assert "check which case of your code" in branch and "0 log 0" not in branch


def test_no_size_claim_where_parity_or_one_value_explains_it():
    calls = [((n, np.linspace(0.1, 1.0, 3)), {}) for n in (1, 2, 3, 4, 5, 6, 7, 8)]
    odd = _generic("h", lambda n, x: ref_h(n, x) + (n % 2 == 0) * 0.1 * n, calls)
    assert "is right when" not in odd
    at_zero = [((np.array([0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0]),), {})]
    assert "is right when" not in _generic("f", lambda x: np.where(x == 0, ref_f(x), -ref_f(x) + 1.0), at_zero)


def test_works_for_floats_fails_for_arrays():
    from autograder.run.diagnose.generic import array_crash
    from autograder.run.diagnosis import sentence
    cat = _Cat()
    answered = [Call("f", (x,), {}, ref_f(x)) for x in (0.1, 0.5, 2.0)]
    raised = [Call("f", (np.linspace(0.0, 1.0, 4),), {}, None)]
    d = array_crash(cat, "f", answered, raised, 1e-9, 1e-12)
    assert d is not None and "works for single numbers but fails when `x` is an array" in sentence(d)
    assert diagnosis_quality.claim_holds(d, answered, cat.reference)
    assert array_crash(cat, "f", [Call("f", (0.1,), {}, 2.0)], raised, 1e-9, 1e-12) is None


def test_a_known_mistake_needs_evidence_where_a_value_is_finite():
    from autograder.run.diagnose import _shows
    assert not _shows(np.array([np.nan, 1.0]), np.array([np.inf, 1.0]), 1e-9, 1e-12)
    assert _shows(np.array([np.nan, 1.0]), np.array([0.5, 1.0]), 1e-9, 1e-12)
    assert _shows(np.array([np.inf, 1.0]), np.array([np.nan, 1.0]), 1e-9, 1e-12)  # a value for an undefined case
    assert _shows(np.array([-1.9, 1.0]), np.array([np.inf, 1.0]), 1e-9, 1e-12)  # a finite value where inf is due


def test_a_crash_on_arrays_is_told_by_a_counterfactual_call():
    """A function that raises on an array of inputs and is right on single numbers: the grader
    calls it again on single entries of the array that raised (issue 35)."""
    src = load(EXEMPLAR)
    code = "import math\n\ndef generalization_error(R):\n    return math.acos(R) / math.pi\n"
    results, _ = grade_code(EXEMPLAR, module_text(src) + "\n\n" + code)
    told = [r.diagnosis for r in results if not r.passed and "generalization_error" in r.diagnosis]
    assert told and all("works for single numbers but fails when `R` is an array" in t for t in told), \
        [(r.name, r.message, r.diagnosis) for r in results if not r.passed]
    # a caller that raised inside it is not told so: the function that fails on arrays is the one named
    assert not any("works for single numbers" in r.diagnosis and "generalization_error" not in r.diagnosis
                   for r in results), [(r.name, r.diagnosis) for r in results if r.diagnosis]
    # wrong on single numbers too: no such claim
    code = "import math\n\ndef generalization_error(R):\n    return math.acos(R) / 3.0\n"
    results, _ = grade_code(EXEMPLAR, module_text(src) + "\n\n" + code)
    assert not any("works for single numbers" in r.diagnosis for r in results)


def test_a_term_inside_a_power_is_claimed_only_where_its_arguments_vary():
    """N ** (1 - g) for N ** (g - 1): at g = 1/2 it equals N ** g, the reference with the 1 of
    its exponent dropped; that is no missing term, and one value of g cannot tell."""
    import linecache

    from autograder.run.diagnose.mutants import term_mutant
    src, filename = "def p(n, g):\n    return 3.0 * n ** (g - 1.0)\n", "<test_diagnose power>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)  # its source readable
    ns = {"np": np}
    exec(compile(src, filename, "exec"), ns)
    ref = Variant("reference", "", ns, set())
    wrong = [Call("p", (n, 0.5), {}, 3.0 * n ** 0.5) for n in (2.0, 5.0, 9.0)]
    assert term_mutant(ref, "p", wrong, [0, 1, 2], 1e-9, 1e-12) is None
    # other values of g only where n = 1, where every power of n is 1: still one value where it shows
    edges = wrong[:2] + [Call("p", (1.0, g), {}, 3.0) for g in (0.7, 0.9)]
    assert term_mutant(ref, "p", edges, [0, 1, 2, 3], 1e-9, 1e-12) is None
    dropped = [Call("p", (n, g), {}, 3.0 * n ** g) for n, g in ((2.0, 0.5), (5.0, 0.7), (9.0, 0.9))]
    assert term_mutant(ref, "p", dropped, [0, 1, 2], 1e-9, 1e-12) == ("missing", [])
