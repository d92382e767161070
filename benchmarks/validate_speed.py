"""`pdl validate` over several assignments: cold and one at a time (as before issue 24) vs warm and
in parallel (the default), side by side in one run.

    python benchmarks/validate_speed.py [ID ...] [--full]

Default: ex2_1_cumulants and ex3_1_wick in the fast mode (`--mutants 0 --no-otter
--no-gradescope`); `--full` adds the mutants, the otter parity and the Gradescope simulation. Prints
each run's wall time, the ratio, and the time `--all` would take at the measured rate per
assignment (issue 24's target: the full `pdl validate --all` in 15 minutes on 2 cores). No
assertion: machines are noisy.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course.source import all_assignments  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ids", nargs="*", default=["ex2_1_cumulants", "ex3_1_wick"])
    ap.add_argument("--full", action="store_true")
    args = ap.parse_args()
    fast = [] if args.full else ["--mutants", "0", "--no-otter", "--no-gradescope"]
    pdl = [sys.executable, "-m", "autograder.cli", "validate", *args.ids, *fast]
    rows = {}
    for name, extra, warm in (("cold, one at a time", ["--workers", "1"], "0"),
                              ("warm, in parallel (default)", [], "1")):
        start = time.perf_counter()
        proc = subprocess.run(pdl + extra, cwd=REPO, env=dict(os.environ, PDL_WARM=warm),
                              capture_output=True, text=True)
        rows[name] = time.perf_counter() - start
        print(f"{name}: {rows[name]:.0f} s (exit {proc.returncode})", flush=True)
    cold, warm = rows["cold, one at a time"], rows["warm, in parallel (default)"]
    n, total = len(args.ids), len(all_assignments())
    print(f"\n{n} assignments ({'full' if args.full else 'fast mode'}): {cold:.0f} s -> {warm:.0f} s "
          f"({cold / warm:.2f}x faster); --all at this rate: about {warm / n * total / 60:.0f} min "
          f"(target 15 min for the full run)")


if __name__ == "__main__":
    main()
