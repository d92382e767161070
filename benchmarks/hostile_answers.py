"""What a hostile answer costs the grader, side by side with a correct notebook.

    python benchmarks/hostile_answers.py [ASSIGNMENT] [--repeat N]

Each graded function of the correct notebook is redefined to return the largest array the
channel carries (16 MB of int8: 128 MB once converted to floats) where the reference returns a
few numbers; a second hostile notebook sends such arrays back as inputs (its functions return
what they are given, grown). For each notebook, N alternating runs of ``grading.grade``:
the grader's peak memory (its bounded child: ``GradeReport.grader_mb``) and wall time, medians,
and the ratios hostile / correct. Targets (issue 21): memory <= 2x, time <= 1.2x. No assertion:
machines are noisy.
"""

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course.source import load  # noqa: E402
from autograder.course.synth import variant_notebook  # noqa: E402
from autograder.run.grading import grade  # noqa: E402
from autograder.run.notebook import code_cell, with_cells  # noqa: E402

BIG = ("import numpy as _np\n"
       "def _big(*a, **k):\n"
       "    return _np.zeros(2**24, dtype=_np.int8)\n")


def hostile(aid: str) -> dict:
    names = load(aid).graded_functions()
    return with_cells(variant_notebook(aid, "correct"),
                      [code_cell(BIG + "".join(f"{n} = _big\n" for n in names))])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("assignment", nargs="?", default="ex2_3_ising_perceptron")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    aid = args.assignment
    runs = {"correct": [], "hostile": []}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for kind, nb in (("correct", variant_notebook(aid, "correct")), ("hostile", hostile(aid))):
            paths[kind] = Path(tmp) / kind / f"{aid}.ipynb"
            paths[kind].parent.mkdir()
            paths[kind].write_text(json.dumps(nb))
        for _ in range(args.repeat):
            for kind, path in paths.items():
                start = time.perf_counter()
                report = grade(path, aid)
                runs[kind].append((time.perf_counter() - start, report.grader_mb, report.score))
    med = {k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v), v[0][2])
           for k, v in runs.items()}
    for kind, (sec, mb, score) in med.items():
        print(f"{kind:8s} {sec:6.2f} s  grader peak {mb:7.1f} MB  score {score:g}")
    print(f"hostile / correct: time {med['hostile'][0] / med['correct'][0]:.2f}x (target <= 1.2x), "
          f"grader memory {med['hostile'][1] / med['correct'][1]:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
