"""What a cohort run leaves for the TA: nbgrader's gradebook, ``grades.csv``, the written answers'
score sheet, per-student feedback pages and the cohort report."""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

from tqdm import tqdm

from autograder.cohort import handscores, parallel, similarity
from autograder.cohort.changes import STATE, record_changes
from autograder.cohort.exports import standing, write_exports
from autograder.cohort.found import write_mistakes
from autograder.cohort.grade import _write_atomic
from autograder.cohort.handscores import HandScores, read_csv_names, read_csv_scores, remember_csv, write_rows
from autograder.cohort.pages import (
    answer_state,
    cohort_report,
    complete_answers,
    deadline_of,
    feedback_html,
    feedback_markdown,
    notes,
    previous_grading,
    test_names,
    written_answers_html,
)
from autograder.cohort.record import CohortSummary, Record
from autograder.course import nbgrader as nbgrader_course


def resolve_db_url(db_url: str | None) -> str:
    """The gradebook URL (default: the course's); a relative sqlite path is taken from where pdl runs."""

    db_url = db_url or nbgrader_course.db_url()
    if db_url.startswith("sqlite:///") and not db_url.startswith("sqlite:////"):
        db_url = "sqlite:///" + str(Path(db_url[len("sqlite:///"):]).resolve())
    return db_url



def _maxima(summary: CohortSummary) -> dict:
    return {(rec.student, str(m.question)): float(m.points or 0)
            for rec in summary.results for m in rec.manual or []}



def hand_scores(summary: CohortSummary, out: Path, db_url: str | None = None):
    """The TA's scores and comments for written answers, merged from ``<out>/written_scores.csv``
    and (``db_url``) the gradebook's formgrader grades; see autograder/cohort/handscores.py for the rule."""

    complete_answers(summary)
    answers = {(rec.student, str(m.question)): handscores.answer_hash(m.text)
               for rec in summary.results for m in rec.manual or []}
    return handscores.merge(out, summary.assignment, _maxima(summary), db_url, answers)



def write_csv(results: list[Record], path: Path, hand=None, deadline=None, absent=()) -> None:
    """grades.csv: who (with the roster's section) and when (late against her own deadline, the
    LMS's own late flag), the tests' score (auto), the hand-graded written answers (written; blank
    answers count 0, ``written_ungraded`` answers are still to be graded), their sum (total), the
    late penalty and the final grade (autograder/cohort/late.py), the grader's notes, then one
    column per test. ``absent``: roster students without a submission (0, "no submission").
    Text that a spreadsheet would run as a formula gets a leading quote."""

    names = test_names(results)
    rows = [["student", "name", "email", "section", "submitted_at", "late", "late_by", "lms_late", "auto",
             "auto_max", "written", "written_max", "written_ungraded", "total", "total_max", "late_penalty",
             "final", "error", *names]]
    top = [0.0, 0.0]  # the maxima (tests, written) for the rows of roster students without a submission
    for rec in results:
        if not rec.graded:  # no grade: blank cells (a 0 would read as one), the reason, as for no submission
            rows.append([rec.student, rec.name, rec.email, rec.section, rec.submitted_at, "", "", "", "", "", "",
                         "", "", "", "", "", "", f"not graded: {rec.not_graded}; rerun grade-cohort",
                         *["" for _ in names]])
            continue
        pts = {t.name: t.points for t in rec.tests}
        s = standing(rec, hand, deadline)
        w = s["written"]
        top = [max(top[0], float(rec.max_score)), max(top[1], w["max"])]
        rows.append([rec.student, rec.name, rec.email, rec.section,
                     rec.submitted_at, s["late"], s["by"], s["lms_late"],
                     rec.score, rec.max_score, w["score"], w["max"], w["ungraded"],
                     s["total"], s["total_max"], s["penalty"], s["final"], "; ".join(notes(rec)),
                     *[pts.get(n, 0) for n in names]])
    for a in absent or ():
        rows.append([a.student, a.name, a.email, a.section, "", "", "", "", 0.0, top[0], 0.0, top[1], 0,
                     0.0, top[0] + top[1], 0.0, 0.0, "no submission", *[0 for _ in names]])
    write_rows(path, rows)



