"""The reference's answers to the hidden tests' own calls, computed once per grading process of a
cohort instead of once per submission (issue 37, item 4).

A hidden test compares the student's answer with the reference's on inputs it generates from its
own seed (``ref.f(x)`` next to ``student.f(x)``): the same inputs, so the same answers, for every
submission. ``fill`` (called by ``grading.warm`` for a cohort, in each pool worker or dask worker
before it forks a grading child per submission) runs the hidden tests once against the reference
in-process and keeps the answers of the ``ref`` calls whose arguments are plain data; each
grading child inherits them and answers those calls from them (``plugin``: the test modules'
``ref`` is the memo while the tests, and the re-runs that carry an error forward, run). A call
with other arguments (a random generator, which the call advances; an input computed from the
student's answer) runs the reference as before, and is not kept; so is every call of a function
seen changing its arguments in place. What is kept never leaves the grader's process: it is what
the reference would have computed there.

Answers are given as copies, so a test that changes one in place changes nothing kept. Only small
answers are kept (``MAX_ANSWER_BYTES``, ``MAX_BYTES`` in all).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import os
import sys
from typing import Any

import numpy as np

from autograder.run import serial
from autograder.run.testing import LocalStudent

MAX_ANSWER_BYTES = 1 << 20  # one answer kept
MAX_BYTES = 64 << 20        # all answers of an assignment kept

_MEMOS: dict[str, Memo] = {}


class _Unkeyed(Exception):
    """An argument that is not plain data: the call is not kept."""


def _key(value) -> Any:
    """A hashable key equal for equal plain data (numbers by their bits, arrays by dtype, shape and
    bytes); raises ``_Unkeyed`` for anything else."""
    if value is None or isinstance(value, (bool, str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, complex):
        return ("complex", value.real.hex(), value.imag.hex())
    if isinstance(value, np.generic) and not isinstance(value, np.object_):
        return ("np", value.dtype.str, value.tobytes())
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufcSU":
        data = np.ascontiguousarray(value)
        return ("array", value.dtype.str, value.shape, hashlib.blake2b(data.data, digest_size=16).digest())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_key(v) for v in value))
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return ("dict", tuple(sorted((k, _key(v)) for k, v in value.items())))
    raise _Unkeyed(type(value).__name__)


def _copied(value):
    """A copy of a kept answer that shares nothing a test can change (``copy.deepcopy``, faster
    for the arrays, tuples, lists and dicts answers are made of)."""
    if isinstance(value, np.ndarray) and value.dtype != object:
        return value.copy()
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
        return value
    if type(value) in (tuple, list):
        return type(value)(_copied(v) for v in value)
    if type(value) is dict:
        return {k: _copied(v) for k, v in value.items()}
    return copy.deepcopy(value)


def _nbytes(value) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value) + 8 * len(value)
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values()) + 16 * len(value)
    return 32


class Memo:
    """The reference module, its functions' answers kept while ``filling`` and given back after."""

    def __init__(self, module):
        self._module = module
        self.stamp = _stamp(module)
        self.answers: dict = {}
        self.filling = True
        self.changes_inputs: set[str] = set()  # functions seen changing their arguments in place
        self.bytes = 0
        self.hits = 0

    def __getattr__(self, name):
        obj = getattr(self._module, name)
        if name.startswith("_") or not callable(obj) or isinstance(obj, type):
            return obj

        def call(*args, **kwargs):
            if name in self.changes_inputs:
                return obj(*args, **kwargs)
            try:
                key = (name, _key(args), _key(kwargs))
            except _Unkeyed:
                return obj(*args, **kwargs)
            if key in self.answers:
                self.hits += 1
                return _copied(self.answers[key])
            value = obj(*args, **kwargs)
            if self.filling and (_key(args), _key(kwargs)) != key[1:]:  # it changed its inputs: always run it
                self.changes_inputs.add(name)
                self.answers = {k: v for k, v in self.answers.items() if k[0] != name}
            elif self.filling:
                size = _nbytes(value)
                if size <= MAX_ANSWER_BYTES and self.bytes + size <= MAX_BYTES:
                    try:
                        self.answers[key] = _copied(value)
                        self.bytes += size
                    except Exception:  # noqa: BLE001 - an answer that cannot be copied is not kept
                        pass
            return value
        return call


class _Swap:
    """pytest plugin: for the whole session (the tests and the re-runs that carry an error forward
    after them), each test module's ``ref`` is the memo."""

    def __init__(self, memo: Memo):
        self.memo = memo
        self.swapped: list = []

    def pytest_collection_finish(self, session):
        for module in {id(item.module): item.module for item in session.items if hasattr(item, "module")}.values():
            if getattr(module, "ref", None) is self.memo._module:
                module.ref = self.memo
                self.swapped.append(module)

    def pytest_sessionfinish(self, session):
        for module in self.swapped:
            module.ref = self.memo._module
        self.swapped.clear()


def _stamp(module) -> tuple:
    """The reference's source file as it is now (a memo is dropped once it changed)."""
    try:
        stat = os.stat(module.__file__)
    except (OSError, TypeError, AttributeError):
        return ()
    return (stat.st_mtime_ns, stat.st_size)


def plugin(assignment: str) -> list:
    """The plugin that answers ``assignment``'s reference calls from its memo ([] when none, or
    when the reference's file changed since it was filled)."""
    memo = _MEMOS.get(assignment)
    if memo is not None and memo.stamp != _stamp(memo._module):
        forget(assignment)
        return []
    return [_Swap(memo)] if memo is not None else []


def fill(assignment: str, run_hidden_tests) -> Memo | None:
    """Run the hidden tests once against the reference, keeping its answers to their ``ref``
    calls for every later grading in this process and its forks. None where that run fails (the
    memo is then not used)."""
    # one thread at a time, and no grading child forked meanwhile (a dask worker's threads)
    with serial.LOCK:
        if assignment in _MEMOS:
            return _MEMOS[assignment]
        try:
            module = importlib.import_module(f"solutions.{assignment}")
            memo = _MEMOS[assignment] = Memo(module)
            run_hidden_tests(assignment, LocalStudent(vars(module)), diagnose=False)
        except BaseException:  # noqa: BLE001 - without a memo every call runs the reference, as before
            _MEMOS.pop(assignment, None)
            if isinstance(sys.exc_info()[1], KeyboardInterrupt):
                raise
            return None
        memo.filling = False
        return memo


def forget(assignment: str) -> None:
    """Drop the memo of ``assignment`` (its reference changed)."""
    _MEMOS.pop(assignment, None)
