"""What the grader keeps of the student's answers, test by test (``Ledger``): her answers for the
diagnosis, her calls for charging a failure to the function whose answer failed (``Trace``), and
what she returned, by identity (``identities``), so that no input carrying one is replayed through
the reference."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class Trace:
    """The current test's calls of the student's functions: which were called, what each
    answered (kept by identity), and which was called last; cleared before each test."""

    def __init__(self):
        self.called: list[str] = []
        self.answers: list[tuple[str, object]] = []

    def clear(self) -> None:
        self.called.clear()
        self.answers.clear()

    def call(self, name: str) -> None:
        self.called.append(name)

    def answer(self, name: str, value) -> None:
        self.answers.append((name, value))

    def holder(self, actual) -> str:
        """The function whose answer ``actual`` is (or is part of), "" for none."""
        if actual is not None:
            for name, value in reversed(self.answers):
                if holds(value, actual):
                    return name
        return ""

    def culprit(self, actual=None) -> str:
        """The function whose answer ``actual`` is (or is part of), else the one called last."""
        return self.holder(actual) or (self.called[-1] if self.called else "")


def holds(value, actual, depth: int = 0) -> bool:
    """Whether ``actual`` is the answer ``value`` or a part of it (by identity, to depth 4)."""
    if value is actual or (isinstance(actual, np.ndarray) and actual.base is not None and actual.base is value):
        return True
    if depth >= 4:
        return False
    if isinstance(value, dict):
        return any(holds(v, actual, depth + 1) for v in list(value.values())[:1000])
    if isinstance(value, (list, tuple)):
        return any(holds(v, actual, depth + 1) for v in value[:1000])
    return False


@dataclass
class Ledger:
    """What the grader keeps of one test's calls, held apart from the proxy the tests call (whose
    attributes are the student's functions): the answers, for the diagnosis (``call_log``:
    (name, args, kwargs, value)); the calls, for charging a failure to the function that failed
    (``trace``); what the student's functions returned, by id (kept alive, so no id is reused: an
    input that carries one is never replayed through the reference); whether an answer was large
    (the collector then frees it at once); the calls that raised (``raised``: (name, args, kwargs)),
    for the diagnosis of a function that fails on arrays only."""
    call_log: list = field(default_factory=list)
    raised: list = field(default_factory=list)
    trace: Trace = field(default_factory=Trace)
    returned: dict[int, object] = field(default_factory=dict)
    large_answers: bool = False

    def new_test(self) -> None:
        self.call_log.clear()
        self.raised.clear()
        self.returned.clear()
        self.trace.clear()


def payload_bytes(value) -> int:
    """Roughly how much memory an answer holds (arrays by their bytes, anything else 8 a value)."""
    total, stack = 0, [value]
    while stack:
        x = stack.pop()
        if isinstance(x, np.ndarray):
            total += x.nbytes
        elif isinstance(x, dict):
            stack += list(x.values())
        elif isinstance(x, (list, tuple)):
            total += 8 * len(x)
            stack += list(x)
        else:
            total += 8
    return total


def identities(value) -> dict[int, object]:
    """The objects inside ``value`` that could carry a student's data into another call, by id:
    containers, arrays and numbers (small ints are shared by every Python object: left out)."""
    out: dict[int, object] = {}
    stack = [value]
    while stack and len(out) < 100_000:
        x = stack.pop()
        if isinstance(x, (bool, str)) or x is None or (type(x) is int and -5 <= x <= 256):
            continue
        out[id(x)] = x
        if isinstance(x, dict):
            stack += list(x.values())
        elif isinstance(x, (list, tuple)):
            stack += list(x)
    return out
