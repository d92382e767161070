"""Shared helpers for the engine's tests: synthetic submissions built from the generated course."""

import json
from pathlib import Path

import pytest

from autograder.course.synth import variant_notebook

UNGROUPED = "--dist loadgroup did not group this test marked xdist_group"


def pytest_collection_finish(session):
    """Tests marked ``xdist_group`` share a built venv, a graded cohort or nbgrader's folders:
    where ``--dist loadgroup`` does not group them (pytest 9.2 with xdist 3.8 silently drops the
    groups, pytest-dev/pytest-xdist#1386; pyproject.toml pins pytest below it), they would run on
    several workers at once, so each of them fails, saying why (a worker cannot stop the run with
    a message: xdist reports that as a crash)."""
    if getattr(session.config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        session.config.pdl_ungrouped = {item.nodeid for item in session.items
                                         if any(True for _ in item.iter_markers("xdist_group"))
                                         and "@" not in item.nodeid.rsplit("]", 1)[-1]}


# Fixtures that cost tens of seconds to build once: a test that uses one is in the slow tier.
SLOW_FIXTURES = frozenset({"student_python", "graded_hostile_cohort", "venv", "wheel", "fresh_env",
                           "pages", "hostile_cohort", "planted", "registered", "wrong_report"})
SLOW_LIST = Path(__file__).with_name("slow.txt")


def slow_tests() -> set[str]:
    """The test functions tests/slow.txt names (``path::function``, relative to the checkout)."""
    return {line.strip() for line in SLOW_LIST.read_text().splitlines()
            if line.strip() and not line.startswith("#")}


def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` what tests/slow.txt names or what uses a costly fixture: ``-m "not slow"`` is
    the fast tier (``bash scripts/test.sh --fast``). This conftest sees the hidden tests' items too
    when both folders are collected in one run."""
    listed = slow_tests()
    root = Path(config.rootpath)
    for item in items:
        path = Path(str(item.path)).resolve()
        where = f"{path.relative_to(root) if path.is_relative_to(root) else path}::{item.originalname}"
        if where in listed or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def pytest_runtest_setup(item):
    if item.nodeid in getattr(item.config, "pdl_ungrouped", ()):
        pytest.fail(f"{UNGROUPED}: this pytest and pytest-xdist do not work together; install what "
                    "pyproject.toml pins (bash scripts/setup.sh)", pytrace=False)


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


# The exemplar runs in ~1 s, each call in <0.1 s.
HOSTILE_LIMITS = dict(timeout=15, call_timeout=5, memory_mb=2048)


@pytest.fixture(scope="session")
def graded_hostile_cohort(tmp_path_factory, correct_nb):
    """The hostile cohort (``synth.hostile_cohort``) in one zip with unsafe members, graded once by
    the process pool (two workers, ``HOSTILE_LIMITS``): (cases, summary, out folder, archive).
    Tests of tests/test_cohort.py read it, and tests/test_dask_cluster.py compares a real dask
    cluster's records with its (both in the xdist group "nbgrader": one worker grades it once)."""
    import zipfile

    from autograder.cohort.grade import grade_cohort
    from autograder.course.synth import hostile_cohort
    from autograder.run.sandbox import namespaces_available

    tmp = tmp_path_factory.mktemp("cohort")
    cases = hostile_cohort(EXEMPLAR)
    if not namespaces_available():  # without the sandbox these would really damage the checkout
        for destructive in ("rewriter", "fake_results"):
            cases.pop(destructive)
    archive = tmp / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for student, (content, _) in cases.items():
            zf.writestr(f"{student}/{EXEMPLAR}.ipynb", content)
        zf.writestr("../escaped.ipynb", json.dumps(correct_nb))
        zf.writestr("/absolute.ipynb", json.dumps(correct_nb))
        zf.writestr("notes.txt", "not a notebook")
    out = tmp / "out"
    summary = grade_cohort(archive, EXEMPLAR, out, workers=2, progress=False, **HOSTILE_LIMITS)
    return cases, summary, out, archive
