"""The version of an assignment a grade was computed against: the course year and a hash of the
hidden tests and the reference, as Python parses them (``assignment_version``)."""

from __future__ import annotations

import ast
import hashlib

import course_config
from autograder.run.paths import REPO


def assignment_version(assignment: str) -> str:
    """``<year>.<hash of the hidden tests and reference>``: what a grade was computed against.
    The hash is of the code as Python parses it (docstrings, comments and layout left out, see
    ``normalised_code``), so only a change that can change a grade (test code, points, the
    reference's code, the year's parameters) changes the version."""
    paths = [path for folder in ("grading_tests", "solutions")
             for path in sorted((REPO / folder / assignment).glob("*.py"))]
    # parsing the code takes ~0.2 s: kept while the files are unchanged (a cohort's forks inherit it from warm)
    key = (assignment, course_config.SEED, course_config.YEAR,
           tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths))
    if key not in _VERSIONS:
        digest = hashlib.sha256(str(course_config.SEED).encode())
        for path in paths:
            digest.update(normalised_code(path.read_text()).encode())
        _VERSIONS[key] = f"{course_config.YEAR}.{digest.hexdigest()[:10]}"
    return _VERSIONS[key]


_VERSIONS: dict[tuple, str] = {}


def normalised_code(text: str) -> str:
    """``ast.dump`` of the module without docstrings (comments and line numbers are never in it);
    text that does not parse is hashed as it is."""

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)
