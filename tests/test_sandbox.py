"""The allow-list sandbox, tried as a hostile student would (issue 12).

Each class of attack is planted for real on this machine: a second copy of the course
outside the repository, a 0600 secret of the grader's user, a classmate's stage folder in the
shared temp folder, writes to every mount, forged and oversized answers on the grader's
channel, fork and thread floods, Ctrl-C. Every case asserts the score, that no secret text
reaches any output (report, CSV, feedback), and that nothing is left behind (temp folders,
processes, files in the host's /dev/shm).
"""

import fcntl
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from conftest import EXEMPLAR

from autograder.cohort.grade import grade_cohort
from autograder.cohort.outputs import write_outputs
from autograder.run import accounts, isolation, rootfs
from autograder.run.channel import Worker
from autograder.run.grading import grade
from autograder.run.isolation import SandboxUnavailable
from autograder.run.notebook import code_cell, with_cells
from autograder.run.paths import REPO
from autograder.run.rootfs import UID_BASE, grader_of

pytestmark = pytest.mark.skipif(not isolation.namespaces_available(),
                                reason=f"the allow-list sandbox cannot be built here: {isolation.probe()}")

LIMITS = {"timeout": 30, "call_timeout": 10, "memory_mb": 2048}
SECRET = f"PLANTED-SECRET-{uuid.uuid4().hex}"
TMP = Path(tempfile.gettempdir())
WALK = ("import os\ndef find(suffix):\n    for top, dirs, files in os.walk('/'):\n"
        "        if top == '/':\n            dirs[:] = [d for d in dirs if d not in ('proc', 'sys', 'dev')]\n"
        "        yield from (os.path.join(top, f) for f in files if f.endswith(suffix))\n")


