#!/usr/bin/env bash
# Set up, then run the tests (docs/development.md#the-test-suite):
#   bash scripts/test.sh                  every test: the engine's own tests, the hidden tests against
#                                         the reference, `pdl validate` of every assignment (CI: .ci/run)
#   bash scripts/test.sh --fast           the fast tier: every test not marked slow (a few minutes
#                                         less than the whole suite; every engine module is exercised)
#   bash scripts/test.sh tests/test_x.py  just those paths (node ids too: tests/test_x.py::test_y)
# Any other argument goes to pytest as it is (-k EXPR, -x, --lf ...), with --fast or paths or not.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
paths=()
options=()
for arg in "$@"; do
  if [ "$arg" = --fast ]; then
    fast=1
  elif [[ "$arg" != -* ]] && [ -e "${arg%%::*}" ]; then
    paths+=("$arg")
  else
    options+=("$arg")
  fi
done
source scripts/setup.sh
# The browser test (tests/test_pages.py) opens the cohort's pages in headless Chromium from the
# distribution (with a math font); where it cannot be installed that test is skipped, saying why.
if [ "$fast" = 0 ] && ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ]; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core; } \
    >/dev/null 2>&1 || echo "test.sh: could not install chromium; the browser test will be skipped" >&2
fi
[ "${#paths[@]}" -gt 0 ] || paths=(tests grading_tests)
tier=()
[ "$fast" = 1 ] && tier=(-m "not slow")
python -m pytest -q -n 2 --dist loadgroup --durations=25 "${tier[@]}" "${paths[@]}" "${options[@]}"
