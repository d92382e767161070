"""Start and talk to the student's process (``autograder.run.worker``) under limits: a ``Worker``
starts it cold, isolated as chosen (``autograder.run.isolation``; the allow-list root of
``autograder.run.rootfs``), or forks it from a warm template (``autograder.run.templates``), and
speaks with it on its channel.

Either way the submission's files reach the process through its stdin (no stage folder on
the host), limits on processes, file size, open files, CPU time and memory are set before any
student code runs, and the verdict is computed in the grader's process, never in the
student's. What the student's process says on its channel is read under a byte cap and
decoded strictly (``autograder.run.protocol``).

Time limits count the CPU time of the student's process and of every process it started, as
the grader reads it (``/proc``, or its cgroup's ``cpu.stat``), so a busy host does not make a
correct notebook late; the wall clock is only an outer bound (``settings.Limits.wall_s``).

A process that dies is told apart by what the grader can see (``WorkerDied.cause``): its own CPU
limit (``WorkerTimeout``), its own memory limit (its cgroup's ``memory.events``), the kernel's
out-of-memory killer (the cgroup's or the host's ``oom_kill`` counter), a crash or an exit of its
own, or a signal from outside. A process killed from outside or by the host's out-of-memory
killer is started again once, transparently: the notebook's cells and the requests that changed
its state are replayed, then the request is sent again, and nothing is charged (a grader note
says so). A second such death is the student's.
"""

from __future__ import annotations

import ast
import base64
import collections
import functools
import json
import os
import queue
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from autograder.run import accounts, messages, protocol, rootfs, settings
from autograder.run.isolation import SandboxUnavailable, _child_setup, refuse_message, resolve_isolation
from autograder.run.messages import Event, Op, Status
from autograder.run.paths import REPO
from autograder.run.templates import TemplateFailed, template_for

MAX_SKIPPED = 10_000       # messages for other requests skipped while waiting for one answer
LIMITS = {"nproc": 64, "fsize_mb": 64, "nofile": 256}  # per student process (tasks of its uid)
RESTARTS_FROM_OUTSIDE = 1  # times a process killed from outside is started again, per Worker
POLL_S = 0.5               # how often the student's CPU time is read while the grader waits
READ_GAP_S = 0.02          # and never twice within this (a quick answer: one reading, at the start)
# Signals a process of the sandbox does not send itself by accident: from outside (another user,
# an administrator, a test), where no limit of its own explains them.
FROM_OUTSIDE = frozenset({signal.SIGKILL, signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT})
# The ways a student's process ends, as ``WorkerDied.cause`` says them.
EXITED = "exited"                # it exited by itself, with a code
CRASHED = "crashed"              # a fatal signal of its own (a segmentation fault, an abort)
MEMORY = "memory"                # killed by its own memory limit (its cgroup's)
OUT_OF_MEMORY = "out of memory"  # killed by the kernel's out-of-memory killer (the host's memory)
OUTSIDE = "outside"              # a signal from outside, no limit of its own
SIGNALED = "signaled"            # a signal, which one unknown (a cold namespace sandbox), no limit of its own
STOPPED = "stopped answering"    # it closed its channel but did not exit
RETRIED = frozenset({OUT_OF_MEMORY, OUTSIDE, SIGNALED})  # started again once: not the student's doing


class WorkerDied(RuntimeError):
    """The student's process exited (os._exit, crash, killed). ``killed``: by SIGKILL (its memory
    limit, out of memory; not once it was killed from outside again after it was started anew),
    from its exit status; ``cause``:
    how it ended, as far as the grader can tell (``EXITED``, ``CRASHED``, ``MEMORY``,
    ``OUT_OF_MEMORY``, ``OUTSIDE``, ``SIGNALED``, ``STOPPED``)."""
    killed: bool = False
    cause: str = EXITED


class WorkerTimeout(RuntimeError):
    """The student's process did not answer in time (and was killed), or used up its CPU time."""


class ChannelError(protocol.ProtocolError):
    """The student's process wrote something on the answer channel that is not a valid answer."""


