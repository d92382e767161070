"""``pdl validate --seeds N``: how often does a correct implementation fail a hidden test?

A hidden test that checks a random quantity (a mean over seeds, a fitted exponent, a training
run's behaviour) can fail a correct submission by bad luck: the student's code draws other random
numbers than the reference (another generator call, another stream), and each course year draws
other test inputs (``rng_for``) and parameters (``PARAMS``). Every hidden test has a **false-fail
budget**: P(a correct implementation fails it) is at most ``BUDGET`` (1e-4) for any random stream
and any course seed; a statistical test says in a comment how its tolerance keeps it there.

This module measures it. For each of N course seeds it

* sets ``course_config.SEED`` (in-process), so ``rng_for`` draws new test inputs, and renders the
  reference module anew, so the year's ``PARAMS`` are redrawn as ``pdl new-year`` would;
* grades the reference and every ``alternative`` cell in-process (``autograder.course.inprocess``)
  with the student's random streams re-drawn: while a graded function runs, the seeds it gives
  ``np.random.default_rng``, ``np.random.seed``, ``random.seed`` and ``torch.manual_seed`` are mixed
  with a salt of the run (the same seed still gives the same draw within a run: reproducibility
  contracts hold), and numpy's, Python's and torch's global states are reseeded per run.

A test whose contract fixes the random stream (the docstring states the exact calls) carries
``@pytest.mark.fixed_stream``; its graded functions then get the unsalted streams. Each test's
failures over the N x (1 + alternatives) runs give an observed rate and a one-sided
Clopper-Pearson bound; a test *exceeds its budget* when the lower confidence bound is above the
budget (its rate is significantly above 1e-4: up to about 500 runs per test, any failure at all).
The upper bound says what the sweep has shown (0 failures in n runs: below about 3/n at 95 %).
"""

from __future__ import annotations

import contextlib
import importlib
import random
import sys
import types

import numpy as np
import pytest

import course_config
from autograder.course.generate import module_text
from autograder.course.inprocess import TimedNamespace, namespace_of
from autograder.course.mutate import variant_cells
from autograder.course.source import load
from autograder.run.grading import run_hidden_tests
from autograder.run.testing import LocalStudent

BUDGET = 1e-4          # P(a correct implementation fails a hidden test), any stream, any course seed
CONFIDENCE = 0.95      # of the bounds reported and of the verdict
FIXED_STREAM = "fixed_stream"  # mark of a test whose contract states the exact random calls
_SALT_TAG = 0x5EED5EED


