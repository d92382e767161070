"""Wall time of `pdl grade` vs `otter run` on the same submission, measured side by side.

    python benchmarks/grade_speed.py [ASSIGNMENT] [--repeat N]

Both commands are run as fresh processes (what a TA types), alternating, N times each;
the script prints the median of each and their ratio. No assertion: machines are noisy.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.validate import variant_notebook  # noqa: E402


def timed(cmd, cwd) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("assignment", nargs="?", default="ex2_3_ising_perceptron")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    aid = args.assignment
    bindir = Path(sys.executable).parent
    zip_path = REPO / "dist" / "otter" / f"{aid}-autograder.zip"
    if not zip_path.exists():
        sys.exit(f"no {zip_path}; run `pdl generate {aid}` first")
    with tempfile.TemporaryDirectory() as tmp:
        nb = Path(tmp) / f"{aid}.ipynb"
        nb.write_text(json.dumps(variant_notebook(aid, "correct")))
        pdl_cmd = [str(bindir / "pdl"), "grade", str(nb), "--assignment", aid]
        otter_cmd = [str(bindir / "otter"), "run", "-a", str(zip_path), "-o", tmp, "--no-logo", str(nb)]
        pdl_times, otter_times = [], []
        for i in range(args.repeat):
            pdl_times.append(timed(pdl_cmd, tmp))
            otter_times.append(timed(otter_cmd, tmp))
            print(f"run {i + 1}: pdl grade {pdl_times[-1]:.2f} s, otter run {otter_times[-1]:.2f} s", flush=True)
    imports = {}
    for what in ("autograder.grading", "autograder.worker, IPython.core.interactiveshell", "nbformat"):
        cmd = [sys.executable, "-c", f"import {what}"]
        imports[what] = statistics.median(timed(cmd, REPO) for _ in range(3))
    p, o = statistics.median(pdl_times), statistics.median(otter_times)
    print(f"\n{aid}: median of {args.repeat} runs")
    print(f"  pdl grade : {p:6.2f} s")
    print(f"  otter run : {o:6.2f} s")
    print(f"  ratio otter/pdl = {o / p:.2f}  (pdl grade is {o / p:.1f}x as fast)")
    print("\nimport time of a fresh interpreter (median of 3), to keep the grading path lean:")
    for what, sec in imports.items():
        print(f"  import {what:50s} {sec:5.2f} s")


if __name__ == "__main__":
    main()