def _sandbox_processes(wait: float = 5.0) -> list[int]:
    """Student processes that outlived their submission: this process's sandboxes (none is open
    between tests), sandboxes whose grader (``rootfs.grader_of(uid)``) is gone, and processes of account
    isolation's uids that no live submission holds. Other tests' live sandboxes, running in
    parallel, are not counted. Waits up to ``wait`` s for them to go."""
    deadline = time.monotonic() + wait
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    uid = entry.stat().st_uid
                except OSError:
                    continue
                grader = grader_of(uid)
                if grader == os.getpid() or (grader is not None and not Path(f"/proc/{grader}").exists()):
                    found.append(int(entry.name))
        found += accounts.processes(*_unleased_account_uids())
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def _unleased_account_uids() -> list[int]:
    """Account isolation's uids whose lock no grader holds (a live submission holds its uid's)."""
    free = []
    for uid in range(accounts.UID_FIRST, accounts.UID_FIRST + accounts.POOL):
        try:
            fd = os.open(accounts.LOCKS / f"{uid}.lock", os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            free.append(uid)
        except BlockingIOError:
            pass
        finally:
            os.close(fd)
    return free


def _leftovers_snapshot():
    """What a sandbox could leave on the host: stage or mount-point folders (the namespace
    sandbox makes none) and files in the host's /dev/shm (tests in parallel make their own
    pdl-validate-*, pdl-otter-run-* ... folders, and the ``planted`` classmate's stage folder, which
    are not counted)."""
    return ({p.name for p in TMP.glob("pdl-*") if p.name.startswith(("pdl-stage-", "pdl-root-"))
             and not p.name.startswith(PLANTED_STAGE)},
            set(os.listdir("/dev/shm")))


PLANTED_STAGE = "pdl-stage-classmate-"  # planted by a fixture, perhaps on another worker meanwhile


@pytest.fixture
def nothing_left_behind():
    before = _leftovers_snapshot()
    yield
    assert not _sandbox_processes(), "sandbox processes outlived their submission"
    for _ in range(15):  # tests running in parallel create (and soon remove) entries of their own
        tmp_new, shm_new = (after - old for after, old in zip(_leftovers_snapshot(), before))
        if not tmp_new and not shm_new:
            break
        time.sleep(0.2)
    assert not tmp_new, f"left in {TMP}: {tmp_new}"
    assert not shm_new, f"left in /dev/shm: {shm_new}"


# -- what the student's process sees and can do (one worker, many probes) -------------------
PROBE = r'''
import os, glob, threading, time

def writable(path):
    try:
        with open(os.path.join(path, ".pdl-probe"), "w") as fh:
            fh.write("x")
        os.remove(os.path.join(path, ".pdl-probe"))
        return True
    except OSError:
        return False

def readable(path):
    try:
        with open(path, "rb") as fh:
            return fh.read(200).decode("latin-1")
    except OSError:
        return None

def fill(path, mb):
    written = 0
    try:
        with open(os.path.join(path, "fill.bin"), "wb") as fh:
            for _ in range(mb):
                fh.write(b"\0" * 2**20)
                fh.flush()
                written += 1
    except OSError:
        pass
    finally:
        try:
            os.remove(os.path.join(path, "fill.bin"))
        except OSError:
            pass
    return written

def forks(n):
    pids, made = [], 0
    for _ in range(n):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    return len(pids)

def threads(n):
    stop, made = threading.Event(), []
    for _ in range(n):
        t = threading.Thread(target=stop.wait)
        try:
            t.start()
        except RuntimeError:
            break
        made.append(t)
    stop.set()
    for t in made:
        t.join()
    return len(made)

def find(suffix):
    hits = []
    for top, dirs, files in os.walk("/"):
        if top == "/":
            dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev")]
        hits += [os.path.join(top, f) for f in files if os.path.join(top, f).endswith(suffix)]
        hits += [os.path.join(top, d) for d in dirs if d.startswith("pdl-stage")]
    return sorted(hits)

def observe(paths_to_read, dirs_to_write):
    return {"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "cwd": os.getcwd(),
            "root": sorted(os.listdir("/")),
            "read": {p: readable(p) for p in paths_to_read},
            "write": {d: writable(d) for d in dirs_to_write},
            "found": [p for p in find("__init__.py") if "/solutions/" in p] + find(".ipynb"),
            "fill_mb": fill("/dev/shm", 400),
            "forks": forks(300), "threads": threads(300)}
'''


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A second copy of the course, a 0600 secret and a classmate's stage folder, on the host."""
    other = tmp_path_factory.mktemp("old-course")
    for folder in ("solutions", "grading_tests"):
        dst = other / folder / EXEMPLAR
        dst.mkdir(parents=True)
        for src in (REPO / folder / EXEMPLAR).glob("*.py"):
            (dst / src.name).write_text(f"# {SECRET}\n" + src.read_text())
    secret = tmp_path_factory.mktemp("ta-home") / "private.txt"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    stage = TMP / f"{PLANTED_STAGE}{uuid.uuid4().hex[:8]}"
    stage.mkdir()
    (stage / f"{EXEMPLAR}.ipynb").write_text(
        (REPO / "solutions" / EXEMPLAR / f"{EXEMPLAR}.ipynb").read_text().replace(
            '"cells": [', f'"cells": [{{"cell_type": "markdown", "metadata": {{}}, "source": "{SECRET}"}},', 1))
    yield {"course": other, "secret": secret, "stage": stage}
    shutil.rmtree(stage, ignore_errors=True)


def test_the_process_sees_only_its_allow_list(planted, nothing_left_behind):
    reads = [str(planted["course"] / "solutions" / EXEMPLAR / "__init__.py"), str(planted["secret"]),
             str(planted["stage"] / f"{EXEMPLAR}.ipynb"), str(REPO / "solutions" / EXEMPLAR / "__init__.py"),
             str(REPO / "autograder" / "run" / "grading.py"), "/etc/shadow", "/root/.bash_history",
             "/proc/1/environ", "/sys/kernel/hostname"]
    writes = ["/", "/usr", "/etc", "/pdl", "/proc", sys.prefix, sys.base_prefix, str(REPO), str(TMP / ".."),
              "/home/student", "/tmp", "/dev/shm"]
    worker = Worker({}, memory_mb=2048)
    try:
        worker.wait_ready(60)
        assert worker.run_cells([(0, PROBE)], 60) == []
        answer = worker.request({"op": "call", "name": "observe", "args": [reads, writes],
                                 "kwargs": {"__dict__": []}}, 120)
    finally:
        worker.close()
    assert answer["status"] == "ok", answer
    from autograder.run.protocol import decode
    seen = decode(answer["value"])
    assert seen["uid"] >= UID_BASE and seen["gid"] >= UID_BASE and seen["groups"] == []
    assert seen["cwd"] == "/home/student"
    allowed_top = {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "dev", "proc",
                   "home", "tmp", "pdl"} | {Path(p).parts[1] for p in rootfs._python_paths()}
    assert set(seen["root"]) <= allowed_top, seen["root"]
    assert "sys" not in seen["root"]
    assert {p: v for p, v in seen["read"].items() if v is not None and p != "/proc/1/environ"} == {}
    assert SECRET not in json.dumps(seen)
    assert [d for d, ok in seen["write"].items() if ok] == ["/home/student", "/tmp", "/dev/shm"]
    interpreter = tuple(str(p) + "/" for p in rootfs._python_paths())
    assert [p for p in seen["found"] if not p.startswith(interpreter)] == []
    assert 0 < seen["fill_mb"] <= rootfs.SCRATCH_MB  # the scratch cap holds for /dev/shm too
    assert 0 < seen["forks"] < 100 and 0 < seen["threads"] < 100


# -- hostile submissions graded as a cohort: scores and no secret anywhere ------------------
def _hostile(planted) -> dict[str, tuple[dict, str]]:
    """student -> (notebook, expected: 'zero' for a stub that cheats, 'full' for a correct one with an attack)."""
    from autograder.course.synth import variant_notebook

    stub = variant_notebook(EXEMPLAR, "stub")
    correct = variant_notebook(EXEMPLAR, "correct")
    other = planted["course"] / "solutions" / EXEMPLAR / "__init__.py"
    channel = ("import os\nfds = []\nfor f in os.listdir('/proc/self/fd'):\n    try:\n"
               "        if f != '0' and os.readlink(f'/proc/self/fd/{f}').startswith('pipe:'):\n"
               "            fds.append(int(f))\n    except OSError:\n        pass\n"
               "def forge(data):\n    for fd in fds:\n        try:\n            os.write(fd, data)\n"
               "        except OSError:\n            pass\n")
    cheat = lambda src: (with_cells(stub, [code_cell(src)]), "zero")  # noqa: E731
    attack = lambda src: (with_cells(correct, [code_cell(src)]), "full")  # noqa: E731
    return {
        "exec_copy": cheat(f"exec(open({str(other)!r}).read(), globals())"),
        "run_copy": cheat(f"%run {other}"),
        "import_copy": cheat(f"import sys\nsys.path.insert(0, {str(planted['course'])!r})\n"
                             f"from solutions.{EXEMPLAR} import *"),
        "search_disk": cheat(WALK + "for p in find('__init__.py'):\n"
                             "    if '/solutions/' in p:\n        exec(open(p).read(), globals())"),
        "classmate": cheat(WALK + "import json\nfor p in find('.ipynb'):\n"
                           "    for c in json.load(open(p))['cells']:\n"
                           "        if c['cell_type'] == 'code':\n"
                           "            exec(''.join(c['source']), globals())"),
        "secret_in_error": attack(f"raise RuntimeError(open({str(planted['secret'])!r}).read())"),
        "secret_in_answer": attack(f"print(open({str(planted['secret'])!r}).read())"),
        "writes_course": attack(f"open({str(REPO / 'autograder' / '__init__.py')!r}, 'a').write('# pwned')"),
        "recursion_bomb": attack(channel + "forge(b'[' * 200000 + b'\\n')"),
        "huge_line": attack(channel + "forge(b'1' * (40 * 2**20))"),
        "fake_end": attack(channel + "import json\nforge(json.dumps({'status': 'ok', 'errors': "
                           "[{'cell': 1, 'error': 'x' * 500}] * 20001}).encode() + b'\\n')"),
        "exit_97": attack("import os\nos._exit(97)"),  # the set-up's failure code, from student code
        "fork_flood": attack("import os, time\nfor _ in range(300):\n    try:\n        if os.fork() == 0:\n"
                             "            time.sleep(600)\n    except OSError:\n        break"),
    }


@pytest.fixture(scope="module")
def hostile_cohort(planted, tmp_path_factory):
    cases = _hostile(planted)
    folder = tmp_path_factory.mktemp("submissions")
    for student, (nb, _) in cases.items():
        (folder / student).mkdir()
        (folder / student / f"{EXEMPLAR}.ipynb").write_text(json.dumps(nb))
    course_file = REPO / "autograder" / "__init__.py"
    before = course_file.read_bytes()
    out = tmp_path_factory.mktemp("out")
    start = time.monotonic()
    summary = grade_cohort(folder, EXEMPLAR, out, workers=2, progress=False, **LIMITS)
    elapsed = time.monotonic() - start
    write_outputs(summary, out)
    assert course_file.read_bytes() == before
    return cases, summary, out, elapsed


def test_cheats_score_zero_and_attacks_change_nothing(hostile_cohort):
    cases, summary, _, _ = hostile_cohort
    by = {r.student: r for r in summary.results}
    full = max(r.max_score for r in summary.results)
    for student, (_, expected) in cases.items():
        want = 0 if expected == "zero" else full
        assert by[student].score == want, (student, by[student].score, by[student].errors[:3])


def test_no_secret_reaches_any_output(hostile_cohort):
    _, _, out, _ = hostile_cohort
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.suffix == ".csv" for p in files) and any("feedback" in p.parts for p in files)
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        assert SECRET not in text, path
        if path.name != "similarity.html":  # the TA's side-by-side view shows the students' own code
            assert "def generalization_error" not in text, path  # no reference or test code either


