"""A term's assignment graded in one call: what ``pdl grade-cohort`` does, as a Python API
(``docs/api.md``).

``grade_term`` checks the roster and the late policy, grades the submissions (resumably,
``autograder.cohort.grade``), applies the roster, merges the TA's hand scores, writes every
output (``autograder.cohort.outputs``), records the grades in nbgrader's gradebook and, if asked,
takes screenshots of the pages; it returns a ``Term`` that says what was done. ``read_records``
reads the records of an output folder afterwards.

Refused before anything is graded or written: ``TermRefused`` (a bad roster or late policy,
submissions that are missing, corrupt or neither a folder nor a zip, a damaged ``ids.json``),
``autograder.course.source.UnknownAssignment`` and ``autograder.run.sandbox.SandboxUnavailable``.
A gradebook that cannot record the grades is not a refusal: everything else is written, and
``Term.gradebook_error`` says why.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.cohort import grade as cohort_grade  # grade_cohort looked up at each call (tests replace it)
from autograder.cohort import late
from autograder.cohort.browser import find_chromium, screenshot_cohort
from autograder.cohort.handscores import HandScores, remember_gradebook
from autograder.cohort.layouts import IdRegistryError
from autograder.cohort.outputs import hand_scores, record_in_gradebook, resolve_db_url, write_outputs
from autograder.cohort.pages import deadline_of, notes
from autograder.cohort.record import Absent, Record
from autograder.cohort.roster import Roster, RosterError, apply_roster, read_roster
from autograder.course.source import known_assignment
from autograder.run.settings import Settings


class TermRefused(ValueError):
    """Nothing was graded or written: the roster, the late policy, the submissions or the output
    folder's ``ids.json`` cannot be used (the message says which, and why)."""


@dataclass
class Term:
    """What ``grade_term`` did: the records, where the outputs are, and what to tell the TA."""
    assignment: str
    version: str                     # the assignment version that graded the records
    out: Path                        # the output folder
    grades_csv: Path
    records: list[Record]            # one per student (as in <out>/records/<student>.json, with who submitted it)
    graded: int                      # graded in this run
    reused: int                      # records of earlier runs (same file, same version)
    unmatched: list[str] = field(default_factory=list)   # found but not matched to a student: not graded
    notes: list[str] = field(default_factory=list)       # ids given, names found, ... (say them)
    roster: list[str] = field(default_factory=list)      # what matching the roster said
    absent: list[Absent] = field(default_factory=list)   # roster students without a submission (0)
    changes: str = ""                # one line: whose grade moved since the last run (changes.csv)
    hand: HandScores = field(default_factory=HandScores)  # the TA's hand scores, merged
    gradebook: str | None = None     # the gradebook URL recorded in; None: none
    gradebook_error: str = ""        # why the gradebook could not record the grades ('' if it did)
    screenshots: list[str] = field(default_factory=list)  # pages saved in <out>/screenshots/
    screenshot_error: str = ""       # "no screenshots ...": why none were taken, when asked for
    isolation: str | None = None     # as asked for (None: the settings'; "process": unsafe)

    @property
    def students(self) -> int:
        return len(self.records)

    @property
    def ok(self) -> bool:
        """Everything graded is written, the gradebook included."""
        return not self.gradebook_error

    @property
    def max_score(self) -> float:
        return max((float(r.max_score) for r in self.records), default=0.0)

    @property
    def mean_score(self) -> float | None:
        """Over the records that hold a grade (not those the grader failed on)."""
        graded = [r for r in self.records if r.graded]
        return sum(float(r.score) for r in graded) / len(graded) if graded else None

    @property
    def not_graded(self) -> list[Record]:
        """The grader failed on these (twice): no grade; the next run grades them again."""
        return [r for r in self.records if not r.graded]

    @property
    def unreadable(self) -> list[Record]:
        """The notebook could not be read (0, with what to do in its feedback)."""
        return [r for r in self.records if r.graded and r.unreadable]

    @property
    def with_notes(self) -> list[Record]:
        """The records with a grader note (an error, a timeout): listed in report.html."""
        return [r for r in self.records if notes(r)]

    @property
    def written(self) -> bool:
        """Whether the assignment has written answers (graded by hand: written.html, written_scores.csv)."""
        return any(r.manual for r in self.records)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:500] if text else repr(exc)


