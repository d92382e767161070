"""The ``pdl`` command: generate, grade, check, validate."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib
import json
import math
import os
import re
import sys
from pathlib import Path

from autograder.run.paths import REPO


def _config():
    import course_config  # lazy: read when a command needs it (tests reload it)
    return course_config


def _assignments(ids, all_flag=False, module=None):
    from autograder.course.source import all_assignments  # lazy: a subcommand loads only its own layer

    known = all_assignments()
    if module:
        modules = _config().MODULES
        if module not in modules:
            sys.exit(f"pdl: unknown module {module!r}; course_config.MODULES has {', '.join(modules)}")
        ids = list(ids) + modules[module]
    if all_flag or not ids:
        return known
    from autograder.course.source import known_assignment  # lazy: a subcommand loads only its own layer

    return [known_assignment(i) for i in ids]  # UnknownAssignment (main: exit 2) names the nearest ids


def cmd_generate(args) -> int:
    from autograder.course.generate import generate  # lazy: a subcommand loads only its own layer

    for aid in _assignments(args.ids, args.all, args.module):
        changed = generate(aid, execute_solution=not args.no_execute, otter=not args.no_otter)
        rel = [str(p.relative_to(REPO)) for p in changed]
        print(f"{aid}: {len(rel)} file(s) written" + (": " + ", ".join(rel) if rel else ""))
    return 0


def _limits(args) -> dict:
    """The limits of ``grade``/``grade_cohort``: the flags over the environment over course_config
    (``autograder.run.settings``)."""
    from autograder.run.settings import Settings  # lazy: a subcommand loads only its own layer

    limits = Settings.load(timeout_s=args.timeout, call_timeout_s=args.call_timeout, memory_mb=args.memory).limits
    return {"timeout": limits.timeout_s, "call_timeout": limits.call_timeout_s, "memory_mb": limits.memory_mb}


def _warn_process_isolation() -> None:
    from autograder.run.sandbox import PROCESS_WARNING  # lazy: a subcommand loads only its own layer

    print(f"pdl: WARNING: {PROCESS_WARNING}.", file=sys.stderr)


def cmd_grade(args) -> int:
    from autograder.course.source import known_assignment  # lazy: a subcommand loads only its own layer
    from autograder.run.grading import format_report, grade  # lazy: a subcommand loads only its own layer

    known_assignment(args.assignment)
    target = Path(args.submission)
    paths = sorted(target.glob("**/*.ipynb")) if target.is_dir() else [target]
    refused = (f"{target} does not exist" if not target.exists() else
               f"no .ipynb files under {target}" if not paths else
               f"{target} is not a notebook (.ipynb)" if target.suffix.lower() != ".ipynb" and not target.is_dir()
               else "")
    if refused:
        print(f"pdl: {refused}; give a notebook (.ipynb) or a folder of them. Nothing was graded.", file=sys.stderr)
        return 2
    reports = []
    for path in paths:
        report = grade(path, args.assignment, **_limits(args), isolation=args.isolation)
        reports.append(report)
        print(format_report(report) if len(paths) == 1 else
              f"{report.score:6g} / {report.max_score:g}  {path}" +
              (f"   ({report.errors[0]})" if report.errors else ""))
        if report.isolation == "process":
            _warn_process_isolation()
    if args.json:
        data = [r.to_dict() for r in reports]
        Path(args.json).write_text(json.dumps(data[0] if len(data) == 1 else data, indent=2) + "\n")
    unread = [r for r in reports if r.unfinished]
    if unread:  # graded 0 with the reason, but not everything was graded: exit code 1
        print(f"pdl: {len(unread)} of {len(reports)} notebook(s) could not be graded in full (0 points or "
              f"unfinished tests, reason above): {', '.join(r.submission for r in unread)}", file=sys.stderr)
        return 1
    return 0


def _roster_and_policy(args):
    """Before anything is graded: the roster's students ([] without --roster) and a check of the
    late policy; None (having said why) if either is unusable."""
    from autograder.cohort import late  # lazy: a subcommand loads only its own layer
    from autograder.cohort.pages import deadline_of  # lazy: a subcommand loads only its own layer
    from autograder.cohort.roster import RosterError, read_roster  # lazy: a subcommand loads only its own layer

    try:
        late.policy_for(args.assignment)
        return read_roster(Path(args.roster), deadline_of(args.assignment)) if args.roster else []
    except (late.PolicyError, RosterError, OSError) as exc:
        print(f"pdl: {exc}. Nothing was graded.", file=sys.stderr)
        return None


def cmd_grade_cohort(args) -> int:
    with contextlib.ExitStack() as files:  # a zip's extraction stays until the outputs are written (similarity)
        return _grade_cohort(args, files)


def _grade_cohort(args, files: contextlib.ExitStack) -> int:
    from autograder.cohort.grade import CohortInputError, grade_cohort  # lazy: a subcommand loads only its own layer
    from autograder.cohort.handscores import remember_gradebook  # lazy: a subcommand loads only its own layer
    from autograder.cohort.layouts import IdRegistryError  # lazy: a subcommand loads only its own layer
    from autograder.cohort.outputs import (  # lazy: a subcommand loads only its own layer
        hand_scores,
        record_in_gradebook,
        resolve_db_url,
        write_outputs,
    )
    from autograder.course.source import known_assignment  # lazy: a subcommand loads only its own layer

    known_assignment(args.assignment)
    out = Path(args.out or f"results/{args.assignment}")
    students = _roster_and_policy(args)
    if students is None:
        return 2
    try:
        summary = grade_cohort(Path(args.submissions), args.assignment, out, workers=args.workers,
                               **_limits(args), scheduler=args.scheduler,
                               progress=not args.quiet, isolation=args.isolation, keep_files=files)
    except (CohortInputError, IdRegistryError) as exc:
        print(f"pdl: {exc}. Nothing was graded.", file=sys.stderr)
        return 2
    if args.isolation == "process":
        _warn_process_isolation()
    results = summary["results"]
    if args.roster:
        from autograder.cohort.roster import apply_roster  # lazy: a subcommand loads only its own layer

        for item in apply_roster(summary, students):
            print(f"roster: {item}")
        if summary["absent"]:
            print(f"roster: {len(summary['absent'])} student(s) without a submission get 0 (\"no submission\")")
    db = None if args.no_gradebook else resolve_db_url(args.gradebook)
    print(f"writing grades, feedback and report for {len(results)} submissions"
          + (" (hand scores merged from written_scores.csv" + (" and the gradebook" if db else "") + ")"
             if any(r.get("manual") for r in results) else "") + " ...", flush=True)
    hand = hand_scores(summary, out, db)
    changed = write_outputs(summary, out, Path(args.csv) if args.csv else None, hand)
    gradebook_error = ""
    if db:
        try:
            print(f"recording {len(results)} submissions in nbgrader's gradebook ({db}) ...", flush=True)
            record_in_gradebook(summary, db, hand)
            remember_gradebook(out, args.assignment, db)
        except Exception as exc:  # noqa: BLE001 - the grades are safe on disk; say so and go on
            gradebook_error = str(exc).strip().splitlines()[0][:500] if str(exc).strip() else repr(exc)
    print(f"{summary['students']} submissions: {summary['graded']} graded now, {summary['reused']} "
          f"already graded (same file, same version {summary['version']}).")
    from autograder.cohort.pages import notes  # lazy: a subcommand loads only its own layer

    errors = [r for r in results if notes(r)]
    if results:
        mean = sum(r["score"] for r in results) / len(results)
        print(f"mean score {mean:.2f} / {max(r['max_score'] for r in results):g} (tests); {len(errors)} with "
              f"grader notes (errors, timeouts: {out / 'report.html'})")
    for item in summary["unmatched"]:
        print(f"not graded: {item}")
    for item in summary.get("notes", []):
        print(f"note: {item}")
    print(f"grades: {args.csv or out / 'grades.csv'}   feedback: {out / 'feedback'}/   report: {out / 'report.html'}")
    print(changed["message"])
    if any(r.get("manual") for r in results):
        scored = sum(1 for v in hand.values.values() if v["score"])
        print(f"written answers: {out / 'written.html'} (by question); scores go in {out / 'written_scores.csv'} "
              f"or nbgrader's formgrader; {scored} scored so far"
              + (f" ({hand.edits['csv']} new in the CSV, {hand.edits['gradebook']} new in the gradebook)"
                 if hand.edits["csv"] or hand.edits["gradebook"] else ""))
    for c in hand.conflicts:
        print(f"pdl: {c['student']}, {c['question']}: the {c['field']} was changed in both places; kept "
              f"{c['kept']!r} ({c['kept_from']}, changed last), the other, {c['dropped']!r} ({c['dropped_from']}), "
              f"is saved in {out / 'hand_score_conflicts.csv'}", file=sys.stderr)
    for problem in hand.problems:
        print(f"pdl: warning: {problem}", file=sys.stderr)
    if args.screenshots:
        from autograder.cohort.browser import (  # lazy: a subcommand loads only its own layer
            find_chromium,
            screenshot_cohort,
        )

        if find_chromium() is None:
            print("pdl: no screenshots: Chromium is not installed (apt-get install chromium).", file=sys.stderr)
        else:
            try:
                shots = screenshot_cohort(out)
                print(f"screenshots of {', '.join(shots)}: {out / 'screenshots'}/")
            except Exception as exc:  # noqa: BLE001 - a screenshot is a convenience, never a failure
                print(f"pdl: no screenshots ({exc})", file=sys.stderr)
    if gradebook_error:
        print(f"pdl: could not record the grades in nbgrader's gradebook ({gradebook_error}). Everything "
              "above is written; fix the gradebook (e.g. `nbgrader db upgrade`) and rerun (nothing is "
              "regraded), or pass --no-gradebook.", file=sys.stderr)
        return 1
    return 0


def cmd_check(args) -> int:
    from autograder.course.checks import run_public_checks  # lazy: a subcommand loads only its own layer
    from autograder.course.source import known_assignment  # lazy: a subcommand loads only its own layer
    from autograder.run.grading import SubmissionError  # lazy: a subcommand loads only its own layer

    if args.assignment:
        known_assignment(args.assignment)
    try:
        results, errors = run_public_checks(args.notebook, args.assignment)
    except SubmissionError as exc:
        print(f"Cannot read {args.notebook}: {exc}")
        return 2
    for name, passed, message in results:
        mark = "ok     " if passed else ("not yet" if message.startswith("not yet") else "FAIL   ")
        message = message.removeprefix("not yet: ")
        print(f"{mark}  {name}" + ("" if passed else f": {message}"))
    for e in errors:
        print(f"note: {e}")
    passed = sum(p for _, p, _ in results)
    print(f"\n{passed}/{len(results)} public checks pass." +
          (" Public checks are a first test only; hidden tests use other inputs." if results else
           " No public checks ran: did the notebook define any @check functions?"))
    return 0 if passed == len(results) else 1


def cmd_validate(args) -> int:
    # One BLAS/OpenMP thread, as in the student's process, set before numpy or torch is loaded: a
    # multi-threaded torch alternative on a busy machine ran past the in-process call limit.
    for key in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(key, "1")
    from autograder.course.validate import validate_many  # lazy: a subcommand loads only its own layer

    ids = _assignments(args.ids, args.all, args.module)
    ok = validate_many(ids, workers=args.workers if len(ids) > 1 else 1, progress=len(ids) > 1,
                       otter=not args.no_otter, mutants=args.mutants, gradescope=not args.no_gradescope,
                       seeds=args.seeds)
    return 0 if ok else 1


def cmd_new_year(args) -> int:

    from autograder.course.generate import generate  # lazy: a subcommand loads only its own layer

    cfg_path = REPO / "course_config.py"
    text = cfg_path.read_text()
    old_year = _config().YEAR
    text = re.sub(r"^YEAR = \d+", f"YEAR = {args.year}", text, count=1, flags=re.MULTILINE)
    cfg_path.write_text(text)
    importlib.reload(_config())
    from autograder.course.generate import solution_notebook_executed  # lazy: a subcommand loads only its own layer

    ids = _assignments([], True)
    for aid in ids:
        generate(aid, execute_solution=not args.no_execute, otter=not args.no_otter, log=lambda _: None)
        print(f"{aid}: regenerated for {args.year}")
    unexecuted = [aid for aid in ids if not solution_notebook_executed(aid)]
    log = REPO / "CHANGELOG.md"
    entry = (f"\n## {args.year} (from {old_year}), {datetime.date.today().isoformat()}\n"
             f"- `pdl new-year {args.year}`: every assignment regenerated; hidden-test inputs and year "
             f"parameters redrawn from seed {_config().SEED} and year {args.year}. Grades record version "
             f"`{args.year}.<hash>`; a late submission of {old_year} is graded with the {old_year} checkout.\n"
             f"- Assignments: {', '.join(ids)}\n")
    if unexecuted:
        entry += (f"- Solution notebooks written without outputs (not yet executed for {args.year}): "
                  f"{', '.join(unexecuted)}\n")
    from autograder.run.grading import assignment_version  # lazy: a subcommand loads only its own layer

    entry += ("\n| assignment | version | what |\n|---|---|---|\n"  # every version listed (tests/test_changelog.py)
              + "".join(f"| `{aid}` | `{assignment_version(aid)}` | year {args.year} |\n" for aid in ids))
    log.write_text(log.read_text() + entry if log.exists() else "# Changelog\n" + entry)
    print(f"course year {old_year} -> {args.year}; release notebooks, references, hidden tests and example "
          f"submissions are on {args.year}'s parameters.")
    if unexecuted:
        print(f"{len(unexecuted)} solution notebook(s) hold {args.year}'s code but no outputs or figures yet; "
              f"execute them before release:\n  pdl generate {' '.join(unexecuted)}")
    print("Then run `pdl validate --all` and commit.")
    return 0


def _above_zero(kind):
    """An argparse type: a finite number above 0 (``kind``: int or float); anything else is refused
    with a clear message (argparse: usage, exit code 2)."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {'whole number' if kind is int else 'number'}") \
                from None
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"must be {'at least 1' if kind is int else 'above 0'}, not {text}")
        return value
    return parse


