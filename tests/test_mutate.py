"""Mutation reports speak the instructor's language: lines of source/<id>/<id>.py."""

import ast

import pytest

from autograder.course.generate import module_text
from autograder.course.mutate import _in_source_terms, mutant, source_line_map
from autograder.course.source import all_assignments, load


@pytest.mark.parametrize("assignment", all_assignments())
def test_every_line_of_a_graded_function_maps_to_the_same_line_of_the_source(assignment):
    src = load(assignment)
    code = module_text(src)
    lines = source_line_map(src, code)
    module, source = code.splitlines(), src.path.read_text().splitlines()
    graded = set(src.graded_functions())
    for node in ast.parse(code).body:
        if isinstance(node, ast.FunctionDef) and node.name in graded:
            for line in range(node.lineno, node.end_lineno + 1):
                assert line in lines, f"{node.name}: module line {line} has no source line"
                assert module[line - 1] == source[lines[line] - 1]


def test_a_mutant_is_named_by_its_source_line():
    from conftest import EXEMPLAR

    src = load(EXEMPLAR)
    code = module_text(src)
    lines = source_line_map(src, code)
    _, desc = mutant(code, set(src.graded_functions()), 3)
    named = _in_source_terms(desc, lines, f"source/{EXEMPLAR}/{EXEMPLAR}.py")
    assert named.startswith(f"source/{EXEMPLAR}/{EXEMPLAR}.py:") and named.split(": ", 1)[1] == desc.split(": ", 1)[1]
