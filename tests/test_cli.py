"""The commands people type: `pdl check` (students) and the README demo's example folder (TAs)."""

import json

from autograder.cli import main as pdl
from autograder.sandbox import REPO
from conftest import EXEMPLAR

EXAMPLES = REPO / "examples" / "submissions" / EXEMPLAR


def test_check_passes_on_the_solution_and_fails_kindly_on_the_stub(capsys):
    assert pdl(["check", str(REPO / "solutions" / EXEMPLAR / f"{EXEMPLAR}.ipynb"), "--assignment", EXEMPLAR]) == 0
    out = capsys.readouterr().out
    assert "public checks pass" in out and "FAIL" not in out
    assert pdl(["check", str(REPO / "assignments" / EXEMPLAR / f"{EXEMPLAR}.ipynb"), "--assignment", EXEMPLAR]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "NotImplementedError" in out


def test_demo_examples_grade_as_labelled(tmp_path, capsys):
    out = tmp_path / "demo.json"
    assert pdl(["grade", str(EXAMPLES), "--assignment", EXEMPLAR, "--call-timeout", "10",
                "--json", str(out)]) == 0
    by = {r["submission"].rsplit("/", 1)[-1]: r for r in json.loads(out.read_text())}
    full = by["correct.ipynb"]["max_score"]
    assert by["correct.ipynb"]["score"] == full > 0
    assert 0 < by["partial.ipynb"]["score"] < full
    assert by["stub.ipynb"]["score"] == 0
    assert by["invalid_json.ipynb"]["score"] == 0 and by["invalid_json.ipynb"]["errors"]
    assert 0 < by["infinite_loop.ipynb"]["score"] < full
    printed = capsys.readouterr().out
    assert printed.count(f"/ {full:g}") == 5
