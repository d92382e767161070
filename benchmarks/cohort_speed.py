"""Grading a synthetic cohort: `pdl grade-cohort` warm and cold vs `nbgrader autograde` vs sequential `otter run`.

    python benchmarks/cohort_speed.py [--n 50] [--assignment ex2_3_ising_perceptron] [--skip-otter] [--skip-nbgrader]

All grade the same answers (correct / half-stubbed / untouched, cycled) in one run on this
machine. The script prints seconds per submission for each, the ratios, the floor (the hidden
tests against the reference in one plain pytest process, median of 3) and each pdl figure as a
fraction of it, `pdl grade-cohort` warm (students' processes forked from a template, the default)
against cold (`PDL_WARM=0`: a fresh sandboxed interpreter per submission), the scaling from
--workers 1 to --workers 2, and the time a cohort of 200 would take at the measured rate (issue 24's
target: 200 on 2 cores in 100 s, 0.2x the floor per submission). No assertion: machines are noisy.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.cohort.grade import grade_cohort  # noqa: E402
from autograder.course import nbgrader as nbg  # noqa: E402
from autograder.course.generate import otter_zip_path  # noqa: E402
from autograder.course.source import load, stub  # noqa: E402
from autograder.course.validate import variant_notebook  # noqa: E402

KINDS = ("correct", "partial", "stub")


def nbgrader_variant(assignment: str, kind: str) -> dict:
    src = json.loads((nbg.course_root() / "source" / assignment / f"{assignment}.ipynb").read_text())
    if kind == "correct":
        return src
    names = load(assignment).graded_functions()
    only = set(names) if kind == "stub" else set(names[1::2])
    for cell in src["cells"]:
        if "graded" in cell["metadata"].get("tags", []):
            cell["source"] = stub("".join(cell["source"]), only=only)
    return src


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--assignment", default="ex2_3_ising_perceptron")
    ap.add_argument("--skip-otter", action="store_true")
    ap.add_argument("--skip-nbgrader", action="store_true")
    args = ap.parse_args()
    aid, n = args.assignment, args.n
    rows = {}
    with tempfile.TemporaryDirectory(prefix="pdl-bench-") as tmp:
        tmp = Path(tmp)
        ours = {k: json.dumps(variant_notebook(aid, k)) for k in KINDS}
        for i in range(n):
            d = tmp / "cohort" / f"student{i:03d}"
            d.mkdir(parents=True)
            (d / f"{aid}.ipynb").write_text(ours[KINDS[i % 3]])

        floors = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"grading_tests/{aid}"],
                           cwd=REPO, capture_output=True, check=True)
            floors.append(time.perf_counter() - start)
        floor = statistics.median(floors)
        print(f"floor (pytest grading_tests/{aid} on the reference): {floor:.2f} s", flush=True)
        scores = {}
        for name, workers, warm in (("pdl grade-cohort --workers 2 (cold)", 2, "0"),
                                    ("pdl grade-cohort --workers 1", 1, "1"),
                                    ("pdl grade-cohort --workers 2", 2, "1")):
            os.environ["PDL_WARM"] = warm
            start = time.perf_counter()
            summary = grade_cohort(tmp / "cohort", aid, tmp / f"out-{workers}-{warm}", workers=workers, progress=True)
            rows[name] = (time.perf_counter() - start) / n
            scores[name] = sorted((r.student, r.score) for r in summary.results)
            print(f"{name}: {rows[name]:.2f} s/submission", flush=True)
        os.environ.pop("PDL_WARM")
        if len({tuple(v) for v in scores.values()}) != 1:
            print("WARNING: warm and cold grading gave different scores", flush=True)

        if not args.skip_nbgrader:
            db = f"sqlite:///{tmp / 'gradebook.db'}"  # its own gradebook, whatever the course's holds
            nbg.generate_assignment(aid, db_url=db)
            for kind in KINDS:
                (tmp / f"nbg-{kind}.ipynb").write_text(json.dumps(nbgrader_variant(aid, kind)))
            for i in range(n):  # benchmark students only; the course's own submissions are left alone
                nbg.submit(aid, f"pdlbench{i:03d}", tmp / f"nbg-{KINDS[i % 3]}.ipynb")
            start = time.perf_counter()
            nbg.autograde(aid, student="pdlbench*", db_url=db)
            rows["nbgrader autograde"] = (time.perf_counter() - start) / n
            for folder in ("submitted", "autograded"):
                for d in (nbg.course_root() / folder).glob("pdlbench*"):
                    shutil.rmtree(d, ignore_errors=True)
            print(f"nbgrader autograde: {rows['nbgrader autograde']:.2f} s/submission", flush=True)

        if not args.skip_otter:
            zip_path = otter_zip_path(aid)
            otter = Path(sys.executable).parent / "otter"
            start = time.perf_counter()
            for i in range(n):
                nb = tmp / "cohort" / f"student{i:03d}" / f"{aid}.ipynb"
                subprocess.run([str(otter), "run", "-a", str(zip_path), "-o", str(tmp), "--no-logo", str(nb)],
                               cwd=tmp, capture_output=True, check=False, timeout=600)
            rows["otter run (sequential)"] = (time.perf_counter() - start) / n
            print(f"otter run: {rows['otter run (sequential)']:.2f} s/submission", flush=True)

    base = rows["pdl grade-cohort --workers 2"]
    print(f"\n{aid}, {n} submissions (correct/partial/stub), seconds per submission:")
    for name, sec in rows.items():
        print(f"  {name:40s} {sec:6.2f}   ({sec / base:5.2f}x pdl --workers 2, {sec / floor:5.2f}x the floor)")
    print(f"  warm vs cold (--workers 2): {rows['pdl grade-cohort --workers 2 (cold)'] / base:.2f}x faster")
    print(f"  scaling --workers 1 -> 2: {rows['pdl grade-cohort --workers 1'] / base:.2f}x faster")
    print(f"  a cohort of 200 at this rate: {200 * base:.0f} s (target 100 s; the floor is {floor:.2f} s, "
          f"the target per submission 0.2x the floor = {0.2 * floor:.2f} s)")


if __name__ == "__main__":
    main()
