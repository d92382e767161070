"""``<out>/changes.csv``: every grade a run changed, and why.

After each run the grades as they now are (per student: total, tests passed, the file's hash,
the assignment version, each written question's counted score) are kept in
``<out>/previous_grades.json``; the next run compares with them. A student whose total
differs gets a row (tests that flipped or a hand score cleared without moving the total add none:
no ``0 -> 0`` row): ``run`` (when, UTC), ``student``, ``name``, ``old`` and ``new``
totals, ``tests_flipped`` (each test that changed pass/fail) and ``why``:

* ``resubmitted`` — the submission's hash changed;
* ``tests changed: <old version> -> <new version>`` — the assignment's version changed;
* ``hand score edited: <question>`` — a TA's score of that question changed;
* ``<question>: answer changed, to be graded again`` — its hand score no longer holds
  (``autograder.cohort.handscores``);
* ``first graded`` — a student new since the last run.

Rows accumulate; a run that changes nothing adds none. Students absent from a run keep their
entry. The first run in an out folder has nothing to compare with and only keeps the grades.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
from pathlib import Path

from autograder.cohort.handscores import HandScores, csv_cell
from autograder.cohort.pages import written
from autograder.cohort.record import CohortSummary

COLUMNS = ["run", "student", "name", "old", "new", "tests_flipped", "why"]
STATE = "previous_grades.json"


def grades_now(summary: CohortSummary, hand: HandScores | None) -> dict:
    """student -> what changes.csv compares (JSON-ready)."""
    out = {}
    for rec in summary.results:
        w = written(rec, hand)
        out[str(rec.student)] = {
            "name": str(rec.name or ""), "total": float(rec.score) + w["score"],
            "tests": {str(t.name): bool(t.passed) for t in rec.tests or []},
            "sha256": str(rec.sha256 or ""), "version": str(rec.version or ""),
            "questions": {i["question"]: i["score"] for i in w["items"]}}
    return out


def _flipped(old: dict, new: dict) -> list[str]:
    word = {True: "pass", False: "fail", None: "none"}
    return [f"{name}: {word[old.get(name)]} -> {word[new.get(name)]}"
            for name in list(old) + [n for n in new if n not in old] if old.get(name) != new.get(name)]


def compare(before: dict, now: dict, stale=()) -> list[dict]:
    """The changed grades between two ``grades_now``; ``stale``: (student, question) whose hand
    score was cleared this run because the answer changed."""
    rows = []
    for student, g in now.items():
        old = before.get(student)
        if old is None:
            rows.append({"student": student, "name": g["name"], "old": "", "new": f"{g['total']:g}",
                         "tests_flipped": "", "why": "first graded"})
            continue
        flipped = _flipped(old.get("tests") or {}, g["tests"])
        questions = [q for q in dict.fromkeys([*(old.get("questions") or {}), *g["questions"]])
                     if (old.get("questions") or {}).get(q) != g["questions"].get(q)]
        if f"{float(old.get('total') or 0):g}" == f"{g['total']:g}":  # no grade moved: no row (0 -> 0)
            continue
        why = []
        if old.get("sha256") and old.get("sha256") != g["sha256"]:
            why.append("resubmitted")
        if old.get("version") != g["version"]:
            why.append(f"tests changed: {old.get('version') or '?'} -> {g['version'] or '?'}")
        again = [q for q in questions if (student, q) in stale]
        edited = [q for q in questions if q not in again]
        if edited:
            why.append("hand score edited: " + ", ".join(edited))
        why += [f"{q}: answer changed, to be graded again" for q in again]
        if not why:
            why.append("regraded (same file, same version)")
        rows.append({"student": student, "name": g["name"], "old": f"{float(old.get('total', 0)):g}",
                     "new": f"{g['total']:g}", "tests_flipped": "; ".join(flipped), "why": "; ".join(why)})
    return rows


def record_changes(summary: CohortSummary, out: Path, hand: HandScores | None = None,
                   shown_in: Path | None = None) -> dict:
    """Compare this run's grades with the last run's, append the changes to ``<out>/changes.csv``
    and keep this run's grades. Returns {"first": bool, "rows": [...], "message": one line}."""
    state_path = out / STATE
    try:
        before = json.loads(state_path.read_text())["students"]
        first = not isinstance(before, dict)
    except (OSError, ValueError, KeyError, TypeError):
        before, first = {}, True
    if first:
        before = {}
    now = grades_now(summary, hand)
    rows = [] if first else compare(before, now, set(getattr(hand, "stale", ()) or ()))
    path = out / "changes.csv"
    if rows:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        table = ([] if path.exists() else [COLUMNS]) + [[stamp, *(r[c] for c in COLUMNS[1:])] for r in rows]
        buf = io.StringIO()
        csv.writer(buf).writerows([[csv_cell(v) for v in row] for row in table])
        with open(path, "a", newline="", encoding="utf-8", errors="replace") as fh:
            fh.write(buf.getvalue())
    kept = {**before, **now}
    tmp = state_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"note": "each student's grade after the last run, compared by the next one "
                                       "(autograder/cohort/changes.py)", "students": kept},
                              indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, state_path)
    path = (shown_in or out) / "changes.csv"  # where the TA finds it (``out`` may be a staging folder)
    if first:
        message = f"grades kept for the next run's comparison ({path} lists grade changes from then on)"
    elif rows:
        message = f"{len(rows)} grade{'s' if len(rows) != 1 else ''} changed; see {path}"
    else:
        message = f"no grade changed since the last run (nothing added to {path})"
    return {"first": first, "rows": rows, "message": message}
