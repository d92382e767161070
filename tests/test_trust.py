"""Trust boundaries around the sandbox (issue 21): what a student sees before publication, hidden
inputs computed from reference results, and a grader bounded against student data."""

from __future__ import annotations

import re
import shutil
import sys

from conftest import EXEMPLAR

from autograder.course import refinputs
from autograder.run import grading, ledger
from autograder.run.grading import grade
from autograder.run.notebook import code_cell, with_cells
from autograder.run.paths import REPO

GRADED = ["generalization_error", "overlap_entropy", "annealed_action", "annealed_counts", "interior_minimum",
          "critical_load", "spinodal_load", "enumerate_version_space"]

# Every call of a graded function raises, saying how many calls the student's process has seen.
SPY = ("_CALLS = [0]\n"
       "def _spy(f):\n"
       "    def g(*a, **k):\n"
       "        _CALLS[0] += 1\n"
       "        raise RuntimeError(f'calls so far: {_CALLS[0]}')\n"
       "    return g\n"
       f"for _n in {GRADED!r}:\n"
       "    globals()[_n] = _spy(globals()[_n])\n")


def _counts(texts) -> list[int]:
    return [int(m) for t in texts for m in re.findall(r"calls so far: (\d+)", t)]


def test_visible_output_is_made_before_any_hidden_input(write_nb, correct_nb):
    """A function that reports what it has been sent cannot show a hidden input in a visible
    check or note: the public checks ran before the first hidden test (on the old order, checks
    after tests, the visible counts were larger than every hidden one)."""
    report = grade(write_nb("spy", with_cells(correct_nb, [code_cell(SPY)])), EXEMPLAR, public_checks=True)
    visible = _counts([c.message for c in report.checks] + report.public_notes)
    hidden = _counts([t.message for t in report.tests])
    assert visible and hidden, (report.checks, [t.message for t in report.tests][:3])
    assert max(visible) < min(hidden)


def test_public_checks_are_the_releases_not_the_submissions(write_nb, correct_nb):
    """A submission that replaces a check cell by one that always passes still sees the release's
    check fail on its wrong function."""
    wrong = code_cell("def generalization_error(R):\n    return 0.0 * R\n")
    liar = code_cell("@check\ndef check_generalization_error():\n    pass\n")
    liar["metadata"]["tags"] = ["check"]
    report = grade(write_nb("liar", with_cells(correct_nb, [wrong, liar])), EXEMPLAR, public_checks=True)
    about = [c for c in report.checks if "generalization" in c.description.lower() or "eps" in c.description.lower()]
    assert about and not any(c.passed for c in about), report.checks


def _marked_in_source() -> list[str]:
    """The exemplar's hidden tests that carry ``@pytest.mark.reference_input``, read statically."""
    import ast

    tree = ast.parse((REPO / "grading_tests" / EXEMPLAR / f"test_{EXEMPLAR}.py").read_text())
    return sorted(f.name for f in tree.body if isinstance(f, ast.FunctionDef)
                  and any("reference_input" in ast.unparse(d) for d in f.decorator_list))


def test_tests_with_inputs_from_reference_results_are_marked():
    unmarked, marked = refinputs.reference_dependent_tests(EXEMPLAR)
    assert len(_marked_in_source()) >= 2 and "test_interior_minimum" in _marked_in_source()
    assert unmarked == [] and sorted(marked) == _marked_in_source()


def test_an_unmarked_test_with_inputs_from_a_reference_result_is_found(tmp_path, monkeypatch):
    """The same hidden tests without their marks: every one is found, and nothing else is."""
    tests = tmp_path / "grading_tests"
    shutil.copytree(REPO / "grading_tests" / EXEMPLAR, tests / EXEMPLAR, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("__init__.py", "conftest.py"):
        if (REPO / "grading_tests" / name).exists():
            shutil.copy(REPO / "grading_tests" / name, tests / name)
    path = tests / EXEMPLAR / f"test_{EXEMPLAR}.py"
    expected = _marked_in_source()
    path.write_text("".join(ln for ln in path.read_text().splitlines(keepends=True)
                            if "mark.reference_input" not in ln))
    for module in [m for m in sys.modules if m.startswith("grading_tests")]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setattr(grading, "REPO", tmp_path)
    unmarked, marked = refinputs.reference_dependent_tests(EXEMPLAR)
    assert sorted(unmarked) == expected and marked == []


def test_perturbation_reaches_every_float_and_nothing_else():
    import numpy as np

    value = {"a": (1.0, 2, True), "b": [np.arange(3.0), np.arange(3)], "c": "x", "d": np.float64(4.0)}
    out = refinputs.perturbed(value, 2.0)
    assert out["a"] == (2.0, 2, True) and out["c"] == "x" and out["d"] == 8.0
    assert out["b"][0].tolist() == [0.0, 2.0, 4.0] and out["b"][1].tolist() == [0, 1, 2]


# -- the grader bounded against student data -------------------------------------------------
def test_a_child_over_its_memory_cap_fails_alone():
    from autograder.run.bounded import run_bounded

    def work(send):
        send({"step": 1})
        blocks = [bytearray(2**26) for _ in range(64)]  # 4 GB, far over the cap
        send({"never": len(blocks)})

    received, how = run_bounded(work, memory_mb=256, seconds=60)
    assert received[0] == {"step": 1} and received[1]["exception"] == "MemoryError" and how == "error"


def test_a_child_stuck_in_native_code_is_killed_at_the_wall_clock_cap():
    import time

    from autograder.run.bounded import run_bounded

    def work(send):
        import signal
        send({"step": 1})
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGINT})  # as native code would
        time.sleep(3600)

    start = time.monotonic()
    received, how = run_bounded(work, memory_mb=None, seconds=2)
    assert received == [{"step": 1}] and how == "timeout" and time.monotonic() - start < 30


