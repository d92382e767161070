"""``pdl validate``: does an assignment grade as it should, and does nothing leak?

For each assignment:

* fresh: committed release notebook, reference module and hidden tests equal a fresh render
  of the source (so nobody edited a generated file, and nobody forgot to regenerate);
* the solution notebook scores full marks, the untouched release scores 0 without crashing
  the grader, a half-stubbed notebook scores in between;
* leak check: no line of reference code, solution cell or hidden test appears in what
  students receive (``assignments/<id>/``), unless the author also wrote that line of a
  solution cell or test in a public cell;
* otter parity: ``otter run`` with the generated autograder zip gives the same scores as
  ``pdl grade`` on the solution and on the half-stubbed notebook;
* public checks pass on the reference; hidden tests whose inputs are computed from a reference
  result carry ``@pytest.mark.reference_input`` (``autograder.course.refinputs``);
* error carried forward (``carry_quality.carry_checks``): the forging variants generated from the
  reference gain nothing from it, and no reference value of its re-runs shows in feedback;
* tests of the tests, with the diagnosis (``mistake_checks``): every ``wrong`` cell has a hint,
  loses points and is named by its hint; every ``rewrite`` loses points and is named by the
  hint of its wrong cell; every ``alternative`` scores full marks; no diagnosis shows a value
  the reference returned;
* with ``seeds=N`` (``pdl validate --seeds N``): the false-fail rate of every hidden test, over N
  course seeds and re-drawn random streams, against its budget (``autograder.course.seeds``).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import nbformat
from tqdm import tqdm

from autograder.course.carry_quality import carry_checks
from autograder.course.generate import (
    RELEASE_ROLES,
    _cells,
    _notebook,
    build_otter_zip,
    example_texts,
    module_text,
    solution_notebook_executed,
    solution_notebook_fresh,
    tests_text,
    unstable_cells,
)
from autograder.course.inprocess import Baseline, grade_code, reference_values
from autograder.course.mutate import mutation_run, variant_cells
from autograder.course.new_year import date_notes
from autograder.course.refinputs import reference_dependent_tests
from autograder.course.release_checks import failing_checks, release_lines
from autograder.course.seeds import report_lines, sweep
from autograder.course.source import _function_bodies, load, source_path
from autograder.course.synth import variant_notebook
from autograder.gradescope import simulate
from autograder.run.diagnose.leaks import leaked_numbers
from autograder.run.grading import grade, warm
from autograder.run.paths import REPO
from autograder.run.templates import stop_templates

MIN_LEAK_LINE = 24  # shorter lines (``return x``) are too generic to count as a leak


def leaks(assignment: str) -> list[str]:
    """Lines of private code (reference bodies, solution cells, hidden tests) found in the release."""

    src = load(assignment)
    private, shared_ok, public = [], [], set()
    for cell in src.cells:
        if cell.role == "reference":
            private += cell.source.splitlines()
        elif cell.role in ("solution", "tests"):
            shared_ok += cell.source.splitlines()
        elif cell.role == "graded":
            lines = cell.source.splitlines()
            for node, first, _ in _function_bodies(cell.source):
                private += lines[first - 1:node.end_lineno]
        elif cell.role in RELEASE_ROLES:  # what students see (not wrong/alternative cells)
            public |= {ln.strip() for ln in cell.source.splitlines()}
    # A line of a cross-check or hidden test that the author also wrote in a public cell (a check,
    # a figure) is public by choice; a line of the reference is a leak wherever it appears.
    private = {ln.strip() for ln in private if len(ln.strip()) >= MIN_LEAK_LINE}
    private |= {ln.strip() for ln in shared_ok if len(ln.strip()) >= MIN_LEAK_LINE and ln.strip() not in public}
    release = set()
    for path in (REPO / "assignments" / assignment).rglob("*"):
        if path.is_file():
            try:
                text = path.read_text()
            except UnicodeDecodeError:
                continue
            if path.suffix == ".ipynb":
                text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"])
            release |= {ln.strip() for ln in text.splitlines()}
    return sorted(private & release)


def stale(assignment: str) -> list[str]:
    """Generated files that differ from a fresh render of the source: release, reference module,
    hidden tests; the solution notebook's code (its outputs come from other code, e.g. another
    year's parameters, until it is re-executed); the example submissions."""


    src = load(assignment)
    expected = {
        REPO / "assignments" / assignment / f"{assignment}.ipynb":
            nbformat.writes(_notebook(_cells(src, solution=False), assignment)) + "\n",
        REPO / "solutions" / assignment / "__init__.py": module_text(src),
        REPO / "grading_tests" / assignment / f"test_{assignment}.py": tests_text(src),
    }
    out = [str(p.relative_to(REPO)) for p, text in expected.items()
           if not p.exists() or p.read_text() != text]
    if not solution_notebook_fresh(assignment):
        out.append(f"solutions/{assignment}/{assignment}.ipynb (older code or another year: re-execute it)")
    else:
        folder = REPO / "examples" / "submissions" / assignment
        out += [f"examples/submissions/{assignment}/{name}" for name, text in example_texts(assignment).items()
                if not (folder / name).exists() or (folder / name).read_text() != text]
    return out


