"""Warm grading (issue 24): students' processes forked from a template that imported the heavy
modules once, each fork isolated as a cold start is, nothing of one submission reaching the next."""

import json
import os
from pathlib import Path

import pytest
from conftest import EXEMPLAR

from autograder.run import packages, rootfs, templates
from autograder.run.channel import Worker, WorkerTimeout
from autograder.run.isolation import namespaces_available
from autograder.run.templates import Template, TemplateFailed, template_lease

pytestmark = pytest.mark.skipif(not namespaces_available(), reason="needs the namespace sandbox")

NOTEBOOK = {f"{EXEMPLAR}.ipynb": b"{}"}

# What a first submission leaves behind, every way it can think of.
LEAVE = r'''
import ctypes, numpy as np, os, subprocess, sys, threading, time
np.sum = lambda *a, **k: 42.0
np.random.seed(7)
sys.modules["scipy"] = None
sys.path.insert(0, "/home/student")
os.environ["LEFT"] = "1"
for path in ("/home/student/left.txt", "/tmp/left.txt", "/dev/shm/left"):
    open(path, "w").write("x")
threading.Thread(target=time.sleep, args=(300,), daemon=True).start()
child = subprocess.Popen(["sleep", "300"], start_new_session=True)
libc = ctypes.CDLL(None)
SHM = libc.shmget(0x5EED, 4096, 0o1666)  # IPC_CREAT | 0666: a System V segment
'''

# What a later submission looks for.
PROBE = r'''
import ctypes, os, sys
def probe():
    import numpy as np
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
    return {
        "np_sum": float(np.sum([1.0, 2.0])),
        "random": float(np.random.rand()),
        "scipy": sys.modules.get("scipy", 0) is not None,
        "path": "/home/student" in sys.path,
        "env": os.environ.get("LEFT", ""),
        "files": [p for p in ("/home/student/left.txt", "/tmp/left.txt", "/dev/shm/left") if os.path.exists(p)],
        "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "threads": len(os.listdir("/proc/self/task")),
        "shm": ctypes.CDLL(None).shmget(0x5EED, 0, 0),
        "uid": os.getuid(),
        "caps": [status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")],
        "no_new_privs": status["NoNewPrivs"].strip(),
        "home": sorted(os.listdir("/home/student")),
        "writable_root": os.access("/usr", os.W_OK) or os.access("/", os.W_OK),
        "proc_mounts": sum(line.split()[4] == "/proc" for line in open("/proc/self/mountinfo")),
    }
'''


@pytest.fixture(scope="module")
def template():
    t = Template(EXEMPLAR)
    templates._FREE.setdefault(EXEMPLAR, []).append(t)
    yield t
    templates._FREE[EXEMPLAR].remove(t)
    if not templates._FREE[EXEMPLAR]:  # as before: no later test of this process grades warm
        del templates._FREE[EXEMPLAR]
    t.close()


def _run(cells: str):
    worker = Worker(dict(NOTEBOOK), isolation="namespace", memory_mb=2048)
    worker.wait_ready(60)
    assert worker.run_cells([(0, cells)], 60) == []
    return worker


def _probe():
    worker = _run(PROBE)
    try:
        answer = worker.request({"op": "call", "name": "probe", "args": [], "kwargs": {"__dict__": []}}, 30)
        return worker.warm, json.loads(json.dumps(answer["value"]))
    finally:
        worker.close()


def _sleepers(template) -> int:
    """Processes under ``template`` running the ``sleep 300`` the submissions start."""
    parent, sleeping = {}, []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{pid}/stat").read()
            parent[int(pid)] = int(stat.rsplit(")", 1)[1].split()[1])
            if open(f"/proc/{pid}/cmdline", "rb").read() == b"sleep\x00300\x00":
                sleeping.append(int(pid))
        except (OSError, ValueError, IndexError):
            pass
    n = 0
    for pid in sleeping:
        while pid > 1 and pid != template.proc.pid:
            pid = parent.get(pid, 0)
        n += pid == template.proc.pid
    return n


def _decoded(value):
    from autograder.run import protocol
    return protocol.decode(value)


def test_the_template_preloads_the_heavy_modules(template):
    assert {"numpy", "matplotlib.pyplot"} <= set(template.preloaded)
    assert "torch" not in template.preloaded  # it starts threads on import: loaded in the fork


