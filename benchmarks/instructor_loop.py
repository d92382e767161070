"""The instructor's loop, end to end, as the commands an instructor runs (issue 42, item 2).

    python benchmarks/instructor_loop.py                      # quick validate of ex2_3 and ex4_4
    python benchmarks/instructor_loop.py --full               # and the full `pdl validate ex4_4_lazy_lab`
    python benchmarks/instructor_loop.py --all                # and `pdl validate --all` (quick)
    python benchmarks/instructor_loop.py --new-year           # and `pdl new-year` in a copy of the checkout

Each figure is the wall time of the `pdl` command itself (a fresh process: imports, warm templates
and all), printed next to the issue's target; the new year runs in a `git worktree` of HEAD, so
the checkout is not touched. No assertion: machines are noisy, and the load is printed with each.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PDL = [sys.executable, "-m", "autograder.cli"]
QUICK = ["--quick"]


def run(name: str, command: list[str], target_s: float, cwd: Path = REPO) -> float:
    load = os.getloadavg()[0]
    start = time.monotonic()
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.monotonic() - start
    verdict = "within" if seconds <= target_s else "OVER"
    print(f"{name:<52} {seconds:7.1f} s  (target {target_s:g} s: {verdict}; exit {proc.returncode}; "
          f"load {load:.1f})", flush=True)
    if proc.returncode:
        print("    " + "\n    ".join((proc.stdout + proc.stderr).strip().splitlines()[-6:]), flush=True)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="*", default=["ex2_3_ising_perceptron", "ex4_4_lazy_lab"])
    parser.add_argument("--full", action="store_true", help="the full validate of the last id")
    parser.add_argument("--all", action="store_true", help="pdl validate --all, quick")
    parser.add_argument("--new-year", action="store_true", help="pdl new-year in a worktree of HEAD")
    args = parser.parse_args()
    for aid in args.ids:
        run(f"pdl validate {aid} --quick", [*PDL, "validate", aid, *QUICK], 30)
    if args.full:
        run(f"pdl validate {args.ids[-1]} (full)", [*PDL, "validate", args.ids[-1]], 180)
    if args.all:
        run("pdl validate --all --quick", [*PDL, "validate", "--all", *QUICK], 15 * 60)
    if args.new_year:
        with tempfile.TemporaryDirectory(prefix="pdl-new-year-") as tmp:
            copy = Path(tmp) / "course"
            subprocess.run(["git", "worktree", "add", "--detach", str(copy), "HEAD"], cwd=REPO, check=True,
                           capture_output=True)
            try:
                year = int((REPO / "course_config.py").read_text().split("YEAR = ")[1].split()[0]) + 1
                run(f"pdl new-year {year} --keep-deadlines (a copy)",
                    [*PDL, "new-year", str(year), "--keep-deadlines"], 5 * 60, cwd=copy)
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(copy)], cwd=REPO, capture_output=True)
                shutil.rmtree(copy, ignore_errors=True)


if __name__ == "__main__":
    main()
