"""The ``pdl`` command: it parses the arguments, calls the engine's Python API (docs/api.md) and
prints what it did.

The engine is imported only when a command runs, through ``COMMANDS`` (what each command calls)
and ``NAMES`` (what the commands print or catch), both "module:name" strings resolved by
``engine``: ``pdl --help`` and an argument argparse refuses import no engine module, so they
answer at once (tests/test_api.py).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
from pathlib import Path

import autograder

REPO = Path(autograder.COURSE_DIR).resolve()  # as autograder.run.paths.REPO, without importing the engine

COMMANDS = {  # command -> the engine's function it calls (docs/api.md)
    "generate": "autograder.course.generate:generate",
    "grade": "autograder.run.grading:grade",
    "grade-cohort": "autograder.cohort.term:grade_term",
    "check": "autograder.course.checks:run_public_checks",
    "validate": "autograder.course.validate:validate_many",
    "new-year": "autograder.course.new_year:new_year",
}
NAMES = {  # what else the commands use from the engine
    "all_assignments": "autograder.course.source:all_assignments",
    "known_assignment": "autograder.course.source:known_assignment",
    "UnknownAssignment": "autograder.course.source:UnknownAssignment",
    "SandboxUnavailable": "autograder.run.isolation:SandboxUnavailable",
    "PROCESS_WARNING": "autograder.run.isolation:PROCESS_WARNING",
    "Settings": "autograder.run.settings:Settings",
    "format_report": "autograder.run.report_text:format_report",
    "SubmissionError": "autograder.run.grading:SubmissionError",
    "GraderError": "autograder.run.grading:GraderError",
    "TermRefused": "autograder.cohort.term:TermRefused",
    "DatesBeforeYear": "autograder.course.new_year:DatesBeforeYear",
    "NewYearRefused": "autograder.course.new_year:NewYearRefused",
    "year_total_line": "autograder.course.year_change:total_line",
    "check_course": "autograder.run.schema:check_course",
    "SettingsError": "autograder.run.schema:SettingsError",
    "NewerFormat": "autograder.run.record:NewerFormat",
}


def engine(name: str):
    """The engine's object for a command (``COMMANDS``) or a name (``NAMES``), imported now. Looked
    up at each call, so that a test's replacement of the engine's function is the one called."""
    module, _, attr = (COMMANDS.get(name) or NAMES[name]).partition(":")
    return getattr(importlib.import_module(module), attr)


def _config():
    import course_config  # read when a command needs it (tests reload it)
    return course_config


def _assignments(ids, all_flag=False, module=None):
    known = engine("all_assignments")()
    if module:
        modules = _config().MODULES
        if module not in modules:
            sys.exit(f"pdl: unknown module {module!r}; course_config.MODULES has {', '.join(modules)}")
        ids = list(ids) + modules[module]
    if all_flag or not ids:
        return known
    return [engine("known_assignment")(i) for i in ids]  # UnknownAssignment (main: exit 2) names the nearest ids


def cmd_generate(args) -> int:
    for aid in _assignments(args.ids, args.all, args.module):
        changed = engine("generate")(aid, execute_solution=not args.no_execute, otter=not args.no_otter)
        rel = [str(p.relative_to(REPO)) for p in changed]
        print(f"{aid}: {len(rel)} file(s) written" + (": " + ", ".join(rel) if rel else ""))
    return 0


def _limits(args) -> dict:
    """The limits of ``grade``/``grade_cohort``: the flags over the environment over course_config
    (``autograder.run.settings``)."""
    limits = engine("Settings").load(timeout_s=args.timeout, call_timeout_s=args.call_timeout,
                                     memory_mb=args.memory).limits
    return {"timeout": limits.timeout_s, "call_timeout": limits.call_timeout_s, "memory_mb": limits.memory_mb}


def _warn_process_isolation() -> None:
    print(f"pdl: WARNING: {engine('PROCESS_WARNING')}.", file=sys.stderr)


def cmd_grade(args) -> int:
    engine("known_assignment")(args.assignment)
    grade, format_report = engine("grade"), engine("format_report")
    target = Path(args.submission)
    paths = sorted(target.glob("**/*.ipynb")) if target.is_dir() else [target]
    refused = (f"{target} does not exist" if not target.exists() else
               f"no .ipynb files under {target}" if not paths else
               f"{target} is not a notebook (.ipynb)" if target.suffix.lower() != ".ipynb" and not target.is_dir()
               else "")
    if refused:
        print(f"pdl: {refused}; give a notebook (.ipynb) or a folder of them. Nothing was graded.", file=sys.stderr)
        return 2
    reports, failed = [], []
    for path in paths:
        try:
            report = grade(path, args.assignment, **_limits(args), isolation=args.isolation)
        except engine("GraderError") as exc:  # not the notebook's fault: no grade, the others go on
            print(f"pdl: {path} not graded: {exc}; grade it again", file=sys.stderr)
            failed.append(str(path))
            continue
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
        print(f"pdl: {len(unread)} of {len(paths)} notebook(s) could not be graded in full (0 points or "
              f"unfinished tests, reason above): {', '.join(r.submission for r in unread)}", file=sys.stderr)
    if failed:
        print(f"pdl: {len(failed)} of {len(paths)} notebook(s) not graded (the grader failed): {', '.join(failed)}",
              file=sys.stderr)
    return 1 if unread or failed else 0


def without_iri_checks() -> None:
    """jsonschema, imported with nbformat (the pages read the assignment's source with jupytext)
    and nbgrader, builds rfc3987-syntax's Lark grammar when it is imported: 3.4 s of CPU, for the
    draft-7 "iri" format that neither a notebook's schema (draft 4) nor nbgrader uses. A cohort's
    run goes without it (jsonschema then has no "iri" checker; tests/test_cli.py)."""
    sys.modules.setdefault("rfc3987_syntax", None)  # None: an import of it raises ImportError


def cmd_grade_cohort(args) -> int:
    # Bad input is refused before the cohort's engine (grading, pages, nbgrader) is imported: in
    # under a second, not the 7-11 s that importing it takes (issue 37, item 4).
    engine("known_assignment")(args.assignment)  # UnknownAssignment (main: exit 2) names the nearest ids
    if not Path(args.submissions).exists():
        print(f"pdl: {args.submissions} does not exist; give the folder or the zip file of the submissions. "
              "Nothing was graded.", file=sys.stderr)
        return 2
    without_iri_checks()
    if args.published:  # one setting, read where the pages are written (run/settings.py)
        os.environ["PDL_PUBLISHED"] = "1"
    try:
        term = engine("grade-cohort")(
            args.submissions, args.assignment, args.out, roster=args.roster, csv=args.csv,
            gradebook=False if args.no_gradebook else args.gradebook or True, workers=args.workers,
            timeout=args.timeout, call_timeout=args.call_timeout, memory_mb=args.memory, isolation=args.isolation,
            scheduler=args.scheduler, screenshots=args.screenshots, progress=not args.quiet,
            log=lambda text: print(text, flush=True), allow_shrink=args.allow_shrink)
    except engine("TermRefused") as exc:
        print(f"pdl: {exc}. Nothing was graded.", file=sys.stderr)
        return 2
    if args.isolation == "process":
        _warn_process_isolation()
    out, hand = term.out, term.hand
    print(f"{term.students} submissions: {term.graded} graded now, {term.reused} "
          f"already graded (same file, same version {term.version}).")
    if term.records:
        print(f"mean score {term.mean_score:.2f} / {term.max_score:g} (tests); {len(term.with_notes)} with "
              f"grader notes (errors, timeouts: {out / 'report.html'})")
    for item in term.unmatched:
        print(f"not graded: {item}")
    for item in term.notes:
        print(f"note: {item}")
    print(f"grades: {args.csv or term.grades_csv}   feedback: {out / 'feedback'}/   report: {out / 'report.html'}")
    print(term.changes)
    if term.written:
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
    if term.screenshots:
        print(f"screenshots of {', '.join(term.screenshots)}: {out / 'screenshots'}/")
    if term.screenshot_error:
        print(f"pdl: {term.screenshot_error}", file=sys.stderr)
    if term.gradebook_error:
        print(f"pdl: could not record the grades in nbgrader's gradebook ({term.gradebook_error}). Everything "
              "above is written; fix the gradebook (e.g. `nbgrader db upgrade`) and rerun (nothing is "
              "regraded), or pass --no-gradebook.", file=sys.stderr)
        return 1
    if term.not_graded or term.unreadable:  # the last line: a script sees it in the exit status too
        print(f"pdl: {len(term.not_graded)} not graded (the grader failed: rerun the same command to grade them "
              f"again), {len(term.unreadable)} unreadable (0; their feedback says what to do): "
              + ", ".join(r.student for r in (term.not_graded + term.unreadable)[:10]), file=sys.stderr)
        return 1
    return 0


def cmd_check(args) -> int:
    if args.assignment:
        engine("known_assignment")(args.assignment)
    try:
        results, errors = engine("check")(args.notebook, args.assignment)
    except engine("SubmissionError") as exc:
        print(f"Cannot read {args.notebook}: {exc}")
        return 2
    for c in results:
        mark = "ok     " if c.passed else ("not yet" if c.pending else "FAIL   ")
        print(f"{mark}  {c.description}" + ("" if c.passed else f": {c.message}"))
    for e in errors:
        print(f"note: {e}")
    passed = sum(c.passed for c in results)
    print(f"\n{passed}/{len(results)} public checks pass." +
          (" Public checks are a first test only; hidden tests use other inputs." if results else
           " No public checks ran: did the notebook define any @check functions?"))
    return 0 if passed == len(results) else 1


def cmd_validate(args) -> int:
    # One BLAS/OpenMP thread, as in the student's process, set before numpy or torch is loaded: a
    # multi-threaded torch alternative on a busy machine ran past the in-process call limit.
    for key in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(key, "1")
    ids = _assignments(args.ids, args.all, args.module)
    quick = dict(otter=False, mutants=0, gradescope=False, quick_carry=True, stable=False) if args.quick else {}
    options = dict(otter=not args.no_otter, mutants=args.mutants, gradescope=not args.no_gradescope, seeds=args.seeds)
    ok = engine("validate")(ids, workers=args.workers if len(ids) > 1 else 1, progress=len(ids) > 1,
                            **{**options, **quick})
    return 0 if ok else 1


def _year_changes(done) -> None:
    """What the year changes, per assignment (``autograder.course.year_change``), and the total."""
    print(f"What {done.year} changes, per assignment (read from the sources):")
    for change in done.changes:
        print(f"  {change.line()}")
    print(engine("year_total_line")(done.changes))


def cmd_new_year(args) -> int:
    deadlines = "shift" if args.shift_deadlines else "keep" if args.keep_deadlines else "refuse"
    try:
        done = engine("new-year")(args.year, deadlines=deadlines, execute=not args.no_execute,
                                  otter=not args.no_otter, log=print, dry_run=args.dry_run)
    except engine("DatesBeforeYear") as exc:
        print(f"pdl: course_config.py has {len(exc.dates)} date(s) before {args.year}, of an earlier term:",
              file=sys.stderr)
        for date in exc.dates:
            print(f"  {date.where} = {date.value!r}", file=sys.stderr)
        print("Update them in course_config.py, or rerun with --shift-deadlines (moves each by whole years into "
              f"{args.year}) or --keep-deadlines. Nothing was written.", file=sys.stderr)
        return 2
    except engine("NewYearRefused") as exc:
        print(f"pdl: {exc}. Nothing was written.", file=sys.stderr)
        return 2
    if done.dry_run:
        print(f"pdl new-year {args.year} --dry-run: course year {done.old_year} -> {args.year}; nothing was written.")
        for date in done.dates:
            what = (f"would move to {done.moved[date]!r}" if date in done.moved else "would be kept"
                    if deadlines == "keep" else "makes it refuse (--shift-deadlines or --keep-deadlines)")
            print(f"  {date.where} = {date.value!r} lies before {args.year}: {what}")
        _year_changes(done)
        return 0
    for date, new in done.moved.items():
        print(f"moved: {date.where} {date.value!r} -> {new!r}")
    for date in done.kept:
        print(f"kept (--keep-deadlines): {date.where} = {date.value!r}, before {args.year}")
    print(f"course year {done.old_year} -> {args.year}; release notebooks, references, hidden tests and example "
          f"submissions are on {args.year}'s parameters.")
    if done.unexecuted:
        print(f"{len(done.unexecuted)} solution notebook(s) hold {args.year}'s code but no outputs or figures yet; "
              f"execute them before release:\n  pdl generate {' '.join(done.unexecuted)}")
    _year_changes(done)
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
    if str(REPO) not in sys.path:  # course_config, solutions.<id>
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

    grading = argparse.ArgumentParser(add_help=False)  # what grade and grade-cohort share
    grading.add_argument("--assignment", required=True)
    grading.add_argument("--timeout", type=_above_zero(float), help="seconds allowed for running one notebook")
    grading.add_argument("--call-timeout", type=_above_zero(float), help="seconds allowed for one function call")
    grading.add_argument("--memory", type=_above_zero(int), help="memory limit of the student's process, MB")
    grading.add_argument("--isolation", choices=["namespace", "account", "process"], default=None,
                         help="namespace (default): the allow-list sandbox; account: a uid of its own per "
                              "submission (a root grader where namespaces are refused); process: no file "
                              "isolation (unsafe)")

    p = sub.add_parser("grade", parents=[grading], help="grade a submitted notebook (or a folder of them)")
    p.add_argument("submission")
    p.add_argument("--json", help="write the report(s) as JSON to this file")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("grade-cohort", parents=[grading],
                       help="grade a folder or zip of submissions in parallel, resumably")
    p.add_argument("submissions", help="folder or zip (student folders, <student>.ipynb, nbgrader, Gradescope export)")
    p.add_argument("--workers", type=_above_zero(int), help="parallel submissions (default: all cores)")
    p.add_argument("--scheduler", help="dask.distributed scheduler address (tcp://host:8786)")
    p.add_argument("--out", help="output folder (default results/<assignment>)")
    p.add_argument("--csv", help="CSV file (default <out>/grades.csv)")
    p.add_argument("--gradebook", help="nbgrader gradebook URL (default the course's)")
    p.add_argument("--no-gradebook", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--screenshots", action="store_true",
                   help="also save PNGs of the report, written answers and a feedback page (headless Chromium)")
    p.add_argument("--roster", help="roster CSV (id, name, email, section, extension), or Canvas's gradebook "
                   "export or Moodle's participants or grading worksheet as exported: names, sections, extensions")
    p.add_argument("--allow-shrink", action="store_true",
                   help="grade even a folder with no submission, or fewer than half as many as --out has graded "
                        "(its outputs then list only these)")
    p.add_argument("--published", action="store_true",
                   help="write the feedback pages for after grades are published: each failing test's values (the "
                        "student's, its call, the expected) and known mistakes' rule text (course_config.HINTS); "
                        "rerun into the same --out to rewrite the pages without grading again (PDL_PUBLISHED=1)")
    p.set_defaults(func=cmd_grade_cohort)

    p = sub.add_parser("check", help="run a notebook's public checks (for students)")
    p.add_argument("notebook")
    p.add_argument("--assignment", help="assignment id (to supply its data files)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("validate", help="solution scores full marks, stub scores 0, nothing leaks")
    p.add_argument("ids", nargs="*")
    p.add_argument("--all", action="store_true")
    p.add_argument("--module", help="a group of assignments from course_config.MODULES (e.g. day_b6)")
    p.add_argument("--quick", action="store_true",
                   help="while editing: no mutants, otter run, Gradescope simulation or re-execution, and the "
                        "error-carried-forward checks on one pair of functions (the test suite's setting)")
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
    dates = p.add_mutually_exclusive_group()
    dates.add_argument("--shift-deadlines", action="store_true",
                       help="move the dates in course_config (DEADLINES, LATE_POLICY) that lie before YEAR by "
                            "whole years into it")
    dates.add_argument("--keep-deadlines", action="store_true",
                       help="keep the dates in course_config that lie before YEAR (else pdl refuses, naming them)")
    p.add_argument("--dry-run", action="store_true",
                   help="write nothing: print what YEAR changes in each assignment (its parameters, hidden inputs, "
                        "written questions, graded functions bound to the year) and the dates that lie before it")
    p.set_defaults(func=cmd_new_year)

    args = parser.parse_args(argv)
    try:  # course_config.py and the PDL_ environment against their schema (docs/settings.md), before any command
        engine("check_course")()
    except engine("SettingsError") as exc:
        print(f"pdl: {exc}. Nothing was done.", file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except engine("UnknownAssignment") as exc:  # before anything was graded, generated or written
        print(f"pdl: {exc}. Nothing was done.", file=sys.stderr)
        return 2
    except engine("SandboxUnavailable") as exc:  # looked up second: it imports the sandbox (and numpy)
        print(f"pdl: {exc}", file=sys.stderr)
        return 2
    except engine("NewerFormat") as exc:  # a record of a newer engine: not read, not graded over
        print(f"pdl: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pdl: interrupted; no report was written for the unfinished grading.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
