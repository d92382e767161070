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

import hashlib
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


def _gradescope_meta(root: Path) -> dict[str, dict]:
    """submission folder -> {"id", "name", "email", "submitted_at", "note"} from a Gradescope
    export's submission_metadata.yml; ``group`` lists every submitter of a group submission
    (each of them gets the grade)."""
    meta = next(root.rglob("submission_metadata.yml"), None)
    if meta is None:
        return {}
    import yaml

    try:
        data = yaml.safe_load(meta.read_text(errors="replace")) or {}
    except yaml.YAMLError:
        return {}
    out = {}
    for folder, info in (data.items() if isinstance(data, dict) else []):
        info = info if isinstance(info, dict) else {}

        def get(d, key):
            value = d.get(f":{key}", d.get(key)) if isinstance(d, dict) else None
            return "" if value is None else str(value).strip()

        submitters = info.get(":submitters") or info.get("submitters") or []
        submitters = [s for s in submitters if isinstance(s, dict)] if isinstance(submitters, list) else []
        first = submitters[0] if submitters else {}
        ident = get(first, "sid") or get(first, "email") or get(first, "name")
        if not ident:
            continue
        group = [{"id": get(s, "sid") or get(s, "email") or get(s, "name"), "name": get(s, "name"),
                  "email": get(s, "email")} for s in submitters]
        group = [m for m in group if m["id"]]
        names = [m["name"] or m["id"] for m in group]
        out[str(folder)] = {
            "id": ident, "name": get(first, "name"), "email": get(first, "email"), "group": group,
            "submitted_at": _utc_iso(info.get(":created_at", info.get("created_at"))),
            "note": f"group submission of {', '.join(names)}" if len(group) > 1 else ""}
    return out


