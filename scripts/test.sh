#!/usr/bin/env bash
# Set up, then run every test: the engine's own tests, the hidden tests against the
# reference, and `pdl validate` of every assignment (inside tests/test_validate.py).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
python -m pytest -q -n 2 --dist loadgroup tests grading_tests "$@"
