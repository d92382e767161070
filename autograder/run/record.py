"""A grade as types (issue 33): one submission's ``GradeReport`` with its ``TestResult``s, and a
cohort's ``Record`` (the report with who submitted it) and ``CohortSummary``. They cross a process
boundary (the bounded child, the pool, a dask worker) and the record file as JSON, and nowhere
else: ``to_dict`` / ``from_dict`` are the only conversions.

A test's outcome is a ``Kind``, never a message to be parsed back.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from pathlib import Path


class Kind(str, Enum):
    """What became of one hidden test."""
    PASS = "pass"
    FAIL = "fail"                    # the student's answer was wrong
    CARRIED = "carried"              # it failed, and keeps its points: the error carried forward
    STUDENT_ERROR = "student error"  # the student's function raised, is missing or not implemented, or crashed
    TIMEOUT = "timeout"              # the student's function or notebook ran past its time limit
    MEMORY = "memory"                # the student's process was killed (its memory limit, or out of memory)
    NOT_GRADED = "not graded"        # the grader stopped before the test finished

    def __str__(self) -> str:
        return self.value


# The student's process could not answer at all (not a wrong answer nor one exception of theirs).
TROUBLE = frozenset({Kind.TIMEOUT, Kind.MEMORY, Kind.NOT_GRADED})
STUDENT_ERROR_KINDS = {"timeout": Kind.TIMEOUT, "memory": Kind.MEMORY}  # StudentError.kind -> Kind


def _known(cls, data: dict) -> dict:
    """The keys of ``data`` that are fields of ``cls`` (records of older versions carry others)."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass
class TestResult:
    name: str
    points: float
    max_points: float
    passed: bool
    message: str
    detail: str = ""
    diagnosis: str = ""  # failing tests: the mistake the answers match (autograder/run/diagnose)
    carried_forward: str = ""  # failing tests credited: the note naming what the error follows from
    function: str = ""  # the graded function the test counts for (its points are advertised under it)
    charged_to: str = ""  # a failing test not credited: the function whose answer or exception failed it
    carried_from: list = field(default_factory=list)  # a credited test: the functions it follows from
    kind: Kind = Kind.FAIL
    error: str = ""  # a student error: the kind the grader gave it (``testing.StudentError.kind``)

    @property
    def troubled(self) -> bool:
        """The student's process could not answer: a timeout, a kill, a crash, or the grader stopped."""
        return self.kind in TROUBLE or self.error == "crashed"

    @property
    def not_implemented(self) -> bool:
        return self.error in ("not_implemented", "missing")

    def to_dict(self) -> dict:
        return {**asdict(self), "kind": self.kind.value}

    @classmethod
    def from_dict(cls, data: dict) -> TestResult:
        data = _known(cls, data)
        kind = data.get("kind")
        if kind is None:  # a record written before kinds: what its flags say
            kind = Kind.PASS if data.get("passed") else Kind.CARRIED if data.get("carried_forward") else Kind.FAIL
        return cls(**{**data, "kind": Kind(kind), "carried_from": list(data.get("carried_from") or [])})


@dataclass
class GradeReport:
    assignment: str
    submission: str
    score: float = 0.0
    max_score: float = 0.0
    tests: list[TestResult] = field(default_factory=list)
    errors: list = field(default_factory=list)
    version: str = ""
    manual: list = field(default_factory=list)  # written answers, for grading by hand
    checks: list = field(default_factory=list)  # public checks [description, passed, message], when asked for
    public_notes: list = field(default_factory=list)  # the notes known before any hidden test ran
    score_without_carry_forward: float = 0.0  # the score had no error been carried forward
    functions: list = field(default_factory=list)  # per graded function: points advertised, points lost
    isolation: str = ""
    seconds: float = 0.0
    grader_mb: float = 0.0     # peak memory of the grader's side (the bounded child), for benchmarks
    grader_cpu_s: float = 0.0  # and its CPU time (the student's process not counted)

    def to_dict(self) -> dict:
        return {**asdict(self), "tests": [t.to_dict() for t in self.tests]}

    @classmethod
    def from_dict(cls, data: dict) -> GradeReport:
        data = _known(cls, data)
        return cls(**{**data, "tests": [TestResult.from_dict(t) for t in data.get("tests") or []]})

    def write_json(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")
