"""``account`` isolation's machinery: a uid of its own per submission, confined, and torn down.

Account isolation is used only when chosen (``pdl grade --isolation account``, or the Gradescope
zip where the container refuses namespaces): the grader runs as root and the student's process
runs as a uid that no one else uses while it runs.

* **A uid per submission** (``lease``): one of ``POOL`` uids from ``UID_FIRST`` on, leased
  under a lock file per uid in a root-only folder (``LOCKS``), so two live submissions never
  share one, even from separate processes (a cohort's workers). They have no passwd entry:
  nothing is added to the host's accounts, and a uid is refused if an account, a group or a
  subordinate-id range (``/etc/subuid``, ``/etc/subgid``) holds it, or if it still owns a process.
  ``UID_FIRST`` is far above any real account (useradd stops at 60000, systemd's dynamic users at
  65519) and below the namespace sandbox's uids (10^9 + the grader's pid).
* **Teardown the student cannot outrun** (``Lease.kill``): where a cgroup v2 hierarchy is
  writable the student's process is put into a cgroup of its own before it runs anything, and
  ``cgroup.kill`` ends all of it at once; then, in every case, ``kill(-1, SIGKILL)`` from a helper
  running as that uid (one pass of the kernel over every process of the uid: a fork cannot
  slip through it), repeated until the uid owns no process. A uid that still owns one is not
  leased again.
* **Landlock** (``landlockpy``) where the kernel offers it: files read-only from the system's
  ``/usr`` (``/bin``, ``/lib``...), the Python installation, the worker's modules and a few files
  of ``/etc`` (the dynamic linker's cache, time zone, fonts); read-write only in the
  submission's own home and temp folder; ``/dev/null`` and the random devices; ``/proc``
  read-only. From ABI 4 no TCP bind or connect (the host's loopback included), from ABI 6 no
  signal or abstract UNIX socket outside the submission. What the kernel cannot confine is
  said in a grader note (``Lease.notes``).
* **Private scratch space**: home and temp folder (``TMPDIR``) in a fresh folder removed at
  teardown; whatever the uid still owns in the host's ``/tmp``, ``/var/tmp``, ``/dev/shm`` and
  ``/dev/mqueue`` (possible only without Landlock) is removed too, and so are its System V IPC
  objects (which Landlock does not confine).
"""

from __future__ import annotations

import errno
import fcntl
import grp
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import landlockpy
from landlockpy import AccessFS, AccessNet

UID_FIRST = 900_000_000     # the account uids: UID_FIRST .. UID_FIRST + POOL - 1 (see above)
POOL = 64                   # concurrent submissions in account isolation, per host
LOCKS = Path("/run/pdl-account-uids")  # <uid>.lock, held by the grader that leased the uid
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")  # where any uid may write on a host
IPC = {"shm": "-m", "sem": "-s", "msg": "-q"}  # System V IPC objects (/proc/sysvipc/<kind>), ipcrm's option
ETC_READ = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "fonts")  # of /etc, read-only
DEVICES_READ = ("zero", "random", "urandom")
SYSTEM_READ = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
KILL_ROUNDS = 200


class AccountError(RuntimeError):
    """Account isolation cannot be set up (the sandbox turns it into SandboxUnavailable)."""


# -- processes and files of a uid ----------------------------------------------------------
def processes(*uids: int) -> list[int]:
    """Live processes with one of ``uids`` as any of their real, effective, saved or file-system uids
    (read from ``/proc/<pid>/status``: a non-dumpable process's ``/proc/<pid>`` is owned by root).
    Zombies are not counted: they run nothing."""
    found, wanted = [], {str(uid) for uid in uids}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as fh:
                status = fh.read(4096).decode("ascii", "replace")
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("State", "").strip().startswith(("Z", "X")):
            continue
        if wanted.intersection(fields.get("Uid", "").split()):
            found.append(int(entry.name))
    return found


def kill_uid(uid: int) -> bool:
    """``kill(-1, SIGKILL)`` as ``uid`` (every process of the uid but the helper itself, in one
    pass of the kernel) until the uid owns no process; True when none is left."""
    for round_ in range(KILL_ROUNDS):
        # a process that keeps forking changes pid faster than /proc can be read: the first
        # pass runs whatever the scan says (kill(-1) itself misses nothing)
        if round_ and not processes(uid):
            return True
        subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--",
                        "/bin/sh", "-c", "kill -9 -1 2>/dev/null; exit 0"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       cwd="/", env={"PATH": "/usr/bin:/bin"}, timeout=30, check=False)
        time.sleep(0.01)  # a killed process is gone once the kernel has reaped its threads
    return not processes(uid)