def write_written_scores(summary: CohortSummary, path: Path, hand=None) -> dict:
    """``written_scores.csv``: one row per student and written question (her id, her name as
    written, from the roster or the submission), with the merged score and comment (empty until
    the TA fills them in), and the previous grading of an answer that changed since it was
    scored. Rows of students absent from this run that hold a score or comment are kept (with
    the name the file gave them). Read back by its header (``handscores.read_csv_scores``), so a
    file without the ``name`` column, or with the columns moved, reads the same. Returns what was
    written, by (student, question)."""

    if hand is None:  # no merge asked for: keep what the file holds
        hand = HandScores(values=read_csv_scores(path))
    names = read_csv_names(path)  # of students absent from this run
    rows = [["student", "name", "question", "max_points", "answered", "score", "comment", "previous_grading"]]
    written: dict = {}
    for rec in summary.results:
        for m in rec.manual or []:
            key = (rec.student, str(m.question))
            value = hand.get(*key)
            rows.append([key[0], rec.name or "", key[1], m.points, answer_state(m), value["score"], value["comment"],
                         previous_grading(hand.previous.get(key))])
            written[key] = value
    for key, value in sorted(hand.values.items()):
        if key not in written and (value["score"] or value["comment"]):
            rows.append([key[0], names.get(key[0], ""), key[1], "", "not in this run", value["score"],
                         value["comment"], ""])
            written[key] = value
    write_rows(path, rows)
    return written



def record_in_gradebook(summary: CohortSummary, db_url: str | None = None, hand=None, log=print,
                        progress: bool | None = None) -> None:
    """Write everything into nbgrader's gradebook, in nbgrader's own schema: each student (with
    name and email when known), the submission (with its time), the tests' scores, errors as a
    comment, and the written answers' hand scores and comments as manual grades (so
    ``nbgrader export`` and formgrader show them). A new assignment is registered with nbgrader's
    ``generate_assignment`` in a temporary course folder: nothing is written into the course.

    Written in bulk: nbgrader's models (``Student``, ``SubmittedAssignment``,
    ``SubmittedNotebook``, ``Grade``, ``Comment``) in one session, what exists loaded first with
    one query per table, one commit; new submissions are made as nbgrader's ``add_submission``
    makes them. A value that did not change is not written, so a rerun with nothing new changes
    nothing. ``progress``: a bar on stderr (None: when stderr is a terminal)."""

    from nbgrader.api import Gradebook  # heavy (nbgrader, SQLAlchemy): only with a gradebook

    aid = summary.assignment
    db_url = resolve_db_url(db_url)
    show = sys.stderr.isatty() if progress is None else progress
    _register(aid, db_url, log, show)
    records = [rec for rec in summary.results if rec.graded]  # no grade to record: the next run grades it
    with Gradebook(db_url) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's chatter inside nbgrader's models
        _write_in_bulk(gb.db, aid, records, hand, deadline_of(aid), show)


def _register(aid: str, db_url: str, log, progress: bool) -> None:
    """Register ``aid`` with nbgrader's own ``generate_assignment`` (in a temporary course folder)
    unless the gradebook has it; the time it has taken so far is shown while it runs."""

    from nbgrader.api import Gradebook, MissingEntry  # heavy (nbgrader, SQLAlchemy): only with a gradebook

    nbgrader_course.ensure_alembic_on_path()
    with Gradebook(db_url) as gb:
        try:
            gb.find_assignment(aid)
            return
        except MissingEntry:
            pass
    log(f"nbgrader: registering {aid} in the gradebook (nbgrader generate_assignment in a temporary "
        "folder; this takes a while) ...")
    sys.stdout.flush()
    start = time.monotonic()
    with _ticking(f"registering {aid}", progress), tempfile.TemporaryDirectory(prefix="pdl-nbgrader-") as root:
        nbgrader_course.generate_assignment(aid, db_url=db_url, root=Path(root))
    log(f"nbgrader: {aid} registered in {time.monotonic() - start:.0f} s.")


@contextlib.contextmanager
def _ticking(desc: str, progress: bool):
    """A tqdm line with the time elapsed, refreshed every second, for work whose length is unknown."""
    bar = tqdm(total=None, desc=desc, bar_format="{desc}: {elapsed}", disable=not progress)
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(1.0):
            bar.refresh()

    ticker = threading.Thread(target=tick, daemon=True)
    if progress:
        ticker.start()
    try:
        yield
    finally:
        stop.set()
        if progress:
            ticker.join()
        bar.close()


FLUSH_EVERY = 50  # records written to the database at a time, inside the one transaction


