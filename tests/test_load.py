"""A grade that depends on the submission alone (issue 34, items 4 and 5): not on the host's load,
and not on a kill from outside.

Time limits count the student's CPU time, the wall clock is only their outer bound: a correct
notebook gets full marks while every core is busy, under limits its calls would overrun in wall
clock. A student's process killed from outside is started again, its state restored, and nothing
is charged; one that ran out of its own CPU time is reported as such; a cell skipped after it hung
still gives the notebook its imports.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import EXEMPLAR

from autograder.course.synth import variant_notebook
from autograder.run import channel, isolation, templates
from autograder.run.channel import Worker, WorkerDied, WorkerTimeout, setup_of
from autograder.run.grading import grade
from autograder.run.paths import REPO
from autograder.run.record import Kind

pytestmark = pytest.mark.skipif(not isolation.namespaces_available(),
                                reason=f"the allow-list sandbox cannot be built here: {isolation.probe()}")

TORCH = "ex4_1_empirical_ntk"  # a torch lab whose longest call takes about 2 s of CPU time
# Tight enough that the torch lab's longest call overruns it in wall clock on a host busy several
# times over its cores; loose enough in CPU time.
LIMITS = dict(timeout=20, call_timeout=5, memory_mb=4096)
CALL = {"op": "call", "name": "f", "args": [], "kwargs": {"__dict__": []}}


def _solution(assignment: str) -> Path:
    return REPO / "solutions" / assignment / f"{assignment}.ipynb"


@pytest.fixture
def busy_host():
    """One busy process per core, and three more, for as long as the test runs."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range((os.cpu_count() or 1) + 3)]
    time.sleep(1)
    try:
        yield len(hogs)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_correct_notebooks_get_full_marks_while_every_core_is_busy(busy_host):
    templates.start_templates(EXEMPLAR)  # the exemplar's process forked warm, the torch lab's cold
    try:
        reports = [grade(_solution(a), a, **LIMITS) for a in (EXEMPLAR, TORCH)]
    finally:
        templates.stop_templates(EXEMPLAR)
    for report in reports:
        late = [t.name for t in report.tests if t.kind in (Kind.TIMEOUT, Kind.NOT_GRADED)]
        assert report.max_score > 0 and report.score == report.max_score, (report.assignment, late, report.errors)
        assert report.errors == [], report.errors


def test_time_limits_count_cpu_time_with_the_wall_clock_as_outer_bound(busy_host):
    worker = Worker({}, memory_mb=2048)
    try:
        worker.wait_ready(60)
        assert worker.run_cells([(0, "import time\ndef busy(s):\n    t = time.process_time()\n"
                                     "    while time.process_time() - t < s:\n        pass\n    return s\n"
                                     "def nap(s):\n    time.sleep(s)\n    return s")], 60) == []
        start = time.monotonic()
        call = dict(CALL, name="busy", args=[1.5])
        assert worker.request(call, 2)["value"] == 1.5  # 1.5 s of CPU time, more of the wall clock
        assert time.monotonic() - start > 1.5
        with pytest.raises(WorkerTimeout, match="CPU time"):
            worker.request(dict(CALL, name="busy", args=[100]), 2)
    finally:
        worker.close()
    worker = Worker({}, memory_mb=2048)
    try:  # asleep: stopped by the wall clock, at its outer bound
        worker.wait_ready(60)
        worker.run_cells([(0, "import time\ndef nap(s):\n    time.sleep(s)\n    return s")], 60)
        start = time.monotonic()
        with pytest.raises(WorkerTimeout):
            worker.request(dict(CALL, name="nap", args=[600]), 0.5)
        assert 0.5 * worker.wall_factor < time.monotonic() - start < 60
    finally:
        worker.close()


# -- killed from outside ------------------------------------------------------------------------
def _descendants(pid: int) -> list[int]:
    out, stack = [], [pid]
    while stack:
        p = stack.pop()
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                kids = [int(k) for k in Path(f"/proc/{p}/task/{task}/children").read_text().split()]
                out += kids
                stack += kids
        except OSError:
            continue
    return out


def _kill_when_asleep(marker: bytes, how_many: int = 1, sig: int = signal.SIGKILL) -> list:
    """A thread that kills, from outside, the student's process (the parent of the ``marker``
    command it runs, found among this process's descendants) the first ``how_many`` times it is seen."""
    killed: list[int] = []

    def watch():
        deadline = time.monotonic() + 120
        while len(killed) < how_many and time.monotonic() < deadline:
            for pid in _descendants(os.getpid()):
                try:
                    if Path(f"/proc/{pid}/cmdline").read_bytes() != marker:
                        continue
                    parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                if parent not in killed:
                    os.kill(parent, sig)
                    killed.append(parent)
                break
            time.sleep(0.05)
    threading.Thread(target=watch, daemon=True).start()
    return killed


