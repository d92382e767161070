"""A grade as types (issue 33): one submission's ``GradeReport`` with its ``TestResult``s, and a
cohort's ``Record`` (the report with who submitted it) and ``CohortSummary``. They cross a process
boundary (the bounded child, the pool, a dask worker) and the record file as JSON, and nowhere
else: ``to_dict`` / ``from_dict`` are the only conversions.

A test's outcome is a ``Kind``, never a message to be parsed back.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from pathlib import Path

from autograder.run.diagnosis import Diagnosis, from_old_text, hints_of, words
from autograder.run.shown import Shown


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
# StudentError kinds of a process that could not answer (kept by a test credited afterwards)
TROUBLED_ERRORS = frozenset({"crashed", "timeout", "memory"})

# Records written before kinds: what the messages of those versions said (read there only).
_OLD_TIMEOUT = re.compile(r"did not finish within|ran past the time limit", re.IGNORECASE)
_OLD_MEMORY = re.compile(r"out of memory|killed", re.IGNORECASE)
_OLD_CRASH = re.compile(r"crashed|stopped the notebook|could not start", re.IGNORECASE)
_OLD_NOT_IMPLEMENTED = re.compile(r"is not implemented yet")
_OLD_UNREADABLE = re.compile(r"the notebook could not be read: ")


def _old_kind(data: dict) -> tuple[Kind, str]:
    """(kind, error) of a test in a record written before kinds, from its flags and message."""
    if data.get("passed"):
        return Kind.PASS, ""
    message = str(data.get("message", ""))
    error = ("invalid_notebook" if _OLD_UNREADABLE.search(message) else
             "timeout" if _OLD_TIMEOUT.search(message) else "memory" if _OLD_MEMORY.search(message) else
             "crashed" if _OLD_CRASH.search(message) else
             "not_implemented" if _OLD_NOT_IMPLEMENTED.search(message) else "")
    if data.get("carried_forward"):
        return Kind.CARRIED, error
    return STUDENT_ERROR_KINDS.get(error, Kind.STUDENT_ERROR) if error else Kind.FAIL, error


@functools.cache
def _names(cls) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


def _known(cls, data: dict) -> dict:
    """The keys of ``data`` that are fields of ``cls`` (records of older versions carry others)."""
    names = _names(cls)
    return {k: v for k, v in data.items() if k in names}


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class, wherever a test module imports it
    name: str
    points: float
    max_points: float
    passed: bool
    message: str
    detail: str = ""
    diagnoses: list[Diagnosis] = field(default_factory=list)  # failing tests: what the answers show (run/diagnose)
    carried_forward: str = ""  # failing tests credited: the note naming what the error follows from
    function: str = ""  # the graded function the test counts for (its points are advertised under it)
    charged_to: str = ""  # a failing test not credited: the function whose answer or exception failed it
    carried_from: list = field(default_factory=list)  # a credited test: the functions it follows from
    kind: Kind = Kind.FAIL
    error: str = ""  # a student error: the kind the grader gave it (``testing.StudentError.kind``)
    # a wrong answer: her value, its call, the expected value (run/shown.py); secret until grades
    # are published, so read only where a student reads after publication
    shown: Shown | None = None

    @property
    def troubled(self) -> bool:
        """The student's process could not answer: a timeout, a kill, a crash, or the grader stopped."""
        return self.kind in TROUBLE or self.error in TROUBLED_ERRORS

    @property
    def values(self) -> str:
        """A wrong answer's values in words (``Shown.text``), "" for a test passed or credited: the
        one rule every view applies; read only after publication (the views decide when)."""
        return self.shown.text() if self.shown is not None and not self.passed and not self.carried_forward else ""

    @property
    def not_implemented(self) -> bool:
        return self.error in ("not_implemented", "missing")

    @property
    def diagnosis(self) -> str:
        """The diagnoses in the words a student reads ("" for none)."""
        return words(self.diagnoses)

    def hint(self, tell: bool) -> str:
        """The diagnoses in the words a student reads where a known mistake is told (its rule
        text) or only led to (``tell``; decided by ``diagnosis.tells``)."""
        return words(self.diagnoses, tell)

    @property
    def named_hints(self) -> list[str]:
        """The catalogued mistakes the diagnoses name (their hints)."""
        return hints_of(self.diagnoses)

    def to_dict(self) -> dict:
        return {**asdict(self), "kind": self.kind.value, "diagnoses": [d.to_dict() for d in self.diagnoses],
                "shown": self.shown.to_dict() if self.shown is not None else None}

    @classmethod
    def from_dict(cls, data: dict) -> TestResult:
        old_text = data.get("diagnosis")
        data = _known(cls, data)
        if data.get("kind") is None:  # a record written before kinds: what its flags and message say
            data["kind"], data["error"] = _old_kind(data)
        diagnoses = ([Diagnosis.from_dict(d) for d in data["diagnoses"]] if data.get("diagnoses") is not None
                     else from_old_text(str(old_text or "")))  # a record written when they were sentences
        return cls(**{**data, "kind": Kind(data["kind"]), "carried_from": list(data.get("carried_from") or []),
                      "diagnoses": diagnoses, "shown": Shown.from_dict(data.get("shown"))})


