"""Start and talk to the student's process (``autograder.worker``) under limits.

Isolation, strongest available first:

* ``namespace``: Linux user + mount + pid + network namespaces (``unshare``, no root
  needed where unprivileged user namespaces are allowed). Inside, the course repository's
  private folders (``solutions/``, ``grading_tests/``, ``source/``, ``.git`` ...) are
  covered by empty read-only tmpfs mounts, the whole file system is read-only, the working
  directory is a fresh size-capped tmpfs holding a copy of the submission, there is no
  network, the grader's processes are invisible, and the student runs as an unprivileged
  user that cannot undo the mounts.
* ``process``: a plain child process (used only where namespaces are refused; the grade
  record says so and ``pdl`` warns), still with its own working directory, memory and
  time limits.

Either way the verdict is computed in the grader's process, never in the student's.
"""

from __future__ import annotations

import functools
import os
import resource
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder import protocol

REPO = Path(__file__).resolve().parent.parent
# What the student's process may see of the repository: the interpreter and the worker.
VISIBLE = {".venv", "autograder", "assignments", "pyproject.toml", "course_config.py", "README.md"}
WORKDIR_MB = 256


class WorkerDied(RuntimeError):
    """The student's process exited (os._exit, crash, memory limit)."""


class WorkerTimeout(RuntimeError):
    """The student's process did not answer in time (and was killed)."""


@functools.lru_cache(maxsize=1)
def namespaces_available() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    cmd = ["unshare", "--user", "--map-root-user", "--mount", "--net", "--pid", "--fork",
           "--mount-proc", "sh", "-c", "mount -t tmpfs tmpfs /mnt && unshare --user true"]
    try:
        return subprocess.run(cmd, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def hidden_paths(extra=()) -> list[Path]:
    """Everything in the repository the student's process must not see, plus ``extra``."""
    paths = [p for p in REPO.iterdir() if p.name not in VISIBLE]
    for p in (Path(e).resolve() for e in extra):
        if p.exists() and not any(q == p or q in p.parents for q in paths):
            paths.append(p)
    return paths


def _limits(memory_mb: int | None):
    def apply():
        os.setsid()  # own process group, so a timeout kills every child too
        if memory_mb:
            limit = memory_mb * 2**20
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


class Worker:
    """One student process. ``request`` sends a message and waits for the answer."""

    def __init__(self, files: dict[str, bytes], *, memory_mb: int | None = 4096,
                 isolation: str | None = None, hide=()):
        self.isolation = isolation or ("namespace" if namespaces_available() else "process")
        self.stage = Path(tempfile.mkdtemp(prefix="pdl-stage-"))
        self.workdir = Path(tempfile.mkdtemp(prefix="pdl-work-"))
        for name, data in files.items():
            (self.stage / name).write_bytes(data)
        python = (f"import sys; sys.path.insert(0, {str(REPO)!r}); "
                  "import autograder.worker as w; w.main()")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.workdir),
               "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(self.workdir / ".mpl"),
               "TMPDIR": str(self.workdir), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0", "LANG": "C.UTF-8"}
        for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
            if key in os.environ:
                env[key] = os.environ[key]
        inner = [sys.executable, "-I", "-c", python]
        if self.isolation == "namespace":
            script = self._namespace_script(hide, inner)
            cmd = ["unshare", "--user", "--map-root-user", "--mount", "--net", "--pid",
                   "--fork", "--mount-proc", "sh", "-c", script]
        else:
            for name in files:
                shutil.copy(self.stage / name, self.workdir / name)
            cmd = inner
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=str(self.workdir), env=env, preexec_fn=_limits(memory_mb))
        self._buf = b""
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        os.set_blocking(self.proc.stdout.fileno(), False)

    def _namespace_script(self, hide, inner) -> str:
        q = shlex.quote
        steps = ["set -e", "mount --make-rprivate /",
                 f"mount -t tmpfs -o size={WORKDIR_MB}m,mode=0777 tmpfs {q(str(self.workdir))}",
                 f"cp -r {q(str(self.stage))}/. {q(str(self.workdir))}/",
                 f"chmod -R a+rwX {q(str(self.workdir))}"]
        keep = [self.workdir, REPO / ".venv", Path(sys.prefix), Path(sys.executable).parent]
        for path in hidden_paths(hide) + [self.stage]:
            if any(k == path or path in k.parents for k in keep):
                continue  # never cover the interpreter or the working directory
            if path.is_dir():
                steps.append(f"mount -t tmpfs -o size=4k,mode=0755,ro tmpfs {q(str(path))}")
            elif path.exists():
                steps.append(f"mount --bind /dev/null {q(str(path))}")
        steps.append("mount -o remount,bind,ro / || true")
        steps.append(f"cd {q(str(self.workdir))}")
        steps.append("exec unshare --user " + " ".join(q(a) for a in inner))
        return "\n".join(steps)

    # -- messaging -------------------------------------------------------------------
    def _readline(self, deadline: float) -> bytes:
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise WorkerTimeout("time limit reached")
            if not self._sel.select(timeout=min(remaining, 1.0)):
                continue
            chunk = self.proc.stdout.read(1 << 20)
            if not chunk:
                self.kill()
                raise WorkerDied(self._death_reason())
            self._buf += chunk
            if len(self._buf) > 2 * protocol.MAX_BYTES:
                self.kill()
                raise WorkerDied("sent more data than allowed")
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def _death_reason(self) -> str:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        if code in (-signal.SIGKILL, 137):
            return "was killed (memory limit or out of memory)"
        return f"exited with code {code}"

    def receive(self, deadline: float) -> dict:
        raw = self._readline(deadline)
        msg = protocol.loads(raw.decode("utf-8", "replace"))
        if not isinstance(msg, dict):
            raise protocol.ProtocolError("answer is not an object")
        return msg

    def send(self, msg: dict) -> None:
        try:
            self.proc.stdin.write((protocol.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.kill()
            raise WorkerDied(self._death_reason()) from None

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.receive(deadline).get("event") != "ready":
            pass

    def run_cells(self, cells: list[tuple[int, str]], timeout: float, on_cell=None) -> list:
        """Execute cells in order; returns the list of cell errors. ``on_cell(i)`` tracks progress."""
        deadline = time.monotonic() + timeout
        self.send({"op": "run_cells", "cells": [[i, s] for i, s in cells]})
        while True:
            msg = self.receive(deadline)
            if msg.get("event") == "cell":
                if on_cell:
                    on_cell(msg.get("index"))
                continue
            errors = msg.get("errors")
            return errors if isinstance(errors, list) else []

    def request(self, msg: dict, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        self.send(msg)
        while True:
            answer = self.receive(deadline)
            if "status" in answer:
                return answer

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        self.kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self._sel.close()
        shutil.rmtree(self.stage, ignore_errors=True)
        shutil.rmtree(self.workdir, ignore_errors=True)
