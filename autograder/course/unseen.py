"""The grader's diagnoses on the unseen-mistakes corpus (``benchmarks/unseen_mistakes/``).

The corpus holds student mistakes written apart from the diagnosis engine, one cell each (its
assignment, the wrong function, a kind, a one-sentence ``truth``; format in the corpus README).
Each cell is graded in-process as "reference module + the cell" with the diagnosis on, and what
a student would read is collected: the diagnosis of each failing test (and the test's message).

The diagnoses were judged by hand, as a teacher would, against the cell's ``truth``, ``function``
and ``kind``, and stored in ``benchmarks/unseen_mistakes/judged.csv`` with a short hash of the
diagnosis text judged:

* ``accurate``: the diagnosis names the mistake;
* ``fair``: it names the right function and the right symptom, not the mistake;
* ``none``: no diagnosis;
* ``misleading``: it points to the wrong function, a wrong kind of error or a wrong condition,
  or names a known mistake that is not this one.

``report`` grades the corpus, looks each cell's verdict up by (assignment, mistake) and hash, and
prints the counts per assignment and in total; a cell whose diagnosis changed since it was judged
is listed "to judge again" with its new text, and not counted.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course.generate import module_text
from autograder.course.inprocess import grade_code
from autograder.course.source import load
from autograder.run.paths import REPO

CORPUS = REPO / "benchmarks" / "unseen_mistakes"    # measured on while the engine was improved
HELD_OUT = REPO / "benchmarks" / "heldout_mistakes"  # written later, apart: never looked at to improve it
JUDGED = CORPUS / "judged.csv"
VERDICTS = ("accurate", "fair", "none", "misleading")
FIELDS = ("assignment", "mistake", "kind", "function", "verdict", "reason", "diagnosis_sha")

KINDS = {"factor", "term", "transpose", "ignored-arg", "reseed", "bessel", "array-crash", "branch",
         "off-by-one", "concept", "upstream"}
HEADER = re.compile(r"^# %% mistake: (.+)$", re.M)
# a test message that says only that the answer is off (what the student reads with no lead)
BARE = re.compile(r"differs from the expected value\W*$|\bdiffers\W*$", re.IGNORECASE)
WORDS = ("told", "lead")  # the catalogued rule text, and what a student reads before publication


def corpus_files(assignments=(), corpus: Path = CORPUS) -> list[Path]:
    """The corpus's files, one per assignment (all, or those named)."""
    files = sorted(p for p in Path(corpus).glob("*.py") if p.name != "check.py")
    return [p for p in files if not assignments or p.stem in assignments]


def cells(path: Path) -> list[dict]:
    """The cells of one corpus file: mistake, function, kind, truth, code (the file's preamble,
    imports shared by the cells, followed by the cell)."""
    text = path.read_text()
    starts = [m.start() for m in HEADER.finditer(text)]
    preamble = text[:starts[0]] if starts else text
    out = []
    for i, s in enumerate(starts):
        block = text[s:starts[i + 1] if i + 1 < len(starts) else len(text)]
        meta = dict(re.findall(r"^# (?:%% )?(mistake|function|kind|truth): (.+)$", block, re.M))
        out.append({**meta, "code": preamble + "\n" + block})
    return out


def validate(path: Path, cs: list[dict]) -> list[str]:
    """Format problems of one corpus file's cells (empty when it is well formed)."""
    problems, names = [], set()
    for c in cs:
        for key in ("mistake", "function", "kind", "truth"):
            if not c.get(key):
                problems.append(f"{path.name}: a cell lacks '# {key}:'")
        if c.get("mistake") in names:
            problems.append(f"{path.name}: mistake name {c['mistake']!r} twice")
        names.add(c.get("mistake"))
        kind = c.get("kind", "").split()[0] if c.get("kind") else ""
        if kind not in KINDS:
            problems.append(f"{path.name}: {c.get('mistake')}: unknown kind {c.get('kind')!r}")
        try:
            tree = ast.parse(c["code"])
        except SyntaxError as e:
            problems.append(f"{path.name}: {c.get('mistake')}: syntax error {e}")
            continue
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        if c.get("function") and c["function"].split()[0] not in defined:
            problems.append(f"{path.name}: {c.get('mistake')}: does not define {c['function']}")
    return problems


def diagnosis_sha(text: str) -> str:
    """The short hash a verdict is stored with."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass
class Graded:
    """What a student who made one corpus mistake reads."""
    assignment: str
    mistake: str
    kind: str
    function: str
    truth: str
    failing: list = field(default_factory=list)  # [(test, message, diagnosis)] of the failing tests
    error: str = ""                               # the grader itself failed
    # the same tests in the words a student reads before publication: [(test, message, lead)]
    # (``TestResult.message_before_publication``, ``TestResult.hint(tell=False)``)
    first_reading: list = field(default_factory=list)

    def hints(self, words: str = "told") -> list[str]:
        """The distinct diagnoses shown on its failing tests, in the order of the tests, in the
        told words (the catalogued rule text: the TA's, and the student's after publication) or the
        ``lead`` (what the student reads first)."""
        out: list[str] = []
        for _, _, d in (self.first_reading if words == "lead" else self.failing):
            if d and d not in out:
                out.append(d)
        return out

    def diagnosis(self, words: str = "told") -> str:
        return "\n".join(self.hints(words))

    def sha(self, words: str = "told") -> str:
        return diagnosis_sha(self.diagnosis(words))

    @property
    def bare(self) -> bool:
        """What the student reads first says no more than that an answer differs: no lead on any
        failing test, and every failing test's message only "differs"."""
        return bool(self.first_reading) and not self.hints("lead") and all(
            BARE.search(m or "") for _, m, _ in self.first_reading)


