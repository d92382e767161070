"""Which submissions look alike: ``similarity.csv``, ``similarity.html`` and a section of the
cohort report. Three signals, each compared for every pair of students:

* **code** (``code_pairs``): the cells tagged ``graded`` of each submission, read again with
  ``load_submission`` (streamed, capped) from the record's ``submission`` path, joined in order and
  cut at ``CODE_MAX_CHARS``. ``copydetect`` (winnowing fingerprints, as MOSS) tokenizes them with
  Pygments (names, strings, comments and layout filtered out, so renamed variables still match)
  and fingerprints k-grams of ``CODE_K`` characters; every fingerprint of the release's graded
  cells (the stubs, their docstrings and comments) is boilerplate and never counts. A pair's
  shares are the fractions of each side's own (non-template) code found in the other;
  ``score`` is the larger. Flagged: score >= ``CODE_FLAG_SHARE`` with at least
  ``CODE_MIN_SHARED`` shared tokens. A notebook with no fingerprint outside the template
  (untouched, template only) is never compared.
* **written** (``written_pairs``): each written question's answers (records' ``manual``),
  NFKC-normalised, case-folded, whitespace collapsed, fingerprinted by copydetect as plain text
  with the question's prompt as boilerplate. Blank answers (*Your answer here.*, nbgrader's
  placeholder, no cell) and answers under ``WRITTEN_MIN_CHARS`` characters are not compared.
  Flagged: both shares >= ``WRITTEN_FLAG_SHARE`` (identical or near-identical); flagged pairs of
  one question are joined into groups.
* **behaviour** (``behaviour_pairs``): the hidden tests a student's functions *answered wrong*
  (failed, not with "not implemented", a timeout or a crash) and the catalogued mistakes the
  diagnoses name (``TestResult.named_hints``: a known wrong variant of the reference). A wrong-test set or a
  mistake is rare when at most ``max(2, RARE * students)`` students have it. Listed: a pair with
  the same rare non-empty wrong-test set or a shared rare mistake; flagged: both.

Found by an index, not by comparing every pair (``_Index``; issue 37, item 4): a submission's
fingerprints are computed once per distinct text (a cohort's many identical notebooks cost one),
an inverted index of the fingerprints (a sparse students x fingerprints matrix, multiplied by its
transpose) yields the pairs of texts that share at least one, and only those are compared, by
``_Print.compare``, copydetect's ``compare_files`` vectorised (the same numbers). Behaviour pairs
come from the groups of students with the same rare set or mistake. The side-by-side HTML of a
pair (``Pair.show``) is made for the pairs shown on the page only. The flagged pairs, and every
number of every pair, are those of the all-pairs comparison (tests/test_similarity.py).

Everything here is computed from hostile bytes and shown as text: pages go through
``pages.page`` (sanitized, no script) and the CSV through ``write_rows`` (formulas neutralised).
"""

from __future__ import annotations

import html
import io
import json
import os
import stat
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from autograder.cohort import markup
from autograder.cohort.grade import _write_atomic
from autograder.cohort.handscores import write_rows
from autograder.cohort.pages import answer_state, page, questions_of, troubled
from autograder.cohort.record import CohortSummary, Record
from autograder.run.notebook import SubmissionError, code_cells, load_release, load_submission

CODE_K = 25              # characters of filtered code in one fingerprinted k-gram (copydetect's noise threshold)
CODE_MAX_CHARS = 50_000  # of one student's graded code compared and shown
WHOLE_READ_MB = 2        # a graded notebook under this is parsed whole to read its code (read_code)
CODE_FLAG_SHARE = 0.8    # flagged: this fraction of one side's own code is in the other ...
CODE_MIN_SHARED = 150    # ... and at least this many filtered tokens are shared
WRITTEN_K = 25
WRITTEN_MIN_CHARS = 40   # shorter answers are not compared ("Yes." alike proves nothing)
WRITTEN_FLAG_SHARE = 0.8
RARE = 0.1               # a behaviour of at most max(2, RARE * students) students is rare
SHOWN = 10               # pairs of each kind shown side by side on similarity.html
LISTED = 200             # pairs of each kind in similarity.html's table (all of them in similarity.csv)
REPORTED = 20            # flagged pairs of each kind in the cohort report's section (all on similarity.html)