def test_stopped_grading_keeps_finished_tests_and_zeroes_the_rest():
    received = [{"collected": [["test_a", 1.0, "a"], ["test_b", 2.0, "b"]]},
                {"test": {"name": "test_a", "points": 1.0, "max_points": 1.0, "passed": True, "message": "a"}}]
    report = grading._stopped_report("nb.ipynb", EXEMPLAR, received, "it took longer than 9 s", 9.0)
    assert [(t.name, t.points, t.max_points) for t in report.tests] == [("test_a", 1.0, 1.0), ("test_b", 0.0, 2.0)]
    assert report.score == 1.0 and report.max_score == 3.0 and "longer than 9 s" in report.errors[0]


def test_answers_are_checked_against_the_contract_before_conversion():
    import numpy as np
    import pytest

    from autograder.run.diagnose.compare import _leaves, close
    from autograder.run.testing import assert_close

    huge = np.zeros(2**24, dtype=np.int8)  # 16 MB on the wire, 128 MB as floats
    with pytest.raises(AssertionError, match="wrong shape"):
        assert_close(huge, np.zeros(3))
    with pytest.raises(AssertionError, match="expected numbers"):
        assert_close(np.array(["a", "b", "c"]), np.zeros(3))
    assert not close(huge, np.zeros(3), 1e-6, 1e-9)
    assert [why for _, a, why in _leaves(huge, np.zeros(3)) if a is None] == [
        f"an array of shape ({2**24},) where shape (3,) is expected"]


def test_inputs_carrying_a_students_answer_are_never_replayed():
    """The diagnosis replays recorded calls through the reference: a call whose inputs carry a
    value the student returned is not recorded."""
    import numpy as np

    value = {"w": np.ones(3), "b": [2.5, np.zeros(2)]}
    ids = ledger.identities(value)
    assert id(value["w"]) in ids and id(value["b"][1]) in ids and id(value["b"]) in ids
    assert ids[id(value["w"])] is value["w"]  # kept alive: no id of it is reused during the test
    assert not ledger.identities(7) and not ledger.identities("text")


def test_a_hostile_answer_costs_the_grader_no_more_memory_than_a_correct_one(write_nb, correct_nb):
    """Every graded function returns 16 MB of int8 (128 MB as floats) where the reference returns a
    few numbers: the answers are announced by their shape, refused against the reference's, and
    never cross the channel (benchmarks/hostile_answers.py measures the time too)."""
    names = ["generalization_error", "overlap_entropy", "annealed_action", "critical_load"]
    big = code_cell("import numpy as _np\ndef _big(*a, **k):\n    return _np.zeros(2**24, dtype=_np.int8)\n"
                    + "".join(f"{n} = _big\n" for n in names))
    hostile = grade(write_nb("big", with_cells(correct_nb, [big])), EXEMPLAR)
    correct = grade(write_nb("fine", correct_nb), EXEMPLAR)
    messages = {t.name: t.message for t in hostile.tests}
    assert "where shape (23,) is expected" in messages["test_generalization_error"]
    assert hostile.score < correct.score == correct.max_score
    assert 0 < hostile.grader_mb < 1.5 * correct.grader_mb


def test_skeletons_cost_one_element_whatever_the_shape_they_claim():
    import numpy as np

    from autograder.run import protocol

    encoded = protocol.encode({"w": np.zeros((3, 4)), "xs": list(range(100)), "t": (1.0, np.ones(2))})
    shape = protocol.decode_skeleton(protocol.loads(protocol.dumps(protocol.skeleton(encoded))))
    assert shape["w"].shape == (3, 4) and shape["w"].strides == (0, 0)
    assert shape["xs"].shape == (100,) and shape["t"][1].shape == (2,) and shape["t"][0] == 1.0
    claimed = protocol.decode_skeleton({"__skeleton__": {"shape": [2**39], "dtype": "float64"}})
    assert claimed.size == 2**39 and claimed.base.nbytes == 8


def test_the_contract_check_reads_a_tuple_of_arrays_of_different_shapes():
    """lab7's sample_batch returns (X, y, task_ids): a correct large answer passes the contract."""
    import numpy as np

    from autograder.run.diagnose.compare import _leaves

    expected = (np.zeros((20000, 5)), np.zeros(20000), np.zeros(20000, dtype=int))
    assert [why for _, a, why in _leaves(expected, expected) if a is None] == []
    wrong = (np.zeros((20000, 4)), np.zeros(20000), np.zeros(20000, dtype=int))
    assert [why for _, a, why in _leaves(wrong, expected) if a is None] == [
        "an array of shape (20000, 4) where shape (20000, 5) is expected"]
