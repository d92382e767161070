"""The dask route on a real cluster (issue 34): a `dask scheduler` and two `dask worker --nthreads 2`
processes, started as a TA starts them (separate processes, not a LocalCluster), grade part of the
hostile cohort; every record equals the process pool's (the pool's records are those of the hostile
cohort that tests/test_cohort.py reads, ``conftest.graded_hostile_cohort``: same cases, same limits,
graded once), and no record carries a grader failure."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import EXEMPLAR, HOSTILE_LIMITS

from autograder.cohort.grade import CohortInputError, grade_cohort
from autograder.course.synth import hostile_cohort
from autograder.run.isolation import namespaces_available
from autograder.run.paths import REPO

LIMITS = HOSTILE_LIMITS  # the pool's records compared with were graded under these
# good ones beside attacks that hold threads, memory and time: what one thread of a worker does must
# not change the grade of the submission its other thread grades
CASES = ("good1", "good2", "partial", "untouched", "bad_json", "loop", "mem_bomb", "patcher", "liar_eq",
         "never_returns")
DASK = str(Path(sys.executable).with_name("dask"))


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen([DASK, *args], cwd=REPO, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, start_new_session=True)


@pytest.fixture
def cluster(tmp_path):
    """A scheduler and two worker processes of two threads each: ``address``, ``workers`` (the
    worker processes)."""
    info = tmp_path / "scheduler.json"
    procs = [_start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(info)], tmp_path / "scheduler.log")]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert info.exists(), (tmp_path / "scheduler.log").read_text()[-2000:]
        for k in range(2):
            procs.append(_start(["worker", "--scheduler-file", str(info), "--nthreads", "2", "--nworkers", "1",
                                 "--no-dashboard", "--memory-limit", "0"], tmp_path / f"worker{k}.log"))
        from distributed import Client

        with Client(scheduler_file=str(info), timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
            address = client.scheduler.address
        yield SimpleNamespace(address=address, workers=procs[1:])
    finally:
        for proc in reversed(procs):
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(proc.pid, signal.SIGKILL)


def _scores(out: Path, students=None) -> dict:
    from autograder.cohort.record import Record

    records = {}
    for path in sorted((out / "records").glob("*.json")):
        rec = Record.from_dict(json.loads(path.read_text()))
        if students is None or rec.student in students:
            records[rec.student] = (rec.score, rec.max_score, [(t.name, t.points, t.kind) for t in rec.tests])
    return records


@pytest.mark.xdist_group("nbgrader")  # beside tests/test_cohort.py: the pool's cohort is graded once
@pytest.mark.skipif(not namespaces_available(), reason="the hostile cases need the sandbox")
def test_a_real_cluster_with_two_threads_per_worker_grades_as_the_pool_does(tmp_path, cluster,
                                                                            graded_hostile_cohort):
    """The pool's records: the hostile cohort graded by two pool workers in conftest (a cohort of
    more cases than these, in one zip; each record is its submission's alone)."""
    cases = hostile_cohort(EXEMPLAR)
    folder = tmp_path / "subs"
    for student in CASES:
        (folder / student).mkdir(parents=True)
        (folder / student / f"{EXEMPLAR}.ipynb").write_text(cases[student][0])
    on_dask = grade_cohort(folder, EXEMPLAR, tmp_path / "dask", scheduler=cluster.address, progress=False, **LIMITS)
    pool_cases, in_pool, pool_out, _ = graded_hostile_cohort
    assert set(CASES) <= set(pool_cases) and all(pool_cases[s][0] == cases[s][0] for s in CASES)
    assert len(on_dask.results) == len(CASES) == len([r for r in in_pool.results if r.student in CASES])
    dask_records, pool_records = _scores(tmp_path / "dask"), _scores(pool_out, set(CASES))
    assert dask_records == pool_records
    for rec in on_dask.results:
        assert rec.graded, (rec.student, rec.not_graded)
    full = dask_records["good1"][1]
    assert full > 0 and dask_records["good1"][0] == dask_records["good2"][0] == full


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_scheduler_that_cannot_be_reached_is_refused_in_words(tmp_path):
    folder = tmp_path / "subs" / "ann"
    folder.mkdir(parents=True)
    (folder / f"{EXEMPLAR}.ipynb").write_text(hostile_cohort(EXEMPLAR)["good1"][0])
    address = f"tcp://127.0.0.1:{_free_port()}"
    start = time.monotonic()
    with pytest.raises(CohortInputError, match="no dask scheduler answers at tcp://127.0.0.1") as err:
        grade_cohort(tmp_path / "subs", EXEMPLAR, tmp_path / "out", scheduler=address, progress=False, **LIMITS)
    assert "dask scheduler" in str(err.value) and "nothing was graded" in str(err.value)
    assert time.monotonic() - start < 60
    assert not (tmp_path / "out").exists()  # refused before anything was read or written


@pytest.mark.skipif(not namespaces_available(), reason="the cohort needs the sandbox")
def test_a_worker_that_dies_mid_cohort_loses_no_record(tmp_path, cluster):
    """One of the two workers is killed once the first record is written: its submissions are
    graded by the other (dask reschedules them), every record is there and graded."""
    good = hostile_cohort(EXEMPLAR)["good1"][0]
    students = [f"s{k}" for k in range(6)]
    for student in students:
        (tmp_path / "subs" / student).mkdir(parents=True)
        (tmp_path / "subs" / student / f"{EXEMPLAR}.ipynb").write_text(good)
    records, killed = tmp_path / "out" / "records", threading.Event()

    def kill_one_worker():
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not (records.exists() and any(records.glob("*.json"))):
            time.sleep(0.05)
        os.killpg(cluster.workers[0].pid, signal.SIGKILL)
        killed.set()

    killer = threading.Thread(target=kill_one_worker, daemon=True)
    killer.start()
    summary = grade_cohort(tmp_path / "subs", EXEMPLAR, tmp_path / "out", scheduler=cluster.address,
                           progress=False, **LIMITS)
    killer.join(timeout=10)
    assert killed.is_set()
    assert sorted(r.student for r in summary.results) == students
    assert sorted(p.stem for p in records.glob("*.json")) == students
    for rec in summary.results:  # rescheduled on the living worker, or else listed not graded (never a 0)
        assert rec.graded or rec.not_graded.startswith("worker lost"), (rec.student, rec.not_graded)
        if rec.graded:
            assert rec.score == rec.max_score > 0, (rec.student, rec.score, rec.errors)
    assert sum(rec.graded for rec in summary.results) >= len(students) - 2
