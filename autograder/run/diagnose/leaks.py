"""No reference value in a diagnosis: the numbers a text shows that a reference returned."""

from __future__ import annotations

import re

import numpy as np

from autograder.run.diagnose.generic import _finite_arrays

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def numbers_of(value) -> list[float]:
    """Every finite number in a (nested) answer."""
    return [float(v) for arr in _finite_arrays(value) for v in arr]


_REFERENCE = re.compile(r"(?:Sections?|Exercises?|Ex|Figures?|Fig\.|Appendix|App\.|eqs?\.|Chapter)\s*\(?$")


_LIST = re.compile(r"^\)?(?:\([a-z](?:,\s*[a-z])*\))?\s*(?:–|-|,|and|, and)\s*\(?$")


def _references(text: str) -> set:
    """Start positions of the numbers that point into the notes (Section 2.4, eq. (2.24),
    Exercises 7.2 and 7.3, eqs. (3.26)–(3.30)): not values."""
    refs, previous = set(), None
    for m in _NUMBER.finditer(text):
        s, e = m.span()
        before = text[max(0, s - 16):s]
        equation = s > 0 and text[s - 1] == "(" and text[e:e + 1] == ")" and "." in m.group()
        listed = previous is not None and previous[0] in refs and _LIST.match(text[previous[1]:s])
        if _REFERENCE.search(before) or equation or listed:
            refs.add(s)
        previous = (s, e)
    return refs


def leaked_numbers(text: str, values) -> list[str]:
    """The numbers written in ``text`` that show a value of ``values`` (numbers the reference
    returned). Small integers (|v| < 100: counts, shapes, factors such as 2) are not evidence,
    nor are references into the notes (Section 2.4, eq. (2.24))."""
    leaked: list[str] = []
    values = [v for v in values if not (float(v).is_integer() and abs(v) < 100)]
    if not values:
        return leaked
    arr = np.array(values)
    refs = _references(text)
    for m in _NUMBER.finditer(text):
        token = m.group()
        if m.start() in refs:
            continue
        x = float(token)
        if "." in token or "e" in token.lower():
            digits = token.lower().split("e")[0]
            decimals = len(digits.split(".")[1]) if "." in digits else 0
            exponent = int(token.lower().split("e")[1]) if "e" in token.lower() else 0
            tol = 0.5 * 10.0 ** (exponent - decimals)
        elif abs(x) < 100:
            continue
        else:
            tol = 0.5
        if np.any(np.abs(np.abs(arr) - abs(x)) <= tol):
            leaked.append(token)
    return leaked
