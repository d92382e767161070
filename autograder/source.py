"""Read one instructor source (``source/<id>/<id>.py``, see ``source/FORMAT.md``).

The source is a jupytext percent script; each cell has one role tag. This module parses
it into ``Cell`` objects and knows how to turn a graded cell into the student's stub and
into nbgrader's solution-region form. Nothing here writes files.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.sandbox import REPO

CODE_ROLES = {"setup", "graded", "provided", "reference", "check", "figure", "solution", "tests",
              "params", "wrong", "rewrite", "alternative"}
MARKDOWN_ROLES = {"text", "answer"}
ANSWER_PLACEHOLDER = "*Your answer here.*"  # what an answer cell holds in the release
HINT = "# hint:"  # in a wrong cell: what a student whose answers match this mistake is told


class SourceError(ValueError):
    """The instructor source breaks the format; the message says where and how to fix it."""


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
class Mistake:
    """A ``wrong`` cell: a mistake students really make, and the hint shown to a student whose
    answers match it. ``rewrites`` are the ``rewrite`` cells after it: the same mistake written
    differently, which must earn the same hint."""
    description: str  # the cell's first line, after '# wrong:'
    hint: str         # the '# hint:' comment ("" if the author gave none; pdl validate refuses that)
    code: str
    index: int        # cell index in the source
    rewrites: list = field(default_factory=list)  # [(description, code)]


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

    def mistakes(self) -> list[Mistake]:
        return mistakes_of([(c.role, c.source, c.index) for c in self.cells], self.path.name)

    def graded_functions(self) -> list[str]:
        names = []
        for cell in self.cells:
            if cell.role == "graded":
                names += [n.name for n in ast.parse(cell.source).body if isinstance(n, ast.FunctionDef)]
        return names


def source_path(assignment: str) -> Path:
    return REPO / "source" / assignment / f"{assignment}.py"


def all_assignments() -> list[str]:
    return sorted(p.parent.name for p in (REPO / "source").glob("*/*.py") if p.stem == p.parent.name)


def load(assignment: str) -> Source:
    import jupytext

    path = source_path(assignment)
    if not path.is_file():
        raise SourceError(f"{path} does not exist; known assignments: {', '.join(all_assignments())}")
    nb = jupytext.read(path)
    cells = []
    for i, c in enumerate(nb.cells):
        tags = [t for t in c.metadata.get("tags", []) if t in CODE_ROLES | MARKDOWN_ROLES]
        if len(tags) > 1:
            raise SourceError(f"{path.name} cell {i}: more than one role tag {tags}")
        if c.cell_type == "markdown":
            role = tags[0] if tags else "text"
            if role not in MARKDOWN_ROLES:
                raise SourceError(f"{path.name} cell {i}: markdown cells take no tag or 'answer'")
        elif c.cell_type == "code":
            if not tags or tags[0] not in CODE_ROLES:
                raise SourceError(f"{path.name} cell {i}: a code cell needs one of the tags "
                                  f"{sorted(CODE_ROLES)} (see source/FORMAT.md)")
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


def _description(text: str, role: str) -> str:
    """The first line of a wrong/rewrite/alternative cell, after '# <role>:'."""
    first = text.splitlines()[0] if text else ""
    return first.lstrip("# ").split(":", 1)[-1].strip() if first.startswith("#") else ""


def cell_hint(text: str) -> str:
    """The hint of a wrong cell: the comment line '# hint: ...' in the cell's leading comment
    block, continued by the comment lines right after it that are indented ('#   more words')."""
    out, inside = [], False
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        if line.startswith(HINT):
            out, inside = [line[len(HINT):].strip()], True
        elif inside and line.startswith("#  "):
            out.append(line[1:].strip())
        else:
            inside = False
    return " ".join(w for w in out if w)


def mistakes_of(cells, name: str = "source") -> list[Mistake]:
    """The ``wrong`` cells of [(role, source, index)] with their hints and ``rewrite`` cells."""
    out: list[Mistake] = []
    previous = None
    for role, text, index in cells:
        if role == "wrong":
            out.append(Mistake(_description(text, role) or f"cell {index}", cell_hint(text), text, index))
        elif role == "rewrite":
            if previous not in ("wrong", "rewrite"):
                raise SourceError(f"{name} cell {index}: a 'rewrite' cell must follow the 'wrong' cell "
                                  "whose mistake it writes differently (see source/FORMAT.md)")
            out[-1].rewrites.append((_description(text, role) or f"cell {index}", text))
        if role != "text":
            previous = role
    return out


_HEADER = re.compile(r"^# %%(?P<md> \[markdown\])?(?P<meta>.*)$")
_TAGS = re.compile(r"tags=\[([^\]]*)\]")


def read_mistakes(assignment: str) -> list[Mistake]:
    """``load(assignment).mistakes()`` without jupytext (whose import costs seconds): what the
    grader reads, when a test fails, to name the mistake. Reads only the cell headers of the
    percent script and the code of its wrong and rewrite cells."""
    path = source_path(assignment)
    cells, current = [], None
    for line in path.read_text().splitlines() + ["# %% end"]:
        head = _HEADER.match(line)
        if head:
            if current is not None:
                text = "\n".join(current[1])
                if current[0] in ("wrong", "rewrite"):
                    text = _includes(text, path)
                cells.append((current[0], text.strip("\n"), current[2]))
            tags = _TAGS.search(head["meta"] or "")
            roles = [t.strip().strip("\"'") for t in tags.group(1).split(",")] if tags else []
            role = next((r for r in roles if r in CODE_ROLES | MARKDOWN_ROLES), "text")
            current = (role, [], len(cells))
        elif current is not None:
            current[1].append(line)
    return mistakes_of(cells, path.name)


def _includes(text: str, path: Path) -> str:
    """Replace each line ``# pdl-include: _shared/<file>.py`` by that file (code shared by assignments)."""
    out = []
    for line in text.splitlines():
        if line.startswith("# pdl-include:"):
            target = (REPO / "source" / line.split(":", 1)[1].strip()).resolve()
            if not target.is_file() or (REPO / "source" / "_shared") not in target.parents:
                raise SourceError(f"{path.name}: {line!r} must name a file in source/_shared/")
            out.append(target.read_text().strip("\n"))
        else:
            out.append(line)
    return "\n".join(out)


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
