"""`pdl generate` is deterministic and keeps its promises about what goes where."""

import json
import re
import zipfile

import pytest
from conftest import EXEMPLAR

from autograder.course.generate import build_otter_zip, generate
from autograder.course.source import all_assignments, load
from autograder.run.paths import REPO


def test_generate_twice_changes_no_byte():
    generate(EXEMPLAR, execute_solution=False, otter=False)
    assert generate(EXEMPLAR, execute_solution=False, otter=False) == []


def test_otter_zip_is_byte_stable_and_keeps_the_grader_out_of_the_submission_folder():
    first = build_otter_zip(EXEMPLAR).read_bytes()
    path = build_otter_zip(EXEMPLAR)
    assert path.read_bytes() == first
    names = zipfile.ZipFile(path).namelist()
    assert f"pdl/solutions/{EXEMPLAR}/__init__.py" in names and "pdl/autograder/run/grading.py" in names
    # otter copies files/ and tests/ next to the student's notebook: nothing of the grader goes there
    assert not [n for n in names if n.startswith("files/") or (n.startswith("tests/") and n.endswith(".py"))]
    assert [n for n in names if n.endswith(".ipynb")] == [f"pdl/assignments/{EXEMPLAR}/{EXEMPLAR}.ipynb"]


def test_release_has_a_stub_for_every_graded_function():
    nb = json.loads((REPO / "assignments" / EXEMPLAR / f"{EXEMPLAR}.ipynb").read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    for name in load(EXEMPLAR).graded_functions():
        assert f"def {name}(" in code
        assert f'raise NotImplementedError("{name}:' in code


def test_solution_notebook_is_executed_with_figures():
    nb = json.loads((REPO / "solutions" / EXEMPLAR / f"{EXEMPLAR}.ipynb").read_text())
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)


def test_reference_module_exposes_catalogue_names():
    import importlib

    module = importlib.import_module(f"solutions.{EXEMPLAR}")
    for name in load(EXEMPLAR).graded_functions():
        assert callable(getattr(module, name))


def test_generate_with_execution_twice_changes_no_byte():
    """Re-executing a solution notebook is byte-stable: stream chunks merged, rounding noise and
    the kernel's pid normalised, PNG text chunks dropped (``generate.normalise_outputs``)."""
    small = "ex2_1_cumulants"  # no torch, a few seconds per execution
    generate(small, execute_solution=True, otter=False)
    assert generate(small, execute_solution=True, otter=False) == []


def test_normalised_outputs_hide_rounding_noise_and_merge_streams():
    import nbformat

    from autograder.course.generate import normalise_outputs

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(...)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="residual -3.7e-15, "),
                    nbformat.v4.new_output("stream", name="stdout", text="sum 0.30000000000000004\n"),
                    nbformat.v4.new_output("stream", name="stderr", text="/tmp/ipykernel_4242/1.py:3: Warning\n")]
    nb.cells.append(cell)
    outputs = normalise_outputs(nb).cells[0].outputs
    assert [o["text"] for o in outputs] == ["residual <1e-12, sum 0.3\n", "/tmp/ipykernel/1.py:3: Warning\n"]


def test_normalised_outputs_do_not_depend_on_how_stdout_and_stderr_interleave():
    """stdout and stderr are flushed independently: a warning lands before, between or after the
    printed lines depending on timing (seen in ex3_1), so each run of stream outputs becomes one
    stdout output, then one stderr output."""
    import nbformat

    from autograder.course.generate import normalise_outputs

    def streams(*chunks):
        nb = nbformat.v4.new_notebook()
        cell = nbformat.v4.new_code_cell("print(...)")
        cell.outputs = [nbformat.v4.new_output("stream", name=name, text=text) for name, text in chunks]
        cell.outputs.append(nbformat.v4.new_output("execute_result", data={"text/plain": "1"}, execution_count=1))
        cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text="after\n"))
        nb.cells.append(cell)
        return [(o["output_type"], o.get("name"), o.get("text")) for o in normalise_outputs(nb).cells[0].outputs]

    expected = [("stream", "stdout", "a\nb\n"), ("stream", "stderr", "warning\n"),
                ("execute_result", None, None), ("stream", "stdout", "after\n")]
    assert streams(("stdout", "a\n"), ("stderr", "warning\n"), ("stdout", "b\n")) == expected
    assert streams(("stdout", "a\nb\n"), ("stderr", "warning\n")) == expected
    assert streams(("stderr", "warning\n"), ("stdout", "a\n"), ("stdout", "b\n")) == expected


