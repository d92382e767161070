"""The allow-list root of ``namespace`` isolation (``autograder.run.isolation``): the namespaces it
is built in (``_unshare_cmd``), the shell script that builds it and enters it (``_setup_script``),
what of the host it shows (the interpreter and the virtual environment, ``_python_paths``; the
allowed packages, ``autograder.run.packages``; the worker's modules), where it is assembled
(``_build_at``), and who the student is in it (``lease_uid``, ``_drop_privileges``) with which
environment (``_worker_env``).

The other modules call these as ``rootfs.<name>``: a test that stands in for one patches it here,
for the probe, the warm templates and the cold start alike.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import threading
from pathlib import Path, PurePosixPath

from autograder.run import packages, protocol

SCRATCH_MB = 256           # home + /tmp + /dev/shm together
UID_BASE = 1_000_000_000   # sandbox uids: far above any real account or subordinate-id range
WORKER_MODULES = ("__init__.py", "run/__init__.py", "run/worker.py", "run/protocol.py",  # under autograder/
                  "run/messages.py", "run/template.py")
DEVICES = ("null", "zero", "full", "random", "urandom")
HOME = "/home/student"


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
    paths: list[Path] = []
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
    "    for args in ((source, entry.encode(), None, 4096, None),"
    " (None, entry.encode(), None, 4096 | 32 | 1 | 2 | 4, None)):\n"
    "        if libc.mount(*args) != 0:\n"
    "            sys.stderr.write('pdl-sandbox: cannot bind ' + source.decode() + ': '"
    " + os.strerror(ctypes.get_errno()) + '\\n')\n"
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
        ('ro() { mkdir -p "$2" && mount --bind "$1" "$2" && '
         'mount -o remount,bind,ro,nosuid,nodev "$2" || fail "cannot mount $1 read-only"; }'),
        ('rof() { touch "$2" && mount --bind "$1" "$2" && '
         'mount -o remount,bind,ro,nosuid,nodev "$2" || fail "cannot mount $1 read-only"; }'),
    ]
    if R is None:
        lines.append(f"fail 'no place to assemble the root that covers none of its sources "
                     f"(tried {' '.join(BUILD_AT)})'")
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
        (f"printf '{passwd}' > etc/passwd && printf '{group}' > etc/group "
         "&& printf '127.0.0.1 localhost\\n::1 localhost\\n' > etc/hosts "
         "&& printf 'passwd: files\\ngroup: files\\nhosts: files\\n' > etc/nsswitch.conf || fail 'cannot write /etc'"),
        "for f in ld.so.cache ld.so.conf localtime; do [ -e /etc/$f ] && cp -L /etc/$f etc/; done; true",
        "[ -d /etc/ld.so.conf.d ] && cp -r /etc/ld.so.conf.d etc/; true",
        "mount -t tmpfs -o size=64k,mode=0755,nosuid,noexec pdl-dev dev || fail 'cannot mount /dev'",
    ]
    for dev in DEVICES:
        lines.append(f"touch dev/{dev} && mount --bind /dev/{dev} dev/{dev} || fail 'cannot bind /dev/{dev}'")
    owner = f",uid={uid},gid={uid}" if _is_root() else ""
    lines += [
        ("ln -s /proc/self/fd dev/fd && ln -s /proc/self/fd/0 dev/stdin && ln -s /proc/self/fd/1 dev/stdout "
         "&& ln -s /proc/self/fd/2 dev/stderr && mkdir dev/shm || fail 'cannot lay out /dev'"),
        # One tmpfs for everything writable, so one cap covers home, /tmp and /dev/shm.
        (f"mount -t tmpfs -o size={SCRATCH_MB}m,mode=0700,nosuid,nodev{owner} pdl-scratch .scratch "
         "|| fail 'cannot mount the scratch folder'"),
        "mkdir -m 0700 .scratch/home .scratch/tmp .scratch/shm || fail 'cannot lay out the scratch folder'",
    ]
    if _is_root():
        lines.append(f"chown {uid}:{uid} .scratch/home .scratch/tmp .scratch/shm "
                     "|| fail 'cannot give the scratch folder away'")
    lines += [
        "mount --bind .scratch/home home/student && mount --bind .scratch/tmp tmp && mount --bind .scratch/shm dev/shm "
        "&& umount .scratch" + ("" if template else " && rmdir .scratch")
        + " || fail 'cannot mount the scratch folder'",
        "mount -t proc -o nosuid,nodev,noexec proc proc || fail 'cannot mount /proc'",
    ]
    # after the scratch folder, so that an interpreter kept under /tmp is not covered by it
    for prefix, shown in pythons.items():
        made = [prefix] + ([prefix / "bin"] if (prefix / "bin").is_dir() else [])
        lines.append("mkdir -p " + " ".join(q(str(p).lstrip("/")) for p in made)
                     + " || fail " + q(f"cannot lay out {prefix}"))
        for path in shown:
            at = q(str(path).lstrip("/"))
            if path.is_symlink():
                lines.append(f"ln -s {q(os.readlink(path))} {at} || fail {q(f'cannot link {path}')}")
            else:
                lines.append(f"{'ro' if path.is_dir() else 'rof'} {q(str(path))} {at}")
    # every site directory: an empty read-only folder showing only the allowed packages
    for folder, entries in sites.items():
        at = q(str(folder).lstrip("/"))
        lines += [(f"mkdir -p {at} && mount -t tmpfs -o size=1m,mode=0755,nosuid,nodev pdl-site {at} && cd {at} "
                   f"|| fail {q(f'cannot cover {folder}')}"), f"S={q(str(folder))}"]
        links = [e for e in entries if (folder / e).is_symlink()]
        files = [e for e in entries if e not in links and not (folder / e).is_dir()]
        dirs = [e for e in entries if e not in links and e not in files]
        folders = dirs + sorted({str(PurePosixPath(e).parent) for e in files + links} - {"."})
        if folders:
            lines.append("mkdir -p " + " ".join(map(q, folders)) + " || fail " + q(f"cannot lay out {folder}"))
        if files:
            lines.append("touch " + " ".join(map(q, files)) + " || fail " + q(f"cannot lay out {folder}"))
        lines += [f"ln -s {q(os.readlink(folder / e))} {q(e)} || fail {q(f'cannot link {folder / e}')}" for e in links]
        if dirs + files:  # one process binds them all (a mount(8) per entry cost ~0.8 s per sandbox)
            lines.append(" ".join(q(a) for a in (sys.executable, "-I", "-S", "-c", BINDER, str(folder), *dirs, *files))
                         + " || fail " + q(f"cannot bind the allowed packages of {folder}"))
        lines.append(f"cd {R} && mount -o remount,bind,ro,nosuid,nodev {at} "
                     f"|| fail {q(f'cannot make {folder} read-only')}")
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


# One sandbox uid per live student process: RLIMIT_NPROC counts per uid, so two submissions graded
# by two threads of one process (a dask worker's) under one uid would share it. A grading process
# holds up to UID_SLOTS at once (a cold student process or a warm template each), numbered from
# UID_BASE + pid * UID_SLOTS: below 2**31 for any pid up to the kernel's maximum (2**22).
UID_SLOTS = 64
_SLOTS: set[int] = set()
_SLOTS_LOCK = threading.Lock()


def lease_uid() -> int:
    """A sandbox uid no other live student process uses (``release_uid`` gives it back). Without
    root: 1000, in a user namespace of its own (the grader's uid outside, shared)."""
    if not _is_root():
        return 1000
    with _SLOTS_LOCK:
        slot = next((k for k in range(UID_SLOTS) if k not in _SLOTS), None)
        if slot is None:
            raise RuntimeError(f"more than {UID_SLOTS} student processes at once in one grading process")
        _SLOTS.add(slot)
    return UID_BASE + os.getpid() * UID_SLOTS + slot


def release_uid(uid: int) -> None:
    if grader_of(uid) == os.getpid():
        with _SLOTS_LOCK:
            _SLOTS.discard((uid - UID_BASE) % UID_SLOTS)


def grader_of(uid: int) -> int | None:
    """The pid of the grading process a sandbox uid belongs to (None for another uid)."""
    return (uid - UID_BASE) // UID_SLOTS if uid >= UID_BASE else None


def _drop_privileges(uid: int, gid: int) -> list[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--no-new-privs",
            "--inh-caps=-all", "--bounding-set=-all", "--pdeathsig=SIGKILL", "--"]


# The student's process's environment, whatever its isolation (``HOME`` and ``TMPDIR`` added).
WORKER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1",
              "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
              "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}


def _worker_env(home: str, tmpdir: str) -> dict:
    env = dict(WORKER_ENV)
    for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if key in os.environ:
            env[key] = os.environ[key]
    return dict(env, HOME=home, TMPDIR=tmpdir, MPLCONFIGDIR=f"{home}/.config/matplotlib")
