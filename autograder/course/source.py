"""Read one instructor source (``source/<id>/<id>.py``, see ``source/FORMAT.md``).

The source is a jupytext percent script; each cell has one role tag. This module parses
it into ``Cell`` objects and knows how to turn a graded cell into the student's stub and
into nbgrader's solution-region form. Nothing here writes files.
"""

from __future__ import annotations

import ast
import copy
import difflib
import hashlib
from dataclasses import dataclass
from pathlib import Path

from autograder.run.mistakes import (
    CODE_ROLES,
    MARKDOWN_ROLES,
    Mistake,
    SourceError,
    _includes,
    mistakes_of,
    source_path,
)
from autograder.run.paths import REPO

# a claim cell: code that checks a number the text states against the reference (``pdl validate``
# runs it; it reaches no notebook, module or test); the grader's reader needs no such role
CLAIM_ROLE = "claim"
SOURCE_CODE_ROLES = CODE_ROLES | {CLAIM_ROLE}

@dataclass
class Cell:
    kind: str  # "code" | "markdown"
    role: str
    source: str
    index: int
    points: float | None = None  # answer cells: the points of the written question


@dataclass
class WrittenQuestion:
    """A written answer graded by hand: nbgrader's manual-grade cell, otter's manual question."""
    name: str           # written_1, written_2, ... in source order (grade id in both tools)
    points: float
    prompt: str         # the markdown cell just before the answer cell
    model_answer: str   # the answer cell of the source, with its rubric


@dataclass
class Claim:
    """A ``claim`` cell: code asserting a number that the text states (a written question's
    premise, a model answer's value, a count in the introduction), run on the reference."""
    description: str    # the cell's first line, after '# claim:'
    code: str
    index: int          # cell index in the source
    question: str = ""  # the written question it follows (written_1, ...), "" before any


@dataclass
class Source:
    assignment: str
    title: str
    path: Path
    cells: list[Cell]

    def code(self, *roles: str) -> str:
        return "\n\n\n".join(c.source for c in self.cells if c.role in roles).strip() + "\n"

    def written_questions(self) -> list[WrittenQuestion]:
        out = []
        for k, cell in enumerate(self.cells):
            if cell.role == "answer":
                before = self.cells[k - 1]
                prompt = before.source if before.kind == "markdown" and before.role == "text" else ""
                out.append(WrittenQuestion(f"written_{len(out) + 1}", float(cell.points), prompt, cell.source))
        return out

    def claims(self) -> list[Claim]:
        out, question, answers = [], "", 0
        for cell in self.cells:
            if cell.role == "answer":
                answers += 1
                question = f"written_{answers}"
            elif cell.role == CLAIM_ROLE:
                lines = cell.source.splitlines() or [""]
                if not lines[0].startswith("# claim:") or not lines[0].split(":", 1)[1].strip():
                    raise SourceError(f"{self.path.name} cell {cell.index}: a claim cell's first line is "
                                      "'# claim: <what the text states>'")
                words = [lines[0].split(":", 1)[1].strip()]
                for line in lines[1:]:  # continued on indented comment lines, as a wrong cell's hint
                    if not line.startswith("#  "):
                        break
                    words.append(line[1:].strip())
                out.append(Claim(" ".join(words), cell.source, cell.index, question))
        return out

    def mistakes(self) -> list[Mistake]:
        return mistakes_of([(c.role, c.source, c.index) for c in self.cells], self.path.name)

    def graded_functions(self) -> list[str]:
        names = []
        for cell in self.cells:
            if cell.role == "graded":
                names += [n.name for n in ast.parse(cell.source).body if isinstance(n, ast.FunctionDef)]
        return names


def all_assignments() -> list[str]:
    return sorted(p.parent.name for p in (REPO / "source").glob("*/*.py") if p.stem == p.parent.name)


class UnknownAssignment(ValueError):
    """An assignment id that is not the course's (``known_assignment``)."""


def known_assignment(assignment: str) -> str:
    """``assignment`` if the course has it; else ``UnknownAssignment`` naming the nearest known ids
    (a typo such as ``ex2_3_ising_perceptorn``, or a prefix such as ``ex2_3``)."""
    known = all_assignments()
    if assignment in known:
        return assignment
    near = [k for k in known if assignment and k.startswith(assignment)][:3]
    near += [k for k in difflib.get_close_matches(assignment, known, n=3, cutoff=0.6) if k not in near]
    raise UnknownAssignment(f"unknown assignment {assignment!r}"
                            + (f"; did you mean {' or '.join(near)}?" if near else "")
                            + f" Known assignments: {', '.join(known)}")


