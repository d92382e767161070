"""`pdl validate` on every assignment: fresh, no leaks, reference full marks, stub zero, otter parity."""

import pytest

from autograder.course.source import all_assignments
from autograder.course.validate import leaks, validate

ASSIGNMENTS = all_assignments()
# otter parity costs two `otter run`s (~10 s each): CI checks it on the first exemplar (otter's
# runner grades the second too, in tests/test_gradescope.py's simulation); `pdl validate` checks
# it everywhere. The mutation run prints a figure and asserts nothing: left to `pdl validate`. The
# error-carried-forward checks run on one pair of functions with few re-runs (in full: 4 minutes on a
# training lab; `pdl validate` and benchmarks/carry_quality.py run them in full). Byte-stable
# regeneration (an execution of each solution notebook) is tested in tests/test_generate.py.
OTTER_PARITY = {"ex2_3_ising_perceptron"}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_validate(assignment):
    lines = []
    ok = validate(assignment, otter=assignment in OTTER_PARITY, mutants=0, log=lines.append, quick_carry=True,
                  stable=False)
    assert ok, "\n".join(lines)


def test_leak_check_catches_a_reference_line(tmp_path, monkeypatch):
    """Plant a line of the reference into the release folder: the leak check must see it."""
    from conftest import EXEMPLAR

    from autograder.course import validate as v
    from autograder.course.source import _function_bodies, load

    src = load(EXEMPLAR)
    graded = next(c for c in src.cells if c.role == "graded")
    node, first, _ = next(_function_bodies(graded.source))
    body = [ln for ln in graded.source.splitlines()[first - 1:node.end_lineno]
            if len(ln.strip()) >= v.MIN_LEAK_LINE]
    fake_repo = tmp_path / "repo"
    (fake_repo / "assignments" / EXEMPLAR).mkdir(parents=True)
    (fake_repo / "assignments" / EXEMPLAR / "notes.py").write_text(body[0] + "\n")
    monkeypatch.setattr(v, "REPO", fake_repo)
    assert leaks(EXEMPLAR) == [body[0].strip()]


def test_leak_check_spares_what_the_author_made_public(tmp_path, monkeypatch):
    """A cross-check line the author also wrote in a public check is not a leak; a line of the
    reference in that check still is."""
    from autograder.course import validate as v
    from autograder.course.source import Cell, Source

    shared = "grid = np.linspace(-3.0, 3.0, 101)  # the same grid"
    ref_line = "return np.tanh(np.outer(grid, weights)).sum(axis=1)"
    check = f"@check\ndef check_f():\n    {shared}\n    {ref_line}\n"
    cells = [Cell("markdown", "text", "# demo: t", 0),
             Cell("code", "graded", f'def f(weights):\n    """doc"""\n    {ref_line}\n', 1),
             Cell("code", "check", check, 2),
             Cell("code", "solution", f"{shared}\nprint(grid.size, 'independent check of f')", 3)]
    monkeypatch.setattr(v, "load", lambda a: Source(a, "t", tmp_path / "demo.py", cells))
    fake_repo = tmp_path / "repo"
    (fake_repo / "assignments" / "demo").mkdir(parents=True)
    (fake_repo / "assignments" / "demo" / "demo.py").write_text(check)
    monkeypatch.setattr(v, "REPO", fake_repo)
    assert leaks("demo") == [ref_line]


def test_an_alternative_that_fails_a_public_check_is_found():
    """A correct alternative must pass the public checks too, or its student reads FAIL: the
    exemplar's own alternatives pass; one whose answer is off by a factor 2 fails a check."""
    from conftest import EXEMPLAR

    from autograder.course.mutate import variant_cells
    from autograder.course.release_checks import failing_checks
    from autograder.course.source import load

    alternatives = variant_cells(load(EXEMPLAR), "alternative")
    assert alternatives and all(failing_checks(EXEMPLAR, code) == [] for _, code in alternatives)
    halved = ("import numpy as _np\n\ndef generalization_error(R):\n"
              "    return _np.arccos(_np.asarray(R, dtype=float)) / (2 * _np.pi)\n")
    assert any(f.startswith("check_generalization_error") for f in failing_checks(EXEMPLAR, halved))