def grade(assignment: str, corpus: Path = CORPUS) -> list[Graded]:
    """Every cell of ``assignment``'s corpus file graded with the diagnosis on."""
    reference = module_text(load(assignment))  # the reference module, as check.py grades it
    out = []
    for c in cells(Path(corpus) / f"{assignment}.py"):
        g = Graded(assignment, c["mistake"], c["kind"], c["function"], c["truth"])
        try:
            results, _ = grade_code(assignment, reference + "\n\n\n" + c["code"])
        except Exception as e:  # noqa: BLE001 - the grader itself broke: reported, not judged
            g.error = f"{type(e).__name__}: {e}"
        else:
            shown = [r for r in results if not r.passed or r.diagnosis]
            g.failing = [(r.name, r.message, r.diagnosis) for r in shown]
            g.first_reading = [(r.name, r.message_before_publication, r.hint(False))
                               for r in shown]
        out.append(g)
    return out


def read_judged(path: Path = JUDGED) -> dict:
    """{(assignment, mistake): row} of the stored verdicts."""
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        return {(r["assignment"], r["mistake"]): r for r in csv.DictReader(f)}


def _counts(rows: list[str]) -> str:
    n = len(rows)
    return "  ".join(f"{v} {rows.count(v):3d} ({rows.count(v) / n if n else 0:4.0%})" for v in VERDICTS)


def _print(*args) -> None:
    print(*args, flush=True)


def judged_file(corpus: Path, words: str) -> Path:
    """Where a corpus's verdicts on ``words`` are kept: judged.csv (told), judged_lead.csv (lead)."""
    return Path(corpus) / ("judged.csv" if words == "told" else f"judged_{words}.csv")


def report(assignments=(), log=_print, judged_path: Path | None = None, corpus: Path = CORPUS,
           words: str = "told", graded: dict | None = None) -> dict:
    """Grade the corpus (``corpus``: a folder in this format; ``graded``: {assignment: [Graded]}
    where already graded), look each cell's verdict on ``words`` up (``told``: the catalogued
    rule text; ``lead``: what a student reads before publication; in ``judged_path``, by default
    ``judged_file``) and print the counts per assignment and in total, every misleading diagnosis
    with its reason, and the cells to judge (again); for the lead, how many cells read a bare
    "differs". Returns {"counts": {verdict: n}, "misleading": [...], "to_judge": [...], "cells": n, "bare": n}."""
    judged = read_judged(judged_path or judged_file(corpus, words))
    everything: list[str] = []
    misleading, to_judge = [], []
    bare = total = 0
    log(f"{'assignment':28s} {'cells':>5s}  verdicts on the {words} words (judged cells)")
    for path in corpus_files(assignments, corpus):
        mine: list[str] = []
        cells_here = graded[path.stem] if graded is not None and path.stem in graded else grade(path.stem, corpus)
        if graded is not None:
            graded[path.stem] = cells_here
        for g in cells_here:
            total += 1
            bare += g.bare
            row = judged.get((g.assignment, g.mistake))
            if g.error or row is None or row["diagnosis_sha"] != g.sha(words):
                to_judge.append((g, row))
                continue
            mine.append(row["verdict"])
            if row["verdict"] == "misleading":
                misleading.append((g, row))
        everything += mine
        log(f"{path.stem:28s} {len(mine):5d}  {_counts(mine)}")
    log(f"{'TOTAL':28s} {len(everything):5d}  {_counts(everything)}")
    if words == "lead":
        log(f"BARE 'differs' (no lead, every failing test's message only 'differs'): {bare} of {total} cells"
            f" ({bare / total if total else 0:.0%})")
    for g, row in misleading:
        log(f"MISLEADING {g.assignment}:{g.mistake} ({g.kind}; {g.function}): {row['reason']}")
    for g, row in to_judge:
        why = ("the grader failed: " + g.error if g.error else "not judged" if row is None
               else f"diagnosis changed since judged ({row['verdict']})")
        log(f"TO JUDGE AGAIN {g.assignment}:{g.mistake} sha {g.sha(words)} ({why})")
        log(f"    function: {g.function}; kind: {g.kind}")
        log(f"    truth: {g.truth}")
        for test, message, diagnosis in (g.first_reading if words == "lead" else g.failing):
            log(f"    {test}: {diagnosis or '(no diagnosis)'}")
            log(f"        message: {(message or '').splitlines()[0][:200] if message else ''}")
    return {"counts": {v: everything.count(v) for v in VERDICTS}, "cells": len(everything),
            "misleading": misleading, "to_judge": to_judge, "bare": bare}
