"""A new course year: different release notebooks and hidden-test inputs; last year's
answers, replayed, fail; the reference and the alternative implementations pass both years.
What a new year changes, per assignment, is read from the source (``autograder/course/year_change.py``):
a correct notebook of last year passes this year's hidden tests wherever the graded functions take
the year's parameters as arguments (ex3_2's ``stochastic_kernel_variance`` reads the notebook's own);
``pdl new-year --dry-run`` prints it and writes nothing."""

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
    # what the year changed: a line per assignment, and the total
    assert f"  {EXEMPLAR}: year parameters loads" in done.stdout
    assert "a correct notebook of last year still passes the hidden tests of " in done.stdout
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
    import autograder.run.versions as versions

    for folder in ("grading_tests", "solutions"):
        shutil.copytree(REPO / folder / "ex2_1_cumulants", tmp_path / folder / "ex2_1_cumulants")
    monkeypatch.setattr(versions, "REPO", tmp_path)
    tests = tmp_path / "grading_tests" / "ex2_1_cumulants" / "test_ex2_1_cumulants.py"
    module = tmp_path / "solutions" / "ex2_1_cumulants" / "__init__.py"
    original = {p: p.read_text() for p in (tests, module)}
    base = versions.assignment_version("ex2_1_cumulants")
    assert base.startswith(f"{THIS}.")

    def version_after(path, old, new):
        text = original[path]
        assert old in text, old
        path.write_text(text.replace(old, new, 1))
        try:
            return versions.assignment_version("ex2_1_cumulants")
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


# -- what a new year changes (autograder/course/year_change.py; issue 44, item 2) ------------------------------
def _edited_source(monkeypatch, assignment, edits):
    """The analysis reads ``assignment``'s source with each (role, old, new) text replacement made."""
    import autograder.course.year_change as yc
    from autograder.course.source import load as real_load

    src = real_load(assignment)
    for role, old, new in edits:
        cells = [c for c in src.cells if c.role == role and old in c.source]
        assert cells, (role, old)
        cells[0].source = cells[0].source.replace(old, new, 1)
    monkeypatch.setattr(yc, "load", lambda a: src if a == assignment else real_load(a))
    return src


def test_what_a_new_year_changes_reads_the_parameters_and_written_questions_from_the_source(monkeypatch):
    from autograder.course.year_change import TESTS, WRITTEN, what_a_new_year_changes

    ref = importlib.import_module(f"solutions.{EXEMPLAR}")
    change = what_a_new_year_changes(EXEMPLAR)
    assert change.param_names == tuple(ref.PARAMS)  # the params cell's names, in its order
    loads = next(p for p in change.params if p.name == "loads")
    assert TESTS in loads.places and WRITTEN not in loads.places  # ref.PARAMS["loads"] in test_figure_loads
    assert [w.how for w in change.written] == ["follows", "follows"]  # after the figures drawn from them
    assert change.written_numbers_change == ()
    assert change.last_years_notebook_passes and change.year_bound == ()
    hidden_tests = (REPO / "grading_tests" / EXEMPLAR / f"test_{EXEMPLAR}.py").read_text()
    assert change.hidden.tests == hidden_tests.count("\ndef test_")
    assert change.hidden.on_params == 1 and change.hidden.fixed >= 2  # critical_load(), spinodal_load(): no input
    assert change.hidden.redrawn + change.hidden.fixed <= change.hidden.tests
    line = change.line()
    assert line.startswith(f"{EXEMPLAR}: year parameters loads, sizes")
    assert "a correct notebook of last year passes" in line

    # a written question that names a year parameter is reported as such (its numbers change)
    first = change.written[0].question
    _edited_source(monkeypatch, EXEMPLAR, [("text", "**(g), written.**",
                                            '**(g), written.** At this year\'s loads (`PARAMS["loads"]`):')])
    named = what_a_new_year_changes(EXEMPLAR)
    assert named.written[0] == type(named.written[0])(first, "names", ("loads",))
    assert WRITTEN in next(p for p in named.params if p.name == "loads").places
    assert named.written_numbers_change == (first,) and f"written numbers change: {first} (loads)" in named.line()

    # a source with no params cell: unchanged but for the hidden inputs
    no_params = what_a_new_year_changes("ex3_1_wick")
    assert no_params.params == () and no_params.written == () and no_params.last_years_notebook_passes
    assert "no year parameters: unchanged but for the hidden inputs" in no_params.line()