# Parsed sources, by assignment, with the stamp of the files they were read from: one validate
# loads its source about 16 times, and jupytext's parse is 0.2 s each.
_LOADED: dict[str, tuple[tuple, Source]] = {}


def _stamp(path: Path) -> tuple:
    """What a parse of ``path`` depends on: it and the shared files it may include."""
    files = [path, *sorted((REPO / "source" / "_shared").glob("*.py"))]
    return tuple((str(f), hashlib.sha256(f.read_bytes()).digest()) for f in files)  # a rewrite within a tick too


def load(assignment: str) -> Source:
    """The parsed source of ``assignment`` (a copy of the parse kept while its files are unchanged)."""
    path = source_path(assignment)
    if not path.is_file():
        raise SourceError(f"{path} does not exist; known assignments: {', '.join(all_assignments())}")
    stamp = _stamp(path)
    kept = _LOADED.get(assignment)
    if kept is None or kept[0] != stamp:
        kept = _LOADED[assignment] = (stamp, _parse(assignment, path))
    return copy.deepcopy(kept[1])


def _parse(assignment: str, path: Path) -> Source:
    import jupytext  # heavy: jupytext's import costs seconds, and grading never needs it

    nb = jupytext.read(path)
    cells = []
    for i, c in enumerate(nb.cells):
        tags = [t for t in c.metadata.get("tags", []) if t in SOURCE_CODE_ROLES | MARKDOWN_ROLES]
        if len(tags) > 1:
            raise SourceError(f"{path.name} cell {i}: more than one role tag {tags}")
        if c.cell_type == "markdown":
            role = tags[0] if tags else "text"
            if role not in MARKDOWN_ROLES:
                raise SourceError(f"{path.name} cell {i}: markdown cells take no tag or 'answer'")
        elif c.cell_type == "code":
            if not tags or tags[0] not in SOURCE_CODE_ROLES:
                raise SourceError(f"{path.name} cell {i}: a code cell needs one of the tags "
                                  f"{sorted(SOURCE_CODE_ROLES)} (see source/FORMAT.md)")
            role = tags[0]
            c.source = _includes(c.source, path)
            try:
                ast.parse(c.source)
            except SyntaxError as exc:
                raise SourceError(f"{path.name} cell {i}: syntax error: {exc}") from None
        else:
            continue
        points = None
        if role == "answer":
            points = c.metadata.get("points", 1)
            if isinstance(points, bool) or not isinstance(points, (int, float)) or not points > 0:
                raise SourceError(f"{path.name} cell {i}: an answer cell's points must be a positive "
                                  f"number, as in '# %% [markdown] tags=[\"answer\"] points=3'")
        cells.append(Cell(c.cell_type, role, c.source.strip("\n"), i, points))
    if not cells or cells[0].kind != "markdown" or not cells[0].source.startswith(f"# {assignment}"):
        raise SourceError(f"{path.name}: the first cell must be markdown starting '# {assignment}: <title>'")
    title = cells[0].source.splitlines()[0].split(":", 1)[-1].strip()
    return Source(assignment, title, path, cells)


def _function_bodies(source: str):
    """(function node, first line of its body after the docstring) for each top-level def."""
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        if not body:
            raise SourceError(f"graded function {node.name} has no body")
        yield node, body[0].lineno, body[0].col_offset


def stub(source: str, only=None) -> str:
    """Replace the body of every top-level function (or those named in ``only``) by a stub."""
    lines = source.splitlines()
    out, pos = [], 0
    for node, first, col in _function_bodies(source):
        if only is not None and node.name not in only:
            continue
        out += lines[pos:first - 1]
        out.append(" " * col + "# YOUR CODE HERE")
        out.append(" " * col + f'raise NotImplementedError("{node.name}: replace this line with your implementation")')
        pos = node.end_lineno
    out += lines[pos:]
    return "\n".join(out)


def nbgrader_solution(source: str) -> str:
    """Wrap every function body in nbgrader's ``### BEGIN/END SOLUTION`` markers."""
    lines = source.splitlines()
    out, pos = [], 0
    for node, first, col in _function_bodies(source):
        out += lines[pos:first - 1]
        out.append(" " * col + "### BEGIN SOLUTION")
        out += lines[first - 1:node.end_lineno]
        out.append(" " * col + "### END SOLUTION")
        pos = node.end_lineno
    out += lines[pos:]
    return "\n".join(out)
