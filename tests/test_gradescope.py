"""The Gradescope route, simulated: the autograder zip unpacked as Gradescope lays it out, its
environment built from its own requirements in a fresh venv (not the project's), and its
``run_autograder`` run on the exemplars' example submissions and on a cheat."""

import json
import pickle

import pytest

from autograder.course.generate import build_otter_zip
from autograder.gradescope import results, simulate

EXEMPLARS = ["ex2_3_ising_perceptron", "exB_linear_to_kernel"]


@pytest.fixture(scope="module")
def venv():
    return simulate.venv_for(build_otter_zip(EXEMPLARS[0]))


@pytest.mark.xdist_group("gradescope")
@pytest.mark.parametrize("assignment", EXEMPLARS)
def test_gradescope_simulation_matches_pdl_grade(assignment, venv, tmp_path):
    """Every case on the first exemplar; the assignment's own cases on the second (as `pdl
    validate` does over several assignments: the engine's cases are the same code for every zip)."""
    lines = []
    zip_file = build_otter_zip(assignment)
    cases = simulate.CASES if assignment == EXEMPLARS[0] else \
        tuple(c for c in simulate.CASES if c not in simulate.ENGINE_CASES)
    ok = simulate.check_simulation(assignment, zip_file, venv, tmp_path, log=lines.append, cases=cases)
    assert ok, "\n".join(lines)
    assert len(lines) == len(cases) >= 3


class _Unpickled:
    """A pickle whose loading runs ``code`` (as otter's runner would load a student's .OTTER_LOG)."""

    def __init__(self, code: str):
        self.code = code

    def __reduce__(self):
        return exec, (self.code,)


def hostile_extras(marker_dir) -> dict[str, bytes]:
    """Files a student may upload beside the notebook, each leaving a marker file if it is ever
    unpickled, imported or run: otter's log (a pickle), modules otter's kernel or Python would
    import from the submission folder, a .pth and an otter config."""
    def leave(name):
        return f"open({str(marker_dir / name)!r}, 'w').write('ran')\n"
    extras = {name: leave(name).encode() for name in (
        "numpy.py", "sitecustomize.py", "usercustomize.py", "ipykernel_launcher.py", "otter.py", "nbformat.py",
        "pytest.py", "conftest.py", "matplotlib.py", "__init__.py")}
    extras[".OTTER_LOG"] = pickle.dumps(_Unpickled(leave("OTTER_LOG")))
    extras["results.pkl"] = pickle.dumps(_Unpickled(leave("results.pkl")))
    extras["evil.pth"] = f"import os; {leave('pth').strip()}\n".encode()
    extras["otter_config.json"] = json.dumps({"grade_from_log": True, "pdf": True}).encode()
    return extras


@pytest.mark.xdist_group("gradescope")
def test_gradescope_grades_the_notebook_and_nothing_else(venv, tmp_path):
    """An untouched release uploaded with a pickled otter log that would have given full marks,
    and modules named like what otter or Python imports: still 0, as pdl grade says, and none of
    the files was unpickled, imported or run; otter saw only the notebook pdl wrote."""
    from autograder.run.paths import REPO

    assignment = EXEMPLARS[0]
    markers = tmp_path / "markers"
    markers.mkdir()
    nb = tmp_path / "input" / f"{assignment}.ipynb"
    nb.parent.mkdir()
    nb.write_bytes((REPO / "examples" / "submissions" / assignment / "stub.ipynb").read_bytes())
    got = simulate.simulate(build_otter_zip(assignment), nb, venv, tmp_path / "gs", extra_files=hostile_extras(markers),
                            extra_env={"PDL_TIMEOUT_S": "60", "PDL_CALL_TIMEOUT_S": "10"})
    results.check_results_json(got)
    assert got["score"] == 0.0 and any(t.get("max_score") for t in got["tests"]), got
    assert list(markers.iterdir()) == []
    # what otter's runner added (tests/, __init__.py) beside the one notebook pdl wrote
    assert got["_submission"] == ["__init__.py", f"{assignment}.ipynb", "tests"]