def test_a_graded_function_reading_the_notebooks_params_is_year_bound(monkeypatch):
    """A graded function whose answer reads the notebook's own PARAMS: last year's notebook answers
    for last year's parameters; a hidden test that reaches the reading can fail it."""
    from autograder.course.year_change import total_line, what_a_new_year_changes

    # ex3_2's stochastic_kernel_variance: x, x2 default to exercise_inputs(), from PARAMS
    nngp = what_a_new_year_changes("ex3_2_nngp")
    assert not nngp.last_years_notebook_passes
    (bound,) = [b for b in nngp.year_bound if b.tests]
    assert bound.function == "stochastic_kernel_variance" and bound.reads == ("exercise_inputs",)
    assert bound.gated_by == ("x", "x2") and "docstring" in bound.where
    # the test that passes x and x2 itself does not reach it; the three that leave them out do
    assert "test_stochastic_kernel_variance_other_inputs" not in bound.tests and len(bound.tests) == 3
    assert "can lose up to 5 points" in nngp.line()

    # reading PARAMS only where an argument is left out (a default): no hidden test leaves it out
    body = "    R = np.asarray(R, dtype=float)\n    alpha = np.asarray(alpha, dtype=float)"
    _edited_source(monkeypatch, EXEMPLAR, [
        ("graded", "def annealed_action(R, alpha):", "def annealed_action(R, alpha=None):"),
        ("graded", body, '    if alpha is None:\n        alpha = PARAMS["loads"][0]\n' + body)])
    gated = what_a_new_year_changes(EXEMPLAR)
    (b,) = gated.year_bound
    assert (b.function, b.gated_by, b.tests, b.params) == ("annealed_action", ("alpha",), (), ("loads",))
    assert gated.last_years_notebook_passes

    # ... and always: every hidden test that calls it
    _edited_source(monkeypatch, EXEMPLAR, [("graded", body, body + ' * PARAMS["loads"][0] / PARAMS["loads"][0]')])
    always = what_a_new_year_changes(EXEMPLAR)
    b = next(b for b in always.year_bound if b.function == "annealed_action")
    assert b.gated_by == () and "test_annealed_action" in b.tests and not always.last_years_notebook_passes
    assert "interior_minimum" in {b.function for b in always.year_bound}  # it calls annealed_action
    assert total_line([always, nngp]).startswith(
        "a correct notebook of last year still passes the hidden tests of 0 of 2 assignments")


def test_last_years_reference_scores_as_the_source_says():
    """Measured: last year's reference (last year's PARAMS) against this year's hidden tests."""
    from autograder.course.year_change import last_years_reference_score, what_a_new_year_changes

    got, full = last_years_reference_score(EXEMPLAR)
    assert got == full > 0 and what_a_new_year_changes(EXEMPLAR).last_years_notebook_passes
    got, full = last_years_reference_score("ex3_2_nngp")
    bound = next(b for b in what_a_new_year_changes("ex3_2_nngp").year_bound if b.tests)
    assert full - bound.points <= got < full  # lost in the tests the source says can reach PARAMS


def _tree(root):
    """Every file under ``root``: path -> (mtime, size, sha256)."""
    import hashlib
    import os

    out = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            st = os.stat(path)
            out[os.path.relpath(path, root)] = (st.st_mtime_ns, st.st_size,
                                                hashlib.sha256(open(path, "rb").read()).hexdigest())
    return out


def test_new_year_dry_run_writes_nothing_and_prints_a_line_per_assignment(tmp_path):
    from autograder.course.source import all_assignments

    clone = tmp_path / "course"
    ignore = shutil.ignore_patterns(".venv", "dist", "results", ".git", "__pycache__", "release", "benchmarks",
                                    "submitted", "autograded", "feedback", "gradebook.db", "*.ipynb", "*.zip")
    shutil.copytree(REPO, clone, ignore=ignore)
    config = clone / "course_config.py"
    text = config.read_text()
    assert "DEADLINES = {}" in text
    deadline = f'DEADLINES = {{"{EXEMPLAR}": "{THIS}-10-15 23:59:59 Europe/Berlin"}}'
    config.write_text(text.replace("DEADLINES = {}", deadline, 1))
    before = _tree(clone)
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "new-year", str(NEXT), "--dry-run"], cwd=clone,
                          capture_output=True, text=True, timeout=600,
                          env={"PATH": f"{sys.prefix}/bin:/usr/bin:/bin", "PYTHONPATH": str(clone),
                               "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert _tree(clone) == before, "pdl new-year --dry-run wrote something"
    lines = done.stdout.splitlines()
    assert "nothing was written" in lines[0]
    assert any(f"DEADLINES['{EXEMPLAR}']" in line and "makes it refuse" in line for line in lines)  # not refused
    ids = all_assignments()
    per = [line.strip() for line in lines if line.startswith("  ") and line.strip().split(":")[0] in ids]
    assert [line.split(":")[0] for line in per] == ids  # one line per assignment, in order
    assert "can lose up to" in next(line for line in per if line.startswith("ex3_2_nngp:"))
    assert "unchanged but for the hidden inputs" in next(line for line in per if line.startswith("ex3_1_wick:"))
    total = lines[-1]
    assert total.startswith(f"a correct notebook of last year still passes the hidden tests of {len(ids) - 1} of "
                            f"{len(ids)} assignments (not ex3_2_nngp)")
    assert "similarity.csv" in total and "year note" in total
