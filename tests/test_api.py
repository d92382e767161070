"""The Python API (docs/api.md): a term graded by ``grade_term`` and its records read back; a new
year's dates in course_config listed, moved or kept by ``new_year`` (on a copy of course_config.py,
never the course's); and the ``pdl`` command, which imports no engine module to print its help or
to refuse an argument."""

import json
import subprocess
import sys

import pytest
from conftest import EXEMPLAR

import course_config
from autograder.course import new_year as ny
from autograder.run.paths import REPO

LIMITS = dict(timeout=60, call_timeout=10, memory_mb=2048)


# -- grade_term ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def term(tmp_path_factory, correct_nb, stub_nb):
    from autograder.cohort.term import grade_term

    tmp = tmp_path_factory.mktemp("term")
    subs = tmp / "subs"
    for student, nb in (("alice", correct_nb), ("bob", stub_nb)):
        (subs / student).mkdir(parents=True)
        (subs / student / f"{EXEMPLAR}.ipynb").write_text(json.dumps(nb))
    said = []
    out = tmp / "out"
    first = grade_term(subs, EXEMPLAR, out, gradebook=False, workers=1, progress=False, log=said.append, **LIMITS)
    return subs, out, first, said


def test_grade_term_grades_writes_and_says_what_it_did(term):
    _, out, first, said = term
    assert first.students == 2 and first.graded == 2 and first.reused == 0 and first.ok
    scores = {r.student: r.score for r in first.records}
    assert scores["alice"] == first.max_score > 0 and scores["bob"] == 0
    assert first.mean_score == first.max_score / 2
    assert first.grades_csv == out / "grades.csv" and first.grades_csv.read_text().count("\n") == 3
    assert (out / "feedback" / "alice.html").exists() and (out / "report.html").exists()
    assert first.gradebook is None and not first.unmatched and first.version.startswith(f"{course_config.YEAR}.")
    assert any(line.startswith("writing grades, feedback and report for 2 submissions") for line in said)


def test_read_records_and_a_rerun_grades_nothing_again(term):
    from autograder.cohort.term import grade_term, read_records

    subs, out, first, _ = term
    records = read_records(out)
    assert [r.student for r in records] == ["alice", "bob"]
    assert [r.score for r in records] == [r.score for r in sorted(first.records, key=lambda r: r.student)]
    assert records[0].tests and records[0].version == first.version
    again = grade_term(subs, EXEMPLAR, out, gradebook=False, workers=1, progress=False, **LIMITS)
    assert again.graded == 0 and again.reused == 2 and "no grade changed" in again.changes


def test_grade_term_refuses_a_bad_roster_before_grading(tmp_path, monkeypatch):
    from autograder.cohort.term import TermRefused, grade_term

    monkeypatch.setattr("autograder.cohort.grade.grade_cohort", lambda *a, **k: pytest.fail("graded"))
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\n1,Ada\n1,Bob\n")
    with pytest.raises(TermRefused, match="already on line 2"):
        grade_term(tmp_path, EXEMPLAR, tmp_path / "out", roster=roster, gradebook=False)
    assert not (tmp_path / "out").exists()


# -- new_year -----------------------------------------------------------------------------------
STALE = {
    "DEADLINES = {}": 'DEADLINES = {"ex3_2_nngp": "2026-10-15 23:59:59 Europe/Berlin",\n'
                      '             "ex2_1_cumulants": "2028-02-29 12:00",\n'
                      '             "ex2_2_first_order": "2027-01-20 09:00:00 +0100"}',
    "LATE_POLICY = {}": 'LATE_POLICY = {"*": {"per_day": 0.1, "no_credit_after": "2026-12-01 00:00:00"}}',
}


@pytest.fixture
def config(tmp_path):
    """A copy of course_config.py with this term's dates: two in 2026, one in 2027, one in 2028."""
    text = (REPO / "course_config.py").read_text()
    for old, new in STALE.items():
        assert text.count(old) == 1
        text = text.replace(old, new)
    path = tmp_path / "course_config.py"
    path.write_text(text.replace(f"YEAR = {course_config.YEAR} ", "YEAR = 2026 "))
    return path


def test_dates_before_the_new_year_are_listed(config):
    found = {d.where: d.value for d in ny.dates_before(2027, config)}
    assert found == {"DEADLINES['ex3_2_nngp']": "2026-10-15 23:59:59 Europe/Berlin",
                     "LATE_POLICY['*']['no_credit_after']": "2026-12-01 00:00:00"}
    assert [d.where for d in ny.dates_before(2029, config)][:3] == [
        "DEADLINES['ex3_2_nngp']", "DEADLINES['ex2_1_cumulants']", "DEADLINES['ex2_2_first_order']"]
    assert ny.dates_before(2026, config) == []


