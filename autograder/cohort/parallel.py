"""Writing a cohort's outputs on every core (issue 37, item 4): the feedback pages of a few
hundred students, the similarity search and the report are independent jobs, each writing its own
files; ``run`` hands them to forked processes.

Forked, not spawned: each process starts with what the parent holds (the records, the merged hand
scores, the compiled templates, the rendered Markdown so far), and only a job's number crosses the
process boundary, never a record. Where fork is not available, or the cohort is small
(``MIN_RECORDS``), the jobs run here, one after the other; what they write is the same either way
(tests/test_similarity.py). grade-cohort's --workers says how many processes (default: every core)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

MIN_RECORDS = 60   # below this many records the outputs are written in this process (forks cost more)
CHUNK = 25         # feedback pages in one job

_JOBS: list[Callable[[], None]] = []  # the jobs of the run in progress, inherited by the forked processes


def _job(number: int) -> None:
    _JOBS[number]()


def workers(records: int, wanted: int | None = None) -> int:
    """How many processes write the outputs of ``records`` records: ``wanted`` (grade-cohort's
    --workers; None: every core) for a large cohort, 1 for a small one or where processes cannot
    be forked."""
    if records < MIN_RECORDS or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, wanted or os.cpu_count() or 1)


def chunks(items: list, size: int = CHUNK) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def run(jobs: list[Callable[[], None]], processes: int) -> None:
    """Run ``jobs`` (longest first, for an even finish) in ``processes`` forked processes, or here
    for 1; the first job that fails raises here, after the others have finished."""
    global _JOBS
    if processes <= 1 or len(jobs) <= 1:
        for job in jobs:
            job()
        return
    _JOBS = list(jobs)
    try:
        with ProcessPoolExecutor(max_workers=min(processes, len(jobs)),
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            for future in [pool.submit(_job, number) for number in range(len(jobs))]:
                future.result()
    finally:
        _JOBS = []
