"""`pdl generate` is deterministic and keeps its promises about what goes where."""

import json
import zipfile

from autograder.generate import build_otter_zip, generate
from autograder.sandbox import REPO
from autograder.source import load
from conftest import EXEMPLAR


def test_generate_twice_changes_no_byte():
    generate(EXEMPLAR, execute_solution=False, otter=False)
    assert generate(EXEMPLAR, execute_solution=False, otter=False) == []


def test_otter_zip_is_byte_stable_and_keeps_the_grader_out_of_the_submission_folder():
    first = build_otter_zip(EXEMPLAR).read_bytes()
    path = build_otter_zip(EXEMPLAR)
    assert path.read_bytes() == first
    names = zipfile.ZipFile(path).namelist()
    assert f"pdl/solutions/{EXEMPLAR}/__init__.py" in names and "pdl/autograder/grading.py" in names
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
