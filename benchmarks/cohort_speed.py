"""Grading a synthetic cohort: `pdl grade-cohort` as a TA runs it (the whole command, outputs
included) and `grade_cohort()` in-process, warm and cold, vs `nbgrader autograde` vs sequential
`otter run`.

    python benchmarks/cohort_speed.py [--n 50] [--assignment ex2_3_ising_perceptron] [--skip-otter] [--skip-nbgrader]
    python benchmarks/cohort_speed.py --phases --n 200      # the whole command's phases, next to in-process
    python benchmarks/cohort_speed.py --phases --n 200 --compare-with /tmp/before   # and another checkout's
    python benchmarks/cohort_speed.py --profile-outputs 200 # cProfile of writing the outputs of 200 records
    python benchmarks/cohort_speed.py --parent-imports 30   # grading from a lean parent vs a heavy one

All grade the same answers (correct / half-stubbed / untouched, cycled) in one run on this
machine. The script prints seconds per submission for each, the ratios, the floor (the hidden
tests against the reference in one plain pytest process, median of 3) and each pdl figure as a
fraction of it, `grade_cohort()` warm (students' processes forked from a template, the default)
against cold (`PDL_WARM=0`: a fresh sandboxed interpreter per submission), the scaling from
--workers 1 to --workers 2, and the time a cohort of 200 would take at the measured rate (issue 24's
target: 200 on 2 cores in 100 s, 0.2x the floor per submission).

The whole command (issue 37, item 4): `pdl grade-cohort SUBS --workers 2 --quiet` (run as `python -m
autograder.cli`, what `pdl` runs, in the checkout timed) in a process of
its own, into a fresh --out, once with `--no-gradebook` and once with a fresh sqlite gradebook,
with every output (feedback pages, report, CSVs, similarity). Its phases are read from the lines it
prints, stamped as they arrive: start-up (the interpreter, the imports, the checks of the
arguments), grading, outputs (hand scores, pages, CSVs, similarity), gradebook (registering the
assignment in a new gradebook, then the grades) and exit. `--phases` times only these and
`grade_cohort()` + `write_outputs()` in-process (workers 2, warm) side by side; `--compare-with
DIR` also times `python -m autograder.cli grade-cohort` of another checkout (a `git worktree` of an
earlier commit), alternating with this one's. The time a typo'd assignment id takes to be refused is
printed first. `--profile-outputs N` grades the three kinds once, copies their records to N students
and profiles `write_outputs` in one process (cProfile), with the time at N/4, N/2 and N (on every
core) and at N in one process, to show how it scales.
No assertion: machines are noisy.
"""

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.cohort.grade import grade_cohort  # noqa: E402
from autograder.cohort.outputs import write_outputs  # noqa: E402
from autograder.cohort.record import CohortSummary  # noqa: E402
from autograder.course import nbgrader as nbg  # noqa: E402
from autograder.course.generate import otter_zip_path  # noqa: E402
from autograder.course.source import load, stub  # noqa: E402
from autograder.course.validate import variant_notebook  # noqa: E402

KINDS = ("correct", "partial", "stub")
# the lines `pdl grade-cohort` prints at the start of each phase (autograder/cohort/term.py)
PHASES = (("start-up", ""), ("grading", "grading the submissions in "),
          ("outputs", "writing grades, feedback and report for "), ("gradebook", "recording "),
          ("exit", "grades: "))


def nbgrader_variant(assignment: str, kind: str) -> dict:
    src = json.loads((nbg.course_root() / "source" / assignment / f"{assignment}.ipynb").read_text())
    if kind == "correct":
        return src
    names = load(assignment).graded_functions()
    only = set(names) if kind == "stub" else set(names[1::2])
    for cell in src["cells"]:
        if "graded" in cell["metadata"].get("tags", []):
            cell["source"] = stub("".join(cell["source"]), only=only)
    return src


def make_cohort(folder: Path, aid: str, n: int) -> None:
    ours = {k: json.dumps(variant_notebook(aid, k)) for k in KINDS}
    for i in range(n):
        d = folder / f"student{i:03d}"
        d.mkdir(parents=True)
        (d / f"{aid}.ipynb").write_text(ours[KINDS[i % 3]])


