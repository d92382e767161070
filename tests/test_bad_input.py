"""Bad input is refused before anything is graded or recorded (issue 23, item 8): an unknown
assignment id (the nearest ids suggested), a missing file or a non-notebook for `pdl grade`, a
limit that is not above 0, a missing, corrupt or foreign SUBMISSIONS; exit code 2 and nothing
written to the output folder or the gradebook. An unreadable notebook is still graded 0 with its
reason, and `pdl grade`'s exit code says that not everything was graded."""

import io
import json
import tempfile
import zipfile

import pytest
from conftest import EXEMPLAR

from autograder import cli
from autograder.cohort import grade
from autograder.run.paths import REPO

EXAMPLES = REPO / "examples" / "submissions" / EXEMPLAR
TYPO = "ex2_3_ising_perceptorn"


@pytest.fixture
def cohort(tmp_path):
    """A folder of two submissions, an output folder and a gradebook URL, none of them written yet."""
    subs = tmp_path / "subs"
    for name in ("alice", "bob"):
        (subs / name).mkdir(parents=True)
        (subs / name / f"{EXEMPLAR}.ipynb").write_bytes((EXAMPLES / "partial.ipynb").read_bytes())
    return subs, tmp_path / "out", tmp_path / "gradebook.db"


def _cohort_args(source, out, db, *more):
    return ["grade-cohort", str(source), "--assignment", EXEMPLAR, "--out", str(out),
            "--gradebook", f"sqlite:///{db}", "--quiet", *more]


def _nothing_written(out, db):
    assert not out.exists(), sorted(p.name for p in out.rglob("*"))
    assert not db.exists()


# -- unknown assignment ids ------------------------------------------------------------------
def test_grade_cohort_refuses_a_misspelt_assignment_and_suggests_the_nearest(cohort, capsys):
    subs, out, db = cohort
    args = _cohort_args(subs, out, db)
    args[args.index(EXEMPLAR)] = TYPO
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert f"unknown assignment {TYPO!r}; did you mean {EXEMPLAR} or " in err and "Nothing was" in err
    _nothing_written(out, db)


def test_grade_cohort_the_function_refuses_an_unknown_assignment_before_writing(cohort):
    subs, out, _ = cohort
    with pytest.raises(grade.CohortInputError, match=f"did you mean {EXEMPLAR}"):
        grade.grade_cohort(subs, TYPO, out, progress=False)
    assert not out.exists()


@pytest.mark.parametrize("command", [
    ["grade", str(EXAMPLES / "partial.ipynb"), "--assignment"],
    ["check", str(EXAMPLES / "partial.ipynb"), "--assignment"],
    ["validate", "--no-otter", "--no-gradescope", "--mutants", "0"],
    ["generate", "--no-execute", "--no-otter"],
])
def test_each_command_refuses_an_unknown_assignment(command, tmp_path, capsys, monkeypatch):
    from autograder.course import generate, validate

    monkeypatch.setattr(generate, "generate", lambda *a, **k: pytest.fail("generated"))
    monkeypatch.setattr(validate, "validate", lambda *a, **k: pytest.fail("validated"))
    monkeypatch.setattr("autograder.run.grading.grade", lambda *a, **k: pytest.fail("graded"))
    report = tmp_path / "report.json"
    extra = ["--json", str(report)] if command[0] == "grade" else []
    assert cli.main(command + ["ex2_3"] + extra) == 2  # a prefix: the ids starting with it
    err = capsys.readouterr().err
    assert "unknown assignment 'ex2_3'; did you mean ex2_3_ising_perceptron?" in err
    assert cli.main(command + ["no_such_exercise"]) == 2
    err = capsys.readouterr().err
    assert "unknown assignment 'no_such_exercise'" in err and "did you mean" not in err and EXEMPLAR in err
    assert not report.exists()


