"""What a hostile answer costs the grader, side by side with a correct notebook.

    python benchmarks/hostile_answers.py [ASSIGNMENT] [--repeat N]

Each graded function of the correct notebook is redefined to return the largest array the
channel carries (16 MB of int8: 128 MB once converted to floats) where the reference returns a
few numbers. For each notebook, N alternating runs of ``grading.grade``:
the grader's peak memory and CPU time (its bounded child: ``GradeReport.grader_mb``,
``grader_cpu_s``) and the wall time, medians, and the ratios hostile / correct. Targets (issue 21):
the grader's memory <= 2x, its time <= 1.2x. No assertion: machines are noisy.
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
                runs[kind].append((time.perf_counter() - start, report.grader_mb, report.grader_cpu_s, report.score))
    med = {k: [statistics.median(r[i] for r in v) for i in range(3)] + [v[0][3]] for k, v in runs.items()}
    for kind, (sec, mb, cpu, score) in med.items():
        print(f"{kind:8s} wall {sec:6.2f} s  grader CPU {cpu:6.2f} s  grader peak {mb:7.1f} MB  score {score:g}")
    ratio = {i: med["hostile"][i] / med["correct"][i] for i in range(3)}
    print(f"hostile / correct: grader CPU time {ratio[2]:.2f}x (target <= 1.2x), grader memory {ratio[1]:.2f}x "
          f"(target <= 2x); wall time {ratio[0]:.2f}x (includes the student's own process)")


if __name__ == "__main__":
    main()
