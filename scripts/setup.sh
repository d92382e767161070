#!/usr/bin/env bash
# Creates .venv (Python 3.11) and installs the course tools with everything they need.
# Sourced by demo.sh and test.sh; safe to run again (pip skips what is installed).
# Says what it does at each step, with the seconds since it started; the first install (about
# 2 GB of packages, a few minutes) shows pip's own progress: each package collected and downloaded.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
setup_start=$SECONDS
setup_step() { echo "setup [$((SECONDS - setup_start)) s]: $*"; }
# pip's "WARNING: Location" lines (a distribution's paths) are noise, and so is setuptools' banner
# about editable installs (it reads like an error and is not one); the rest is kept
setup_quiet_noise() {
  awk '/WARNING: Location/ {next}
       /BuildBackendWarning: Editable installation/ {banner=1; next}
       banner && /with strategy, WheelFile/ {banner=0; next}
       !banner {print; fflush()}'
}
setup_pip() { .venv/bin/python -m pip "$@" > >(setup_quiet_noise) 2> >(setup_quiet_noise >&2); }
# pip unpacks about 2 GB in silence after "Installing collected packages": a line every 10 s
setup_pip_alive() {
  setup_pip "$@" &
  local pip_pid=$! waited=0
  while kill -0 "$pip_pid" 2>/dev/null; do
    sleep 1
    waited=$((waited + 1))
    if [ $((waited % 10)) = 0 ] && kill -0 "$pip_pid" 2>/dev/null; then
      setup_step "pip is still at work (downloading or unpacking; the first time takes a few minutes)"
    fi
  done
  wait "$pip_pid"
}
if [ ! -x .venv/bin/python ]; then
  setup_step "creating .venv with $PY"
  "$PY" -m venv .venv
fi
if [ -x .venv/bin/pdl ]; then  # installed before: a quiet check that everything is there
  setup_step "checking the installation in .venv"
  setup_pip install --quiet --upgrade pip || true
  setup_pip install --quiet -e ".[dev]" || true
else
  setup_step "upgrading pip"
  setup_pip install --quiet --upgrade pip || true
  setup_step "installing the course and its dependencies into .venv (numpy, scipy, torch, otter-grader," \
    "nbgrader, ...: about 2 GB, a few minutes the first time)"
  setup_pip_alive install -e ".[dev]" || true
fi
setup_step "checking that the course tools import"
.venv/bin/python -c "import autograder, torch, otter, nbgrader" \
  || { echo "setup: the install failed; see the pip output above" >&2; exit 1; }
setup_step "done"
export PATH="$PWD/.venv/bin:$PATH"
