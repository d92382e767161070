"""``pdl grade-cohort``: a folder or zip of submissions in; grades, gradebook and feedback out.

* Finds submissions (``autograder.cohort.layouts``) and reports everything it cannot match
  to a student.
* Grades each one with ``autograder.run.grading.grade`` (sandboxed, time and memory limits),
  N at a time in worker processes, or on a dask.distributed cluster (``--scheduler``).
* Resumable: each finished result is written at once to ``<out>/records/<student>.json``
  with the submission's hash, the assignment version and who it belongs to (the ids are fixed
  in ``<out>/ids.json``); a rerun skips those.
* ``autograder.cohort.outputs`` records every submission in nbgrader's gradebook (score, or
  error and score 0), writes a CSV, per-student feedback (HTML and markdown) and a cohort
  report with figures.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import zipfile
import zlib
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from tqdm import tqdm

from autograder.cohort.layouts import Submission, discover, file_hash, safe_extract
from autograder.cohort.record import CohortSummary, Record
from autograder.course.source import known_assignment
from autograder.run.grading import grade, warm
from autograder.run.isolation import SandboxUnavailable, resolve_isolation
from autograder.run.templates import start_templates
from autograder.run.versions import assignment_version


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
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


_GRADING = {"busy": False, "stopping": False}


def _grade_job(student: str, path: str, assignment: str, limits: dict) -> dict:
    """Runs in a worker process (or on a dask worker): one submission, one record (as
    ``Record.to_dict``: plain data across the process boundary)."""

    start = time.monotonic()
    if _GRADING["stopping"]:  # queued before the run was stopped
        raise KeyboardInterrupt
    _GRADING["busy"] = True
    try:
        report = _graded_or_not(path, assignment, limits)
    finally:
        _GRADING["busy"] = False
    report.student = student
    report.seconds = round(time.monotonic() - start, 2)
    return report.to_dict()


GRADER_TRIES = 2  # a grader failure is tried once more before the submission is left "not graded"


def _graded_or_not(path: str, assignment: str, limits: dict) -> Record:
    """The submission's record; where the grader itself fails ``GRADER_TRIES`` times (an exception
    of its own, a set-up race, its child killed from outside), a record marked ``not_graded`` with
    the reason: no grade, never a 0 (the next run grades it again)."""
    why = ""
    for _ in range(GRADER_TRIES):
        try:
            warm(assignment, limits.get("isolation"), mistakes=True)  # once per worker process, for every fork
            return Record.from_dict(grade(path, assignment, **limits).to_dict())
        except SandboxUnavailable:
            raise  # the host's problem, not this student's: the whole run stops
        except Exception as exc:  # noqa: BLE001 - a grader failure is recorded, the batch goes on
            why = f"{type(exc).__name__}: {exc}"
    return not_graded(path, assignment, limits, f"the grader failed ({why})", f"grader failure: {why}")


def not_graded(path: str, assignment: str, limits: dict, said: str, reason: str) -> Record:
    """The record of a submission the grader could not grade: no score, never a 0 (the next run
    grades it again); ``said`` tells the student why, ``reason`` is the gradebook's."""
    return Record(assignment=assignment, submission=path, score=0.0, max_score=0.0,
                  errors=[f"not graded: {said}; grading it again may succeed"],
                  isolation=limits.get("isolation") or "", not_graded=reason)


SCHEDULER_TIMEOUT_S = 10  # reaching a dask scheduler before anything is graded


def reach_scheduler(scheduler: str) -> None:
    """``CohortInputError`` in words when no dask scheduler answers at ``scheduler``, before any
    submission is read or graded."""
    try:
        from distributed import Client  # optional and heavy: only with --scheduler
    except ImportError:
        raise CohortInputError("--scheduler needs dask.distributed: pip install 'distributed'") from None
    try:
        with Client(scheduler, timeout=SCHEDULER_TIMEOUT_S):
            pass
    except Exception as exc:  # noqa: BLE001 - dask raises OSError, TimeoutError, ValueError for a bad address
        raise CohortInputError(
            f"no dask scheduler answers at {scheduler} (after {SCHEDULER_TIMEOUT_S} s: {type(exc).__name__}: "
            f"{str(exc)[:200]}); start one with `dask scheduler` and its workers with `dask worker "
            f"<address>`, or check the address (tcp://host:8786); nothing was graded") from None