def remove_files(uid: int) -> list[str]:
    """Remove what ``uid`` owns under the host's scratch folders; returns what was removed.
    Only world-writable folders and the uid's own are searched: nowhere else can it create."""
    removed = []
    tops = {os.path.realpath(p) for p in (*SCRATCH, tempfile.gettempdir()) if os.path.isdir(p)}

    def walk(folder: str) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if st.st_uid == uid:
                if stat.S_ISDIR(st.st_mode):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    try:
                        os.unlink(entry.path)
                    except OSError:
                        continue
                removed.append(entry.path)
            elif stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_IWOTH:
                walk(entry.path)
    for top in sorted(tops):
        walk(top)
    return removed


def remove_ipc(uid: int) -> list[str]:
    """Remove the System V shared memory, semaphores and message queues that ``uid`` created or
    owns (Landlock does not confine them; they outlive every process); returns what was removed."""
    removed = []
    for kind, option in IPC.items():
        try:
            header, *rows = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        except (OSError, ValueError):
            continue
        names = header.split()
        for row in rows:
            fields = dict(zip(names, row.split()))
            if str(uid) in (fields.get("uid"), fields.get("cuid")):
                ident = fields.get(names[1], "")
                subprocess.run(["ipcrm", option, ident], stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=30, check=False)
                removed.append(f"{kind} {ident}")
    return removed


def _taken(uid: int) -> str:
    """Why ``uid`` belongs to someone on this host ('' if to no one)."""
    try:
        return f"the account {pwd.getpwuid(uid).pw_name!r} has uid {uid}"
    except KeyError:
        pass
    try:
        return f"the group {grp.getgrgid(uid).gr_name!r} has gid {uid}"
    except KeyError:
        pass
    for table in ("/etc/subuid", "/etc/subgid"):
        try:
            lines = Path(table).read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            parts = line.split(":")
            if (len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit()
                    and int(parts[1]) <= uid < int(parts[1]) + int(parts[2])):
                return f"{table} gives uid {uid} to {parts[0]!r}"
    return ""


def _root_only_folder(path: Path) -> Path:
    """``path``, a folder that root alone can write; refuses anything else."""
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError as exc:
        raise AccountError(f"cannot make the folder of account locks {path}: {exc}") from None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != 0 or st.st_mode & 0o022:
        raise AccountError(f"{path} is not a folder that root alone can write; remove it")
    return path


# -- cgroup v2 -----------------------------------------------------------------------------
def cgroup_parent() -> Path | None:
    """This process's cgroup in a cgroup v2 hierarchy, if root may make cgroups in it; else None."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
        mine = next((ln[3:] for ln in Path("/proc/self/cgroup").read_text().splitlines() if ln.startswith("0::")), None)
    except OSError:
        return None
    if mine is None:
        return None
    for line in mounts:
        left, _, right = line.partition(" - ")
        if right.split()[:1] != ["cgroup2"]:
            continue
        root, point = left.split()[3:5]
        rel = os.path.relpath(mine, root) if mine.startswith(root) else None
        if rel is None or rel.startswith(".."):
            continue
        path = Path(point.replace("\\040", " ")) / rel
        if (path / "cgroup.procs").exists() and os.access(path, os.W_OK):
            return path
    return None


def _cgroup_kill(path: Path) -> bool:
    """Kill everything in cgroup ``path`` and remove it; True when it is gone."""
    if not path.exists():
        return True
    try:
        (path / "cgroup.kill").write_text("1")
    except OSError:
        pass
    for _ in range(1000):
        try:
            path.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                return False
        time.sleep(0.01)
    return False


# -- Landlock ------------------------------------------------------------------------------
def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 without Landlock."""
    return landlockpy.abi_version()


def _rules(abi: int, read_only: list[Path], writable: list[Path]) -> landlockpy.Ruleset:
    ruleset = landlockpy.Ruleset(handled_fs=landlockpy.fs_for_abi(abi), handled_net=landlockpy.net_for_abi(abi),
                                 scoped=landlockpy.scope_for_abi(abi))
    files = AccessFS.READ_FILE
    tree = AccessFS.READ_FILE | AccessFS.READ_DIR | AccessFS.EXECUTE
    rw = (tree | AccessFS.WRITE_FILE | AccessFS.REMOVE_DIR | AccessFS.REMOVE_FILE | AccessFS.MAKE_DIR
          | AccessFS.MAKE_REG | AccessFS.MAKE_SYM | AccessFS.MAKE_FIFO | AccessFS.MAKE_SOCK
          | AccessFS.REFER | AccessFS.TRUNCATE)
    allowed: list[tuple[str, AccessFS]] = [(p, tree) for p in SYSTEM_READ]
    allowed += [(str(p), tree) for p in read_only]
    allowed += [(f"/etc/{name}", files | AccessFS.READ_DIR) for name in ETC_READ]
    allowed += [(f"/dev/{name}", files) for name in DEVICES_READ]
    allowed += [("/dev/null", files | AccessFS.WRITE_FILE | AccessFS.TRUNCATE), ("/proc", files | AccessFS.READ_DIR)]
    allowed += [(str(p), rw) for p in writable]
    for path, access in allowed:
        if not os.path.exists(path):
            continue
        if not os.path.isdir(path):  # rights on a file: no directory rights
            access &= AccessFS.READ_FILE | AccessFS.WRITE_FILE | AccessFS.EXECUTE | AccessFS.TRUNCATE
        ruleset.allow_path(path, access)
    return ruleset