def clopper_pearson(failures: int, runs: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """One-sided Clopper-Pearson bounds (lower, upper) on a failure probability from ``failures``
    of ``runs`` Bernoulli trials, each holding with probability ``confidence``."""
    from scipy import stats  # heavy: scipy.stats takes about a second to import; only a sweep needs it

    if runs <= 0:
        return 0.0, 1.0
    alpha = 1.0 - confidence
    lower = 0.0 if failures == 0 else float(stats.beta.ppf(alpha, failures, runs - failures + 1))
    upper = 1.0 if failures == runs else float(stats.beta.ppf(1 - alpha, failures + 1, runs - failures))
    return lower, upper


# -- re-drawn random streams ------------------------------------------------------------------
class _Salt:
    """While a graded function runs, its seeds are mixed with ``value`` (unless ``active`` is off)."""

    def __init__(self, value: int):
        self.value, self.active = int(value), True

    def ints(self, seed) -> list[int]:
        return [_SALT_TAG, self.value, *(int(s) for s in np.ravel(np.asarray(seed, dtype=object)))]

    @contextlib.contextmanager
    def applied(self):
        if not self.active:
            yield
            return
        salt, saved = self, []
        orig_rng, orig_seed, orig_random = np.random.default_rng, np.random.seed, random.seed

        def default_rng(seed=None):
            if seed is None or isinstance(seed, (np.random.Generator, np.random.BitGenerator)) or (
                    isinstance(seed, np.random.SeedSequence) and seed.entropy is None):
                return orig_rng(seed)
            if isinstance(seed, np.random.SeedSequence) and seed.entropy is not None:
                return orig_rng(np.random.SeedSequence(salt.ints(seed.entropy), spawn_key=seed.spawn_key))
            orig_rng(seed)  # what numpy refuses (a negative seed, a float) is refused as before
            return orig_rng(salt.ints(seed))

        def seed(seed=None):
            return orig_seed(None if seed is None else
                             int(np.random.SeedSequence(salt.ints(seed)).generate_state(1)[0]))

        def random_seed(a=None, version=2):
            return orig_random(None if a is None else f"{salt.value}:{a!r}", version)

        saved += [(np.random, "default_rng", orig_rng), (np.random, "seed", orig_seed), (random, "seed", orig_random)]
        np.random.default_rng, np.random.seed, random.seed = default_rng, seed, random_seed
        torch = sys.modules.get("torch")
        if torch is not None:
            orig_torch = torch.manual_seed
            saved.append((torch, "manual_seed", orig_torch))
            torch.manual_seed = lambda s: orig_torch(
                int(np.random.SeedSequence(salt.ints(s)).generate_state(1, np.uint64)[0] >> 1))
        try:
            yield
        finally:
            for module, name, value in saved:
                setattr(module, name, value)

    def reseed_globals(self):
        np.random.seed(self.value % 2**32)
        random.seed(self.value)
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.manual_seed(self.value)


class SaltedNamespace(TimedNamespace):
    """A variant's functions under the time limit, each call with the run's salted streams."""

    def __init__(self, namespace: dict, salt: _Salt):
        super().__init__(namespace)
        self.salt = salt

    def get(self, key, default=None):
        fn = super().get(key, default)
        if not callable(fn):
            return fn

        def salted(*args, **kwargs):
            with self.salt.applied():
                return fn(*args, **kwargs)
        return salted


class _StreamPlugin:
    """pytest plugin: salting off in tests marked ``fixed_stream``; the tests' names and marks."""

    def __init__(self, salt: _Salt):
        self.salt = salt
        self.fixed: set[str] = set()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        fixed = item.get_closest_marker(FIXED_STREAM) is not None
        if fixed:
            self.fixed.add(item.name)
        self.salt.active = not fixed
        try:
            yield
        finally:
            self.salt.active = True


# -- another course seed, in-process ------------------------------------------------------------
@contextlib.contextmanager
def course_seed(assignment: str, seed: int):
    """``course_config.SEED = seed`` with the reference module ``solutions.<id>`` rendered for it
    (its PARAMS redrawn) and the hidden tests imported afresh; everything restored afterwards.
    Yields the reference module's code."""
    solutions = importlib.import_module("solutions")  # the course's package (autograder/__init__.py)
    name, tests = f"solutions.{assignment}", f"grading_tests.{assignment}.test_{assignment}"
    saved_seed = course_config.SEED
    saved_ref, saved_tests = sys.modules.get(name), sys.modules.get(tests)
    saved_attr = getattr(solutions, assignment, None)
    try:
        course_config.SEED = int(seed)
        code = module_text(load(assignment))
        module = types.ModuleType(name)
        module.__file__ = getattr(saved_ref, "__file__", None)
        exec(compile(code, f"<{name} for course seed {seed}>", "exec"), module.__dict__)  # noqa: S102 - course code
        sys.modules[name] = module
        setattr(solutions, assignment, module)
        sys.modules.pop(tests, None)
        yield code
    finally:
        course_config.SEED = saved_seed
        for key, value in ((name, saved_ref), (tests, saved_tests)):
            if value is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = value
        if saved_attr is not None:
            setattr(solutions, assignment, saved_attr)


def _deselect(only):
    class Deselect:
        def pytest_collection_modifyitems(self, items):
            items[:] = [i for i in items if i.name in only]
    return Deselect()


def sweep(assignment: str, n_seeds: int, *, budget: float = BUDGET, confidence: float = CONFIDENCE,
          tests: list[str] | None = None, variants: str = "all", log=print) -> dict:
    """Grade the reference and the ``alternative`` cells under ``n_seeds`` course seeds with
    re-drawn streams. ``tests``: only these hidden tests (default all); ``variants``: "all" or
    "reference". Returns the report (``report_lines`` prints it)."""
    src = load(assignment)
    alternatives = [] if variants == "reference" else variant_cells(src, "alternative")
    names = ["reference"] + [f"alternative: {desc}" for desc, _ in alternatives]
    per_test: dict[str, dict] = {}
    fixed: set[str] = set()
    base = int(course_config.SEED)
    for i in range(n_seeds):
        seed = base + 1 + i
        with course_seed(assignment, seed) as reference:
            for v, (variant, extra) in enumerate(zip(names, [""] + [code for _, code in alternatives])):
                salt = _Salt(seed * 1009 + v)
                salt.reseed_globals()
                ns = SaltedNamespace(namespace_of(assignment, reference + ("\n\n" + extra if extra else "")), salt)
                plugin = _StreamPlugin(salt)
                plugins = [plugin] + ([_deselect(set(tests))] if tests else [])
                results = run_hidden_tests(assignment, LocalStudent(ns), diagnose=False, plugins=plugins)
                fixed |= plugin.fixed
                for r in results:
                    t = per_test.setdefault(r.name, {"runs": 0, "failures": 0, "failed": []})
                    t["runs"] += 1
                    if not r.passed:
                        t["failures"] += 1
                        t["failed"].append({"course_seed": seed, "variant": variant, "message": r.message[:300]})
        log(f"        seeds: course seed {i + 1}/{n_seeds} graded "
            f"({sum(t['failures'] for t in per_test.values())} failures so far)")
    ok = True
    for name, t in per_test.items():
        t["rate"] = t["failures"] / t["runs"]
        t["lower"], t["upper"] = clopper_pearson(t["failures"], t["runs"], confidence)
        t["fixed_stream"] = name in fixed
        t["ok"] = t["lower"] <= budget
        ok &= t["ok"]
    return {"assignment": assignment, "seeds": n_seeds, "base_seed": base, "budget": budget,
            "confidence": confidence, "variants": names, "tests": per_test, "ok": ok}


def report_lines(report: dict) -> list[tuple[bool, str]]:
    """(ok, text) lines of a sweep: one per test that failed at least once, and a summary."""
    out = []
    conf = f"{100 * report['confidence']:g} %"
    for name, t in sorted(report["tests"].items()):
        if t["failures"]:
            text = (f"{name}: failed {t['failures']}/{t['runs']} runs (rate {t['rate']:.2g}, "
                    f"{conf} bounds {t['lower']:.2g}..{t['upper']:.2g}; budget {report['budget']:g})")
            out.append((t["ok"], text))
    runs = max((t["runs"] for t in report["tests"].values()), default=0)
    worst = max((t["upper"] for t in report["tests"].values() if not t["failures"]), default=None)
    out.append((report["ok"], f"false fails over {report['seeds']} course seeds x {len(report['variants'])} "
                              f"implementations ({runs} runs per test): "
                              f"{sum(bool(t['failures']) for t in report['tests'].values())} of "
                              f"{len(report['tests'])} tests ever failed"
                              + (f"; a test that never failed has rate < {worst:.2g} ({conf})" if worst else "")))
    return out
