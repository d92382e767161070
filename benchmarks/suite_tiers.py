"""The suite's tiers, end to end, as a developer runs them (issue 42, item 1).

    python benchmarks/suite_tiers.py                # the fast tier: seconds, and the engine's modules it runs
    python benchmarks/suite_tiers.py --full         # and the whole suite (bash scripts/test.sh), side by side

Each tier is the README's command itself (`bash scripts/test.sh --fast`, `bash scripts/test.sh`),
set-up included (quiet when installed), timed on the wall clock. Then the fast tier once more under
coverage.py (pytest-cov, with forked children measured: `patch = fork, _exit`), which lists every
module of `autograder/` with the share of its lines the fast tier executed: a module at 0 % is one
the fast tier does not cover. The student's side of the sandbox (worker, messages) runs in a root
that shows it no course file, so its lines are not recorded there; it is listed as such (the
worker, its messages and the warm template every sandboxed grading forks from).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# run in the student's sandboxed process only, where coverage cannot write its data
# (the worker and its messages; the warm template the student's processes fork from, started as
# `python -I -c "import autograder.run.template ..."` in the sandbox's root)
SANDBOXED = {"autograder/run/worker.py", "autograder/run/messages.py", "autograder/run/template.py"}


def timed(command: list[str], log: Path) -> tuple[float, int, str]:
    """(seconds, exit status, pytest's last line) of ``command`` run in the checkout."""
    start = time.monotonic()
    with open(log, "w") as out:
        rc = subprocess.run(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT).returncode
    lines = [ln for ln in log.read_text().splitlines() if ln.strip()]
    summary = next((ln for ln in reversed(lines) if " passed" in ln or " failed" in ln), lines[-1] if lines else "")
    return time.monotonic() - start, rc, summary.strip("= ")


def module_coverage(tmp: Path) -> dict[str, float]:
    """{module path: share of its statements run} for the fast tier under coverage."""
    rc_file = tmp / "coveragerc"
    rc_file.write_text(f"[run]\nsource = autograder\npatch = fork\n    _exit\nparallel = true\n"
                       f"data_file = {tmp / '.coverage'}\n")  # not in the checkout
    report = tmp / "coverage.json"
    subprocess.run([str(REPO / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup",
                    "-m", "not slow", "tests", "grading_tests", f"--cov-config={rc_file}", "--cov=autograder",
                    f"--cov-report=json:{report}"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    data = json.loads(report.read_text())["files"]
    out = {}
    for path in sorted((REPO / "autograder").rglob("*.py")):
        rel = str(path.relative_to(REPO))
        summary = data.get(rel, {}).get("summary", {})
        out[rel] = summary.get("percent_covered", 0.0) / 100 if summary.get("num_statements") else 1.0
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="time the whole suite too (about 10 minutes)")
    parser.add_argument("--no-coverage", action="store_true", help="skip the coverage run of the fast tier")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pdl-tiers-") as tmp:
        rows = [("bash scripts/test.sh --fast", ["bash", "scripts/test.sh", "--fast"])]
        if args.full:
            rows.append(("bash scripts/test.sh", ["bash", "scripts/test.sh"]))
        logs = REPO / "results" / "suite-tiers"  # kept: results/ is not committed
        logs.mkdir(parents=True, exist_ok=True)
        for name, command in rows:
            log = logs / ("full.log" if len(command) == 2 else "fast.log")
            seconds, rc, summary = timed(command, log)
            print(f"{name:<32} {seconds:7.1f} s  exit {rc}  ({summary}; log: {log.relative_to(REPO)})", flush=True)
        if args.no_coverage:
            return 0
        shares = module_coverage(Path(tmp))
        uncovered = [m for m, share in shares.items() if share == 0 and m not in SANDBOXED]
        for module, share in shares.items():
            note = "  (the student's sandboxed process: not recorded)" if module in SANDBOXED else ""
            print(f"  {share:6.0%}  {module}{note}")
        print(f"fast tier: {len(shares) - len(uncovered)}/{len(shares)} engine modules run"
              + (f"; not run: {', '.join(uncovered)}" if uncovered else ""))
        return 1 if uncovered else 0


if __name__ == "__main__":
    sys.exit(main())
