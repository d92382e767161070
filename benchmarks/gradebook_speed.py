"""Writing nbgrader's gradebook for a cohort (issue 42, item 2): `record_in_gradebook`, in bulk,
against nbgrader's per-student API (`outputs._record_per_student`, the route before), in one run.

    python benchmarks/gradebook_speed.py [--n 200] [--assignment ex2_3_ising_perceptron] [--profile]

The assignment is registered once with nbgrader's `generate_assignment` (timed: both routes need
it for a new gradebook, and it is nbgrader's own), then each route writes N synthetic records
(every test cell of the registered notebook and both kinds of written answer; names, emails,
submission times, errors; a third of the written answers scored by hand) into a copy of that
gradebook: a new gradebook, a rerun with nothing new, then a rerun with a tenth of the scores and
hand scores changed. Reading the hand scores back (`handscores.read_gradebook_scores`, which a run
calls twice: to merge and to remember) is timed against nbgrader's API the same way. The two
routes' gradebooks are compared cell by cell (students, submissions, every grade's auto and manual
score, every comment). `--profile`: cProfile's top functions of each route's first write.
No assertion on times: machines are noisy.
"""

import argparse
import cProfile
import io
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.cohort import handscores, outputs  # noqa: E402
from autograder.cohort.handscores import HandScores  # noqa: E402
from autograder.cohort.record import CohortSummary  # noqa: E402
from autograder.course import nbgrader as nbgrader_course  # noqa: E402


def load_text() -> str:
    try:
        return "load " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "load ?"


def cells(url: str, aid: str) -> tuple[dict, dict]:
    """The registered notebook's test cells and written-answer cells: name -> points."""
    from nbgrader.api import Gradebook  # heavy (nbgrader)

    with Gradebook(url) as gb:
        nb = gb.find_notebook(aid, aid)
        tests = {c.name: c.max_score for c in nb.grade_cells if c.cell_type == "code"}
        written = {c.name: c.max_score for c in nb.grade_cells if c.cell_type == "markdown"}
    return tests, written


def summary_of(aid: str, n: int, tests: dict, written: dict, changed: bool = False) -> CohortSummary:
    """N records: test i of student s passes unless (i + s) % 3 == 0; every fourth has an error;
    odd students answered the written questions. ``changed``: every tenth student's results
    flipped and error dropped (as a regrade would)."""
    results = []
    for s in range(n):
        flip = changed and s % 10 == 0
        rows = [{"name": name, "points": pts if ((i + s) % 3 != 0) != flip else 0.0, "max_points": pts,
                 "passed": ((i + s) % 3 != 0) != flip, "message": "checked"}
                for i, (name, pts) in enumerate(tests.items())]
        manual = [{"question": q, "points": pts, "cell": 3, "text": "an answer" if s % 2 else "",
                   "missing": False, "blank": not s % 2} for q, pts in written.items()]
        results.append({"student": f"student{s:03d}", "assignment": aid, "name": f"Student Number {s}",
                        "email": f"s{s}@uni.example", "submitted_at": f"2026-10-15T{s % 24:02d}:00:00Z",
                        "score": sum(t["points"] for t in rows), "max_score": sum(tests.values()),
                        "tests": rows, "errors": ["NameError: name 'x' is not defined"] if s % 4 == 0 and not flip
                        else [], "manual": manual, "sha256": "a", "version": "bench", "seconds": 1.0})
    return CohortSummary.from_dict({"assignment": aid, "version": "bench", "unmatched": [], "results": results})


def hand_of(n: int, written: dict, changed: bool = False) -> HandScores:
    """A third of the answered written questions scored and commented (``changed``: every tenth
    of those scored 0 instead)."""
    values = {}
    for s in range(1, n, 2):
        if s % 3 == 0:
            for q, pts in written.items():
                values[(f"student{s:03d}", q)] = {"score": "0" if changed and s % 10 == 3 else f"{pts:g}",
                                                  "comment": f"comment for {s}"}
    return HandScores(values=values)


def content(url: str, aid: str) -> dict:
    """Everything the gradebook holds for ``aid``, by student, read with plain SQL."""
    from sqlalchemy import create_engine, text  # heavy: with nbgrader

    engine = create_engine(url)
    out: dict = {}
    with engine.connect() as c:
        for row in c.execute(text("select s.id, s.first_name, s.last_name, s.email, sa.timestamp from student s "
                                  "join submitted_assignment sa on sa.student_id = s.id join assignment a on "
                                  "a.id = sa.assignment_id where a.name = :a"), {"a": aid}):
            out[row[0]] = {"who": tuple(row[1:]), "grades": {}, "comments": {}}
        for row in c.execute(text("select sa.student_id, b.name, g.auto_score, g.manual_score, g.extra_credit, "
                                  "g.needs_manual_grade from grade g join submitted_notebook sn on sn.id = "
                                  "g.notebook_id join submitted_assignment sa on sa.id = sn.assignment_id join "
                                  "assignment a on a.id = sa.assignment_id join base_cell b on b.id = g.cell_id "
                                  "where a.name = :a"), {"a": aid}):
            out[row[0]]["grades"][row[1]] = tuple(row[2:])
        for row in c.execute(text("select sa.student_id, b.name, b.type, cm.auto_comment, cm.manual_comment from "
                                  "comment cm join submitted_notebook sn on sn.id = cm.notebook_id join "
                                  "submitted_assignment sa on sa.id = sn.assignment_id join assignment a on "
                                  "a.id = sa.assignment_id join base_cell b on b.id = cm.cell_id where a.name = :a"),
                              {"a": aid}):
            out[row[0]]["comments"][(row[1], row[2])] = tuple(row[3:])
    engine.dispose()
    return out


