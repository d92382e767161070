"""Which graded function each hidden test counts for: the points the release advertises per
function (``course.generate``), and the function whose own tests a mistake must lose points in
before another test is carried forward from it (``run.carry``).

A test counts for the function its description starts with (``"name: ..."``), else the one its
name is ``test_<name>...`` of, else the first graded function it calls (``student.<name>``, also
through helpers of the test module).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable

from autograder.run import serial
from autograder.run.paths import REPO


def test_owners(tests_code: str, graded: Iterable[str]) -> dict[str, tuple[str, float]]:
    """Test name -> (the graded function it counts for, its points), for each ``test_*`` function
    of ``tests_code`` that counts for one; ``graded``: the graded functions' names."""
    graded = set(graded)
    tree = serial.parse(tests_code)
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}

    def called(node, seen):
        names = []
        exprs = (s for s in ast.walk(node) if isinstance(s, ast.expr))  # the only nodes that name a call
        for sub in sorted(exprs, key=lambda s: (s.lineno, s.col_offset)):
            if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "student"
                    and sub.attr in graded):
                names.append(sub.attr)
            elif (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in helpers
                  and sub.func.id not in seen):
                names += called(helpers[sub.func.id], seen | {sub.func.id})
        return names

    out: dict[str, tuple[str, float]] = {}
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
            continue
        pts = 1.0
        for d in node.decorator_list:
            if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "points" and d.args:
                pts = float(ast.literal_eval(d.args[0]))
        first = re.match(r"\w+", (ast.get_docstring(node) or "").strip())
        by_name = [g for g in graded if node.name == f"test_{g}" or node.name.startswith(f"test_{g}_")]
        name: str | None
        if first and first.group() in graded:
            name = first.group()
        elif by_name:
            name = max(by_name, key=len)
        else:
            name = next(iter(called(node, {node.name})), None)
        if name:
            out[node.name] = (name, pts)
    return out


def points_per_function(owners: dict[str, tuple[str, float]]) -> dict[str, float]:
    """Graded function -> the points of the tests that count for it (what the release advertises)."""
    out: dict[str, float] = {}
    for name, pts in owners.values():
        out[name] = out.get(name, 0.0) + pts
    return out


@functools.lru_cache(maxsize=64)
def owners_of(assignment: str, graded: frozenset[str]) -> dict[str, tuple[str, float]]:
    """``test_owners`` of an assignment's hidden tests as committed (``grading_tests/<id>/``)."""
    path = REPO / "grading_tests" / assignment / f"test_{assignment}.py"
    return test_owners(path.read_text(), graded) if path.is_file() else {}