# -- pdl grade: what is not a notebook ------------------------------------------------------
@pytest.mark.parametrize("what, says", [
    ("missing.ipynb", "does not exist"),
    ("answers.py", "is not a notebook (.ipynb)"),
    ("empty_folder", "no .ipynb files under"),
])
def test_grade_refuses_a_missing_file_or_a_non_notebook(what, says, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("autograder.run.grading.grade", lambda *a, **k: pytest.fail("graded"))
    target = tmp_path / what
    if what.endswith(".py"):
        target.write_text("def f():\n    return 1\n")
    elif what == "empty_folder":
        target.mkdir()
        (target / "notes.txt").write_text("no notebook here")
    report = tmp_path / "report.json"
    assert cli.main(["grade", str(target), "--assignment", EXEMPLAR, "--json", str(report)]) == 2
    captured = capsys.readouterr()
    assert f"{target}" in captured.err and says in captured.err and "Nothing was graded" in captured.err
    assert "/ " not in captured.out and not report.exists()  # no 0/24 table


def test_an_unreadable_notebook_is_graded_0_and_the_exit_code_says_so(tmp_path, capsys):
    bad = tmp_path / "invalid_json.ipynb"
    bad.write_bytes((EXAMPLES / "invalid_json.ipynb").read_bytes())
    report = tmp_path / "report.json"
    assert cli.main(["grade", str(bad), "--assignment", EXEMPLAR, "--json", str(report)]) == 1
    data = json.loads(report.read_text())
    assert data["score"] == 0 and data["max_score"] > 0 and data["errors"][0].startswith("invalid notebook:")
    assert "1 of 1 notebook(s) could not be graded in full" in capsys.readouterr().err


# -- limits ------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["grade", "grade-cohort"])
@pytest.mark.parametrize("option, value, says", [
    ("--workers", "-3", "must be at least 1, not -3"),
    ("--workers", "0", "must be at least 1, not 0"),
    ("--workers", "two", "'two' is not a whole number"),
    ("--timeout", "0", "must be above 0, not 0"),
    ("--timeout", "-1", "must be above 0, not -1"),
    ("--call-timeout", "nan", "must be above 0, not nan"),
    ("--call-timeout", "inf", "must be above 0, not inf"),
    ("--memory", "-4096", "must be at least 1, not -4096"),
])
def test_a_limit_not_above_zero_is_refused_by_argparse(command, option, value, says, cohort, capsys, monkeypatch):
    if command == "grade" and option == "--workers":
        pytest.skip("pdl grade has no --workers")
    monkeypatch.setattr(grade, "grade_cohort", lambda *a, **k: pytest.fail("graded"))
    monkeypatch.setattr("autograder.run.grading.grade", lambda *a, **k: pytest.fail("graded"))
    subs, out, db = cohort
    args = (_cohort_args(subs, out, db) if command == "grade-cohort"
            else ["grade", str(EXAMPLES / "partial.ipynb"), "--assignment", EXEMPLAR])
    with pytest.raises(SystemExit) as exit_:
        cli.main(args + [option, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: {says}" in err and "Traceback" not in err
    _nothing_written(out, db)


# -- SUBMISSIONS that are not a folder or a zip -----------------------------------------------
def _zip_of(subs) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for path in sorted(subs.rglob("*.ipynb")):
            zf.write(path, path.relative_to(subs).as_posix())
    return buf.getvalue()


@pytest.mark.parametrize("damage, says", [
    ("truncated", "is a corrupt zip file (no zip directory at its end"),
    ("flipped", "is a corrupt zip file (Bad CRC-32"),
    ("not_a_zip", "is neither a folder nor a zip file"),
    ("missing", "does not exist"),
])
def test_a_corrupt_or_missing_submissions_zip_is_refused(damage, says, cohort, tmp_path, capsys, monkeypatch):
    subs, out, db = cohort
    scratch = tmp_path / "scratch"  # where the zip would be extracted: nothing may be left there
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    data = _zip_of(subs)
    assert b"cells" in data
    source = tmp_path / ("SUBMISSIONS.txt" if damage == "not_a_zip" else "SUBMISSIONS.zip")
    if damage == "truncated":
        source.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":  # a member's bytes changed: its checksum no longer matches
        at = data.index(b"cells")
        source.write_bytes(data[:at] + b"cellz" + data[at + 5:])
    elif damage == "not_a_zip":
        source.write_text("alice,3\nbob,4\n")
    assert cli.main(_cohort_args(source, out, db)) == 2
    err = capsys.readouterr().err
    assert f"pdl: {source} {says}" in err and "Nothing was graded" in err
    if damage in ("truncated", "flipped"):
        assert "re-download it" in err
    _nothing_written(out, db)
    assert list(scratch.iterdir()) == []


def test_a_damaged_id_registry_is_refused_without_a_traceback(tmp_path):
    """A hand-edited <out>/ids.json that no longer says who is who stops the run, in words."""
    import subprocess
    import sys

    subs = tmp_path / "subs"
    (subs / "ada").mkdir(parents=True)
    (subs / "ada" / "ex2_3_ising_perceptron.ipynb").write_text("{}")
    out = tmp_path / "out"
    out.mkdir()
    (out / "ids.json").write_text("[1, 2, 3]")
    run = subprocess.run([sys.executable, "-m", "autograder.cli", "grade-cohort", str(subs), "--assignment",
                          "ex2_3_ising_perceptron", "--out", str(out), "--no-gradebook"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and "Traceback" not in run.stderr and "ids.json" in run.stderr, run.stderr[-2000:]
