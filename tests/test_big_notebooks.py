"""Any notebook a student can produce is graded: big figures and attachments are dropped unread
before the notebook reaches the student's process, a file over the size cap is refused with a
note (the batch goes on), and the one read of a submission (``notebook.load_submission``)
streams the file, keeping only what grading needs (memory: benchmarks/notebook_memory.py)."""

import base64
import json
import math
import os
import random

import pytest
from conftest import EXEMPLAR

from autograder.cli import main as pdl
from autograder.run import notebook
from autograder.run.grading import grade
from autograder.run.notebook import SubmissionError, code_cells, load_submission
from autograder.run.paths import REPO

LIMITS = {"timeout": 60, "call_timeout": 10, "memory_mb": 2048}
CORRECT = REPO / "examples" / "submissions" / EXEMPLAR / "correct.ipynb"
HOME_FILE_CELL = (  # run in the student's process: the notebook file in its home holds no output
    "import json as _json\n"
    f"_cells = _json.load(open({EXEMPLAR + '.ipynb'!r}))['cells']\n"
    "assert not [c for c in _cells if c.get('outputs') or c.get('attachments') or c.get('execution_count')], "
    "'outputs reached the student'\n")


def write_with_blob(path, nb: dict, place, size_mb: int) -> None:
    """``nb`` with ``size_mb`` MB of base64 (random bytes behind a PNG signature) where ``place(nb,
    marker)`` puts the marker string; written in pieces, so the test never holds the file."""
    marker = "@@BLOB@@"
    place(nb, marker)
    head, tail = json.dumps(nb, indent=1).split(marker)
    with open(path, "w") as fh:
        fh.write(head)
        fh.write(base64.b64encode(b"\x89PNG\r\n\x1a\n").decode())
        # 1 MB of base64 at a time
        fh.writelines(base64.b64encode(os.urandom(3 << 18)).decode() for _ in range(size_mb))
        fh.write(tail)


def with_home_check(nb: dict) -> dict:
    nb["cells"].append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                        "source": HOME_FILE_CELL})
    return nb


def first_code(nb: dict) -> dict:
    return next(c for c in nb["cells"] if c["cell_type"] == "code")


def add_figure(nb, marker):
    first_code(nb).update(execution_count=7, outputs=[
        {"output_type": "display_data", "metadata": {}, "data": {"image/png": marker, "text/plain": ["<Figure>"]}}])


def add_attachment(nb, marker):
    cell = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
    cell["attachments"] = {"photo.png": {"image/png": marker}}
    cell["source"] = "![photo](attachment:photo.png)\n" + "".join(cell["source"])


@pytest.mark.parametrize("place,size_mb", [(add_figure, 30), (add_attachment, 150)],
                         ids=["30 MB figure", "150 MB attachment"])
def test_a_correct_notebook_with_big_outputs_gets_full_marks(tmp_path, place, size_mb):
    path = tmp_path / f"{EXEMPLAR}.ipynb"
    write_with_blob(path, with_home_check(json.loads(CORRECT.read_text())), place, size_mb)
    assert path.stat().st_size > size_mb << 20
    report = grade(path, EXEMPLAR, **LIMITS)
    assert report.max_score > 0 and report.score == report.max_score, report.errors
    assert report.errors == [], report.errors  # the home-file cell found no output either


