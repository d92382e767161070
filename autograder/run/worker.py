"""The student's side: runs inside the sandbox, one process per submission.

It executes the submission's code cells in an IPython shell, then answers requests
``{"op": "call", "name", "args", "kwargs"}`` by calling the student's function and
returning plain data (``autograder.run.protocol``). It never sees a hidden test or the
reference: it only learns the inputs a test sends. Requests arrive on stdin, one JSON
line each; answers leave on a private copy of stdout; the student's own output goes to
a capped buffer, and fd 1 and 2 point to /dev/null so that C-level output is dropped.
"""

from __future__ import annotations

import base64
import io
import json
import linecache
import os
import resource
import sys
import traceback

import numpy as np

from autograder.run import protocol
from autograder.run.messages import Event, Op, Status, answer, event

OUTPUT_CAP = 20_000  # characters of student output kept for feedback
CPU_GRACE_S = 5      # CPU seconds between RLIMIT_CPU's soft limit (SIGXCPU) and its hard one (SIGKILL)


class CappedStream(io.TextIOBase):
    """A text stream that keeps the first OUTPUT_CAP characters and counts the rest."""

    def __init__(self):
        self.kept: list[str] = []
        self.size = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        room = OUTPUT_CAP - self.size
        if room > 0:
            self.kept.append(s[:room])
            self.size += min(len(s), room)
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def flush(self):
        pass

    def text(self):
        tail = f"\n[... {self.dropped} more characters of output dropped]" if self.dropped else ""
        return "".join(self.kept) + tail


def _short(exc: BaseException, limit: int = 300) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= limit else text[:limit] + " ..."


def set_limits(limits: dict) -> None:
    """Resource limits, set before any student code runs (hard = soft: they cannot be raised; CPU
    time's soft limit only up to its hard one, ``CPU_GRACE_S`` more)."""
    def cap(which, value):
        resource.setrlimit(which, (value, value))

    cap(resource.RLIMIT_CORE, 0)
    cap(resource.RLIMIT_NPROC, int(limits["nproc"]))        # processes and threads of this uid
    cap(resource.RLIMIT_FSIZE, int(limits["fsize_mb"]) << 20)
    cap(resource.RLIMIT_NOFILE, int(limits["nofile"]))
    # CPU time: SIGXCPU at the limit (the grader tells it from a kill), SIGKILL a little later
    # (for a process that ignores it; a pid namespace's first process always does)
    resource.setrlimit(resource.RLIMIT_CPU, (int(limits["cpu_s"]), int(limits["cpu_s"]) + CPU_GRACE_S))
    if limits.get("memory_mb"):
        cap(resource.RLIMIT_AS, int(limits["memory_mb"]) << 20)


def write_files(files: dict) -> None:
    for name, data in files.items():
        if not isinstance(name, str) or "/" in name or name in ("", ".", ".."):
            raise ValueError(f"bad file name {name!r}")
        with open(name, "wb") as fh:
            fh.write(base64.b64decode(data))


def make_shell():
    """The IPython shell the cells run in (one per process: a warm template makes it before it
    forks, so each submission gets a pristine copy)."""
    from IPython.core.interactiveshell import InteractiveShell  # heavy: only here
    from traitlets.config import Config  # with IPython

    config = Config()
    config.HistoryManager.enabled = False  # cells run with store_history=False: no database, no thread
    shell = InteractiveShell.instance(colors="nocolor", config=config)
    # errors are reported through the protocol: this instance's method replaced
    shell.showtraceback = lambda *a, **k: None  # type: ignore[method-assign]
    return shell