def discover(root: Path, assignment: str) -> tuple[list[Submission], list[str]]:
    """Submissions under ``root`` and the list of things that could not be matched."""
    meta = _gradescope_meta(root)
    found: dict[str, Submission] = {}  # by the name as found
    unmatched: list[str] = []
    used: set[Path] = set()  # files that belong to a submission (nbgrader's timestamp.txt)
    notebooks = sorted(p for p in root.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    by_dir: dict[Path, list[Path]] = {}
    for nb in notebooks:
        by_dir.setdefault(nb.parent, []).append(nb)
    for nb in notebooks:
        rel = nb.relative_to(root)
        parts = rel.parts
        info: dict = {}
        if len(parts) == 1:  # <student>.ipynb
            student = nb.stem
        elif len(parts) >= 3 and parts[-2] == assignment:  # nbgrader: [submitted/]<student>/<id>/<nb>
            student = parts[-3]
            stamp = nb.parent / "timestamp.txt"
            if stamp.is_file():
                used.add(stamp)
                info["submitted_at"] = _utc_iso(stamp.read_text(errors="replace")[:200])
        else:  # <student>/<anything>.ipynb, or a Gradescope submission folder
            info = meta.get(parts[-2], {})
            student = info.get("id") or parts[-2]
            siblings = by_dir[nb.parent]
            if len(siblings) > 1:
                preferred = [s for s in siblings if s.stem == assignment]
                if nb not in preferred:
                    if preferred or nb != siblings[0]:
                        unmatched.append(f"{rel}: another notebook in the same folder was graded instead")
                        continue
        if student in found:
            unmatched.append(f"{rel}: second notebook for student {student!r} (first: "
                             f"{found[student].path.relative_to(root)}); not graded")
            continue
        found[student] = Submission("", nb, name=info.get("name", ""), email=info.get("email", ""),
                                    submitted_at=info.get("submitted_at", ""), raw=student,
                                    note=info.get("note", ""))
        for member in info.get("group", [])[1:]:  # the other submitters of a group submission
            if member["id"] in found:
                unmatched.append(f"{rel}: {member['id']!r} is in two submissions; only the first counts")
                continue
            found[member["id"]] = Submission("", nb, name=member["name"], email=member["email"],
                                             submitted_at=info.get("submitted_at", ""),
                                             raw=member["id"], note=info.get("note", ""))
    ids = _assign_ids(found)
    for raw, sub in found.items():
        sub.student, note = ids[raw]
        sub.note = "; ".join(n for n in (note, sub.note) if n)
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix != ".ipynb" and path.name != "submission_metadata.yml" \
                and path not in used and ".ipynb_checkpoints" not in path.parts:
            unmatched.append(f"{path.relative_to(root)}: not a notebook; not graded")
    return sorted(found.values(), key=lambda s: s.student), unmatched


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pool_init() -> None:
    """In each pool process: a terminal's Ctrl-C is the parent's to handle; the parent's SIGTERM
    stops the submission in hand cleanly (its sandbox is torn down by ``grade``'s finally)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def stop(signum, frame):
        _GRADING["stopping"] = True
        if _GRADING["busy"]:
            raise KeyboardInterrupt
        os._exit(1)
    signal.signal(signal.SIGTERM, stop)
    try:  # if the parent dies (kill -9), so do we, instead of grading on for nobody
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


_GRADING = {"busy": False, "stopping": False}


def _grade_job(student: str, path: str, assignment: str, limits: dict) -> dict:
    """Runs in a worker process (or on a dask worker): one submission, one record."""
    from autograder.grading import grade
    from autograder.sandbox import SandboxUnavailable

    start = time.monotonic()
    if _GRADING["stopping"]:  # queued before the run was stopped
        raise KeyboardInterrupt
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


def with_identity(rec: dict, sub: Submission) -> dict:
    """The record with who submitted and when (from the metadata found this run, not the record)."""
    return {**rec, "student": sub.student, "name": sub.name, "email": sub.email,
            "submitted_at": sub.submitted_at, "found_as": sub.raw}


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
        if isolation == "account":
            workers = 1  # one account for every submission: never two of them at once
        sharing: dict[str, list[Submission]] = {}  # a group submission is graded once for all
        for sub, _ in todo:
            sharing.setdefault(str(sub.path), []).append(sub)
        unique = [(sub, digest) for sub, digest in todo if sharing[str(sub.path)][0] is sub]
        finished = 0
        try:
            for rec in _run(unique, assignment, limits, workers, scheduler, progress):
                rec["version"] = version
                for sub in sharing[rec["submission"]]:  # _grade_job records the path it was given
                    copy = dict(rec, student=sub.student)
                    _write_atomic(records / f"{sub.student}.json", json.dumps(copy, indent=1))
                    done[sub.student] = copy
                    finished += 1
        except KeyboardInterrupt:
            print(f"\npdl: interrupted. {finished} of {len(todo)} submissions were graded in this run "
                  f"and are kept in {records}/ (with {len(subs) - len(todo)} from earlier runs); rerun "
                  "the same command to grade only the rest.", file=sys.stderr)
            raise
        results = [with_identity(done[s.student], s) for s in subs]
        summary = {"assignment": assignment, "version": version, "graded": len(todo),
                   "reused": len(subs) - len(todo), "students": len(subs), "unmatched": unmatched,
                   "results": results, "notes": [s.note for s in subs if s.note]}
        _write_atomic(out / "unmatched.txt", "\n".join(unmatched) + ("\n" if unmatched else ""))
        return summary
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def progress_bar(total: int, desc: str, progress: bool, limits: dict, patience: float = 5.0, file=None):
    """A tqdm bar whose ETA does not pretend. tqdm extrapolates from the last finishes, so while
    a slow or hung submission waits out its limits it would show a short ETA, frozen. Here, once
    nothing has finished for well over the usual gap between finishes, the ETA reads ``?`` and
    the bar says how long it has been waiting and what the limits are (refreshed every second)."""
    import threading

    from tqdm import tqdm

    limit = []
    if limits.get("call_timeout"):
        limit.append(f"{limits['call_timeout']:g} s per call")
    if limits.get("timeout"):
        limit.append(f"{limits['timeout']:g} s per notebook")
    note = f" (limits: {', '.join(limit)})" if limit else ""

    class HonestBar(tqdm):
        def __init__(self, *args, **kwargs):
            self._start = self._last = time.monotonic()
            self._stalled = False
            self._stop = threading.Event()
            super().__init__(*args, **kwargs)
            if not self.disable:
                threading.Thread(target=self._watch, daemon=True).start()

        def update(self, n=1):
            self._last = time.monotonic()
            if self._stalled:
                self._stalled = False
                self.set_postfix_str("", refresh=False)
            return super().update(n)

        def _watch(self):
            while not self._stop.wait(1.0):
                done, now = self.n, time.monotonic()
                if self.total and done >= self.total:
                    continue
                usual = (self._last - self._start) / done if done else 0.0
                waited = now - self._last
                if done and waited > max(2 * usual, patience):
                    self._stalled = True
                    self.set_postfix_str(f"waiting {waited:.0f} s for a slow submission{note}")

        @property
        def format_dict(self):
            d = super().format_dict
            if self._stalled:
                d["rate"] = 0  # tqdm then prints the ETA as '?'
            return d

        def close(self):
            self._stop.set()
            super().close()

    return HonestBar(total=total, unit="nb", desc=desc, disable=not progress, smoothing=0.1, file=file)


def _run(todo, assignment, limits, workers, scheduler, progress):
    """Yield records as they finish (so an interrupted run keeps every finished one)."""
    if not todo:
        return
    bar = progress_bar(len(todo), f"grading {assignment}", progress, limits)
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
# The pages themselves are in autograder/pages.py, the TA's hand scores in autograder/handscores.py.
from autograder.pages import (cohort_report, feedback_html, feedback_markdown,  # noqa: E402
                              test_names, written_answers_html)


def resolve_db_url(db_url: str | None) -> str:
    """The gradebook URL (default: the course's); a relative sqlite path is taken from where pdl runs."""
    from autograder import nbgrader_course

    db_url = db_url or nbgrader_course.db_url()
    if db_url.startswith("sqlite:///") and not db_url.startswith("sqlite:////"):
        db_url = "sqlite:///" + str(Path(db_url[len("sqlite:///"):]).resolve())
    return db_url


def _maxima(summary: dict) -> dict:
    return {(rec["student"], str(m.get("question", ""))): float(m.get("points", 0) or 0)
            for rec in summary["results"] for m in rec.get("manual") or []}


def hand_scores(summary: dict, out: Path, db_url: str | None = None):
    """The TA's scores and comments for written answers, merged from ``<out>/written_scores.csv``
    and (``db_url``) the gradebook's formgrader grades; see autograder/handscores.py for the rule."""
    from autograder import handscores
    from autograder.pages import complete_answers

    return handscores.merge(out, summary["assignment"], _maxima(complete_answers(summary)), db_url)


def write_csv(results: list[dict], path: Path, hand=None, deadline=None) -> None:
    """grades.csv: who and when, the tests' score (auto), the hand-graded written answers
    (written; blank answers count 0, ``written_ungraded`` answers are still to be graded), their
    sum (total), the grader's notes, then one column per test. Text that a spreadsheet would run
    as a formula gets a leading quote."""
    from autograder.handscores import write_rows
    from autograder.pages import late, notes, written

    names = test_names(results)
    rows = [["student", "name", "email", "submitted_at", "late", "late_by", "auto", "auto_max", "written",
             "written_max", "written_ungraded", "total", "total_max", "error", *names]]
    for rec in results:
        pts = {t["name"]: t["points"] for t in rec.get("tests", [])}
        w = written(rec, hand)
        flag, by = late(rec, deadline)
        rows.append([rec["student"], rec.get("name", ""), rec.get("email", ""), rec.get("submitted_at", ""), flag, by,
                     rec["score"], rec["max_score"], w["score"], w["max"], w["ungraded"],
                     rec["score"] + w["score"], rec["max_score"] + w["max"], "; ".join(notes(rec)),
                     *[pts.get(n, 0) for n in names]])
    write_rows(path, rows)


def write_written_scores(summary: dict, path: Path, hand=None) -> dict:
    """``written_scores.csv``: one row per student and written question, with the merged score
    and comment (empty until the TA fills them in). Rows of students absent from this run that
    hold a score or comment are kept. Returns what was written, by (student, question)."""
    from autograder.handscores import read_csv_scores, write_rows
    from autograder.pages import answer_state

    if hand is None:  # no merge asked for: keep what the file holds
        from autograder.handscores import HandScores
        hand = HandScores(values=read_csv_scores(path))
    rows = [["student", "question", "max_points", "answered", "score", "comment"]]
    written: dict = {}
    for rec in summary["results"]:
        for m in rec.get("manual") or []:
            key = (rec["student"], str(m.get("question", "")))
            value = hand.get(*key)
            rows.append([key[0], key[1], m.get("points", ""), answer_state(m), value["score"], value["comment"]])
            written[key] = value
    for key, value in sorted(hand.values.items()):
        if key not in written and (value["score"] or value["comment"]):
            rows.append([key[0], key[1], "", "not in this run", value["score"], value["comment"]])
            written[key] = value
    write_rows(path, rows)
    return written


def record_in_gradebook(summary: dict, db_url: str | None = None, hand=None, log=print) -> None:
    """Write everything into nbgrader's gradebook through nbgrader's own API: each student (with
    name and email when known), the submission (with its time), the tests' scores, errors as a
    comment, and the written answers' hand scores and comments as manual grades (so
    ``nbgrader export`` and formgrader show them). A new assignment is registered with nbgrader's
    ``generate_assignment`` in a temporary course folder: nothing is written into the course."""
    import datetime as dt

    from nbgrader.api import Gradebook, MissingEntry

    from autograder import nbgrader_course
    from autograder.pages import answer_state, deadline_of

    aid = summary["assignment"]
    db_url = resolve_db_url(db_url)
    nbgrader_course.ensure_alembic_on_path()
    with Gradebook(db_url) as gb:
        try:
            gb.find_assignment(aid)
            known = True
        except MissingEntry:
            known = False
    if not known:
        log(f"nbgrader: registering {aid} in the gradebook (nbgrader generate_assignment in a temporary "
            "folder; this takes a while) ...")
        sys.stdout.flush()
        start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="pdl-nbgrader-") as root:
            nbgrader_course.generate_assignment(aid, db_url=db_url, root=Path(root))
        log(f"nbgrader: {aid} registered in {time.monotonic() - start:.0f} s.")
    deadline = deadline_of(aid)
    with Gradebook(db_url) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy autoflush chatter inside nbgrader's API
        if deadline is not None:
            gb.update_or_create_assignment(aid, duedate=deadline)
        for rec in summary["results"]:
            student = rec["student"]
            person = {}
            if rec.get("name"):
                first, _, last = str(rec["name"]).strip().rpartition(" ")
                person.update(first_name=first or last, last_name=last if first else None)
            if rec.get("email"):
                person["email"] = rec["email"]
            gb.update_or_create_student(student, **{k: v for k, v in person.items() if v})
            when = {}
            if rec.get("submitted_at"):
                when["timestamp"] = dt.datetime.strptime(rec["submitted_at"], "%Y-%m-%dT%H:%M:%SZ")
            gb.update_or_create_submission(aid, student, **when)
            notebook = gb.find_submission_notebook(aid, aid, student)
            points = {t["name"]: t["points"] for t in rec.get("tests", [])}
            manual = {str(m.get("question")): m for m in rec.get("manual") or []}
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
            errors = "; ".join(rec.get("errors", []))[:4000] or None
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


def write_outputs(summary: dict, out: Path, csv_path: Path | None = None, hand=None) -> None:
    """Feedback pages, report, grades.csv, and (with written answers) written.html and
    written_scores.csv. ``hand``: merged hand scores (``hand_scores``); by default the CSV's."""
    from autograder.handscores import remember_csv
    from autograder.pages import complete_answers, deadline_of

    complete_answers(summary)
    if hand is None:
        hand = hand_scores(summary, out)
    deadline = deadline_of(summary["assignment"])
    fb = out / "feedback"
    fb.mkdir(parents=True, exist_ok=True)
    for rec in summary["results"]:
        _write_atomic(fb / f"{rec['student']}.md", feedback_markdown(rec, hand, deadline))
        _write_atomic(fb / f"{rec['student']}.html", feedback_html(rec, hand, deadline))
    _write_atomic(out / "report.html", cohort_report(summary, hand, deadline))
    write_csv(summary["results"], csv_path or out / "grades.csv", hand, deadline)
    if any(rec.get("manual") for rec in summary["results"]) or hand.values:
        _write_atomic(out / "written.html", written_answers_html(summary, hand))
        remember_csv(out, hand, write_written_scores(summary, out / "written_scores.csv", hand))
