"""What a student reads of a test message before grades are published (issue 43, item 4).

A hidden test's message names what it checked, often with the call and its inputs
(``quanta_loss(m, alpha=0.570, delta=1.7, None): differs from the expected value``, the ``name=``
of ``assert_close``), and a student's own exception text may repeat an input she was given. Hidden
inputs and reference values are secrets until grades are published: before, every number of a
message that is one of the test's hidden inputs (the arguments it passed to her functions, from
the grader's call ledger) or a value of the expected answer (``Shown.reference``) is taken out, at
the precision it is printed, and a call that showed one is named by its role instead
(``quanta_loss on the hidden inputs``). The numbers the engine itself writes (how many entries are
off, by how many times the tolerance or standard errors) are not inputs and stay.

The decision is made once, ``TestResult.message_before_publication`` (``autograder.run.record``);
every view that a student reads before publication reads it. ``secrets_of`` collects the numbers
while the test's calls are still in the ledger.
"""

from __future__ import annotations

import re

import numpy as np

from autograder.run.shown import numbers

MAX_SECRETS = 2000  # numbers of one test kept for redaction (single numbers first)
HIDDEN = "…"
ROLE = "{name} on the hidden inputs"
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
# text the engine writes around a comparison: its numbers are counts and tolerances, not secrets
ENGINE = re.compile(r"\(\d+ of \d+ entries off, worst by [^)]*? the tolerance\)"
                    r"|by \S+ standard errors where \S+ are allowed \(\d+ of \d+ entries off\)"
                    r"|wrong shape \([^)]*\), expected \([^)]*\)"
                    r"|expected a sequence of \d+ values")
_CALL = re.compile(r"([A-Za-z_][\w.]*)\(")


def secrets_of(ledger, shown=None) -> list[float]:
    """The numbers of one test a student may not read before publication: every argument the test
    passed to her functions (``ledger``: the grader's call ledger, its answered and raised calls)
    and the expected value of its failed comparison (``shown.reference``)."""
    inputs: list = []
    if ledger is not None:
        inputs = [(args, kwargs) for _, args, kwargs, *_ in [*ledger.call_log, *ledger.raised]]
    found = list(numbers(inputs, MAX_SECRETS))
    if shown is not None:
        found += [float(v) for v in shown.reference]
    return list(dict.fromkeys(found))


def _tolerance(token: str) -> float:
    """Half a unit of the last digit ``token`` is printed with."""
    low = token.lower()
    digits, _, exp = low.partition("e")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return 0.5 * 10.0 ** ((int(exp) if exp else 0) - decimals) * (1 + 1e-9)


def trivial(token: str) -> bool:
    """A number no secret is read from: an integer -2 to 2 (0, 1, 2: a count, an index, a factor)."""
    return re.fullmatch(r"-?\d+", token) is not None and abs(int(token)) <= 2


def shows(token: str, values) -> bool:
    """Whether the number ``token`` shows one of ``values`` at the precision it is printed with."""
    if trivial(token) or not len(values):
        return False
    x = abs(float(token))
    return bool(np.any(np.abs(np.abs(np.asarray(values, dtype=float)) - x) <= _tolerance(token)))


def _protected(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in ENGINE.finditer(text)]


def _closing(text: str, start: int) -> int:
    """The index just past the parenthesis that closes the one at ``start`` (-1 for none)."""
    depth = 0
    for k in range(start, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                return k + 1
    return -1


def redact(text: str, secrets, loose: bool = False) -> str:
    """``text`` with every number that shows one of ``secrets`` taken out: a call with one among
    its arguments named by its role (``ROLE``), any other such number replaced by ``HIDDEN``.
    ``loose`` (a record that kept no secrets, written before they were kept): every number among
    a call's arguments or after ``=`` that is not trivial is taken as one."""
    if not text:
        return text
    keep = _protected(text)
    values = np.asarray([v for v in secrets or () if np.isfinite(v)], dtype=float)
    marked = []
    for m in NUMBER.finditer(text):
        s, e = m.span()
        if any(a <= s < b for a, b in keep):
            continue
        token = m.group()
        if shows(token, values) or (loose and not trivial(token) and _argument_like(text, s)):
            marked.append((s, e))
    if not marked:
        return text
    spans: list[tuple[int, int, str]] = []  # (start, end, replacement), outermost calls first
    for m in _CALL.finditer(text):
        open_at = m.end() - 1
        close = _closing(text, open_at)
        if close < 0 or any(a < m.start() < b for a, b, _ in spans):
            continue
        if any(open_at < s < close for s, _ in marked):
            spans.append((m.start(), close, ROLE.format(name=m.group(1))))
    for s, e in marked:
        if not any(a <= s < b for a, b, _ in spans):
            spans.append((s, e, HIDDEN))
    out, at = [], 0
    for s, e, new in sorted(spans):
        if s < at:
            continue
        out += [text[at:s], new]
        at = e
    return "".join(out + [text[at:]])


def _argument_like(text: str, s: int) -> bool:
    """A number written as an argument: after ``=`` or inside a call's parentheses."""
    before = text[max(0, s - 2):s].rstrip()
    if before.endswith("="):
        return True
    depth = 0
    for ch in reversed(text[:s]):
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                return True
            depth -= 1
    return False