def load_text() -> str:
    """The machine's load, for each figure (the machine is shared)."""
    try:
        return "load " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "load ?"


def typo_seconds(aid: str, folder: Path) -> tuple[float, int, str]:
    """`pdl grade-cohort FOLDER --assignment <aid with a typo>`: seconds, exit code, last line."""
    pdl = Path(sys.executable).parent / "pdl"
    start = time.perf_counter()
    run = subprocess.run([str(pdl), "grade-cohort", str(folder), "--assignment", aid[:-2] + aid[-1] + aid[-2]],
                         cwd=REPO, capture_output=True, text=True)
    return time.perf_counter() - start, run.returncode, run.stderr.strip().split(";")[0]


def run_command(argv: list[str], cwd: Path) -> dict:
    """One `grade-cohort` in a process of its own: its phases (seconds) from the lines it prints,
    each stamped as it arrives; a phase whose line the command does not print is merged into the
    one before."""
    env = {k: v for k, v in os.environ.items() if k != "PDL_WARM"}
    env["PYTHONUNBUFFERED"] = "1"
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines = []
    for line in proc.stdout:
        lines.append((time.perf_counter() - start, line.rstrip("\n")))
    rc = proc.wait()
    total = time.perf_counter() - start
    marks = [0.0]
    for _, prefix in PHASES[1:]:
        marks.append(next((t for t, line in lines if prefix and line.startswith(prefix)), None))
    marks.append(total)
    phases, last = {}, 0.0
    for k, (name, _) in enumerate(PHASES):
        if marks[k] is None:
            continue
        end = next(m for m in marks[k + 1:] if m is not None)
        for j in range(k + 1, len(PHASES)):  # the phases whose line is missing, up to the next one printed
            if marks[j] is not None:
                break
            if PHASES[j][0] != "gradebook":  # --no-gradebook: none
                name += " + " + PHASES[j][0]
        phases[name] = end - marks[k]
        last = end
    assert abs(last - total) < 1e-9
    return {"total": total, "rc": rc, "phases": phases, "tail": [line for _, line in lines[-4:]]}


def command_argv(cohort: Path, aid: str, out: Path, gradebook: str | None) -> list[str]:
    """`pdl grade-cohort ...` as `python -m autograder.cli` (what `pdl` runs), so that the checkout
    it runs in (its cwd: this one, or --compare-with's) is the one timed."""
    return [sys.executable, "-m", "autograder.cli", "grade-cohort", str(cohort), "--assignment", aid,
            "--out", str(out), "--workers", "2", "--quiet"] + (["--gradebook", gradebook] if gradebook
                                                                else ["--no-gradebook"])


def print_phases(label: str, n: int, run: dict) -> None:
    p = run["phases"]
    total = run["total"]
    parts = ", ".join(f"{name} {sec:.1f} s ({sec / total:.0%})" for name, sec in p.items())
    print(f"{label}: {total:.1f} s in all, {total / n:.2f} s/submission, exit {run['rc']} [{load_text()}]\n"
          f"    {parts}", flush=True)
    if run["rc"] not in (0, 1):
        print("    " + "\n    ".join(run["tail"]), flush=True)


