"""Start and talk to the student's process (``autograder.run.worker``) under limits.

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
  (``UID_BASE`` + the grader's pid) with no capabilities, no supplementary groups and
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

Either way the submission's files reach the process through its stdin (no stage folder on
the host), limits on processes, file size, open files, CPU time and memory are set before any
student code runs, and the verdict is computed in the grader's process, never in the
student's. What the student's process says on its channel is read under a byte cap and
decoded strictly (``autograder.run.protocol``).
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import functools
import json
import os
import re
import select
import selectors
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path, PurePosixPath

from autograder.run import accounts, packages, protocol, settings
from autograder.run.notebook import load_release
from autograder.run.paths import REPO

ISOLATIONS = ("namespace", "account", "process")
SCRATCH_MB = 256           # home + /tmp + /dev/shm together
UID_BASE = 1_000_000_000   # sandbox uids: far above any real account or subordinate-id range
WORKER_MODULES = ("__init__.py", "run/__init__.py", "run/worker.py", "run/protocol.py",  # under autograder/
                  "run/template.py")
DEVICES = ("null", "zero", "full", "random", "urandom")
HOME = "/home/student"
MAX_SKIPPED = 10_000       # messages for other requests skipped while waiting for one answer
LIMITS = {"nproc": 64, "fsize_mb": 64, "nofile": 256}  # per student process (tasks of its uid)


class WorkerDied(RuntimeError):
    """The student's process exited (os._exit, crash, memory limit)."""


class WorkerTimeout(RuntimeError):
    """The student's process did not answer in time (and was killed)."""


class ChannelError(protocol.ProtocolError):
    """The student's process wrote something on the answer channel that is not a valid answer."""


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be built here; grading refuses rather than run student code unprotected."""


PROCESS_WARNING = ("isolation 'process': the student's code ran as a plain process with your "
                   "user's access to files: it could read the reference solutions, the hidden "
                   "tests, other students' submissions and your home folder, and write to them")


def _is_root() -> bool:
    return os.geteuid() == 0


def _unshare_cmd() -> list[str]:
    cmd = ["unshare", "--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child"]
    if not _is_root():
        cmd[1:1] = ["--user", "--map-root-user"]
    return cmd


# The engine's package (autograder/), wherever it is installed: the worker's modules come from here.
ENGINE = Path(__file__).resolve().parents[1]


def _python_paths() -> list[Path]:
    """The interpreter's installation and the virtual environment (read-only in the sandbox)."""
    paths = []
    for p in (Path(sys.base_prefix), Path(sys.prefix), Path(sys.executable).resolve().parent.parent):
        p = p.resolve()
        if p == Path("/usr") or any(p == q or q in p.parents for q in paths):
            continue
        paths = [q for q in paths if p not in q.parents] + [p]
    return paths


def _python_entries(prefix: Path) -> list[Path]:
    """What the sandbox shows of one of ``_python_paths``: the interpreter (``bin/python*``),
    ``pyvenv.cfg`` and ``lib*`` (the standard library, shared libraries, and site directories that
    show only allowed packages); not the installation's other commands (``bin/pdl``...), headers
    or data."""
    shown = [p for p in sorted(prefix.iterdir()) if p.name == "pyvenv.cfg" or p.name.startswith("lib")]
    if (prefix / "bin").is_dir():
        shown += [p for p in sorted((prefix / "bin").iterdir()) if re.fullmatch(r"python[0-9.]*", p.name)]
    return shown


# Where the new root is assembled, inside the sandbox's private mount namespace: the first of these
# that is neither one of the paths the root is built from nor above one (a course or interpreter
# kept under /dev/shm, say), so covering it hides nothing from the binds. The host's folder is
# untouched and no folder is made on the host.
BUILD_AT = ("/dev/shm", "/mnt", "/media", "/srv", "/run", "/tmp", "/var/tmp", "/opt", "/home")


def _build_at(sources) -> str | None:
    """The first of ``BUILD_AT`` that covers none of ``sources`` (None if every one does)."""
    for place in map(Path, BUILD_AT):
        if place.is_dir() and not place.is_symlink() and not any(
                place == s or place in s.parents for s in map(Path, sources)):
            return str(place)
    return None


