"""A new course year: different release notebooks and hidden-test inputs; last year's
answers, replayed, fail; the reference and the alternative implementations pass both years."""

import importlib
import shutil
import subprocess
import sys

import pytest
from conftest import EXEMPLAR

import course_config
from autograder.course.generate import _cells, _notebook, module_text
from autograder.course.mutate import score_code, variant_cells
from autograder.course.source import load
from autograder.run.grading import run_hidden_tests
from autograder.run.paths import REPO
from autograder.run.protocol import roundtrip
from autograder.run.testing import LocalStudent, rng_for

THIS, NEXT = course_config.YEAR, course_config.YEAR + 1


class Recorder(dict):
    """Calls the reference and remembers every answer, per function."""

    def __init__(self, module):
        super().__init__()
        self.module, self.log = module, {}

    def get(self, name, default=None):
        fn = getattr(self.module, name, None)
        if not callable(fn):
            return default

        def call(*args, **kwargs):
            value = fn(*args, **kwargs)
            self.log.setdefault(name, []).append(roundtrip(value))
            return value
        return call


class Replayer(dict):
    """A submission that hard-codes last year's answers: it replays them in order."""

    def __init__(self, log):
        super().__init__()
        self.log = {k: list(v) for k, v in log.items()}

    def get(self, name, default=None):
        if name not in self.log:
            return default
        answers = self.log[name]
        return lambda *a, **k: answers.pop(0) if answers else answers


def score(results):
    return sum(r.points for r in results), sum(r.max_points for r in results)


def test_hidden_test_inputs_change_with_the_year(monkeypatch):
    first = rng_for("some test").normal(size=3)
    monkeypatch.setattr(course_config, "YEAR", NEXT)
    assert not (rng_for("some test").normal(size=3) == first).any()


def test_release_differs_between_years(monkeypatch):
    import nbformat

    src = load(EXEMPLAR)
    this = nbformat.writes(_notebook(_cells(src, solution=False), EXEMPLAR))
    monkeypatch.setattr(course_config, "YEAR", NEXT)
    assert nbformat.writes(_notebook(_cells(src, solution=False), EXEMPLAR)) != this


def test_last_years_answers_fail_this_year_while_correct_code_passes_both(monkeypatch):
    ref = importlib.import_module(f"solutions.{EXEMPLAR}")
    recorder = Recorder(ref)
    got, full = score(run_hidden_tests(EXEMPLAR, LocalStudent(recorder)))
    assert got == full > 0
    assert score(run_hidden_tests(EXEMPLAR, LocalStudent(Replayer(recorder.log))))[0] == full

    src = load(EXEMPLAR)
    alternatives = [code for _, code in variant_cells(src, "alternative")]
    assert alternatives
    monkeypatch.setattr(course_config, "YEAR", NEXT)
    replayed, _ = score(run_hidden_tests(EXEMPLAR, LocalStudent(Replayer(recorder.log))))
    assert replayed < full, "a submission replaying last year's answers passed this year's tests"
    assert score_code(EXEMPLAR, module_text(src)) == (full, full)
    for code in alternatives:
        assert score_code(EXEMPLAR, module_text(src) + "\n\n" + code) == (full, full)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_new_year_command_regenerates_a_valid_course(tmp_path):
    clone = tmp_path / "course"
    ignore = shutil.ignore_patterns(".venv", "dist", "results", ".git", "__pycache__", "release",
                                    "submitted", "autograded", "feedback", "gradebook.db")
    shutil.copytree(REPO, clone, ignore=ignore)
    run = lambda *args: subprocess.run([sys.executable, "-m", "autograder.cli", *args], cwd=clone,  # noqa: E731
                                       capture_output=True, text=True, timeout=1800,
                                       env={"PATH": f"{sys.prefix}/bin:/usr/bin:/bin", "PYTHONPATH": str(clone)})
    done = run("new-year", str(NEXT), "--no-execute", "--no-otter")
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"YEAR = {NEXT}" in (clone / "course_config.py").read_text()
    assert f"## {NEXT}" in (clone / "CHANGELOG.md").read_text()
    assert f"| `{EXEMPLAR}` | `{NEXT}." in (clone / "CHANGELOG.md").read_text()  # the new versions listed
    old = (REPO / "assignments" / EXEMPLAR / f"{EXEMPLAR}.ipynb").read_text()
    new = (clone / "assignments" / EXEMPLAR / f"{EXEMPLAR}.ipynb").read_text()
    assert new != old and f"course year {NEXT}" in new
    # without execution the solution notebook still gets this year's code (no outputs), and the
    # example submissions follow it; the command says what is left to execute
    solution = (clone / "solutions" / EXEMPLAR / f"{EXEMPLAR}.ipynb").read_text()
    assert f"course year {NEXT}" in solution and '"outputs": []' in solution
    correct = (clone / "examples" / "submissions" / EXEMPLAR / "correct.ipynb").read_text()
    assert correct != (REPO / "examples" / "submissions" / EXEMPLAR / "correct.ipynb").read_text()
    assert f"course year {NEXT}" in correct
    assert "pdl generate " in done.stdout and EXEMPLAR in done.stdout.split("pdl generate ")[-1]
    checked = run("validate", EXEMPLAR, "--no-otter", "--mutants", "0", "--no-gradescope")
    assert checked.returncode == 0, checked.stdout[-3000:]
    assert "has no outputs" in checked.stdout


