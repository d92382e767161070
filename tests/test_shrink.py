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


def test_a_crash_while_writing_leaves_the_last_set_whole(tmp_path, write_nb, correct_nb, stub_nb, monkeypatch):
    """The outputs are written to a folder of their own and renamed into place together: a run that
    dies after writing some of them (here: while writing mistakes.csv, after grades.csv, canvas.csv
    and the pages) leaves every file of the last run as it was, and no staging folder behind."""
    from autograder.cohort import outputs

    subs = tmp_path / "subs"
    for student, nb in (("ada", correct_nb), ("bob", stub_nb)):
        shutil.move(write_nb(student, nb).parent, subs / student)
    out = tmp_path / "out"  # beside the submissions, not among them
    args = ["--assignment", EXEMPLAR, "--out", str(out), "--workers", "1", "--no-gradebook", "--quiet",
            "--timeout", "15", "--call-timeout", "5"]
    assert cli.main(["grade-cohort", str(subs), *args]) == 0
    before = {k: v for k, v in _outputs(out).items() if k.parts[0] != "records"}
    assert any(k.parts[0] == "feedback" for k in before) and len(before) > 6

    shutil.rmtree(subs / "bob")
    shutil.move(write_nb("bob", correct_nb).parent, subs / "bob")  # bob's grade changes: every output would

    def dies(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(outputs, "write_mistakes", dies)
    assert cli.main(["grade-cohort", str(subs), *args]) == 130  # Ctrl-C while writing
    after = {k: v for k, v in _outputs(out).items() if k.parts[0] != "records"}
    assert after == before
    assert not list(out.glob(outputs.STAGE_PREFIX + "*"))
    monkeypatch.undo()
    assert cli.main(["grade-cohort", str(subs), *args]) == 0  # and the next run writes the new set
    assert (out / "grades.csv").read_bytes() != before[(out / "grades.csv").relative_to(out)]
