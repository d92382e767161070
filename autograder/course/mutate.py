"""Tests of the tests: grade known-wrong, alternative and mutated implementations.

These variants are the course's own code, not students', so they are graded in-process
(``LocalStudent``, the same plain-data conversion and the same hidden tests as ``pdl
grade``), with a per-call time limit, which makes a mutation run of dozens of variants fast.
"""

from __future__ import annotations

import ast
import random
import re

from autograder.course.generate import MODULE_ROLES, module_text
from autograder.course.inprocess import Baseline, score_code
from autograder.course.source import Source, load
from autograder.run.paths import REPO

CALL_LIMIT_S = 20


def variant_cells(src: Source, role: str) -> list[tuple[str, str]]:
    """(description, code) of the ``wrong`` or ``alternative`` cells."""
    out = []
    for cell in src.cells:
        if cell.role == role:
            first = cell.source.splitlines()[0] if cell.source else ""
            desc = first.lstrip("# ").split(":", 1)[-1].strip() if first.startswith("#") else f"cell {cell.index}"
            out.append((desc, cell.source))
    return out


# -- mutation ---------------------------------------------------------------------------
_SWAP_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
             ast.Pow: ast.Mult, ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv}
_SWAP_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
             ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


class _Mutator(ast.NodeTransformer):
    """Applies the ``target``-th possible mutation (counting sites in a fixed order)."""

    def __init__(self, target: int | None):
        self.target, self.count, self.description = target, 0, ""

    def _site(self, node, description):
        hit = self.count == self.target
        if hit:
            self.description = f"line {getattr(node, 'lineno', '?')}: {description}"
        self.count += 1
        return hit

    def visit_BinOp(self, node):
        self.generic_visit(node)
        new = _SWAP_BIN.get(type(node.op))
        if new and self._site(node, f"{type(node.op).__name__} -> {new.__name__}"):
            node.op = new()
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        new = _SWAP_CMP.get(type(node.ops[0]))
        if new and self._site(node, f"{type(node.ops[0]).__name__} -> {new.__name__}"):
            node.ops[0] = new()
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.USub) and self._site(node, "drop unary minus"):
            return node.operand
        return node

    def visit_Constant(self, node):
        if type(node.value) in (int, float) and not isinstance(node.value, bool):
            if self._site(node, f"constant {node.value!r} -> {node.value!r} + 1"):
                return ast.copy_location(ast.Constant(node.value + 1), node)
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        if node.value is not None and self._site(node, "return None"):
            node.value = ast.Constant(None)
        return node

    def visit_Expr(self, node):  # leave docstrings and bare strings alone
        return node


def _graded_defs(tree: ast.Module, names: set[str]):
    return [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]


def count_mutants(code: str, graded: set[str]) -> int:
    counter = _Mutator(None)
    for fn in _graded_defs(ast.parse(code), graded):
        counter.visit(fn)
    return counter.count


def mutant(code: str, graded: set[str], k: int) -> tuple[str, str]:
    """(mutated source, description) for the k-th mutation site inside graded functions."""
    tree = ast.parse(code)
    m = _Mutator(k)
    for fn in _graded_defs(tree, graded):
        m.visit(fn)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree), m.description


def source_line_map(src: Source, code: str) -> dict[int, int]:
    """Line of the reference module ``code`` (``generate.module_text``) -> line of the source file
    the instructor edits, for every cell found verbatim in it (cells with includes are not)."""

    try:
        text = src.path.read_text()
    except OSError:
        return {}
    out, at, at_file = {}, 0, 0
    for cell in src.cells:
        if cell.role not in MODULE_ROLES or cell.role == "params" or not cell.source:
            continue
        # cells appear in order in both: search after the last one found (a cell's text may also
        # appear earlier, inside another cell)
        in_code, in_file = code.find(cell.source, at), text.find(cell.source, at_file)
        if in_code < 0:
            continue
        at = in_code + len(cell.source)
        if in_file < 0:
            continue
        at_file = in_file + len(cell.source)
        first_code, first_file = code.count("\n", 0, in_code) + 1, text.count("\n", 0, in_file) + 1
        for k in range(cell.source.count("\n") + 1):
            out[first_code + k] = first_file + k
    return out


def _in_source_terms(description: str, lines: dict[int, int], path: str) -> str:
    """``line 12: Add -> Sub`` (of the module) as ``source/<id>/<id>.py:345: Add -> Sub``."""

    m = re.match(r"line (\d+): (.*)", description, flags=re.S)
    if not m or int(m.group(1)) not in lines:
        return description
    return f"{path}:{lines[int(m.group(1))]}: {m.group(2)}"


def mutation_run(assignment: str, sample: int | None = 40, seed: int = 0, log=None) -> dict:
    """Grade mutants of the reference; returns counts and the surviving mutations, each named by
    its line in ``source/<id>/<id>.py``."""

    src = load(assignment)
    code = module_text(src)
    lines = source_line_map(src, code)
    try:
        path = str(src.path.relative_to(REPO))
    except ValueError:
        path = str(src.path)
    graded = set(src.graded_functions())
    total = count_mutants(code, graded)
    # the reference as the mutants are written (unparsed, no site mutated): a test that reaches
    # no mutated function keeps its pass unrun
    baseline = Baseline(assignment, mutant(code, graded, total)[0])
    full = baseline.max_score
    sites = list(range(total))
    if sample is not None and sample < total:
        sites = sorted(random.Random(seed).sample(sites, sample))
    caught, survivors = 0, []
    for i, k in enumerate(sites):
        text, desc = mutant(code, graded, k)
        score, _ = score_code(assignment, text, baseline)
        if score < full:
            caught += 1
        else:
            survivors.append(_in_source_terms(desc, lines, path))
        if log:
            log(i + 1, len(sites))
    return {"sites": total, "graded": len(sites), "caught": caught, "survivors": survivors}