def test_validate_names_a_solution_notebook_of_another_year_as_stale(monkeypatch):
    from autograder.course.validate import stale

    assert stale(EXEMPLAR) == []
    monkeypatch.setattr(course_config, "YEAR", NEXT)
    bad = stale(EXEMPLAR)
    assert any(b.startswith(f"solutions/{EXEMPLAR}/{EXEMPLAR}.ipynb") and "re-execute" in b for b in bad), bad


def test_assignment_version_changes_with_grading_code_not_with_docstrings_or_comments(tmp_path, monkeypatch):
    """A resumed cohort is regraded only when a grade can change: edits of docstrings, comments
    and layout keep the version; a tolerance, a points value or a parameter changes it."""
    import autograder.run.grading as grading

    for folder in ("grading_tests", "solutions"):
        shutil.copytree(REPO / folder / "ex2_1_cumulants", tmp_path / folder / "ex2_1_cumulants")
    monkeypatch.setattr(grading, "REPO", tmp_path)
    tests = tmp_path / "grading_tests" / "ex2_1_cumulants" / "test_ex2_1_cumulants.py"
    module = tmp_path / "solutions" / "ex2_1_cumulants" / "__init__.py"
    original = {p: p.read_text() for p in (tests, module)}
    base = grading.assignment_version("ex2_1_cumulants")
    assert base.startswith(f"{THIS}.")

    def version_after(path, old, new):
        text = original[path]
        assert old in text, old
        path.write_text(text.replace(old, new, 1))
        try:
            return grading.assignment_version("ex2_1_cumulants")
        finally:
            path.write_text(original[path])

    assert version_after(module, '"""Reference implementation',
                         '"""A reworded docstring.\n\nReference implementation') == base
    assert version_after(module, "PARAMS = {", "# a new comment\n\n\nPARAMS = {") == base
    assert version_after(tests, '"""Hidden tests of', '"""Reworded hidden tests of') == base
    assert version_after(tests, "def test_", "# a comment\ndef test_") == base
    assert version_after(tests, '"""A random single-', '"""Reworded: a random single-') == base
    assert version_after(module, "PARAMS = {'g3': ", "PARAMS = {'g3': 1 + ") != base
    assert version_after(tests, "rtol=", "rtol=2 * ") != base


def _with_year(nb, year, loads=None):
    import copy
    import re

    nb = copy.deepcopy(nb)
    for cell in nb["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        text = re.sub(r"course year \d{4}", f"course year {year}", text)
        if loads is not None:
            text = re.sub(r"'loads': \[[^\]]*\]", f"'loads': {loads}", text)
        cell["source"] = text
    return nb


def test_year_note_names_another_years_or_seeds_notebook(correct_nb, stub_nb):
    from autograder.run.grading import load_release, year_note

    release = load_release(EXEMPLAR)
    assert year_note(correct_nb, release) is None and year_note(stub_nb, release) is None
    note = year_note(_with_year(stub_nb, THIS - 1), release)
    assert note and f"course year {THIS - 1}" in note and f"against course year {THIS}" in note
    # same year on the header, other parameters (another seed's release, or edited)
    note = year_note(_with_year(stub_nb, THIS, loads=[0.5, 1.0, 1.5, 1.9]), release)
    assert note and "PARAMS are not this year's" in note


def test_last_years_notebook_is_graded_as_usual_with_a_note(correct_nb, write_nb):
    from autograder.run.grading import grade

    report = grade(write_nb("old", _with_year(correct_nb, THIS - 1)), EXEMPLAR)
    assert report.score > 0  # graded as usual: correct code passes whatever the header says
    assert any(f"course year {THIS - 1}" in e for e in report.errors), report.errors
    assert not any("course year" in e for e in grade(write_nb("now", correct_nb), EXEMPLAR).errors)