def test_release_shows_points_per_function_and_question_and_the_total():
    """Each graded function carries its hidden tests' points in a comment above it, each written
    question its points, and the header the total; they add up to what grading uses."""
    import re

    from autograder.course.generate import hidden_tests

    nb = json.loads((REPO / "assignments" / EXEMPLAR / f"{EXEMPLAR}.ipynb").read_text())
    text = "\n".join("".join(c["source"]) for c in nb["cells"])
    per_function = {name: float(k) for name, k in re.findall(r"^# (\w+): ([\d.]+) points? \(hidden tests\)\ndef \1\(",
                                                               text, flags=re.MULTILINE)}
    assert set(per_function) == set(load(EXEMPLAR).graded_functions())
    hidden = sum(p for _, p, _, _ in hidden_tests(EXEMPLAR))
    assert sum(per_function.values()) == hidden
    written = [float(k) for k in re.findall(r"\*Written question below: ([\d.]+) points?, graded by hand\.\*", text)]
    assert written == [q.points for q in load(EXEMPLAR).written_questions()]
    assert f"**Points:** {hidden:g} for your functions" in text
    assert f"= {hidden + sum(written):g}." in text


@pytest.mark.parametrize("assignment", all_assignments())
def test_points_per_function_add_up_to_the_hidden_tests(assignment):
    from autograder.course.generate import graded_points, hidden_tests

    per_function = graded_points(load(assignment))
    assert set(per_function) == set(load(assignment).graded_functions()), "a graded function without points"
    assert sum(per_function.values()) == sum(p for _, p, _, _ in hidden_tests(assignment))


def test_a_narrative_edit_keeps_the_solution_notebooks_outputs():
    """generate --no-execute after a markdown-only edit updates the text and keeps the figures;
    after a code edit it gives up (the outputs would belong to other code)."""
    from autograder.course.generate import _cells, _notebook, narrative_update

    path = REPO / "solutions" / EXEMPLAR / f"{EXEMPLAR}.ipynb"
    fresh = _notebook(_cells(load(EXEMPLAR), solution=True), EXEMPLAR)
    text = next(c for c in fresh.cells if c.cell_type == "markdown" and "answer" not in c.metadata.get("tags", []))
    text.source += "\n\nA new sentence of narrative."
    kept = json.loads(narrative_update(path, fresh))
    assert "A new sentence of narrative." in json.dumps(kept)
    assert any("image/png" in o.get("data", {}) for c in kept["cells"] for o in c.get("outputs", []))
    code = next(c for c in fresh.cells if c.cell_type == "code")
    code.source += "\nx = 1"
    assert narrative_update(path, fresh) is None


@pytest.mark.parametrize("assignment", all_assignments())
def test_no_source_prints_a_wall_clock_time(assignment):
    """A printed duration differs at every execution, so the executed solution notebook would
    never be byte-stable; speed belongs in benchmarks/."""
    import re

    text = (REPO / "source" / assignment / f"{assignment}.py").read_text()
    clocks = re.findall(r"^.*\b(?:perf_counter|monotonic|time\.time|datetime\.now)\(.*$", text, flags=re.MULTILINE)
    assert not clocks, clocks


# A printed number is round-off when it is this small: its digits differ from one machine's BLAS
# and libm to another's, so a solution notebook prints it as a bound ("< 1e-10"), never its digits.
_PRINTED_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_BOUND_BEFORE = re.compile(r"(?:<|<=|≤|(?<!-)>|>=|≥|\bto|\bwithin|\bbelow|\bunder)\s*$")   # not an arrow ->
ROUND_OFF = 1e-9


