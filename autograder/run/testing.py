"""What hidden tests use: the ``student`` fixture, ``points``, ``assert_close``, ``rng_for``.

A test sees the student's functions through a proxy: ``student.f(*args)`` returns plain
data. Under ``pdl grade`` the proxy talks to the sandboxed student process; under otter,
nbgrader, or a bare ``pytest grading_tests/<id>`` it wraps a namespace (the notebook's
globals, or the reference module), and passes every answer through the same plain-data
conversion, so all routes give the same verdicts.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import zlib

import numpy as np
import pytest

import course_config
from autograder.run.protocol import Fn, ProtocolError, roundtrip
from autograder.run.student import StudentBase

__all__ = ["points", "assert_close", "rng_for", "Fn", "StudentError", "LocalStudent", "student"]


def points(k: float):
    """Mark a test as worth ``k`` points (default 1)."""
    return pytest.mark.points(k)


def points_of(func) -> float:
    for mark in getattr(func, "pytestmark", []):
        if mark.name == "points":
            return float(mark.args[0])
    return 1.0


class StudentError(Exception):
    """The student's function could not give an answer; ``kind`` says why, ``function`` which
    graded function was called ("" where none was)."""

    def __init__(self, kind: str, message: str, function: str = "", origin: str = ""):
        super().__init__(message)
        self.kind = kind
        self.function = function
        self.origin = origin  # the graded function in whose code it was raised, where known


def course_seed() -> tuple[int, int]:
    return course_config.YEAR, course_config.SEED


def rng_for(name: str) -> np.random.Generator:
    """A generator for the inputs of one test, fixed by the course year and seed."""
    year, seed = course_seed()
    return np.random.default_rng([seed, year, zlib.crc32(name.encode())])


# The grader's observers of comparisons (``autograder.run.grading``: the tolerances a test used,
# and which answer failed); none under otter, nbgrader or a bare pytest.
_OBSERVERS: list = []


@contextlib.contextmanager
def observing(callback):
    """Call ``callback(actual, expected, rtol, atol, held)`` after each ``assert_close`` inside the block."""
    _OBSERVERS.append(callback)
    try:
        yield
    finally:
        _OBSERVERS.remove(callback)


_STANDARD_ERRORS = re.compile(r"\((\d+(?:\.\d+)?) (?:sample )?standard errors?\b")

# What a failing statistical test (its description says "(statistical") adds to its message.
SEEDED = ("This test is statistical and grading is seeded: its inputs and the seeds it passes are fixed, so "
          "the same notebook gets the same result each time it is graded; a failure is not bad luck.")


def statistical(description: str) -> bool:
    """Whether a test is statistical (its description says so: "... (statistical)")."""
    return "(statistical" in description


def _standard_errors(name: str) -> float | None:
    """z where a check's name gives its tolerance as "(z standard errors)" (an absolute
    tolerance of z standard errors of a sample mean); None otherwise."""
    m = _STANDARD_ERRORS.search(name)
    return float(m.group(1)) if m else None


def assert_close(actual, expected, rtol: float = 1e-7, atol: float = 1e-10, name: str = "result"):
    """Assert a student's answer equals the reference within tolerance.

    The message names the quantity, the shapes and the size of the error, never the
    reference's values.
    """
    try:
        _assert_close(actual, expected, rtol, atol, name)
    except AssertionError:
        for observe in list(_OBSERVERS):
            observe(actual, expected, rtol, atol, False)
        raise
    for observe in list(_OBSERVERS):
        observe(actual, expected, rtol, atol, True)


def _assert_close(actual, expected, rtol: float, atol: float, name: str):
    if isinstance(expected, (tuple, list)) and not np.isscalar(expected):
        if not isinstance(actual, (tuple, list, np.ndarray)) or len(actual) != len(expected):
            raise AssertionError(f"{name}: expected a sequence of {len(expected)} values")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _assert_close(a, e, rtol, atol, f"{name}[{i}]")
        return
    e = np.asarray(expected)
    # The reference's answer is the contract: shape and kind are checked before anything is
    # converted, so an answer's size costs the grader no more than the expected one's.
    if isinstance(actual, np.ndarray):
        if actual.dtype.kind not in "biufc":
            raise AssertionError(f"{name}: expected numbers, got an array of {actual.dtype.kind!r} values")
        if actual.shape != e.shape and not (actual.size == e.size == 1):
            raise AssertionError(f"{name}: wrong shape {actual.shape}, expected {e.shape}")
    try:
        a = np.asarray(actual, dtype=float if not np.iscomplexobj(actual) else complex)
    except (TypeError, ValueError):
        raise AssertionError(f"{name}: expected numbers, got {type(actual).__name__}") from None
    if a.shape != e.shape:
        if a.size == e.size == 1:
            a = a.reshape(e.shape)
        else:
            raise AssertionError(f"{name}: wrong shape {a.shape}, expected {e.shape}")
    if not np.all(np.isfinite(a) == np.isfinite(e)):
        raise AssertionError(f"{name}: contains nan or inf where it should not (or vice versa)")
    finite = np.isfinite(e)
    err = np.abs(a[finite] - e[finite])
    tol = atol + rtol * np.abs(e[finite])
    if err.size and np.any(err > tol):
        worst = float(np.max(err / np.maximum(tol, 1e-300)))
        z = _standard_errors(name) if rtol == 0 else None
        if z is not None:  # a statistical check: its tolerance is z standard errors of a sample mean
            raise AssertionError(f"{name}: differs from the expected value by {worst * z:.3g} standard errors "
                                 f"where {z:g} are allowed ({int(np.sum(err > tol))} of {err.size} entries off)")
        raise AssertionError(f"{name}: differs from the expected value "
                             f"({int(np.sum(err > tol))} of {err.size} entries off, "
                             f"worst by {worst:.3g}x the tolerance)")
    same_inf = e[~finite] == a[~finite]
    if not np.all(same_inf | (np.isnan(e[~finite]) & np.isnan(a[~finite]))):
        raise AssertionError(f"{name}: wrong infinite value")


class LocalStudent(StudentBase):
    """The student's functions from a namespace (a notebook's globals or a module), called in this
    process (a ``student.GradedStudent`` with its defaults: no ledger, no copies)."""

    def __init__(self, namespace: dict):
        self._ns = namespace

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        fn = self._ns.get(name)
        if not callable(fn):
            raise StudentError("missing", f"no function named {name!r} is defined in the notebook", name)

        def call(*args, **kwargs):
            args, kwargs = roundtrip(args), roundtrip(kwargs)
            try:
                value = fn(*args, **kwargs)
            except NotImplementedError as exc:
                error = StudentError("not_implemented", f"{name} is not implemented yet", name)
                error.origin = self._origin(exc)
                raise error from None
            except Exception as exc:  # noqa: BLE001
                error = StudentError("error", f"{name} raised {type(exc).__name__}: {exc}", name)
                error.origin = self._origin(exc)
                raise error from None
            try:
                return roundtrip(value)
            except ProtocolError as exc:
                raise StudentError("invalid", f"{name} returned something that is not numbers: {exc}", name) from None

        return call

    def _origin(self, exc: BaseException) -> str:
        """The function of the namespace in whose code ``exc`` was raised (the deepest), or ""."""
        scope = getattr(self._ns, "module_globals", self._ns)
        tb, found = exc.__traceback__, ""
        while tb is not None:
            if tb.tb_frame.f_globals is scope:
                found = tb.tb_frame.f_code.co_name
            tb = tb.tb_next
        return found


def reference_student(assignment: str) -> LocalStudent:
    return LocalStudent(vars(importlib.import_module(f"solutions.{assignment}")))


@pytest.fixture
def student(request):
    """The graded party: the grader's proxy when one is installed, else the reference."""
    proxy = getattr(request.config, "pdl_student", None)
    if proxy is not None:
        return proxy
    assignment = request.module.__name__.split(".")[-2]
    return reference_student(assignment)
