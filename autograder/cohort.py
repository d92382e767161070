"""``pdl grade-cohort``: a folder or zip of submissions in; grades, gradebook and feedback out.

* Finds submissions in the layouts people upload (``<student>/<id>.ipynb``,
  ``<student>.ipynb``, nbgrader's ``submitted/<student>/<id>/``, a Gradescope export zip)
  and reports everything it cannot match to a student.
* Grades each one with ``autograder.grading.grade`` (sandboxed, time and memory limits),
  N at a time in worker processes, or on a dask.distributed cluster (``--scheduler``).
* Resumable: each finished result is written at once to ``<out>/records/<student>.json``
  with the submission's hash and the assignment version; a rerun skips those.
* Records every submission in nbgrader's gradebook (score, or error and score 0), writes a
  CSV, per-student feedback (HTML and markdown) and a cohort report with figures.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import time
import warnings
import zipfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


MAX_UNZIPPED = 2 * 2**30


@dataclass
class Submission:
    student: str
    path: Path
    name: str = ""          # from Gradescope's metadata
    email: str = ""
    submitted_at: str = ""  # ISO 8601 UTC, from Gradescope's :created_at or nbgrader's timestamp.txt
    raw: str = ""           # the student's name as found (file, folder, Gradescope id), before cleaning
    note: str = ""          # how the id was made, when it is not simply the name found


def _clean_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", text).strip("._")


def _assign_ids(raws) -> dict[str, tuple[str, str]]:
    """raw name -> (student id, note). Ids are safe as file names; distinct names always get
    distinct ids: where cleaning makes several names one id (``carol``, ``carol!``; also
    ``Carol``), the name that is already clean keeps it and every other one gets a suffix from
    its own name's hash (stable across runs), with a note; a name with nothing usable
    (``...``) becomes ``student_<hash>``."""
    groups: dict[str, list[str]] = {}
    for raw in sorted(set(raws)):
        groups.setdefault((_clean_id(raw) or "student").lower(), []).append(raw)
    out = {}
    for members in groups.values():
        clean = [m for m in members if _clean_id(m) == m]
        keeper = clean[0] if clean else (members[0] if len(members) == 1 and _clean_id(members[0]) else None)
        for raw in members:
            base = _clean_id(raw) or "student"
            if raw == keeper:
                out[raw] = (base, "")
                continue
            sid = f"{base}_{hashlib.sha1(raw.encode()).hexdigest()[:6]}"
            others = [m for m in members if m != raw]
            why = (f"its cleaned name collides with {', '.join(map(repr, others))}" if others
                   else "it has no letters or digits to make an id from")
            out[raw] = (sid, f"{raw!r} is graded as {sid!r}: {why}")
    return out


def _student_id(text: str) -> str:
    """The id one name would get on its own (see ``_assign_ids`` for names that collide)."""
    return _assign_ids([text])[text][0]


def _utc_iso(value) -> str:
    """A time from Gradescope's metadata or nbgrader's timestamp.txt as ISO 8601 UTC ('' if unreadable)."""
    import datetime as dt

    from nbgrader.utils import parse_utc

    if value in (None, ""):
        return ""
    try:
        when = parse_utc(value if isinstance(value, dt.datetime) else str(value).strip())
    except (ValueError, OverflowError, TypeError):
        return ""
    return when.strftime("%Y-%m-%dT%H:%M:%SZ") if when else ""


def safe_extract(archive: Path, dest: Path) -> list[str]:
    """Extract a zip, refusing absolute paths, ``..``, links and zip bombs; returns what was refused."""
    refused, total = [], 0
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            name = info.filename
            parts = PurePosixPath(name.replace("\\", "/")).parts
            mode = info.external_attr >> 16
            if name.startswith(("/", "\\")) or ".." in parts or re.match(r"^[A-Za-z]:", name):
                refused.append(f"{name}: path outside the archive (refused)")
                continue
            if stat.S_ISLNK(mode):
                refused.append(f"{name}: symbolic link (refused)")
                continue
            total += info.file_size
            if total > MAX_UNZIPPED:
                refused.append(f"{name}: archive expands beyond {MAX_UNZIPPED >> 30} GB (refused)")
                break
            target = dest.joinpath(*parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
    return refused


def _gradescope_names(root: Path) -> dict[str, str]:
    """submission folder -> student id, from a Gradescope export's submission_metadata.yml."""
    meta = next(root.rglob("submission_metadata.yml"), None)
    if meta is None:
        return {}
    import yaml

    data = yaml.safe_load(meta.read_text()) or {}
    out = {}
    for folder, info in data.items():
        info = info or {}
        submitters = info.get(":submitters") or info.get("submitters") or []
        if submitters:
            s = submitters[0] or {}
            ident = s.get(":sid") or s.get("sid") or s.get(":email") or s.get("email") or s.get(":name") or s.get("name")
            if ident:
                out[str(folder)] = _student_id(str(ident))
    return out


