"""The graded party, as the grader sees it: what the collector (``run/collector.py``) and error
carried forward (``run/carry.py``) ask of a student proxy besides her functions (``GradedStudent``),
and the defaults of a proxy with no ledger, no fresh copies and no process of its own
(``StudentBase``).

Any other attribute of a proxy is one of the student's functions (its ``__getattr__``): the names
declared here are never graded functions. Implemented by the sandbox's proxy
(``proxy.SandboxStudent``), the in-process one (``testing.LocalStudent``) and the recording
in-process one of the course's checks (``course/inprocess.RecordingStudent``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from autograder.run.ledger import Ledger


class GradedStudent(Protocol):
    """A student proxy: her graded functions as attributes, and what the grader keeps of them."""

    @property
    def ledger(self) -> Ledger | None:
        """What the grader keeps of this test's calls (the diagnosis needs it); None where her
        answers are not recorded."""

    @property
    def can_copy(self) -> bool:
        """Whether ``fresh_copy`` makes copies (error carried forward needs them)."""

    def sources(self) -> list[str]:
        """The code of her cells (to read which functions call which); [] where unknown."""

    def fresh_copy(self, substitute: frozenset, delegate: Any,
                   limit_s: float) -> AbstractContextManager[GradedStudent]:
        """A fresh copy of her notebook, ``substitute`` answered by ``delegate``
        (``carry.Delegate``), for a re-run under ``limit_s``: closed when the block ends."""

    def copies_from(self, assignment: str) -> AbstractContextManager[object]:
        """Held while fresh copies are made (the sandbox's: the warm template they fork from)."""

    def cpu_seconds(self) -> float | None:
        """CPU seconds her own processes have used; None where she runs in the grader's process
        (its CPU time counts her calls already)."""

    def close(self) -> None:
        """End what runs her code (a no-op in-process)."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        """Her function ``name``, called with the test's inputs."""


class StudentBase:
    """``GradedStudent``'s defaults: no ledger, no copies, no code to read, nothing of her own
    running (a subclass gives ``__getattr__``, her functions)."""

    ledger: Ledger | None = None

    @property
    def can_copy(self) -> bool:
        return False

    def sources(self) -> list[str]:
        return []

    def fresh_copy(self, substitute: frozenset, delegate: Any,
                   limit_s: float) -> AbstractContextManager[GradedStudent]:
        raise NotImplementedError(f"{type(self).__name__} makes no fresh copies")

    def copies_from(self, assignment: str) -> AbstractContextManager[object]:
        return contextlib.nullcontext()

    def cpu_seconds(self) -> float | None:
        return None

    def close(self) -> None:
        pass

