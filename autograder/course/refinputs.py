"""Hidden tests whose inputs depend on a reference result (``pdl validate``).

A hidden test that sends a student's function a value computed from what the reference
returned (``1.02 * ref.spinodal_load()``) hands that value to the student's code. Public checks
run before any hidden test and nothing visible comes after them (``autograder.run.grading``), so
such a value cannot reach a student before grades are published; still, every such test must
say so with ``@pytest.mark.reference_input`` (``source/FORMAT.md``), and
``pdl validate`` fails on one that does not.

How it is found, by differential testing rather than by tracing values: the hidden tests run
twice in-process against the reference, once as they are and once with every number the
reference's functions return multiplied by ``1 + PERTURBATION``; comparisons are switched off
in both runs. A test whose calls of the student's functions receive different arguments in the
two runs computes its inputs from a reference result.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from autograder.run.grading import run_hidden_tests
from autograder.run.protocol import ProtocolError, dumps, encode
from autograder.run.testing import LocalStudent

PERTURBATION = 2.0 ** -20  # far above round-off, far below what changes a test's flow
MARK = "reference_input"


def perturbed(value, factor: float):
    """``value`` with every float (scalars, float and complex arrays, inside tuples, lists and
    dicts) multiplied by ``factor``; integers, booleans and strings unchanged."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, np.integer, str)):
        return value
    if isinstance(value, (float, complex, np.floating, np.complexfloating)):
        return type(value)(value * factor)
    if isinstance(value, np.ndarray):
        return value * factor if value.dtype.kind in "fc" else value
    if isinstance(value, tuple):
        return tuple(perturbed(v, factor) for v in value)
    if isinstance(value, list):
        return [perturbed(v, factor) for v in value]
    if isinstance(value, dict):
        return {k: perturbed(v, factor) for k, v in value.items()}
    return value


class PerturbedModule:
    """The reference module, its functions' results multiplied by ``factor``."""

    def __init__(self, module, factor: float):
        self._module, self._factor = module, factor

    def __getattr__(self, name):
        obj = getattr(self._module, name)
        if callable(obj) and not isinstance(obj, type):
            return lambda *args, **kwargs: perturbed(obj(*args, **kwargs), self._factor)
        return obj


def call_key(name: str, args, kwargs) -> str:
    """A call's function and arguments as text, equal for equal arguments."""
    try:
        return dumps(encode([name, list(args), dict(kwargs)]))
    except (ProtocolError, TypeError, ValueError):
        return repr((name, args, kwargs))


class _Recorder(LocalStudent):
    """The reference as the student, recording the arguments of every call, test by test."""

    def __init__(self, namespace: dict):
        super().__init__(namespace)
        self.calls: dict[str, list[str]] = {}
        self.test = ""

    def __getattr__(self, name):
        call = super().__getattr__(name)

        def recorded(*args, **kwargs):
            self.calls.setdefault(self.test, []).append(call_key(name, args, kwargs))
            return call(*args, **kwargs)
        return recorded


class _Swap:
    """pytest plugin: each test module sees ``ref`` (perturbed or not) and no comparison."""

    def __init__(self, recorder: _Recorder, factor: float | None):
        self.recorder, self.factor = recorder, factor
        self.marked: set[str] = set()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        module = item.module
        saved = {k: getattr(module, k) for k in ("ref", "assert_close") if hasattr(module, k)}
        if item.get_closest_marker(MARK) is not None:
            self.marked.add(item.name)
        self.recorder.test = item.name
        if "ref" in saved and self.factor is not None:
            module.ref = PerturbedModule(saved["ref"], self.factor)
        module.assert_close = lambda *args, **kwargs: None
        try:
            yield
        finally:
            for k, v in saved.items():
                setattr(module, k, v)


def reference_dependent_tests(assignment: str,
                              plain: dict[str, list[str]] | None = None) -> tuple[list[str], list[str]]:
    """(tests whose student inputs depend on a reference result and are not marked, those that
    are marked ``reference_input``). ``plain``: the calls of a run of the reference as it is,
    where the caller made one (``inprocess.Baseline.call_keys``: ``pdl validate``'s); else run here."""
    namespace = vars(importlib.import_module(f"solutions.{assignment}"))
    runs = []
    for factor in ((None, 1.0 + PERTURBATION) if plain is None else (1.0 + PERTURBATION,)):
        recorder = _Recorder(namespace)
        swap = _Swap(recorder, factor)
        run_hidden_tests(assignment, recorder, diagnose=False, plugins=[swap])
        runs.append(recorder.calls)
    plain, moved = runs if plain is None else (plain, runs[0])
    dependent = sorted(t for t in set(plain) | set(moved)
                       if any(a != b for a, b in zip(plain.get(t, []), moved.get(t, []))))
    return [t for t in dependent if t not in swap.marked], [t for t in dependent if t in swap.marked]