def phases(tmp: Path, aid: str, n: int, compare_with: Path | None) -> dict:
    """grade_cohort() + write_outputs() in-process, then the whole command (and another
    checkout's, alternating): `--no-gradebook` into a fresh --out, then the same command again into
    that --out with a new sqlite gradebook. The second grades nothing (the records are reused), so
    its phases are those of a whole run's outputs and gradebook: the whole command with a gradebook
    is the first's start-up and grading plus the second's outputs, gradebook and exit."""
    rows = {}
    os.environ["PDL_WARM"] = "1"
    start = time.perf_counter()
    summary = grade_cohort(tmp / "cohort", aid, tmp / "out-inprocess", workers=2, progress=False)
    graded = time.perf_counter() - start
    start = time.perf_counter()
    write_outputs(summary, tmp / "out-inprocess")
    written = time.perf_counter() - start
    os.environ.pop("PDL_WARM")
    rows["grade_cohort() in-process"] = graded
    print(f"engine: {Path(sys.modules['autograder'].__file__).parent}", flush=True)
    print(f"grade_cohort() in-process, --workers 2: {graded:.1f} s ({graded / n:.2f} s/submission); then "
          f"write_outputs() {written:.1f} s [{load_text()}]", flush=True)
    checkouts = [(REPO, "pdl grade-cohort")] + ([(compare_with.resolve(), f"{compare_with.name}'s grade-cohort")]
                                                 if compare_with else [])
    firsts = {}
    for k, (checkout, name) in enumerate(checkouts):
        run = firsts[name] = run_command(command_argv(tmp / "cohort", aid, tmp / f"out-{k}", None), checkout)
        rows[f"{name} --no-gradebook"] = run["total"]
        print_phases(f"{name} --workers 2 --no-gradebook", n, run)
        if k == 0:
            g = run["phases"].get("grading", 0.0)
            print(f"    the command's grading phase is {g / graded:.2f}x grade_cohort() in-process; "
                  f"the whole command {run['total'] / graded:.2f}x", flush=True)
    for k, (checkout, name) in enumerate(checkouts):
        url = f"sqlite:///{tmp / f'gradebook-{k}.db'}"
        run = run_command(command_argv(tmp / "cohort", aid, tmp / f"out-{k}", url), checkout)
        print_phases(f"{name} again, into the same --out with a new sqlite gradebook (nothing to grade)", n, run)
        first, p = firsts[name]["phases"], run["phases"]
        whole = firsts[name]["total"] - first.get("outputs", 0) - first.get("exit", 0) \
            + p.get("outputs", 0) + p.get("gradebook", 0) + p.get("exit", 0)
        rows[f"{name} with a new gradebook (start-up + grading above, the rest here)"] = whole
        print(f"    so the whole command with a new gradebook: {whole:.1f} s ({whole / n:.2f} s/submission)",
              flush=True)
    return rows