def test_channel_forgery_costs_one_restart_and_bounded_notes(hostile_cohort):
    _, summary, out, elapsed = hostile_cohort
    by = {r.student: r for r in summary.results}
    for student in ("recursion_bomb", "huge_line"):  # malformed: that cell is skipped, once
        notes = by[student].errors
        assert sum("stopped the notebook" in n for n in notes) == 1, notes
        assert len(notes) <= 31 and sum(map(len, notes)) < 20_000
    assert by["fake_end"].errors == []  # well-formed but answering no request: ignored
    assert (out / "grades.csv").stat().st_size < 200_000
    assert elapsed < 10 * 60  # a re-run per hidden test would take far longer


def test_nothing_survives_a_cohort(hostile_cohort, planted):
    # the fork flood's sleepers and every sandbox are gone once the cohort returns
    assert not _sandbox_processes()
    for _ in range(15):  # mount points of sandboxes that tests running in parallel are starting
        left = list(TMP.glob("pdl-root-*"))
        if not left:
            break
        time.sleep(0.2)
    assert left == []


# -- refusing, and the explicit unprotected mode -------------------------------------------
def test_refuses_when_the_sandbox_cannot_be_built(monkeypatch, write_nb, stub_nb, capsys):
    from autograder.cli import main as pdl

    refusal = "unshare: user namespaces are not permitted"
    monkeypatch.setattr(isolation, "probe", lambda: refusal)
    # what unshare does on such a host: the set-up fails before any student code
    monkeypatch.setattr(rootfs, "_unshare_cmd", lambda: [
        "sh", "-c", f'echo "pdl-sandbox: {refusal}" >&2; exit 97', "unshare"])
    with pytest.raises(SandboxUnavailable, match="--isolation process") as refused:
        grade(write_nb("s", stub_nb), EXEMPLAR, **LIMITS)
    assert refusal in str(refused.value)
    assert pdl(["grade", str(write_nb("s", stub_nb)), "--assignment", EXEMPLAR]) == 2
    err = capsys.readouterr().err
    assert "--isolation process" in err and "read the reference solutions" in err


