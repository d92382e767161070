"""The false-fail sweep (issue 25, ``pdl validate --seeds N``, ``autograder/course/seeds.py``): the
confidence bounds, the re-drawn random streams, the course seed switched in-process and the
report of a small sweep."""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest
from scipy import stats

import course_config
from autograder.course import seeds
from autograder.run.testing import rng_for

CHEAP = "ex2_1_cumulants"  # fast hidden tests, with an alternative cell


@pytest.mark.parametrize("failures, runs", [(0, 50), (1, 200), (3, 160), (7, 7), (40, 100)])
def test_clopper_pearson_bounds_are_exact_binomial_tails(failures, runs):
    """The upper bound p makes 'at most k failures' exactly 5 % likely, the lower bound 'at least
    k failures' exactly 5 %: the definition of the one-sided Clopper-Pearson interval."""
    lower, upper = seeds.clopper_pearson(failures, runs, 0.95)
    assert 0 <= lower <= failures / runs <= upper <= 1
    if failures < runs:
        assert stats.binom.cdf(failures, runs, upper) == pytest.approx(0.05, rel=1e-6)
    else:
        assert upper == 1.0
    if failures > 0:
        assert stats.binom.sf(failures - 1, runs, lower) == pytest.approx(0.05, rel=1e-6)
    else:
        assert lower == 0.0
    assert seeds.clopper_pearson(0, 100, 0.95)[1] == pytest.approx(1 - 0.05 ** (1 / 100))


def test_budget_verdict():
    """One failure in 200 runs is already significantly above 1e-4; none is within it."""
    assert seeds.clopper_pearson(1, 200)[0] > seeds.BUDGET
    assert seeds.clopper_pearson(0, 200)[0] <= seeds.BUDGET
    assert seeds.clopper_pearson(3, 160)[0] > seeds.BUDGET  # ex4_4's old statistical test


def test_salted_streams_are_other_draws_but_reproducible():
    salt, other = seeds._Salt(17), seeds._Salt(18)
    plain = np.random.default_rng(5).random(4)
    with salt.applied():
        a, b = np.random.default_rng(5).random(4), np.random.default_rng(5).random(4)
        g = np.random.default_rng(9)
        assert np.random.default_rng(g) is g, "a Generator passes through unchanged"
        np.random.seed(3)
        glob = np.random.random()
        random.seed(3)
        py = random.random()
    with other.applied():
        c = np.random.default_rng(5).random(4)
    assert np.array_equal(a, b), "the same seed gives the same draw within a run"
    assert not np.allclose(a, plain) and not np.allclose(a, c), "another run draws other numbers"
    np.random.seed(3)
    random.seed(3)
    assert glob != np.random.random() and py != random.random()
    assert np.array_equal(np.random.default_rng(5).random(4), plain), "numpy restored after the call"
    with pytest.raises(ValueError), salt.applied():
        np.random.default_rng(-1)  # refused as numpy refuses it
    salt.active = False
    with salt.applied():
        assert np.array_equal(np.random.default_rng(5).random(4), plain), "fixed_stream tests: no salt"


def test_salted_torch_seed():
    torch = pytest.importorskip("torch")
    torch.manual_seed(4)
    plain = torch.rand(3)
    with seeds._Salt(1).applied():
        torch.manual_seed(4)
        salted = torch.rand(3)
    torch.manual_seed(4)
    assert not torch.equal(plain, salted) and torch.equal(plain, torch.rand(3))


def test_course_seed_in_process_redraws_inputs_and_params_then_restores():
    name = f"solutions.{CHEAP}"
    __import__(name)
    before_mod, before_seed = sys.modules[name], course_config.SEED
    before_draw = rng_for("x").random()
    with seeds.course_seed(CHEAP, before_seed + 1) as code:
        assert course_config.SEED == before_seed + 1 and "PARAMS" in code
        assert sys.modules[name] is not before_mod
        assert rng_for("x").random() != before_draw
    assert course_config.SEED == before_seed and sys.modules[name] is before_mod
    assert rng_for("x").random() == before_draw


def test_small_sweep_reports_every_test(capsys):
    """CI's sweep: two course seeds of one cheap assignment, the reference and its alternatives.
    The full sweep before a term is `pdl validate --all --seeds 200 --mutants 0 --no-otter
    --no-gradescope` (README)."""
    report = seeds.sweep(CHEAP, 2)
    n_variants = len(report["variants"])
    assert report["variants"][0] == "reference" and n_variants >= 2
    assert report["seeds"] == 2 and report["budget"] == seeds.BUDGET and isinstance(report["ok"], bool)
    assert report["tests"], "every hidden test is reported"
    for name, t in report["tests"].items():
        assert name.startswith("test_") and t["runs"] == 2 * n_variants
        assert 0 <= t["lower"] <= t["rate"] <= t["upper"] <= 1 and t["ok"] == (t["lower"] <= seeds.BUDGET)
        assert len(t["failed"]) == t["failures"]
    lines = seeds.report_lines(report)
    assert lines[-1][0] == report["ok"] and "course seeds" in lines[-1][1]
    assert course_config.SEED == report["base_seed"], "the course seed is restored"


def test_a_test_that_fails_correct_code_fails_the_sweep(monkeypatch):
    """The sweep can fail: a test that fails one run of six (as ex4_4's drift exponent did in about
    1 % of course seeds) is reported with its rate and exceeds the budget."""
    from autograder.run.grading import TestResult

    calls = []

    def graded(assignment, student, diagnose=None, plugins=()):
        calls.append(student)
        flaky = len(calls) == 3
        return [TestResult("test_steady", 1.0, 1.0, True, ""),
                TestResult("test_flaky", 0.0 if flaky else 1.0, 1.0, not flaky, "off by chance" if flaky else "")]

    monkeypatch.setattr(seeds, "run_hidden_tests", graded)
    report = seeds.sweep(CHEAP, 3, log=lambda _: None)
    runs = 3 * len(report["variants"])
    assert report["tests"]["test_steady"] == {**report["tests"]["test_steady"], "runs": runs, "failures": 0, "ok": True}
    flaky = report["tests"]["test_flaky"]
    assert flaky["failures"] == 1 and flaky["runs"] == runs and not flaky["ok"] and not report["ok"]
    assert flaky["failed"][0]["message"] == "off by chance"
    bad = [text for ok, text in seeds.report_lines(report) if not ok]
    assert any(text.startswith("test_flaky: failed 1/") for text in bad)