def _write_in_bulk(db, aid: str, records: list[Record], hand, deadline, progress: bool) -> None:
    """The gradebook's part of ``record_in_gradebook``: in ``db`` (a Gradebook's session)."""

    from nbgrader.api import (  # heavy (nbgrader, SQLAlchemy): only with a gradebook
        Assignment,
        BaseCell,
        Comment,
        Grade,
        Notebook,
        Student,
        SubmittedAssignment,
        SubmittedNotebook,
    )
    from sqlalchemy import select  # heavy (SQLAlchemy, nbgrader's): only with a gradebook
    from sqlalchemy.orm import with_polymorphic  # heavy, as above

    assignment = db.query(Assignment).filter(Assignment.name == aid).one()
    if deadline is not None:
        assignment.duedate = deadline  # naive UTC, as nbgrader's parse_utc gives it
    notebooks = list(assignment.notebooks)
    db.query(with_polymorphic(BaseCell, "*")).join(Notebook, BaseCell.notebook_id == Notebook.id) \
        .filter(Notebook.assignment_id == assignment.id).all()  # every cell's columns, one query
    ours = next((nb for nb in notebooks if nb.name == aid), None)
    if ours is None:
        raise ValueError(f"the gradebook's assignment {aid} has no notebook {aid}; register it again "
                         "(nbgrader db assignment remove, then rerun)")
    cells = list(ours._base_cells)  # nbgrader's own order: the one add_submission makes the rows in
    position = {cell.id: k for k, cell in enumerate(cells)}
    by_id = {cell.id: cell for cell in cells}

    # what the gradebook holds already: one query per table
    ids = sorted({rec.student for rec in records})
    students = {s.id: s for part in range(0, len(ids), 500)  # 500 at a time: any database's limit on IN
                for s in db.query(Student).filter(Student.id.in_(ids[part:part + 500]))}
    submissions = {s.student_id: s for s in db.query(SubmittedAssignment)
                   .filter(SubmittedAssignment.assignment_id == assignment.id)}
    submitted = select(SubmittedNotebook.id).where(SubmittedNotebook.notebook_id == ours.id)
    notebook_of = {n.assignment_id: n for n in db.query(SubmittedNotebook)
                   .filter(SubmittedNotebook.notebook_id == ours.id)}
    grades: dict = {}
    for grade in db.query(Grade).filter(Grade.notebook_id.in_(submitted)):
        grades.setdefault(grade.notebook_id, []).append(grade)
    comments: dict = {}
    for comment in db.query(Comment).filter(Comment.notebook_id.in_(submitted)):
        comments.setdefault(comment.notebook_id, []).append(comment)

    def rows(found: list) -> list:
        """(cell, row) in the cells' order; rows of another notebook's cells left out."""
        pairs = [(by_id[row.cell_id], row) for row in found if row.cell_id in by_id]
        return sorted(pairs, key=lambda pair: position[pair[0].id])

    bar = tqdm(total=len(records), desc="gradebook", unit="student", disable=not progress, smoothing=0.1)
    try:
        for k, rec in enumerate(records):
            person = _person(rec)
            student = students.get(rec.student)
            if student is None:
                student = students[rec.student] = Student(id=rec.student, **person)
                db.add(student)
            else:
                _set(student, **person)
            when = _timestamp(rec)
            sub = submissions.get(rec.student)
            if sub is None:  # as nbgrader's add_submission: every notebook, each cell's grade and comment
                sub = submissions[rec.student] = SubmittedAssignment(
                    assignment=assignment, student=student, **({"timestamp": when} if when else {}))
                for notebook in notebooks:
                    made = _new_submitted_notebook(notebook, sub, Grade, Comment, SubmittedNotebook)
                    if notebook is ours:
                        mine = made
                db.add(sub)
            else:
                if when:
                    sub.timestamp = when
                nb = notebook_of.get(sub.id)
                if nb is None:  # a notebook added to the assignment since: made as nbgrader makes it
                    mine = _new_submitted_notebook(ours, sub, Grade, Comment, SubmittedNotebook)
                else:
                    mine = (rows(grades.get(nb.id, [])), rows(comments.get(nb.id, [])))
            _set_scores(rec, *mine, hand)
            bar.update()
            if (k + 1) % FLUSH_EVERY == 0:
                db.flush()
        db.commit()
    except BaseException:
        db.rollback()
        raise
    finally:
        bar.close()