def discover(root: Path, assignment: str) -> tuple[list[Submission], list[str]]:
    """Submissions under ``root`` and the list of things that could not be matched."""
    names = _gradescope_names(root)
    found: dict[str, Submission] = {}
    unmatched: list[str] = []
    notebooks = sorted(p for p in root.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    by_dir: dict[Path, list[Path]] = {}
    for nb in notebooks:
        by_dir.setdefault(nb.parent, []).append(nb)
    for nb in notebooks:
        rel = nb.relative_to(root)
        parts = rel.parts
        if len(parts) == 1:  # <student>.ipynb
            student = nb.stem
        elif len(parts) >= 3 and parts[-2] == assignment:  # nbgrader: [submitted/]<student>/<id>/<nb>
            student = parts[-3]
        else:  # <student>/<anything>.ipynb, or a Gradescope submission folder
            student = names.get(parts[-2], parts[-2])
            siblings = by_dir[nb.parent]
            if len(siblings) > 1:
                preferred = [s for s in siblings if s.stem == assignment]
                if nb not in preferred:
                    if preferred or nb != siblings[0]:
                        unmatched.append(f"{rel}: another notebook in the same folder was graded instead")
                        continue
        student = _student_id(student)
        if student in found:
            unmatched.append(f"{rel}: second notebook for student {student!r} (first: "
                             f"{found[student].path.relative_to(root)}); not graded")
            continue
        found[student] = Submission(student, nb)
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix != ".ipynb" and path.name != "submission_metadata.yml" \
                and ".ipynb_checkpoints" not in path.parts:
            unmatched.append(f"{path.relative_to(root)}: not a notebook; not graded")
    return sorted(found.values(), key=lambda s: s.student), unmatched


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pool_init() -> None:
    """In each pool process: a terminal's Ctrl-C is the parent's to handle; the parent's SIGTERM
    stops the submission in hand cleanly (its sandbox is torn down by ``grade``'s finally)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def stop(signum, frame):
        if _GRADING["busy"]:
            raise KeyboardInterrupt
        os._exit(1)
    signal.signal(signal.SIGTERM, stop)


_GRADING = {"busy": False}


def _grade_job(student: str, path: str, assignment: str, limits: dict) -> dict:
    """Runs in a worker process (or on a dask worker): one submission, one record."""
    from autograder.grading import grade
    from autograder.sandbox import SandboxUnavailable

    start = time.monotonic()
    _GRADING["busy"] = True
    try:
        report = grade(path, assignment, **limits).to_dict()
    except SandboxUnavailable:
        raise  # the host's problem, not this student's: the whole run stops
    except Exception as exc:  # noqa: BLE001 - a grader failure is recorded, the batch goes on
        report = {"assignment": assignment, "submission": path, "score": 0.0, "max_score": 0.0,
                  "tests": [], "errors": [f"grader failure: {type(exc).__name__}: {exc}"]}
    finally:
        _GRADING["busy"] = False
    report["student"] = student
    report["seconds"] = round(time.monotonic() - start, 2)
    return report


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def grade_cohort(source: Path, assignment: str, out: Path, *, workers: int | None = None,
                 timeout: float = 300, call_timeout: float = 60, memory_mb: int = 4096,
                 scheduler: str | None = None, progress: bool = True,
                 isolation: str | None = None) -> dict:
    """Grade everything under ``source`` (folder or zip); returns a summary dict.
    Refuses (``SandboxUnavailable``) before grading anything if the sandbox cannot be built;
    on Ctrl-C keeps every finished record, says how to resume and raises KeyboardInterrupt."""
    from autograder.grading import assignment_version
    from autograder.sandbox import resolve_isolation

    isolation = resolve_isolation(isolation)

    out.mkdir(parents=True, exist_ok=True)
    records = out / "records"
    records.mkdir(exist_ok=True)
    version = assignment_version(assignment)
    tmp = None
    unmatched: list[str] = []
    if source.is_file() and zipfile.is_zipfile(source):
        tmp = Path(tempfile.mkdtemp(prefix="pdl-cohort-"))
        unmatched += safe_extract(source, tmp)
        root = tmp
    elif source.is_dir():
        root = source
    else:
        raise FileNotFoundError(f"{source} is neither a folder nor a zip file")
    try:
        subs, more = discover(root, assignment)
        unmatched += more
        todo, done = [], {}
        for sub in subs:
            digest = file_hash(sub.path)
            rec_path = records / f"{sub.student}.json"
            if rec_path.exists():
                try:
                    rec = json.loads(rec_path.read_text())
                    if rec.get("sha256") == digest and rec.get("version") == version:
                        done[sub.student] = rec
                        continue
                except json.JSONDecodeError:
                    pass
            todo.append((sub, digest))
        limits = dict(timeout=timeout, call_timeout=call_timeout, memory_mb=memory_mb,
                      isolation=isolation)
        finished = 0
        try:
            for rec in _run(todo, assignment, limits, workers, scheduler, progress):
                rec["version"] = version
                _write_atomic(records / f"{rec['student']}.json", json.dumps(rec, indent=1))
                done[rec["student"]] = rec
                finished += 1
        except KeyboardInterrupt:
            print(f"\npdl: interrupted. {finished} of {len(todo)} submissions were graded in this run "
                  f"and are kept in {records}/ (with {len(subs) - len(todo)} from earlier runs); rerun "
                  "the same command to grade only the rest.", file=sys.stderr)
            raise
        results = [done[s.student] for s in subs]
        summary = {"assignment": assignment, "version": version, "graded": len(todo),
                   "reused": len(subs) - len(todo), "students": len(subs), "unmatched": unmatched,
                   "results": results}
        _write_atomic(out / "unmatched.txt", "\n".join(unmatched) + ("\n" if unmatched else ""))
        return summary
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _run(todo, assignment, limits, workers, scheduler, progress):
    """Yield records as they finish (so an interrupted run keeps every finished one)."""
    if not todo:
        return
    from tqdm import tqdm

    bar = tqdm(total=len(todo), unit="nb", desc=f"grading {assignment}", disable=not progress,
               smoothing=0.1)
    try:
        if scheduler:
            from distributed import Client, as_completed as dask_completed

            with Client(scheduler) as client:
                futures = [client.submit(_grade_job, sub.student, str(sub.path), assignment, limits,
                                         pure=False, key=f"grade-{sub.student}-{digest[:12]}")
                           for sub, digest in todo]
                hashes = {f.key: d for f, (_, d) in zip(futures, todo)}
                for fut in dask_completed(futures):
                    rec = fut.result()
                    rec["sha256"] = hashes[fut.key]
                    bar.update()
                    yield rec
            return
        workers = workers or os.cpu_count() or 1
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_pool_init)
        try:
            futures = {pool.submit(_grade_job, sub.student, str(sub.path), assignment, limits): digest
                       for sub, digest in todo}
            for fut in as_completed(futures):
                rec = fut.result()
                rec["sha256"] = futures[fut]
                bar.update()
                yield rec
        except BaseException:
            # Ctrl-C, a refused sandbox, or the caller stopped reading: stop the submissions in
            # hand (each tears its sandbox down) and drop the queue.
            for proc in list(getattr(pool, "_processes", {}).values()):
                try:
                    proc.terminate()
                except (OSError, AttributeError):
                    pass
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        else:
            pool.shutdown(wait=True)
    finally:
        bar.close()


# -- outputs ------------------------------------------------------------------------------
def test_names(results: list[dict]) -> list[str]:
    names: list[str] = []
    for rec in results:
        for t in rec.get("tests", []):
            if t["name"] not in names:
                names.append(t["name"])
    return names


def write_csv(results: list[dict], path: Path) -> None:
    names = test_names(results)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "score", "max_score", "error", *names])
        for rec in results:
            pts = {t["name"]: t["points"] for t in rec.get("tests", [])}
            w.writerow([rec["student"], rec["score"], rec["max_score"], "; ".join(rec.get("errors", [])),
                        *[pts.get(n, 0) for n in names]])


def feedback_markdown(rec: dict) -> str:
    lines = [f"## {rec['assignment']}: {rec['score']:g} / {rec['max_score']:g}", ""]
    for t in rec.get("tests", []):
        mark = "✅" if t["passed"] else "❌"
        lines.append(f"- {mark} **{t['name']}** ({t['points']:g}/{t['max_points']:g}): {t['message']}")
    if rec.get("errors"):
        lines += ["", "Notes from the grader:"] + [f"- {e}" for e in rec["errors"]]
    manual = rec.get("manual") or []
    if manual:
        got = [m for m in manual if not m.get("blank", m.get("missing"))]
        total = sum(float(m.get("points", 0)) for m in manual)
        lines += ["", f"Written answers: {len(got)} of {len(manual)} answered ({total:g} points, graded by hand; "
                      "not included in the score above)."]
        lines += [f"- {m.get('question', '?')}: no answer cell found" for m in manual if m.get("missing")]
        lines += [f"- {m.get('question', '?')}: left blank" for m in manual
                  if m.get("blank") and not m.get("missing")]
    lines += ["", f"_Graded against version {rec.get('version', '?')}. Hidden tests use inputs you "
                  "have not seen; the messages say what was checked, not the expected values._"]
    return "\n".join(lines) + "\n"


def feedback_html(rec: dict) -> str:
    rows = "".join(
        f"<tr class='{'ok' if t['passed'] else 'bad'}'><td>{html.escape(t['name'])}</td>"
        f"<td>{t['points']:g} / {t['max_points']:g}</td><td>{html.escape(t['message'])}</td></tr>"
        for t in rec.get("tests", []))
    notes = "".join(f"<li>{html.escape(e)}</li>" for e in rec.get("errors", []))
    return (f"<!doctype html><meta charset='utf-8'><title>{html.escape(rec['student'])}</title>"
            "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
            "td{padding:.3em .6em;border-bottom:1px solid #ddd}.ok td:first-child{color:#176}"
            ".bad td:first-child{color:#a22}</style>"
            f"<h1>{html.escape(rec['assignment'])}</h1><p>Student: {html.escape(rec['student'])}. "
            f"Score: <b>{rec['score']:g} / {rec['max_score']:g}</b></p>"
            f"<table><tr><th>test</th><th>points</th><th>what was checked</th></tr>{rows}</table>"
            + (f"<h2>Notes from the grader</h2><ul>{notes}</ul>" if notes else "")
            + f"<p><small>Version {html.escape(str(rec.get('version', '?')))}.</small></p>")


def _figure_png(draw, rows: int = 0) -> str:
    import base64
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, max(3.6, 0.28 * rows + 1.2)))
    draw(ax)
    fig.tight_layout()
    if rows:  # long test names on the y axis need room
        fig.subplots_adjust(left=0.42)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def cohort_report(summary: dict) -> str:
    results = summary["results"]
    names = test_names(results)
    scores = [r["score"] for r in results]
    maxes = [r["max_score"] for r in results if r["max_score"]]
    full = max(maxes) if maxes else 1.0
    pass_rate = [sum(any(t["name"] == n and t["passed"] for t in r.get("tests", [])) for r in results)
                 / max(len(results), 1) for n in names]
    slow = sorted(results, key=lambda r: -r.get("seconds", 0))[:10]

    hist = _figure_png(lambda ax: (ax.hist(scores, bins=min(20, max(5, len(scores) // 3)), range=(0, full),
                                           color="#4a7"), ax.set_xlabel("score"), ax.set_ylabel("students"),
                                   ax.set_title("score distribution")))
    rates = _figure_png(lambda ax: (ax.barh(range(len(names)), pass_rate, color="#47a"),
                                    ax.set_yticks(range(len(names)), names, fontsize=7), ax.set_xlim(0, 1),
                                    ax.set_xlabel("fraction passing"), ax.set_title("per-test pass rate")), rows=len(names))
    slowest = _figure_png(lambda ax: (ax.barh(range(len(slow)), [r.get("seconds", 0) for r in slow], color="#a74"),
                                      ax.set_yticks(range(len(slow)), [r["student"] for r in slow], fontsize=7),
                                      ax.set_xlabel("seconds"), ax.set_title("slowest submissions")), rows=len(slow))
    errors = [r for r in results if r.get("errors")]
    err_rows = "".join(f"<tr><td>{html.escape(r['student'])}</td><td>{html.escape(r['errors'][0])}</td></tr>"
                       for r in errors)
    unmatched = "".join(f"<li>{html.escape(u)}</li>" for u in summary["unmatched"])
    mean = sum(scores) / len(scores) if scores else 0.0
    return (f"<!doctype html><meta charset='utf-8'><title>{summary['assignment']} cohort</title>"
            "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}td{padding:.2em .5em}</style>"
            f"<h1>{summary['assignment']}: {len(results)} submissions</h1>"
            f"<p>Version {summary['version']}. Mean {mean:.2f} / {full:g}; "
            f"{sum(s == full for s in scores)} full marks; {len(errors)} with grader notes.</p>"
            f"<img src='{hist}'><img src='{rates}'><img src='{slowest}'>"
            f"<h2>Grader notes (first per submission)</h2><table>{err_rows}</table>"
            f"<h2>Not matched to a student</h2><ul>{unmatched or '<li>none</li>'}</ul>")


def record_in_gradebook(summary: dict, db_url: str | None = None) -> None:
    """Write scores (and errors) into nbgrader's gradebook through nbgrader's own API."""
    from nbgrader.api import Gradebook, MissingEntry

    from autograder import nbgrader_course

    aid = summary["assignment"]
    db_url = db_url or nbgrader_course.db_url()
    if db_url.startswith("sqlite:///") and not db_url.startswith("sqlite:////"):
        # relative to where pdl was started; nbgrader's own steps run elsewhere
        db_url = "sqlite:///" + str(Path(db_url[len("sqlite:///"):]).resolve())
    nbgrader_course.ensure_alembic_on_path()
    with Gradebook(db_url) as gb:
        try:
            gb.find_assignment(aid)
        except MissingEntry:
            nbgrader_course.generate_assignment(aid, db_url=db_url)
    with Gradebook(db_url) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy autoflush chatter inside nbgrader's API
        for rec in summary["results"]:
            gb.update_or_create_student(rec["student"])
            gb.update_or_create_submission(aid, rec["student"])
            points = {t["name"]: t["points"] for t in rec.get("tests", [])}
            for grade in gb.find_submission_notebook(aid, aid, rec["student"]).grades:
                if grade.cell.name in points or grade.cell.cell_type == "code":
                    grade.auto_score = float(points.get(grade.cell.name, 0.0))
            comments = gb.find_submission_notebook(aid, aid, rec["student"]).comments
            if comments:
                comments[0].auto_comment = ("; ".join(rec.get("errors", []))[:4000] or None)
            gb.db.commit()


def written_answers_html(summary: dict) -> str:
    """Grading by question: each written question with its model answer and rubric, then every
    student's answer to it (what a TA grading by hand reads; Gradescope's 'grade by question')."""
    from autograder.source import load

    questions = {q.name: q for q in load(summary["assignment"]).written_questions()}
    by_question: dict[str, list] = {}
    for rec in summary["results"]:
        for m in rec.get("manual") or []:
            by_question.setdefault(str(m.get("question")), []).append((rec["student"], m))
    pre = "<div class='t'>{}</div>"
    parts = []
    for name, q in questions.items():
        answers = "".join(
            f"<h3>{html.escape(student)}</h3>"
            + ("<p class='miss'>no answer cell</p>" if m.get("missing") else
               "<p class='miss'>left blank</p>" if m.get("blank") else pre.format(html.escape(m.get("text", ""))))
            for student, m in sorted(by_question.get(name, []), key=lambda pair: pair[0]))
        unit = "point" if q.points == 1 else "points"
        parts.append(f"<section><h2>{html.escape(name)} ({q.points:g} {unit})</h2>{pre.format(html.escape(q.prompt))}"
                     f"<details><summary>Model answer and rubric</summary>{pre.format(html.escape(q.model_answer))}"
                     f"</details>{answers or '<p>No submissions.</p>'}</section>")
    return (f"<!doctype html><meta charset='utf-8'><title>{html.escape(summary['assignment'])}: written answers</title>"
            "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}.t{white-space:pre-wrap;"
            "border-left:3px solid #ccc;padding-left:1em}.miss{color:#a22}section{margin-bottom:3em}</style>"
            f"<h1>{html.escape(summary['assignment'])}: written answers, by question</h1>"
            "<p>Scores go in <code>written_scores.csv</code> beside this file.</p>" + "".join(parts))


def write_written_scores(summary: dict, path: Path) -> None:
    """One row per student and written question, score and comment for the TA to fill in.
    Scores and comments already entered in an existing file are kept (re-runs add students)."""
    entered = {}
    if path.exists():
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                entered[(row.get("student"), row.get("question"))] = (row.get("score", ""), row.get("comment", ""))
    rows = [["student", "question", "max_points", "answered", "score", "comment"]]
    for rec in summary["results"]:
        for m in rec.get("manual") or []:
            score, comment = entered.pop((rec["student"], str(m.get("question", ""))), ("", ""))
            answered = "no cell" if m.get("missing") else "blank" if m.get("blank") else "yes"
            rows.append([rec["student"], m.get("question", ""), m.get("points", ""), answered, score, comment])
    rows += [[student, question, "", "not in this run", score, comment]
             for (student, question), (score, comment) in entered.items() if score or comment]
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    _write_atomic(path, buf.getvalue())


def write_outputs(summary: dict, out: Path, csv_path: Path | None = None) -> None:
    fb = out / "feedback"
    fb.mkdir(parents=True, exist_ok=True)
    for rec in summary["results"]:
        _write_atomic(fb / f"{rec['student']}.md", feedback_markdown(rec))
        _write_atomic(fb / f"{rec['student']}.html", feedback_html(rec))
    _write_atomic(out / "report.html", cohort_report(summary))
    write_csv(summary["results"], csv_path or out / "grades.csv")
    if any(rec.get("manual") for rec in summary["results"]):
        _write_atomic(out / "written.html", written_answers_html(summary))
        write_written_scores(summary, out / "written_scores.csv")