def grade_term(submissions, assignment: str, out=None, *, roster=None, csv=None,
               gradebook: str | bool = True, workers: int | None = None, timeout: float | None = None,
               call_timeout: float | None = None, memory_mb: int | None = None, isolation: str | None = None,
               scheduler: str | None = None, screenshots: bool = False, progress: bool = True,
               log: Callable[[str], None] | None = None, allow_shrink: bool = False) -> Term:
    """Grade ``submissions`` (a folder or zip, any layout) for ``assignment`` into ``out`` (default
    ``results/<assignment>``) and write every output; what ``pdl grade-cohort`` does.

    ``roster``: a roster CSV (names, sections, extensions); ``csv``: the grades file (default
    ``<out>/grades.csv``); ``gradebook``: True for the course's nbgrader gradebook, a URL for
    another, False for none; ``timeout``, ``call_timeout``, ``memory_mb``: the limits (None: the
    settings', ``autograder.run.settings``); ``isolation``: namespace, account or process;
    ``workers`` or ``scheduler`` (a dask.distributed address): where to grade; ``screenshots``:
    PNGs of the pages (headless Chromium); ``progress``: a progress bar on stderr; ``log``: called
    with each line said while it works (roster matches, each phase); ``allow_shrink``: grade a
    folder with no submission, or far fewer than ``out`` holds records of (refused otherwise: the
    outputs would be rewritten with fewer rows).

    A rerun into the same ``out`` grades only what is new or changed and merges the hand scores.
    Raises ``TermRefused`` (and ``UnknownAssignment``, ``SandboxUnavailable``) before anything is
    graded or written; KeyboardInterrupt keeps every finished record.
    """
    say = log or (lambda _text: None)
    known_assignment(assignment)
    out = Path(out or f"results/{assignment}")
    try:
        late.policy_for(assignment)
        students = read_roster(Path(roster), deadline_of(assignment)) if roster else Roster()
    except (late.PolicyError, RosterError, OSError) as exc:
        raise TermRefused(str(exc)) from exc
    if roster:
        say(f"roster: {students.describe()}")
    limits = Settings.load(timeout_s=timeout, call_timeout_s=call_timeout, memory_mb=memory_mb).limits
    with contextlib.ExitStack() as files:  # a zip's extraction stays until the outputs are written (similarity)
        say(f"grading the submissions in {submissions} ...")
        start = time.monotonic()
        try:
            summary = cohort_grade.grade_cohort(
                Path(submissions), assignment, out, workers=workers, timeout=limits.timeout_s,
                call_timeout=limits.call_timeout_s, memory_mb=limits.memory_mb, scheduler=scheduler,
                progress=progress, isolation=isolation, keep_files=files, allow_shrink=allow_shrink)
        except (cohort_grade.CohortInputError, IdRegistryError) as exc:
            raise TermRefused(str(exc)) from exc
        records = summary.results
        matched = []
        if roster:
            matched = apply_roster(summary, students)
            for item in matched:
                say(f"roster: {item}")
            if summary.absent:
                say(f"roster: {len(summary.absent)} student(s) without a submission get 0 (\"no submission\")")
        db = None if gradebook is False else resolve_db_url(None if gradebook is True else gradebook)
        written = any(r.manual for r in records)
        say(f"graded in {time.monotonic() - start:.1f} s")
        start = time.monotonic()
        say(f"writing grades, feedback and report for {len(records)} submissions"
            + (" (hand scores merged from written_scores.csv" + (" and the gradebook" if db else "") + ")"
               if written else "") + " ...")
        hand = hand_scores(summary, out, db)
        changed = write_outputs(summary, out, Path(csv) if csv else None, hand, workers=workers)
        say(f"outputs written in {time.monotonic() - start:.1f} s")
        term = Term(assignment=assignment, version=summary.version, out=out,
                    grades_csv=Path(csv) if csv else out / "grades.csv", records=records,
                    graded=summary.graded, reused=summary.reused, unmatched=list(summary.unmatched),
                    notes=list(summary.notes), roster=matched, absent=list(summary.absent),
                    changes=changed["message"], hand=hand, gradebook=db, isolation=isolation)
        if db:
            try:
                say(f"recording {len(records)} submissions in nbgrader's gradebook ({db}) ...")
                start = time.monotonic()
                record_in_gradebook(summary, db, hand, log=say, progress=progress)
                remember_gradebook(out, assignment, db)
                say(f"gradebook written in {time.monotonic() - start:.1f} s")
            except Exception as exc:  # noqa: BLE001 - the grades are safe on disk; say so and go on
                term.gradebook_error = _first_line(exc)
        if screenshots:
            _screenshots(term)
    return term


def _screenshots(term: Term) -> None:
    if find_chromium() is None:
        term.screenshot_error = "no screenshots: Chromium is not installed (apt-get install chromium)."
        return
    try:
        term.screenshots = list(screenshot_cohort(term.out))
    except Exception as exc:  # noqa: BLE001 - a screenshot is a convenience, never a failure
        term.screenshot_error = f"no screenshots ({exc})"


def read_records(out) -> list[Record]:
    """The records of an output folder (``<out>/records/<student>.json``), by student id: each the
    report of one submission (``score``, ``max_score``, ``tests``, ``errors``, ``manual``, ...) with
    who submitted it (``student``, ``name``, ``email``, ``submitted_at``) and the ``version`` that
    graded it; a file that is not a record is left out (a rerun grades it again). The tests' points
    only: hand scores and late penalties are in ``grades.csv``."""
    found = (cohort_grade.read_record(path) for path in sorted((Path(out) / "records").glob("*.json")))
    return [rec for rec in found if rec is not None]
