"""The TA's hand scores for written answers: two places to type them, one merged result.

A TA grades written answers either in ``<out>/written_scores.csv`` (columns ``score`` and
``comment``) or in nbgrader's formgrader on the same gradebook (the manual grade and comment
of the ``written_k`` cells). Each run of ``pdl grade-cohort`` merges both, then writes the
merged values back to both, and into ``grades.csv`` and the feedback pages.

**Which edit wins.** pdl remembers what it last wrote to each side
(``<out>/hand_scores.json``, per gradebook URL). A value that differs from that is an *edit*
on that side. Score and comment are merged separately, for each student and question:

* an edit on one side only: it wins;
* edits on both sides that agree: nothing to decide;
* edits on both sides that differ (a conflict): the side whose file was modified last wins
  (``written_scores.csv``'s modification time against the gradebook's sqlite file; a gradebook
  that is not a file counts as modified now). The other value is not lost: it goes to
  ``<out>/hand_score_conflicts.csv`` and is printed;
* no edit: the value pdl last wrote stands (also when a row was deleted from the CSV).

Nothing typed is dropped: a score that is not a number from 0 to the question's points stays
in the CSV as typed (it is reported, and not counted), rows of students absent from a run are
kept, and a gradebook that cannot be read leaves the CSV's values in charge.

**A hand score holds only while its answer is unchanged.** With each score and comment pdl keeps
a hash of the answer text it was given for (``answer_hash``): a score typed since the last run
was given for the answer that run showed; one carried over keeps its hash. When the answer in
hand differs (the student resubmitted a changed answer), the score and comment are cleared on
both sides (the answer is back to "to grade") and kept as the *previous grading (answer changed
since)*, which ``written.html`` and ``written_scores.csv`` show until the new answer is scored.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course import nbgrader as nbgrader_course

FIELDS = ("score", "comment")
ANSWER_FIELDS = ("shown", "graded", "previous_score", "previous_comment")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


# -- CSV cells that a spreadsheet would run as formulas -----------------------------------
def csv_cell(value):
    """A value for a CSV cell; text starting with ``= + - @`` (or tab, CR) gets a leading ``'``
    so a spreadsheet shows it as text instead of running it (OWASP's CSV-injection rule)."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_uncell(value: str | None) -> str:
    """Undo ``csv_cell`` on a value read back."""
    value = value or ""
    if value.startswith("'") and value[1:2] and value[1] in "=+-@\t\r":
        return value[1:]
    return value


def write_rows(path: Path, rows: list[list]) -> None:
    buf = io.StringIO()
    csv.writer(buf).writerows([[csv_cell(v) for v in row] for row in rows])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(buf.getvalue(), encoding="utf-8")  # names as written, whatever the locale
    os.replace(tmp, path)


# -- values --------------------------------------------------------------------------------
def _norm(fieldname: str, value) -> str:
    text = "" if value is None else str(value).replace("\r\n", "\n").strip()
    if fieldname == "score" and text:
        number = parse_number(text)
        if number is not None:
            return f"{number:g}"
    return text


def parse_number(text: str) -> float | None:
    text = str(text).strip()
    if text.count(",") == 1 and "." not in text:  # 2,5 (decimal comma)
        text = text.replace(",", ".")
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None


Key = tuple  # (student, question)


@dataclass
class HandScores:
    """Merged values for each (student, question): {"score": str, "comment": str}."""
    values: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)     # scores that are not usable, unreadable sides
    conflicts: list = field(default_factory=list)    # both sides edited differently
    edits: dict = field(default_factory=lambda: {"csv": 0, "gradebook": 0})  # answers edited there
    previous: dict = field(default_factory=dict)     # key -> {"score", "comment"} of a changed answer
    stale: list = field(default_factory=list)        # keys whose answer changed since scored, this run
    answers: dict | None = None                      # State.answers to keep (None: not merged with hashes)

    def get(self, student: str, question: str) -> dict:
        return self.values.get((student, question), {"score": "", "comment": ""})

    def points(self, student: str, question: str, max_points: float) -> float | None:
        """The TA's score as a number, or None when none (or no usable one) was entered."""
        text = self.get(student, question)["score"]
        number = parse_number(text) if text else None
        if number is None or not 0 <= number <= float(max_points) + 1e-9:
            return None
        return number


