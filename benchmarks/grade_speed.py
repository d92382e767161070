"""Wall time of `pdl grade`, measured side by side with what it is compared to.

    python benchmarks/grade_speed.py [ASSIGNMENT] [--repeat N] [--skip-otter]

1. `pdl grade` vs `otter run` on the correct submission;
2. the cost of naming mistakes: `pdl grade` on a partial submission (every other graded
   function stubbed) with the diagnosis on and off (`PDL_DIAGNOSE=0`), and the same on a
   notebook that makes two of the assignment's catalogued mistakes (where the diagnosis
   actually replays the mistakes); target for the partial one: at most 1.3x;
3. the floor: the hidden tests against the reference in one plain pytest process
   (`pytest grading_tests/<id>`, no grader, no sandbox, no notebook), and `pdl grade / floor`.

Every command is a fresh process (what a TA types), alternating, N times each; the script
prints medians and ratios. No assertion: machines are noisy.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course.generate import otter_zip_path  # noqa: E402
from autograder.course.synth import variant_notebook  # noqa: E402


def timed(cmd, cwd, env=None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def two_mistakes_notebook(aid: str) -> dict:
    """The solution notebook plus the first two wrong cells that redefine different functions."""
    from autograder.run.diagnose.catalogue import _defined_names
    from autograder.run.mistakes import read_mistakes
    from autograder.run.notebook import code_cell, with_cells

    chosen, names = [], set()
    for m in read_mistakes(aid):
        defined = _defined_names(m.code)
        if not defined & names:
            chosen.append(m)
            names |= defined
        if len(chosen) == 2:
            break
    return with_cells(variant_notebook(aid, "correct"), [code_cell(m.code) for m in chosen])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("assignment", nargs="?", default="ex2_3_ising_perceptron")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-otter", action="store_true", help="only the diagnosis and the floor")
    args = parser.parse_args()
    aid = args.assignment
    bindir = Path(sys.executable).parent
    zip_path = otter_zip_path(aid)
    if not args.skip_otter and not zip_path.exists():
        sys.exit(f"no {zip_path}; run `pdl generate {aid}` first (or pass --skip-otter)")
    on = dict(os.environ, PDL_DIAGNOSE="1")
    off = dict(os.environ, PDL_DIAGNOSE="0")
    times: dict[str, list[float]] = {}

    def run(label, cmd, cwd, env=None):
        times.setdefault(label, []).append(timed(cmd, cwd, env))

    with tempfile.TemporaryDirectory() as tmp:
        nbs = {}
        for kind, nb in (("correct", variant_notebook(aid, "correct")), ("partial", variant_notebook(aid, "partial")),
                         ("two mistakes", two_mistakes_notebook(aid))):
            path = Path(tmp) / kind.replace(" ", "_") / f"{aid}.ipynb"
            path.parent.mkdir()
            path.write_text(json.dumps(nb))
            nbs[kind] = path
        grade = lambda kind: [str(bindir / "pdl"), "grade", str(nbs[kind]), "--assignment", aid]  # noqa: E731
        otter_cmd = [str(bindir / "otter"), "run", "-a", str(zip_path), "-o", tmp, "--no-logo", str(nbs["correct"])]
        floor_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"grading_tests/{aid}"]
        for i in range(args.repeat):
            run("pdl grade, correct", grade("correct"), tmp)
            if not args.skip_otter:
                run("otter run, correct", otter_cmd, tmp)
            run("floor: pytest grading_tests/<id> on the reference", floor_cmd, REPO)
            run("pdl grade, partial, diagnosis on", grade("partial"), tmp, on)
            run("pdl grade, partial, diagnosis off", grade("partial"), tmp, off)
            run("pdl grade, two mistakes, diagnosis on", grade("two mistakes"), tmp, on)
            run("pdl grade, two mistakes, diagnosis off", grade("two mistakes"), tmp, off)
            print(f"run {i + 1}: " + ", ".join(f"{k.split(',')[0] if k.startswith('floor') else k} {v[-1]:.2f} s"
                                               for k, v in times.items()), flush=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\n{aid}: median of {args.repeat} runs")
    for k, v in med.items():
        print(f"  {k:55s} {v:6.2f} s")
    print()
    if not args.skip_otter:
        o, p = med["otter run, correct"], med["pdl grade, correct"]
        print(f"  ratio otter/pdl = {o / p:.2f}  (pdl grade is {o / p:.1f}x as fast)")
    ratio = med["pdl grade, partial, diagnosis on"] / med["pdl grade, partial, diagnosis off"]
    print(f"  diagnosis cost, partial submission: on/off = {ratio:.2f}  (target <= 1.3)")
    two = med["pdl grade, two mistakes, diagnosis on"] / med["pdl grade, two mistakes, diagnosis off"]
    print(f"  diagnosis cost, two catalogued mistakes: on/off = {two:.2f}")
    floor = med["floor: pytest grading_tests/<id> on the reference"]
    print(f"  pdl grade / floor = {med['pdl grade, correct'] / floor:.2f}  (correct submission; the floor is "
          f"the hidden tests against the reference in one plain pytest process, {floor:.2f} s)")
    imports = {}
    for what in ("autograder.run.grading", "autograder.run.diagnose",
                 "autograder.run.worker, IPython.core.interactiveshell", "nbformat"):
        cmd = [sys.executable, "-c", f"import {what}"]
        imports[what] = statistics.median(timed(cmd, REPO) for _ in range(3))
    print("\nimport time of a fresh interpreter (median of 3), to keep the grading path lean:")
    for what, sec in imports.items():
        print(f"  import {what:50s} {sec:5.2f} s")


if __name__ == "__main__":
    main()