def read_record(path: Path) -> Record | None:
    """The record in ``path`` (``<out>/records/<student>.json``), None if there is none or it is
    not a record (a damaged file is graded again)."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    try:
        return Record.from_dict(data)
    except (TypeError, ValueError):
        return None


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")  # names as written, in any script
    os.replace(tmp, path)


def with_identity(rec: Record, sub: Submission) -> Record:
    """The record with who submitted and when (from the metadata found this run, not the record):
    the name as written, and what the LMS says (its id of the student, its late flag)."""
    return rec.with_(submission=str(sub.path),  # where the file is this run (a zip's extraction moves)
                     student=sub.student, name=sub.name, email=sub.email,
                     submitted_at=sub.submitted_at, found_as=sub.raw, identity=sub.key,
                     lms=sub.lms, lms_id=sub.lms_id, lms_late=sub.late)


class CohortInputError(ValueError):
    """What ``grade_cohort`` was given cannot be graded (an unknown assignment, a missing or corrupt
    source); raised before anything is graded or written."""


def _unpack(source: Path) -> tuple[Path | None, list[str]]:
    """A zip's members in a new temporary folder: (that folder, what was refused); (None, []) for a
    folder. ``CohortInputError`` (nothing left behind) for anything else."""
    if source.is_dir():
        return None, []
    if not source.exists():
        raise CohortInputError(f"{source} does not exist; give the folder or the zip file of the submissions")
    if not source.is_file():
        raise CohortInputError(f"{source} is neither a folder nor a zip file")
    if not zipfile.is_zipfile(source):
        with open(source, "rb") as f:
            zip_like = source.suffix.lower() == ".zip" or f.read(2) == b"PK"
        if zip_like:
            raise CohortInputError(f"{source} is a corrupt zip file (no zip directory at its end: a download "
                                   "cut short?); re-download it")
        raise CohortInputError(f"{source} is neither a folder nor a zip file")
    tmp = Path(tempfile.mkdtemp(prefix="pdl-cohort-"))
    try:
        return tmp, safe_extract(source, tmp)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise CohortInputError(f"{source} is a corrupt zip file ({exc}); re-download it") from None
    except RuntimeError as exc:  # zipfile's word for an encrypted member
        shutil.rmtree(tmp, ignore_errors=True)
        raise CohortInputError(f"{source} could not be unpacked ({exc}); zip the submissions without a password") \
            from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


SHRINK = 0.5  # a run that finds fewer than this share of the records already in --out is refused


def _refuse_shrink(source: Path, root: Path, assignment: str, out: Path, zipped: bool) -> None:
    """``CohortInputError`` when ``source`` holds no submission, or far fewer than ``out`` has
    records of: the outputs (grades.csv, the LMS exports) would be rewritten with fewer rows."""
    found, _ = discover(root, assignment, None, zipped=zipped)  # no id registry: nothing written
    records = out / "records"
    kept = sum(1 for _ in records.glob("*.json")) if records.is_dir() else 0
    if not found:
        raise CohortInputError(f"no notebook of {assignment} found in {source}; give the folder or zip of the "
                               f"submissions (nothing in {out} was changed)")
    if kept and len(found) < SHRINK * kept:
        raise CohortInputError(f"{len(found)} submissions found in {source}, fewer than half of the {kept} already "
                               f"graded in {out}: its grades.csv and LMS exports would list only these. Give the "
                               "whole cohort, another --out, or --allow-shrink (nothing was changed)")


def grade_cohort(source: Path, assignment: str, out: Path, *, workers: int | None = None,
                 timeout: float = 300, call_timeout: float = 60, memory_mb: int = 4096,
                 scheduler: str | None = None, progress: bool = True,
                 isolation: str | None = None, keep_files: contextlib.ExitStack | None = None,
                 allow_shrink: bool = False, times: Path | None = None) -> CohortSummary:
    """Grade everything under ``source`` (folder or zip); returns a ``CohortSummary``.
    Refuses before grading or writing anything: ``CohortInputError`` for an unknown assignment (the
    nearest ids named), a source that is missing, corrupt or neither a folder nor a zip, or one with
    no submission or fewer than half as many as ``out`` has records of (unless ``allow_shrink``);
    ``SandboxUnavailable`` if the sandbox cannot be built. On Ctrl-C keeps every finished record,
    says how to resume and raises KeyboardInterrupt. A zip is extracted to a temporary folder, removed
    when grading ends, or with ``keep_files`` when that stack closes (so that the results'
    ``submission`` paths can still be read, e.g. by the similarity of code, while outputs are written).
    ``times``: a file of submission times (Canvas's submissions JSON, or a times.csv) given
    explicitly, in place of one at the submissions' root (``layouts.discover``); refused if missing."""

    try:
        known_assignment(assignment)
    except ValueError as exc:
        raise CohortInputError(str(exc)) from None
    if times is not None and not Path(times).is_file():
        raise CohortInputError(f"{times}: no such file; give Canvas's submissions JSON or a times.csv "
                               "(student,submitted_at) as the submission times")
    if scheduler:
        reach_scheduler(scheduler)
    tmp, unmatched = _unpack(source)
    root = tmp or source
    if tmp is not None and keep_files is not None:
        keep_files.callback(shutil.rmtree, tmp, ignore_errors=True)
    try:
        if not allow_shrink:
            _refuse_shrink(source, root, assignment, out, zipped=tmp is not None)
        isolation = resolve_isolation(isolation)
        out.mkdir(parents=True, exist_ok=True)
        records = out / "records"
        records.mkdir(exist_ok=True)
        version = assignment_version(assignment)
        subs, more = discover(root, assignment, out, zipped=tmp is not None, times=times)
        unmatched += more
        todo, done = [], {}
        for sub in subs:
            digest = file_hash(sub.path)
            rec = read_record(records / f"{sub.student}.json")
            if rec is not None and rec.sha256 == digest and rec.version == version and rec.graded \
                    and (rec.identity or sub.key) == sub.key:
                done[sub.student] = rec
                continue
            todo.append((sub, digest))
        limits = dict(timeout=timeout, call_timeout=call_timeout, memory_mb=memory_mb,
                      isolation=isolation)
        sharing: dict[str, list[Submission]] = {}  # a group submission is graded once for all
        for sub, _ in todo:
            sharing.setdefault(str(sub.path), []).append(sub)
        unique = [(sub, digest) for sub, digest in todo if sharing[str(sub.path)][0] is sub]
        finished = 0
        try:
            for rec in _run(unique, assignment, limits, workers, scheduler, progress):
                rec.version = version
                for sub in sharing[rec.submission]:  # _grade_job records the path it was given
                    copy = with_identity(rec, sub)
                    _write_atomic(records / f"{sub.student}.json", json.dumps(copy.to_dict(), indent=1))
                    done[sub.student] = copy
                    finished += 1
        except KeyboardInterrupt:
            print(f"\npdl: interrupted. {finished} of {len(todo)} submissions were graded in this run "
                  f"and are kept in {records}/ (with {len(subs) - len(todo)} from earlier runs); rerun "
                  "the same command to grade only the rest.", file=sys.stderr)
            raise
        results = [with_identity(done[s.student], s) for s in subs]
        summary = CohortSummary(assignment=assignment, version=version, graded=len(todo),
                                reused=len(subs) - len(todo), students=len(subs), unmatched=unmatched,
                                results=results, notes=[s.note for s in subs if s.note])
        _write_atomic(out / "unmatched.txt", "\n".join(unmatched) + ("\n" if unmatched else ""))
        return summary
    finally:
        if tmp is not None and keep_files is None:
            shutil.rmtree(tmp, ignore_errors=True)


def progress_bar(total: int, desc: str, progress: bool, limits: dict, patience: float = 5.0, file=None):
    """A tqdm bar whose ETA does not pretend. tqdm extrapolates from the last finishes, so while
    a slow or hung submission waits out its limits it would show a short ETA, frozen. Here, once
    nothing has finished for well over the usual gap between finishes, the ETA reads ``?`` and
    the bar says how long it has been waiting and what the limits are (refreshed every second)."""


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


def warm_plugin(assignment: str, isolation: str | None):
    """The dask route's warm workers: a worker plugin that readies every dask worker, those there now
    and those joining later, as ``grade_cohort``'s own pool workers are readied (``warm``): the
    reference, the hidden tests and the known mistakes loaded, and one warm template per worker
    thread (``autograder.run.sandbox.Template``). A worker that cannot build the sandbox fails its
    set-up (dask reports it), and its grading jobs refuse in the same words."""
    from distributed.diagnostics.plugin import WorkerPlugin  # optional and heavy: only with --scheduler

    class WarmGrading(WorkerPlugin):
        name = f"pdl-warm-{assignment}"

        def setup(self, worker) -> None:
            warm(assignment, isolation, mistakes=True)
            start_templates(assignment, getattr(getattr(worker, "state", None), "nthreads", 1) or 1)

    return WarmGrading()


def _lost(sub, assignment: str, limits: dict, exc: Exception) -> Record:
    """A submission whose grading job was lost with the worker that ran it: not graded."""
    why = f"{type(exc).__name__}: {str(exc)[:300]}"
    rec = not_graded(str(sub.path), assignment, limits, f"the worker grading it was lost ({why})",
                     f"worker lost: {why}")
    rec.student = sub.student
    return rec


def _run(todo, assignment, limits, workers, scheduler, progress):
    """Yield records as they finish (so an interrupted run keeps every finished one)."""
    if not todo:
        return
    bar = progress_bar(len(todo), f"grading {assignment}", progress, limits)
    try:
        if scheduler:
            from distributed import Client  # optional and heavy: only with --scheduler
            from distributed import as_completed as dask_completed  # optional and heavy: only with --scheduler

            with Client(scheduler) as client:
                client.register_plugin(warm_plugin(assignment, limits.get("isolation")))
                futures = [client.submit(_grade_job, sub.student, str(sub.path), assignment, limits,
                                         pure=False, key=f"grade-{sub.student}-{digest[:12]}")
                           for sub, digest in todo]
                jobs = {f.key: job for f, job in zip(futures, todo)}
                for fut in dask_completed(futures):
                    sub, digest = jobs[fut.key]
                    try:
                        rec = Record.from_dict(fut.result())
                    except SandboxUnavailable:
                        raise  # the host's problem: the whole run stops
                    except Exception as exc:  # noqa: BLE001 - its workers died (KilledWorker), it was lost
                        rec = _lost(sub, assignment, limits, exc)
                    rec.sha256 = digest
                    bar.update()
                    yield rec
            return
        workers = workers or os.cpu_count() or 1
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_pool_init)
        try:
            futures = {pool.submit(_grade_job, sub.student, str(sub.path), assignment, limits): digest
                       for sub, digest in todo}
            subs = {fut: sub for fut, (sub, _) in zip(futures, todo)}
            for fut in as_completed(futures):
                try:
                    rec = Record.from_dict(fut.result())
                except SandboxUnavailable:
                    raise  # the host's problem: the whole run stops
                except Exception as exc:  # noqa: BLE001 - its worker process died (BrokenProcessPool)
                    rec = _lost(subs[fut], assignment, limits, exc)
                rec.sha256 = futures[fut]
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