def _with_setup_cell(extra: str) -> dict:
    """The exemplar's correct notebook, its set-up cell (``import numpy as np``) ending in ``extra``."""
    nb = variant_notebook(EXEMPLAR, "correct")
    cell = next(c for c in nb["cells"] if "setup" in c.get("metadata", {}).get("tags", []))
    source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    assert "import numpy as np" in source
    cell["source"] = source.rstrip() + "\n" + extra
    return nb


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_a_kill_from_outside_is_retried_and_not_charged(warm, write_nb):
    # killed while its set-up cell runs: before, that cell was skipped as the student's, and every
    # function then raised NameError: name 'np' is not defined
    path = write_nb("killed", _with_setup_cell("import subprocess\nsubprocess.run(['sleep', '2.5'])"))
    killed = _kill_when_asleep(b"sleep\x002.5\x00")
    if warm:
        templates.start_templates(EXEMPLAR)
    try:
        report = grade(path, EXEMPLAR, timeout=60, call_timeout=10, memory_mb=2048)
    finally:
        templates.stop_templates(EXEMPLAR)
    assert len(killed) == 1
    assert report.max_score > 0 and report.score == report.max_score, [t.message for t in report.tests if not t.passed]
    assert not any("skipped" in e or "not defined" in e for e in report.errors), report.errors
    assert any("started again" in e and "nothing was charged" in e for e in report.errors), report.errors


def test_a_kill_from_outside_during_a_call_is_retried_with_the_notebook_restored():
    worker = Worker({}, memory_mb=2048)
    try:
        worker.wait_ready(60)
        worker.run_cells([(0, "import numpy as np\nimport subprocess"),
                          (1, "def f():\n    subprocess.run(['sleep', '1.5'])\n    return float(np.sqrt(16.0))")], 60)
        killed = _kill_when_asleep(b"sleep\x001.5\x00")
        assert worker.request(CALL, 30)["value"] == 4.0  # answered by the process started again, np defined
        assert len(killed) == 1 and any("started again" in n for n in worker.notes)
        killed = _kill_when_asleep(b"sleep\x001.5\x00")  # a second time: no longer bad luck
        with pytest.raises(WorkerDied) as died:
            worker.request(CALL, 30)
        assert "again" in str(died.value) and not died.value.killed and died.value.cause != channel.EXITED
    finally:
        worker.close()


def test_a_process_out_of_its_own_cpu_time_is_told_apart_and_not_retried():
    worker = Worker({}, memory_mb=2048, cpu_s=3)  # RLIMIT_CPU: killed by the kernel past 3 s
    try:
        worker.wait_ready(60)
        worker.run_cells([(0, "def f():\n    while True:\n        pass")], 60)
        start = time.monotonic()
        with pytest.raises(WorkerTimeout, match="3 s of CPU time"):
            worker.request(CALL, 60)
        assert time.monotonic() - start < 30 and worker.notes == []
    finally:
        worker.close()


def test_a_cell_skipped_after_it_hung_keeps_the_notebook_s_imports(write_nb):
    path = write_nb("hangs", _with_setup_cell("while True:\n    pass"))
    report = grade(path, EXEMPLAR, timeout=10, call_timeout=10, memory_mb=2048)
    assert report.score == report.max_score > 0, [t.message for t in report.tests if not t.passed]
    assert sum("ran past the time limit" in e for e in report.errors) == 1, report.errors


def test_setup_of_a_cell():
    source = ("%matplotlib inline\nimport numpy as np\nfrom scipy import special\nN = 10\nPARAMS = {'a': [1, 2]}\n"
              "LOG2 = np.log(2.0)\ndata = load('x.npy')\ntry:\n    import torch\nexcept ImportError:\n"
              "    torch = None\n@np.vectorize\ndef f(x):\n    return x\nclass A:\n    pass\nwhile True:\n    pass\n"
              "a, b = 1, rng.normal()\nc, d = 1, 2\n")
    kept = setup_of(source).splitlines()
    assert kept[1:6] == ["import numpy as np", "from scipy import special", "N = 10", "PARAMS = {'a': [1, 2]}",
                         "LOG2 = np.log(2.0)"]
    assert kept[0] == kept[6] == "" and "    import torch" in kept and "def f(x):" in kept and "class A:" in kept
    assert kept[-1] == "c, d = 1, 2" and "while True:" not in kept and "a, b = 1, rng.normal()" not in kept
    assert len(kept) == len(source.splitlines())  # at the cell's own lines
    assert setup_of("X = np.ones(3)") == "" and setup_of("X = np.ones(3)", {"np"}) == "X = np.ones(3)\n"
    assert setup_of("while True:\n    pass") == "" and setup_of("def broken(:") == ""


