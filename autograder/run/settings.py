"""The engine's settings in one place (issue 33): ``course_config``, the environment and the flags,
read into one ``Settings`` object with documented fields; budgets derived from the limits are
properties of ``Limits``.

Precedence: a flag (``pdl grade --timeout``) over the environment (``PDL_TIMEOUT_S``) over
``course_config`` over the default (``schema``). ``Settings.load()`` reads the environment anew at each
call (tests and the Gradescope zip set variables at run time); it is cheap.

Every name of ``course_config`` and every ``PDL_*`` environment variable is declared once, with
its type, default and what it does, in ``autograder/run/schema.py``; docs/settings.md's tables are
rendered from it. ``Settings.load()`` refuses (``schema.SettingsError``, a ``ValueError``: one line
saying what to fix) an unknown name or variable, or a value of the wrong type, each time it builds
settings, as ``pdl`` does before every command.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field, replace

import course_config
from autograder.run import schema
from autograder.run.schema import HINT_MODES  # noqa: F401 - settings.HINT_MODES, for older imports

DIAGNOSIS_BUDGET_S = 60.0  # all diagnoses of one submission (``run.diagnose``)
CARRY_BUDGET_S = 120.0     # all re-runs that carry errors forward for one submission (``run.carry``)
GRADER_SLACK_S = 120.0     # the grader's own work on one submission, beyond the student's time
WALL_FACTOR = float(schema.default("PDL_WALL_FACTOR"))  # wall clock per second of a time limit (of CPU time)
WALL_SLACK_S = 10.0        # and this much more (a start, a short limit on a busy host)
_OFF = schema.FLAG_OFF


def _flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None or not value.strip() else value.strip().lower() not in _OFF


def _number(name: str, default, kind=float):
    value = os.environ.get(name)
    return kind(value) if value and value.strip() else default


def _wall_factor() -> float:
    factor = _number("PDL_WALL_FACTOR", WALL_FACTOR)
    if not factor >= 1:  # NaN included
        raise ValueError(f"PDL_WALL_FACTOR must be a number >= 1, not {os.environ.get('PDL_WALL_FACTOR')!r}")
    return factor


def _hint_mode() -> str:
    """``PDL_HINTS`` over ``course_config.HINTS`` (one of ``HINT_MODES``: ``Settings.load`` checked)."""
    return (os.environ.get("PDL_HINTS") or "").strip() or str(schema.course_value(course_config, "HINTS"))


@dataclass(frozen=True)
class Limits:
    """What one submission may use. The time limits count the CPU time of the student's process
    (and of every process it started), measured by the grader, so that a busy host does not make
    a correct notebook late; wall clock is only their outer bound (``wall_s``)."""
    timeout_s: float = float(schema.default("TIMEOUT_S"))            # running the notebook (CPU seconds)
    call_timeout_s: float = float(schema.default("CALL_TIMEOUT_S"))  # one call of a student's function (CPU s)
    memory_mb: int | None = schema.default("MEMORY_MB")              # the student's address space; None: no cap
    # wall clock per second of a time limit; read from the environment where not given
    wall_factor: float = field(default_factory=_wall_factor)

    @property
    def cpu_s(self) -> int:
        """CPU seconds of one student process in all (``RLIMIT_CPU``): a backstop behind the time
        limits of the notebook and of each call (threads add up)."""
        return int(2 * self.timeout_s + 40 * self.call_timeout_s)

    def wall_s(self, seconds: float) -> float:
        """The wall clock allowed for a time limit of ``seconds`` CPU seconds: a generous outer
        bound (a student's process asleep, or starved by a host many times over its cores)."""
        return wall_bound(seconds, self.wall_factor)

    @property
    def grader_s(self) -> float:
        """Wall clock for all of one submission's grading (``grading.grade``'s bounded child): the
        student's CPU budget, the diagnoses, the re-runs that carry errors forward, and slack."""
        return self.cpu_s + DIAGNOSIS_BUDGET_S + CARRY_BUDGET_S + GRADER_SLACK_S


@dataclass(frozen=True)
class Settings:
    """Everything the engine reads from ``course_config``, the environment and the flags."""
    limits: Limits = field(default_factory=Limits)
    isolation: str | None = None    # None: namespace
    warm: bool = True
    diagnose: bool = True
    carry_forward: bool = True
    hints: str = schema.default("HINTS")  # one of HINT_MODES
    published: bool = False         # grades are published (the cohort's feedback pages are written for then)
    chromium: str | None = None
    autograder_dir: str = "/autograder"

    @classmethod
    def load(cls, *, timeout_s: float | None = None, call_timeout_s: float | None = None,
             memory_mb: int | None = None, isolation: str | None = None) -> Settings:
        """The settings now: each flag given (not None) over the environment over ``course_config``.
        The environment and course_config are checked first (``schema``: ``SettingsError``)."""
        schema.check_environment()
        schema.check_module(course_config)
        config = functools.partial(schema.course_value, course_config)
        limits = Limits(
            timeout_s=timeout_s or _number("PDL_TIMEOUT_S", float(config("TIMEOUT_S"))),
            call_timeout_s=call_timeout_s or _number("PDL_CALL_TIMEOUT_S", float(config("CALL_TIMEOUT_S"))),
            memory_mb=memory_mb or _number("PDL_MEMORY_MB", config("MEMORY_MB"), int))
        return cls(limits=limits,
                   isolation=isolation or (os.environ.get("PDL_ISOLATION") or "").strip() or None,
                   warm=_flag("PDL_WARM", schema.default("PDL_WARM")),
                   diagnose=_flag("PDL_DIAGNOSE", schema.default("PDL_DIAGNOSE")),
                   carry_forward=_flag("PDL_CARRY_FORWARD", bool(config("CARRY_FORWARD"))),
                   hints=_hint_mode(),
                   published=_flag("PDL_PUBLISHED", schema.default("PDL_PUBLISHED")),
                   chromium=os.environ.get("PDL_CHROMIUM") or None,
                   autograder_dir=os.environ.get("PDL_AUTOGRADER_DIR") or schema.default("PDL_AUTOGRADER_DIR"))

    def with_limits(self, **changes) -> Settings:
        return replace(self, limits=replace(self.limits, **changes))


def wall_bound(seconds: float, factor: float | None = None) -> float:
    """Wall-clock seconds allowed for a time limit of ``seconds`` CPU seconds (``Limits.wall_s``)."""
    return (_wall_factor() if factor is None else factor) * seconds + WALL_SLACK_S


def current() -> Settings:
    """The settings from ``course_config`` and the environment, no flags."""
    return Settings.load()
