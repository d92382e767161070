"""The reference's answers to the hidden tests' own calls, computed once per cohort process
(autograder/run/refmemo.py): the same grade, feedback and record as computing them per submission."""

import json
import types

import numpy as np
import pytest
from conftest import EXEMPLAR

from autograder.course.synth import variant_notebook
from autograder.run import grading, refmemo


def _module(**functions):
    return types.SimpleNamespace(**functions)


def test_a_kept_answer_is_the_reference_s_and_a_copy():
    calls = []

    def f(x, scale=1.0):
        calls.append(1)
        return np.asarray(x, dtype=float) * scale

    memo = refmemo.Memo(_module(f=f))
    first = memo.f(np.arange(3), scale=2.0)
    memo.filling = False
    again = memo.f(np.arange(3), scale=2.0)
    assert np.array_equal(first, again) and len(calls) == 1 and memo.hits == 1
    again[0] = 99.0  # a test that changes its copy changes nothing kept
    assert memo.f(np.arange(3), scale=2.0)[0] == 0.0
    memo.f(np.arange(3), scale=2.5)  # other arguments (not kept after filling): the reference runs
    memo.f(np.arange(3), scale=2.5)
    assert len(calls) == 3
    assert memo.f(np.arange(3.0), scale=2.0).dtype == float and len(calls) == 4  # another dtype: another key


def test_a_call_with_a_generator_or_one_that_changes_its_inputs_always_runs():
    def draw(rng, n):
        return rng.standard_normal(n)

    def normalise(x):
        x /= np.linalg.norm(x)
        return x

    memo = refmemo.Memo(_module(draw=draw, normalise=normalise))
    a = memo.draw(np.random.default_rng(0), 3)
    b = memo.draw(np.random.default_rng(0), 3)
    rng = np.random.default_rng(0)
    assert np.array_equal(a, b) and not memo.answers
    assert not np.array_equal(memo.draw(rng, 3), memo.draw(rng, 3))  # the generator advances, as without memo
    x = np.array([3.0, 4.0])
    memo.normalise(x)
    assert np.allclose(x, [0.6, 0.8]) and "normalise" in memo.changes_inputs and not memo.answers
    memo.filling = False
    y = np.array([3.0, 4.0])
    memo.normalise(y)
    assert np.allclose(y, [0.6, 0.8])  # still changed in place: it ran


@pytest.mark.parametrize("kind", ["correct", "partial"])
def test_grading_with_the_memo_gives_the_same_report(kind, tmp_path, monkeypatch):
    """The exemplar (whose statistics test calls its reference some 400 times a submission):
    score, every test's message, diagnosis and credit carried forward, the same with and without."""
    path = tmp_path / f"{kind}.ipynb"
    path.write_text(json.dumps(variant_notebook(EXEMPLAR, kind)))

    def report():
        d = grading.grade(path, EXEMPLAR).to_dict()
        return {k: v for k, v in d.items() if k not in ("seconds", "grader_mb", "grader_cpu_s")}
    monkeypatch.setattr(refmemo, "_MEMOS", {})
    without = report()
    memo = refmemo.fill(EXEMPLAR, grading.run_hidden_tests)
    assert memo is not None and len(memo.answers) > 100 and not memo.filling
    with_memo = report()
    assert with_memo == without
    assert without["max_score"] > 0 and (without["score"] == without["max_score"]) == (kind == "correct")


def test_a_memo_is_dropped_once_the_reference_file_changed(tmp_path, monkeypatch):
    import importlib.util

    path = tmp_path / "reference_x.py"
    path.write_text("def f(x):\n    return 2 * x\n")
    spec = importlib.util.spec_from_file_location("reference_x", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(refmemo, "_MEMOS", {"x": refmemo.Memo(module)})
    assert len(refmemo.plugin("x")) == 1
    path.write_text("def f(x):\n    return 3 * x  # regenerated\n")
    assert refmemo.plugin("x") == [] and "x" not in refmemo._MEMOS


def test_a_copy_shares_nothing_a_test_can_change():
    kept = (np.arange(3.0), [np.ones(2), {"a": np.zeros(1)}], 1.5, np.float64(2.0), "s")
    got = refmemo._copied(kept)
    got[0][0] = 9.0
    got[1][0][0] = 9.0
    got[1][1]["a"][0] = 9.0
    got[1].append(0)
    assert kept[0][0] == 0.0 and kept[1][0][0] == 1.0 and kept[1][1]["a"][0] == 0.0 and len(kept[1]) == 2
    assert type(got) is tuple and type(got[1]) is list and got[2:] == kept[2:]