def main(limits_json: str = "{}") -> None:

    limits = json.loads(limits_json)
    if limits:
        set_limits(limits)
    out = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)
    captured = CappedStream()
    sys.stdout = sys.stderr = captured

    current = {"id": None}

    def send(msg):
        msg["id"] = current["id"]  # which request this answers: the grader ignores anything else
        line = protocol.dumps(msg)
        if len(line) >= protocol.LINE_CAP:
            line = protocol.dumps(answer(Status.INVALID,
                                         message=f"the answer is larger than {protocol.LINE_CAP >> 20} MB"))
        out.write(line + "\n")
        out.flush()

    shell = make_shell()  # heavy: loaded under the limits (made ahead by a warm template)
    ns = shell.user_ns
    send(event(Event.READY))

    pending = None
    requests = sys.stdin  # the student's code may rebind sys.stdin: the grader's channel is this one
    for line in requests:
        try:
            req = protocol.loads(line)
            op = req["op"]
            current["id"] = req.get("id")
        except Exception as exc:  # noqa: BLE001
            send(answer(Status.PROTOCOL, message=_short(exc)))
            continue
        if op == Op.FILES:
            try:
                write_files(req["files"])
                send(answer(Status.OK))
            except Exception as exc:  # noqa: BLE001
                send(answer(Status.ERROR, message=_short(exc)))
        elif op == Op.RUN_CELLS:
            errors: list[dict] = []
            for index, source in req["cells"]:
                send(event(Event.CELL, index=index))
                try:
                    result = _run_cell(shell, index, source)
                    failure = result.error_in_exec or result.error_before_exec
                except BaseException as exc_:  # noqa: BLE001 - a student may raise anything
                    failure = exc_
                if failure is not None:
                    errors.append({"cell": index, "error": _short(failure)})
            send(answer(Status.OK, errors=errors))
        elif op == Op.CALL:
            reply = _call(ns, req, protocol)
            pending = None
            if reply.get("status") == Status.OK and protocol.wire_bytes(reply["value"]) > protocol.LARGE:
                # a large answer waits until the grader has checked its shape against the contract
                pending, reply = reply, answer(Status.LARGE, skeleton=protocol.skeleton(reply["value"]))
            send(reply)
        elif op == Op.PENDING:  # the grader takes the large answer, or lets it go
            send(pending if pending is not None and req.get("take") else answer(Status.OK))
            pending = None
        elif op == Op.CHECKS:
            send(_checks(ns, shell, req.get("cells") or []))
        elif op == Op.SUBSTITUTE:  # error carried forward: these functions answered by the grader
            for name in req.get("names") or []:
                if isinstance(name, str) and name.isidentifier():
                    ns[name] = _delegate(name, send, requests.readline)
            send(answer(Status.OK))
        elif op == Op.OUTPUT:
            send(answer(Status.OK, value=captured.text()))
        else:
            send(answer(Status.PROTOCOL, message=f"unknown op {op!r}"))


def _delegate(name: str, send, readline):
    """A stand-in for the student's ``name`` whose answers come from the grader (the reference's,
    in a fresh copy of the notebook made to carry an error forward, discarded afterwards)."""
    def delegated(*args, **kwargs):
        generators = []  # random generators go by their state, and come back moved on

        def place(value):
            if isinstance(value, np.random.Generator):
                generators.append(value)
                return f"{protocol.GENERATOR}{len(generators) - 1}"
            return value
        send(event(Event.DELEGATE, name=name, args=protocol.encode([place(a) for a in args]),
                   kwargs=protocol.encode({k: place(v) for k, v in kwargs.items()}),
                   generators=[protocol.generator_state(g) for g in generators]))
        reply = protocol.loads(readline())
        if isinstance(reply, dict) and reply.get("status") == Status.OK:
            for gen, state in zip(generators, reply.get("generators") or []):
                protocol.set_generator_state(gen, state)
            return protocol.decode(reply.get("value"))
        raise RuntimeError(f"{name} gave no answer here")
    delegated.__name__ = delegated.__qualname__ = name
    return delegated


def _call(ns, req, protocol):
    name = req.get("name")
    fn = ns.get(name)
    if not callable(fn):
        return answer(Status.MISSING, message=f"no function named {name!r} is defined in the notebook")
    try:
        args = protocol.decode(req.get("args", []))
        kwargs = protocol.decode(req.get("kwargs", {"__dict__": []}))
        value = fn(*args, **kwargs)
    except NotImplementedError as exc:
        origin = _origin(exc)
        if origin and origin != name:
            return answer(Status.NOT_IMPLEMENTED, origin=origin,
                          message=f"{name} could not run: {origin} is not implemented yet")
        return answer(Status.NOT_IMPLEMENTED, origin=name, message=f"{name} is not implemented yet")
    except BaseException as exc:  # noqa: BLE001
        return answer(Status.ERROR, origin=_origin(exc), message=f"{name} raised {_short(exc)}{_where(exc)}")
    try:
        return answer(Status.OK, value=protocol.encode(value))
    except BaseException as exc:  # noqa: BLE001
        return answer(Status.INVALID, message=f"{name} returned something that is not numbers: {_short(exc)}")