@dataclass
class Pair:
    kind: str            # code | written | behaviour
    a: str
    b: str
    score: float
    flagged: bool
    question: str = ""
    share_a: float = 0.0
    share_b: float = 0.0
    shared: int = 0
    evidence: str = ""
    sides: tuple = ("", "")  # HTML of each side for the side-by-side view (escaped here): see ``shown``
    show: Callable[[], tuple] | None = field(default=None, repr=False, compare=False)  # makes ``sides``

    def shown(self) -> tuple:
        """``sides``, made now if they were left to ``show`` (only the pairs on the page need them)."""
        if self.show is not None:
            self.sides, self.show = self.show(), None
        return self.sides


@dataclass
class Similarity:
    pairs: list = field(default_factory=list)
    groups: list = field(default_factory=list)   # (question, [students]) of flagged written answers
    notes: list = field(default_factory=list)

    def of(self, kind: str) -> list:
        return [p for p in self.pairs if p.kind == kind]


def _copydetect():
    import copydetect  # heavy (imports matplotlib.pyplot, numpy): only when a cohort's outputs are written
    return copydetect


# -- code ------------------------------------------------------------------------------------
def graded_code(nb: dict) -> str:
    """The cells tagged ``graded`` of a parsed notebook, joined in order."""
    return "\n\n".join(source for _, source, tags in code_cells(nb) if "graded" in tags)