@dataclass
class Answer:
    """A written answer, graded by hand: its question, the points the release gives it (never the
    submission's), the cell it was found in."""
    question: str
    points: float = 0.0
    cell: int | None = None
    text: str = ""
    missing: bool = False  # the notebook has no answer cell for the question
    blank: bool = False    # the cell is empty or still says the placeholder

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Answer:
        return cls(**{"question": "", **_known(cls, data)})


@dataclass(frozen=True)
class Check:
    """A public check as the student sees it: its description, passed or not, and why not.
    ``pending``: it could not run yet, a function it uses is still the release's stub (the
    message names it); a check that fails is not pending."""
    description: str
    passed: bool
    message: str = ""
    pending: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_data(cls, data) -> Check:
        """From a record: a dict, or the ``[description, passed, message]`` of records written
        before checks had a type (their "not yet: " prefix read here only)."""
        if isinstance(data, dict):
            return cls(**{"description": "", "passed": False, **_known(cls, data)})
        description, passed, message = (list(data) + ["", False, ""])[:3]
        pending = not passed and str(message).startswith("not yet: ")
        return cls(str(description), bool(passed), str(message).removeprefix("not yet: ") if pending else str(message),
                   pending)


@dataclass
class FunctionSubtotal:
    """Per graded function: the points the release advertises for it (its tests' points), and the
    points lost in this grade charged to it."""
    function: str
    max_points: float = 0.0
    lost: float = 0.0

    @classmethod
    def from_dict(cls, data: dict) -> FunctionSubtotal:
        return cls(**{"function": "", **_known(cls, data)})


@dataclass
class GradeReport:
    assignment: str
    submission: str
    score: float = 0.0
    max_score: float = 0.0
    tests: list[TestResult] = field(default_factory=list)
    errors: list = field(default_factory=list)
    version: str = ""
    manual: list[Answer] = field(default_factory=list)  # written answers, for grading by hand
    checks: list[Check] = field(default_factory=list)  # the public checks, when asked for
    public_notes: list = field(default_factory=list)  # the notes known before any hidden test ran
    score_without_carry_forward: float = 0.0  # the score had no error been carried forward
    functions: list[FunctionSubtotal] = field(default_factory=list)  # per graded function
    isolation: str = ""
    seconds: float = 0.0
    grader_mb: float = 0.0     # peak memory of the grader's side (the bounded child), for benchmarks
    grader_cpu_s: float = 0.0  # and its CPU time (the student's process not counted)

    @property
    def unfinished(self) -> bool:
        """Not graded in full: the notebook could not be read, or the grader stopped before every
        test had finished (or before any was collected)."""
        return not self.tests or self.unreadable or any(t.kind is Kind.NOT_GRADED for t in self.tests)

    @property
    def unreadable(self) -> bool:
        """The notebook could not be read (every test failed with that error)."""
        return any(t.error == "invalid_notebook" for t in self.tests)

    def to_dict(self) -> dict:
        return {**asdict(self), "tests": [t.to_dict() for t in self.tests]}

    @classmethod
    def from_dict(cls, data: dict) -> GradeReport:
        data = {"assignment": "", "submission": "", **_known(cls, data)}
        return cls(**{**data, "tests": [TestResult.from_dict(t) for t in data.get("tests") or []],
                      "manual": [Answer.from_dict(m) for m in data.get("manual") or []],
                      "checks": [Check.from_data(c) for c in data.get("checks") or []],
                      "functions": [FunctionSubtotal.from_dict(f) for f in data.get("functions") or []]})

    def write_json(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")
