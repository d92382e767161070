"""The engine's settings in one place (issue 33): ``course_config``, the environment and the flags,
read into one ``Settings`` object with documented fields; budgets derived from the limits are
properties of ``Limits``.

Precedence: a flag (``pdl grade --timeout``) over the environment (``PDL_TIMEOUT_S``) over
``course_config`` over the default here. ``Settings.load()`` reads the environment anew at each
call (tests and the Gradescope zip set variables at run time); it is cheap.

Every environment variable the engine reads:

| variable | field | default | what |
|---|---|---|---|
| `PDL_TIMEOUT_S` | `limits.timeout_s` | `course_config.TIMEOUT_S` (300) | seconds for running the notebook |
| `PDL_CALL_TIMEOUT_S` | `limits.call_timeout_s` | `course_config.CALL_TIMEOUT_S` (60) | seconds for one call |
| `PDL_MEMORY_MB` | `limits.memory_mb` | `course_config.MEMORY_MB` (4096) | address space of each side, MB |
| `PDL_WALL_FACTOR` | `limits.wall_factor` | `4` | wall clock allowed per second of a time limit (an outer bound) |
| `PDL_ISOLATION` | `isolation` | `namespace` | `namespace`, `account` or `process` (see `run/isolation.py`) |
| `PDL_WARM` | `warm` | `1` | `0`: every student process starts cold (no warm template) |
| `PDL_DIAGNOSE` | `diagnose` | `1` | `0`: no diagnosis of failing tests |
| `PDL_CARRY_FORWARD` | `carry_forward` | `course_config.CARRY_FORWARD` (on) | `0`: no error carried forward |
| `PDL_HINTS` | `hints` | `course_config.HINTS` | when a student reads a known mistake's rule text |
| `PDL_PUBLISHED` | `published` | `0` | `1`: feedback pages written for after publication |
| `PDL_CHROMIUM` | `chromium` | found on `PATH` | the browser for page screenshots |
| `PDL_AUTOGRADER_DIR` | `autograder_dir` | `/autograder` | the Gradescope zip's folder |
| `PDL_COURSE_DIR` | (`autograder.COURSE_DIR`) | the checkout | the course an installed engine grades (read at import) |
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import course_config

DIAGNOSIS_BUDGET_S = 60.0  # all diagnoses of one submission (``run.diagnose``)
CARRY_BUDGET_S = 120.0     # all re-runs that carry errors forward for one submission (``run.carry``)
GRADER_SLACK_S = 120.0     # the grader's own work on one submission, beyond the student's time
WALL_FACTOR = 4.0          # wall clock per second of a student's time limit (which counts CPU time)
WALL_SLACK_S = 10.0        # and this much more (a start, a short limit on a busy host)
_OFF = ("0", "false", "no", "off")
# When a student reads the rule text of a known mistake (its catalogued hint); before that, and
# always for "lead", she reads the lead: the place and the symptom (``run.diagnosis.tells``).
HINT_MODES = ("lead", "tell-after-publication", "tell-on-resubmission")


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
    mode = (os.environ.get("PDL_HINTS") or "").strip() or str(getattr(course_config, "HINTS", HINT_MODES[1]))
    if mode not in HINT_MODES:
        raise ValueError(f"HINTS (course_config) or PDL_HINTS must be one of {', '.join(HINT_MODES)}, not {mode!r}")
    return mode


@dataclass(frozen=True)
class Limits:
    """What one submission may use. The time limits count the CPU time of the student's process
    (and of every process it started), measured by the grader, so that a busy host does not make
    a correct notebook late; wall clock is only their outer bound (``wall_s``)."""
    timeout_s: float = 300.0        # running the notebook (CPU seconds)
    call_timeout_s: float = 60.0    # one call of a student's function (CPU seconds)
    memory_mb: int | None = 4096    # address space of the student's process; None: no cap
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
    hints: str = "tell-after-publication"  # one of HINT_MODES
    published: bool = False         # grades are published (the cohort's feedback pages are written for then)
    chromium: str | None = None
    autograder_dir: str = "/autograder"

    @classmethod
    def load(cls, *, timeout_s: float | None = None, call_timeout_s: float | None = None,
             memory_mb: int | None = None, isolation: str | None = None) -> Settings:
        """The settings now: each flag given (not None) over the environment over ``course_config``."""
        limits = Limits(
            timeout_s=timeout_s or _number("PDL_TIMEOUT_S", float(getattr(course_config, "TIMEOUT_S", 300))),
            call_timeout_s=call_timeout_s or _number("PDL_CALL_TIMEOUT_S",
                                                     float(getattr(course_config, "CALL_TIMEOUT_S", 60))),
            memory_mb=memory_mb or _number("PDL_MEMORY_MB", getattr(course_config, "MEMORY_MB", 4096), int))
        return cls(limits=limits,
                   isolation=isolation or os.environ.get("PDL_ISOLATION") or None,
                   warm=_flag("PDL_WARM", True),
                   diagnose=_flag("PDL_DIAGNOSE", True),
                   carry_forward=_flag("PDL_CARRY_FORWARD", bool(getattr(course_config, "CARRY_FORWARD", True))),
                   hints=_hint_mode(),
                   published=_flag("PDL_PUBLISHED", False),
                   chromium=os.environ.get("PDL_CHROMIUM") or None,
                   autograder_dir=os.environ.get("PDL_AUTOGRADER_DIR") or "/autograder")

    def with_limits(self, **changes) -> Settings:
        return replace(self, limits=replace(self.limits, **changes))


def wall_bound(seconds: float, factor: float | None = None) -> float:
    """Wall-clock seconds allowed for a time limit of ``seconds`` CPU seconds (``Limits.wall_s``)."""
    return (_wall_factor() if factor is None else factor) * seconds + WALL_SLACK_S


def current() -> Settings:
    """The settings from ``course_config`` and the environment, no flags."""
    return Settings.load()