def unbounded_round_off(text: str) -> list[str]:
    """The numbers in printed ``text`` below ROUND_OFF in magnitude (an exact zero written with an
    exponent, ``0.0e+00``, included: another machine prints its round-off there) that are not
    written as a bound (``< 1e-10``, ``> -1e-10``, ``to 1e-11``); the normaliser's ``<1e-12`` is a
    bound. One entry per offending line."""
    found = []
    for line in text.splitlines():
        for m in _PRINTED_NUMBER.finditer(line):
            value = float(m.group())
            small = 0 < abs(value) < ROUND_OFF or (value == 0 and "e" in m.group().lower())
            if small and not _BOUND_BEFORE.search(line[:m.start()]):
                found.append(line.strip())
                break
    return found


def test_unbounded_round_off_finds_raw_residuals_and_accepts_bounds():
    assert unbounded_round_off("max |diff|/kappa_2^(p/2) = 2.8e-11\n") == ["max |diff|/kappa_2^(p/2) = 2.8e-11"]
    assert unbounded_round_off("R(0.4) by Fourier: 0.50661699 (+tau), -2.6e-12 (-tau)")
    assert unbounded_round_off("trapezoid diff 0.0e+00, <1e-12")
    assert unbounded_round_off("[1.0e-17 2.5e-01]")
    assert unbounded_round_off("loss 0.3 -> 3e-13")
    assert not unbounded_round_off("max |diff| < 1e-10; vs quad: <1e-12; holds to 1e-11; within 1e-12; x <= 1e-13")
    assert not unbounded_round_off("smallest eigenvalue > -1e-10 (PSD up to round-off)")
    assert not unbounded_round_off("|diff| = 7.13e-06, lam = 1e-6: 2.2e-08, theta = [0.66666667 0.        ], N=1e6")
    assert not unbounded_round_off("eps_t MC 0.0000, exact 0.0, 0 of 3, step 2.5e-3, x1e-12")


@pytest.mark.parametrize("assignment", all_assignments())
def test_solution_notebook_prints_no_round_off_digits(assignment):
    """A residual at round-off level (two routes' difference, a cross-check's error) is printed as a
    bound, so executing the notebook on another machine changes no byte (a static scan of the
    committed outputs, nothing is executed)."""
    nb = json.loads((REPO / "solutions" / assignment / f"{assignment}.ipynb").read_text())
    raw = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            for text in (out.get("text", ""), out.get("data", {}).get("text/plain", "")):
                raw += unbounded_round_off("".join(text) if isinstance(text, list) else text)
    assert not raw, f"print these as bounds in source/{assignment}/{assignment}.py: {raw}"


# -- regeneration is byte-stable (issue 34, item 7) -----------------------------------------------
def test_regeneration_is_byte_stable_on_the_figure_that_once_moved():
    """ex2_1's figure (finite differences at the rounding limit) once differed between two
    executions: executed again, its solution notebook gives the committed bytes."""
    from autograder.course.generate import unstable_cells

    assert unstable_cells("ex2_1_cumulants") == []


def test_an_unstable_cell_is_named(monkeypatch):
    """An execution whose outputs differ in one cell (a figure's pixels, a printed value) is
    reported by that cell's index and first line; the same outputs report nothing."""
    import copy

    import nbformat

    from autograder.course import generate as g

    committed = nbformat.reads((REPO / "solutions" / EXEMPLAR / f"{EXEMPLAR}.ipynb").read_text(), as_version=4)
    code = [i for i, c in enumerate(committed.cells) if c.cell_type == "code" and c.get("outputs")]
    target = code[len(code) // 2]
    changed = []

    def replay(nb, cwd, timeout=600):  # the committed outputs, as a deterministic execution gives them
        for i, (cell, old) in enumerate(zip(nb.cells, committed.cells)):
            if cell.cell_type == "code":
                cell.outputs = copy.deepcopy(old.get("outputs", []))
                if i == target and changed:
                    cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text="1.0000000000001\n"))
        return nb

    monkeypatch.setattr(g, "execute", replay)
    assert g.unstable_cells(EXEMPLAR) == []
    changed.append(True)
    first = committed.cells[target].source.strip().splitlines()[0][:60]
    assert g.unstable_cells(EXEMPLAR) == [f"cell {target} ({first}): stream outputs differ"]
