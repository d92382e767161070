"""Start and talk to the student's process (``autograder.run.worker``) under limits: a ``Worker``
starts it cold, isolated as chosen (``autograder.run.isolation``; the allow-list root of
``autograder.run.rootfs``), or forks it from a warm template (``autograder.run.templates``), and
speaks with it on its channel.

Either way the submission's files reach the process through its stdin (no stage folder on
the host), limits on processes, file size, open files, CPU time and memory are set before any
student code runs, and the verdict is computed in the grader's process, never in the
student's. What the student's process says on its channel is read under a byte cap and
decoded strictly (``autograder.run.protocol``).
"""

from __future__ import annotations

import base64
import functools
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from autograder.run import accounts, protocol, rootfs
from autograder.run.isolation import SandboxUnavailable, _child_setup, refuse_message, resolve_isolation
from autograder.run.paths import REPO
from autograder.run.templates import TemplateFailed, template_for

MAX_SKIPPED = 10_000       # messages for other requests skipped while waiting for one answer
LIMITS = {"nproc": 64, "fsize_mb": 64, "nofile": 256}  # per student process (tasks of its uid)


class WorkerDied(RuntimeError):
    """The student's process exited (os._exit, crash, memory limit); ``killed``: by SIGKILL (its
    memory limit, or out of memory), from its exit status."""
    killed: bool = False


class WorkerTimeout(RuntimeError):
    """The student's process did not answer in time (and was killed)."""


class ChannelError(protocol.ProtocolError):
    """The student's process wrote something on the answer channel that is not a valid answer."""


def _account_child_setup(lease: accounts.Lease) -> None:
    _child_setup()
    lease.enter()  # its cgroup and Landlock, before anything of the student's runs