def not_confined(abi: int) -> str:
    """A grader note on what this kernel's Landlock leaves unconfined ('' when files and TCP are)."""
    if abi < 1:
        return ("account isolation without Landlock (this kernel has none): the student's process was kept "
                "from the grader's files by file permissions alone, could read every world-readable file "
                "of this machine and reach the network, its loopback included")
    if AccessNet.CONNECT_TCP not in landlockpy.net_for_abi(abi):
        return (f"account isolation with Landlock ABI {abi}: files were confined, but this kernel cannot "
                "confine the network (Landlock ABI 4 or later): the student's process could reach the "
                "network, its loopback included")
    return ""


# -- the lease -----------------------------------------------------------------------------
class Lease:
    """One submission's uid, private folder, cgroup and Landlock rules, until ``release``."""

    def __init__(self, uid: int, lock_fd: int):
        self.uid, self._lock = uid, lock_fd
        self.notes: list[str] = []
        self.cgroup: Path | None = None
        self._ruleset: landlockpy.Ruleset | None = None
        self.root = Path(tempfile.mkdtemp(prefix="pdl-account-"))
        self.root.chmod(0o755)
        self.code, self.home, self.tmp = self.root / "pdl", self.root / "home", self.root / "tmp"
        self.code.mkdir(mode=0o755)
        for folder in (self.home, self.tmp):
            folder.mkdir(mode=0o700)
            os.chown(folder, uid, uid)

    def confine(self, read_only: list[Path]) -> None:
        """Make the cgroup and the Landlock rules that ``enter`` applies (before the process starts)."""
        parent = cgroup_parent()
        if parent is not None:
            path = parent / f"pdl-account-{self.uid}"
            if not _cgroup_kill(path):  # one left by a grader that was killed
                raise AccountError(f"cannot remove the stale cgroup {path}")
            try:
                path.mkdir()
            except OSError as exc:
                raise AccountError(f"cannot make the cgroup {path}: {exc}") from None
            if (path / "cgroup.kill").exists():
                self.cgroup = path
            else:  # before Linux 5.14: the uid's kill loop alone
                path.rmdir()
        abi = landlock_abi()
        if note := not_confined(abi):
            self.notes.append(note)
        if abi >= 1:
            try:
                self._ruleset = _rules(abi, [self.code, *read_only], [self.home, self.tmp])
            except (OSError, landlockpy.LandlockError) as exc:
                raise AccountError(f"cannot build the Landlock rules: {exc}") from None

    def enter(self) -> None:
        """In the forked child, before it executes anything: join the cgroup, apply Landlock."""
        if self.cgroup is not None:
            fd = os.open(self.cgroup / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)
        if self._ruleset is not None:
            self._ruleset.restrict()  # no_new_privs too

    def started(self) -> None:
        """The process is running: the ruleset's descriptor is no longer needed here."""
        if self._ruleset is not None:
            self._ruleset.close()
            self._ruleset = None

    def kill(self) -> bool:
        """End every process of the submission; True when the uid owns none."""
        gone = _cgroup_kill(self.cgroup) if self.cgroup is not None else True
        if gone:
            self.cgroup = None
        return kill_uid(self.uid) and gone

    def release(self) -> None:
        """Kill, remove every file of the submission, give the uid back."""
        if self._lock < 0:
            return
        self.started()
        self.kill()
        remove_files(self.uid)
        remove_ipc(self.uid)
        shutil.rmtree(self.root, ignore_errors=True)
        os.close(self._lock)  # a uid that still owns a process is refused by the next ``lease``
        self._lock = -1


def lease(read_only: list[Path]) -> Lease:
    """A uid no live submission uses, owning no process, with its private folder, cgroup and
    Landlock rules ready; ``AccountError`` if there is none or set-up fails."""
    if os.geteuid() != 0:
        raise AccountError("account isolation needs the grader to run as root")
    if shutil.which("setpriv") is None:
        raise AccountError("missing command: setpriv (util-linux)")
    locks = _root_only_folder(LOCKS)
    refused = []
    for uid in range(UID_FIRST, UID_FIRST + POOL):
        fd = os.open(locks / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # a live submission's
            os.close(fd)
            continue
        if why := _taken(uid):
            refused.append(why)
        elif not kill_uid(uid):  # left by a grader that was killed
            refused.append(f"uid {uid} still owns a process")
        else:
            remove_files(uid)
            remove_ipc(uid)
            held = Lease(uid, fd)
            try:
                held.confine(read_only)
            except BaseException:
                held.release()
                raise
            return held
        os.close(fd)
    raise AccountError(f"no free uid for account isolation among {UID_FIRST}..{UID_FIRST + POOL - 1}"
                       + (f" ({refused[0]})" if refused else " (all in use)"))