def test_a_notebook_over_the_size_cap_is_refused_with_a_note_and_the_batch_goes_on(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(notebook, "MAX_NOTEBOOK_MB", 2)
    write_with_blob(tmp_path / "big.ipynb", json.loads(CORRECT.read_text()), add_figure, 3)
    (tmp_path / "small.ipynb").write_bytes(CORRECT.read_bytes())
    out = tmp_path / "all.json"
    assert pdl(["grade", str(tmp_path), "--assignment", EXEMPLAR, "--call-timeout", "10", "--json", str(out)]) == 1
    by = {r["submission"].rsplit("/", 1)[-1]: r for r in json.loads(out.read_text())}
    assert by["big.ipynb"]["score"] == 0 and by["big.ipynb"]["max_score"] > 0
    assert by["big.ipynb"]["errors"] == [
        ("invalid notebook: the notebook is 3 MB, over the 2 MB limit; clear its outputs "
         "(Kernel > Restart & Clear Output), save it and submit again")]
    assert by["small.ipynb"]["score"] == by["small.ipynb"]["max_score"] > 0


def stripped(nb: dict) -> dict:
    """What load_submission keeps of ``nb`` (an nbformat 4 notebook), computed the plain way."""
    keep = {"id", "cell_type", "source", "metadata"}
    cells = []
    for cell in nb["cells"]:
        out = {k: v for k, v in cell.items() if k in keep}
        out["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k in ("tags", "pdl")}
        if cell["cell_type"] == "code":
            out.update(outputs=[], execution_count=None)
        cells.append(out)
    meta = {k: v for k, v in nb.get("metadata", {}).items() if k in ("kernelspec", "language_info")}
    return {"cells": cells, "metadata": meta, "nbformat": nb["nbformat"], "nbformat_minor": nb["nbformat_minor"]}


def awkward_notebook(rng: random.Random) -> dict:
    """A notebook of strings full of escapes, quotes and non-ASCII text, with outputs and attachments."""
    alphabet = ['"', "\\", "\n", "\t", "a", "é", "€", "😀", " ", "{", "]", ":", ",", "\x01", "1", "e", "NaN",
                "-Infinity"]

    def text(n):
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(n)))
    cells = []
    for k in range(12):
        kind = rng.choice(["code", "markdown", "raw"])
        cell = {"cell_type": kind, "id": f"c{k}", "source": [text(30) for _ in range(rng.randrange(4))],
                "metadata": {"tags": [text(5)], "pdl": {"question": text(8), "points": 1.5}, "scrolled": True,
                             "collapsed": {text(4): [1, 2.5e-3, None, True, math.nan, -math.inf]}}}
        if kind == "code":
            cell.update(execution_count=k, outputs=[{"output_type": "stream", "name": "stdout", "text": [text(90)]},
                                                   {"output_type": "display_data", "metadata": {},
                                                    "data": {"image/png": text(300), "text/plain": text(20),
                                                             "application/json": [math.nan, math.inf, -math.inf]}}])
        elif kind == "markdown":
            cell["attachments"] = {text(6): {"image/png": text(200)}}
        cells.append(cell)
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": text(10)},
                                          "widgets": {text(5): text(100)}}, "nbformat": 4, "nbformat_minor": 5}


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_streaming_keeps_exactly_the_allow_list_whatever_the_chunks(tmp_path, monkeypatch, chunk):
    """Strings that cross chunk boundaries, escapes split between two chunks, long strings
    skipped: the kept notebook equals what a full parse and the allow-list give."""
    monkeypatch.setattr(notebook, "_CHUNK", chunk)
    monkeypatch.setattr(notebook, "MAX_STRING", max(chunk, 400))  # the image strings are skipped unread
    rng = random.Random(chunk)
    for k in range(5):
        nb = awkward_notebook(rng)
        path = tmp_path / f"{k}.ipynb"
        path.write_text(json.dumps(nb, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1])))
        data, kept = load_submission(path)
        assert kept == json.loads(data) == stripped(nb)
        assert code_cells(kept) == code_cells(nb)


