"""A cohort's grades as types (issue 33): each student's ``Record`` (the ``GradeReport`` with who
submitted it, when, and what the roster says of her) and ``CohortSummary``, what ``grade_cohort``
returns. A record is JSON only in ``<out>/records/<student>.json`` and on its way back from a pool
or dask worker (``Record.from_dict`` / ``to_dict``); every other module reads attributes.

``from_dict`` reads the records of earlier versions: keys it does not know are ignored, keys they
lack take their defaults (tests' kinds: ``autograder.run.record``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from autograder.run.record import GradeReport

# What ``apply_roster`` sets for this run: never written to a record file.
ROSTER_FIELDS = ("roster_id", "section", "extension", "roster_match", "canvas_user_id", "sis_user_id", "sis_login_id")


@dataclass
class Record(GradeReport):
    """One student's grade in a cohort: the report, the file's hash, who submitted it (as found this
    run: a zip's extraction moves, a roster renames) and when."""
    student: str = ""
    sha256: str = ""                # of the submitted file: a rerun regrades a changed file
    name: str | None = ""           # as written (the roster's, where it has one)
    email: str | None = ""
    submitted_at: str | None = ""   # ISO 8601 UTC, where the layout says
    found_as: str = ""              # the student's name as found (file, folder, LMS id), before cleaning
    identity: str = ""              # the identity's key in <out>/ids.json
    lms: str = ""                   # "gradescope", "canvas", "moodle"; "" for a name found
    lms_id: str = ""                # that LMS's id of the student
    lms_late: bool | None = None    # the LMS's own late flag; None where it says nothing
    # from the roster, this run only (``autograder.cohort.roster.apply_roster``)
    roster_id: str = ""
    section: str = ""
    extension: Any = None           # days (float) or a date (datetime): ``late.personal_deadline``
    roster_match: str = ""          # how the roster row was matched ("student id", "email", ...)
    canvas_user_id: str = ""        # a Canvas roster's (gradebook export's) ID, SIS User ID, SIS Login ID:
    sis_user_id: str = ""           # what canvas.csv gives Canvas's import to match her by
    sis_login_id: str = ""
    # the grader failed on this submission twice (an exception, a set-up race, its child died): no
    # grade, whatever score says; the next run grades it again (``autograder.cohort.grade``)
    not_graded: str = ""

    @property
    def graded(self) -> bool:
        return not self.not_graded

    def to_dict(self) -> dict:
        data = super().to_dict()
        for name in ROSTER_FIELDS:
            data.pop(name)
        return data

    def with_(self, **changes) -> Record:
        """A copy with ``changes`` (the tests and answers shared, as a shallow copy)."""
        return replace(self, **changes)


@dataclass
class Absent:
    """A roster student without a submission (0, "no submission")."""
    student: str = ""
    roster_id: str = ""
    name: str = ""
    email: str = ""
    section: str = ""
    extension: Any = None
    canvas_user_id: str = ""        # as on Record: a Canvas roster's ID, SIS User ID, SIS Login ID
    sis_user_id: str = ""
    sis_login_id: str = ""


@dataclass
class CohortSummary:
    """What ``grade_cohort`` returns: a record per student found, in order, and what was done."""
    assignment: str
    version: str = ""
    graded: int = 0                 # graded in this run
    reused: int = 0                 # records of earlier runs (same file, same version)
    students: int = 0
    unmatched: list[str] = field(default_factory=list)  # found but not matched to a student
    results: list[Record] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)      # how ids were made, when not simply the name
    absent: list[Absent] = field(default_factory=list)  # the roster's students without a submission
    canvas_column: str = ""         # canvas.csv's assignment column as a Canvas roster's header names it

    @classmethod
    def from_dict(cls, data: dict) -> CohortSummary:
        """A summary from plain data (records as ``Record.from_dict`` reads them)."""
        names = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in names}
        return cls(**{**data, "results": [r if isinstance(r, Record) else Record.from_dict(r)
                                          for r in data.get("results") or []],
                      "absent": [a if isinstance(a, Absent) else Absent(**a) for a in data.get("absent") or []]})
