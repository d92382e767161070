"""Synthetic submissions: the hostile and broken cohort used by the tests and the benchmarks."""

from __future__ import annotations

import json

import nbformat

from autograder.course.source import load, stub
from autograder.run.notebook import code_cell, with_cells
from autograder.run.paths import REPO


def with_output(nb: dict, size: int) -> dict:
    """``nb`` with a PNG output of about ``size`` bytes (base64) on its first code cell."""
    nb = json.loads(json.dumps(nb))
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    cell["outputs"] = [{"output_type": "display_data", "metadata": {},
                        "data": {"image/png": "iVBORw0KGgo" + "A" * size, "text/plain": "<Figure>"}}]
    return nb


def hostile_cohort(assignment: str) -> dict[str, tuple[str, str]]:
    """student -> (file content, the score it deserves: 'full' | 'zero' | 'less' | 'partial').

    Good, partial, untouched and unreadable notebooks, and hostile ones: each hostile
    notebook is the correct solution plus an attack, so it deserves full marks (the attack
    must neither help nor hurt), except the liars and the hang, whose function deserves nothing.
    """
    correct = variant_notebook(assignment, "correct")
    first = load(assignment).graded_functions()[0]
    nb = lambda d: json.dumps(d)  # noqa: E731
    extra = lambda src: nb(with_cells(correct, [code_cell(src)]))  # noqa: E731
    redefine = lambda body: nb(with_cells(correct, [code_cell(f"def {first}(*args, **kwargs):\n{body}")]))  # noqa: E731
    v3 = nbformat.writes(nbformat.convert(nbformat.reads(json.dumps(correct), as_version=4), 3), version=3)
    return {
        "good1": (nb(correct), "full"), "good2": (nb(correct), "full"), "good3": (nb(correct), "full"),
        "partial": (nb(variant_notebook(assignment, "partial")), "partial"),
        "untouched": (nb(variant_notebook(assignment, "stub")), "zero"),
        "bad_json": (nb(correct)[:500], "zero"), "empty": ("", "zero"), "not_nb": ("[1, 2]", "zero"),
        "old_format": (v3, "full"),
        "loop": (extra("while True:\n    pass"), "full"),
        "os_exit": (extra("import os\nos._exit(0)"), "full"),
        "sys_exit": (extra("import sys\nsys.exit(3)"), "full"),
        "mem_bomb": (extra("blocks = []\nwhile True:\n    blocks.append(bytearray(2**27))"), "full"),
        "flood": (extra("import sys\nfor i in range(10**7):\n    sys.stdout.write(f'{i}\\n')"), "full"),
        "reader": (extra(f"print(open('{REPO}/solutions/{assignment}/__init__.py').read())"), "full"),
        "importer": (extra(f"import sys\nsys.path.insert(0, '{REPO}')\nfrom solutions.{assignment} import *"), "full"),
        "rewriter": (extra(f"open('{REPO}/grading_tests/{assignment}/test_{assignment}.py', 'w').write('')"), "full"),
        "fake_results": (extra("import json\njson.dump({'score': 1e9}, open('results.json', 'w'))\n"
                               "open('../../results.json', 'w').write('{}')"), "full"),
        "patcher": (extra("import numpy as np, math, pytest\nnp.allclose = lambda *a, **k: True\n"
                          "math.isclose = lambda *a, **k: True\npytest.approx = lambda *a, **k: 0"), "full"),
        "liar_eq": (redefine("    class L(float):\n        def __eq__(s, o): return True\n"
                             "    return L(-123.0)"), "less"),
        "liar_array": (redefine("    class A:\n        def __array__(s, *a, **k):\n"
                                "            import numpy\n            return numpy.array(-123.0)\n"
                                "        def __eq__(s, o): return True\n    return A()"), "less"),
        "liar_float": (redefine("    class F:\n        def __float__(s): return -123.0\n"
                                "        def __eq__(s, o): return True\n    return F()"), "less"),
        "never_returns": (redefine("    while True:\n        pass"), "less"),
        # 16 MB of int8 where a few numbers are expected: refused by its shape, never taken
        "big_answer": (redefine("    import numpy\n    return numpy.zeros(2**24, dtype=numpy.int8)"), "less"),
        # a correct notebook with 30 MB of figure output: the outputs never reach the grader's student
        "big_figure": (nb(with_output(correct, 30 * 2**20)), "full"),
    }


def variant_notebook(assignment: str, kind: str) -> dict:
    """A synthetic submission: ``correct`` (solution), ``stub`` (release), ``partial``
    (every other graded function stubbed)."""

    if kind == "stub":
        return json.loads((REPO / "assignments" / assignment / f"{assignment}.ipynb").read_text())
    nb = json.loads((REPO / "solutions" / assignment / f"{assignment}.ipynb").read_text())
    if kind == "correct":
        return nb
    if kind != "partial":
        raise ValueError(kind)
    names = load(assignment).graded_functions()
    stubbed = set(names[1::2])
    for cell in nb["cells"]:
        if "graded" in cell.get("metadata", {}).get("tags", []):
            cell["source"] = stub("".join(cell["source"]), only=stubbed)
    return nb