def _release_imports(files) -> frozenset[str]:
    """What the release of the notebook among ``files`` (``<assignment>.ipynb``) imports."""
    return frozenset().union(*(packages.release_modules(Path(n).stem) for n in files if n.endswith(".ipynb")))


# Binds each named entry of a site directory (argv[1]) read-only over its stand-in in the current
# folder: mount(2) as mount(8) does it (MS_BIND, then MS_REMOUNT|MS_BIND|MS_RDONLY|MS_NOSUID|MS_NODEV).
BINDER = (
    "import ctypes, os, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "for entry in sys.argv[2:]:\n"
    "    source = os.path.join(sys.argv[1], entry).encode()\n"
    "    for args in ((source, entry.encode(), None, 4096, None), (None, entry.encode(), None, 4096 | 32 | 1 | 2 | 4, None)):\n"
    "        if libc.mount(*args) != 0:\n"
    "            sys.stderr.write('pdl-sandbox: cannot bind ' + source.decode() + ': ' + os.strerror(ctypes.get_errno()) + '\\n')\n"
    "            sys.exit(1)\n"
)


def _setup_script(uid: int, final: list[str], modules=frozenset(), template: bool = False) -> str:
    """The shell steps that build the allow-list root and exec ``final`` in it; ``modules``: what
    the release imports (the Python packages shown are those and the worker's, with their
    requirements: ``autograder.run.packages``). ``template``: ``final`` is the warm template
    (``autograder.run.template``), which keeps its privileges in the namespaces and an empty
    ``/.scratch`` to mount each submission's scratch folder on, and drops them in each fork."""
    q = shlex.quote
    pythons = {prefix: _python_entries(prefix) for prefix in _python_paths()}
    sites = packages.visible_entries(frozenset(modules))
    tops = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
    R = _build_at(["/usr", "/etc", "/dev/null", ENGINE, *(f"/{t}" for t in tops), *pythons, *sites])
    lines = [
        "set -u",
        f'fail() {{ echo "pdl-sandbox: $*" >&2; exit {protocol.SETUP_FAILED}; }}',
        'ro() { mkdir -p "$2" && mount --bind "$1" "$2" && '
        'mount -o remount,bind,ro,nosuid,nodev "$2" || fail "cannot mount $1 read-only"; }',
        'rof() { touch "$2" && mount --bind "$1" "$2" && '
        'mount -o remount,bind,ro,nosuid,nodev "$2" || fail "cannot mount $1 read-only"; }',
    ]
    if R is None:
        lines.append(f"fail 'no place to assemble the root that covers none of its sources (tried {' '.join(BUILD_AT)})'")
        R = BUILD_AT[0]
    lines += [
        "mount --make-rprivate / || fail 'cannot make the mounts private'",
        f"mount -t tmpfs -o size=64m,mode=0755,nosuid,nodev pdl-root {R} || fail 'cannot mount the new root'",
        f"cd {R} || fail 'cannot enter the new root'",
        "mkdir -p proc dev etc tmp home/student pdl/autograder/run usr .old .scratch || fail 'cannot lay out the root'",
        "ro /usr usr",
    ]
    for top in tops:
        host = Path("/") / top
        if host.is_symlink():
            lines.append(f"ln -s {q(os.readlink(host))} {top} || fail 'cannot link /{top}'")
        elif host.is_dir():
            lines.append(f"ro /{top} {top}")
    for name in WORKER_MODULES:
        lines.append(f"install -m 0644 {q(str(ENGINE / name))} {q('pdl/autograder/' + name)} "
                     "|| fail 'cannot copy the worker'")
    passwd = (f"root:x:0:0:root:/root:/usr/sbin/nologin\\nstudent:x:{uid}:{uid}:student:{HOME}:/usr/sbin/nologin\\n"
              "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\\n")
    group = f"root:x:0:\\nstudent:x:{uid}:\\nnogroup:x:65534:\\n"
    lines += [
        f"printf '{passwd}' > etc/passwd && printf '{group}' > etc/group "
        "&& printf '127.0.0.1 localhost\\n::1 localhost\\n' > etc/hosts "
        "&& printf 'passwd: files\\ngroup: files\\nhosts: files\\n' > etc/nsswitch.conf || fail 'cannot write /etc'",
        "for f in ld.so.cache ld.so.conf localtime; do [ -e /etc/$f ] && cp -L /etc/$f etc/; done; true",
        "[ -d /etc/ld.so.conf.d ] && cp -r /etc/ld.so.conf.d etc/; true",
        "mount -t tmpfs -o size=64k,mode=0755,nosuid,noexec pdl-dev dev || fail 'cannot mount /dev'",
    ]
    for dev in DEVICES:
        lines.append(f"touch dev/{dev} && mount --bind /dev/{dev} dev/{dev} || fail 'cannot bind /dev/{dev}'")
    owner = f",uid={uid},gid={uid}" if _is_root() else ""
    lines += [
        "ln -s /proc/self/fd dev/fd && ln -s /proc/self/fd/0 dev/stdin && ln -s /proc/self/fd/1 dev/stdout "
        "&& ln -s /proc/self/fd/2 dev/stderr && mkdir dev/shm || fail 'cannot lay out /dev'",
        # One tmpfs for everything writable, so one cap covers home, /tmp and /dev/shm.
        f"mount -t tmpfs -o size={SCRATCH_MB}m,mode=0700,nosuid,nodev{owner} pdl-scratch .scratch "
        "|| fail 'cannot mount the scratch folder'",
        "mkdir -m 0700 .scratch/home .scratch/tmp .scratch/shm || fail 'cannot lay out the scratch folder'",
    ]
    if _is_root():
        lines.append(f"chown {uid}:{uid} .scratch/home .scratch/tmp .scratch/shm || fail 'cannot give the scratch folder away'")
    lines += [
        "mount --bind .scratch/home home/student && mount --bind .scratch/tmp tmp && mount --bind .scratch/shm dev/shm "
        "&& umount .scratch" + ("" if template else " && rmdir .scratch") + " || fail 'cannot mount the scratch folder'",
        "mount -t proc -o nosuid,nodev,noexec proc proc || fail 'cannot mount /proc'",
    ]
    # after the scratch folder, so that an interpreter kept under /tmp is not covered by it
    for prefix, shown in pythons.items():
        made = [prefix] + ([prefix / "bin"] if (prefix / "bin").is_dir() else [])
        lines.append("mkdir -p " + " ".join(q(str(p).lstrip("/")) for p in made) + " || fail " + q(f"cannot lay out {prefix}"))
        for path in shown:
            at = q(str(path).lstrip("/"))
            if path.is_symlink():
                lines.append(f"ln -s {q(os.readlink(path))} {at} || fail {q(f'cannot link {path}')}")
            else:
                lines.append(f"{'ro' if path.is_dir() else 'rof'} {q(str(path))} {at}")
    # every site directory: an empty read-only folder showing only the allowed packages
    for folder, entries in sites.items():
        at = q(str(folder).lstrip("/"))
        lines += [f"mkdir -p {at} && mount -t tmpfs -o size=1m,mode=0755,nosuid,nodev pdl-site {at} && cd {at} "
                  f"|| fail {q(f'cannot cover {folder}')}", f"S={q(str(folder))}"]
        links = [e for e in entries if (folder / e).is_symlink()]
        files = [e for e in entries if e not in links and not (folder / e).is_dir()]
        dirs = [e for e in entries if e not in links and e not in files]
        made = dirs + sorted({str(PurePosixPath(e).parent) for e in files + links} - {"."})
        if made:
            lines.append("mkdir -p " + " ".join(map(q, made)) + " || fail " + q(f"cannot lay out {folder}"))
        if files:
            lines.append("touch " + " ".join(map(q, files)) + " || fail " + q(f"cannot lay out {folder}"))
        lines += [f"ln -s {q(os.readlink(folder / e))} {q(e)} || fail {q(f'cannot link {folder / e}')}" for e in links]
        if dirs + files:  # one process binds them all (a mount(8) per entry cost ~0.8 s per sandbox)
            lines.append(" ".join(q(a) for a in (sys.executable, "-I", "-S", "-c", BINDER, str(folder), *dirs, *files))
                         + " || fail " + q(f"cannot bind the allowed packages of {folder}"))
        lines.append(f"cd {R} && mount -o remount,bind,ro,nosuid,nodev {at} || fail {q(f'cannot make {folder} read-only')}")
    lines += [
        "pivot_root . .old || fail 'pivot_root failed'",
        "umount -l /.old && rmdir /.old || fail 'cannot detach the host root'",
        "mount -o remount,bind,ro,nosuid,nodev / || fail 'cannot make the root read-only'",
        f"cd {HOME} || fail 'cannot enter the scratch folder'",
    ]
    if template:
        drop = []
    elif _is_root():
        drop = _drop_privileges(uid, uid)
    else:  # the grader's uid, seen as the student's, in a user namespace of its own
        drop = ["unshare", "--user", f"--map-user={uid}", f"--map-group={uid}", "--"]
    lines.append("exec " + " ".join(q(a) for a in drop + final))
    return "\n".join(lines)


