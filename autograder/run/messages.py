"""Every message between the grader and the processes it starts, declared in one place.

Three conversations, each one JSON object per line (``autograder.run.protocol``):

- **grader ↔ student's process** (``run/channel.py`` and ``run/proxy.py`` ↔ ``run/worker.py``):
  requests carry an ``op`` (``Op``) and an ``id``; the process answers with a ``status``
  (``Status``) or, while it works, says an ``event`` (``Event``). An ``Op.ANSWER`` goes back to
  it only after its ``Event.DELEGATE`` (error carried forward: ``run/carry.py``).
- **grader ↔ warm template** (``run/templates.py`` ↔ ``run/template.py``): ``Op.SPAWN`` and
  ``Op.KILL``; the template says ``{"ready": true, "preloaded": [...]}`` once (``ready``).
- **grader ↔ bounded child** (``run/bounded.py``): the child streams what its work sends, then
  its usage (``usage``) or the exception that ended it (``failure``).

The student's process imports this module (it is copied into the sandbox with the worker), so it
uses the standard library only. Values are ``str`` enums: they are the strings on the wire, so a
message written with them is the same JSON as one written by hand, and a received ``"call"``
compares equal to ``Op.CALL``.
"""

from __future__ import annotations

from enum import Enum


class Op(str, Enum):
    """A request's ``op``."""
    FILES = "files"            # {"files": {name: base64}}: the submission's data files
    RUN_CELLS = "run_cells"    # {"cells": [[index, source], ...]}: run the notebook's cells
    CALL = "call"              # {"name", "args", "kwargs"}: call the student's function
    PENDING = "pending"        # {"take": bool}: take the large answer announced, or let it go
    CHECKS = "checks"          # {"cells": [...]}: run the public checks (value: [[description, passed,
    #                            message, pending], ...])
    SUBSTITUTE = "substitute"  # {"names": [...]}: these functions answered by the grader
    OUTPUT = "output"          # the student's captured output
    ANSWER = "answer"          # the grader's answer to an Event.DELEGATE
    SPAWN = "spawn"            # template: fork a student's process {"id", "limits", "env"} (+ 3 fds)
    KILL = "kill"              # template: kill the fork {"id"}

    def __str__(self) -> str:
        return self.value


class Status(str, Enum):
    """An answer's ``status``."""
    OK = "ok"
    ERROR = "error"                  # the student's code raised ({"message", "origin"})
    NOT_IMPLEMENTED = "not_implemented"
    MISSING = "missing"              # no function of that name
    INVALID = "invalid"              # an answer that is not plain data, or too large
    LARGE = "large"                  # a large answer, announced by its skeleton first
    PROTOCOL = "protocol"            # a request the process could not read

    def __str__(self) -> str:
        return self.value


class Event(str, Enum):
    """What the student's process says while it works (``event``)."""
    READY = "ready"        # started, the shell made
    CELL = "cell"          # {"index"}: running this cell now
    DELEGATE = "delegate"  # {"name", "args", "kwargs", "generators"}: asks the grader to answer

    def __str__(self) -> str:
        return self.value


def request(op: Op, **fields) -> dict:
    """A request to the student's process or a template."""
    return {"op": op.value, **fields}


def answer(status: Status, **fields) -> dict:
    """An answer of the student's process (or the grader's answer to a delegate)."""
    return {"status": status.value, **fields}


def event(kind: Event, **fields) -> dict:
    """An event of the student's process."""
    return {"event": kind.value, **fields}


def usage(peak_mb: float, cpu_s: float) -> dict:
    """A bounded child's last line when its work ended: what it used."""
    return {"peak_mb": peak_mb, "cpu_s": cpu_s}


def failure(exc: BaseException) -> dict:
    """A bounded child's last line when its work raised."""
    return {"exception": type(exc).__name__, "message": str(exc)[:4000]}


# -- the warm template's side (``run/template.py``): each keyed by what it reports ----------------
def ready(preloaded: list) -> dict:
    """The template started, with these modules imported."""
    return {"ready": True, "preloaded": preloaded}


def spawned(ident: str, pid: int) -> dict:
    """The fork for request ``ident`` runs, as ``pid`` in the template's pid namespace."""
    return {"spawned": ident, "pid": pid}


def refused(ident: str, why: str) -> dict:
    """The fork for request ``ident`` could not be made."""
    return {"refused": ident, "why": why}


def exited(ident: str, code: int) -> dict:
    """The fork for request ``ident`` ended with exit status ``code``."""
    return {"exit": ident, "code": code}
