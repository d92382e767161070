#!/usr/bin/env bash
# Creates .venv (Python 3.11) and installs the course tools with everything they need.
# Sourced by demo.sh and test.sh; safe to run again (pip skips what is installed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip 2>&1 | grep -v "WARNING: Location" || true
.venv/bin/python -m pip install --quiet -e . 2>&1 | grep -v "WARNING: Location" || true
.venv/bin/python -c "import autograder, torch, otter, nbgrader" \
  || { echo "setup: the install failed; see the pip output above" >&2; exit 1; }
export PATH="$PWD/.venv/bin:$PATH"
