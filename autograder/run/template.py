"""The warm template: inside the allow-list root, it imports the heavy modules once and forks once
per submission (``sandbox.Template`` starts it and talks to it).

It runs no student code. Each fork, before any of the student's code runs, gets what a cold
start gets (``sandbox._setup_script``): new mount, pid, IPC, UTS and network namespaces, a fresh
size-capped scratch tmpfs as ``/home/student``, ``/tmp`` and ``/dev/shm``, a ``/proc`` of its own
pid namespace, the student's uid with no capabilities (an empty bounding set, ``no_new_privs``),
its own resource limits, and only fds 0-2. A fork's memory is a copy: a student who patches numpy
or ``sys.modules`` or leaves a thread running changes only their own fork. Every step must
succeed, or the fork exits with code ``protocol.SETUP_FAILED`` (97) and its reason on stderr (the
grader then refuses, as for a cold start).

Control channel (a SOCK_SEQPACKET socket, one JSON message per packet): the grader sends
``{"op": "spawn", "id", "limits", "env"}`` with the submission's three pipe ends as SCM_RIGHTS,
or ``{"op": "kill", "id"}``; the template answers ``{"ready": true, "preloaded": [...]}`` once, then
``{"spawned": id, "pid"}`` (the fork's pid in the template's pid namespace) or ``{"refused": id,
"why"}``, and ``{"exit": id, "code": c}`` when a fork ends.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import random
import select
import signal
import socket
import sys

from autograder.run import messages, protocol, worker
from autograder.run.messages import Op

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 4096, 8192, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 1, 24, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
HOME, SCRATCH_POINT = "/home/student", "/.scratch"

libc = ctypes.CDLL(None, use_errno=True)


class SetupError(RuntimeError):
    pass


def _check(ret: int, what: str) -> None:
    if ret != 0:
        raise SetupError(f"{what}: {os.strerror(ctypes.get_errno())}")


def _mount(source, target, fstype, flags, data=None) -> None:
    def enc(s):
        return None if s is None else s.encode()
    _check(libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"cannot mount {target}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


SCRATCH_PLACES = (("home", HOME), ("tmp", "/tmp"), ("shm", "/dev/shm"))


def _scratch(scratch_mb: int, uid: int | None, keep=()) -> None:
    """A fresh tmpfs under one size cap for home, /tmp and /dev/shm (as the cold set-up lays it out).
    ``keep``: folders under those places that hold the interpreter or its packages (a course kept
    under /tmp): they are carried into the new places read-only, as the cold set-up binds them
    after its scratch folder."""
    owner = f",uid={uid},gid={uid}" if uid is not None else ""
    _mount("pdl-scratch", SCRATCH_POINT, "tmpfs", MS_NOSUID | MS_NODEV, f"size={scratch_mb}m,mode=0700{owner}")
    for name, at in SCRATCH_PLACES:
        path = f"{SCRATCH_POINT}/{name}"
        os.mkdir(path, 0o700)
        if uid is not None:
            os.chown(path, uid, uid)
        for folder in keep:
            if folder.startswith(at + "/"):
                target = path + folder[len(at):]
                os.makedirs(target, exist_ok=True)
                _mount(folder, target, None, MS_BIND | MS_REC)
                _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        _mount(path, at, None, MS_BIND | MS_REC)
    _check(libc.umount2(SCRATCH_POINT.encode(), MNT_DETACH), "cannot detach the scratch folder")


def _drop_privileges(uid: int, real_root: bool) -> None:
    """The student's uid, no capabilities in any set, no way to gain any (as ``setpriv`` /
    ``unshare --map-user`` do for a cold start); checked from /proc afterwards."""
    if not real_root:  # the grader's uid, seen as ``uid``, in a user namespace of its own
        _check(libc.unshare(CLONE_NEWUSER), "cannot make the student's user namespace")
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} 0 1")
        _write("/proc/self/gid_map", f"{uid} 0 1")
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:  # EINVAL: no such cap
            raise SetupError(f"cannot drop capability {cap} from the bounding set")
    _check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "cannot clear the ambient capabilities")
    if real_root:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # from root to a plain uid: the kernel clears every capability
    else:  # capset(2): permitted, effective and inheritable all empty
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)
        data = (ctypes.c_uint32 * 6)()
        _check(libc.capset(header, data), "cannot drop the capabilities")
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "cannot set no_new_privs")
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
    if any(int(status[k].strip(), 16) for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")) \
            or status["NoNewPrivs"].strip() != "1" or os.getuid() != uid or os.geteuid() != uid:
        raise SetupError("the student's process kept a capability or the wrong uid")


def _reseed() -> None:
    """A fork starts from the template's random state: give each its own, as a fresh process has."""
    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(None)