def test_new_year_refuses_while_dates_are_before_it_and_writes_nothing(config):
    before = config.read_text()
    with pytest.raises(ny.DatesBeforeYear) as refused:
        ny.new_year(2027, config=config, regenerate=False)
    assert [d.where for d in refused.value.dates] == ["DEADLINES['ex3_2_nngp']", "LATE_POLICY['*']['no_credit_after']"]
    assert config.read_text() == before


def test_new_year_shifts_the_dates_by_whole_years(config):
    done = ny.new_year(2027, config=config, deadlines="shift", regenerate=False)
    text = config.read_text()
    assert "YEAR = 2027 " in text and done.old_year == 2026 and not done.kept
    assert '"ex3_2_nngp": "2027-10-15 23:59:59 Europe/Berlin"' in text
    assert '"no_credit_after": "2027-12-01 00:00:00"' in text
    assert '"2027-01-20 09:00:00 +0100"' in text  # in the new year already: not moved
    assert '# e.g. {"ex3_2_nngp": "2026-10-15 23:59:59 Europe/Berlin"}' in text  # comments untouched
    assert ny.dates_before(2027, config) == []
    # two years on, from 2027: the dates before 2029 move; 29 February has no 2029
    ny.new_year(2029, config=config, deadlines="shift", regenerate=False)
    dates = {d.where: d.value for d in ny.config_dates(config)}
    assert dates["DEADLINES['ex2_1_cumulants']"] == "2030-02-28 12:00"  # 2028 + 2 (the course moved two years)
    assert dates["DEADLINES['ex3_2_nngp']"] == "2029-10-15 23:59:59 Europe/Berlin"
    assert dates["DEADLINES['ex2_2_first_order']"] == "2029-01-20 09:00:00 +0100"


def test_new_year_keeps_the_dates_when_told(config):
    done = ny.new_year(2027, config=config, deadlines="keep", regenerate=False)
    assert [d.where for d in done.kept] == ["DEADLINES['ex3_2_nngp']", "LATE_POLICY['*']['no_credit_after']"]
    assert "YEAR = 2027 " in config.read_text() and '"2026-10-15 23:59:59 Europe/Berlin"' in config.read_text()


def test_new_year_regenerates_only_the_course_it_belongs_to(config):
    with pytest.raises(ValueError, match="regenerate=False"):
        ny.new_year(2027, config=config, deadlines="keep")


def test_pdl_new_year_refuses_with_the_list_exit_2(config, monkeypatch, capsys):
    from autograder import cli

    monkeypatch.setattr(ny, "generate", lambda *a, **k: pytest.fail("generated"))
    monkeypatch.setattr(ny, "REPO", config.parent)  # the copy stands for the course's course_config.py
    before = config.read_text()
    assert cli.main(["new-year", "2027", "--no-execute", "--no-otter"]) == 2
    err = capsys.readouterr().err
    assert "2 date(s) before 2027" in err and "DEADLINES['ex3_2_nngp'] = '2026-10-15 23:59:59 Europe/Berlin'" in err
    assert "--shift-deadlines" in err and "Nothing was written" in err
    assert config.read_text() == before


def test_validate_notes_the_dates_before_the_course_year(monkeypatch):
    monkeypatch.setattr(course_config, "DEADLINES", {EXEMPLAR: "2001-10-15 23:59:59", "ex3_2_nngp": "2001-10-16 00:00"},
                        raising=False)
    monkeypatch.setattr(course_config, "LATE_POLICY", {"no_credit_after": "2001-11-01 00:00"}, raising=False)
    notes = ny.date_notes(EXEMPLAR)
    assert len(notes) == 2 and f"DEADLINES['{EXEMPLAR}']" in notes[0] and "no_credit_after" in notes[1]
    assert all(f"before the course year {course_config.YEAR}" in n for n in notes)


# -- the command table --------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["--help"], ["grade", "x.ipynb", "--assignment", EXEMPLAR, "--memory", "0"],
                                  ["new-year", "2027", "--shift-deadlines", "--keep-deadlines"]])
def test_help_and_a_refused_argument_import_no_engine_module(argv):
    code = ("import sys\nfrom autograder import cli\ntry:\n    cli.main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print([m for m in sys.modules if m.startswith(('autograder.', 'course_config', 'numpy'))"
            " and m != 'autograder.cli'], file=sys.stderr)")
    run = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert run.stderr.strip().splitlines()[-1] == "[]", run.stderr[-2000:]


def test_every_name_in_the_command_table_resolves():
    from autograder import cli

    for name in (*cli.COMMANDS, *cli.NAMES):
        assert cli.engine(name) is not None, name
