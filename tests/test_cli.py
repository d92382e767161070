"""The commands people type: `pdl check` (students) and the README demo's example folder (TAs)."""

import json

from conftest import EXEMPLAR

from autograder.cli import main as pdl
from autograder.run.paths import REPO

EXAMPLES = REPO / "examples" / "submissions" / EXEMPLAR


def test_check_passes_on_the_solution_and_fails_kindly_on_the_stub(capsys):
    assert pdl(["check", str(REPO / "solutions" / EXEMPLAR / f"{EXEMPLAR}.ipynb"), "--assignment", EXEMPLAR]) == 0
    out = capsys.readouterr().out
    assert "public checks pass" in out and "FAIL" not in out
    assert pdl(["check", str(REPO / "assignments" / EXEMPLAR / f"{EXEMPLAR}.ipynb"), "--assignment", EXEMPLAR]) == 1
    out = capsys.readouterr().out
    assert "not yet" in out and "implement " in out and "0/" in out


def test_demo_examples_grade_as_labelled(tmp_path, capsys):
    out = tmp_path / "demo.json"
    assert pdl(["grade", str(EXAMPLES), "--assignment", EXEMPLAR, "--call-timeout", "5",
                "--json", str(out)]) == 1  # the invalid JSON is graded 0, and not everything was graded
    by = {r["submission"].rsplit("/", 1)[-1]: r for r in json.loads(out.read_text())}
    full = by["correct.ipynb"]["max_score"]
    assert by["correct.ipynb"]["score"] == full > 0
    assert 0 < by["partial.ipynb"]["score"] < full
    assert by["stub.ipynb"]["score"] == 0
    assert by["invalid_json.ipynb"]["score"] == 0 and by["invalid_json.ipynb"]["errors"]
    assert 0 < by["infinite_loop.ipynb"]["score"] < full
    printed = capsys.readouterr()
    assert printed.out.count(f"/ {full:g}") == 5
    assert f"1 of 5 notebook(s) could not be graded in full (0 points or unfinished tests, reason above): " \
           f"{EXAMPLES / 'invalid_json.ipynb'}" in printed.err


def test_grade_cohort_keeps_its_outputs_when_the_gradebook_fails(tmp_path, capsys, monkeypatch):
    """A gradebook that cannot be opened costs an exit code and a message that says what to do,
    never the grades: the CSV, feedback and written-answer sheet are written first. A relative
    sqlite URL is taken from where pdl runs."""
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "alice.ipynb").write_bytes((EXAMPLES / "partial.ipynb").read_bytes())
    out = tmp_path / "out"
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the gradebook's folder should be")
    rc = pdl(["grade-cohort", str(subs), "--assignment", EXEMPLAR, "--out", str(out), "--quiet", "--workers", "1",
              "--gradebook", f"sqlite:///{blocker}/gradebook.db"])
    err = capsys.readouterr().err
    assert rc == 1 and "could not record the grades in nbgrader's gradebook" in err and "--no-gradebook" in err
    assert (out / "grades.csv").read_text().splitlines()[1].startswith("alice,")
    assert (out / "written_scores.csv").exists() and (out / "feedback" / "alice.md").exists()
    monkeypatch.chdir(tmp_path)
    assert pdl(["grade-cohort", str(subs), "--assignment", EXEMPLAR, "--out", str(out), "--quiet",
                "--gradebook", "sqlite:///gb.db"]) == 0          # reuses the record, grades nothing again
    assert (tmp_path / "gb.db").stat().st_size > 0
    assert "0 graded now, 1 already graded" in capsys.readouterr().out


def test_a_typod_assignment_is_refused_before_the_engine_is_imported(tmp_path):
    """`pdl grade-cohort subs --assignment ex2_3_isng`, as typed, in a process of its own: refused
    in words with exit 2, the nearest id named, before grading, pages or nbgrader are imported (that
    import took 7-11 s; benchmarks/cohort_speed.py prints the refusal's time)."""
    import subprocess
    import sys

    subs = tmp_path / "subs"
    (subs / "ada").mkdir(parents=True)
    (subs / "ada" / f"{EXEMPLAR}.ipynb").write_bytes((EXAMPLES / "correct.ipynb").read_bytes())
    code = ("import sys\nfrom autograder import cli\ncode = cli.main(sys.argv[1:])\n"
            "print(sorted(m for m in sys.modules if m.startswith(('autograder.cohort', 'autograder.run.grading', "
            "'numpy', 'nbformat', 'nbgrader'))), file=sys.stderr)\nsys.exit(code)")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-c", code, "grade-cohort", str(subs), "--assignment", "ex2_3_isng",
                          "--out", str(out)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert run.returncode == 2, run.stderr[-2000:]
    assert f"pdl: unknown assignment 'ex2_3_isng'; did you mean {EXEMPLAR}" in run.stderr
    assert "Nothing was done." in run.stderr and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1] == "[]", run.stderr[-2000:]
    assert not out.exists()
    missing = subprocess.run([sys.executable, "-m", "autograder.cli", "grade-cohort", str(tmp_path / "nowhere"),
                              "--assignment", EXEMPLAR, "--out", str(out)],
                             capture_output=True, text=True, timeout=120, cwd=REPO)
    assert missing.returncode == 2 and f"{tmp_path / 'nowhere'} does not exist" in missing.stderr
    assert not out.exists()


def test_notebooks_and_the_gradebook_read_without_rfc3987_syntax(tmp_path):
    """grade-cohort keeps jsonschema from importing rfc3987-syntax (3.4 s of CPU building a
    grammar for the "iri" format): nbformat still reads and validates a notebook, the pages still
    read the source's written questions, nbgrader's gradebook still opens."""
    import subprocess
    import sys

    code = ("import sys\nfrom autograder import cli\ncli.without_iri_checks()\nimport nbformat, jsonschema\n"
            f"nb = nbformat.read({str(EXAMPLES / 'correct.ipynb')!r}, as_version=4)\nnbformat.validate(nb)\n"
            "from autograder.cohort.pages import questions_of\n"
            f"assert questions_of({EXEMPLAR!r}), 'no written questions read'\n"
            "from nbgrader.api import Gradebook\nfrom autograder.course import nbgrader as course\n"
            "course.ensure_alembic_on_path()\n"
            f"with Gradebook('sqlite:///{tmp_path / 'gb.db'}') as gb:\n    gb.add_student('ada')\n"
            "assert sys.modules['rfc3987_syntax'] is None\nprint('ok')")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]
