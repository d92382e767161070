"""A large synthetic cohort, end to end: N submissions cycling through good, partial, broken
and hostile notebooks (autograder.course.synth), graded by `pdl grade-cohort`; prints whether every
submission got a row and the score each kind deserves, and the time per submission.

    python benchmarks/synthetic_cohort.py [--n 200] [--workers 2] [--assignment ex2_3_ising_perceptron]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.cohort.grade import grade_cohort  # noqa: E402
from autograder.cohort.outputs import write_outputs  # noqa: E402
from autograder.course.synth import hostile_cohort  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--assignment", default="ex2_3_ising_perceptron")
    args = ap.parse_args()
    cases = list(hostile_cohort(args.assignment).items())
    with tempfile.TemporaryDirectory(prefix="pdl-synth-") as tmp:
        folder = Path(tmp) / "cohort"
        expected = {}
        for i in range(args.n):
            kind, (content, deserves) = cases[i % len(cases)]
            student = f"s{i:04d}_{kind}"
            (folder / student).mkdir(parents=True)
            (folder / student / f"{args.assignment}.ipynb").write_text(content)
            expected[student] = deserves
        start = time.perf_counter()
        summary = grade_cohort(folder, args.assignment, Path(tmp) / "out", workers=args.workers,
                               timeout=20, call_timeout=8, memory_mb=2048)
        seconds = time.perf_counter() - start
        write_outputs(summary, Path(tmp) / "out")
    rows = {r.student: r for r in summary.results}
    full = max(r.max_score for r in rows.values())
    wrong = [s for s, d in expected.items() if s not in rows or not {
        "full": rows[s].score == full, "zero": rows[s].score == 0,
        "less": 0 < rows[s].score < full, "partial": 0 < rows[s].score < full}[d]]
    print(f"{len(expected)} submissions, {len(rows)} rows ({len(expected) - len(rows)} lost)")
    print(f"{len(expected) - len(wrong)}/{len(expected)} got the score their honest content deserves"
          + (f"; not: {wrong[:10]}" if wrong else ""))
    print(f"{seconds:.0f} s in all, {seconds / len(expected):.2f} s per submission")


if __name__ == "__main__":
    main()
