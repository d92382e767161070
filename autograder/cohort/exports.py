"""The final grades in the LMSs' own import formats, beside grades.csv: ``canvas.csv`` (Canvas's
gradebook import: the layout of its gradebook export) and ``moodle.csv`` (Moodle's offline grading
worksheet of an assignment). Both hold each student's FINAL grade (total less the late penalty),
and a row for every roster student without a submission (0)."""

from __future__ import annotations

import datetime as dt

import course_config
from autograder.cohort import late
from autograder.cohort.handscores import write_rows
from autograder.cohort.pages import written
from autograder.cohort.record import CohortSummary, Record

CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS = "    Points Possible"  # the second line of Canvas's export, as Canvas writes it
MOODLE_HEADER = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                 "Grade can be changed", "Last modified (submission)", "Last modified (grade)", "Feedback comments"]
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def standing(rec: Record, hand=None, deadline=None) -> dict:
    """A record's grade: ``written`` (pages.written), ``total``, ``total_max`` and what lateness
    costs (late.assess: ``late``, ``by``, ``lms_late``, ``penalty``, ``final``, ``why``)."""
    w = written(rec, hand)
    total, total_max = float(rec.score) + w["score"], float(rec.max_score) + w["max"]
    return {**late.assess(rec, deadline, late.policy_for(rec.assignment), total, total_max),
            "written": w, "total": total, "total_max": total_max}


def number(x: float) -> str:
    """A grade as a plain decimal (no exponent, no trailing zeros)."""
    return f"{float(x):.4f}".rstrip("0").rstrip(".") or "0"


def points_possible(summary: CohortSummary, hand=None) -> float:
    """The assignment's maximum (tests and written answers) as the records say."""
    return max((float(r.max_score) + written(r, hand)["max"] for r in summary.results), default=0.0)


def canvas_column(assignment: str) -> str:
    """Canvas names an assignment's column ``<name> (<Canvas assignment id>)``: with the id from
    course_config.CANVAS_ASSIGNMENT_IDS (digits only), else the name alone (Canvas then matches
    it by name, or offers to create the assignment)."""
    cid = str((getattr(course_config, "CANVAS_ASSIGNMENT_IDS", {}) or {}).get(assignment, ""))
    return f"{assignment} ({cid})" if cid.isascii() and cid.isdigit() else assignment


def _canvas_ids(who, canvas_id: str, canvas_cohort: bool) -> list[str]:
    """``ID, SIS User ID, SIS Login ID`` of a record or an absent student: from a Canvas roster
    (its gradebook export) as it gave them, a Canvas download's user id first; from any other
    roster, its id as ``SIS User ID`` (as ``ID`` for an absent student of a Canvas cohort)."""
    if who.canvas_user_id or who.sis_user_id or who.sis_login_id:
        return [canvas_id or who.canvas_user_id, who.sis_user_id, who.sis_login_id]
    roster_id = str(who.roster_id or "")
    if not canvas_id and canvas_cohort:
        return [roster_id, "", ""]
    return [canvas_id, "" if roster_id == canvas_id else roster_id, ""]


def canvas_rows(summary: CohortSummary, hand=None, deadline=None) -> list[list]:
    """Canvas's gradebook CSV: ``Student, ID, SIS User ID, SIS Login ID, Section, <assignment>``,
    then the "Points Possible" line, then a line per student. The assignment's column is a Canvas
    roster's, as its header names it (``summary.canvas_column``), else ``canvas_column``. ID is
    Canvas's user id (a Canvas download's, else a Canvas roster's ID; for a roster student without
    a submission in a Canvas cohort, the roster's id); SIS User ID and SIS Login ID a Canvas
    roster's; from another roster, SIS User ID is its id where that is not ID (``_canvas_ids``)."""
    results = summary.results
    rows = [[*CANVAS_HEADER, summary.canvas_column or canvas_column(summary.assignment)],
            [CANVAS_POINTS, "", "", "", "", number(points_possible(summary, hand))]]
    canvas = bool(results) and all(r.lms == "canvas" for r in results)
    for rec in results:
        cid = str(rec.lms_id or "") if rec.lms == "canvas" else ""
        rows.append([rec.name or rec.student, *_canvas_ids(rec, cid, canvas), rec.section,
                     number(standing(rec, hand, deadline)["final"]) if rec.graded else ""])  # empty: unchanged
    for a in summary.absent or []:
        rows.append([a.name or a.roster_id, *_canvas_ids(a, "", canvas), a.section, "0"])
    return rows


def moodle_time(iso: str) -> str:
    """2026-10-15T21:30:00Z -> "Thursday, 15 October 2026, 9:30 PM" (Moodle's worksheet format;
    the time in UTC); empty for none (Moodle writes "-", which a CSV cell would have to quote)."""
    try:
        at = dt.datetime.strptime(str(iso or ""), "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return ""
    return (f"{DAYS[at.weekday()]}, {at.day} {MONTHS[at.month - 1]} {at.year}, "
            f"{(at.hour % 12) or 12}:{at.minute:02d} {'AM' if at.hour < 12 else 'PM'}")


def moodle_rows(summary: CohortSummary, hand=None, deadline=None, now: dt.datetime | None = None) -> list[list]:
    """Moodle's offline grading worksheet: Identifier is ``Participant <id>`` with Moodle's id of
    the participant (a Moodle download's; else the roster's id, else the student id), Grade and
    Maximum Grade with two decimals, "Last modified (grade)" the time of this export (``now``,
    UTC), so that Moodle takes these grades unless one was changed in Moodle since."""
    stamp = moodle_time((now or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    top = points_possible(summary, hand)
    rows = [list(MOODLE_HEADER)]
    for rec in summary.results:
        pid = rec.lms_id if rec.lms == "moodle" else (rec.roster_id or rec.student)
        if not rec.graded:  # no grade: an empty Grade leaves Moodle's as it is
            rows.append([f"Participant {pid}", rec.name or rec.student, rec.email, "Submitted for grading", "",
                         f"{top:.2f}", "Yes", moodle_time(rec.submitted_at), stamp,
                         "Not graded yet (the grader failed; it will be graded again)."])
            continue
        s = standing(rec, hand, deadline)
        w = s["written"]
        comment = (f"Tests {number(rec.score)} / {number(rec.max_score)}"
                   + (f"; written answers {number(w['score'])} / {number(w['max'])}"
                      + (f" ({w['ungraded']} not graded yet)" if w["ungraded"] else "") if w["items"] else "")
                   + (f"; late penalty {number(s['penalty'])}" if s["penalty"] else "")
                   + f"; final {number(s['final'])} / {number(s['total_max'])}.")
        rows.append([f"Participant {pid}", rec.name or rec.student, rec.email,
                     "Submitted for grading", f"{s['final']:.2f}", f"{top:.2f}", "Yes",
                     moodle_time(rec.submitted_at), stamp, comment])
    for a in summary.absent or []:
        rows.append([f"Participant {a.roster_id}", a.name or a.roster_id, a.email, "No submission",
                     "0.00", f"{top:.2f}", "Yes", "", stamp, "No submission."])
    return rows


def write_exports(summary: CohortSummary, out, hand=None, deadline=None, now: dt.datetime | None = None) -> None:
    """``<out>/canvas.csv`` and ``<out>/moodle.csv`` (cells that a spreadsheet would run as a
    formula get a leading quote, as in grades.csv)."""
    write_rows(out / "canvas.csv", canvas_rows(summary, hand, deadline))
    write_rows(out / "moodle.csv", moodle_rows(summary, hand, deadline, now))
