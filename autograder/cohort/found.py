"""The mistakes found in a cohort: which students' failing tests named which mistake.

A failing test's diagnoses name catalogued mistakes by their hints
(``TestResult.named_hints``, read from the diagnoses' data); each hint is mapped to its ``wrong`` cell of the
source (``autograder.run.mistakes.read_mistakes``): its description and the functions it
redefines. Other diagnoses (generic ones: a constant factor, a sign, a shape...) are kept as
their text, for the report. ``<out>/mistakes.csv`` lists the catalogued ones.
"""

from __future__ import annotations

import ast
from pathlib import Path

from autograder.cohort.handscores import write_rows
from autograder.cohort.record import CohortSummary
from autograder.run.mistakes import read_mistakes


def _functions(code: str) -> str:
    """The functions a wrong cell defines, by name ("" if it cannot be parsed)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return ""
    return ", ".join(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def mistakes_found(summary: CohortSummary) -> list[dict]:
    """[{"mistake", "function", "hint", "students": sorted ids, "catalogued": bool}], the
    catalogued mistakes first, most students first."""
    try:
        catalogue = {}
        for m in read_mistakes(str(summary.assignment)):
            catalogue.setdefault(m.hint, m)
    except Exception:  # noqa: BLE001 - no source (an old assignment): the hints alone
        catalogue = {}
    found: dict[tuple, set] = {}
    for rec in summary.results:
        for t in rec.tests or []:
            if not t.diagnoses:
                continue
            hints = t.named_hints
            for hint in hints:
                m = catalogue.get(hint)
                key = (True, m.description if m else hint, _functions(m.code) if m else "", hint)
                found.setdefault(key, set()).add(str(rec.student))
            if not hints:
                found.setdefault((False, t.diagnosis, "", ""), set()).add(str(rec.student))
    rows = [{"mistake": k[1], "function": k[2], "hint": k[3], "students": sorted(v), "catalogued": k[0]}
            for k, v in found.items()]
    return sorted(rows, key=lambda r: (not r["catalogued"], -len(r["students"]), r["mistake"]))


def write_mistakes(summary: CohortSummary, path: Path) -> list[dict]:
    """``mistakes.csv``: mistake, function, hint, students (ids, ``;``-separated), names (theirs,
    as written, in the same order; an id where none is known), the catalogued mistakes named
    across the cohort. Returns what ``mistakes_found`` found."""
    found = mistakes_found(summary)
    names = {str(r.student): str(r.name or r.student) for r in summary.results}
    write_rows(path, [["mistake", "function", "hint", "students", "names"]]
               + [[m["mistake"], m["function"], m["hint"], "; ".join(m["students"]),
                   "; ".join(names.get(s, s) for s in m["students"])] for m in found if m["catalogued"]])
    return found
