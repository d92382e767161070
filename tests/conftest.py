"""Shared helpers for the engine's tests: synthetic submissions built from the generated course."""

import json
from pathlib import Path

import pytest

from autograder.course.synth import variant_notebook

# The exemplar assignment the engine tests grade (small, fast, no torch).
EXEMPLAR = "ex2_3_ising_perceptron"


@pytest.fixture
def write_nb(tmp_path):
    """write_nb(name, notebook_dict_or_text) -> path of a submission file."""
    def write(name: str, content) -> Path:
        path = tmp_path / name / f"{EXEMPLAR}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        return path
    return write


@pytest.fixture(scope="session")
def correct_nb():
    return variant_notebook(EXEMPLAR, "correct")


@pytest.fixture(scope="session")
def stub_nb():
    return variant_notebook(EXEMPLAR, "stub")
