"""The grader's own work on one submission, in a child process under a memory and a time cap.

The hidden tests and the diagnosis run reference code on inputs that a hostile answer may have
shaped; reference code can allocate gigabytes, or sit in native code (``eigh``) that no SIGALRM
interrupts. ``run_bounded`` forks: the child (which shares the parent's loaded hidden tests and
reference, copy-on-write) does the work under an address-space cap and streams JSON lines back;
the parent kills it at the wall-clock cap. Whatever happens to the child, the parent keeps what
was streamed so far and carries on.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import select
import signal
import sys
import time

from autograder.run import messages, serial

MAX_LINE = 64 * 2**20  # one streamed message (a whole report with its notes and diagnoses)


def _address_space_mb() -> int:
    """This process's current virtual size, in MB (what the cap is added to)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def _child(work, write_fd: int, memory_mb: int | None, parent: int) -> None:
    code = 0
    out = os.fdopen(write_fd, "w", buffering=1)

    def send(obj) -> None:
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")

    try:
        # die with the grader, even one killed with SIGKILL (then no student process outlives it)
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(1)
        # Buffers of big messages from mmap, given back when freed (glibc's dynamic threshold
        # would otherwise keep each one on the heap: the peak would grow with every message).
        ctypes.CDLL(None).mallopt(-3, 2**20)  # M_MMAP_THRESHOLD
        if memory_mb:
            cap = (_address_space_mb() + memory_mb) * 2**20
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            if hard != resource.RLIM_INFINITY:
                cap = min(cap, hard)
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        work(send)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        send(messages.usage(round(usage.ru_maxrss / 1024, 1), round(usage.ru_utime + usage.ru_stime, 3)))
    except KeyboardInterrupt:
        code = 130
    except BaseException as exc:  # noqa: BLE001 - the parent decides what an error means
        try:
            send(messages.failure(exc))
        except BaseException:  # noqa: BLE001 - out of memory even for the message
            pass
        code = 1
    finally:
        try:
            out.flush()
        finally:
            os._exit(code)


def run_bounded(work, *, memory_mb: int | None, seconds: float) -> tuple[list, str]:
    """Run ``work(send)`` in a forked child; ``send(obj)`` streams a JSON-able object back.

    Returns (the objects sent, in order; how the child ended: "ok", "interrupted", "error",
    "timeout" or "died (<signal>)"). Ctrl-C in the parent kills the child and is re-raised."""
    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    with serial.LOCK:  # no other thread of this process is mid-parse in the child
        pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _child(work, write_fd, memory_mb, parent)
    os.close(write_fd)
    received, buf, timed_out = [], bytearray(), False
    deadline = time.monotonic() + seconds
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, _, rest = bytes(buf).partition(b"\n")
                buf = bytearray(rest)
                try:
                    received.append(json.loads(line))
                except ValueError:
                    pass
            if len(buf) > MAX_LINE:
                timed_out = True  # a runaway message: treat as a hang
                break
    except BaseException:
        _kill(pid)
        raise
    finally:
        os.close(read_fd)
    if timed_out:
        _kill(pid)
        return received, "timeout"
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return received, f"died ({signal.Signals(os.WTERMSIG(status)).name})"
    code = os.WEXITSTATUS(status)
    return received, {0: "ok", 130: "interrupted"}.get(code, "error")


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