class _KilledFromOutside(WorkerDied):
    """Internal: the process died of something that is not its own doing; the Worker starts it
    again once (``Worker._restart``), and raises it as a ``WorkerDied`` otherwise."""


def _account_child_setup(lease: accounts.Lease) -> None:
    _child_setup()
    lease.enter()  # its cgroup and Landlock, before anything of the student's runs


# -- what the grader reads of the student's processes ------------------------------------------
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree_cpu_s(root: int) -> float | None:
    """CPU seconds (user and system) of process ``root`` and every process below it, with the
    children each has already reaped; None when ``root`` is gone or unreadable."""
    total, stack, seen = 0, [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read()
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            if pid == root:
                return None
            continue
        # after the command's closing parenthesis: state (3) ... utime (14) stime cutime cstime (17)
        fields = stat[stat.rfind(b")") + 2:].split()
        try:
            total += sum(int(x) for x in fields[11:15])
        except ValueError:
            if pid == root:
                return None
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children") as fh:
                    stack += [int(k) for k in fh.read().split()]
            except (OSError, ValueError):
                pass
    return total / _TICK


def cgroup_cpu_s(cgroup: Path) -> float | None:
    """CPU seconds of every process that was ever in ``cgroup`` (its ``cpu.stat``), or None."""
    try:
        for line in (cgroup / "cpu.stat").read_text().splitlines():
            if line.startswith("usage_usec "):
                return int(line.split()[1]) / 1e6
    except (OSError, ValueError):
        pass
    return None


def oom_counts(cgroup: Path | None) -> tuple[int, int, int]:
    """(its cgroup's ``oom``: its own memory limit reached, its cgroup's ``oom_kill``, the host's
    ``oom_kill`` of ``/proc/vmstat``): counters compared before and after a death; 0 where unknown."""
    def read(path, key: str) -> int:
        try:
            for line in Path(path).read_text().splitlines():
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0
    if cgroup is None:
        return 0, 0, read("/proc/vmstat", "oom_kill")
    return (read(cgroup / "memory.events", "oom"), read(cgroup / "memory.events", "oom_kill"),
            read("/proc/vmstat", "oom_kill"))


def _signal_of(code: int | None, shell_codes: bool) -> int | None:
    """The signal a process died of, from its exit status (negative, or ``128 + n`` where the
    process's parent reports it so: a warm fork, a shell); None if it exited."""
    if code is None:
        return None
    if code < 0:
        return -code
    if shell_codes and 128 < code < 128 + signal.NSIG:
        return code - 128
    return None


# -- starting a process from a thread that lives ---------------------------------------------------
# A child dies with the thread that started it (PR_SET_PDEATHSIG): a process started again from a
# passing thread (the one that runs the notebook while the grader loads the tests) is started by
# this one, which lives as long as the process.
_SPAWNER: dict[int, queue.Queue] = {}
_SPAWNER_LOCK = threading.Lock()


def _on_lasting_thread(fn):
    """``fn()`` on this process's lasting spawner thread; its result, or its exception raised here."""
    with _SPAWNER_LOCK:
        jobs = _SPAWNER.get(os.getpid())
        if jobs is None:
            jobs = _SPAWNER[os.getpid()] = queue.Queue()

            def serve(jobs=jobs):
                while True:
                    job, box = jobs.get()
                    try:
                        box.put((job(), None))
                    except BaseException as exc:  # noqa: BLE001 - handed to the caller
                        box.put((None, exc))
            threading.Thread(target=serve, name="pdl-spawner", daemon=True).start()
    box: queue.Queue = queue.Queue(maxsize=1)
    jobs.put((fn, box))
    result, exc = box.get()
    if exc is not None:
        raise exc
    return result


# -- the notebook's set-up, replayed in place of a cell that is skipped ------------------------
# The cells each notebook (its ``files``, the same object for every process of one submission) was
# first run with: a later run without some of them (a cell that hung or crashed is skipped) runs
# their set-up instead (``setup_of``), so imports and definitions made there are not lost; a set-up
# that itself hangs or crashes is not run again.
class _FirstRun:
    def __init__(self, files: dict, cells: list[tuple[int, str]]):
        self.files, self.cells = files, list(cells)
        self.failed: set[int] = set()  # cells whose set-up, run in their place, hung or crashed
        self.modules = set().union(*(imported_names(s) for _, s in self.cells)) if self.cells else set()


_FIRST_RUN: collections.OrderedDict[int, _FirstRun] = collections.OrderedDict()
_FIRST_RUN_KEPT = 4
_FIRST_RUN_LOCK = threading.Lock()
_IMPORTS = (ast.Import, ast.ImportFrom)


def _parse(source: str) -> ast.Module | None:
    text = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines())  # magics
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def imported_names(source: str) -> set[str]:
    """The names a cell's top-level imports bind (``np`` for ``import numpy as np``)."""
    tree = _parse(source)
    return {(a.asname or a.name).split(".")[0] for node in (tree.body if tree else []) if isinstance(node, _IMPORTS)
            for a in node.names if a.name != "*"}