def _parsed_whole(path: Path) -> dict | None:
    """A small nbformat-4 notebook parsed whole (``json.loads``: milliseconds, where the streamed
    reader takes 80 ms for 400 KB of figures); None for anything else: a file over
    ``WHOLE_READ_MB``, not JSON, an nbformat 3 notebook (``load_submission`` reads those)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO must not block
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > WHOLE_READ_MB << 20:
                return None
            nb = json.loads(fh.read(WHOLE_READ_MB << 20))
    except (OSError, ValueError, RecursionError):
        return None
    plain = isinstance(nb, dict) and nb.get("nbformat") == 4 and "worksheets" not in nb
    return nb if plain and isinstance(nb.get("cells"), list) else None


def read_code(rec: Record) -> tuple[str | None, str]:
    """(graded code, "") of a record's submission, or (None, why it was not read). A notebook the
    grader read (the record is graded, not unreadable) of under ``WHOLE_READ_MB`` is parsed whole:
    within the limits the grader's streamed reader (``load_submission``) checked, both give the same
    code (tests/test_similarity.py); any other is read as the grader reads it."""
    path = rec.submission
    if not path:
        return None, "no submission file in the record"
    nb = _parsed_whole(Path(str(path))) if rec.graded and not rec.unreadable else None
    try:
        code = graded_code(nb if nb is not None else load_submission(Path(str(path)))[1])
    except SubmissionError as exc:
        return None, f"not read ({exc})"
    if len(code) > CODE_MAX_CHARS:
        return code[:CODE_MAX_CHARS], f"only the first {CODE_MAX_CHARS} characters of its graded code compared"
    return code, ""


def _fingerprint(text: str, k: int, boilerplate, *, code: bool):
    cd = _copydetect()
    return cd.CodeFingerprint("cell.py" if code else "answer.txt", k, 1, boilerplate=boilerplate, filter=code,
                              language="python" if code else None, fp=io.StringIO(text))


def _boilerplate(texts: list[str], k: int, *, code: bool):
    import numpy as np  # numpy arrays are what copydetect takes as boilerplate
    hashes: set = set()
    for text in texts:
        if text:
            hashes |= _fingerprint(text, k, None, code=code).hashes
    return np.unique(np.array(sorted(hashes), dtype=np.int64))


def _marked(text: str, slices) -> str:
    """``text`` escaped, the copied slices in <mark>."""
    if slices is None or len(slices) == 0 or slices.shape[1] == 0:
        return html.escape(text)
    out, at = [], 0
    for start, end in zip(slices[0].astype(int), slices[1].astype(int)):
        start, end = max(start, at), max(end, at)
        out.append(html.escape(text[at:start]) + "<mark>" + html.escape(text[start:end]) + "</mark>")
        at = end
    return "".join(out) + html.escape(text[at:])


class _Print:
    """One distinct text's copydetect fingerprint, laid out to be compared with many: its hashes
    sorted, and the places hashes were taken (``at``, in order), each with its hash; ``_overlapping``
    numbers every hash of the cohort (``ids``, ``at_id``: indexes into one table)."""

    def __init__(self, fp):
        import numpy as np  # heavy: only when a cohort's outputs are written
        self.fp = fp
        keys = list(fp.hash_idx)
        at_hash = np.repeat(np.array(keys, dtype=np.int64), [len(fp.hash_idx[h]) for h in keys])
        at = np.array([i for h in keys for i in fp.hash_idx[h]], dtype=np.int64)
        order = np.argsort(at, kind="stable")
        self.hashes = np.array(sorted(fp.hashes), dtype=np.int64)
        self.at, self.at_hash = at[order], at_hash[order]
        self.ids = self.at_id = None
        self.table = 0  # the number of hashes in the cohort

    def compare(self, other: _Print) -> tuple:
        """copydetect's ``compare_files(self.fp, other.fp)`` for both sides at once: (tokens of each
        side in copied slices, each side's share, each side's slices of its filtered code), the
        same numbers: the places whose hash the other side has, cut into slices where they are more
        than k - 1 apart (``utils.get_copied_slices``)."""
        import numpy as np  # heavy: only when a cohort's outputs are written
        seen = np.zeros(self.table, dtype=bool)
        seen[other.ids] = True
        mine = self.at[seen[self.at_id]]
        if not len(mine):
            return (0, 0), (0, 0), None
        seen[other.ids] = False
        seen[self.ids] = True
        theirs = other.at[seen[other.at_id]]
        k = self.fp.k
        slices = _slices(mine, k), _slices(theirs, k)
        tokens = tuple(int(np.sum(x[1] - x[0])) for x in slices)
        shares = (tokens[0] / self.fp.token_coverage if len(self.fp.filtered_code) > 0 else 0,
                  tokens[1] / other.fp.token_coverage if len(other.fp.filtered_code) > 0 else 0)
        return tokens, shares, slices

    def raw_slices(self, slices):
        """Slices of the filtered code as slices of the raw code (as ``compare_files`` returns them)."""
        import numpy as np  # heavy: only when a cohort's outputs are written
        offsets = self.fp.offsets
        if len(offsets) > 0:
            slices = slices + offsets[:, 1][np.clip(np.searchsorted(offsets[:, 0], slices), 0, offsets.shape[0] - 1)]
        return slices


def _slices(at, k: int):
    """copydetect's ``get_copied_slices`` of places already sorted: [starts, ends]."""
    import numpy as np  # heavy: only when a cohort's outputs are written
    gaps = np.flatnonzero(np.diff(at) > k - 1)
    return np.array([np.concatenate(([at[0]], at[gaps + 1])), np.concatenate((at[gaps] + k, [at[-1] + k]))])


def _overlapping(prints: list[_Print]) -> list[tuple[int, int]]:
    """Numbers every hash of ``prints`` (``_Print.ids``), and returns the pairs (i < j) that share
    at least one: the inverted index of the hashes as a sparse matrix (texts x hashes) times its
    transpose."""
    import numpy as np  # heavy: only when a cohort's outputs are written
    from scipy import sparse  # heavy: only when a cohort's outputs are written
    if not prints:
        return []
    sizes = [len(p.hashes) for p in prints]
    every = np.concatenate([p.hashes for p in prints])
    hashes, number = np.unique(every, return_inverse=True)
    ends = np.cumsum(sizes)
    for p, end, size in zip(prints, ends, sizes):
        p.ids = number[end - size:end]
        p.at_id = p.ids[np.searchsorted(p.hashes, p.at_hash)]
        p.table = len(hashes)
    if len(prints) < 2:
        return []
    rows = np.repeat(np.arange(len(prints)), sizes)
    m = sparse.csr_matrix((np.ones(len(every), dtype=np.int32), (rows, number)), shape=(len(prints), len(hashes)))
    shared = sparse.triu(m @ m.T, k=1).tocoo()
    return sorted(zip(shared.row.tolist(), shared.col.tolist()))