def otter_score(zip_path: Path, notebook: Path, timeout: float = 600) -> float:
    """Score from ``otter run`` (which has no timeout of its own, hence the wrapper)."""
    with tempfile.TemporaryDirectory(prefix="pdl-otter-run-") as out:
        env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
        subprocess.run([str(Path(sys.executable).parent / "otter"), "run", "-a", str(zip_path),
                        "-o", out, "--no-logo", str(notebook)], cwd=out, env=env,
                       capture_output=True, timeout=timeout, check=False)
        results = Path(out) / "results.json"
        if not results.exists():
            raise RuntimeError(f"otter run wrote no results for {notebook}")
        tests = json.loads(results.read_text())["tests"]
        return sum(t.get("score") or 0.0 for t in tests if "max_score" in t)


def mistake_checks(assignment: str, reference: str, full: float, log=print,
                   baseline: Baseline | None = None) -> list[tuple[bool, str]]:
    """The tests of the tests, graded in-process with the diagnosis on: every ``wrong`` cell has a
    hint, loses points and is named by its hint; every ``rewrite`` cell (the same mistake written
    differently, at least one per assignment) loses points and is named by its wrong cell's hint;
    every ``alternative`` scores full marks with no diagnosis; no diagnosis shows a number the
    reference returned on that test's inputs. ``baseline``: the reference's in-process run, where
    the caller has one (``validate`` shares it with the error-carried-forward checks)."""

    src = load(assignment)
    mistakes = src.mistakes()
    out, leaked = [], []
    if baseline is None:  # tests that reach only the reference's code keep its pass
        baseline = Baseline(assignment, reference)

    def graded(code, hint=None):
        # a wrong cell or its rewrite: no test after the first failing one that names its hint
        until = (lambda r: not r.passed and not r.carried_forward and hint in r.named_hints) if hint else None
        results, student = grade_code(assignment, reference + "\n\n" + code, baseline, until=until)
        for r in results:
            if r.diagnosis:
                found = leaked_numbers(r.diagnosis, reference_values(assignment, student, r.name))
                leaked.extend(f"{r.name}: {n}" for n in found)
        return (sum(r.points for r in results), [r.diagnosis for r in results if r.diagnosis],
                {h for r in results for h in r.named_hints})

    hintless = [m.description for m in mistakes if not m.hint]
    for desc in hintless:
        log(f"        wrong cell without a '# hint:' line: {desc}")
    out.append((not hintless and len(mistakes) >= 3,
                f"wrong cells with a hint: {len(mistakes) - len(hintless)}/{len(mistakes)}"
                + (" (at least 3 required)" if len(mistakes) < 3 else "")))
    caught = named = 0
    rewrites = rewrites_ok = 0
    for m in mistakes:
        score, diagnoses, hints = graded(m.code, m.hint)
        caught += score < full
        named += bool(m.hint) and m.hint in hints
        if score == full:
            log(f"        wrong implementation not caught: {m.description} ({score:g}/{full:g})")
        elif not (m.hint and m.hint in hints):
            log(f"        wrong implementation not named by its hint: {m.description}; "
                f"diagnoses: {sorted(set(diagnoses))[:2] or 'none'}")
        for desc, code in m.rewrites:
            rewrites += 1
            r_score, r_diagnoses, r_hints = graded(code, m.hint)
            good = r_score < full and bool(m.hint) and m.hint in r_hints
            rewrites_ok += good
            if not good:
                log(f"        rewrite not {'caught' if r_score == full else 'named by the hint of its wrong cell'}: "
                    f"{desc} ({r_score:g}/{full:g}); diagnoses: {sorted(set(r_diagnoses))[:2] or 'none'}")
    out.append((caught == len(mistakes), f"wrong implementations caught: {caught}/{len(mistakes)}"))
    out.append((named == len(mistakes), f"wrong implementations named by their hint: {named}/{len(mistakes)}"))
    out.append((rewrites_ok == rewrites >= 1,
                f"rewrites (a mistake written differently) named by the same hint: {rewrites_ok}/{rewrites}"
                + (" (at least 1 required)" if rewrites < 1 else "")))
    alternatives = variant_cells(src, "alternative")
    passing = 0
    for desc, code in alternatives:
        score, diagnoses, _ = graded(code)
        passing += score == full and not diagnoses
        if score != full or diagnoses:
            log(f"        alternative implementation not passing cleanly: {desc} ({score:g}/{full:g})")
    out.append((passing == len(alternatives) >= 1,
                f"alternative implementations pass: {passing}/{len(alternatives)}"
                + (" (at least 1 required)" if not alternatives else "")))
    checked = 0
    for desc, code in alternatives:
        failing = failing_checks(assignment, code)
        checked += not failing
        if failing:
            log(f"        alternative implementation fails public checks: {desc}: {'; '.join(failing[:2])}")
    out.append((checked == len(alternatives), f"alternative implementations pass the public checks: "
                                              f"{checked}/{len(alternatives)}"))
    out.append((not leaked, "no diagnosis shows a reference value" if not leaked
                else f"LEAK in a diagnosis: {leaked[:3]}"))
    return out


