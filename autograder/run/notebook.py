"""Notebooks as data: a submission read defensively, the release's written questions and answers.

Every function here takes a parsed notebook that may be malformed (a student's file) and never
raises anything but ``SubmissionError``.
"""

from __future__ import annotations

import json
from pathlib import Path

from autograder.run.paths import REPO

ANSWER_PLACEHOLDER = "*Your answer here.*"  # what an answer cell holds in the release


class SubmissionError(ValueError):
    """The submission cannot be read as a notebook."""



def _tagged_cells(nb, tag: str, cell_type: str | None = None):
    """(index, metadata, text) of the cells of a parsed (possibly malformed) notebook that carry
    ``tag``; metadata is a dict."""
    cells = nb.get("cells") if isinstance(nb, dict) else None
    for index, cell in enumerate(cells if isinstance(cells, list) else []):
        if not isinstance(cell, dict) or (cell_type and cell.get("cell_type") != cell_type):
            continue
        meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        tags = meta.get("tags")
        if isinstance(tags, list) and tag in tags:
            text = cell.get("source", "")
            yield index, meta, "".join(map(str, text)) if isinstance(text, list) else str(text)



def _answer_cells(nb) -> list[tuple[int, dict, str]]:
    """(index, pdl metadata, text) of the markdown cells tagged ``answer``; metadata is a dict."""
    return [(index, meta.get("pdl") if isinstance(meta.get("pdl"), dict) else {}, text)
            for index, meta, text in _tagged_cells(nb, "answer", "markdown")]



def _question_name(pdl: dict) -> str | None:
    name = pdl.get("question")
    return name if isinstance(name, str) else None



def load_release(assignment: str) -> dict:
    """The parsed release notebook ({} if it cannot be read)."""
    try:
        return json.loads((REPO / "assignments" / assignment / f"{assignment}.ipynb").read_bytes())
    except (OSError, ValueError):
        return {}



def release_questions(assignment: str, release: dict | None = None) -> list[dict]:
    """The written questions of the release notebook: [{"question", "points"}] in order."""
    release = load_release(assignment) if release is None else release
    return [{"question": _question_name(pdl) or f"written_{k + 1}", "points": float(pdl.get("points", 1))}
            for k, (_, pdl, _) in enumerate(_answer_cells(release))]



def read_answers(nb: dict, questions: list[dict]) -> list[dict]:
    """The written answers of a parsed submission, one per question of the release, for grading
    by hand. A cell is matched by the question name in its metadata, else by position among the
    answer cells; a question with no cell is reported with ``missing``. Points come from the
    release, never from the submission."""
    found = [(i, _question_name(pdl), t) for i, pdl, t in _answer_cells(nb)]
    known = {q["question"] for q in questions}
    by_name = {name: (i, t) for i, name, t in found if name in known}
    unnamed = [(i, t) for i, name, t in found if name not in known]
    out = []
    for k, q in enumerate(questions):
        hit = by_name.get(q["question"]) or (unnamed.pop(0) if unnamed else None)
        cell, text = hit if hit else (None, "")
        out.append({**q, "cell": cell, "text": text[:20_000], "missing": hit is None,
                    "blank": text.strip() in ("", ANSWER_PLACEHOLDER)})
    return out



def read_notebook(path: Path) -> list[tuple[int, str, set]]:
    """The code cells of a notebook as (index, source, tags); SubmissionError if unreadable."""
    return code_cells(load_submission(path)[1])



def load_submission(path: Path) -> tuple[bytes, dict]:
    """The file's bytes and the parsed notebook (nbformat 4); SubmissionError if unreadable."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SubmissionError(f"cannot read the file: {exc.strerror}") from None
    if not raw.strip():
        raise SubmissionError("the notebook file is empty")
    try:
        nb = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SubmissionError(f"the notebook is not valid JSON ({exc}); re-download it from "
                              "Jupyter with File > Save and submit that file") from None
    if not isinstance(nb, dict):
        raise SubmissionError("the file is JSON but not a notebook")
    if nb.get("nbformat") == 3 or "worksheets" in nb:
        try:
            import nbformat  # heavy: only an nbformat 3 notebook pays for this import
            nb = nbformat.convert(nbformat.from_dict(nb), 4)
        except Exception as exc:  # noqa: BLE001
            raise SubmissionError(f"cannot convert this nbformat 3 notebook: {exc}") from None
    return raw, nb



def code_cells(nb: dict) -> list[tuple[int, str, set]]:
    """The code cells of a parsed notebook as (index, source, tags); SubmissionError if malformed."""
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise SubmissionError("the notebook has no list of cells")
    out = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            raise SubmissionError(f"cell {index} has no readable source")
        meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        tags = meta.get("tags") if isinstance(meta.get("tags"), list) else []
        out.append((index, source, {t for t in tags if isinstance(t, str)}))
    return out


def code_cell(source: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}



def with_cells(nb: dict, cells: list) -> dict:
    nb = json.loads(json.dumps(nb))
    nb["cells"] += cells
    return nb
