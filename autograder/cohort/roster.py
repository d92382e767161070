"""The course roster (``pdl grade-cohort --roster roster.csv``): who the students are, their names
as written, sections and extensions.

Columns (a header line, names in any case and order): ``id`` (required), ``name``, ``email``,
``section``, ``extension`` (a number of days, or a date and time as in course_config.DEADLINES);
any other column is refused. A roster that cannot be read whole (no id column, an empty or
duplicate id or email, a bad extension, a line with more cells than the header) is refused with
its line number, before anything is graded.

A submission is matched to a roster row by the LMS's id of the student where the submission has
one (Gradescope, Canvas, Moodle), else by its student id or its email (case ignored); each row
goes to one submission at most. A roster student without a submission still gets a row in
grades.csv and the exports (0, "no submission").
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass
from pathlib import Path

from autograder.cohort import late
from autograder.cohort.layouts import _as_written
from autograder.cohort.record import Absent, CohortSummary

COLUMNS = ("id", "name", "email", "section", "extension")
MAX_BYTES = 20 * 2**20


class RosterError(ValueError):
    """The roster cannot be used as it is (the message names the file and the line)."""


@dataclass(frozen=True)
class Student:
    id: str
    name: str = ""
    email: str = ""
    section: str = ""
    extension: str = ""
    line: int = 0


def read_roster(path: Path, deadline=None) -> list[Student]:
    """The roster's students, in its order; RosterError (with the line) for anything malformed.
    ``deadline`` (naive UTC): a date extension must not be before it."""
    path = Path(path)
    data = path.read_bytes()
    if len(data) > MAX_BYTES:
        raise RosterError(f"{path}: over {MAX_BYTES >> 20} MB; is it a roster?")
    try:
        text = data.decode("utf-8-sig")  # a spreadsheet's byte-order mark is fine
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise RosterError(f"{path}, line {line}: not UTF-8 text (save the roster as CSV UTF-8)") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise RosterError(f"{path}: empty; the first line names the columns ({', '.join(COLUMNS)})")
        columns = [c.strip().casefold() for c in header]
        for c in columns:
            if c not in COLUMNS:
                raise RosterError(f"{path}, line 1: unknown column {c!r}; the columns are {', '.join(COLUMNS)}")
            if columns.count(c) > 1:
                raise RosterError(f"{path}, line 1: the column {c!r} is there twice")
        if "id" not in columns:
            raise RosterError(f"{path}, line 1: no id column; the columns are {', '.join(COLUMNS)} (id required)")
        students: list[Student] = []
        ids: dict[str, int] = {}
        emails: dict[str, int] = {}
        start = reader.line_num + 1
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not any(c.strip() for c in cells):
                continue
            if len(cells) > len(columns):
                raise RosterError(f"{path}, line {line}: {len(cells)} cells, but the header names {len(columns)}")
            row = dict(zip(columns, (c.strip() for c in cells)))
            sid = row.get("id", "")
            if not sid:
                raise RosterError(f"{path}, line {line}: no id")
            if sid.casefold() in ids:
                raise RosterError(f"{path}, line {line}: the id {sid!r} is already on line {ids[sid.casefold()]}")
            ids[sid.casefold()] = line
            email = row.get("email", "")
            if email and email.casefold() in emails:
                raise RosterError(f"{path}, line {line}: the email {email!r} is already on line "
                                  f"{emails[email.casefold()]}")
            if email:
                emails[email.casefold()] = line
            extension = row.get("extension", "")
            try:
                parsed = late.parse_extension(extension)
            except ValueError as exc:
                raise RosterError(f"{path}, line {line}: {exc}") from None
            if deadline is not None and isinstance(parsed, dt.datetime) and parsed < deadline:
                raise RosterError(f"{path}, line {line}: the extension {extension!r} is before the deadline "
                                  f"({deadline:%Y-%m-%d %H:%M:%S} UTC)")
            students.append(Student(id=sid, name=_as_written(row.get("name", "")), email=email,
                                    section=_as_written(row.get("section", "")), extension=extension, line=line))
    except csv.Error as exc:
        raise RosterError(f"{path}, line {reader.line_num}: {exc}") from None
    return students


def apply_roster(summary: CohortSummary, students: list[Student]) -> list[str]:
    """Match the roster to the records of ``summary`` (in place): a matched record takes the
    roster's name (as written), email (where given), section, extension and id (``roster_id``);
    ``summary.absent`` lists the roster's students without a submission. Returns notes."""
    by_id = {s.id.casefold(): s for s in students}
    by_email = {s.email.casefold(): s for s in students if s.email}
    taken: dict[str, str] = {}
    notes: list[str] = []
    for rec in summary.results:
        if rec.lms_id:
            how, found = f"{rec.lms or 'LMS'} id", by_id.get(str(rec.lms_id).casefold())
        else:
            how, found = "student id", by_id.get(str(rec.student).casefold())
            if found is None and rec.email:
                how, found = "email", by_email.get(str(rec.email).casefold())
        if found is None:
            notes.append(f"{rec.student}: not on the roster")
            continue
        if found.id in taken:
            notes.append(f"{rec.student}: matches roster line {found.line} ({how}), which is already "
                         f"{taken[found.id]}'s; not matched")
            continue
        taken[found.id] = rec.student
        rec.roster_id, rec.section, rec.extension, rec.roster_match = found.id, found.section, found.extension, how
        if found.name:
            rec.name = found.name
        if found.email:
            rec.email = found.email
    summary.absent = [Absent(student=s.id, roster_id=s.id, name=s.name, email=s.email, section=s.section,
                             extension=s.extension)
                      for s in students if s.id not in taken]
    return notes
