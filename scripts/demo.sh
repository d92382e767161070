#!/usr/bin/env bash
# The main job on the bundled example: set up, generate the course, grade example submissions.
# Each step says what it does, with the seconds since the demo started.
set -euo pipefail
cd "$(dirname "$0")/.."
demo_step() { echo; echo "demo [${SECONDS} s]: $*"; }
# What the cohort run left in folder $1: screenshots/ only where they were taken; where not, why not
demo_cohort_outputs() {
  local out=$1 shots="" browser
  if compgen -G "$out/screenshots/*.png" >/dev/null; then shots=",screenshots/"; fi
  echo "Cohort outputs: $out/{grades.csv,report.html,written.html,written_scores.csv,feedback/$shots}"
  [ -z "$shots" ] || return 0
  browser=$(python -c "from autograder.cohort.browser import find_chromium; print(find_chromium() or '')" 2>/dev/null \
    || true)
  if [ -z "$browser" ]; then
    echo "No screenshots: Chromium is not installed (apt-get install chromium, or set PDL_CHROMIUM to a browser)."
  else
    echo "No screenshots: $browser did not take them (the 'pdl: no screenshots' line above says why)."
  fi
  echo "The pages are all there: open $out/report.html in a browser."
}
demo_step "setting up .venv (scripts/setup.sh; the first time installs about 2 GB of packages)"
source scripts/setup.sh
demo_step "generating the course: release notebooks, references, hidden tests, otter zips, nbgrader sources"
pdl generate --all --no-execute   # solution notebooks are committed executed; drop --no-execute to re-run them
mkdir -p results
demo_step "grading the bundled example submissions of ex2_3_ising_perceptron"
echo "(correct, partly wrong, untouched stub, invalid JSON, an infinite loop):"
# exit code 1: the invalid JSON could not be read (graded 0 with its reason), as intended here
pdl grade examples/submissions/ex2_3_ising_perceptron --assignment ex2_3_ising_perceptron \
  --call-timeout 5 --json results/demo.json || [ $? -eq 1 ]
echo
echo "Per-test details and feedback: results/demo.json"
demo_step "grading the same five as a cohort (what a TA runs on a whole class; its own gradebook, not the course's)"
# exit code 1 again: the invalid JSON is unreadable (its last line says so), as intended here
pdl grade-cohort examples/submissions/ex2_3_ising_perceptron --assignment ex2_3_ising_perceptron \
  --call-timeout 5 --out results/demo-cohort --gradebook sqlite:///results/demo-cohort/gradebook.db --screenshots \
  || [ $? -eq 1 ]
demo_cohort_outputs results/demo-cohort
echo "Grading the written answers by hand: type score and comment in results/demo-cohort/written_scores.csv"
echo "(or in nbgrader's formgrader on that gradebook), then rerun the same grade-cohort command: nothing is"
echo "regraded, and the scores reach grades.csv, the gradebook (nbgrader export) and the feedback pages."
demo_step "done"
