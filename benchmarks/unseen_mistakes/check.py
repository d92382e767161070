"""Check the unseen-mistakes corpus: each cell must lose points and not crash the grader.

For every cell of ``benchmarks/unseen_mistakes/<id>.py`` this grades, in-process and with the
diagnosis off (``PDL_DIAGNOSE=0``), the code "reference module + the cell" with the course's own
variant grader (``autograder.course.inprocess.score_code`` / ``namespace_of``), and prints the points
lost out of the maximum and whether anything crashed (a grader error, or a hidden test whose
student code raised / timed out). The reference module text is used as a black box: it is never
printed. No diagnosis or feedback text is printed either (only points, test kinds and counts).

    .venv/bin/python benchmarks/unseen_mistakes/check.py            # every assignment
    .venv/bin/python benchmarks/unseen_mistakes/check.py ex2_1_cumulants ex3_1_wick
    .venv/bin/python benchmarks/unseen_mistakes/check.py --corpus benchmarks/heldout_mistakes
"""

from __future__ import annotations

import os

os.environ["PDL_DIAGNOSE"] = "0"

import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from autograder.course.unseen import cells, corpus_files, validate  # noqa: E402


def main(argv: list[str]) -> int:
    from autograder.course.generate import module_text
    from autograder.course.inprocess import RecordingStudent, namespace_of
    from autograder.course.source import load
    from autograder.run.grading import run_hidden_tests
    from autograder.run.record import Kind

    corpus = HERE
    if "--corpus" in argv:
        k = argv.index("--corpus")
        corpus, argv = Path(argv[k + 1]).resolve(), argv[:k] + argv[k + 2:]
    files = corpus_files(argv, corpus)
    total = losing = crashed = 0
    bad = []
    for path in files:
        assignment = path.stem
        cs = cells(path)
        problems = validate(path, cs)
        for p in problems:
            print("FORMAT", p)
        reference = module_text(load(assignment))  # black box: never printed
        t0 = time.monotonic()
        for c in cs:
            total += 1
            code = reference + "\n\n\n" + c["code"]
            try:
                ns = namespace_of(assignment, code)
                student = RecordingStudent(ns, code, assignment)
                results = run_hidden_tests(assignment, student, diagnose=False)
            except Exception as e:  # noqa: BLE001 - the grader itself broke
                crashed += 1
                bad.append(f"{assignment}:{c['mistake']}")
                print(f"{assignment:28s} {c['mistake'][:38]:38s} GRADER CRASH {type(e).__name__}")
                traceback.print_exc(limit=2)
                continue
            score = sum(r.points for r in results)
            mx = sum(r.max_points for r in results)
            lost = mx - score
            failed = [r for r in results if not r.passed]
            errors = [r for r in failed if r.kind in (Kind.STUDENT_ERROR, Kind.TIMEOUT, Kind.MEMORY, Kind.NOT_GRADED)]
            carried = [r for r in results if r.kind == Kind.CARRIED]
            note = ""
            if errors:
                note = "errors: " + ",".join(f"{r.name}({r.kind}{'/' + r.error if r.error else ''})" for r in errors)
            if lost > 1e-9:
                losing += 1
            else:
                bad.append(f"{assignment}:{c['mistake']}")
            kind = c.get("kind", "?").split()[0]
            print(f"{assignment:28s} {c['mistake'][:38]:38s} {kind:12s} lost {lost:5.2f}/{mx:5.2f}"
                  f"  failed {len(failed)}/{len(results)} carried {len(carried)}"
                  f"  {'' if lost > 1e-9 else 'LOSES NOTHING '}{note}", flush=True)
        print(f"# {assignment}: {len(cs)} cells, {time.monotonic() - t0:.0f} s", flush=True)
    print(f"SUMMARY: {total} mistakes, {losing} lose points, {total - losing} lose nothing, "
          f"{crashed} crashed the grader")
    if bad:
        print("to fix:", " ".join(bad))
    return 0 if losing == total and not crashed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