def _index(texts: dict[str, str], fingerprint) -> tuple[list[str], list, dict[str, int]]:
    """The distinct texts of ``texts`` (student -> text), each fingerprinted once: (the texts, their
    fingerprints, student -> the index of hers)."""
    distinct: dict[str, int] = {}
    of = {}
    for student, text in texts.items():
        of[student] = distinct.setdefault(text, len(distinct))
    order = list(distinct)
    return order, [fingerprint(t) for t in order], of


def _student_pairs(members: dict[int, list[str]], i: int, j: int):
    """The pairs of students (a < b) with texts ``i`` and ``j`` (the same text when i == j), each
    with whether a holds text i."""
    if i == j:
        for a, b in combinations(sorted(members[i]), 2):
            yield a, b, True
        return
    for x in members[i]:
        for y in members[j]:
            yield (x, y, True) if x < y else (y, x, False)


def code_pairs(codes: dict[str, str], template: str) -> tuple[list[Pair], list[str]]:
    """Pairs of students whose graded code overlaps outside the template, and the students whose
    code is the template only. Each distinct code is fingerprinted once; only the codes that share
    a fingerprint (the index) are compared."""
    boiler = _boilerplate([template], CODE_K, code=True)
    _, fps, of = _index(codes, lambda code: _fingerprint(code, CODE_K, boiler, code=True))
    template_only = sorted(s for s, i in of.items() if not fps[i].hashes)
    kept = {i: n for n, i in enumerate(i for i, fp in enumerate(fps) if fp.hashes)}  # texts with own code
    prints = [_Print(fps[i]) for i in kept]
    members: dict[int, list[str]] = {}
    for student, i in of.items():
        if i in kept:
            members.setdefault(kept[i], []).append(student)
    pairs = []
    overlapping = _overlapping(prints)
    same = [(i, i) for i, group in members.items() if len(group) > 1]
    for i, j in same + overlapping:
        tokens, shares, slices = prints[i].compare(prints[j])
        if not tokens[0]:
            continue
        for a, b, forward in _student_pairs(members, i, j):
            x, y = (0, 1) if forward else (1, 0)
            pa, pb = (prints[i], prints[j]) if forward else (prints[j], prints[i])
            shared, share_a, share_b = tokens[x], float(shares[x]), float(shares[y])
            score = max(share_a, share_b)
            pairs.append(Pair("code", a, b, score, bool(score >= CODE_FLAG_SHARE and shared >= CODE_MIN_SHARED),
                              share_a=share_a, share_b=share_b, shared=int(shared),
                              evidence=f"{int(shared)} tokens of filtered code in common",
                              show=lambda pa=pa, pb=pb, sa=slices[x], sb=slices[y]: (
                                  _marked(pa.fp.raw_code, pa.raw_slices(sa)),
                                  _marked(pb.fp.raw_code, pb.raw_slices(sb)))))
    return pairs, template_only


# -- written answers -------------------------------------------------------------------------
def _normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", str(text)).casefold().split())