# The notebook's cells by the name IPython compiled them under: an error is placed in the
# student's own code, never in a library's (scipy's line 846 is not the student's line 846).
CELLS: dict[str, tuple[int, str]] = {}


def _run_cell(shell, index: int, source: str):
    """``shell.run_cell``, remembering under which file name the cell's code lives."""
    before = set(linecache.cache)
    try:
        return shell.run_cell(source, store_history=False)
    finally:
        first = next((ln.strip() for ln in source.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
        for name in set(linecache.cache) - before:
            CELLS[name] = (index, first[:60])


def _origin(exc: BaseException) -> str:
    """The function of the student's cells where ``exc`` was raised (the deepest such frame), or ""."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename in CELLS:
            return frame.name if frame.name.isidentifier() else ""
    return ""


def _where(exc: BaseException) -> str:
    """" (line L of your cell N, which starts `...`)": the deepest frame in the student's cells."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename in CELLS:
            index, first = CELLS[frame.filename]
            return f" (line {frame.lineno} of your cell {index + 1}, which starts `{first}`)"
    return ""


def _checks(ns, shell, cells):
    """Run the notebook's public checks: ``cells`` (the check cells' sources) are run with a
    ``check`` that only registers, then every registered check runs once, here."""
    if cells:
        registry = {}

        def check(fn):
            registry[getattr(fn, "__name__", "check")] = fn
            return fn
        ns["_PDL_CHECKS"], ns["check"] = registry, check
        for source in cells:
            try:
                shell.run_cell(str(source), store_history=False)
            except BaseException:  # noqa: BLE001 - a broken check cell is the student's
                pass
    registry = ns.get("_PDL_CHECKS", {})
    results = []
    for name, fn in list(getattr(registry, "items", lambda: [])()):
        doc = (getattr(fn, "__doc__", None) or str(name)).strip().splitlines()
        try:
            fn()
            results.append([doc[0] if doc else str(name), True, "", False])
        except NotImplementedError as exc:  # the release's stubs raise "<name>: replace this line ..."
            missing = str(exc).split(":", 1)[0].strip() if ":" in str(exc) else ""
            what = f"implement {missing} first" if missing.isidentifier() else "implement the functions it uses first"
            results.append([doc[0] if doc else str(name), False, what, True])  # pending: a stub
        except BaseException as exc:  # noqa: BLE001
            results.append([doc[0] if doc else str(name), False, check_failure(exc), False])
    return answer(Status.OK, value=results)


def check_failure(exc: BaseException) -> str:
    """A failed public check's message: the exception's own, or where it has none (a bare
    ``assert``, ``raise ValueError()``) what failed, in words, never an empty one. Self-contained
    but for ``traceback``: the release notebooks' check helper carries this function's source and
    imports ``traceback`` itself (course/checks.py)."""
    kind = type(exc).__name__
    if str(exc).strip():
        text = f"{kind}: {exc}"
        return text if len(text) <= 300 else text[:300] + " ..."
    frames = reversed(traceback.extract_tb(exc.__traceback__))
    line = next((text for f in frames if (text := (f.line or "").strip())), "")
    line = line if len(line) <= 200 else line[:200] + " ..."
    if isinstance(exc, AssertionError):
        return (f"{kind}: the check's condition does not hold" + (f": `{line}`" if line else "")
                + "; the check's code in the notebook shows what it compares")
    return (f"{kind} (raised without a message)" + (f" at `{line}`" if line else "")
            + "; the check's code in the notebook shows what it calls")

if __name__ == "__main__":
    main()