def validate(assignment: str, otter: bool = True, mutants: int = 30, log=print,
             gradescope: bool = False, seeds: int = 0, gradescope_cases=simulate.CASES,
             quick_carry: bool = False, stable: bool = True) -> bool:
    """Every check of one assignment, one line each through ``log``; True when all hold.
    ``quick_carry``: the error-carried-forward checks on one pair of functions with few re-runs
    (the test suite's setting; ``pdl validate`` runs them in full). ``stable``: execute the solution
    notebook once more and compare its bytes with the committed ones (a minute on some labs)."""

    try:  # the reference in-process, once: its run also keeps the reference's answers (refmemo)
        baseline: Baseline | None = Baseline(assignment, module_text(load(assignment)), fill_memo=True)
    except Exception:  # noqa: BLE001 - the checks below say what is wrong with the source
        baseline = None
    warm(assignment, mistakes=True)  # the notebooks below are graded in forks of a warm template
    try:
        return _validate(assignment, otter, mutants, log, gradescope, seeds, gradescope_cases, quick_carry, stable,
                         baseline)
    finally:
        stop_templates(assignment)


def _validate(assignment: str, otter: bool, mutants: int, log, gradescope: bool, seeds: int, gradescope_cases,
              quick_carry: bool = False, stable: bool = True, baseline: Baseline | None = None) -> bool:
    ok = True
    spent: list[tuple[float, str]] = []  # (seconds since the line before, the line's first words)
    clock = [time.monotonic()]

    def line(good: bool, text: str):
        nonlocal ok
        ok &= good
        now = time.monotonic()
        spent.append((now - clock[0], " ".join(text.split()[:6])))
        clock[0] = now
        log(f"  {'ok  ' if good else 'FAIL'}  {text}")

    log(f"{assignment}")
    try:
        _checks(assignment, otter, mutants, log, gradescope, seeds, gradescope_cases, quick_carry, stable,
                baseline, line)
        return ok
    finally:  # where the time went: the slowest checks, for an instructor waiting on them
        slowest = sorted(spent, reverse=True)[:3]
        log(f"  info  {sum(s for s, _ in spent):.0f} s of checks; slowest: "
            + "; ".join(f"{what} ({seconds:.0f} s)" for seconds, what in slowest))