def otter_folder(tmp_path, assignment: str):
    ag = tmp_path / "ag"
    (ag / "source").mkdir(parents=True)
    (ag / "submission").mkdir()
    (ag / "source" / "otter_config.json").write_text(json.dumps(
        {"plugins": [{"autograder.gradescope.plugin.PdlGrading": {"assignment": assignment}}]}))
    return ag


def test_the_submission_folder_is_reduced_to_the_notebook_pdl_read(tmp_path, correct_nb):
    """Before otter runs: extras deleted unread (a link's target kept), the notebook rewritten
    under the assignment's name with its outputs dropped."""
    from autograder.gradescope.plugin import prepare_submission
    from autograder.run.notebook import load_submission

    ag = otter_folder(tmp_path, EXEMPLARS[0])
    sub = ag / "submission"
    nb = json.loads(json.dumps(correct_nb))
    first = next(k for k, c in enumerate(nb["cells"]) if c["cell_type"] == "code")
    nb["cells"][first]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x" * 100_000}]
    (sub / "my homework.ipynb").write_text(json.dumps(nb))
    for name, data in hostile_extras(tmp_path).items():
        (sub / name).write_bytes(data)
    (sub / "data").mkdir()
    (sub / "data" / "x.py").write_text("1")
    outside = tmp_path / "keep.txt"
    outside.write_text("not the student's")
    (sub / "link").symlink_to(outside)
    (sub / "linkdir").symlink_to(tmp_path / "ag" / "source", target_is_directory=True)
    assert prepare_submission(str(ag)) is True
    assert [p.name for p in sub.iterdir()] == [f"{EXEMPLARS[0]}.ipynb"]
    written = (sub / f"{EXEMPLARS[0]}.ipynb").read_bytes()
    assert b"xxxxxxxx" not in written and json.loads(written)["cells"][first]["outputs"] == []
    assert written == load_submission(sub / f"{EXEMPLARS[0]}.ipynb")[0]
    assert outside.read_text() == "not the student's" and (ag / "source" / "otter_config.json").exists()
    assert not (ag / "results" / "results.json").exists()


def test_a_150_mb_notebook_is_reduced_to_its_code_and_text(tmp_path):
    """The plugin's read of the notebook is pdl's streamed one: a 150 MB attachment is skipped."""
    from test_big_notebooks import add_attachment, write_with_blob

    from autograder.gradescope.plugin import prepare_submission
    from autograder.run.paths import REPO

    ag = otter_folder(tmp_path, EXEMPLARS[0])
    correct = REPO / "examples" / "submissions" / EXEMPLARS[0] / "correct.ipynb"
    write_with_blob(ag / "submission" / "big.ipynb", json.loads(correct.read_text()), add_attachment, 150)
    assert prepare_submission(str(ag)) is True
    written = ag / "submission" / f"{EXEMPLARS[0]}.ipynb"
    assert [p.name for p in (ag / "submission").iterdir()] == [written.name]
    assert written.stat().st_size < correct.stat().st_size + 1000
    assert not any("attachments" in c for c in json.loads(written.read_text())["cells"])


