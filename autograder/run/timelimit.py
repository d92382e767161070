"""Time limits on the grader's own work by CPU time, the wall clock only an outer bound (issue 34,
item 5): a replayed call of the reference or of a known mistake (``diagnose``), a re-run that
carries an error forward (``carry``), a variant graded in-process (``pdl validate``). On a busy
host the wall clock runs several times faster than the work, so a budget in wall-clock seconds
would give a submission fewer diagnoses or fewer credits at load 8 than at load 1; CPU seconds
are the same at any load. The student's own process is limited the same way by the channel
(``channel._Budget``); the outer wall bound is ``settings.wall_bound``.

- ``Allowance(seconds, more)``: a budget of this process's CPU time (all its threads), plus what
  ``more()`` counts (a fresh copy's student process), checked where the work looks (``over()``).
- ``time_limit(seconds, error)``: an interrupt when this process has used ``seconds`` of CPU time
  or ``settings.wall_bound(seconds)`` of wall clock (signals: the main thread only; a limit
  already running outside is kept, and still fires, at the latest right after this one ends).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable

from autograder.run import settings

# (timer, its signal): CPU time of the whole process (every thread), and the wall clock
_TIMERS = ((signal.ITIMER_PROF, signal.SIGPROF), (signal.ITIMER_REAL, signal.SIGALRM))


class Allowance:
    """``seconds`` of CPU time: this process's since it was made, plus ``more()`` (another
    process's CPU seconds, counted from its first reading), and at most
    ``settings.wall_bound(seconds)`` of wall clock."""

    def __init__(self, seconds: float, more: Callable[[], float] | None = None):
        self.seconds = seconds
        self._cpu0 = time.process_time()
        self._wall_end = time.monotonic() + settings.wall_bound(seconds)
        self._more: Callable[[], float] | None = None
        self._more0 = 0.0
        self.count(more)

    def count(self, more: Callable[[], float] | None) -> None:
        """Count ``more()`` too, from now on."""
        self._more, self._more0 = more, (more() if more is not None else 0.0)

    def spent(self) -> float:
        """CPU seconds used so far."""
        extra = self._more() - self._more0 if self._more is not None else 0.0
        return time.process_time() - self._cpu0 + max(extra, 0.0)

    def over(self) -> bool:
        return self.spent() > self.seconds or time.monotonic() > self._wall_end


@contextlib.contextmanager
def time_limit(seconds: float, error: Callable[[str], BaseException] = TimeoutError):
    """Raise ``error(message)`` in the block once this process has used ``seconds`` of CPU time,
    or ``settings.wall_bound(seconds)`` of wall clock. Outside the main thread: no limit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seconds = max(seconds, 1e-3)  # a timer of 0 would be no timer at all
    limits = {timer: seconds if timer == signal.ITIMER_PROF else settings.wall_bound(seconds)
              for timer, _ in _TIMERS}

    def fire(signum, frame):
        if signum == signal.SIGPROF:
            raise error(f"no answer within {seconds:g} s of CPU time")
        raise error(f"no answer within {limits[signal.ITIMER_REAL]:g} s")
    outer = {timer: signal.getitimer(timer)[0] for timer, _ in _TIMERS}
    start = {signal.ITIMER_PROF: time.process_time(), signal.ITIMER_REAL: time.monotonic()}
    old = {sig: signal.signal(sig, fire) for _, sig in _TIMERS}
    for timer, _ in _TIMERS:
        signal.setitimer(timer, min(limits[timer], outer[timer]) if outer[timer] else limits[timer])
    try:
        yield
    finally:
        for timer, sig in _TIMERS:
            signal.setitimer(timer, 0)
            signal.signal(sig, old[sig])
        now = {signal.ITIMER_PROF: time.process_time(), signal.ITIMER_REAL: time.monotonic()}
        for timer, _ in _TIMERS:
            if outer[timer]:
                signal.setitimer(timer, max(outer[timer] - (now[timer] - start[timer]), 1e-3))
