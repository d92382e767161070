"""Generic mutants of the reference: one term of a sum left out, or its sign flipped.

A student who drops a term, or adds it where it is subtracted, gives the answers of the reference
with that one change. Each ``+`` and ``-`` of the reference function's own code is mutated in
turn (the right operand dropped or its sign flipped, the left one likewise), and a mutant that
gives the student's answers on every call of the test (within the test's tolerance and never
looser than ``MATCH_RTOL``) is the diagnosis: "one term (involving `alpha`) is missing". The
words name only the arguments the term involves, never the term's code or a value.
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap

import numpy as np

from autograder.run.diagnose.catalogue import _FAILED, Variant
from autograder.run.diagnose.compare import close
from autograder.run.timelimit import Allowance

MAX_MUTANTS = 64     # mutants tried per function
BUDGET_S = 4.0       # seconds spent replaying them, per function and test
CALL_S = 2.0         # one replayed call
MATCH_RTOL, MATCH_ATOL = 1e-6, 1e-9  # a mutant matches no looser than this (the test's own if tighter)

_CACHE: dict[int, tuple] = {}


def _function_def(fn) -> ast.FunctionDef | None:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, ast.FunctionDef) else None


def _dependencies(fn_def: ast.FunctionDef) -> dict:
    """{local name: the names its assignments read}, for tracing a term back to the arguments."""
    deps: dict = {}
    for node in ast.walk(fn_def):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for name, read in _assigned(t, node.value):
                    deps.setdefault(name, set()).update(read)
    return deps


def _names(node: ast.AST) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _assigned(target: ast.AST, value: ast.AST) -> list:
    """[(name, the names its value reads)] of one assignment; a tuple unpacked from a tuple, or
    from a comprehension over a tuple (``a, b = (np.asarray(x) for x in (a, b))``), position by
    position: each name reads only its own element."""
    if isinstance(target, (ast.Tuple, ast.List)):
        elts = target.elts
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(elts):
            return [pair for t, v in zip(elts, value.elts) for pair in _assigned(t, v)]
        if isinstance(value, (ast.GeneratorExp, ast.ListComp)) and len(value.generators) == 1:
            loop = value.generators[0]
            if isinstance(loop.target, ast.Name) and isinstance(loop.iter, (ast.Tuple, ast.List)) \
                    and len(loop.iter.elts) == len(elts) and not loop.ifs:
                common = _names(value.elt) - {loop.target.id}
                return [(n, common | _names(v)) for t, v in zip(elts, loop.iter.elts) for n in _names(t)]
    return [(n, _names(value)) for n in _names(target)]


def _involves(operand: ast.AST, params: list, deps: dict) -> list:
    """The arguments a term reads, directly or through local names (a few steps back)."""
    names = {n.id for n in ast.walk(operand) if isinstance(n, ast.Name)}
    seen = set(names)
    for _ in range(4):
        more = set().union(*(deps.get(n, set()) for n in names)) - seen if names else set()
        if not more:
            break
        seen |= more
        names = more
    return [p for p in params if p in seen]


class _Mutate(ast.NodeTransformer):
    """The ``target``-th ``+`` or ``-`` of a function changed; ``nested``: whether it sits inside a
    power or a call's arguments (its term is then not a term of the answer: a coincidence at one
    value of an argument is possible, ``term_mutant``); ``whole``: that sum, before the change."""

    def __init__(self, target: int, side: str, how: str):
        self.target, self.side, self.how, self.count, self.operand = target, side, how, -1, None
        self.depth, self.nested, self.whole = 0, False, None

    def visit_Call(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_BinOp(self, node):
        if isinstance(node.op, (ast.Add, ast.Sub)):
            self.count += 1
            if self.count == self.target:
                self.nested, self.whole = self.depth > 0, copy.deepcopy(node)
                self.generic_visit(node)
                return self._change(node)
        if isinstance(node.op, ast.Pow):
            self.depth += 1
            self.generic_visit(node)
            self.depth -= 1
            return node
        self.generic_visit(node)
        return node

    def _change(self, node):
        sub = isinstance(node.op, ast.Sub)
        if self.side == "right":
            self.operand = node.right
            if self.how == "missing":
                return node.left
            return ast.BinOp(node.left, ast.Add() if sub else ast.Sub(), node.right)
        self.operand = node.left
        if self.how == "missing":
            return ast.UnaryOp(ast.USub(), node.right) if sub else node.right
        return ast.BinOp(ast.UnaryOp(ast.USub(), node.left), node.op, node.right)


def mutants(reference: Variant, name: str) -> list:
    """[(how, involves, Variant, varied)]: the reference with one term of ``name`` dropped or
    flipped; ``varied``: for a sum inside a power or a call, the arguments it involves (each must
    take two values among the calls a match is claimed on), else []."""
    fn = reference.ns.get(name)
    key = id(fn)
    if key in _CACHE and _CACHE[key][0] is fn:
        return _CACHE[key][1]
    out: list = []
    _CACHE[key] = (fn, out)
    fn_def = _function_def(fn) if callable(fn) else None
    if fn_def is None:
        return out
    fn_def.decorator_list = []
    params = [a.arg for a in fn_def.args.args + fn_def.args.kwonlyargs]
    deps = _dependencies(fn_def)
    count = sum(isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)) for n in ast.walk(fn_def))
    filename = getattr(getattr(fn, "__code__", None), "co_filename", "<mutant>")
    for target in range(count):
        for side in ("right", "left"):
            for how in ("missing", "sign"):
                if len(out) >= MAX_MUTANTS:
                    return out
                m = _Mutate(target, side, how)
                tree = ast.fix_missing_locations(ast.Module([m.visit(copy.deepcopy(fn_def))], []))
                if m.operand is None:
                    continue
                ns = dict(reference.ns)
                try:
                    exec(compile(tree, filename, "exec"), ns)  # noqa: S102 - the reference, one term changed
                except Exception:  # noqa: BLE001
                    continue
                varied = _involves(m.whole, params, deps) if m.nested and m.whole is not None else []
                out.append((how, _involves(m.operand, params, deps), Variant(f"{name}:{target}{side}{how}", "", ns,
                                                                              {name}), varied))
    return out


def _same_answer(expected, answer) -> bool:
    return expected is not _FAILED and close(answer, expected, MATCH_RTOL, MATCH_ATOL)


def _takes_two_values(reference: Variant, name: str, calls, params) -> bool:
    """Whether each of ``params`` that is a single number on these calls takes two values or more
    among them (an array argument counts as varied)."""
    fn = reference.ns.get(name)
    try:
        sig = inspect.signature(fn) if callable(fn) else None
        bound = [sig.bind(*c.args, **c.kwargs) for c in calls] if sig is not None else []
    except (TypeError, ValueError):
        return False
    if not bound:
        return False
    for b in bound:
        b.apply_defaults()
    for p in params:
        values: list = [b.arguments.get(p) for b in bound]
        if all(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) for x in values) \
                and len({float(x) for x in values}) < 2:
            return False
    return True


def term_mutant(reference: Variant, name: str, calls, idx, rtol, atol, budget_s: float = BUDGET_S):
    """(how, involves) of the one kind of mutant of ``name`` that gives the student's answers on
    every call ``idx`` (the wrong ones first), or None: none, several that say different things,
    or out of time."""
    rt, at = max(min(rtol, MATCH_RTOL), 1e-12), max(min(atol, MATCH_ATOL), 1e-15)
    allowance = Allowance(budget_s)
    found = set()
    for how, involves, v, varied in mutants(reference, name):
        if allowance.over():
            return None
        if varied and not _takes_two_values(reference, name, [calls[i] for i in idx], varied):
            continue  # a sum inside a power or a call: at one value of its arguments, no telling
        answers = {}
        for i in idx:
            answers[i] = v.call(calls[i], limit=CALL_S)
            if answers[i] is _FAILED or not close(calls[i].value, answers[i], rt, at):
                break
        else:
            if varied:  # ... and among the calls where the change shows (at N = 1 a power of N does not)
                shows = [calls[i] for i in idx if not _same_answer(reference.call(calls[i], limit=CALL_S), answers[i])]
                if not _takes_two_values(reference, name, shows, varied):
                    continue
            found.add((how, tuple(involves)))
    if len(found) != 1:
        return None
    how, involves = found.pop()
    return how, list(involves)
