"""Static checks of the engine, run by the test suite (so by CI): the tools and their versions are
pinned in pyproject.toml, which also holds their settings."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]  # the repository whose pyproject.toml configures the tools


def test_mypy_passes_on_the_engine_run_layer():
    """``mypy`` as configured in pyproject.toml ([tool.mypy]: autograder/run and what it imports,
    course_config.py included). Its cache (.mypy_cache, which mypy keeps out of git) makes a
    second run take seconds; the first takes about a minute."""
    out = subprocess.run([sys.executable, "-m", "mypy"], cwd=CHECKOUT, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *args], cwd=CHECKOUT,
                          capture_output=True, text=True, check=False)


def test_ruff_passes_on_the_engine_tests_benchmarks_and_scripts():
    """``ruff check`` with the rules of pyproject.toml ([tool.ruff.lint])."""
    out = _ruff()
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]


def test_the_sources_lint_clean_with_exactly_their_prelude_names_declared():
    """An instructor's editor lints source/ with source/ruff.toml: its declared names (the prelude
    the generator writes before a source's cells) are exactly the names the sources use without
    defining, so that it shows real errors only and hides none."""
    out = _ruff("source")
    assert out.returncode == 0, out.stdout[-6000:]
    declared = set(tomllib.loads((CHECKOUT / "source" / "ruff.toml").read_text())["builtins"])
    bare = _ruff("source", "--isolated", "--select", "F821", "--output-format", "json")
    undefined = {f["message"].split("`")[1] for f in json.loads(bare.stdout)}
    assert undefined == declared, (sorted(undefined - declared), sorted(declared - undefined))