def _cheap(value: ast.expr, modules: set[str]) -> bool:
    """A value computed from literals and imported modules' functions alone (``np.log(2.0)``)."""
    for node in ast.walk(value):
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Await,
                             ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
        if isinstance(node, ast.Name) and node.id not in modules:
            return False
    return True


def setup_of(source: str, modules: set[str] | frozenset = frozenset()) -> str:
    """What of a skipped cell is run again: its imports (and ``try`` blocks of imports), function
    and class definitions, and assignments of values computed from literals and ``modules`` (the
    names the notebook's imports bind) alone, at their own lines (the rest blanked, so an error's
    line number is the cell's); "" when nothing, or the cell does not parse."""
    tree = _parse(source)
    if tree is None:
        return ""
    modules = set(modules) | imported_names(source)

    def kept(node) -> bool:
        if isinstance(node, (*_IMPORTS, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return True
        if isinstance(node, ast.Try):
            return all(isinstance(n, _IMPORTS) for n in node.body)
        if isinstance(node, ast.Assign):
            names = [n for t in node.targets for n in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
            return all(isinstance(n, ast.Name) for n in names) and _cheap(node.value, modules)
        if isinstance(node, ast.AnnAssign):
            return isinstance(node.target, ast.Name) and node.value is not None and _cheap(node.value, modules)
        return False
    lines = source.splitlines()
    keep = [False] * len(lines)
    for node in tree.body:
        if kept(node):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            for n in range(first - 1, min(node.end_lineno or node.lineno, len(lines))):
                keep[n] = True
    if not any(keep):
        return ""
    return "\n".join(ln if k else "" for ln, k in zip(lines, keep)).rstrip() + "\n"


def _first_run(files: dict) -> _FirstRun | None:
    with _FIRST_RUN_LOCK:
        entry = _FIRST_RUN.get(id(files))
        return entry if entry is not None and entry.files is files else None


def _with_setup(files: dict, cells: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], set[int]]:
    """``cells``, with the set-up of each cell the notebook's first run had and this one has not;
    and the cells replaced so."""
    with _FIRST_RUN_LOCK:
        entry = _FIRST_RUN.get(id(files))
        if entry is None or entry.files is not files:
            _FIRST_RUN[id(files)] = _FirstRun(files, cells)
            while len(_FIRST_RUN) > _FIRST_RUN_KEPT:
                _FIRST_RUN.popitem(last=False)
            return cells, set()
        _FIRST_RUN.move_to_end(id(files))
    given = dict(cells)
    out, replaced = [], set()
    for index, source in entry.cells:
        if index in given:
            out.append((index, given.pop(index)))
        elif index not in entry.failed and (setup := setup_of(source, entry.modules)):
            out.append((index, setup))
            replaced.add(index)
    return out + [(i, s) for i, s in cells if i in given], replaced


class _Budget:
    """A time limit of ``seconds`` on the student's process: its CPU time (with its children's),
    as the grader reads it, and the wall clock as the outer bound (``settings.wall_bound``); where
    its CPU time cannot be read, the wall clock alone, at ``seconds``."""

    def __init__(self, worker: Worker, seconds: float):
        self.worker, self.seconds = worker, seconds
        self.start = worker._cpu_now()
        self.read_at = time.monotonic()  # when its CPU time was last read
        self.used = 0.0
        wall = settings.wall_bound(seconds, worker.wall_factor) if self.start is not None else seconds
        self.deadline = time.monotonic() + wall

    def wait(self) -> float:
        """How long to wait for the next message before looking again; 0: the time is up."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            return 0.0
        if self.start is None:
            return min(left, 1.0)
        if time.monotonic() - self.read_at >= READ_GAP_S:  # not again right after a reading (/proc is read)
            now = self.worker._cpu_now()
            self.read_at = time.monotonic()
            if now is not None:
                self.used = max(self.used, now - self.start)
        if self.used > self.seconds:
            return 0.0
        return max(0.02, min(left, self.seconds - self.used, POLL_S))

    def why(self) -> str:
        if self.start is not None and self.used > self.seconds:
            return f"time limit reached ({self.seconds:g} s of CPU time)"
        return "time limit reached"


class Worker:
    """One student process. ``request`` sends a message and waits for the answer. A process killed
    from outside is started again once, its state replayed (see the module's docstring)."""

    def __init__(self, files: dict[str, bytes], *, memory_mb: int | None = 4096,
                 isolation: str | None = None, cpu_s: int = 3600):
        self.isolation = resolve_isolation(isolation, lazy=True)
        self._limits = dict(LIMITS, memory_mb=memory_mb or 0, cpu_s=int(cpu_s))
        self._cpu_cap = int(cpu_s)  # its RLIMIT_CPU: a process killed at it ran out of its own time
        self.wall_factor = settings.current().limits.wall_factor
        self._root: Path | None = None  # process isolation: its working folder
        self._uid: int | None = None  # namespace isolation, cold: the sandbox uid leased for this process
        self._lease: accounts.Lease | None = None
        self.notes: list[str] = []  # grader notes: what the isolation could not confine here, restarts
        self.warm = False  # forked by a warm template
        # a cold start's subprocess.Popen, or a warm template's fork (templates._Forked: what Worker uses of one)
        self.proc: Any
        self._files = files
        self._template = template_for(files) if self.isolation == "namespace" else None
        self._requests, self._nonce = 0, os.urandom(6).hex()
        self._done = False  # closed
        self._stopped = False  # killed by the grader: a death from now on is its doing, never retried
        self._life = threading.Lock()  # a restart's start against a close from another thread
        self._restarts_left = RESTARTS_FROM_OUTSIDE
        self._ready_timeout = 60.0
        self._history: list[tuple[dict, float]] = []  # requests that changed its state, replayed after a restart
        self._launch()

    def _launch(self) -> None:
        """Start the process: forked by the warm template this Worker was made with, or cold."""
        self.warm = False
        template = self._template
        if template is not None and template.running():
            try:
                self.proc = template.spawn(self._limits)
                self.warm = True
            except (TemplateFailed, OSError):
                pass  # started cold below, as isolated
        if not self.warm:
            self.proc = self._start_cold(self._files, self._limits)
        if self._lease is not None:
            self._lease.started()
        self._buf = bytearray()
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._oom_before = oom_counts(self._lease.cgroup if self._lease is not None else None)
        self._cpu_seen = 0.0  # its CPU time when last read

    def _start_cold(self, files: dict[str, bytes], limits: dict) -> subprocess.Popen:
        """A fresh interpreter for the student, isolated as ``self.isolation`` says."""
        inner = [sys.executable, "-I", "-c",
                 "import sys; sys.path.insert(0, {!r}); import autograder.run.worker as w; w.main({!r})"]
        env: dict[str, str] = {}
        tmpdir = "/tmp"
        if self.isolation == "namespace":
            home = rootfs.HOME
            inner[-1] = inner[-1].format("/pdl", json.dumps(limits))
            self._uid = rootfs.lease_uid()
            script = rootfs._setup_script(self._uid, inner, rootfs._release_imports(files))
            cmd = rootfs._unshare_cmd() + ["sh", "-c", script]
            cwd = "/"
        elif self.isolation == "account":
            try:  # a uid of this submission's own, with its private home and temp folder
                self._lease = lease = accounts.lease(rootfs._python_paths())
            except accounts.AccountError as exc:
                raise SandboxUnavailable(refuse_message(str(exc))) from None
            code = lease.code / "autograder"  # the worker's modules, read-only for the student
            try:
                (code / "run").mkdir(parents=True)
                for name in rootfs.WORKER_MODULES:
                    shutil.copy(rootfs.ENGINE / name, code / name)
                for path in (code, *code.rglob("*")):
                    path.chmod(0o755 if path.is_dir() else 0o644)
            except BaseException:
                lease.release()
                raise
            inner[-1] = inner[-1].format(str(lease.code), json.dumps(limits))
            cmd = rootfs._drop_privileges(lease.uid, lease.uid) + inner
            cwd, home, tmpdir = str(lease.home), str(lease.home), str(lease.tmp)
            env.update(USER="student", LOGNAME="student")  # the uid has no passwd entry
            self.notes += [n for n in lease.notes if n not in self.notes]
        else:
            self._root = Path(tempfile.mkdtemp(prefix="pdl-work-"))
            home = tmpdir = str(self._root)
            inner[-1] = inner[-1].format(str(REPO), json.dumps(limits))
            cmd, cwd = inner, home
        setup = _child_setup if self._lease is None else functools.partial(_account_child_setup, self._lease)
        try:
            return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    cwd=cwd, env={**rootfs._worker_env(home, tmpdir), **env},
                                    preexec_fn=setup)  # noqa: PLW1509 (its own session, killed with the grader)
        except (OSError, subprocess.SubprocessError) as exc:
            if self._lease is None:
                raise
            self._lease.release()  # its cgroup or Landlock could not be entered: refuse
            self._lease = None
            raise SandboxUnavailable(refuse_message(f"cannot start the student's process: {exc}")) from None

    # -- its CPU time, and how it died ------------------------------------------------------------

    def _cpu_now(self) -> float | None:
        """CPU seconds the student's processes have used so far (None where they cannot be read)."""
        lease = getattr(self, "_lease", None)
        used = cgroup_cpu_s(lease.cgroup) if lease is not None and lease.cgroup is not None else None
        if used is None:
            pid = getattr(self.proc, "host_pid", None) if self.warm else self.proc.pid
            used = tree_cpu_s(pid) if pid else None
        if used is not None:
            self._cpu_seen = max(getattr(self, "_cpu_seen", 0.0), used)
        return used

    def _died(self) -> WorkerDied | WorkerTimeout:
        """Why the process ended (it closed its channel): its own CPU limit (a ``WorkerTimeout``),
        or a ``WorkerDied`` saying its ``cause``. Raises ``SandboxUnavailable`` for the set-up's failure."""
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            exc = WorkerDied(STOPPED)
            exc.cause = STOPPED
            return exc
        warm, cold_namespace = getattr(self, "warm", False), getattr(self, "isolation", "") == "namespace"
        started = self.proc.stderr.closed  # the student's code has run: its exit code is its own
        sig = _signal_of(code, shell_codes=warm)
        tail = "" if started else self._stderr_tail()  # before any student code: the set-up's words
        if cold_namespace and not warm and ((started and code == -signal.SIGPIPE)
                                            or (code == 1 and "sigprocmask" in tail)):
            # unshare (util-linux 2.38) cannot re-raise its child's fatal signal: it says so and exits
            # 1, or dies of SIGPIPE saying it on the stderr closed after set-up. A signal, unknown which.
            sig = 0
        if sig == signal.SIGXCPU or (sig in (0, signal.SIGKILL) and getattr(self, "_cpu_seen", 0.0)
                                     >= getattr(self, "_cpu_cap", 1 << 62)):
            return WorkerTimeout(f"used up its {getattr(self, '_cpu_cap', 0)} s of CPU time")
        if sig is None:
            if not started and code == protocol.SETUP_FAILED:  # the set-up's own failure: the grader's problem
                raise SandboxUnavailable(refuse_message(tail))
            exc = WorkerDied(f"exited with code {code}" + (f" ({tail})" if not started else ""))
            exc.cause = EXITED
            return exc
        before = getattr(self, "_oom_before", (0, 0, 0))
        lease = getattr(self, "_lease", None)
        after = oom_counts(lease.cgroup if lease is not None else None)
        if sig in (0, signal.SIGKILL) and after[0] > before[0]:
            cause, why = MEMORY, "was killed by its memory limit"
        elif sig in (0, signal.SIGKILL) and (after[1] > before[1] or after[2] > before[2]):
            cause, why = OUT_OF_MEMORY, "was killed (out of memory)"
        elif sig == 0:
            cause, why = SIGNALED, "was killed by a signal (not its own time or memory limit), or crashed"
        elif sig in FROM_OUTSIDE:
            cause, why = OUTSIDE, f"was killed ({signal.Signals(sig).name}, not its own time or memory limit)"
        else:
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else f"signal {sig}"
            cause, why = CRASHED, f"crashed ({name})"
        exc = WorkerDied(why)
        exc.cause = cause
        exc.killed = sig == signal.SIGKILL or cause in (MEMORY, OUT_OF_MEMORY)
        return exc

    def _stderr_tail(self) -> str:
        try:
            os.set_blocking(self.proc.stderr.fileno(), False)
            data = self.proc.stderr.read(4096) or b""
        except (OSError, ValueError):
            data = b""
        lines = data.decode("utf-8", "replace").strip().splitlines()
        return (lines[-1] if lines else "set-up failed")[:300]

    def _death(self) -> BaseException:
        """The process closed its channel: what to raise (after its remains are killed)."""
        try:
            exc = self._died()
        finally:
            self._end()
        if isinstance(exc, WorkerDied) and exc.cause in RETRIED and not self._stopped:
            outside = _KilledFromOutside(str(exc))
            outside.cause, outside.killed = exc.cause, exc.killed
            return outside
        return exc

    # -- starting again after a death that is not the student's ---------------------------------

    def _retrying(self, attempt):
        """``attempt()``; where the process is killed from outside meanwhile, started again (once)
        and ``attempt()`` again. A death that is not retried is raised as a plain ``WorkerDied``."""
        while True:
            try:
                return attempt()
            except _KilledFromOutside as exc:
                self._restart(exc)

    def _once(self, attempt):
        try:
            return attempt()
        except _KilledFromOutside as exc:
            raise _plain(exc) from None

    def _restart(self, died: _KilledFromOutside) -> None:
        """Start the process again after ``died`` (not the student's doing): wait for it, send the
        notebook's files, replay the requests that changed its state. Raises ``died`` as a plain
        ``WorkerDied`` when it was started again already, or when the grader stopped it."""
        if self._restarts_left <= 0 or self._stopped or self._done:
            raise _plain(died, again=self._restarts_left <= 0) from None
        self._restarts_left -= 1
        with self._life:
            if self._stopped or self._done:
                raise _plain(died) from None
            self._teardown()
            # a process started from a passing thread would die with it: the lasting one starts it
            _on_lasting_thread(self._launch)
        note = f"the notebook's process {died}: it was started again and its cells run again; nothing was charged"
        if note not in self.notes:
            self.notes.append(note)
        try:
            self._ready(self._ready_timeout)
            for msg, timeout in self._history:
                self._replay(msg, timeout)
        except _KilledFromOutside as exc:
            raise _plain(exc, again=True) from None

    def _replay(self, msg: dict, timeout: float) -> None:
        budget = _Budget(self, timeout)
        rid = self._next_id()
        self.send(dict(msg, id=rid))
        while "status" not in self.receive(budget, rid):
            pass  # a cell's progress

    # -- messaging -------------------------------------------------------------------

    def _readline(self, budget: _Budget) -> bytes:
        """One line from the channel, never holding more than ``protocol.LINE_CAP`` bytes."""
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line = bytes(memoryview(self._buf)[:nl])  # one copy of a message up to 24 MB, not two
                del self._buf[:nl + 1]
                return line
            if len(self._buf) > protocol.LINE_CAP:
                self.kill()
                raise ChannelError(f"sent a message longer than {protocol.LINE_CAP >> 20} MB")
            wait = budget.wait()
            if wait <= 0:
                self.kill()
                raise WorkerTimeout(budget.why())
            if not self._sel.select(timeout=wait):
                continue
            chunk = self.proc.stdout.read(1 << 20)
            if not chunk:
                raise self._death()
            self._buf += chunk

    def receive(self, budget: _Budget, rid=None) -> dict:
        """The next message answering request ``rid``; messages for anything else (forged by the
        student's code, or left over from a request that was abandoned) are skipped, up to a cap."""
        for _ in range(MAX_SKIPPED):
            msg = self._receive_any(budget)
            if msg.get("id") == rid:
                return msg
        self.kill()
        raise ChannelError("flooded the grader's channel with messages")

    def _receive_any(self, budget: _Budget) -> dict:
        raw = self._readline(budget)
        try:
            msg = protocol.loads(raw)
        except protocol.ProtocolError as exc:
            self.kill()
            raise ChannelError(f"sent malformed data on the grader's channel ({exc})") from None
        if not isinstance(msg, dict):
            self.kill()
            raise ChannelError("sent something on the grader's channel that is not an answer")
        return msg

    def send(self, msg: dict) -> None:
        try:
            self.proc.stdin.write((protocol.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._death() from None

    def wait_ready(self, timeout: float) -> None:
        """Wait for the process to start (``timeout``: CPU seconds) and send it the notebook's files."""
        self._ready_timeout = timeout
        self._retrying(lambda: self._ready(timeout))

    def _ready(self, timeout: float) -> None:
        budget = _Budget(self, timeout)
        while self.receive(budget).get("event") != Event.READY:
            pass
        self.proc.stderr.close()  # set-up is over; the worker's fd 2 is /dev/null from here on
        files = {name: base64.b64encode(data).decode("ascii") for name, data in self._files.items()}
        answer = self._request(messages.request(Op.FILES, files=files), timeout)
        if answer.get("status") != Status.OK:
            raise WorkerDied(f"could not receive the notebook's files: {answer.get('message', '')}"[:300])

    def run_cells(self, cells: list[tuple[int, str]], timeout: float, on_cell=None) -> list:
        """Execute cells in order (``timeout``: CPU seconds for all); returns the (bounded,
        validated) list of cell errors. ``on_cell(i)`` tracks progress. A cell the notebook's
        first run had and ``cells`` has not (skipped after it hung or crashed) has its set-up
        (``setup_of``: imports, definitions) run in its place."""
        cells, replaced = _with_setup(self._files, list(cells))
        current: dict[str, int | None] = {"cell": None}

        def progress(index):
            current["cell"] = index
            if on_cell:
                on_cell(index)
        try:
            errors = self._retrying(lambda: self._run_cells(cells, timeout, progress))
        except (WorkerTimeout, WorkerDied, protocol.ProtocolError):
            entry, cell = _first_run(self._files), current["cell"]
            if entry is not None and cell is not None and cell in replaced:  # its set-up hung too: not run again
                entry.failed.add(cell)
            raise
        self._history.append((messages.request(Op.RUN_CELLS, cells=[[i, s] for i, s in cells]), timeout))
        return errors

    def _run_cells(self, cells: list[tuple[int, str]], timeout: float, on_cell) -> list:
        budget = _Budget(self, timeout)
        known = {i for i, _ in cells}
        rid = self._next_id()
        self.send(messages.request(Op.RUN_CELLS, id=rid, cells=[[i, s] for i, s in cells]))
        while True:
            msg = self.receive(budget, rid)
            if msg.get("event") == Event.CELL:
                if on_cell and msg.get("index") in known:
                    on_cell(msg.get("index"))
                continue
            errors = msg.get("errors")
            return [{"cell": e["cell"], "error": protocol.short(e.get("error"))}
                    for e in (errors if isinstance(errors, list) else [])[:protocol.MAX_NOTES]
                    if isinstance(e, dict) and e.get("cell") in known]

    def request(self, msg: dict, timeout: float, delegate=None) -> dict:
        """Send ``msg`` and wait for its answer, up to ``timeout`` CPU seconds of the student's
        process. ``delegate``: answers the student's calls of a function the grader stands in for
        (``{"event": "delegate"}``, when carrying an error forward), with the time it takes added
        to the wall-clock bound. A request whose process is killed from outside is sent again to
        the process started anew, except ``pending`` (its large answer died with it)."""
        if msg.get("op") == Op.PENDING:
            return self._once(lambda: self._request(msg, timeout, delegate))
        answer = self._retrying(lambda: self._request(msg, timeout, delegate))
        if msg.get("op") == Op.SUBSTITUTE and answer.get("status") == Status.OK:
            self._history.append((dict(msg), timeout))
        return answer

    def _request(self, msg: dict, timeout: float, delegate=None) -> dict:
        budget = _Budget(self, timeout)
        rid = self._next_id()
        self.send(dict(msg, id=rid))
        while True:
            answer = self.receive(budget, rid)
            if "status" in answer:
                return answer
            if delegate is not None and answer.get("event") == Event.DELEGATE:
                start = time.monotonic()
                reply = delegate(answer)
                budget.deadline += time.monotonic() - start
                self.send(dict(reply, op=Op.ANSWER.value, id=rid))

    def _next_id(self) -> str:
        self._requests += 1
        return f"{self._requests}-{self._nonce}"

    def kill(self) -> None:
        """Kill the student's process and everything it started; it is not started again."""
        self._stopped = True
        self._end()

    def cpu_seconds(self) -> float:
        """CPU seconds its processes have used: read now while it runs, as last read once it ended."""
        if self.proc.poll() is None:
            self._cpu_now()
        return getattr(self, "_cpu_seen", 0.0)

    def _end(self) -> None:
        if self.proc.poll() is None:
            self._cpu_now()  # its last reading, for cpu_seconds
        if self._lease is not None:  # every process of the uid, wherever it went (cgroup, kill(-1))
            self._lease.kill()
        if self.proc.poll() is not None:
            return
        if self.warm:  # the template kills the fork; its pid namespace dies with it
            self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            return
        if self.isolation == "namespace":
            # Kill the namespace's init (unshare's child): the kernel then kills every process
            # of the namespace and unshare exits only once they are all gone, so waiting for
            # unshare means nothing of the submission survives.
            pid = self.proc.pid
            try:
                kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            except OSError:
                kids = []
            for kid in kids:
                try:
                    os.kill(int(kid), signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if kids:
                try:
                    self.proc.wait(timeout=10)
                    return
                except subprocess.TimeoutExpired:
                    pass
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
            self.proc.wait()

    def _teardown(self) -> None:
        """End the process and give back all it held: its pipes, uid, lease and folder."""
        self._end()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        self._sel.close()
        if self._lease is not None:  # its processes, files and folders; then the uid is free
            self._lease.release()
            self._lease = None
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None
        if self._uid is not None:  # its pid namespace is gone with it: the uid is free
            rootfs.release_uid(self._uid)
            self._uid = None

    def close(self) -> None:
        self._stopped = True
        with self._life:
            if self._done:
                return
            self._done = True
            self._teardown()


def _plain(exc: WorkerDied, again: bool = False) -> WorkerDied:
    """``exc`` as a plain ``WorkerDied`` (``again``: the process had been started again already)."""
    died = WorkerDied(f"{exc}, again after it was started anew" if again else str(exc))
    died.cause, died.killed = exc.cause, exc.killed
    if again and exc.cause == OUTSIDE:  # killed twice the same way: no longer taken for bad luck
        died.killed = False
    return died