def test_nan_and_infinity_as_jupyter_writes_them_are_read(tmp_path):
    """Python's and nbformat's JSON write NaN, Infinity and -Infinity for a non-finite output: the
    notebook is read (outputs are dropped unread), and the same words inside code are kept."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x = float('NaN')  # -Infinity")
    cell.outputs = [nbformat.v4.new_output("execute_result", {"application/json": {"v": [math.nan, -math.inf]}},
                                           execution_count=1)]
    nb.cells = [cell]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    assert "NaN" in path.read_text() and nbformat.read(path, as_version=4).cells[0].outputs
    assert code_cells(load_submission(path)[1]) == [(0, "x = float('NaN')  # -Infinity", set())]


def test_only_the_allow_list_is_kept_and_key_paths_cannot_be_forged(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({
        "cells.item.source": "import os", "cells": [
            {"cell_type": "code", "source": "x = 1", "metadata": {"tags": ["t"], "evil": "y" * 1000},
             "outputs": [{"output_type": "stream", "text": "z" * (3 << 20)}], "execution_count": 3, "extra": [1]},
            "not a cell"],
        "metadata": {"widgets": {"state": "w" * 1000}}, "nbformat": 4, "nbformat_minor": 5}))
    data, nb = load_submission(path)
    assert nb == {"cells": [{"cell_type": "code", "source": "x = 1", "metadata": {"tags": ["t"]},
                             "outputs": [], "execution_count": None}, None],
                  "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    assert json.loads(data) == nb and code_cells(nb) == [(0, "x = 1", {"t"})]


@pytest.mark.parametrize("content,reason", [
    ('{"cells": [{"cell_type": "code", "source": "@LONG@"}]}', "longer than 2 MB"),
    ('{"cells": [], "outputs": [' + "1" * 70_000 + "]}", "a number of more than 64 KB"),
    ('{"cells": [], "outputs": ' + "[" * 600 + "]" * 600 + "}", "nested more than 512 deep"),
    ('{"cells": []} {}', "not valid JSON"),
    ('{"cells": [], "x": "unterminated', "not valid JSON"),
    ("  \n ", "empty"),
])
def test_what_cannot_be_kept_is_refused_with_its_reason(tmp_path, content, reason):
    path = tmp_path / "nb.ipynb"
    path.write_text(content.replace("@LONG@", "x" * (3 << 20)))
    with pytest.raises(SubmissionError, match=reason):
        load_submission(path)


def test_many_siblings_long_outputs_and_a_big_kept_part(tmp_path, monkeypatch):
    """Wide (not deep) outputs and strings longer than MAX_STRING in them are fine; the kept part
    has a cap of its own."""
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "s = 1", "outputs": [
        [[k] for k in range(100_000)], {"text": "t" * (5 << 20)}]}], "nbformat": 4, "nbformat_minor": 5}))
    assert code_cells(load_submission(path)[1]) == [(0, "s = 1", set())]
    monkeypatch.setattr(notebook, "MAX_KEPT", 3)
    with pytest.raises(SubmissionError, match="code and text are over"):
        load_submission(path)


def test_a_byte_order_mark_is_read_past(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"cells": [{"cell_type": "code", "source": "b = 1"}]}).encode())
    assert code_cells(load_submission(path)[1]) == [(0, "b = 1", set())]


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "nb.ipynb"
    os.mkfifo(fifo)
    with pytest.raises(SubmissionError, match="not a regular file"):
        load_submission(fifo)


def test_an_nbformat_3_notebook_is_converted_without_its_outputs(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": "x"}, "worksheets": [
        {"cells": [{"cell_type": "code", "input": "y = 2", "language": "python", "metadata": {},
                    "outputs": [{"output_type": "pyout", "text": "2" * 100}], "prompt_number": 4},
                   {"cell_type": "heading", "level": 1, "source": "Title", "metadata": {}}], "metadata": {}}]}))
    data, nb = load_submission(path)
    assert nb["nbformat"] == 4 and code_cells(nb) == [(0, "y = 2", set())]
    assert nb["cells"][0]["outputs"] == [] and nb["cells"][0]["execution_count"] is None
    assert b'"2222' not in data


def test_the_word_a_chunk_may_cut_is_found_as_the_regular_expression_found_it():
    """``_word_tail`` (read from the chunk's end) gives the start the searched regular expression
    gave, on random chunks of letters, minus signs, digits and punctuation, from any start."""
    import re

    old = re.compile(rb"(?:-[A-Za-z]*|[A-Za-z]+)\Z")
    rng = random.Random(7)
    for _ in range(3000):
        chunk = bytes(rng.choice(b"aZ-1 ,]e") for _ in range(rng.randrange(12)))
        start = rng.randrange(len(chunk) + 1)
        found = old.search(chunk, start)
        assert notebook._word_tail(chunk, start) == (found.start() if found else None), (chunk, start)


HOSTILE_RUNS = r"""
import json, sys
sys.path.insert(0, sys.argv[2])
from autograder.run.notebook import SubmissionError, code_cells, load_submission
try:
    print(json.dumps([[i, s, sorted(t)] for i, s, t in code_cells(load_submission(sys.argv[1])[1])]))
except SubmissionError as exc:
    print(json.dumps(str(exc)))
"""


@pytest.mark.parametrize("text,expected", [
    # a student's long print (the letter run once took 72 s to read: a search quadratic in it)
    ('{"cells": [{"cell_type": "code", "source": "s = 1", "outputs": [{"text": "' + "x" * 1_500_000 + '"}]}], '
     '"nbformat": 4, "nbformat_minor": 5}', [[0, "s = 1", []]]),
    # number runs just under the 64 KB cap, outside strings (a search for 65536 of them was quadratic)
    ('{"cells": [], "outputs": [' + ",".join(["0." + "1" * 64_990] * 30) + "]}", [])], ids=["letters", "digits"])
def test_long_runs_are_read_in_time_linear_in_them(tmp_path, text, expected):
    """A notebook with a run of 1.5 MB of letters in an output, or of 30 numbers of 65 000 digits,
    is read (in a process of its own, stopped after 60 s: a read quadratic in the runs took
    minutes to hours; the read takes well under a second)."""
    import subprocess
    import sys

    path = tmp_path / "nb.ipynb"
    path.write_text(text)
    run = subprocess.run([sys.executable, "-c", HOSTILE_RUNS, str(path), str(REPO)], capture_output=True,
                         text=True, timeout=60)
    assert json.loads(run.stdout) == expected, run.stderr[-2000:]
