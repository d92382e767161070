"""The known mistakes of an assignment: its source's ``wrong`` cells, each with its hint and
its ``rewrite`` cells (``source/FORMAT.md``).

The grader reads them when a test fails, to name the mistake (``autograder.run.diagnose``), so
this reads the percent script directly, without jupytext (whose import costs seconds); the
instructor's full reader, ``autograder.course.source``, builds on the same definitions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.run.paths import REPO

CODE_ROLES = {"setup", "graded", "provided", "reference", "check", "figure", "solution", "tests",
              "params", "wrong", "rewrite", "alternative"}



MARKDOWN_ROLES = {"text", "answer"}



HINT = "# hint:"  # in a wrong cell: what a student whose answers match this mistake is told



class SourceError(ValueError):
    """The instructor source breaks the format; the message says where and how to fix it."""



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



def source_path(assignment: str) -> Path:
    return REPO / "source" / assignment / f"{assignment}.py"



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
    cells: list[tuple[str, str, int]] = []
    current: tuple[str, list[str], int] | None = None  # (role, lines, index) of the cell being read
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
