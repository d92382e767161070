"""Is each mistake charged exactly once, and can carrying an error forward be forged? (issue 32)

    python benchmarks/carry_quality.py [ID ...] [--mutants N] [--workers N] [--verbose]

Every ``wrong`` and ``rewrite`` cell and a fixed sample of mutants (default 12 per assignment) are
graded in-process with error carried forward on (``autograder.course.carry_quality``), and the
forging variants generated from each reference. Prints, per assignment and in total:

* over-charged cells: points lost > the points the release advertises for the wrong function (goal 0);
* under-charged cells: a wrong function that loses 0 with carrying on but not with it off (goal 0);
* forged points: what the forging variants gain from carrying forward (goal 0), and reference
  values of the re-runs shown in feedback by the recording variants (goal 0).

Exit status 1 when any of the three is not 0.
"""

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course.carry_quality import MUTANTS, describe, measure_assignment  # noqa: E402
from autograder.course.source import all_assignments  # noqa: E402


def job(assignment: str, mutants: int) -> tuple[str, list[str], dict]:
    measured = measure_assignment(assignment, mutants)
    mistakes = [m for m in measured if not m.cell.kind.startswith("forge:")]
    forging = [m for m in measured if m.cell.kind.startswith("forge:")]
    figures = {"cells": len(mistakes), "over": sum(m.over for m in mistakes), "under": sum(m.under for m in mistakes),
               "carried": sum(m.carried > 0 for m in mistakes), "forging": len(forging),
               "forged": sum(m.forged for m in forging), "shown": sum(len(m.shown) for m in forging),
               "vacuous": sum(m.cell.kind == "forge:recording" and not m.delegated for m in forging)}
    return assignment, [describe(m) for m in measured], figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("assignments", nargs="*", help="assignment ids (default: all)")
    ap.add_argument("--mutants", type=int, default=MUTANTS, help="mutants per assignment (a fixed sample)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--verbose", action="store_true", help="a line for every cell, not only the failing ones")
    args = ap.parse_args()
    ids = args.assignments or all_assignments()
    start = time.monotonic()
    total = {"cells": 0, "over": 0, "under": 0, "carried": 0, "forging": 0, "forged": 0.0, "shown": 0, "vacuous": 0}
    with ProcessPoolExecutor(max_workers=max(1, min(args.workers, len(ids)))) as pool:
        futures = [pool.submit(job, aid, args.mutants) for aid in ids]
        for future in as_completed(futures):
            aid, lines, figures = future.result()
            print(f"{aid}: {figures['cells']} cells, over-charged {figures['over']}, under-charged "
                  f"{figures['under']}, {figures['carried']} with a carried test; {figures['forging']} forging "
                  f"variants, forged points {figures['forged']:g}, reference values shown {figures['shown']}",
                  flush=True)
            for line in lines:
                if args.verbose or not line.lstrip().startswith("ok"):
                    print("    " + line)
            for key in total:
                total[key] += figures[key]
    print(f"\nTOTAL over {len(ids)} assignments: {total['cells']} cells (wrong, rewrite, mutants): "
          f"over-charged {total['over']}, under-charged {total['under']} ({total['carried']} with a carried test); "
          f"{total['forging']} forging variants: forged points {total['forged']:g}, reference values shown "
          f"{total['shown']}" + (f" ({total['vacuous']} recording variants received none: not checked)"
                                 if total["vacuous"] else "") + f"  ({time.monotonic() - start:.0f} s)")
    return 0 if (total["over"] == total["under"] == total["shown"] == total["vacuous"] == 0
                 and total["forged"] == 0) else 1


if __name__ == "__main__":
    sys.exit(main())
