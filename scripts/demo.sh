#!/usr/bin/env bash
# The main job on the bundled example: set up, generate the course, grade example submissions.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
pdl generate --all --no-execute   # solution notebooks are committed executed; drop --no-execute to re-run them
mkdir -p results
echo
echo "Grading the bundled example submissions of ex2_3_ising_perceptron"
echo "(correct, partly wrong, untouched stub, invalid JSON, an infinite loop):"
pdl grade examples/submissions/ex2_3_ising_perceptron --assignment ex2_3_ising_perceptron \
  --call-timeout 10 --json results/demo.json
echo
echo "Per-test details and feedback: results/demo.json"
echo
echo "The same five as a cohort (what a TA runs on a whole class; its own gradebook, not the course's):"
pdl grade-cohort examples/submissions/ex2_3_ising_perceptron --assignment ex2_3_ising_perceptron \
  --call-timeout 10 --out results/demo-cohort --gradebook sqlite:///results/demo-cohort/gradebook.db --screenshots
echo "Cohort outputs: results/demo-cohort/{grades.csv,report.html,written.html,written_scores.csv,feedback/,screenshots/}"
echo "Grading the written answers by hand: type score and comment in results/demo-cohort/written_scores.csv"
echo "(or in nbgrader's formgrader on that gradebook), then rerun the same grade-cohort command: nothing is"
echo "regraded, and the scores reach grades.csv, the gradebook (nbgrader export) and the feedback pages."