def answer_hash(text) -> str:
    """A written answer's fingerprint (line endings and surrounding blanks ignored)."""
    norm = str(text or "").replace("\r\n", "\n").strip()
    return hashlib.sha256(norm.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def read_csv_scores(path: Path) -> dict:
    """(student, question) -> {"score", "comment"} from written_scores.csv (rows as typed), read by
    the header's names: with or without the ``name`` column, in any order."""
    out = {}
    if not path.exists():
        return out
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row in csv.DictReader(f):
            student, question = csv_uncell(row.get("student")), csv_uncell(row.get("question"))
            if student and question:
                out[(student, question)] = {"score": csv_uncell(row.get("score")).strip(),
                                            "comment": csv_uncell(row.get("comment"))}
    return out


def read_csv_names(path: Path) -> dict:
    """student -> name from written_scores.csv's ``name`` column ({} without the file or the column)."""
    out: dict = {}
    if not path.exists():
        return out
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row in csv.DictReader(f):
            student, name = csv_uncell(row.get("student")), csv_uncell(row.get("name"))
            if student and name:
                out.setdefault(student, name)
    return out


def sqlite_file(db_url: str) -> Path | None:
    if db_url and db_url.startswith("sqlite:///"):
        return Path(db_url[len("sqlite:///"):])
    return None


def read_gradebook_scores(assignment: str, db_url: str) -> dict:
    """(student, question) -> {"score", "comment"}: the manual grades and comments of the
    written-answer cells (markdown grade cells) in nbgrader's gradebook; {} if it has none.
    Read in bulk: one query for the cells, one for the grades, one for the comments (nbgrader's
    API loads each submission's grades and cells one by one)."""
    from nbgrader.api import (  # heavy (nbgrader, SQLAlchemy): only with a gradebook
        Assignment,
        BaseCell,
        Comment,
        Grade,
        Gradebook,
        Notebook,
        SubmittedAssignment,
        SubmittedNotebook,
    )
    from sqlalchemy import select  # heavy (SQLAlchemy, nbgrader's): only with a gradebook
    from sqlalchemy.orm import with_polymorphic  # heavy, as above

    db = sqlite_file(db_url)
    if db is not None and not db.exists():
        return {}
    nbgrader_course.ensure_alembic_on_path()
    out = {}
    with Gradebook(db_url) as gb:
        session = gb.db
        found = session.query(Assignment.id).filter(Assignment.name == assignment).one_or_none()
        if found is None:
            return {}
        cells = session.query(with_polymorphic(BaseCell, "*")).join(Notebook, BaseCell.notebook_id == Notebook.id) \
            .filter(Notebook.assignment_id == found.id).all()
        names = {cell.id: cell.name for cell in cells}
        # a grade cell or task cell of a written answer (a solution cell has no cell_type)
        written = {cell.id for cell in cells if getattr(cell, "cell_type", None) == "markdown"}
        notebooks = select(SubmittedNotebook.id).join(
            SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id).where(
            SubmittedAssignment.assignment_id == found.id)
        comments = {(nb, names.get(cell)): text for nb, cell, text in session.execute(
            select(Comment.notebook_id, Comment.cell_id, Comment.manual_comment).where(
                Comment.notebook_id.in_(notebooks)))}
        for student, nb, cell, score in session.execute(
                select(SubmittedAssignment.student_id, Grade.notebook_id, Grade.cell_id, Grade.manual_score)
                .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
                .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
                .where(SubmittedAssignment.assignment_id == found.id)):
            if cell in written:
                name = names[cell]
                out[(student, name)] = {"score": "" if score is None else f"{score:g}",
                                        "comment": comments.get((nb, name)) or ""}
    return out


class State:
    """What pdl last wrote to each side: ``<out>/hand_scores.json``."""

    def __init__(self, path: Path):
        self.path = path
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {}
        self.csv = self._load(data.get("csv"))
        self.gradebooks = {url: self._load(v) for url, v in (data.get("gradebooks") or {}).items()}
        # (student, question) -> {"shown": hash of the answer last shown, "graded": hash the score and
        # comment were given for, "previous_score", "previous_comment": the grading of a changed answer}
        self.answers = {}
        for key, value in (data.get("answers") or {}).items():
            student, _, question = key.partition("\t")
            if isinstance(value, dict):
                self.answers[(student, question)] = {k: str(v) for k, v in value.items()
                                                     if k in ANSWER_FIELDS and isinstance(v, str)}

    @staticmethod
    def _load(table) -> dict:
        out = {}
        for key, value in (table or {}).items():
            student, _, question = key.partition("\t")
            if isinstance(value, dict):
                out[(student, question)] = {f: str(value.get(f, "")) for f in FIELDS}
        return out

    @staticmethod
    def _dump(table: dict) -> dict:
        return {f"{s}\t{q}": v for (s, q), v in sorted(table.items())}

    def save(self) -> None:
        data = {"note": "what pdl last wrote to written_scores.csv and to each gradebook; a value that "
                        "differs from it is an edit by the TA (see autograder/cohort/handscores.py)",
                "csv": self._dump(self.csv),
                "gradebooks": {url: self._dump(t) for url, t in sorted(self.gradebooks.items())},
                "answers": self._dump(self.answers)}
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        os.replace(tmp, self.path)


def merge(out: Path, assignment: str, maxima: dict, db_url: str | None,
          answers: dict | None = None) -> HandScores:
    """Merge the CSV and the gradebook (``db_url``; None: the CSV alone).

    ``maxima``: (student, question) -> the question's points, for every answer of this run.
    ``answers``: (student, question) -> ``answer_hash`` of this run's answer; with it, a score
    given for another answer is cleared and kept as the previous grading.
    """
    csv_path = out / "written_scores.csv"
    state = State(out / "hand_scores.json")
    hand = HandScores()
    typed_csv = read_csv_scores(csv_path)
    typed_gb = None
    if db_url:
        try:
            typed_gb = read_gradebook_scores(assignment, db_url)
        except Exception as exc:  # noqa: BLE001 - the CSV alone still works
            first = (str(exc).strip().splitlines() or [repr(exc)])[0][:300]
            hand.problems.append(f"the gradebook's hand scores could not be read ({first}); "
                                 "written_scores.csv alone was used")
    base_csv = state.csv
    base_gb = state.gradebooks.get(db_url, {}) if db_url else {}
    csv_time = csv_path.stat().st_mtime if csv_path.exists() else 0.0
    db = sqlite_file(db_url) if db_url else None
    gb_time = (db.stat().st_mtime if db.exists() else 0.0) if db is not None else time.time()
    keys = set(typed_csv) | set(base_csv) | set(typed_gb or {}) | set(maxima)
    for key in sorted(keys):
        merged, edited = {}, {"csv": False, "gradebook": False}
        for f in FIELDS:
            c = typed_csv[key][f] if key in typed_csv else None
            g = typed_gb[key][f] if typed_gb is not None and key in typed_gb else None
            bc = base_csv.get(key, {}).get(f, "")
            bg = base_gb.get(key, {}).get(f, "")
            c_edit = c is not None and _norm(f, c) != _norm(f, bc)
            g_edit = g is not None and _norm(f, g) != _norm(f, bg)
            if c_edit and g_edit and _norm(f, c) != _norm(f, g):
                csv_wins = csv_time > gb_time
                kept, lost = (c, g) if csv_wins else (g, c)
                sides = ("written_scores.csv", "gradebook") if csv_wins else ("gradebook", "written_scores.csv")
                hand.conflicts.append({"student": key[0], "question": key[1], "field": f,
                                       "kept": kept, "kept_from": sides[0], "dropped": lost,
                                       "dropped_from": sides[1]})
                value = kept
            elif c_edit:
                value = c
            elif g_edit:
                value = g
            elif c is not None:
                value = c
            elif key in base_csv:
                value = bc
            else:
                value = g or ""
            edited["csv"] |= c_edit
            edited["gradebook"] |= g_edit
            merged[f] = value.strip() if f == "score" else value
        for side, flag in edited.items():
            hand.edits[side] += flag
        if answers is not None and key in answers:
            _hold_while_unchanged(hand, state, key, merged, answers[key], edited["csv"] or edited["gradebook"])
        if merged["score"] or merged["comment"] or key in maxima:
            hand.values[key] = merged
        text = merged["score"]
        if text and key in maxima:
            number = parse_number(text)
            if number is None:
                hand.problems.append(f"{key[0]}, {key[1]}: score {text!r} is not a number; not counted "
                                     "(kept as typed)")
            elif not 0 <= number <= float(maxima[key]) + 1e-9:
                hand.problems.append(f"{key[0]}, {key[1]}: score {text} is outside 0..{maxima[key]:g}; "
                                     "not counted (kept as typed)")
    if hand.conflicts:
        log = out / "hand_score_conflicts.csv"
        rows = [] if log.exists() else [["when", "student", "question", "field", "kept", "kept_from",
                                         "dropped", "dropped_from"]]
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        rows += [[stamp, c["student"], c["question"], c["field"], c["kept"], c["kept_from"], c["dropped"],
                  c["dropped_from"]] for c in hand.conflicts]
        buf = io.StringIO()
        csv.writer(buf).writerows([[csv_cell(v) for v in row] for row in rows])
        with open(log, "a", newline="") as fh:
            fh.write(buf.getvalue())
    return hand


def _hold_while_unchanged(hand: HandScores, state: State, key, merged: dict, now: str, edited: bool) -> None:
    """A score and comment hold only for the answer they were given for (module docstring)."""
    if hand.answers is None:
        hand.answers = {k: dict(v) for k, v in state.answers.items()}
    seen = hand.answers.get(key, {})
    entry = {"shown": now}
    if merged["score"] or merged["comment"].strip():
        # typed since the last run: for the answer that run showed; else the hash kept with it
        graded = (seen.get("shown") if edited else seen.get("graded") or seen.get("shown")) or now
        if graded != now:
            hand.previous[key] = dict(merged)
            hand.stale.append(key)
            hand.problems.append(f"{key[0]}, {key[1]}: the answer changed since it was scored "
                                 f"({merged['score'] or 'no score'}); back to be graded, the old score and "
                                 "comment are shown as the previous grading in written.html")
            merged["score"], merged["comment"] = "", ""
        else:
            entry["graded"] = now
    if key not in hand.previous and not merged["score"] and "previous_score" in seen:
        hand.previous[key] = {"score": seen["previous_score"], "comment": seen.get("previous_comment", "")}
    if key in hand.previous:
        entry.update(previous_score=hand.previous[key]["score"], previous_comment=hand.previous[key]["comment"])
    hand.answers[key] = entry


def remember_csv(out: Path, hand: HandScores, rows: dict) -> None:
    """After written_scores.csv was written: what it now holds is pdl's, not an edit; with it,
    which answer each score was given for."""
    state = State(out / "hand_scores.json")
    state.csv = {key: {f: str(v.get(f, "")) for f in FIELDS} for key, v in rows.items()}
    if hand.answers is not None:
        state.answers = hand.answers
    state.save()


def remember_gradebook(out: Path, assignment: str, db_url: str) -> None:
    """After the gradebook was written: its written-answer grades and comments, as they now are."""
    state = State(out / "hand_scores.json")
    state.gradebooks[db_url] = read_gradebook_scores(assignment, db_url)
    state.save()
