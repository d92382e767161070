"""The known mistakes as runnable code: the reference with one ``wrong`` cell applied, replayed
on the inputs a failing test sent (``Variant``), built once per process (``catalogue``)."""

from __future__ import annotations

import ast
import contextlib
import copy
import io
import types
import warnings
from dataclasses import dataclass

import numpy as np

from autograder.run.mistakes import read_mistakes
from autograder.run.paths import REPO
from autograder.run.protocol import ProtocolError, dumps, encode, roundtrip
from autograder.run.timelimit import time_limit

CALL_LIMIT_S = 20.0                      # one replayed call (main thread only)
MAX_KEY_BYTES = 4 * 2**20                # answers kept per variant: inputs up to this size,
MAX_KEPT = 4096                          # and this many


@dataclass
class Call:
    name: str
    args: tuple
    kwargs: dict
    value: object


def as_calls(log) -> list[Call]:
    out = []
    for entry in log:
        if isinstance(entry, Call):
            out.append(entry)
        else:
            name, args, kwargs, value = entry
            out.append(Call(name, tuple(args), dict(kwargs or {}), value))
    return out


@contextlib.contextmanager
def _quiet(limit: float):
    """No output, no warnings, and (in the main thread) a time limit for course code: ``limit``
    seconds of CPU time, the wall clock an outer bound (``timelimit.time_limit``)."""
    with time_limit(limit), warnings.catch_warnings(), np.errstate(all="ignore"), \
            contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


_FAILED = object()


def _names_used(fn) -> set:
    out, stack = set(), [fn.__code__]
    while stack:
        code = stack.pop()
        out |= set(code.co_names)
        stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return out


class Variant:
    """A namespace of the reference with one wrong (or rewrite) cell applied."""

    def __init__(self, label: str, hint: str, ns: dict, defined: set, code: str = ""):
        self.label, self.hint, self.ns, self.defined, self.code = label, hint, ns, defined, code
        self._affects: dict[str, bool] = {}
        self._reaches: dict[str, set] = {}
        self._answers: dict[str, object] = {}

    def affects(self, name: str) -> bool:
        """Whether the cell changes ``name``: it redefines it, or something it uses."""
        if name not in self._affects:
            self._affects[name] = bool(self.reaches(name) & self.defined)
        return self._affects[name]

    def reaches(self, name: str) -> set:
        """``name`` and every name it uses, directly or through the functions (and the methods of
        the classes) of this namespace it uses."""
        if name not in self._reaches:
            seen, todo = set(), [name]
            while todo:
                n = todo.pop()
                if n in seen:
                    continue
                seen.add(n)
                obj = self.ns.get(n)
                if isinstance(obj, types.FunctionType) and obj.__globals__ is self.ns:
                    todo += _names_used(obj)
                elif isinstance(obj, type) and obj.__module__ == self.ns.get("__name__"):
                    for member in vars(obj).values():
                        member = getattr(member, "__func__", member)
                        if isinstance(member, types.FunctionType):
                            todo += _names_used(member)
            self._reaches[name] = seen
        return self._reaches[name]

    def call(self, c: Call, limit: float = CALL_LIMIT_S, fresh: bool = False):
        """The variant's answer to the recorded call, as it would cross the wire; _FAILED if it
        raises, is missing or does not answer in time. Answers are kept (``fresh``: computed
        anew): the hidden tests draw the same inputs for every submission, so a cohort pays for
        each replay once per process."""
        fn = self.ns.get(c.name)
        if not callable(fn):
            return _FAILED
        try:
            key = dumps(encode([c.name, list(c.args), dict(c.kwargs)]))
        except (ProtocolError, TypeError, ValueError):
            key = None
        if key is not None and len(key) > MAX_KEY_BYTES:
            key = None
        if not fresh and key in self._answers:
            return self._answers[key]
        try:
            args, kwargs = roundtrip(list(c.args)), roundtrip(dict(c.kwargs))
            with _quiet(limit):
                value = fn(*args, **kwargs)
            value = roundtrip(value)
        except (Exception, TimeoutError):  # noqa: BLE001 - course code under replay
            value = _FAILED
        if key is not None and len(self._answers) < MAX_KEPT:
            self._answers[key] = value
        return value


def _defined_names(code: str) -> set:

    names = set()
    for node in ast.parse(code).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
    return names


class Catalogue:
    """An assignment's reference and known mistakes, built once per process (``catalogue()``)."""

    def __init__(self, assignment: str):

        self.assignment = assignment
        path = REPO / "solutions" / assignment / "__init__.py"
        self._module = compile(path.read_text(), str(path), "exec")
        try:
            self.mistakes = read_mistakes(assignment)
        except OSError:  # a copy of the grader without the sources (generic diagnoses only)
            self.mistakes = []
        self.reference = self.variant("reference", "", "")
        self._variants: list[Variant] | None = None
        self._combined: dict[tuple, Variant | None] = {}

    def variant(self, label: str, hint: str, code: str) -> Variant:
        ns: dict = {"__name__": f"pdl_diagnose_{self.assignment}"}
        with _quiet(CALL_LIMIT_S * 3):
            exec(self._module, ns)  # noqa: S102 - the course's reference
            if code:
                exec(compile(code, f"<{label}>", "exec"), ns)  # noqa: S102 - the course's wrong cell
        return Variant(label, hint, ns, _defined_names(code) if code else set(), code)

    def combined(self, pair: tuple) -> Variant | None:
        """Two known mistakes made together (None if they redefine the same names)."""
        if pair not in self._combined:
            a, b = (self.variants()[k] for k in pair)
            self._combined[pair] = None
            if not a.defined & b.defined:
                try:
                    self._combined[pair] = self.variant(a.label + " + " + b.label, "",
                                                        a.code + "\n\n" + b.code)
                except Exception:  # noqa: BLE001
                    pass
        return self._combined[pair]

    def variants(self) -> list[Variant]:
        if self._variants is None:
            self._variants = []
            for m in self.mistakes:
                try:
                    self._variants.append(self.variant(m.description, m.hint, m.code))
                except Exception:  # noqa: BLE001 - a wrong cell that does not run names nothing
                    continue
        return self._variants


    def without(self, hint: str) -> Catalogue:
        """This catalogue less the known mistake whose hint is ``hint`` (and its rewrites): what
        the grader would say of that mistake had nobody catalogued it. The other variants (and
        the answers they keep) are shared."""
        other = copy.copy(self)
        other.mistakes = [m for m in self.mistakes if m.hint != hint]
        other._variants = [v for v in self.variants() if v.hint != hint]
        other._combined = {}
        return other


_CATALOGUES: dict[str, Catalogue] = {}


def catalogue(assignment: str) -> Catalogue:
    if assignment not in _CATALOGUES:
        _CATALOGUES[assignment] = Catalogue(assignment)
    return _CATALOGUES[assignment]


@contextlib.contextmanager
def leaving_out(assignment: str, hint: str):
    """Within the block, the grader's catalogue of ``assignment`` lacks the mistake with this hint
    (a leave-one-out measure of the diagnosis: ``autograder.course.diagnosis_quality``)."""
    full = catalogue(assignment)
    _CATALOGUES[assignment] = full.without(hint)
    try:
        yield _CATALOGUES[assignment]
    finally:
        _CATALOGUES[assignment] = full