def written_pairs(results: list[Record], assignment: str) -> tuple[list[Pair], list[tuple[str, list[str]]]]:
    """Pairs of identical or near-identical written answers to the same question (blank and short
    ones left out), and the groups the flagged pairs form per question. Identical answers pair up
    without a comparison; each distinct answer is fingerprinted once, and only the answers that
    share a fingerprint (the index) are compared."""
    prompts = questions_of(assignment)
    by_question: dict[str, dict[str, str]] = {}
    for rec in results:
        for m in rec.manual or []:
            text = _normal(m.text)
            if answer_state(m) == "yes" and len(text) >= WRITTEN_MIN_CHARS:
                by_question.setdefault(str(m.question), {})[rec.student] = (text, str(m.text))
    rendered: dict[str, str] = {}

    def render(raw: str) -> str:
        if raw not in rendered:
            rendered[raw] = markup.render(raw)
        return rendered[raw]

    pairs, groups = [], []
    for question, answers in sorted(by_question.items()):
        boiler = _boilerplate([_normal(prompts.get(question, ("", ""))[0])], WRITTEN_K, code=False)
        order, fps, of = _index({s: t for s, (t, _) in answers.items()},
                                lambda text, boiler=boiler: _fingerprint(text, WRITTEN_K, boiler, code=False))
        prints = [_Print(fp) for fp in fps]
        members: dict[int, list[str]] = {}
        for student, i in of.items():
            members.setdefault(i, []).append(student)
        linked: dict[str, set] = {}
        overlapping = _overlapping(prints)
        same = [(i, i) for i, group in members.items() if len(group) > 1]
        for i, j in same + overlapping:
            if i == j:
                tokens, shares = (len(order[i]),) * 2, (1.0, 1.0)
            else:
                tokens, shares, _ = prints[i].compare(prints[j])
                if not tokens[0]:
                    continue
            if max(float(shares[0]), float(shares[1])) < 0.5:
                continue
            for a, b, forward in _student_pairs(members, i, j):
                x, y = (0, 1) if forward else (1, 0)
                share_a, share_b = float(shares[x]), float(shares[y])
                low = min(share_a, share_b)
                flagged = bool(low >= WRITTEN_FLAG_SHARE)
                if flagged:
                    linked.setdefault(a, set()).add(b)
                    linked.setdefault(b, set()).add(a)
                pairs.append(Pair("written", a, b, low, flagged, question=question, share_a=share_a,
                                  share_b=share_b, shared=int(tokens[x]),
                                  evidence="identical" if i == j else "near-identical" if flagged else "overlapping",
                                  show=lambda a=answers[a][1], b=answers[b][1]: (render(a), render(b))))
        seen: set = set()
        for s in sorted(linked):
            if s in seen:
                continue
            group, todo = set(), [s]
            while todo:
                x = todo.pop()
                if x not in group:
                    group.add(x)
                    todo.extend(linked[x])
            seen |= group
            groups.append((question, sorted(group)))
    return pairs, groups


# -- behaviour on the hidden tests -----------------------------------------------------------
def wrong_tests(rec: Record) -> frozenset:
    """The hidden tests the student's functions answered, wrongly: failed, not for a missing
    implementation, a timeout or a crash."""
    return frozenset(t.name for t in rec.tests or []
                     if not t.passed and t.error != "not_implemented" and not troubled(t))


def known_mistakes(rec: Record) -> set:
    """The catalogued mistakes the diagnoses of a record's failed tests name."""
    return {hint for t in rec.tests or [] if not t.passed
            for hint in t.named_hints}


def _behaviour_side(own: frozenset, other: frozenset, rare: list) -> str:
    """One student's side: the tests answered wrong (in bold those the other also did), the rare
    known mistakes they share."""
    tests = "".join(f"<li>{'<b>' if t in other else ''}{html.escape(t)}{'</b>' if t in other else ''}</li>"
                    for t in sorted(own))
    return (f"<p>Answered wrong ({len(own)} tests; in bold, also by the other):</p><ul>{tests or '<li>none</li>'}</ul>"
            + "".join(f"<div class='diag'>{html.escape(m)}</div>" for m in rare))


def behaviour_pairs(results: list[Record]) -> list[Pair]:
    """Pairs with the same rare set of wrongly answered tests, or a shared rare known mistake."""
    limit = max(2, int(RARE * len(results)))
    wrong = {r.student: wrong_tests(r) for r in results}
    mistakes = {r.student: known_mistakes(r) for r in results}
    sets: dict[frozenset, int] = {}
    for w in wrong.values():
        if w:
            sets[w] = sets.get(w, 0) + 1
    made: dict[str, int] = {}
    for ms in mistakes.values():
        for m in ms:
            made[m] = made.get(m, 0) + 1
    together: dict = {}  # the students of each rare wrong-test set and each rare mistake (the index)
    for student in wrong:
        if wrong[student] and sets[wrong[student]] <= limit:
            together.setdefault(wrong[student], []).append(student)
        for m in mistakes[student]:
            if made[m] <= limit:
                together.setdefault(m, []).append(student)
    candidates = sorted({pair for group in together.values() for pair in combinations(sorted(group), 2)})
    pairs = []
    for a, b in candidates:
        same = bool(wrong[a]) and wrong[a] == wrong[b] and sets[wrong[a]] <= limit
        rare = sorted(m for m in mistakes[a] & mistakes[b] if made[m] <= limit)
        if not same and not rare:
            continue
        evidence = "; ".join(([f"the same {len(wrong[a])} tests answered wrong, as only {sets[wrong[a]]} students did"]
                              if same else [])
                             + [f"the same rare mistake ({made[m]} students): {m}" for m in rare])
        pairs.append(Pair("behaviour", a, b, len(rare) + same, same and bool(rare), shared=len(rare),
                          evidence=evidence, show=lambda wa=wrong[a], wb=wrong[b], rare=rare: (
                              _behaviour_side(wa, wb, rare), _behaviour_side(wb, wa, rare))))
    return pairs