def _submission(fds: list[int], msg: dict, cfg: dict, sock: socket.socket) -> None:
    """In the fork (never returns): isolate, then become the student's worker."""
    template = os.getppid()
    sock.close()
    _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "cannot tie the submission to the template")
    if os.getppid() != template:
        os._exit(protocol.SETUP_FAILED)
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    _check(libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET),
           "cannot make the submission's namespaces")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _scratch(int(cfg["scratch_mb"]), cfg["uid"] if cfg["real_root"] else None, cfg.get("keep", ()))
    child = os.fork()  # the first process of the new pid namespace
    if child:
        for fd in fds:
            os.close(fd)
        _, status = os.waitpid(child, 0)
        os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
    _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "cannot tie the submission to its parent")
    # A /proc of this pid namespace alone: the template's (which sees every fork) is detached, not
    # merely covered, so nothing can uncover it.
    _mount("proc", SCRATCH_POINT, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _check(libc.umount2(b"/proc", MNT_DETACH), "cannot detach the template's /proc")
    _mount(SCRATCH_POINT, "/proc", None, MS_MOVE)
    _drop_privileges(int(cfg["uid"]), bool(cfg["real_root"]))
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, 1 << 16)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in msg["env"].items()})
    os.chdir(HOME)
    _reseed()
    try:
        worker.main(json.dumps(msg["limits"]))
    finally:
        os._exit(0)


def _spawn(sock, msg, fds, cfg, live) -> None:
    threads = len(os.listdir("/proc/self/task"))
    if threads != 1 or len(fds) != 3:  # a fork of a threaded process may hang on a lock another thread held
        for fd in fds:
            os.close(fd)
        why = f"the template runs {threads} threads" if threads != 1 else "expected three pipes"
        sock.send(json.dumps(messages.refused(msg.get("id"), why)).encode())
        return
    pid = os.fork()
    if pid == 0:
        try:
            _submission(fds, msg, cfg, sock)
        except BaseException as exc:  # noqa: BLE001 - any failed step refuses this submission
            try:
                os.write(fds[2], f"pdl-sandbox: {exc}\n".encode())
            finally:
                os._exit(protocol.SETUP_FAILED)
    for fd in fds:
        os.close(fd)
    live[pid] = msg.get("id")
    sock.send(json.dumps(messages.spawned(msg.get("id"), pid)).encode())  # its pid here: its CPU time is read


def _preload(names: list[str]) -> list[str]:
    done = []
    for name in names:
        try:
            importlib.import_module(name)
            done.append(name)
        except Exception:  # noqa: BLE001 - the student's fork meets (and reports) the same problem
            continue
    if "matplotlib" in sys.modules:
        sys.modules["matplotlib"].use("Agg")
    return done


def main(config_json: str, fd: int) -> None:
    cfg = json.loads(config_json)
    sock = socket.socket(fileno=fd)
    preloaded = _preload(list(cfg.get("preload", [])))
    worker.make_shell()
    wake_r, wake_w = os.pipe()  # a fork's end wakes select() below at once (set_wakeup_fd)
    os.set_blocking(wake_w, False)
    os.set_blocking(wake_r, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *a: None)
    sock.send(json.dumps(messages.ready(preloaded)).encode())
    live: dict[int, str] = {}
    watched: list[socket.socket | int] = [sock, wake_r]
    while True:
        readable, _, _ = select.select(watched, [], [], 5.0)
        if wake_r in readable:
            while True:
                try:
                    if not os.read(wake_r, 512):
                        break
                except BlockingIOError:
                    break
        while live:  # report every fork that ended
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid in live:
                sock.send(json.dumps(messages.exited(live.pop(pid), os.waitstatus_to_exitcode(status))).encode())
        if sock not in readable:
            continue
        raw, fds, _, _ = socket.recv_fds(sock, 1 << 16, 3)
        if not raw:
            break  # the grader is gone: the template's end kills every fork (it is its pid namespace's init)
        try:
            msg = json.loads(raw)
        except ValueError:
            continue
        if msg.get("op") == Op.SPAWN:
            _spawn(sock, msg, fds, cfg, live)
        elif msg.get("op") == Op.KILL:
            for pid, ident in list(live.items()):
                if ident == msg.get("id"):
                    _kill(pid)


def _kill(pid: int) -> None:
    """Kill a fork's pid namespace through its first process: the fork (its parent) then exits,
    and is reported, only once every process of the namespace is gone (as for a cold start)."""
    try:
        kids = [int(k) for k in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    except OSError:
        kids = []
    for target in kids or [pid]:
        try:
            os.kill(target, signal.SIGKILL)
        except ProcessLookupError:
            pass