def _new_submitted_notebook(notebook, sub, Grade, Comment, SubmittedNotebook) -> tuple[list, list]:
    """A submitted notebook with a grade and a comment for each cell, made exactly as nbgrader's
    ``Gradebook.add_submission`` makes them (in the same order); ((cell, grade)...), ((cell, comment)...)."""
    nb = SubmittedNotebook(notebook=notebook, assignment=sub)
    grades, comments = [], []
    for cell in notebook.grade_cells:
        grades.append((cell, Grade(cell_id=cell.id, notebook=nb)))
    for cell in notebook.solution_cells:
        comments.append((cell, Comment(cell_id=cell.id, notebook=nb)))
    for cell in notebook.task_cells:
        comments.append((cell, Comment(cell_id=cell.id, notebook=nb)))
        grades.append((cell, Grade(cell_id=cell.id, notebook=nb)))
    return grades, comments


def _person(rec: Record) -> dict:
    """The student's first and last name (the last word is the last name) and email, where known."""
    person = {}
    if rec.name:
        first, _, last = str(rec.name).strip().rpartition(" ")
        person.update(first_name=first or last, last_name=last if first else None)
    if rec.email:
        person["email"] = rec.email
    return {k: v for k, v in person.items() if v}


def _timestamp(rec: Record):
    return dt.datetime.strptime(rec.submitted_at, "%Y-%m-%dT%H:%M:%SZ") if rec.submitted_at else None


def _set(row, **values) -> None:
    """Set only what differs: an unchanged row is not written."""
    for key, value in values.items():
        if getattr(row, key) != value:
            setattr(row, key, value)


def _set_scores(rec: Record, grades: list, comments: list, hand) -> None:
    """One submission's values: the tests' scores, the written answers (no auto score while
    answered, 0 when blank; the TA's score and comment from ``hand``: a score typed that is not
    usable leaves the gradebook's), the errors as the first code cell's comment."""
    student = rec.student
    points = {t.name: t.points for t in rec.tests}
    manual = {str(m.question): m for m in rec.manual or []}
    for cell, grade in grades:
        name = cell.name
        if cell.cell_type == "markdown":  # a written answer, graded by hand
            m = manual.get(name)
            answered = m is not None and answer_state(m) == "yes"
            score = grade.manual_score
            if hand is not None:
                typed = hand.get(student, name)["score"]
                number = hand.points(student, name, cell.max_score)
                if number is not None:
                    score = number
                elif not typed:
                    score = None
            _set(grade, auto_score=None if answered else 0.0, manual_score=score,
                 needs_manual_grade=answered and score is None)
        elif name in points or cell.cell_type == "code":
            # formgrader lists only the written answers
            _set(grade, auto_score=float(points.get(name, 0.0)), needs_manual_grade=False)
    errors = "; ".join(rec.errors)[:4000] or None
    code_comments = []
    for cell, comment in comments:
        if cell.name in manual:
            if hand is not None:
                _set(comment, manual_comment=hand.get(student, cell.name)["comment"] or None)
        else:
            code_comments.append(comment)
    if code_comments:
        _set(code_comments[0], auto_comment=errors)


def _record_per_student(summary: CohortSummary, db_url: str | None = None, hand=None, log=print) -> None:
    """``record_in_gradebook`` as it was before issue 42: nbgrader's per-student API
    (``update_or_create_student``, ``update_or_create_submission``, a commit and lazy loads per
    student). Kept only as the reference that ``tests/test_gradebook_bulk.py`` compares the bulk
    writer with and ``benchmarks/gradebook_speed.py`` times it against."""

    from nbgrader.api import Gradebook  # heavy (nbgrader, SQLAlchemy): only with a gradebook

    aid = summary.assignment
    db_url = resolve_db_url(db_url)
    _register(aid, db_url, log, False)
    deadline = deadline_of(aid)
    with Gradebook(db_url) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy autoflush chatter inside nbgrader's API
        if deadline is not None:
            gb.update_or_create_assignment(aid, duedate=deadline)
        for rec in summary.results:
            if not rec.graded:  # no grade to record (the next run grades it)
                continue
            student = rec.student
            gb.update_or_create_student(student, **_person(rec))
            when = {}
            if rec.submitted_at:
                when["timestamp"] = _timestamp(rec)
            gb.update_or_create_submission(aid, student, **when)
            notebook = gb.find_submission_notebook(aid, aid, student)
            points = {t.name: t.points for t in rec.tests}
            manual = {str(m.question): m for m in rec.manual or []}
            for grade in notebook.grades:
                name = grade.cell.name
                if grade.cell.cell_type == "markdown":  # a written answer, graded by hand
                    m = manual.get(name)
                    answered = m is not None and answer_state(m) == "yes"
                    grade.auto_score = None if answered else 0.0
                    if hand is not None:
                        typed = hand.get(student, name)["score"]
                        number = hand.points(student, name, grade.max_score)
                        if number is not None:
                            grade.manual_score = number
                        elif not typed:
                            grade.manual_score = None
                    grade.needs_manual_grade = answered and grade.manual_score is None
                elif name in points or grade.cell.cell_type == "code":
                    grade.auto_score = float(points.get(name, 0.0))
                    grade.needs_manual_grade = False  # formgrader lists only the written answers
            errors = "; ".join(rec.errors)[:4000] or None
            code_comments = []
            for comment in notebook.comments:
                name = comment.cell.name
                if name in manual:
                    if hand is not None:
                        comment.manual_comment = hand.get(student, name)["comment"] or None
                else:
                    code_comments.append(comment)
            if code_comments:
                code_comments[0].auto_comment = errors
            gb.db.commit()


