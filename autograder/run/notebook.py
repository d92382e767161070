"""Notebooks as data: a submission read defensively, the release's written questions and answers.

Every function here takes a parsed notebook that may be malformed (a student's file) and never
raises anything but ``SubmissionError``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import stat
from pathlib import Path

import ijson  # streaming JSON: a notebook's outputs and attachments are skipped, never held

from autograder.run import serial
from autograder.run.paths import REPO

ANSWER_PLACEHOLDER = "*Your answer here.*"  # what an answer cell holds in the release
MAX_NOTEBOOK_MB = 500     # a submitted file above this is refused unread
MAX_KEPT = 8 << 20        # characters kept of one notebook (code, text, tags): outputs and attachments aside
MAX_STRING = 2 << 20      # bytes of one JSON string the parser sees; a longer one is skipped unread
MAX_DEPTH = 64            # nesting of a kept value (metadata); of the whole file: MAX_FILE_DEPTH
MAX_FILE_DEPTH = 512
_CHUNK = 1 << 20          # bytes read at a time: at most MAX_STRING (a string within one passes whole)
_CLIPPED = "\x00pdl: a string longer than MAX_STRING\x00"
_CLIPPED_JSON = json.dumps(_CLIPPED).encode()
_NUMBER = b"0123456789+-.eE"  # the bytes of a JSON number: the one unbounded token outside strings
_NUMBER_RUN = re.compile(rb"[0-9+\-.eE]+")  # greedy, each run matched once: linear (a {65536} search is not)
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_WHOLE_STRINGS = re.compile(rb'(?:[^"]*"[^"\\]*(?:\\.[^"\\]*)*")*', re.DOTALL)  # text between, and whole strings
_BRACKET = re.compile(rb"[\[\]{}]")
# NaN, Infinity and -Infinity, which Jupyter's and Python's JSON write (in outputs) and no JSON
# parser here reads: outside strings, read as null (the outputs are dropped unread in any case)
_NONFINITE = re.compile(rb'("[^"\\]*(?:\\.[^"\\]*)*")|-?(?:NaN|Infinity)', re.DOTALL)
_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# What the grader keeps of a submission (an allow-list; everything else is skipped unread): True
# keeps a value whole, a dict those keys of an object, a one-item list its item's for every element.
_CELL = {"id": True, "cell_type": True, "source": True, "metadata": {"tags": True, "pdl": True},
         "input": True, "language": True, "level": True}  # nbformat 3: code in input, headings' level
_NOTEBOOK = {"nbformat": True, "nbformat_minor": True, "metadata": {"kernelspec": True, "language_info": True},
             "cells": [_CELL], "worksheets": [{"cells": [_CELL]}]}


class SubmissionError(ValueError):
    """The submission cannot be read as a notebook."""


def _as_dict(value) -> dict:
    """``value`` if a dict, else {} (a malformed notebook's field is read as empty)."""
    return value if isinstance(value, dict) else {}


def _as_list(value) -> list:
    """``value`` if a list, else [] (a malformed notebook's field is read as empty)."""
    return value if isinstance(value, list) else []



def _tagged_cells(nb, tag: str, cell_type: str | None = None):
    """(index, metadata, text) of the cells of a parsed (possibly malformed) notebook that carry
    ``tag``; metadata is a dict."""
    cells = nb.get("cells") if isinstance(nb, dict) else None
    for index, cell in enumerate(cells if isinstance(cells, list) else []):
        if not isinstance(cell, dict) or (cell_type and cell.get("cell_type") != cell_type):
            continue
        meta = _as_dict(cell.get("metadata"))
        tags = meta.get("tags")
        if isinstance(tags, list) and tag in tags:
            text = cell.get("source", "")
            yield index, meta, "".join(map(str, text)) if isinstance(text, list) else str(text)



def _answer_cells(nb) -> list[tuple[int, dict, str]]:
    """(index, pdl metadata, text) of the markdown cells tagged ``answer``; metadata is a dict."""
    return [(index, _as_dict(meta.get("pdl")), text)
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
    for q in questions:
        hit = by_name.get(q["question"]) or (unnamed.pop(0) if unnamed else None)
        cell, text = hit if hit else (None, "")
        out.append({**q, "cell": cell, "text": text[:20_000], "missing": hit is None,
                    "blank": text.strip() in ("", ANSWER_PLACEHOLDER)})
    return out



def read_notebook(path: Path) -> list[tuple[int, str, set]]:
    """The code cells of a notebook as (index, source, tags); SubmissionError if unreadable."""
    return code_cells(load_submission(path)[1])



def load_submission(path: Path) -> tuple[bytes, dict]:
    """The notebook (nbformat 4) as the student's process gets it, as bytes and parsed: only its
    cells' code and text, ids and tags, and the notebook's kernel (``_NOTEBOOK``, an allow-list);
    outputs, attachments and execution counts are dropped unread. Streamed: the grader holds no
    more than the kept part and one string of ``MAX_STRING``, whatever the file's size.
    SubmissionError if unreadable, or over ``MAX_NOTEBOOK_MB``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO must not block
    except OSError as exc:
        raise SubmissionError(f"cannot read the file: {exc.strerror}") from None
    with os.fdopen(fd, "rb", buffering=0) as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SubmissionError("the submission is not a regular file")
        if info.st_size > MAX_NOTEBOOK_MB << 20:
            raise SubmissionError(too_large(info.st_size))
        if info.st_size == 0:
            raise SubmissionError("the notebook file is empty")
        if fh.read(3) != b"\xef\xbb\xbf":  # a byte order mark, as some editors write (json.loads took it)
            fh.seek(0)
        stream = _Clipped(fh)
        events = ijson.basic_parse(stream, buf_size=_CHUNK, use_float=True)
        try:
            nb = _Kept(events).notebook()
        except ijson.IncompleteJSONError as exc:
            if stream.blank:
                raise SubmissionError("the notebook file is empty") from None
            raise SubmissionError(_invalid(exc)) from None
        except (ijson.JSONError, UnicodeDecodeError, ValueError) as exc:
            if isinstance(exc, SubmissionError):
                raise
            raise SubmissionError(_invalid(exc)) from None
    if nb.get("nbformat") == 3 or "worksheets" in nb:
        for sheet in _as_list(nb.get("worksheets")):
            for cell in (sheet.get("cells") or []) if isinstance(sheet, dict) else []:
                if isinstance(cell, dict) and cell.get("cell_type") == "code":
                    cell["outputs"] = []  # dropped unread; nbformat's upgrade expects the key
        try:
            import nbformat  # heavy: only an nbformat 3 notebook pays for this import
            nb = nbformat.convert(nbformat.from_dict(nb), 4)
        except Exception as exc:  # noqa: BLE001
            raise SubmissionError(f"cannot convert this nbformat 3 notebook: {exc}") from None
    for cell in _as_list(nb.get("cells")):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            cell.update(outputs=[], execution_count=None)
    return json.dumps(nb, indent=1).encode(), nb


def too_large(size: int) -> str:
    return (f"the notebook is {size / 2**20:.0f} MB, over the {MAX_NOTEBOOK_MB} MB limit; clear its outputs "
            "(Kernel > Restart & Clear Output), save it and submit again")


def _invalid(exc: Exception) -> str:
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    return (f"the notebook is not valid JSON ({first}); re-download it from Jupyter with File > Save "
            "and submit that file")


def _word_tail(chunk: bytes, start: int) -> int | None:
    """Where a word the chunk may cut in two begins (``-Infinity``, ``NaN``, ``true``: read with
    the next chunk): the letters it ends with, and a minus before them; None where it ends in
    neither. Read from the end, in time linear in the word (a regular expression searched from
    ``start`` took time quadratic in every run of letters: 72 s for an output of 100 000 x's)."""
    k = max(len(chunk.rstrip(_LETTERS)), start)
    if k > start and chunk[k - 1] == 0x2D:  # "-"
        return k - 1
    return k if k < len(chunk) else None


class _Clipped:
    """The file's bytes, read as a file by ijson, with every JSON string longer than
    ``MAX_STRING`` replaced by ``_CLIPPED``: no JSON parser streams a string, so without this an
    attachment of 150 MB would be held whole. Refuses a file over ``MAX_NOTEBOOK_MB``, a number
    of more than 64 KB and nesting deeper than ``MAX_FILE_DEPTH`` (the parser would hold those)."""

    def __init__(self, fh):
        self._fh = fh
        self._in_string = self._escaped = self._clipped = False
        self._string = bytearray()  # the current string so far, from its opening quote
        self._number = 0            # length of the number the previous chunk ended in
        self._depth = 0
        self.size = 0
        self.blank = True           # nothing but whitespace so far
        self._held = b""            # the end of the previous chunk, a word it may have cut

    def read(self, n: int = -1) -> bytes:
        out = bytearray()
        while not out and n:  # ijson reads 0 bytes first, to learn the type
            chunk = self._fh.read(_CHUNK)
            if not chunk:
                if self._in_string:  # unterminated: the parser says so
                    out += self._string
                    self._in_string = False
                out += self._held
                self._held = b""
                return bytes(out)
            self.size += len(chunk)
            if self.size > MAX_NOTEBOOK_MB << 20:
                raise SubmissionError(too_large(self.size))
            self.blank = self.blank and not chunk.strip()
            chunk, self._held = self._held + chunk, b""
            self._feed(chunk, out)
        return bytes(out)

    def _feed(self, chunk: bytes, out: bytearray) -> None:
        i, n = 0, len(chunk)
        while i < n:
            if self._in_string:
                i = self._string_part(chunk, i, out)
                continue
            # whole strings within the chunk are shorter than a chunk, so than MAX_STRING: they pass
            whole = _WHOLE_STRINGS.match(chunk, i)
            assert whole is not None  # (...)* matches anywhere, if only the empty string
            end = whole.end()
            j = chunk.find(b'"', end)  # a string that goes on into the next chunk
            stop = n if j < 0 else j
            if j < 0 and (tail := _word_tail(chunk, end)) is not None:
                stop, self._held = tail, chunk[tail:]
            self._outside(_STRING.sub(b'""', chunk[i:stop]), closed=j >= 0)
            out += _NONFINITE.sub(lambda m: m.group(1) or b"null", chunk[i:stop])
            if j < 0:
                return
            self._in_string, self._clipped, self._string = True, False, bytearray(b'"')
            i = j + 1

    def _string_part(self, chunk: bytes, i: int, out: bytearray) -> int:
        """Take the current string's bytes from ``chunk[i:]``, to its end or the chunk's; where
        to go on. A quote ends it unless an odd run of backslashes comes before it."""
        n, start = len(chunk), i
        while True:
            end = chunk.find(b'"', i)
            closed = end >= 0
            end = end if closed else n
            k = end
            while k > start and chunk[k - 1] == 0x5C:  # backslash
                k -= 1
            escaped = (end - k + (k == start and self._escaped)) % 2 == 1
            if not closed or not escaped:
                break
            i = end + 1
        self._escaped = not closed and escaped  # the next chunk's first byte is escaped
        if not self._clipped:
            self._string += chunk[start:end]
            if len(self._string) > MAX_STRING:
                self._clipped, self._string = True, bytearray()
        if not closed:
            return end
        out += _CLIPPED_JSON if self._clipped else self._string + b'"'
        self._in_string, self._string = False, bytearray()
        return end + 1

    def _outside(self, text: bytes, closed: bool) -> None:
        """Between strings: numbers must be short and nesting shallow."""
        lead = len(text) - len(text.lstrip(_NUMBER))
        if self._number + lead >= 65536 or any(len(m) >= 65536 for m in _NUMBER_RUN.findall(text)):
            raise SubmissionError("the notebook is not valid JSON (a number of more than 64 KB)")
        if closed:
            self._number = 0
        elif lead == len(text):
            self._number += lead
        else:
            self._number = len(text) - len(text.rstrip(_NUMBER))
        opens = text.count(b"[") + text.count(b"{")
        if self._depth + opens <= MAX_FILE_DEPTH:
            self._depth += opens - text.count(b"]") - text.count(b"}")
            return
        for bracket in _BRACKET.findall(text):
            self._depth += 1 if bracket in (b"[", b"{") else -1
            if self._depth > MAX_FILE_DEPTH:
                raise SubmissionError(f"the notebook is not valid JSON (nested more than {MAX_FILE_DEPTH} deep)")


class _Kept:
    """Builds the kept part (``_NOTEBOOK``) of a notebook from ijson's events; skips the rest."""

    def __init__(self, events):
        self._events = iter(events)
        self._size = 0

    def _next(self):
        try:
            return next(self._events)
        except StopIteration:
            raise ijson.IncompleteJSONError("the file ends before the notebook does") from None

    def notebook(self) -> dict:
        event, _ = self._next()
        if event != "start_map":
            self._skip(event)
            raise SubmissionError("the file is JSON but not a notebook")
        nb = self._object(_NOTEBOOK)
        for event, _ in self._events:  # the parser checks the rest of the file
            raise ijson.JSONError(f"more after the notebook ({event})")
        return nb

    def _take(self, event, value, schema):
        if schema is True:
            return self._whole(event, value)
        if event == "start_map" and isinstance(schema, dict):
            return self._object(schema)
        if event == "start_array" and isinstance(schema, list):
            out = []
            while (item := self._next())[0] != "end_array":
                out.append(self._take(item[0], item[1], schema[0]))
            return out
        self._skip(event)
        return None  # not the kind expected: as if absent (a cell keeps its place)

    def _object(self, schema: dict) -> dict:
        out = {}
        while (item := self._next())[0] != "end_map":
            event, value = self._next()
            if item[1] in schema:
                out[item[1]] = self._take(event, value, schema[item[1]])
            else:
                self._skip(event)
        return out

    def _skip(self, event) -> None:
        depth = int(event in ("start_map", "start_array"))
        while depth:
            event, _ = self._next()
            depth += (event in ("start_map", "start_array")) - (event in ("end_map", "end_array"))

    def _whole(self, event, value):
        builder, depth = ijson.ObjectBuilder(), 0
        while True:
            if event in ("start_map", "start_array"):
                depth += 1
                if depth > MAX_DEPTH:
                    raise SubmissionError(f"the notebook's metadata is nested more than {MAX_DEPTH} deep")
            elif event in ("end_map", "end_array"):
                depth -= 1
            elif value == _CLIPPED:
                raise SubmissionError(f"a line of the notebook's code or text is longer than {MAX_STRING >> 20} MB; "
                                      "split it, or load the data from a file")
            self._size += len(value) if isinstance(value, str) else 8
            if self._size > MAX_KEPT:
                raise SubmissionError(f"the notebook's code and text are over {MAX_KEPT >> 20} MB (outputs "
                                      "and attachments aside); move data into files")
            builder.event(event, value)
            if depth == 0:
                return builder.value
            event, value = self._next()



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
        meta = _as_dict(cell.get("metadata"))
        tags = _as_list(meta.get("tags"))
        out.append((index, source, {t for t in tags if isinstance(t, str)}))
    return out


def code_cell(source: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}



def with_cells(nb: dict, cells: list) -> dict:
    nb = json.loads(json.dumps(nb))
    nb["cells"] += cells
    return nb


def graded_functions(release: dict) -> set[str]:
    """Names of the functions the release's graded cells define (what students implement)."""
    names = set()
    for _, _, text in _tagged_cells(release, "graded", "code"):
        try:
            names |= {n.name for n in serial.parse(text).body if isinstance(n, ast.FunctionDef)}
        except SyntaxError:
            continue
    return names