class Worker:
    """One student process. ``request`` sends a message and waits for the answer."""

    def __init__(self, files: dict[str, bytes], *, memory_mb: int | None = 4096,
                 isolation: str | None = None, cpu_s: int = 3600):
        self.isolation = resolve_isolation(isolation, lazy=True)
        limits = dict(LIMITS, memory_mb=memory_mb or 0, cpu_s=int(cpu_s))
        self._root = None if self.isolation != "process" else Path(tempfile.mkdtemp(prefix="pdl-work-"))
        self._uid: int | None = None  # namespace isolation, cold: the sandbox uid leased for this process
        self._lease: accounts.Lease | None = None
        self.notes: list[str] = []  # grader notes: what the isolation could not confine here
        self.warm = False  # forked by a warm template
        # a cold start's subprocess.Popen, or a warm template's fork (templates._Forked: what Worker uses of one)
        self.proc: Any
        template = template_for(files) if self.isolation == "namespace" else None
        if template is not None:
            try:
                self.proc = template.spawn(limits)
                self.warm = True
            except (TemplateFailed, OSError):
                pass  # started cold below, as isolated
        if not self.warm:
            self.proc = self._start_cold(files, limits)
        if self._lease is not None:
            self._lease.started()
        self._buf = bytearray()
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._files = files
        self._requests, self._nonce = 0, os.urandom(6).hex()
        self._done = False  # closed

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
            self.notes = list(lease.notes)
        else:
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
            raise SandboxUnavailable(refuse_message(f"cannot start the student's process: {exc}")) from None

    # -- messaging -------------------------------------------------------------------

    def _readline(self, deadline: float) -> bytes:
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
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise WorkerTimeout("time limit reached")
            if not self._sel.select(timeout=min(remaining, 1.0)):
                continue
            chunk = self.proc.stdout.read(1 << 20)
            if not chunk:
                self.kill()
                raise self._died()
            self._buf += chunk

    def _died(self) -> WorkerDied:
        exc = WorkerDied(self._death_reason())
        exc.killed = self.proc.returncode in (-signal.SIGKILL, 137)
        return exc

    def _death_reason(self) -> str:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        if code in (-signal.SIGKILL, 137):
            return "was killed (memory limit or out of memory)"
        if self.proc.stderr.closed:  # the student's code has run: its exit code is its own
            return f"exited with code {code}"
        tail = self._stderr_tail()  # before any student code: the set-up's or the interpreter's words
        if code == protocol.SETUP_FAILED:  # the set-up script's own failure: the grader's problem, not the student's
            raise SandboxUnavailable(refuse_message(tail))
        return f"exited with code {code} ({tail})"

    def _stderr_tail(self) -> str:
        try:
            os.set_blocking(self.proc.stderr.fileno(), False)
            data = self.proc.stderr.read(4096) or b""
        except (OSError, ValueError):
            data = b""
        lines = data.decode("utf-8", "replace").strip().splitlines()
        return (lines[-1] if lines else "set-up failed")[:300]

    def receive(self, deadline: float, rid=None) -> dict:
        """The next message answering request ``rid``; messages for anything else (forged by the
        student's code, or left over from a request that was abandoned) are skipped, up to a cap."""
        for _ in range(MAX_SKIPPED):
            msg = self._receive_any(deadline)
            if msg.get("id") == rid:
                return msg
        self.kill()
        raise ChannelError("flooded the grader's channel with messages")

    def _receive_any(self, deadline: float) -> dict:
        raw = self._readline(deadline)
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
            self.kill()
            raise self._died() from None

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.receive(deadline).get("event") != "ready":
            pass
        self.proc.stderr.close()  # set-up is over; the worker's fd 2 is /dev/null from here on
        files = {name: base64.b64encode(data).decode("ascii") for name, data in self._files.items()}
        answer = self.request({"op": "files", "files": files}, timeout)
        if answer.get("status") != "ok":
            raise WorkerDied(f"could not receive the notebook's files: {answer.get('message', '')}"[:300])

    def run_cells(self, cells: list[tuple[int, str]], timeout: float, on_cell=None) -> list:
        """Execute cells in order; returns the (bounded, validated) list of cell errors.
        ``on_cell(i)`` tracks progress."""
        deadline = time.monotonic() + timeout
        known = {i for i, _ in cells}
        rid = self._next_id()
        self.send({"op": "run_cells", "id": rid, "cells": [[i, s] for i, s in cells]})
        while True:
            msg = self.receive(deadline, rid)
            if msg.get("event") == "cell":
                if on_cell and msg.get("index") in known:
                    on_cell(msg.get("index"))
                continue
            errors = msg.get("errors")
            return [{"cell": e["cell"], "error": protocol.short(e.get("error"))}
                    for e in (errors if isinstance(errors, list) else [])[:protocol.MAX_NOTES]
                    if isinstance(e, dict) and e.get("cell") in known]

    def request(self, msg: dict, timeout: float, delegate=None) -> dict:
        """Send ``msg`` and wait up to ``timeout`` seconds for its answer. ``delegate``: answers the
        student's calls of a function the grader stands in for (``{"event": "delegate"}``, when
        carrying an error forward), with the time it takes added to the limit."""
        deadline = time.monotonic() + timeout
        rid = self._next_id()
        self.send(dict(msg, id=rid))
        while True:
            answer = self.receive(deadline, rid)
            if "status" in answer:
                return answer
            if delegate is not None and answer.get("event") == "delegate":
                start = time.monotonic()
                reply = delegate(answer)
                deadline += time.monotonic() - start
                self.send(dict(reply, op="answer", id=rid))

    def _next_id(self) -> str:
        self._requests += 1
        return f"{self._requests}-{self._nonce}"

    def kill(self) -> None:
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

    def close(self) -> None:
        if self._done:
            return
        self._done = True
        self.kill()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        self._sel.close()
        if self._lease is not None:  # its processes, files and folders; then the uid is free
            self._lease.release()
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
        if self._uid is not None:  # its pid namespace is gone with it: the uid is free
            rootfs.release_uid(self._uid)
            self._uid = None