def main(argv=None) -> int:
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    parser = argparse.ArgumentParser(prog="pdl", description="Physics of Deep Learning course tools.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("generate", help="build release/solution notebooks, hidden tests, otter zip, nbgrader source")
    p.add_argument("ids", nargs="*", help="assignment ids (default: all)")
    p.add_argument("--all", action="store_true")
    p.add_argument("--module", help="a group of assignments from course_config.MODULES (e.g. day_b6)")
    p.add_argument("--no-execute", action="store_true", help="do not execute the solution notebook")
    p.add_argument("--no-otter", action="store_true", help="skip the otter autograder zip")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("grade", help="grade a submitted notebook (or a folder of them)")
    p.add_argument("submission")
    p.add_argument("--assignment", required=True)
    p.add_argument("--json", help="write the report(s) as JSON to this file")
    p.add_argument("--timeout", type=_above_zero(float), help="seconds allowed for running the notebook")
    p.add_argument("--call-timeout", type=_above_zero(float), help="seconds allowed for one function call")
    p.add_argument("--memory", type=_above_zero(int), help="memory limit of the student's process, MB")
    p.add_argument("--isolation", choices=["namespace", "account", "process"], default=None,
                   help="namespace (default): the allow-list sandbox; account: a uid of its own per submission "
                        "(a root grader where namespaces are refused); process: no file isolation (unsafe)")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("grade-cohort", help="grade a folder or zip of submissions in parallel, resumably")
    p.add_argument("submissions", help="folder or zip (student folders, <student>.ipynb, nbgrader, Gradescope export)")
    p.add_argument("--assignment", required=True)
    p.add_argument("--workers", type=_above_zero(int), help="parallel submissions (default: all cores)")
    p.add_argument("--timeout", type=_above_zero(float), help="seconds allowed for running one notebook")
    p.add_argument("--call-timeout", type=_above_zero(float), help="seconds allowed for one function call")
    p.add_argument("--memory", type=_above_zero(int), help="memory limit of the student's process, MB")
    p.add_argument("--scheduler", help="dask.distributed scheduler address (tcp://host:8786)")
    p.add_argument("--out", help="output folder (default results/<assignment>)")
    p.add_argument("--csv", help="CSV file (default <out>/grades.csv)")
    p.add_argument("--gradebook", help="nbgrader gradebook URL (default the course's)")
    p.add_argument("--no-gradebook", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--isolation", choices=["namespace", "account", "process"], default=None,
                   help="namespace (default): the allow-list sandbox; account: a uid of its own per submission "
                        "(a root grader where namespaces are refused); process: no file isolation (unsafe)")
    p.add_argument("--screenshots", action="store_true",
                   help="also save PNGs of the report, written answers and a feedback page (headless Chromium)")
    p.add_argument("--roster", help="roster CSV (id, name, email, section, extension): names, sections, extensions")
    p.set_defaults(func=cmd_grade_cohort)

    p = sub.add_parser("check", help="run a notebook's public checks (for students)")
    p.add_argument("notebook")
    p.add_argument("--assignment", help="assignment id (to supply its data files)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("validate", help="solution scores full marks, stub scores 0, nothing leaks")
    p.add_argument("ids", nargs="*")
    p.add_argument("--all", action="store_true")
    p.add_argument("--module", help="a group of assignments from course_config.MODULES (e.g. day_b6)")
    p.add_argument("--no-otter", action="store_true", help="skip the otter parity run")
    p.add_argument("--no-gradescope", action="store_true",
                   help="skip the Gradescope simulation (the zip's own venv and run_autograder)")
    p.add_argument("--mutants", type=int, default=30, help="mutants of the reference to grade (0: none)")
    p.add_argument("--seeds", type=int, default=0, metavar="N",
                   help="false-fail sweep: grade the reference and the alternatives under N course seeds with "
                        "re-drawn random streams; fail where a test fails correct code more often than 1e-4")
    p.add_argument("--workers", type=int, default=None,
                   help="assignments validated at a time (default: every core)")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("new-year", help="set the course year and regenerate every assignment")
    p.add_argument("year", type=int)
    p.add_argument("--no-execute", action="store_true", help="do not re-execute solution notebooks")
    p.add_argument("--no-otter", action="store_true", help="skip the otter autograder zips")
    p.set_defaults(func=cmd_new_year)

    args = parser.parse_args(argv)
    from autograder.course.source import UnknownAssignment  # lazy: a subcommand loads only its own layer
    from autograder.run.sandbox import SandboxUnavailable  # lazy: a subcommand loads only its own layer

    try:
        return args.func(args)
    except SandboxUnavailable as exc:
        print(f"pdl: {exc}", file=sys.stderr)
        return 2
    except UnknownAssignment as exc:  # before anything was graded, generated or written
        print(f"pdl: {exc}. Nothing was done.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pdl: interrupted; no report was written for the unfinished grading.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