def _checks(assignment: str, otter: bool, mutants: int, log, gradescope: bool, seeds: int, gradescope_cases,
            quick_carry: bool, stable: bool, baseline: Baseline | None, line) -> None:
    bad = stale(assignment)
    line(not bad, "generated files are fresh" if not bad else f"stale, run `pdl generate {assignment}`: {bad}")
    if not solution_notebook_executed(assignment):
        log(f"  note  solutions/{assignment}/{assignment}.ipynb has no outputs (figures): "
            f"`pdl generate {assignment}` executes it")
    for note in date_notes(assignment):  # a note, not a failure: the dates are the instructor's to set
        log(f"  note  {note}")
    if stable:
        moved = unstable_cells(assignment)
        line(not moved, "regeneration is byte-stable: the solution notebook executed again gives the committed bytes"
             if not moved else "regeneration is not byte-stable: " + "; ".join(moved[:3]))
    leaked = leaks(assignment)
    line(not leaked, "no private code in assignments/" if not leaked else
         "LEAK: " + "; ".join(_where_in_source(assignment, text) for text in leaked[:3]))
    for good, text in release_lines(assignment):  # prompts, course-tool text, public checks' arguments
        line(good, text)
    scores = {}
    with tempfile.TemporaryDirectory(prefix="pdl-validate-") as tmp:
        for kind in ("correct", "stub", "partial"):
            path = Path(tmp) / kind / f"{assignment}.ipynb"
            path.parent.mkdir()
            path.write_text(json.dumps(variant_notebook(assignment, kind)))
            report = grade(path, assignment, public_checks=kind == "correct")
            scores[kind] = (report.score, report.max_score, path)
            if kind == "correct":
                failing = [c.description for c in report.checks if not c.passed]
                line(bool(report.checks) and not failing,
                     f"public checks pass on the reference: {len(report.checks) - len(failing)}/{len(report.checks)}"
                     + (f" (failing: {'; '.join(failing[:3])})" if failing else ""))
        full = scores["correct"][1]
        line(full > 0 and scores["correct"][0] == full,
             f"reference solution scores {scores['correct'][0]:g}/{full:g}")
        src = load(assignment)
        if baseline is None:
            baseline = Baseline(assignment, module_text(src))  # the reference in-process, once for all below
        unmarked, marked = reference_dependent_tests(assignment, plain=baseline.call_keys)
        line(not unmarked, (f"hidden tests whose inputs come from a reference result are marked reference_input: "
                            f"{len(marked)}" if marked
                            else "no hidden test sends a value computed from a reference result")
             if not unmarked else "hidden tests send values computed from a reference result without "
             f"@pytest.mark.reference_input: {', '.join(unmarked)}")
        line(scores["stub"][0] == 0, f"untouched release scores {scores['stub'][0]:g}/{full:g}")
        line(0 <= scores["partial"][0] < full, f"half-stubbed notebook scores {scores['partial'][0]:g}/{full:g}")
        for good, text in mistake_checks(assignment, module_text(src), full, log, baseline):
            line(good, text)
        for good, text in carry_checks(assignment, log, quick=quick_carry, baseline=baseline):
            line(good, text)
        if mutants:
            run = mutation_run(assignment, sample=mutants)
            pct = 100.0 * run["caught"] / max(run["graded"], 1)
            log(f"  info  mutants caught: {run['caught']}/{run['graded']} ({pct:.0f}%) "
                f"of {run['sites']} mutation sites; survivors (equivalent or missed): "
                + ("; ".join(run["survivors"][:8]) or "none"))
        if seeds:
            for good, text in report_lines(sweep(assignment, seeds, log=log)):
                line(good, text)
        if otter:

            zip_path = build_otter_zip(assignment)  # from the current hidden tests (dist/ is not committed)
            for kind in ("correct", "partial"):
                o = otter_score(zip_path, scores[kind][2])
                line(abs(o - scores[kind][0]) < 1e-9,
                     f"otter run on the {kind} notebook: {o:g} (pdl grade: {scores[kind][0]:g})")
        if gradescope:

            zip_path = build_otter_zip(assignment)
            venv = simulate.venv_for(zip_path)
            line(simulate.check_simulation(assignment, zip_path, venv, Path(tmp) / "gradescope", log=log,
                                           cases=gradescope_cases),
                 "Gradescope simulation: the zip's own environment and run_autograder agree with pdl grade")


def _where_in_source(assignment: str, text: str) -> str:
    """``'line' (source/<id>/<id>.py:12, 40)``: where the instructor wrote a leaked line."""

    path = source_path(assignment)
    found = [k + 1 for k, ln in enumerate(path.read_text().splitlines()) if ln.strip() == text]
    return f"{text!r} ({path.relative_to(REPO)}:{', '.join(map(str, found[:4])) or '?'})"


def _validate_job(assignment: str, options: dict) -> tuple[str, bool, str]:
    out = io.StringIO()
    ok = validate(assignment, log=lambda text: print(text, file=out), **options)
    return assignment, ok, out.getvalue()


def validate_many(ids: list[str], workers: int | None = None, progress: bool = True, **options) -> bool:
    """``validate`` each of ``ids``, ``workers`` at a time in worker processes (default: every
    core), printing each assignment's lines whole as it finishes, with a progress bar."""
    ids = list(ids)
    if not ids:
        return True
    jobs = {aid: dict(options, gradescope_cases=simulate.CASES if i == 0 else
                      tuple(c for c in simulate.CASES if c not in simulate.ENGINE_CASES)) for i, aid in enumerate(ids)}
    if options.get("gradescope") and len(ids) > 1:
        print(f"Gradescope simulation: the engine's cases ({', '.join(simulate.ENGINE_CASES)}) on {ids[0]} only",
              flush=True)
    workers = max(1, min(workers or os.cpu_count() or 1, len(ids)))
    if workers == 1:  # each line as it comes
        results = [validate(aid, **jobs[aid]) for aid in ids]  # every one, even after a failure
        return all(results)
    ok = True
    with tqdm(total=len(ids), unit="assignment", desc="validate", disable=not progress, file=sys.stderr) as bar, \
            ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_validate_job, aid, jobs[aid]) for aid in ids]
        try:
            for future in as_completed(futures):
                _, good, text = future.result()
                ok &= good
                bar.write(text.rstrip("\n"))
                bar.update()
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return ok
