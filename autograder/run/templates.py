"""Warm templates, the grader's side: ``Template`` starts and talks to one (``autograder.run.template``,
the process in an allow-list root that imported the heavy modules once and forks each submission),
and this process keeps a registry of them: the free ones per assignment and the one each thread holds
(``start_templates``, ``template_lease``, ``held_template``, ``template_for``, ``stop_templates``).
Only for ``namespace`` isolation; none with ``PDL_WARM=0``.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from autograder.run import messages, packages, rootfs, settings
from autograder.run.isolation import SandboxUnavailable, _child_setup, refuse_message, resolve_isolation
from autograder.run.messages import Op
from autograder.run.notebook import load_release

# Fork-safe modules a template may import ahead of the submissions (torch starts threads on import:
# a fork of a threaded process can hang on a lock another thread held, so it is loaded per fork).
PRELOADABLE = ("numpy", "scipy", "matplotlib", "IPython", "tqdm")


def preload_names(assignment: str) -> list[str]:
    """The dotted modules the release of ``assignment`` imports that a template may load ahead
    (``PRELOADABLE`` packages; ``from scipy import special`` gives ``scipy.special``), plus numpy
    and pyplot."""
    names = {"numpy", "matplotlib.pyplot"}
    for cell in load_release(assignment).get("cells", []):
        if not (isinstance(cell, dict) and cell.get("cell_type") == "code"):
            continue
        source = cell.get("source", "")
        try:
            found = packages.imports("".join(source) if isinstance(source, list) else str(source))
        except SyntaxError:
            continue
        for module, imported in found:
            names |= {module} | {f"{module}.{name}" for name in imported if module == "scipy"}
    return sorted(n for n in names if n.split(".")[0] in PRELOADABLE)


def _under_scratch(modules) -> list[str]:
    """The top folders under the scratch places (home, /tmp, /dev/shm) that the allow-list root
    binds things into (an interpreter or site directory kept under /tmp): a fork's fresh scratch
    would cover them, so it carries them over, read-only (``template._scratch``)."""
    shown = ([p for prefix in rootfs._python_paths() for p in rootfs._python_entries(prefix)]
             + list(packages.visible_entries(modules)))
    keep = set()
    for path in map(Path, shown):
        for place in map(Path, (rootfs.HOME, "/tmp", "/dev/shm")):
            if place in path.parents:
                keep.add(str(place / path.relative_to(place).parts[0]))
    return sorted(keep)


class _Forked:
    """A submission forked by a ``Template``: what ``Worker`` uses of a ``subprocess.Popen``."""

    def __init__(self, template: Template, ident: str, stdin, stdout, stderr):
        self.template, self.id = template, ident
        self.pid: int | None = None  # the fork's pid is the template's to know
        self.host_pid: int | None = None  # its pid as this process sees it, where found: its CPU time is read
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.returncode: int | None = None

    def poll(self):
        if self.returncode is None:
            self.returncode = self.template.exit_code(self.id, timeout=0)
        return self.returncode

    def wait(self, timeout=None):
        if self.returncode is None:
            self.returncode = self.template.exit_code(self.id, timeout=timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired("template fork", timeout)
        return self.returncode

    def kill(self):
        if self.returncode is None:
            self.template.kill(self.id)


class Template:
    """A warm template (``autograder.run.template``) for the submissions of one assignment, in
    an allow-list root built as for a cold start: it imports numpy, scipy, matplotlib and IPython
    once and forks per submission, each fork isolated as a cold start is before any student code
    runs. Only for ``namespace`` isolation; made once per grading process (``warm``), inherited by
    the bounded children that grade. Making one raises ``SandboxUnavailable`` if it cannot be set up."""

    def __init__(self, assignment: str):
        self.assignment = assignment
        self.modules = rootfs._release_imports([f"{assignment}.ipynb"])
        self.preload = preload_names(assignment)
        self.owner = os.getpid()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock, self._count = ours, 0
        self.exits: dict[str, int] = {}  # fork id -> exit code, as reported
        self.keep = _under_scratch(self.modules)
        self.uid = rootfs.lease_uid()  # every fork runs as this uid: one submission at a time
        config = {"uid": self.uid, "real_root": rootfs._is_root(), "scratch_mb": rootfs.SCRATCH_MB,
                  "preload": self.preload, "keep": self.keep}
        inner = [sys.executable, "-I", "-c", ("import sys; sys.path.insert(0, '/pdl'); "
                 f"import autograder.run.template as t; t.main({json.dumps(config)!r}, {theirs.fileno()})")]
        cmd = rootfs._unshare_cmd() + ["sh", "-c", rootfs._setup_script(self.uid, inner, self.modules,
                                                                          template=True)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     cwd="/", env=rootfs._worker_env(rootfs.HOME, "/tmp"), pass_fds=(theirs.fileno(),),
                                     preexec_fn=_child_setup)  # noqa: PLW1509 (its own session, killed with the grader)
        theirs.close()
        ready = self._message(60)
        assert self.proc.stderr is not None  # stderr=PIPE
        if not ready or not ready.get("ready"):
            self.close()
            err = self.proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
            raise SandboxUnavailable(refuse_message(err[-1][:300] if err else "the warm template did not start"))
        self.proc.stderr.close()
        self.preloaded = ready.get("preloaded", [])

    def _message(self, timeout: float | None) -> dict | None:
        """The template's next message (None if none came in ``timeout`` seconds or it is gone)."""
        if not select_readable(self.sock, timeout):
            return None
        try:
            raw = self.sock.recv(1 << 16)
        except OSError:
            return None
        if not raw:
            return None
        msg = json.loads(raw)
        if "exit" in msg:  # a fork ended: kept for whoever waits for it
            self.exits[msg["exit"]] = msg["code"]
        return msg

    def spawn(self, limits: dict) -> _Forked:
        while self._message(0) is not None:  # what earlier graders left unread: the queue stays short
            pass
        self._count += 1
        ident = f"{os.getpid()}-{self._count}-{os.urandom(4).hex()}"
        pipes = [os.pipe() for _ in range(3)]  # (read, write) each: stdin, stdout, stderr
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        try:
            spawn = messages.request(Op.SPAWN, id=ident, limits=limits, env=rootfs._worker_env(rootfs.HOME, "/tmp"))
            socket.send_fds(self.sock, [json.dumps(spawn).encode()], theirs)
        finally:
            for fd in theirs:
                os.close(fd)
        deadline = time.monotonic() + 30
        while (left := deadline - time.monotonic()) > 0:
            msg = self._message(left)
            if msg is None:
                break
            if msg.get("spawned") == ident:
                forked = _Forked(self, ident, os.fdopen(pipes[0][1], "wb"), os.fdopen(pipes[1][0], "rb"),
                                 os.fdopen(pipes[2][0], "rb"))
                forked.host_pid = self._host_pid(msg.get("pid"))
                return forked
            elif msg.get("refused") == ident:
                break
        for fd in (pipes[0][1], pipes[1][0], pipes[2][0]):
            os.close(fd)
        raise TemplateFailed(f"the warm template did not fork ({msg.get('why') if msg else 'no answer'})")

    def _host_pid(self, pid) -> int | None:
        """The pid, as this process sees it, of the template's fork numbered ``pid`` in the template's
        pid namespace (a child of the template, which is ``unshare``'s child); None if not found."""
        if not isinstance(pid, int):
            return None
        try:
            for template in Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split():
                for kid in Path(f"/proc/{template}/task/{template}/children").read_text().split():
                    status = Path(f"/proc/{kid}/status").read_text()
                    ids = next((ln.split()[1:] for ln in status.splitlines() if ln.startswith("NSpid:")), [])
                    if len(ids) == 2 and ids[1] == str(pid):
                        return int(kid)
        except (OSError, ValueError):
            pass
        return None

    def exit_code(self, ident: str, timeout: float | None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while ident not in self.exits:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            msg = self._message(left)
            if msg is None:
                if not self.running():  # the template died: its forks with it
                    self.exits[ident] = -signal.SIGKILL
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    return None
        return self.exits.pop(ident)

    def running(self) -> bool:
        """Whether the template is there (also from a fork of its owner, where ``poll`` cannot
        wait for it and would take it for gone)."""
        if os.getpid() == self.owner:
            return self.proc.poll() is None
        try:
            os.kill(self.proc.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True

    def kill(self, ident: str) -> None:
        try:
            self.sock.send(json.dumps(messages.request(Op.KILL, id=ident)).encode())
        except OSError:
            pass

    def close(self) -> None:
        """Stop the template and every fork (it is its pid namespace's first process)."""
        self.sock.close()
        if os.getpid() != self.owner:  # a fork of the owner only lets go of its end
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        rootfs.release_uid(self.uid)


class TemplateFailed(RuntimeError):
    """The template could not fork this submission: it is started cold instead."""


def select_readable(sock, timeout: float | None) -> bool:
    try:
        readable, _, _ = select.select([sock], [], [], timeout)
    except (OSError, ValueError):
        return False
    return bool(readable)


# Templates of this process, per assignment: free ones, and the one each thread holds while it
# grades a submission (in a fork of itself, which keeps the thread's id). A thread grades one
# submission at a time: a pool worker's only thread, or each of a dask worker's threads.
_FREE: dict[str, list[Template]] = {}
_HELD: dict[int, Template] = {}
_LOCK = threading.Lock()


def warm_enabled() -> bool:
    return settings.current().warm


def start_templates(assignment: str, count: int = 1) -> None:
    """Make sure this process has ``count`` templates for ``assignment`` (none with ``PDL_WARM=0``).
    Raises ``SandboxUnavailable`` if one cannot be set up."""
    if not warm_enabled():
        return
    with _LOCK:
        free = _FREE.setdefault(assignment, [])
        free[:] = [t for t in free if t.running()]
        missing = count - len(free) - sum(t.assignment == assignment for t in _HELD.values())
    for _ in range(max(0, missing)):
        template = Template(assignment)
        with _LOCK:
            _FREE[assignment].append(template)


def stop_templates(assignment: str) -> None:
    """Stop this process's free templates of ``assignment`` (after its last submission)."""
    with _LOCK:
        free = _FREE.pop(assignment, [])
    for template in free:
        template.close()


@contextlib.contextmanager
def template_lease(assignment: str, isolation: str | None = None):
    """Hold a template of ``assignment`` for this thread while one submission is graded (a free
    one, or a new one if every one is busy); nothing where ``start_templates`` never ran, or for
    another isolation than the templates' (namespace)."""
    if not warm_enabled() or assignment not in _FREE or resolve_isolation(isolation, lazy=True) != "namespace":
        yield None
        return
    with _LOCK:
        free = _FREE[assignment]
        template = next((t for t in free if t.running()), None)
        free[:] = [t for t in free if t is not template and t.running()]
    if template is None:
        template = Template(assignment)
    ident = threading.get_ident()
    _HELD[ident] = template
    try:
        yield template
    finally:
        del _HELD[ident]
        if template.running():
            with _LOCK:
                _FREE[assignment].append(template)


@contextlib.contextmanager
def held_template(assignment: str, isolation: str | None = None):
    """A template of ``assignment`` held by this thread for a while (the fresh copies that carry an
    error forward are forked from it), unless one is held already or templates do not apply; one
    that cannot be made is done without (the copies then start cold)."""
    ident = threading.get_ident()
    if not warm_enabled() or ident in _HELD or resolve_isolation(isolation, lazy=True) != "namespace":
        yield
        return
    try:
        template = Template(assignment)
    except (SandboxUnavailable, OSError):
        yield
        return
    _HELD[ident] = template
    try:
        yield
    finally:
        del _HELD[ident]
        template.close()


def template_for(files) -> Template | None:
    """The running template this thread holds, if it forks the notebook among ``files``."""
    template = _HELD.get(threading.get_ident())
    if template is not None and f"{template.assignment}.ipynb" in files and template.running():
        return template
    return None
