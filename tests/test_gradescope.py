"""The Gradescope route, simulated: the autograder zip unpacked as Gradescope lays it out, its
environment built from its own requirements in a fresh venv (not the project's), and its
``run_autograder`` run on the exemplars' example submissions and on a cheat."""

import json

import pytest

from autograder.gradescope import results, simulate
from autograder.course.generate import build_otter_zip

EXEMPLARS = ["ex2_3_ising_perceptron", "exB_linear_to_kernel"]


@pytest.fixture(scope="module")
def venv():
    return simulate.venv_for(build_otter_zip(EXEMPLARS[0]))


@pytest.mark.xdist_group("gradescope")
@pytest.mark.parametrize("assignment", EXEMPLARS)
def test_gradescope_simulation_matches_pdl_grade(assignment, venv, tmp_path):
    lines = []
    zip_file = build_otter_zip(assignment)
    ok = simulate.check_simulation(assignment, zip_file, venv, tmp_path, log=lines.append)
    assert ok, "\n".join(lines)
    assert len(lines) == len(simulate.CASES)


@pytest.mark.xdist_group("gradescope")
def test_gradescope_simulation_where_namespaces_are_refused(venv, tmp_path):
    """Gradescope's containers usually refuse namespaces: the student's process then runs as the
    account setup.sh creates, with the grader readable by root only. The cheat still scores 0."""
    import os

    if os.geteuid() != 0:
        pytest.skip("account isolation needs root (as on Gradescope)")
    lines = []
    zip_file = build_otter_zip(EXEMPLARS[0])
    ok = simulate.check_simulation(EXEMPLARS[0], zip_file, venv, tmp_path, log=lines.append,
                                     cases=("correct", "partial", "cheat"), isolation="account")
    assert ok, "\n".join(lines)


def test_results_show_checks_now_and_hidden_tests_after_publication():
    report = {"score": 3.0, "max_score": 5.0, "public_notes": ["cell 4 ran past the time limit"],
              "errors": ["cell 4 ran past the time limit", "the notebook crashed too often; no more attempts"],
              "checks": [["s(1) = log 2", True, ""], ["eps decreases", False, "FAIL: eps(0)"]],
              "tests": [{"name": "test_a", "points": 3.0, "max_points": 3.0, "passed": True, "message": "a"},
                        {"name": "test_b", "points": 0.0, "max_points": 2.0, "passed": False,
                         "message": "b: worst by 3x", "diagnosis": "Your results match a known mistake: x"}],
              "manual": [{"question": "written_1", "points": 2.0}]}
    data = results.results(report)
    results.check_results_json(data)
    visible = [t for t in data["tests"] if t["visibility"] == "visible"]
    assert [t["status"] for t in visible if "status" in t] == ["passed", "failed"]
    assert "cell 4" in visible[-1]["output"]
    hidden = [t for t in data["tests"] if t["visibility"] == "after_published"]
    # notes that came after the first hidden input wait for publication, like the tests
    assert "crashed too often" not in json.dumps(visible)
    assert "crashed too often" in hidden[0]["output"] and "cell 4" not in hidden[0]["output"]
    assert [t["name"] for t in hidden[1:]] == ["test_a", "test_b"] and "known mistake" in hidden[2]["output"]
    assert data["score"] == 3.0 and "All test cases passed" not in json.dumps(data)


def test_zip_installs_only_what_grading_uses():
    import zipfile

    # lab7's reference imports torch and tqdm; ex4_4 uses torch only in solution-side cross-checks
    for assignment, extra in (("ex2_3_ising_perceptron", set()), ("ex4_4_lazy_lab", set()),
                              ("lab7_sparse_parity", {"torch", "tqdm"})):
        zf = zipfile.ZipFile(build_otter_zip(assignment))
        reqs = zf.read("requirements.txt").decode()
        pinned = {ln.split("==")[0] for ln in reqs.splitlines() if ln and not ln.startswith(("#", "--"))}
        assert all("==" in ln for ln in reqs.splitlines() if ln and not ln.startswith(("#", "--")))
        assert pinned - {"numpy", "scipy", "matplotlib", "pytest", "ipython", "otter-grader[grading]"} == extra
        assert ("whl/cpu" in reqs) == ("torch" in extra)
        setup = zf.read("setup.sh").decode()
        assert "playwright" not in setup and "build-essential" not in setup
        assert "setup_account.sh" in setup


def test_every_submitter_of_a_group_submission_gets_the_grade(tmp_path, correct_nb):
    from autograder.cohort.grade import grade_cohort

    export = tmp_path / "export"
    (export / "submission_7").mkdir(parents=True)
    (export / "submission_7" / "homework.ipynb").write_text(json.dumps(correct_nb))
    (export / "submission_metadata.yml").write_text(
        "submission_7:\n  :created_at: 2026-11-30 10:00:00.000000000 -08:00\n  :submitters:\n"
        "  - :name: Ada A\n    :sid: ada1\n    :email: ada@example.edu\n"
        "  - :name: Bo B\n    :sid: bo2\n    :email: bo@example.edu\n")
    summary = grade_cohort(export, "ex2_3_ising_perceptron", tmp_path / "out", workers=1, progress=False,
                           timeout=60, call_timeout=10)
    by = {r["student"]: r for r in summary["results"]}
    assert sorted(by) == ["ada1", "bo2"]
    assert by["ada1"]["score"] == by["bo2"]["score"] == by["ada1"]["max_score"] > 0
    assert by["bo2"]["email"] == "bo@example.edu" and summary["graded"] == 2
    assert sorted(p.name for p in (tmp_path / "out" / "records").glob("*.json")) == ["ada1.json", "bo2.json"]
