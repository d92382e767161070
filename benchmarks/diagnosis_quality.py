"""Are the diagnoses right? Precision and recall over the course's own known mistakes.

    python benchmarks/diagnosis_quality.py [ID ...] [--mode normal|loo|both]
    python benchmarks/diagnosis_quality.py --unseen [ID ...]

Every ``wrong`` and ``rewrite`` cell of the sources (default: all assignments) is graded
in-process with the diagnosis on (``autograder.course.diagnosis_quality``): ``normal`` with the
full catalogue, ``loo`` (leave-one-out) with the cell's own mistake left out of it. A diagnosis is
right when it names the cell's own hint (normal mode only) or is a generic one that holds for the
cell's answers on the test's inputs (checked against the reference). Prints, per assignment and in
total, the diagnoses given and right (precision) and the cells that got a right one (recall: their
own hint in normal mode, a true generic one in leave-one-out), and every wrong diagnosis.
Targets (issue 22): precision 100 %, recall at least 50 %. Exit status 1 if a diagnosis is wrong.

``--unseen`` measures them instead on the unseen-mistakes corpus (``benchmarks/unseen_mistakes/``,
mistakes written apart from the engine; ``autograder.course.unseen``): each cell graded with the
diagnosis on, its diagnosis looked up in the verdicts judged by hand
(``benchmarks/unseen_mistakes/judged.csv``: accurate, fair, none, misleading) by its hash. Prints
the counts per assignment and in total, every misleading diagnosis with its reason, and the cells
whose diagnosis changed since judged ("to judge again", with the new text; not counted). Exit
status 1 if a diagnosis is misleading.
"""

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course.diagnosis_quality import figures, report  # noqa: E402
from autograder.course.source import all_assignments  # noqa: E402
from autograder.course.unseen import CORPUS  # noqa: E402
from autograder.course.unseen import report as unseen_report  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("assignments", nargs="*", help="assignment ids (default: all)")
    ap.add_argument("--mode", choices=["normal", "loo", "both"], default="both")
    ap.add_argument("--unseen", action="store_true",
                    help="the unseen-mistakes corpus, against the verdicts in benchmarks/unseen_mistakes/judged.csv")
    ap.add_argument("--corpus", default=None,
                    help="with --unseen: another corpus folder in the same format (benchmarks/heldout_mistakes)")
    ap.add_argument("--words", choices=["told", "lead", "both"], default="both",
                    help="with --unseen: judge the told text (judged.csv), the lead a student reads before "
                         "publication (judged_lead.csv), or both, each reported apart (default)")
    args = ap.parse_args()
    if args.unseen:
        start = time.monotonic()
        graded: dict = {}  # graded once, judged in both words
        misleading = False
        for words in (("told", "lead") if args.words == "both" else (args.words,)):
            result = unseen_report(args.assignments, corpus=Path(args.corpus) if args.corpus else CORPUS,
                                   words=words, graded=graded)
            misleading |= bool(result["misleading"])
        print(f"({time.monotonic() - start:.0f} s)")
        return 1 if misleading else 0
    modes = ("normal", "loo") if args.mode == "both" else (args.mode,)
    start = time.monotonic()
    judged = report(args.assignments or all_assignments(), modes)
    print(f"({time.monotonic() - start:.0f} s)")
    return 0 if all(figures(judged, m)["precision"] == 1.0 for m in modes) else 1


if __name__ == "__main__":
    sys.exit(main())