# -- the whole cohort ------------------------------------------------------------------------
def _rank(p: Pair) -> tuple:
    """Flagged pairs first, then by score, then by how much is shared."""
    return (not p.flagged, -p.score, -p.shared, p.question, p.a, p.b)


def find(summary: CohortSummary) -> Similarity:
    results = summary.results
    aid = str(summary.assignment)
    sim = Similarity()
    codes = {}
    for rec in results:
        code, why = read_code(rec)
        if code is not None:
            codes[rec.student] = code
        if why:
            sim.notes.append(f"{rec.student}: code {why}")
    template = graded_code(load_release(aid)) if load_release(aid) else ""
    code, template_only = code_pairs(codes, template)
    if template_only:
        sim.notes.append("template only (never compared): " + ", ".join(template_only))
    written, sim.groups = written_pairs(results, aid)
    sim.pairs = sorted(code, key=_rank) + sorted(written, key=_rank) + sorted(behaviour_pairs(results), key=_rank)
    return sim


def write_csv(sim: Similarity, path: Path, names: dict | None = None) -> None:
    """``similarity.csv``: a row per pair, each student's id with her name beside it (``names``:
    id -> name as written; empty where none is known)."""
    names = names or {}
    rows = [["kind", "rank", "student_a", "name_a", "student_b", "name_b", "question", "score", "share_a",
             "share_b", "shared", "flagged", "evidence"]]
    for kind in ("code", "written", "behaviour"):
        for rank, p in enumerate(sim.of(kind), 1):
            rows.append([kind, rank, p.a, names.get(p.a, ""), p.b, names.get(p.b, ""), p.question, f"{p.score:.3f}",
                         f"{p.share_a:.3f}", f"{p.share_b:.3f}", p.shared, "yes" if p.flagged else "no", p.evidence])
    write_rows(path, rows)


_TITLES = {"code": "Code of the graded cells", "written": "Written answers",
           "behaviour": "Behaviour on the hidden tests"}
_EXPLAIN = {
    "code": (f"copydetect's winnowing fingerprints ({CODE_K}-grams of the code with names, strings, comments and "
             "layout filtered out), the release's template discounted. Shares: the fraction of each side's own "
             f"code found in the other. Flagged: one share at least {CODE_FLAG_SHARE:.0%} and at least "
             f"{CODE_MIN_SHARED} tokens in common. Shared code is highlighted."),
    "written": ("Each question's answers, case and spacing ignored, the prompt discounted; blank answers and answers "
                f"under {WRITTEN_MIN_CHARS} characters are not compared. Flagged: each share at least "
                f"{WRITTEN_FLAG_SHARE:.0%}."),
    "behaviour": ("The hidden tests each student's functions answered wrong (not those not implemented, timed out "
                  "or crashed) and the known mistakes the diagnoses name. Rare: at most max(2, "
                  f"{RARE:.0%} of the cohort) students. Flagged: the same rare set of wrong tests and a shared rare "
                  "known mistake."),
}


def _anchor(kind: str, rank: int) -> str:
    return f"{kind}-{rank}"