def read_per_submission(aid: str, url: str) -> dict:
    """``handscores.read_gradebook_scores`` as it was before issue 42: nbgrader's API, lazy loads
    per submission."""
    from nbgrader.api import Gradebook  # heavy (nbgrader)

    out = {}
    with Gradebook(url) as gb:
        for sub in gb.assignment_submissions(aid):
            for nb in sub.notebooks:
                grades = {g.cell.name: g for g in nb.grades if g.cell.cell_type == "markdown"}
                comments = {c.cell.name: c for c in nb.comments}
                for name, grade in grades.items():
                    comment = comments.get(name)
                    out[(sub.student.id, name)] = {
                        "score": "" if grade.manual_score is None else f"{grade.manual_score:g}",
                        "comment": (comment.manual_comment or "") if comment is not None else ""}
    return out


def timed(fn, *args, profile: bool = False) -> float:
    profiler = cProfile.Profile() if profile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    fn(*args)
    if profiler:
        profiler.disable()
    seconds = time.perf_counter() - start
    if profiler:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(22)
        print("\n".join(text.getvalue().splitlines()[4:]), flush=True)
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--assignment", default="ex2_3_ising_perceptron")
    ap.add_argument("--profile", action="store_true", help="cProfile of each route's first write")
    args = ap.parse_args()
    aid, n = args.assignment, args.n
    quiet = lambda *_: None  # noqa: E731
    nbgrader_course.ensure_alembic_on_path()
    with tempfile.TemporaryDirectory(prefix="pdl-gradebook-") as tmp:
        tmp = Path(tmp)
        template = f"sqlite:///{tmp / 'registered.db'}"
        start = time.perf_counter()
        nbgrader_course.generate_assignment(aid, db_url=template, root=tmp / "course")
        print(f"registering {aid} (nbgrader generate_assignment, the same for both routes): "
              f"{time.perf_counter() - start:.1f} s [{load_text()}]", flush=True)
        tests, written = cells(template, aid)
        first, again = summary_of(aid, n, tests, written), summary_of(aid, n, tests, written, changed=True)
        hand, hand_again = hand_of(n, written), hand_of(n, written, changed=True)
        routes = {"nbgrader's per-student API (before)": outputs._record_per_student,
                  "in bulk (record_in_gradebook)": lambda s, url, h: outputs.record_in_gradebook(
                      s, url, h, log=quiet, progress=False)}
        rows, contents = {}, {}
        for k, (label, write) in enumerate(routes.items()):
            db = tmp / f"gradebook-{k}.db"
            shutil.copyfile(tmp / "registered.db", db)
            url = f"sqlite:///{db}"
            if label.startswith("nbgrader"):
                write = (lambda fn: lambda s, u, h: fn(s, u, h, log=quiet))(write)
            new = timed(write, first, url, hand, profile=args.profile)
            mtime = os.stat(db).st_mtime_ns
            rerun = timed(write, first, url, hand)
            untouched = os.stat(db).st_mtime_ns == mtime
            changed = timed(write, again, url, hand_again)
            reader = read_per_submission if label.startswith("nbgrader") else handscores.read_gradebook_scores
            read = timed(reader, aid, url)
            rows[label] = (new, rerun, changed, read, untouched)
            contents[label] = (content(url, aid), reader(aid, url))
            print(f"{label}: a new gradebook {new:.2f} s, a rerun {rerun:.2f} s (file "
                  f"{'untouched' if untouched else 'written'}), a rerun with changes {changed:.2f} s; "
                  f"the hand scores read back {read:.2f} s [{load_text()}]", flush=True)
    (old, new) = rows.values()
    print(f"\n{aid}, {n} records, seconds [{load_text()}]:")
    print(f"  {'':40s} {'new gradebook':>14s} {'rerun':>8s} {'changes':>8s} {'read back':>10s}")
    for label, (a, b, c, d, _) in rows.items():
        print(f"  {label:40s} {a:14.2f} {b:8.2f} {c:8.2f} {d:10.2f}")
    print(f"  {'speed-up':40s} {old[0] / new[0]:13.1f}x {old[1] / new[1]:7.1f}x {old[2] / new[2]:7.1f}x "
          f"{old[3] / new[3]:9.1f}x")
    same = len({repr(sorted(c[0].items())) for c in contents.values()}) == 1
    same_read = len({repr(sorted(c[1].items())) for c in contents.values()}) == 1
    students = len(next(iter(contents.values()))[0])
    print(f"  the same gradebook from both routes ({students} students, every grade and comment): "
          f"{'yes' if same else 'NO'}; the same hand scores read back: {'yes' if same_read else 'NO'}")


if __name__ == "__main__":
    main()