STAGE_PREFIX = ".pdl-outputs-"  # a run's outputs are written here first (inside ``out``: one file system)
# the files of ``out`` that writing the outputs reads back or appends to
READ_BACK = ("changes.csv", STATE, "written_scores.csv", "hand_scores.json",
             "hand_score_conflicts.csv")


def write_outputs(summary: CohortSummary, out: Path, csv_path: Path | None = None, hand=None,
                  workers: int | None = None) -> dict:
    """Feedback pages, report, grades.csv, mistakes.csv, and (with written answers) written.html and
    written_scores.csv; then changes.csv. ``hand``: merged hand scores (``hand_scores``); by default
    the CSV's. ``workers``: processes writing the pages of a large cohort (None: every core;
    ``autograder.cohort.parallel``). Returns what ``changes.record_changes`` says.

    Everything is written to a folder of its own inside ``out`` first, then renamed into place at
    once: a crash or Ctrl-C while writing leaves the last run's set whole, never half of each."""

    complete_answers(summary)
    if hand is None:
        hand = hand_scores(summary, out)
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob(STAGE_PREFIX + "*"):  # a run that died while writing
        shutil.rmtree(stale, ignore_errors=True)
    stage = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=out))
    try:
        for name in READ_BACK:  # what the writers read and extend
            if (out / name).is_file():
                shutil.copy2(out / name, stage / name)
        grades = stage / ".grades.csv" if csv_path is not None else None
        changed = _write_all(summary, stage, grades, hand, workers, final=out)
        _move_into_place(stage, out)
        if grades is not None and csv_path is not None:
            Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(out / grades.name), str(csv_path))
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return changed


def _move_into_place(stage: Path, out: Path) -> None:
    """Rename every file written in ``stage`` onto its place in ``out`` (renames, milliseconds)."""
    for path in sorted(stage.rglob("*")):
        if path.is_file():
            target = out / path.relative_to(stage)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)


def _write_all(summary: CohortSummary, out: Path, csv_path: Path | None, hand, workers: int | None = None,
               final: Path | None = None) -> dict:
    deadline = deadline_of(summary.assignment)
    fb = out / "feedback"
    fb.mkdir(parents=True, exist_ok=True)
    has_written = any(rec.manual for rec in summary.results) or hand.values

    def feedback(records) -> None:
        for rec in records:
            _write_atomic(fb / f"{rec.student}.md", feedback_markdown(rec, hand, deadline))
            _write_atomic(fb / f"{rec.student}.html", feedback_html(rec, hand, deadline))

    def report() -> None:
        similar = similarity.write(summary, out)  # similarity.csv, similarity.html
        _write_atomic(out / "report.html", cohort_report(summary, hand, deadline, similarity.report_section(similar)))

    def written() -> None:
        _write_atomic(out / "written.html", written_answers_html(summary, hand))

    # the pages on every core (autograder/cohort/parallel.py); each job writes its own files
    parallel.run([report] + ([written] if has_written else [])
                 + [functools.partial(feedback, part) for part in parallel.chunks(summary.results)],
                 parallel.workers(len(summary.results), workers))
    write_csv(summary.results, csv_path or out / "grades.csv", hand, deadline, summary.absent)
    write_exports(summary, out, hand, deadline)  # canvas.csv, moodle.csv
    if has_written:
        remember_csv(out, hand, write_written_scores(summary, out / "written_scores.csv", hand))
    write_mistakes(summary, out / "mistakes.csv")
    return record_changes(summary, out, hand, shown_in=final)