def test_a_later_run_without_a_cell_runs_its_set_up():
    files: dict = {}
    first = [(0, "import numpy as np\nx = compute()"), (1, "def f():\n    return np.pi"), (2, "y = np.e\nloop()")]
    assert channel._with_setup(files, first) == (first, set())
    assert channel._with_setup(files, first[1:2]) == ([(0, "import numpy as np\n"), first[1], (2, "y = np.e\n")],
                                                       {0, 2})
    channel._first_run(files).failed.add(2)  # its set-up hung too
    assert channel._with_setup(files, first[1:2]) == ([(0, "import numpy as np\n"), first[1]], {0})
    assert channel._with_setup({}, first[1:]) == (first[1:], set())  # another notebook


def test_the_cpu_time_of_a_process_tree_is_read():
    child = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\n"
                              "subprocess.run([sys.executable, '-c', 'import time\\nt = time.process_time()\\n"
                              "while time.process_time() - t < 1: pass'])\ntime.sleep(30)"])
    try:
        deadline = time.monotonic() + 30
        while (channel.tree_cpu_s(child.pid) or 0) < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert channel.tree_cpu_s(child.pid) >= 1  # its child's, reaped
    finally:
        child.kill()
        child.wait()
    assert channel.tree_cpu_s(child.pid) is None
    json.dumps(channel.oom_counts(None))  # plain numbers


# -- the grader's own budgets (a replayed call, a re-run carrying an error forward, a variant graded
# in-process by pdl validate) count CPU time too ----------------------------------------------------

def _burn(seconds: float) -> None:
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def test_the_grader_s_time_limit_counts_cpu_time_not_a_nap():
    from autograder.run.timelimit import Allowance, time_limit

    with time_limit(0.3):
        time.sleep(0.6)  # twice the limit of wall clock, no CPU time
    with pytest.raises(TimeoutError, match="CPU time"), time_limit(0.3):
        _burn(2.0)
    allowance = Allowance(0.3)
    time.sleep(0.4)
    assert not allowance.over() and allowance.spent() < 0.1
    _burn(0.35)
    assert allowance.over()
    other = iter([10.0, 10.0, 10.5])  # another process's CPU seconds, counted from the first reading
    both = Allowance(0.3, more=lambda: next(other))
    assert not both.over() and both.over()


def test_an_outer_time_limit_is_kept_and_still_fires():
    from autograder.run.timelimit import time_limit

    with pytest.raises(TimeoutError, match="0.4 s of CPU"), time_limit(0.4):
        with time_limit(5.0):
            _burn(0.1)
        _burn(2.0)  # the outer limit, restored with what is left of it


def test_a_variant_graded_in_process_is_not_stopped_by_a_busy_host(busy_host):
    """pdl validate's limit on a variant's call: 0.6 s of CPU time under a limit of 1 s passes while
    every core is busy several times over (it takes well over 1 s of wall clock)."""
    from autograder.course.inprocess import _alarm

    start = time.monotonic()
    with _alarm(1.0):
        _burn(0.6)
    assert time.monotonic() - start > 1.0, "the host was not busy: this test shows nothing"


def test_a_re_run_carrying_an_error_forward_is_limited_by_cpu_time():
    """A re-run whose copy waits longer than its limit but computes little is decided, not cut
    off (a busy host makes every re-run wait); one that computes past its limit is stopped."""
    import contextlib

    from autograder.run import carry

    class Copy:
        def __init__(self):
            self.cpu = 0.0

        def cpu_seconds(self):
            return self.cpu

        def f(self, seconds):
            time.sleep(seconds)

        def g(self, seconds):
            self.cpu += seconds  # what the copy's own process spends

    @contextlib.contextmanager
    def fresh(substitute, delegate, limit_s):
        yield Copy()

    def test_body(student, nap=0.0, compute=0.0):
        student.f(nap)
        student.g(compute)
        student.g(0.0)  # the next call is refused once the re-run's time is spent

    def failure(**kwargs):
        return carry.Failure(test="t", owner="f", culprit="h", points=1.0,
                             run=lambda student: test_body(student, **kwargs))
    napping = carry.rerun(failure(nap=1.5), fresh, reference=None, substitute=frozenset(), limit_s=1.0)
    assert napping.passed and not napping.broke and napping.seconds < 0.5
    computing = carry.rerun(failure(compute=1.5), fresh, reference=None, substitute=frozenset(), limit_s=1.0)
    assert not computing.passed and computing.broke