def profile_outputs(tmp: Path, aid: str, n: int) -> None:
    """write_outputs of ``n`` records copied from three graded ones (one of each kind): the time
    at n/4, n/2 and n (the pages on every core), at n in one process, and cProfile's top
    functions of a run in one process at n."""
    make_cohort(tmp / "three", aid, 3)
    os.environ["PDL_WARM"] = "1"
    three = grade_cohort(tmp / "three", aid, tmp / "out-three", workers=2, progress=False).results
    os.environ.pop("PDL_WARM")

    def summary_of(count: int) -> CohortSummary:
        results = []
        for i in range(count):
            rec = three[i % 3]
            path = tmp / "copies" / f"student{i:03d}.ipynb"
            if not path.exists():
                path.parent.mkdir(exist_ok=True)
                shutil.copyfile(rec.submission, path)
            results.append(rec.with_(student=f"student{i:03d}", name=f"Student {i}", submission=str(path)))
        return CohortSummary(assignment=aid, version=three[0].version, graded=count, students=count,
                             results=results)

    for count in sorted({max(3, n // 4), max(3, n // 2), n}):
        start = time.perf_counter()
        write_outputs(summary_of(count), tmp / f"out-copies-{count}")
        print(f"write_outputs of {count} records: {time.perf_counter() - start:.2f} s [{load_text()}]", flush=True)
    start = time.perf_counter()
    write_outputs(summary_of(n), tmp / f"out-copies-{n}-one", workers=1)
    print(f"write_outputs of {n} records in one process: {time.perf_counter() - start:.2f} s [{load_text()}]",
          flush=True)
    profiler = cProfile.Profile()
    profiler.enable()
    write_outputs(summary_of(n), tmp / f"out-copies-{n}-profiled", workers=1)
    profiler.disable()
    for key in ("cumulative", "tottime"):
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats(key).print_stats(25)
        print(f"\n-- by {key} --\n" + "\n".join(text.getvalue().splitlines()[6:]))


PARENT = """import os, sys, time
from pathlib import Path
if sys.argv[1] == "heavy":  # what pdl grade-cohort had imported before it forked its pool, before issue 37
    import jupytext, nbformat, nbgrader.api, nbgrader.preprocessors
from autograder.cohort.grade import grade_cohort
os.environ["PDL_WARM"] = "1"
start = time.perf_counter()
grade_cohort(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), workers=2, progress=False)
print(f"{time.perf_counter() - start:.1f}")
"""


def parent_imports(tmp: Path, aid: str, n: int, rounds: int = 2) -> None:
    """grade_cohort() of ``n`` notebooks, each in a fresh process: lean (what pdl grade-cohort
    imports now before it grades) and heavy (nbformat, jupytext and nbgrader imported first, as
    before issue 37), alternating, the order swapped each round."""
    make_cohort(tmp / "cohort", aid, n)
    for r in range(rounds):
        for mode in ("lean", "heavy") if r % 2 == 0 else ("heavy", "lean"):
            argv = [sys.executable, "-c", PARENT, mode, str(tmp / "cohort"), aid, str(tmp / f"out-{mode}-{r}")]
            run = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
            said = run.stdout.strip() or run.stderr.strip()[-300:]
            print(f"round {r + 1}, {mode} parent: grade_cohort() of {n} in {said} s [{load_text()}]", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--assignment", default="ex2_3_ising_perceptron")
    ap.add_argument("--skip-otter", action="store_true")
    ap.add_argument("--skip-nbgrader", action="store_true")
    ap.add_argument("--skip-command", action="store_true", help="no run of the whole command")
    ap.add_argument("--phases", action="store_true",
                    help="only the whole command's phases and grade_cohort() in-process (--workers 2, warm)")
    ap.add_argument("--compare-with", type=Path, metavar="DIR",
                    help="also time another checkout's grade-cohort (e.g. a git worktree of an earlier commit)")
    ap.add_argument("--profile-outputs", type=int, metavar="N",
                    help="only profile write_outputs of N records copied from three graded ones")
    ap.add_argument("--parent-imports", type=int, metavar="N",
                    help="only grade N notebooks from a lean parent and from one that imported nbformat, "
                         "jupytext and nbgrader first, alternating (4 rounds)")
    args = ap.parse_args()
    aid, n = args.assignment, args.n
    rows = {}
    with tempfile.TemporaryDirectory(prefix="pdl-bench-") as tmp:
        tmp = Path(tmp)
        if args.profile_outputs:
            profile_outputs(tmp, aid, args.profile_outputs)
            return
        if args.parent_imports:
            parent_imports(tmp, aid, args.parent_imports, rounds=4)
            return
        make_cohort(tmp / "cohort", aid, n)
        seconds, rc, said = typo_seconds(aid, tmp / "cohort")
        print(f"a typo'd assignment id refused in {seconds:.2f} s (exit {rc}: {said}) [{load_text()}]", flush=True)

        floors = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"grading_tests/{aid}"],
                           cwd=REPO, capture_output=True, check=True)
            floors.append(time.perf_counter() - start)
        floor = statistics.median(floors)
        print(f"floor (pytest grading_tests/{aid} on the reference): {floor:.2f} s", flush=True)
        if args.phases:
            rows = {name: sec / n for name, sec in phases(tmp, aid, n, args.compare_with).items()}
            base = rows["grade_cohort() in-process"]
            print(f"\n{aid}, {n} submissions (correct/partial/stub), seconds per submission [{load_text()}]:")
            for name, sec in rows.items():
                print(f"  {name:62s} {sec:6.2f}   ({sec / base:5.2f}x in-process, {sec / floor:5.2f}x the floor)")
            return
        scores = {}
        for name, workers, warm in (("grade_cohort() --workers 2 (cold)", 2, "0"),
                                    ("grade_cohort() --workers 1", 1, "1"),
                                    ("grade_cohort() --workers 2", 2, "1")):
            os.environ["PDL_WARM"] = warm
            start = time.perf_counter()
            summary = grade_cohort(tmp / "cohort", aid, tmp / f"out-{workers}-{warm}", workers=workers, progress=True)
            rows[name] = (time.perf_counter() - start) / n
            scores[name] = sorted((r.student, r.score) for r in summary.results)
            print(f"{name}: {rows[name]:.2f} s/submission [{load_text()}]", flush=True)
        os.environ.pop("PDL_WARM")
        if len({tuple(v) for v in scores.values()}) != 1:
            print("WARNING: warm and cold grading gave different scores", flush=True)
        if not args.skip_command:
            for gradebook in (False, True):
                label = "pdl grade-cohort --workers 2 " + ("(a new gradebook)" if gradebook else "--no-gradebook")
                url = f"sqlite:///{tmp / f'gradebook-{int(gradebook)}.db'}" if gradebook else None
                run = run_command(command_argv(tmp / "cohort", aid, tmp / f"out-cmd-{int(gradebook)}", url), REPO)
                rows[label + ", whole"] = run["total"] / n
                print_phases(label, n, run)

        if not args.skip_nbgrader:
            db = f"sqlite:///{tmp / 'gradebook.db'}"  # its own gradebook, whatever the course's holds
            nbg.generate_assignment(aid, db_url=db)
            for kind in KINDS:
                (tmp / f"nbg-{kind}.ipynb").write_text(json.dumps(nbgrader_variant(aid, kind)))
            for i in range(n):  # benchmark students only; the course's own submissions are left alone
                nbg.submit(aid, f"pdlbench{i:03d}", tmp / f"nbg-{KINDS[i % 3]}.ipynb")
            start = time.perf_counter()
            nbg.autograde(aid, student="pdlbench*", db_url=db)
            rows["nbgrader autograde"] = (time.perf_counter() - start) / n
            for folder in ("submitted", "autograded"):
                for d in (nbg.course_root() / folder).glob("pdlbench*"):
                    shutil.rmtree(d, ignore_errors=True)
            print(f"nbgrader autograde: {rows['nbgrader autograde']:.2f} s/submission", flush=True)

        if not args.skip_otter:
            zip_path = otter_zip_path(aid)
            otter = Path(sys.executable).parent / "otter"
            start = time.perf_counter()
            for i in range(n):
                nb = tmp / "cohort" / f"student{i:03d}" / f"{aid}.ipynb"
                subprocess.run([str(otter), "run", "-a", str(zip_path), "-o", str(tmp), "--no-logo", str(nb)],
                               cwd=tmp, capture_output=True, check=False, timeout=600)
            rows["otter run (sequential)"] = (time.perf_counter() - start) / n
            print(f"otter run: {rows['otter run (sequential)']:.2f} s/submission", flush=True)

    base = rows["grade_cohort() --workers 2"]
    print(f"\n{aid}, {n} submissions (correct/partial/stub), seconds per submission [{load_text()}]:")
    for name, sec in rows.items():
        print(f"  {name:52s} {sec:6.2f}   ({sec / base:5.2f}x grade_cohort() --workers 2, "
              f"{sec / floor:5.2f}x the floor)")
    print(f"  warm vs cold (--workers 2): {rows['grade_cohort() --workers 2 (cold)'] / base:.2f}x faster")
    print(f"  scaling --workers 1 -> 2: {rows['grade_cohort() --workers 1'] / base:.2f}x faster")
    whole = rows.get("pdl grade-cohort --workers 2 --no-gradebook, whole")
    if whole:
        print(f"  a cohort of 200 at this rate: {200 * whole:.0f} s for the whole command (--no-gradebook), "
              f"{200 * base:.0f} s for grade_cohort() alone (target 100 s for the whole command)")
    else:
        print(f"  a cohort of 200 at this rate: {200 * base:.0f} s for grade_cohort() alone (target 100 s)")
    print(f"  the floor is {floor:.2f} s, the target per submission 0.2x the floor = {0.2 * floor:.2f} s")


if __name__ == "__main__":
    main()