@pytest.mark.parametrize("layout,note", [
    ({"a.ipynb": "{}", "b.ipynb": "{}"}, "exactly one notebook"),
    ({"notes.txt": "hi"}, "exactly one notebook"),
    ({"nb.ipynb": "@link"}, "is a link or a folder"),
    ({"nb.ipynb": "@dir"}, "is a link or a folder"),
])
def test_not_exactly_one_notebook_file_is_a_note_to_the_student(tmp_path, correct_nb, layout, note):
    from autograder.gradescope.plugin import prepare_submission

    ag = otter_folder(tmp_path, EXEMPLARS[0])
    target = tmp_path / "real.ipynb"
    target.write_text(json.dumps(correct_nb))
    for name, content in layout.items():
        path = ag / "submission" / name
        if content == "@link":
            path.symlink_to(target)
        elif content == "@dir":
            path.mkdir()
        else:
            path.write_text(content)
    assert prepare_submission(str(ag)) is False
    data = json.loads((ag / "results" / "results.json").read_text())
    results.check_results_json(data)
    assert data["score"] == 0 and note in data["tests"][0]["output"] and data["tests"][0]["visibility"] == "visible"
    assert list((ag / "submission").iterdir()) == [] and target.exists()


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
    assert [t["name"] for t in hidden[1:3]] == ["test_a", "test_b"] and "known mistake" in hidden[2]["output"]
    # then each function at fault once, as on the feedback pages (here a record that names none)
    assert [t["name"] for t in hidden[3:]] == ["What went wrong (each function at fault once)"]
    assert hidden[3]["output"].count("known mistake") == 1 and "(tests: test_b)" in hidden[3]["output"]
    assert data["score"] == 3.0 and "All test cases passed" not in json.dumps(data)


def test_results_name_the_assignment_version():
    """After a regrade (a new zip, "Regrade all submissions") each result says which version graded it."""
    report = {"score": 1.0, "max_score": 2.0, "version": "2026.0123456789", "checks": [], "tests": []}
    data = results.results(report)
    results.check_results_json(data)
    assert "Assignment version 2026.0123456789." in data["output"] and data["visibility"] == "after_published"
    assert "Assignment version" not in results.results({**report, "version": ""})["output"]


def test_zip_installs_only_what_grading_uses():
    import zipfile

    # lab7's reference imports torch and tqdm; ex4_4 uses torch only in solution-side cross-checks
    for assignment, extra in (("ex2_3_ising_perceptron", set()), ("ex4_4_lazy_lab", set()),
                              ("lab7_sparse_parity", {"torch", "tqdm"})):
        zf = zipfile.ZipFile(build_otter_zip(assignment))
        reqs = zf.read("requirements.txt").decode()
        pinned = {ln.split("==")[0] for ln in reqs.splitlines() if ln and not ln.startswith(("#", "--"))}
        assert all("==" in ln for ln in reqs.splitlines() if ln and not ln.startswith(("#", "--")))
        assert pinned - {"numpy", "scipy", "matplotlib", "pytest", "ipython", "ijson", "landlockpy",
                         "otter-grader[grading]"} == extra
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
    by = {r.student: r for r in summary.results}
    assert sorted(by) == ["ada1", "bo2"]
    assert by["ada1"].score == by["bo2"].score == by["ada1"].max_score > 0
    assert by["bo2"].email == "bo@example.edu" and summary.graded == 2
    assert sorted(p.name for p in (tmp_path / "out" / "records").glob("*.json")) == ["ada1.json", "bo2.json"]


def test_the_zips_limits_come_from_the_environment_where_set(monkeypatch):
    """PDL_TIMEOUT_S / PDL_CALL_TIMEOUT_S may be fractional; unset, the course's limits hold."""
    import course_config
    from autograder.gradescope.plugin import limits_from

    for name in ("PDL_TIMEOUT_S", "PDL_CALL_TIMEOUT_S", "PDL_MEMORY_MB"):
        monkeypatch.delenv(name, raising=False)
    assert limits_from() == {"timeout": course_config.TIMEOUT_S,
                                          "call_timeout": course_config.CALL_TIMEOUT_S,
                                          "memory_mb": course_config.MEMORY_MB}
    monkeypatch.setenv("PDL_CALL_TIMEOUT_S", "4.5")
    monkeypatch.setenv("PDL_MEMORY_MB", "2048")
    assert limits_from() == {"timeout": course_config.TIMEOUT_S, "call_timeout": 4.5,
                                          "memory_mb": 2048}