def test_process_isolation_only_on_request_and_loudly(write_nb, stub_nb, capsys):
    from autograder.cli import main as pdl

    path = write_nb("s", stub_nb)
    report_path = path.parent / "r.json"
    assert pdl(["grade", str(path), "--assignment", EXEMPLAR, "--isolation", "process",
                "--json", str(report_path), "--timeout", "30", "--call-timeout", "10"]) == 0
    report = json.loads(report_path.read_text())
    assert report["isolation"] == "process" and report["errors"][0].startswith("WARNING")
    assert "WARNING" in capsys.readouterr().err


# -- Ctrl-C ---------------------------------------------------------------------------------
def _pdl(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "autograder.cli", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_ctrl_c_stops_grade_with_no_report(tmp_path, correct_nb, nothing_left_behind):
    nb = tmp_path / f"{EXEMPLAR}.ipynb"
    nb.write_text(json.dumps(with_cells(correct_nb, [code_cell("while True:\n    pass")])))
    report = tmp_path / "report.json"
    proc = _pdl("grade", str(nb), "--assignment", EXEMPLAR, "--json", str(report), "--timeout", "120")
    time.sleep(6)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert not report.exists() and "total:" not in out
    assert "interrupted" in err


def test_ctrl_c_keeps_finished_cohort_records(tmp_path, correct_nb, nothing_left_behind):
    subs = tmp_path / "subs"
    for k in range(4):
        (subs / f"s{k}").mkdir(parents=True)
        cells = [] if k == 0 else [code_cell("while True:\n    pass")]
        (subs / f"s{k}" / f"{EXEMPLAR}.ipynb").write_text(json.dumps(with_cells(correct_nb, cells)))
    out = tmp_path / "out"
    proc = _pdl("grade-cohort", str(subs), "--assignment", EXEMPLAR, "--out", str(out), "--workers", "1",
                "--timeout", "120", "--no-gradebook", "--quiet")
    deadline = time.monotonic() + 120
    while not list((out / "records").glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.5)
    time.sleep(2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert [p.name for p in (out / "records").glob("*.json")] == ["s0.json"]
    assert "rerun the same command" in err


def test_a_killed_grader_leaves_no_student_process(tmp_path, correct_nb, nothing_left_behind):
    nb = tmp_path / f"{EXEMPLAR}.ipynb"
    nb.write_text(json.dumps(with_cells(correct_nb, [code_cell(
        "import os, time\nfor _ in range(5):\n    if os.fork() == 0:\n        break\nwhile True:\n    pass")])))
    proc = _pdl("grade", str(nb), "--assignment", EXEMPLAR, "--timeout", "120")
    # the grader's side of one submission runs in a child of pdl (autograder/run/bounded.py)
    graders = lambda: {proc.pid} | {int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()  # noqa: E731
                                    and _ppid(e) == proc.pid}
    mine = lambda: [e for e in Path("/proc").iterdir() if e.name.isdigit() and grader_of(_uid(e)) in graders()]  # noqa: E731
    deadline = time.monotonic() + 60
    while not mine() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert mine(), "the sandbox never started"
    time.sleep(4)  # into the notebook's endless loop
    proc.kill()
    proc.communicate(timeout=30)
    assert not _sandbox_processes(wait=10)


def _ppid(entry: Path) -> int:
    try:
        return int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def _uid(entry: Path) -> int:
    try:
        return entry.stat().st_uid
    except OSError:
        return -1


UNPRIVILEGED = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
from autograder.run import channel
w = channel.Worker({}, memory_mb=2048)
try:
    w.wait_ready(60)
    errors = w.run_cells([(0, "import os\ndef f():\n    return [os.getuid(), sorted(os.listdir('/')), "
                              "[d for d in ('/', '/usr', '/tmp', '/home/student') if os.access(d, os.W_OK)]]")], 60)
    answer = w.request({"op": "call", "name": "f", "args": [], "kwargs": {"__dict__": []}}, 30)
finally:
    w.close()
print(json.dumps({"isolation": w.isolation, "errors": errors, "answer": answer}))
'''


def test_an_unprivileged_grader_gets_the_same_allow_list(tmp_path):
    """A TA's ordinary account (here: nobody) builds the sandbox in a user namespace."""
    from autograder.course.generate import build_otter_zip
    from autograder.gradescope import simulate

    if os.geteuid() != 0:
        pytest.skip("needs root to become another user for the test")
    # an interpreter with numpy and IPython that an ordinary account can run (not under /root)
    venv = simulate.venv_for(build_otter_zip(EXEMPLAR))
    out = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "-i",
                          "PATH=/usr/bin:/bin:/usr/sbin:/sbin", "HOME=/",
                          str(venv / "bin" / "python"), "-c", UNPRIVILEGED, str(REPO)],
                         capture_output=True, text=True, timeout=120, cwd="/", check=False)
    if "No module named 'autograder'" in out.stderr:
        pytest.skip(f"this checkout ({REPO}) is not readable by other users")
    if "SandboxUnavailable" in out.stderr:
        pytest.skip(f"unprivileged user namespaces are not allowed here: {out.stderr[-300:]}")
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert data["isolation"] == "namespace" and data["errors"] == []
    uid, root, writable = data["answer"]["value"]
    assert uid == 1000 and "root" not in root and "work" not in root and "sys" not in root
    assert writable == ["/tmp", "/home/student"]


# -- the Python packages it sees, and where the root is built (issue 21) ---------------------
FORBIDDEN = ("autograder", "solutions", "grading_tests", "course_config", "otter", "nbgrader", "pdl_course",
             "__editable__")
SITES = r'''
import importlib.metadata, os, sys
def sites():
    dirs = [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")]
    mounts = [line.split() for line in open("/proc/self/mountinfo")]
    try:
        course = importlib.metadata.distribution("pdl-course").metadata["Name"]
    except importlib.metadata.PackageNotFoundError:
        course = None
    return {"listed": {p: sorted(os.listdir(p)) for p in dirs},
            "dists": sorted(d.metadata["Name"] for d in importlib.metadata.distributions()),
            "course": course, "bin": sorted(os.listdir(os.path.join(sys.prefix, "bin"))),
            "writable": [m[4] for m in mounts if m[4].startswith(tuple(dirs)) and "ro" not in m[5].split(",")]}
'''


def test_site_packages_hold_only_the_allowed_distributions(nothing_left_behind):
    """The course's environment holds the course editable (finder and .pth), otter, nbgrader,
    pandas...; the student's process sees what the release and the reference import, the students'
    own environment, the worker's needs and their requirements, read-only, and no metadata of the
    course."""
    from packaging.utils import canonicalize_name

    from autograder.run import packages
    from autograder.run.protocol import decode

    worker = Worker({f"{EXEMPLAR}.ipynb": b"{}"}, memory_mb=2048)
    try:
        worker.wait_ready(60)
        assert worker.run_cells([(0, SITES)], 60) == []
        answer = worker.request({"op": "call", "name": "sites", "args": [], "kwargs": {"__dict__": []}}, 60)
    finally:
        worker.close()
    assert answer["status"] == "ok", answer
    seen = decode(answer["value"])
    listed = [name for names in seen["listed"].values() for name in names]
    assert {"IPython", "numpy", "scipy", "matplotlib"} <= set(listed)  # the release's imports and the worker's
    assert [n for n in listed if n.startswith(FORBIDDEN)] == []
    assert "torch" in listed and "tqdm" in listed  # the students' own environment (assignments/requirements.txt)
    assert not {"pandas", "sqlalchemy", "jupyterlab", "otter", "nbgrader"} & set(listed)  # installed, not theirs
    allowed = set(packages.allowed_distributions(packages.release_modules(EXEMPLAR)))
    assert {canonicalize_name(n) for n in seen["dists"]} <= allowed and "pytest" not in allowed
    assert seen["course"] is None
    assert seen["bin"] and all(n.startswith("python") for n in seen["bin"])  # no `pdl` or other commands
    assert seen["writable"] == []


IN_SHM = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
from autograder.run import channel, rootfs
assert channel.__file__.startswith(sys.argv[1]) and rootfs.__file__.startswith(sys.argv[1]), rootfs.__file__
w = channel.Worker({}, memory_mb=2048)
try:
    w.wait_ready(60)
    errors = w.run_cells([(0, "import sys, numpy\ndef f():\n    return [sys.prefix, numpy.__file__]")], 60)
    answer = w.request({"op": "call", "name": "f", "args": [], "kwargs": {"__dict__": []}}, 30)
finally:
    w.close()
print(json.dumps({"errors": errors, "answer": answer}))
'''


def test_the_sandbox_builds_wherever_the_course_lives():
    """The course and its .venv kept under /dev/shm (here: the checkout bound there, in a mount
    namespace of the test's own with a private /dev/shm): the root is assembled where it covers
    none of them."""
    if os.geteuid() != 0:
        pytest.skip("needs root for a mount namespace of the test's own")
    course = "/dev/shm/pdl-course"
    script = (f"mount -t tmpfs pdl-shm /dev/shm && mkdir {course} && mount --bind {shlex.quote(str(REPO))} {course} "
              f"&& exec {course}/.venv/bin/python -I -c \"$0\" {course}")
    out = subprocess.run(["unshare", "--mount", "sh", "-c", script, IN_SHM],
                         capture_output=True, text=True, timeout=180, cwd="/", check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert data["errors"] == [] and data["answer"]["status"] == "ok", data
    prefix, numpy_file = data["answer"]["value"]
    assert prefix == f"{course}/.venv" and numpy_file.startswith(f"{course}/.venv/")
    assert rootfs._build_at([f"{course}/.venv", "/usr"]) not in ("/dev/shm", None)


# -- account isolation: only when chosen, a uid per submission, nothing survives (issue 21) ----
def _account_worker(**kw) -> Worker:
    worker = Worker({}, memory_mb=2048, isolation="account", **kw)
    worker.wait_ready(60)
    return worker


def _call(worker: Worker, source: str, name: str = "f", *args):
    """Run ``source`` in the worker, then call ``name(*args)``; its decoded value."""
    from autograder.run.protocol import decode

    assert worker.run_cells([(0, source)], 60) == []
    answer = worker.request({"op": "call", "name": name, "args": list(args), "kwargs": {"__dict__": []}}, 60)
    assert answer["status"] == "ok", answer
    return decode(answer["value"])


def _seen(uid: int, scans: int = 40) -> bool:
    """Whether ``uid`` owns a process in any of ``scans`` reads of /proc (a process that keeps
    forking can be missed by one read: its pid is gone before its status is read)."""
    return any(accounts.processes(uid) for _ in range(scans))


def _seen_after_release(uid: int) -> bool:
    """``_seen`` while holding ``uid``'s lease lock: under ``-n 2`` another test may lease the uid
    the moment it is given back, and its processes are not the released submission's."""
    fd = os.open(accounts.LOCKS / f"{uid}.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits for the other test's submission, which kills its own
        return _seen(uid)
    finally:
        os.close(fd)


def test_no_silent_fallback_to_account_isolation(monkeypatch, write_nb, stub_nb, capsys):
    """The namespace probe fails (a root grader without CAP_SYS_ADMIN) while account isolation
    would work (as where `pdl validate` once created the account): grading refuses unless account
    isolation is chosen, and the report then says which isolation it used."""
    from autograder.cli import main as pdl
    from autograder.run.report_text import format_report

    refusal = "unshare: unshare failed: Operation not permitted"
    monkeypatch.delenv("PDL_ISOLATION", raising=False)
    monkeypatch.setattr(isolation, "probe", lambda: refusal)
    monkeypatch.setattr(isolation, "probe_account", lambda: "")  # account isolation would hold here
    monkeypatch.setattr(isolation, "_account_ids", lambda: (999, 999), raising=False)  # the old code's check
    monkeypatch.setattr(rootfs, "_unshare_cmd", lambda: [
        "sh", "-c", f'echo "pdl-sandbox: {refusal}" >&2; exit 97', "unshare"])
    with pytest.raises(SandboxUnavailable, match="Operation not permitted"):
        isolation.resolve_isolation(None)
    assert isolation.resolve_isolation(None, lazy=True) == "namespace"  # the worker's set-up then refuses
    with pytest.raises(SandboxUnavailable):
        grade(write_nb("s", stub_nb), EXEMPLAR, **LIMITS)
    assert pdl(["grade", str(write_nb("s", stub_nb)), "--assignment", EXEMPLAR]) == 2
    assert "cannot build the grading sandbox" in capsys.readouterr().err
    # chosen: by the argument, by PDL_ISOLATION (the zip), or on the command line
    assert isolation.resolve_isolation("account") == "account"
    monkeypatch.setenv("PDL_ISOLATION", "account")
    assert isolation.resolve_isolation(None) == "account"
    monkeypatch.delenv("PDL_ISOLATION")
    report_path = write_nb("s", stub_nb).parent / "r.json"
    assert pdl(["grade", str(write_nb("s", stub_nb)), "--assignment", EXEMPLAR, "--isolation", "account",
                "--json", str(report_path), "--timeout", "30", "--call-timeout", "10"]) == 0
    assert "isolation: account" in capsys.readouterr().out
    report = json.loads(report_path.read_text())
    assert report["isolation"] == "account" and report["max_score"] > 0
    assert "isolation: account" in format_report(grade(write_nb("s", stub_nb), EXEMPLAR, isolation="account", **LIMITS))


def test_the_zip_chooses_account_isolation_only_where_namespaces_are_refused(monkeypatch):
    from autograder.gradescope import plugin

    monkeypatch.delenv("PDL_ISOLATION", raising=False)
    assert plugin.zip_isolation() == "namespace"
    monkeypatch.setattr(isolation, "probe", lambda: "unshare: Operation not permitted")
    assert plugin.zip_isolation() == "account"
    monkeypatch.setenv("PDL_ISOLATION", "namespace")
    assert plugin.zip_isolation() == "namespace"


def test_each_live_submission_has_a_uid_of_its_own(nothing_left_behind):
    """A grader in another process (a cohort's worker) holds a uid: the next submission gets
    another, and two live submissions of one process get two."""
    other = subprocess.Popen([sys.executable, "-c", ("import sys\nfrom autograder.run import accounts, rootfs\n"
                              "lease = accounts.lease(rootfs._python_paths())\nprint(lease.uid, flush=True)\n"
                              "sys.stdin.read()\nlease.release()")],
                             cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        held = int(other.stdout.readline())
        first, second = _account_worker(), _account_worker()
        try:
            uids = [_call(w, "import os\ndef f():\n    return os.getuid()") for w in (first, second)]
            leased = [first._lease.uid, second._lease.uid]  # given back (None) once closed
        finally:
            first.close()
            second.close()
    finally:
        other.communicate("", timeout=60)
    assert len({held, *uids}) == 3, (held, uids)
    assert all(accounts.UID_FIRST <= u < accounts.UID_FIRST + accounts.POOL for u in (held, *uids))
    assert uids == leased


# Double-forks, leaves the process group and session, and keeps re-forking (a new pid every
# moment); once the submission that started it is gone it kills every process of its uid (the
# next submission's, if it were given the same uid) and reads whatever notebook it can find.
ESCAPE = r'''
import os, signal, time
def f(marker):
    worker = os.getpid()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                if os.fork():
                    os._exit(0)
                try:
                    os.kill(worker, 0)
                except ProcessLookupError:
                    os.kill(-1, signal.SIGKILL)
        os._exit(0)
    os.wait()
    return os.getuid()
'''


@pytest.mark.parametrize("cgroup", [True, False], ids=["cgroup", "kill-loop"])
def test_an_escaped_reforking_process_is_gone_after_teardown(cgroup, monkeypatch, nothing_left_behind):
    if cgroup and accounts.cgroup_parent() is None:
        pytest.skip("no writable cgroup v2 hierarchy here")
    if not cgroup:
        monkeypatch.setattr(accounts, "cgroup_parent", lambda: None)
    first = _account_worker()
    try:
        assert (first._lease.cgroup is not None) == cgroup
        uid = _call(first, ESCAPE, "f", "x")
        assert _seen(uid), "the re-forking process never ran"
    finally:
        first.close()
    assert not _seen_after_release(uid), "the re-forking process outlived its submission"
    second = _account_worker()  # often the same uid: nothing of the first may reach it
    try:
        slow_uid = "import os, time\ndef f():\n    time.sleep(1)\n    return os.getuid()"
        assert _call(second, slow_uid) == second._lease.uid
    finally:
        second.close()


def test_a_cohort_in_account_isolation(tmp_path, correct_nb, nothing_left_behind):
    """Two workers at once, one submission escaping and killing whatever its uid owns: the
    correct one still scores full marks, and every record names its isolation."""
    subs = tmp_path / "subs"
    escape = code_cell(ESCAPE.replace("def f(marker)", "def escape(marker)") + "escape('x')")
    big = code_cell("import numpy\ndef generalization_error(R):\n    return numpy.zeros(2**24, dtype=numpy.int8)\n")
    for student, cells in (("escapes", [escape]), ("correct", []), ("correct2", []), ("big_answer", [big])):
        (subs / student).mkdir(parents=True)
        (subs / student / f"{EXEMPLAR}.ipynb").write_text(json.dumps(with_cells(correct_nb, cells)))
    summary = grade_cohort(subs, EXEMPLAR, tmp_path / "out", workers=2, progress=False, isolation="account", **LIMITS)
    by = {r.student: r for r in summary.results}
    assert by["correct"].score == by["correct2"].score == by["correct"].max_score > 0, by
    assert 0 < by["big_answer"].score < by["correct"].max_score  # only that function's tests lost
    records = [json.loads(p.read_text()) for p in (tmp_path / "out" / "records").glob("*.json")]
    assert len(records) == 4 and {r["isolation"] for r in records} == {"account"}


LEAVE = r'''
import ctypes, os, tempfile
def f(token):
    made = []
    for folder in ("/tmp", "/dev/shm", "/var/tmp", tempfile.gettempdir()):
        for path in (os.path.join(folder, token), os.path.join(folder, token + "-dir")):
            try:
                if path.endswith("-dir"):
                    os.mkdir(path)
                    open(os.path.join(path, "inner"), "w").write("x")
                else:
                    open(path, "w").write("x")
                made.append(path)
            except OSError:
                pass
    libc = ctypes.CDLL(None, use_errno=True)  # System V shared memory: not a file anywhere
    made.append(libc.shmget(0, 4096, 0o1000 | 0o600))  # IPC_PRIVATE, IPC_CREAT
    return [tempfile.gettempdir(), os.environ.get("TMPDIR"), made]
'''


def _ipc_of(uid: int) -> list[int]:
    """Ids of the System V shared memory segments ``uid`` owns."""
    header, *rows = Path("/proc/sysvipc/shm").read_text().splitlines()
    return [int(r["shmid"]) for r in (dict(zip(header.split(), row.split())) for row in rows) if r["uid"] == str(uid)]


@pytest.mark.parametrize("landlock", [True, False], ids=["landlock", "permissions-only"])
def test_nothing_is_left_in_tmp_or_dev_shm(landlock, monkeypatch, nothing_left_behind):
    if landlock and accounts.landlock_abi() < 1:
        pytest.skip("this kernel has no Landlock")
    if not landlock:  # as on a kernel without Landlock; this checkout is world-readable, so the
        monkeypatch.setattr(accounts, "landlock_abi", lambda: 0)  # permission check would refuse
        monkeypatch.setattr(isolation, "probe_account", lambda: "")
    token = f"pdl-left-{uuid.uuid4().hex}"
    worker = _account_worker()
    try:
        tmp, tmpdir, made = _call(worker, LEAVE, "f", token)
        assert tmp == tmpdir == str(worker._lease.tmp)  # its own temp folder
        private, uid = worker._lease.root, worker._lease.uid
        shm = made.pop()
        assert shm >= 0 and _ipc_of(uid) == [shm]
    finally:
        worker.close()
    assert _ipc_of(uid) == []
    if landlock:
        assert made == [tmp + "/" + token, tmp + "/" + token + "-dir"]  # the host's scratch is closed to it
    else:
        assert {"/tmp/" + token, "/dev/shm/" + token, "/var/tmp/" + token} <= set(made)
    assert not private.exists()
    left = [f"{d}/{n}" for d in ("/tmp", "/dev/shm", "/var/tmp") for n in os.listdir(d) if n.startswith(token)]
    assert left == []


def test_landlock_confines_files_and_network(tmp_path, monkeypatch, nothing_left_behind):
    """What account isolation alone left open (issue 21): another world-readable copy of the
    course, the host's loopback network, signals to the grader. Where the kernel has no Landlock
    (or no network rules), the report says what was not confined."""
    import socket

    abi = accounts.landlock_abi()
    if abi < 1:
        worker = _account_worker()
        worker.close()
        assert any("without Landlock" in n for n in worker.notes), worker.notes
        return
    course = Path(tempfile.mkdtemp(prefix="pdl-test-course-"))  # world-readable, as a checkout usually is
    try:
        (course / "solutions").mkdir()
        (course / "solutions" / "reference.py").write_text(SECRET)
        for path in (course, course / "solutions"):
            path.chmod(0o755)
        (course / "solutions" / "reference.py").chmod(0o644)
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        probe = ("import os, socket\ndef f(paths, port):\n    out = {}\n    for p in paths:\n"
                 "        try:\n            out[p] = open(p).read()\n        except OSError as e:\n"
                 "            out[p] = e.errno\n    s = socket.socket()\n    try:\n"
                 "        s.connect(('127.0.0.1', port))\n        out['tcp'] = 'connected'\n"
                 "    except OSError as e:\n        out['tcp'] = e.errno\n    try:\n"
                 "        os.kill(os.getppid(), 0)\n        out['signal'] = 'sent'\n    except OSError as e:\n"
                 "        out['signal'] = e.errno\n    return out")
        paths = [str(course / "solutions" / "reference.py"), str(REPO / "solutions" / EXEMPLAR / "__init__.py"),
                 "/etc/passwd"]
        worker = _account_worker()
        try:
            seen = _call(worker, probe, "f", paths, port)
            notes = worker.notes
        finally:
            worker.close()
            listener.close()
    finally:
        shutil.rmtree(course)
    assert SECRET not in json.dumps(seen)
    assert all(isinstance(seen[p], int) for p in paths), seen
    if abi >= 4:
        assert seen["tcp"] == 13 and notes == [], (seen, notes)  # EACCES: no TCP, loopback included
    else:
        assert any("cannot confine the network" in n for n in notes), notes
    if abi >= 6:
        assert seen["signal"] == 1  # EPERM: no signal leaves the submission


def test_without_landlock_the_report_says_what_was_not_confined(monkeypatch, write_nb, stub_nb):
    monkeypatch.setattr(accounts, "landlock_abi", lambda: 0)  # a kernel without Landlock
    monkeypatch.setattr(isolation, "probe_account", lambda: "")  # this checkout is world-readable
    report = grade(write_nb("s", stub_nb), EXEMPLAR, isolation="account", **LIMITS)
    assert report.isolation == "account"
    assert any("without Landlock" in e and "network" in e for e in report.errors), report.errors
    assert accounts.not_confined(3) and "network" in accounts.not_confined(3) and accounts.not_confined(4) == ""


FAKE_SETUP = "#!/usr/bin/env bash\nset -e\nuseradd --system --no-create-home --shell /usr/sbin/nologin {name}\n"
FAKE_RUN = ("#!/usr/bin/env bash\nif id {name} >/dev/null 2>&1; then s=1; else s=0; fi\n"
            "echo \"{{\\\"score\\\": $s, \\\"tests\\\": []}}\" > \"$PDL_AUTOGRADER_DIR/results/results.json\"\n")


def test_the_gradescope_simulation_leaves_the_host_accounts_unchanged(tmp_path):
    """The zip's set-up may create accounts (it did: pdl-student); in the simulation they exist
    only in its private copy of /etc, never on the host."""
    import zipfile

    from autograder.gradescope import archive, simulate

    if os.geteuid() != 0:
        pytest.skip("as a non-root user the simulation cannot change the host's accounts")
    name = f"pdl-sim-{uuid.uuid4().hex[:8]}"
    fake = tmp_path / "fake-autograder.zip"
    with zipfile.ZipFile(fake, "w") as zf:
        zf.writestr("requirements.txt", "")
        zf.writestr("setup.sh", "#!/usr/bin/env bash\n")
        zf.writestr("pdl/setup_account.sh", FAKE_SETUP.format(name=name))
        zf.writestr("run_autograder", FAKE_RUN.format(name=name))
    nb = tmp_path / "nb.ipynb"
    nb.write_text("{}")
    tables = ("/etc/passwd", "/etc/group", "/etc/shadow", "/etc/gshadow")
    before = {t: Path(t).read_bytes() for t in tables if Path(t).exists()}
    got = simulate.simulate(fake, nb, Path(sys.prefix), tmp_path / "root", timeout=60)
    assert got["score"] == 1  # the account existed inside the simulation
    assert {t: Path(t).read_bytes() for t in before} == before
    assert subprocess.run(["id", name], capture_output=True, check=False).returncode != 0
    assert "useradd" not in archive.SETUP_ACCOUNT  # and the real zip creates no account at all


HOLD_THREADS = r'''
import os, threading, time
def hold():
    held = 0
    threading.stack_size(1 << 18)
    try:
        while True:  # as many threads as the uid may have, each asleep
            threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
            held += 1
    except RuntimeError:
        return [os.getuid(), held]
def one_more():
    t = threading.Thread(target=time.sleep, args=(0.1,))
    t.start()
    t.join()
    return os.getuid()
'''


@pytest.mark.skipif(os.geteuid() != 0, reason="without root every sandbox runs as the grader's own uid")
def test_two_submissions_graded_side_by_side_have_their_own_uid_and_thread_limit(nothing_left_behind):
    """As two threads of a dask worker grade two submissions at once: each student process has a uid
    of its own, so one that holds every thread its limit allows costs the other nothing."""
    import concurrent.futures

    def start():
        worker = Worker({}, memory_mb=2048, isolation="namespace")
        worker.wait_ready(60)
        assert worker.run_cells([(0, HOLD_THREADS)], 60) == []
        return worker

    # (the pool's threads outlive the student processes: a process started from a thread is killed
    # when that thread ends, by its parent-death signal)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _: start(), range(2))
        try:
            uid, held = _call(first, HOLD_THREADS, "hold")
            assert held > 8  # it reached its own limit
            other = _call(second, HOLD_THREADS, "one_more")
            assert other != uid and grader_of(uid) == grader_of(other) == os.getpid()
        finally:
            first.close()
            second.close()
