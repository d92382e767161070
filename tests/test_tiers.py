"""The suite's tiers (docs/development.md#the-test-suite): tests/slow.txt names real tests, and the
fast tier leaves out exactly the slow ones."""

import ast
from pathlib import Path

import pytest
from conftest import SLOW_FIXTURES, slow_tests

from autograder.run.paths import REPO


def _functions(path: Path) -> set[str]:
    return {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.FunctionDef)}


def test_every_line_of_slow_txt_names_a_test_function():
    listed = slow_tests()
    assert len(listed) > 20
    missing = [entry for entry in sorted(listed)
               if not (REPO / entry.split("::")[0]).is_file()
               or entry.split("::")[1] not in _functions(REPO / entry.split("::")[0])]
    assert missing == [], f"tests/slow.txt names tests that do not exist (renamed or removed?): {missing}"


def test_the_costly_fixtures_exist():
    defined = set()
    for path in (REPO / "tests").glob("*.py"):
        tree = ast.parse(path.read_text())
        defined |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                    and any("fixture" in ast.unparse(d) for d in n.decorator_list)}
    assert SLOW_FIXTURES <= defined, SLOW_FIXTURES - defined


def test_this_run_marks_the_listed_tests_and_the_fixtures_users(request):
    """In this very session: a listed test carries the slow marker, an unlisted one does not."""
    items = request.session.items
    by_id = {f"{Path(str(i.path)).resolve().relative_to(REPO)}::{i.originalname}": i for i in items}
    listed = [by_id[k] for k in slow_tests() if k in by_id]
    if not listed:
        pytest.skip("no listed test collected in this run (a single file was asked for)")
    assert all(i.get_closest_marker("slow") for i in listed)
    here = by_id.get("tests/test_tiers.py::test_this_run_marks_the_listed_tests_and_the_fixtures_users")
    assert here is not None and here.get_closest_marker("slow") is None
    users = [i for i in items if SLOW_FIXTURES & set(getattr(i, "fixturenames", ()))]
    assert all(i.get_closest_marker("slow") for i in users)