def test_nothing_of_one_submission_reaches_the_next(template):
    with template_lease(EXEMPLAR):
        first = _run(LEAVE)
        assert first.warm
        first.close()
        assert _sleepers(template) == 0  # its process in a new session died with its pid namespace
        warm, got = _probe()
        warm2, again = _probe()
    assert warm and warm2
    got, again = _decoded(got), _decoded(again)
    assert got["np_sum"] == 3.0 and got["scipy"] and not got["path"] and got["env"] == ""
    assert got["files"] == [] and got["home"] == [f"{EXEMPLAR}.ipynb"]
    assert got["pids"] == [1] and got["threads"] == 1  # its own pid namespace: no process of another
    assert got["shm"] == -1  # its own IPC namespace: the first one's segment is not there
    assert got["random"] != again["random"]  # each fork its own random state, not the template's


def test_each_fork_is_the_student_with_no_privileges(template):
    with template_lease(EXEMPLAR):
        warm, got = _probe()
    got = _decoded(got)
    assert warm
    assert rootfs.grader_of(got["uid"]) == os.getpid() if os.geteuid() == 0 else got["uid"] == 1000
    assert got["caps"] == ["0000000000000000"] * 5 and got["no_new_privs"] == "1"
    assert not got["writable_root"]
    assert got["proc_mounts"] == 1  # the template's /proc is detached, not hidden under this one


def test_what_a_course_under_tmp_binds_there_is_carried_into_each_fork_read_only(template, monkeypatch):
    """A checkout under /tmp (a CI clone): its interpreter lives where each fork's fresh /tmp goes.
    The template carries those folders over, read-only; nothing else under /tmp is carried."""
    monkeypatch.setattr(rootfs, "_python_paths", lambda: [Path("/tmp/clone/.venv")])
    monkeypatch.setattr(rootfs, "_python_entries", lambda prefix: [prefix / "lib", prefix / "pyvenv.cfg"])
    monkeypatch.setattr(packages, "visible_entries", lambda modules: {Path("/dev/shm/x/site"): []})
    assert templates._under_scratch(frozenset()) == ["/dev/shm/x", "/tmp/clone"]
    monkeypatch.undo()
    with template_lease(EXEMPLAR):
        worker = _run("import os\ndef kept():\n    return [[p, os.path.isdir(p), os.access(p, os.W_OK)] for p in "
                      + repr(template.keep) + "]")
        try:
            answer = worker.request({"op": "call", "name": "kept", "args": [], "kwargs": {"__dict__": []}}, 30)
        finally:
            worker.close()
    assert all(present and not writable for _, present, writable in _decoded(answer["value"])), answer


def test_a_fork_that_ran_past_its_time_is_killed_with_everything_it_started(template):
    with template_lease(EXEMPLAR):
        worker = Worker(dict(NOTEBOOK), isolation="namespace", memory_mb=2048)
        worker.wait_ready(60)
        assert worker.warm
        with pytest.raises(WorkerTimeout):
            worker.run_cells([(0, "import subprocess\nsubprocess.Popen(['sleep', '300'])\nwhile True: pass")], 2)
        assert worker.proc.poll() is not None  # the fork is gone, and its pid namespace with it
        worker.close()
        assert _sleepers(template) == 0
        assert _probe()[0]  # the template still forks


def test_a_refused_fork_raises_and_the_worker_starts_cold(template, monkeypatch):
    with pytest.raises(TemplateFailed):  # the template checks what it is sent
        orig = templates.socket.send_fds
        monkeypatch.setattr(templates.socket, "send_fds", lambda sock, msgs, fds: orig(sock, msgs, fds[:2]))
        template.spawn({"nproc": 64, "fsize_mb": 64, "nofile": 256, "cpu_s": 60, "memory_mb": 2048})
    monkeypatch.undo()
    monkeypatch.setattr(Template, "spawn", lambda self, limits: (_ for _ in ()).throw(TemplateFailed("x")))
    with template_lease(EXEMPLAR):
        warm, got = _probe()
    assert not warm and _decoded(got)["np_sum"] == 3.0  # cold, isolated as always


def test_without_a_lease_a_worker_starts_cold(template):
    warm, _ = _probe()
    assert not warm


def test_account_isolation_is_never_forked_from_a_template(template):
    """The templates are namespace sandboxes: a submission graded in account isolation gets no lease."""
    with template_lease(EXEMPLAR, "account") as leased:
        assert leased is None
    with template_lease(EXEMPLAR, "namespace") as leased:
        assert leased is template
