"""Outputs are never replaced by less without consent (issue 37, item 1): a run that finds no
submission, or fewer than half as many as --out has graded, is refused with exit 2 and changes
nothing; --allow-shrink grades it."""

import shutil

from conftest import EXEMPLAR

from autograder import cli


def _outputs(out):
    return {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_an_empty_or_shrunken_folder_is_refused_and_changes_nothing(tmp_path, write_nb, correct_nb, stub_nb, capsys):
    subs = write_nb("ada", correct_nb).parent.parent
    write_nb("bob", stub_nb)
    write_nb("cy", stub_nb)
    out = tmp_path / "out"
    args = ["--assignment", EXEMPLAR, "--out", str(out), "--workers", "1", "--no-gradebook", "--quiet",
            "--timeout", "15", "--call-timeout", "5"]
    assert cli.main(["grade-cohort", str(subs), *args]) == 0
    before = _outputs(out)
    assert (out / "grades.csv").read_text().count("\n") == 4

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a notebook")
    assert cli.main(["grade-cohort", str(empty), *args]) == 2
    err = capsys.readouterr().err
    assert "no notebook" in err and str(empty) in err and "Nothing was graded" in err
    assert _outputs(out) == before

    one = tmp_path / "one"
    shutil.copytree(subs / "ada", one / "ada")
    assert cli.main(["grade-cohort", str(one), *args]) == 2
    assert "--allow-shrink" in capsys.readouterr().err and _outputs(out) == before

    assert cli.main(["grade-cohort", str(one), *args, "--allow-shrink"]) == 0  # asked for: only ada listed
    assert (out / "grades.csv").read_text().count("\n") == 2
    assert cli.main(["grade-cohort", str(empty), "--assignment", EXEMPLAR, "--out", str(tmp_path / "fresh"),
                     "--no-gradebook", "--quiet"]) == 2  # an empty folder, even into a new --out
    assert not (tmp_path / "fresh").exists()
