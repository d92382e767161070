"""The catalogue's names are a contract: every listed graded function exists, graded, with
the listed parameter names, in the source, the release stub and the reference module."""

import importlib
import inspect
import re

import pytest

from autograder.course.source import all_assignments, load
from autograder.run.paths import REPO

CATALOGUE = REPO / "source" / "CATALOGUE.md"  # the course's own copy: a clone needs nothing beside it


def catalogue_functions() -> dict[str, dict[str, list[str]]]:
    out = {}
    for line in CATALOGUE.read_text().splitlines():
        cells = re.split(r"\s\|\s", line.strip(" |"))  # ` | ` only: `||x||` inside a cell is a norm
        m = re.fullmatch(r"`(\w+)`", cells[0]) if len(cells) >= 3 else None
        if not m:
            continue
        funcs = {}
        for name, args in re.findall(r"`(\w+)\(([^`]*?)\)`?", cells[2]):
            params = [a.split("=")[0].strip() for a in args.split(",") if a.strip() and a.strip() != "..."]
            funcs[name] = params if "..." not in args else None
        out[m.group(1)] = funcs
    return out


@pytest.mark.parametrize("assignment", all_assignments())
def test_catalogue_functions_are_graded_with_their_parameters(assignment):
    listed = catalogue_functions().get(assignment)
    assert listed, f"{assignment} is not in the catalogue"
    graded = load(assignment).graded_functions()
    module = importlib.import_module(f"solutions.{assignment}")
    for name, params in listed.items():
        assert name in graded, f"{name} is in the catalogue but not a graded function"
        if params is not None:
            actual = list(inspect.signature(getattr(module, name)).parameters)
            assert actual[:len(params)] == params, f"{name}{tuple(actual)} vs catalogue {params}"


def test_catalogue_lives_in_the_course_and_lists_exactly_its_assignments():
    """The course is self-contained: the catalogue is its own file, and the set of assignments
    it lists is the set of sources (nothing listed is missing, nothing built is unlisted)."""
    assert CATALOGUE.is_file()
    assert set(catalogue_functions()) == set(all_assignments())
