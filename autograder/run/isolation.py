"""Choosing the student's isolation, and refusing where it cannot be set up.

Isolation (``course_config.ISOLATION``, ``pdl grade --isolation``):

* ``namespace`` (the default): an **allow-list root**. The student's process runs in its own
  mount, pid, network, IPC and UTS namespaces, in a root file system built for it alone on a
  tmpfs and entered with ``pivot_root``; the host's root is detached. It holds, read-only:
  ``/usr`` (and the ``/bin``, ``/lib``... links or binds of a merged or split ``/usr``), the
  Python installation and the virtual environment at their own paths, the worker's two
  modules under ``/pdl``, a few generated files in ``/etc`` (passwd, group, hosts, the
  dynamic linker's cache), ``/dev/{null,zero,full,random,urandom}`` and a private ``/proc``.
  The only writable places are one size-capped tmpfs seen as ``/home/student`` (the working
  directory, holding the notebook and its data files), ``/tmp`` and ``/dev/shm``. No other
  path of the host exists there: not the course, not other copies of it, not other
  submissions, not home folders, not ``/sys``. There is no network.
  The student runs as an identity that owns nothing: when the grader is root, a fresh uid
  (``rootfs.lease_uid``: one per live student process, numbered from the grader's pid) with no
  capabilities, no supplementary groups and
  ``no_new_privs``; otherwise the grader's uid inside a user namespace, where nothing of the
  grader's but the read-only interpreter is mounted. Every set-up step must succeed, or
  grading refuses (``SandboxUnavailable``).
* ``account`` (only when chosen: ``--isolation account``, or the Gradescope zip where the
  container refuses namespaces): the grader runs as root and the student's process runs as a uid
  of its own, leased for this submission alone, with no capabilities, no groups and
  ``no_new_privs``, under the same limits, in a cgroup of its own where cgroup v2 is writable,
  confined by Landlock where the kernel has it (``autograder.run.accounts``), with a private home
  and temp folder removed at teardown. Before any student code runs, a process confined the same
  way must fail to read the reference and the hidden tests (grading refuses otherwise).
* ``process``: a plain child process with its own temporary working directory and the same
  resource limits, but the student's code can read and write whatever the grader's user can.
  Only when asked for explicitly; the report and ``pdl`` say so loudly.

The allow-list root is built by ``autograder.run.rootfs``; the student's process is started and
spoken to by ``autograder.run.channel``.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shlex
import shutil
import signal
import subprocess
import sys

from autograder.run import accounts, rootfs, settings
from autograder.run.paths import REPO

ISOLATIONS = ("namespace", "account", "process")


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be built here; grading refuses rather than run student code unprotected."""


PROCESS_WARNING = ("isolation 'process': the student's code ran as a plain process with your "
                   "user's access to files: it could read the reference solutions, the hidden "
                   "tests, other students' submissions and your home folder, and write to them")


@functools.lru_cache(maxsize=1)
def probe() -> str:
    """'' if the allow-list sandbox can be built here, else why not (cached per process)."""
    if sys.platform != "linux":
        return f"Linux namespaces are needed and this is {sys.platform}"
    missing = [t for t in ("unshare", "pivot_root", "mount", "setpriv" if rootfs._is_root() else "unshare")
               if shutil.which(t) is None]
    if missing:
        return f"missing commands: {', '.join(missing)} (util-linux)"
    try:
        # the whole set-up, ending in a shell instead of the worker's interpreter (cheaper)
        uid = rootfs.lease_uid()
        try:
            script = rootfs._setup_script(uid, ["sh", "-c", f"test -x {shlex.quote(sys.executable)}"])
            proc = subprocess.run(rootfs._unshare_cmd() + ["sh", "-c", script], capture_output=True, timeout=60,
                                  check=False)
        finally:
            rootfs.release_uid(uid)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot start unshare: {exc}"
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return (err[-1] if err else f"exit code {proc.returncode}")[:300]
    return ""


def namespaces_available() -> bool:
    return probe() == ""


def refuse_message(reason: str) -> str:
    return (f"cannot build the grading sandbox here ({reason}). Grading refuses to run students' code "
            "unprotected. Fix the host (Linux with util-linux; run as root, or allow unprivileged user "
            "namespaces; a root grader in a container that refuses namespaces may choose --isolation "
            "account), or pass --isolation process to grade anyway as a plain process, giving up "
            "the protection: " + PROCESS_WARNING.split(": ", 1)[1] + ".")


@functools.lru_cache(maxsize=1)
def probe_account() -> str:
    """'' if ``account`` isolation holds here, else why not: a uid can be leased and confined
    (``accounts.lease``), and a process started as the student's is (uid, cgroup, Landlock) can read
    neither the reference, the hidden tests nor the grader's files (cached per process)."""
    try:
        lease = accounts.lease(rootfs._python_paths())
    except accounts.AccountError as exc:
        return str(exc)
    private = [p for p in (REPO / "solutions", REPO / "grading_tests", rootfs.ENGINE / "run" / "grading.py")
               if p.exists()]
    code = ("import sys\nfor p in sys.argv[1:]:\n    try:\n        open(p).close() if not p.endswith('/') "
            "else __import__('os').listdir(p)\n    except OSError:\n        continue\n    print(p)")
    cmd = rootfs._drop_privileges(lease.uid, lease.uid) + [sys.executable, "-I", "-c", code] + [
        str(p) + ("/" if p.is_dir() else "") for p in private]
    try:
        out = subprocess.run(cmd, capture_output=True, timeout=60, cwd=str(lease.home), check=False,
                             env={"PATH": "/usr/bin:/bin"}, preexec_fn=lease.enter)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot start a process as uid {lease.uid}: {exc}"
    finally:
        lease.release()
    if out.returncode != 0:
        return f"a process as uid {lease.uid} failed: {out.stderr.decode('utf-8', 'replace').strip()[-200:]}"
    readable = out.stdout.decode().split()
    if readable:
        return (f"the student's uid can read {readable[0]}: make the course files readable by root only "
                f"(chmod -R go-rwx {REPO.parent}), or grade on a kernel with Landlock")
    return ""


def resolve_isolation(isolation: str | None, lazy: bool = False) -> str:
    """The isolation to use: the one chosen (``isolation``, else ``PDL_ISOLATION``), by default
    ``namespace``. Never another one than chosen: where it cannot be set up, grading refuses
    (``SandboxUnavailable``). ``lazy``: skip the namespace probe (0.1 s): the worker's own set-up
    then refuses in the same words if the sandbox cannot be built."""
    isolation = isolation or settings.current().isolation or "namespace"
    if isolation not in ISOLATIONS:
        raise ValueError(f"unknown isolation {isolation!r}; choose one of {', '.join(ISOLATIONS)}")
    if isolation == "process":
        return isolation
    reason = (probe() if not lazy else "") if isolation == "namespace" else probe_account()
    if reason:
        raise SandboxUnavailable(refuse_message(reason))
    return isolation


def _child_setup():
    """In the student's process (or the warm template) before it execs, whatever the isolation."""
    os.setsid()  # own process group and session: a terminal's Ctrl-C never reaches it, a kill reaches all
    try:  # and it dies with the grader, even a grader killed with SIGKILL
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