def similarity_html(summary: CohortSummary, sim: Similarity) -> str:
    e = html.escape
    parts = [f"<h1>{e(str(summary.assignment))}: similar submissions</h1>",
             ("<p>Leads for a person to read, not verdicts: the same code or answer can have an innocent "
              "reason (a study group, the notes). Every pair is also in <code>similarity.csv</code>.</p>")]
    for kind in ("code", "written", "behaviour"):
        pairs = sim.of(kind)
        parts.append(f"<section><h2>{_TITLES[kind]} ({sum(p.flagged for p in pairs)} flagged)</h2>"
                     f"<p><small>{e(_EXPLAIN[kind])}</small></p>")
        if kind == "written" and sim.groups:
            parts.append("<ul>" + "".join(f"<li>{e(q)}: {len(g)} students gave the same answer: "
                                          f"{e(', '.join(g))}</li>" for q, g in sim.groups) + "</ul>")
        if not pairs:
            parts.append("<p>none</p></section>")
            continue
        rows = "".join(
            f"<tr><td class='num'>{rank}</td><td>{e(p.a)}</td><td>{e(p.b)}</td>"
            + (f"<td>{e(p.question)}</td>" if kind == "written" else "")
            + f"<td class='num'>{p.score:.2f}</td><td class='num'>{p.share_a:.2f} / {p.share_b:.2f}</td>"
            f"<td>{'<b>flagged</b>' if p.flagged else ''}</td><td>{e(p.evidence)}"
            + (f" <a href='#{_anchor(kind, rank)}'>side by side</a>" if rank <= SHOWN else "") + "</td></tr>"
            for rank, p in enumerate(pairs[:LISTED], 1))
        parts.append("<table><thead><tr><th class='num'>#</th><th>student</th><th>student</th>"
                     + ("<th>question</th>" if kind == "written" else "")
                     + "<th class='num'>score</th><th class='num'>shares</th><th></th><th>evidence</th></tr></thead>"
                     f"<tbody>{rows}</tbody></table>")
        if len(pairs) > LISTED:
            rest = pairs[LISTED:]
            parts.append(f"<p>{len(rest)} more pairs ({sum(p.flagged for p in rest)} of them flagged), ranked below "
                         "these: in <code>similarity.csv</code>.</p>")
        for rank, p in enumerate(pairs[:SHOWN], 1):
            left, right = p.shown()
            if kind == "code":
                left, right = f"<pre>{left}</pre>", f"<pre>{right}</pre>"
            elif kind == "written":
                left, right = f"<div class='answer md'>{left}</div>", f"<div class='answer md'>{right}</div>"
            title = f"{p.a} and {p.b}" + (f", {p.question}" if p.question else "")
            parts.append(f"<h3 id='{_anchor(kind, rank)}'>{rank}. {e(title)}</h3><p>{e(p.evidence)}</p>"
                         f"<table class='side'><thead><tr><th>{e(p.a)}</th><th>{e(p.b)}</th></tr></thead>"
                         f"<tbody><tr><td>{left}</td><td>{right}</td></tr></tbody></table>")
        parts.append("</section>")
    if sim.notes:
        parts.append("<h2>Not compared</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in sim.notes) + "</ul>")
    return page(f"{summary.assignment}: similar submissions", "".join(parts))


def report_section(sim: Similarity) -> str:
    """The cohort report's section: the flagged pairs of each kind, with a link to the page."""
    e = html.escape
    flagged = {k: [p for p in sim.of(k) if p.flagged] for k in ("code", "written", "behaviour")}
    counts = ", ".join(f"{len(pairs)} {k}" for k, pairs in flagged.items())
    rows = "".join(f"<tr><td>{e(p.kind)}</td><td>{e(p.a)}</td><td>{e(p.b)}</td><td>{e(p.question)}</td>"
                   f"<td class='num'>{p.score:.2f}</td><td>{e(p.evidence)}</td></tr>"
                   for pairs in flagged.values() for p in pairs[:REPORTED])
    more = sum(max(0, len(pairs) - REPORTED) for pairs in flagged.values())
    return ("<h2>Similar submissions</h2>"
            f"<p>Flagged pairs: {counts}. <a href='similarity.html'>Side by side</a>; every pair in "
            "<code>similarity.csv</code>."
            + (f" Below, the first {REPORTED} of each kind ({more} more flagged: in similarity.csv)." if more else "")
            + "</p>"
            + ("<table id='similarity'><thead><tr><th>signal</th><th>student</th><th>student</th><th>question</th>"
               f"<th class='num'>score</th><th>evidence</th></tr></thead><tbody>{rows}</tbody></table>"
               if rows else ""))


def write(summary: CohortSummary, out: Path) -> Similarity:
    """``<out>/similarity.csv`` and ``<out>/similarity.html``; returns what was found."""
    sim = find(summary)
    write_csv(sim, out / "similarity.csv", {str(r.student): str(r.name or "") for r in summary.results})
    _write_atomic(out / "similarity.html", similarity_html(summary, sim))
    return sim
