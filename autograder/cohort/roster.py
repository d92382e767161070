"""The course roster (``pdl grade-cohort --roster FILE``): who the students are, their names as
written, sections and extensions. Four layouts are read as they are, recognised by their header
(the first line; names in any case, cells trimmed); the command says which one it recognised:

- **The roster's own** (``roster``): ``id`` (required), ``name``, ``email``, ``section``,
  ``extension`` (a number of days, or a date and time as in course_config.DEADLINES), in any order;
  any other column is refused. Only this layout carries extensions.
- **Canvas's gradebook export** (``canvas``; Grades → Export, and ``canvas.csv`` as
  ``autograder.cohort.exports`` writes it): ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``
  (the two SIS columns only where the account shows them), ``Section``, then a column per
  assignment and Canvas's totals (ignored). ``id`` = ``ID`` (Canvas's user id, which a Canvas
  download carries), else ``SIS User ID``, else ``SIS Login ID``; the other two are also matched
  as a student id (an nbgrader folder named by the SIS id or login); ``name`` = ``Student`` as
  Canvas writes it ("Last, First"); ``email`` = ``SIS Login ID`` where it is an address;
  ``section`` = ``Section``. Not students: the "Points Possible" line, a line naming nobody (the
  "Muted" / "Manual Posting" line), Canvas's Test Student ("Student, Test" without an SIS id) and a
  line without any id (in a ``canvas.csv``, a submission that was on no roster). The ``ID``, ``SIS
  User ID`` and ``SIS Login ID`` of each row, and the assignment's column as the header names it
  (``ex3_2_nngp (123456)``: ``Roster.canvas_column``), go to ``canvas.csv`` as they are.
- **Moodle's participants export** (``moodle-participants``; Participants → Download table data
  as CSV): ``First name``, ``Last name`` (or ``Surname``), and the identity fields the site shows:
  ``ID number``, ``Username``, ``Email address``; ``Roles``, ``Groups``, ``Last access to
  course``, ... ignored but for these. ``id`` = ``ID number``, else ``Username``, else ``Email
  address`` (the others also matched as a student id); ``name`` = first and last name; ``email`` =
  ``Email address``; ``section`` = ``Groups``. Lines whose ``Roles`` are all staff (Teacher,
  Non-editing teacher, Manager) are not students. This export has no id that a Moodle download
  carries (its ``Participant`` id), so a Moodle download is matched to it by the student's full
  name, where that name is on one roster line and one submission only.
- **Moodle's offline grading worksheet** (``moodle-worksheet``; an assignment's "Download grading
  worksheet", and ``moodle.csv``): ``Identifier`` ("Participant 12345"), ``Full name``, ``Email
  address``, ``Status``, ``Grade``, ... ``id`` = the Identifier's number (Moodle's participant id,
  which a Moodle download carries); ``name`` = ``Full name``; ``email`` = ``Email address``;
  ``section`` = ``Group``/``Groups`` where there is one; ``ID number`` and ``Username`` where the
  site shows them are also matched as a student id.

A file saved by a spreadsheet may start with a byte-order mark and use ``;`` or tabs between cells.
A roster that cannot be read whole is refused with its line number, before anything is graded: a
header none of the four, no id column, a line with more or fewer cells than the header, an empty
or duplicate id or email, a bad extension, an extension date before the deadline.

A submission is matched to a roster row by the LMS's id of the student where the submission has
one (Gradescope, Canvas, Moodle), else by its student id (the row's id, or one of the other ids
above) or its email (case ignored); each row goes to one submission at most. A roster student
without a submission still gets a row in grades.csv and the exports (0, "no submission").
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import course_config
from autograder.cohort import exports, late
from autograder.cohort.layouts import _as_written
from autograder.cohort.record import Absent, CohortSummary

COLUMNS = ("id", "name", "email", "section", "extension")
MAX_BYTES = 20 * 2**20
FORMATS = {
    "roster": "the roster's own columns (id, name, email, section, extension)",
    "canvas": "Canvas's gradebook export",
    "moodle-participants": "Moodle's participants export",
    "moodle-worksheet": "Moodle's offline grading worksheet",
}
KNOWN = ("the roster's own (id, name, email, section, extension), or an LMS's export as it is: Canvas's "
         "gradebook export (Student, ID, SIS User ID, SIS Login ID, Section, ...), Moodle's participants "
         "(First name, Last name, ID number, Username, Email address, ...) or Moodle's grading worksheet "
         "(Identifier, Full name, Email address, Status, Grade, ...)")
STAFF = {"teacher", "non-editing teacher", "editingteacher", "manager", "course creator"}
TEST_STUDENT = {"student, test", "test student"}
READ = {*COLUMNS, "student", "sis user id", "sis login id", "identifier", "full name", "email address", "first name",
        "last name", "surname", "id number", "username", "roles", "groups", "group"}  # a column twice: refused
CANVAS_COLUMN = re.compile(r"(?P<name>.*?\S)\s*\((?P<id>[0-9]+)\)")  # an assignment's: "ex3_2_nngp (123456)"


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
    aliases: tuple[str, ...] = ()  # other ids of hers (an LMS export's SIS id, login, username)
    match_name: bool = False       # no id a download carries: matched by her name (Moodle's participants)
    canvas_user_id: str = ""       # Canvas's gradebook export: its ID, SIS User ID, SIS Login ID as they are
    sis_user_id: str = ""
    sis_login_id: str = ""


class Roster(list[Student]):
    """The roster's students (``Student``, in the file's order), and which layout it was read as:
    ``format`` (a key of FORMATS) and ``left_out`` (the lines that are not students, and why)."""

    def __init__(self, students=(), format: str = "roster", path: Path | None = None, left_out=(), columns=()):
        super().__init__(students)
        self.format = format
        self.path = path
        self.left_out: list[str] = list(left_out)
        self.columns: list[str] = list(columns)  # Canvas's assignment columns as its header names them

    def canvas_column(self, assignment: str) -> str:
        """The assignment's column in a Canvas export's header, as written (``ex3_2_nngp (123456)``):
        the one with its Canvas id (course_config.CANVAS_ASSIGNMENT_IDS), else the one named after it
        (case, spaces and punctuation ignored), where exactly one is; '' for none."""
        cid = str((getattr(course_config, "CANVAS_ASSIGNMENT_IDS", {}) or {}).get(assignment, "") or "")
        parsed = [(c, m) for c in self.columns if (m := CANVAS_COLUMN.fullmatch(c))]

        def fold(text: str) -> str:
            return re.sub(r"[\W_]+", "", text.casefold())

        for pick in (lambda m: m["id"] == cid, lambda m: m["name"].casefold() == assignment.casefold(),
                     lambda m: fold(m["name"]) == fold(assignment)):
            hits = [c for c, m in parsed if pick(m)]
            if len(hits) == 1:
                return hits[0]
        return ""

    def describe(self) -> str:
        """One line: the file, the layout recognised, how many students, what was left out."""
        shown = self.left_out[:3] + ([f"{len(self.left_out) - 3} more"] if len(self.left_out) > 3 else [])
        skipped = f"; not students: {'; '.join(shown)}" if shown else ""
        return f"{self.path or 'roster'}: {FORMATS[self.format]}, {len(self)} student(s){skipped}"


def _recognise(columns: list[str]) -> str | None:
    have = set(columns)
    if have <= set(COLUMNS):
        return "roster"
    if {"student", "id"} <= have and have & {"section", "sis user id", "sis login id"}:
        return "canvas"
    if {"identifier", "full name"} <= have:
        return "moodle-worksheet"
    if "first name" in have and have & {"last name", "surname"}:
        return "moodle-participants"
    return None


def _delimiter(text: str) -> str:
    first = text.split("\n", 1)[0]
    if "," not in first:
        for d in (";", "\t"):
            if d in first:
                return d
    return ","


def _first(row: dict, *keys: str) -> str:
    return next((row[k] for k in keys if row.get(k)), "")


def _others(row: dict, primary: str, *keys: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(row[k] for k in keys if row.get(k) and row[k].casefold() != primary.casefold()))


def _lms_row(kind: str, row: dict) -> dict | str:
    """An LMS export's line as the roster's fields (``id``, ``name``, ``email``, ``section``,
    ``aliases``, ``match_name``), or why it is not a student."""
    if kind == "canvas":
        name, ids = row.get("student", ""), ("id", "sis user id", "sis login id")
        if not any(row.get(k) for k in ids):
            if name.casefold() == "points possible":
                return '"Points Possible"'
            if not name:
                return "a line naming nobody"
            return f"{name!r} without an ID, SIS User ID or SIS Login ID"  # canvas.csv: not on a roster then
        if name.casefold() in TEST_STUDENT and not row.get("sis user id"):
            return "Canvas's Test Student"
        sid = _first(row, *ids)
        login = row.get("sis login id", "")
        return dict(id=sid, name=name, email=login if "@" in login else "", section=row.get("section", ""),
                    aliases=_others(row, sid, *ids), canvas_user_id=row.get("id", ""),
                    sis_user_id=row.get("sis user id", ""), sis_login_id=login)
    if kind == "moodle-participants":
        roles = {r.strip().casefold() for r in row.get("roles", "").split(",") if r.strip()}
        if roles and roles <= STAFF:
            return "staff"
        ids = ("id number", "username", "email address")
        sid = _first(row, *ids)
        name = " ".join(n for n in (row.get("first name", ""), _first(row, "last name", "surname")) if n)
        return dict(id=sid, name=name, email=row.get("email address", ""), section=row.get("groups", ""),
                    aliases=_others(row, sid, *ids), match_name=True)
    ident = row.get("identifier", "")
    m = re.search(r"([0-9]+)\s*$", ident)
    sid = m[1] if m else ident
    return dict(id=sid, name=row.get("full name", ""), email=row.get("email address", ""),
                section=_first(row, "group", "groups"), aliases=_others(row, sid, "id number", "username"))


def read_roster(path: Path, deadline=None) -> Roster:
    """The roster's students, in its order (a ``Roster``: a list that says which layout it was);
    RosterError (with the line) for anything malformed. ``deadline`` (naive UTC): a date
    extension must not be before it."""
    path = Path(path)
    if not path.exists():
        raise RosterError(f"{path} does not exist; give the roster's CSV file")
    if not path.is_file():
        raise RosterError(f"{path} is not a file; give the roster's CSV file")
    data = path.read_bytes()
    if len(data) > MAX_BYTES:
        raise RosterError(f"{path}: over {MAX_BYTES >> 20} MB; is it a roster?")
    try:
        text = data.decode("utf-8-sig")  # a spreadsheet's byte-order mark is fine
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise RosterError(f"{path}, line {line}: not UTF-8 text (save the roster as CSV UTF-8)") from None
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text))
    try:
        header = next(reader, None)
        if header is None:
            raise RosterError(f"{path}: empty; the first line names the columns: {KNOWN}")
        columns = [c.strip().casefold() for c in header]
        kind = _recognise(columns)
        assignments = [c.strip() for c in header if kind == "canvas" and CANVAS_COLUMN.fullmatch(c.strip())]
        if kind is None:
            unknown = next((c for c in columns if c not in COLUMNS), "")
            raise RosterError(f"{path}, line 1: unknown column {unknown!r}; a roster's header is {KNOWN}")
        for c in sorted(set(columns) & READ, key=columns.index):
            if columns.count(c) > 1:
                raise RosterError(f"{path}, line 1: the column {c!r} is there twice")
        if kind == "roster" and "id" not in columns:
            raise RosterError(f"{path}, line 1: no id column; the columns are {', '.join(COLUMNS)} (id required)")
        students: list[Student] = []
        left_out: list[str] = []
        ids: dict[str, int] = {}
        emails: dict[str, int] = {}
        start = reader.line_num + 1
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(columns):
                raise RosterError(f"{path}, line {line}: {len(cells)} cells, but the header names {len(columns)}"
                                  + ("" if len(cells) > len(columns) else
                                     " (a cell missing: every line needs a cell per column, empty or not)"))
            row = dict(zip(columns, (c.strip() for c in cells)))
            fields = dict(row) if kind == "roster" else _lms_row(kind, row)
            if isinstance(fields, str):
                left_out.append(f"line {line} ({fields})")
                continue
            sid = fields.get("id", "")
            if not sid:
                raise RosterError(f"{path}, line {line}: no id" + ("" if kind == "roster" else
                                  f" (none of the id columns of {FORMATS[kind]} has a value)"))
            if sid.casefold() in ids:
                raise RosterError(f"{path}, line {line}: the id {sid!r} is already on line {ids[sid.casefold()]}")
            ids[sid.casefold()] = line
            email = fields.get("email", "")
            if email and email.casefold() in emails:
                raise RosterError(f"{path}, line {line}: the email {email!r} is already on line "
                                  f"{emails[email.casefold()]}")
            if email:
                emails[email.casefold()] = line
            extension = fields.get("extension", "")
            try:
                parsed = late.parse_extension(extension)
            except ValueError as exc:
                raise RosterError(f"{path}, line {line}: {exc}") from None
            if deadline is not None and isinstance(parsed, dt.datetime) and parsed < deadline:
                raise RosterError(f"{path}, line {line}: the extension {extension!r} is before the deadline "
                                  f"({deadline:%Y-%m-%d %H:%M:%S} UTC)")
            students.append(Student(id=sid, name=_as_written(fields.get("name", "")), email=email,
                                    section=_as_written(fields.get("section", "")), extension=extension, line=line,
                                    aliases=tuple(fields.get("aliases", ())),
                                    match_name=bool(fields.get("match_name")),
                                    canvas_user_id=fields.get("canvas_user_id", ""),
                                    sis_user_id=fields.get("sis_user_id", ""),
                                    sis_login_id=fields.get("sis_login_id", "")))
    except csv.Error as exc:
        raise RosterError(f"{path}, line {reader.line_num}: {exc}") from None
    return Roster(students, kind, path, left_out, assignments)


def _name_key(text) -> str:
    return " ".join(unicodedata.normalize("NFC", str(text or "")).casefold().split())


def apply_roster(summary: CohortSummary, students: list[Student]) -> list[str]:
    """Match the roster to the records of ``summary`` (in place): a matched record takes the
    roster's name (as written), email (where given), section, extension and id (``roster_id``),
    and from Canvas's gradebook export its ID, SIS User ID and SIS Login ID as they are;
    ``summary.absent`` lists the roster's students without a submission, and
    ``summary.canvas_column`` is the assignment's column as Canvas's export names it (a note says
    where there is none, or where its id is not course_config.CANVAS_ASSIGNMENT_IDS'). Returns notes.

    A record with an LMS id is matched by it to a row's id; one without, by its student id (a row's
    id, else another id of one row only) or its email. Rows marked ``match_name`` (no id a download
    carries) take, last, a record not matched otherwise whose name is theirs, where the name is on
    one such row and one record only."""
    by_id = {s.id.casefold(): s for s in students}
    owners: dict[str, set[str]] = {}
    for s in students:
        for alias in s.aliases:
            if alias.casefold() not in by_id:
                owners.setdefault(alias.casefold(), set()).add(s.id)
    by_alias = {k: by_id[next(iter(v)).casefold()] for k, v in owners.items() if len(v) == 1}
    by_email = {s.email.casefold(): s for s in students if s.email}
    taken: dict[str, str] = {}
    notes: dict[int, str] = {}

    def match(i, rec, found, how) -> None:
        if found.id in taken:
            notes[i] = (f"{rec.student}: matches roster line {found.line} ({how}), which is already "
                        f"{taken[found.id]}'s; not matched")
            return
        notes.pop(i, None)
        taken[found.id] = rec.student
        rec.roster_id, rec.section, rec.extension, rec.roster_match = found.id, found.section, found.extension, how
        rec.canvas_user_id, rec.sis_user_id, rec.sis_login_id = found.canvas_user_id, found.sis_user_id, \
            found.sis_login_id
        if found.name:
            rec.name = found.name
        if found.email:
            rec.email = found.email

    for i, rec in enumerate(summary.results):
        if rec.lms_id:
            how, found = f"{rec.lms or 'LMS'} id", by_id.get(str(rec.lms_id).casefold())
        else:
            key = str(rec.student).casefold()
            how, found = "student id", by_id.get(key) or by_alias.get(key)
            if found is None and rec.email:
                how, found = "email", by_email.get(str(rec.email).casefold())
        if found is None:
            notes[i] = f"{rec.student}: not on the roster"
        else:
            match(i, rec, found, how)
    if any(s.match_name for s in students):
        named: dict[str, list[Student]] = {}
        for s in students:
            if s.match_name and s.id not in taken and _name_key(s.name):
                named.setdefault(_name_key(s.name), []).append(s)
        counts: dict[str, int] = {}
        for rec in summary.results:
            counts[_name_key(rec.name)] = counts.get(_name_key(rec.name), 0) + 1
        for i, rec in enumerate(summary.results):
            key = _name_key(rec.name)
            if rec.roster_id or not key or counts[key] != 1 or len(named.get(key, ())) != 1:
                continue
            if notes.get(i, "").endswith("not on the roster"):
                match(i, rec, named[key][0], "name")
    summary.absent = [Absent(student=s.id, roster_id=s.id, name=s.name, email=s.email, section=s.section,
                             extension=s.extension, canvas_user_id=s.canvas_user_id, sis_user_id=s.sis_user_id,
                             sis_login_id=s.sis_login_id)
                      for s in students if s.id not in taken]
    said = [notes[i] for i in sorted(notes)]
    if getattr(students, "format", "") == "canvas":
        summary.canvas_column = students.canvas_column(summary.assignment)
        cid = str((getattr(course_config, "CANVAS_ASSIGNMENT_IDS", {}) or {}).get(summary.assignment, "") or "")
        m = CANVAS_COLUMN.fullmatch(summary.canvas_column)
        if not m and students.columns:
            shown = ", ".join(repr(c) for c in students.columns[:5]) + (", ..." if len(students.columns) > 5 else "")
            fallback = exports.canvas_column(summary.assignment)
            said.append(f"the roster has no column of {summary.assignment} ({shown}); canvas.csv's column is "
                        f"{fallback!r}" + ("" if CANVAS_COLUMN.fullmatch(fallback) else " (Canvas matches it by name)"))
        elif m and cid and m["id"] != cid:
            said.append(f"canvas.csv's column is {summary.canvas_column!r}, as the roster's header names it; "
                        f"course_config.CANVAS_ASSIGNMENT_IDS gives {summary.assignment} the id {cid}")
    return said