def sandbox_uid() -> int:
    return UID_BASE + os.getpid() if _is_root() else 1000


@functools.lru_cache(maxsize=1)
def probe() -> str:
    """'' if the allow-list sandbox can be built here, else why not (cached per process)."""
    if sys.platform != "linux":
        return f"Linux namespaces are needed and this is {sys.platform}"
    missing = [t for t in ("unshare", "pivot_root", "mount", "setpriv" if _is_root() else "unshare")
               if shutil.which(t) is None]
    if missing:
        return f"missing commands: {', '.join(missing)} (util-linux)"
    try:
        # the whole set-up, ending in a shell instead of the worker's interpreter (cheaper)
        script = _setup_script(sandbox_uid(), ["sh", "-c", f"test -x {shlex.quote(sys.executable)}"])
        proc = subprocess.run(_unshare_cmd() + ["sh", "-c", script], capture_output=True, timeout=60)
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
        lease = accounts.lease(_python_paths())
    except accounts.AccountError as exc:
        return str(exc)
    private = [p for p in (REPO / "solutions", REPO / "grading_tests", ENGINE / "run" / "grading.py") if p.exists()]
    code = ("import sys\nfor p in sys.argv[1:]:\n    try:\n        open(p).close() if not p.endswith('/') "
            "else __import__('os').listdir(p)\n    except OSError:\n        continue\n    print(p)")
    cmd = _drop_privileges(lease.uid, lease.uid) + [sys.executable, "-I", "-c", code] + [
        str(p) + ("/" if p.is_dir() else "") for p in private]
    try:
        out = subprocess.run(cmd, capture_output=True, timeout=60, cwd=str(lease.home),
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


def _drop_privileges(uid: int, gid: int) -> list[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--no-new-privs",
            "--inh-caps=-all", "--bounding-set=-all", "--pdeathsig=SIGKILL", "--"]


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


def _account_child_setup(lease: accounts.Lease) -> None:
    _child_setup()
    lease.enter()  # its cgroup and Landlock, before anything of the student's runs


def _child_setup():
    os.setsid()  # own process group and session: a terminal's Ctrl-C never reaches it, a kill reaches all
    try:  # and it dies with the grader, even a grader killed with SIGKILL
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


# Fork-safe modules a template may import ahead of the submissions (torch starts threads on import:
# a fork of a threaded process can hang on a lock another thread held, so it is loaded per fork).
PRELOADABLE = ("numpy", "scipy", "matplotlib", "IPython", "tqdm")
WORKER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1",
              "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
              "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}


def _worker_env(home: str, tmpdir: str) -> dict:
    env = dict(WORKER_ENV)
    for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if key in os.environ:
            env[key] = os.environ[key]
    return dict(env, HOME=home, TMPDIR=tmpdir, MPLCONFIGDIR=f"{home}/.config/matplotlib")


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
    shown = [p for prefix in _python_paths() for p in _python_entries(prefix)] + list(packages.visible_entries(modules))
    keep = set()
    for path in map(Path, shown):
        for place in map(Path, (HOME, "/tmp", "/dev/shm")):
            if place in path.parents:
                keep.add(str(place / path.relative_to(place).parts[0]))
    return sorted(keep)


class _Forked:
    """A submission forked by a ``Template``: what ``Worker`` uses of a ``subprocess.Popen``."""

    def __init__(self, template: "Template", ident: str, stdin, stdout, stderr):
        self.template, self.id, self.pid = template, ident, None
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.returncode = None

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
        self.modules = _release_imports([f"{assignment}.ipynb"])
        self.preload = preload_names(assignment)
        self.owner = os.getpid()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock, self.exits, self._count = ours, {}, 0  # exits: fork id -> exit code, as reported
        self.keep = _under_scratch(self.modules)
        config = {"uid": sandbox_uid(), "real_root": _is_root(), "scratch_mb": SCRATCH_MB, "preload": self.preload,
                  "keep": self.keep}
        inner = [sys.executable, "-I", "-c", "import sys; sys.path.insert(0, '/pdl'); "
                 f"import autograder.run.template as t; t.main({json.dumps(config)!r}, {theirs.fileno()})"]
        cmd = _unshare_cmd() + ["sh", "-c", _setup_script(sandbox_uid(), inner, self.modules, template=True)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     cwd="/", env=_worker_env(HOME, "/tmp"), pass_fds=(theirs.fileno(),),
                                     preexec_fn=_child_setup)
        theirs.close()
        ready = self._message(60)
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
            socket.send_fds(self.sock, [json.dumps({"op": "spawn", "id": ident, "limits": limits,
                                                     "env": _worker_env(HOME, "/tmp")}).encode()], theirs)
        finally:
            for fd in theirs:
                os.close(fd)
        deadline = time.monotonic() + 30
        while (left := deadline - time.monotonic()) > 0:
            msg = self._message(left)
            if msg is None:
                break
            if msg.get("spawned") == ident:
                return _Forked(self, ident, os.fdopen(pipes[0][1], "wb"), os.fdopen(pipes[1][0], "rb"),
                               os.fdopen(pipes[2][0], "rb"))
            elif msg.get("refused") == ident:
                break
        for fd in (pipes[0][1], pipes[1][0], pipes[2][0]):
            os.close(fd)
        raise TemplateFailed(f"the warm template did not fork ({msg.get('why') if msg else 'no answer'})")

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
            self.sock.send(json.dumps({"op": "kill", "id": ident}).encode())
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


class Worker:
    """One student process. ``request`` sends a message and waits for the answer."""

    def __init__(self, files: dict[str, bytes], *, memory_mb: int | None = 4096,
                 isolation: str | None = None, cpu_s: int = 3600):
        self.isolation = resolve_isolation(isolation, lazy=True)
        limits = dict(LIMITS, memory_mb=memory_mb or 0, cpu_s=int(cpu_s))
        self._root = None if self.isolation != "process" else Path(tempfile.mkdtemp(prefix="pdl-work-"))
        self._lease: accounts.Lease | None = None
        self.notes: list[str] = []  # grader notes: what the isolation could not confine here
        self.warm = False  # forked by a warm template
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
            home = HOME
            inner[-1] = inner[-1].format("/pdl", json.dumps(limits))
            cmd = _unshare_cmd() + ["sh", "-c", _setup_script(sandbox_uid(), inner, _release_imports(files))]
            cwd = "/"
        elif self.isolation == "account":
            try:  # a uid of this submission's own, with its private home and temp folder
                self._lease = lease = accounts.lease(_python_paths())
            except accounts.AccountError as exc:
                raise SandboxUnavailable(refuse_message(str(exc))) from None
            code = lease.code / "autograder"  # the worker's modules, read-only for the student
            try:
                (code / "run").mkdir(parents=True)
                for name in WORKER_MODULES:
                    shutil.copy(ENGINE / name, code / name)
                for path in (code, *code.rglob("*")):
                    path.chmod(0o755 if path.is_dir() else 0o644)
            except BaseException:
                lease.release()
                raise
            inner[-1] = inner[-1].format(str(lease.code), json.dumps(limits))
            cmd, cwd, home, tmpdir = _drop_privileges(lease.uid, lease.uid) + inner, str(lease.home), str(lease.home), str(lease.tmp)
            env.update(USER="student", LOGNAME="student")  # the uid has no passwd entry
            self.notes = list(lease.notes)
        else:
            home = tmpdir = str(self._root)
            inner[-1] = inner[-1].format(str(REPO), json.dumps(limits))
            cmd, cwd = inner, home
        setup = _child_setup if self._lease is None else functools.partial(_account_child_setup, self._lease)
        try:
            return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    cwd=cwd, env={**_worker_env(home, tmpdir), **env}, preexec_fn=setup)
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
                raise WorkerDied(self._death_reason())
            self._buf += chunk

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
            raise WorkerDied(self._death_reason()) from None

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

