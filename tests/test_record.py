"""A grade as types (issue 33): a test's outcome is a kind set where it is known, records of
earlier versions are read, and a record is plain data only in its file."""

import json
import signal

from autograder.cohort.record import CohortSummary, Record
from autograder.run.channel import Worker
from autograder.run.proxy import killed as _killed
from autograder.run.record import Answer, Check, Evidence, Fault, FunctionSubtotal, GradeReport, Kind, TestResult


def test_a_record_of_an_earlier_version_gets_its_kinds_from_its_flags_and_messages():
    old = [{"name": "a", "points": 1, "max_points": 1, "passed": True, "message": "ok"},
           {"name": "b", "points": 0, "max_points": 1, "passed": False, "message": "f did not finish within 8 s"},
           {"name": "c", "points": 0, "max_points": 1, "passed": False,
            "message": "the notebook's process was killed (memory limit or out of memory) while running f"},
           {"name": "d", "points": 0, "max_points": 1, "passed": False, "message": "f is not implemented yet"},
           {"name": "e", "points": 0, "max_points": 1, "passed": False, "message": "the result does not match"},
           {"name": "f", "points": 1, "max_points": 1, "passed": False, "message": "x", "carried_forward": "from g"},
           {"name": "g", "points": 0, "max_points": 1, "passed": False, "message": "the notebook crashed too often"},
           {"name": "h", "points": 0, "max_points": 1, "passed": False,
            "message": "checks s: the notebook could not be read: the notebook is not valid JSON"}]
    report = GradeReport.from_dict({"tests": old, "unknown_key": 1})
    tests = {t.name: t for t in report.tests}
    assert tests["h"].error == "invalid_notebook" and report.unreadable
    assert [tests[n].kind for n in "abcdefg"] == [Kind.PASS, Kind.TIMEOUT, Kind.MEMORY, Kind.STUDENT_ERROR, Kind.FAIL,
                                                  Kind.CARRIED, Kind.STUDENT_ERROR]
    assert [n for n in "abcdefg" if tests[n].troubled] == ["b", "c", "g"]
    assert tests["d"].not_implemented and not tests["e"].not_implemented


def test_a_kind_written_is_read_back_and_not_guessed():
    t = TestResult("t", 0.0, 1.0, False, "did not finish within", kind=Kind.FAIL)
    back = TestResult.from_dict(json.loads(json.dumps(t.to_dict())))
    assert back == t and back.kind is Kind.FAIL and not back.troubled


def test_a_record_round_trips_and_keeps_the_roster_out_of_its_file():
    rec = Record(assignment="a", submission="s.ipynb", score=1.0, max_score=2.0, student="ada", lms_late=True,
                 tests=[TestResult("t", 1.0, 2.0, False, "m", kind=Kind.CARRIED,
                                   fault=Fault("f", Evidence.CARRIED, ("f",)))],
                 manual=[Answer("written_1", 2.0, cell=3, text="x")], functions=[FunctionSubtotal("f", 2.0, 1.0)],
                 roster_id="R1", section="B", extension=2.0)
    data = json.loads(json.dumps(rec.to_dict()))
    assert not {"roster_id", "section", "extension", "roster_match"} & set(data)
    assert Record.from_dict(data) == Record(**{**rec.__dict__, "roster_id": "", "section": "", "extension": None})
    assert Record.from_dict({"student": "old"}).submission == ""  # missing keys take their defaults


def test_a_summary_from_plain_data_holds_records():
    summary = CohortSummary.from_dict({"assignment": "a", "results": [{"student": "ada", "score": 1}],
                                       "absent": [{"student": "bo", "roster_id": "bo"}], "other": 1})
    assert isinstance(summary.results[0], Record) and summary.results[0].student == "ada"
    assert summary.absent[0].roster_id == "bo"


def test_unfinished_reports_are_those_not_read_or_stopped():
    ok = GradeReport("a", "s", tests=[TestResult("t", 0.0, 1.0, False, "m", kind=Kind.FAIL)])
    unread = GradeReport("a", "s", tests=[TestResult("t", 0.0, 1.0, False, "m", kind=Kind.STUDENT_ERROR,
                                                     error="invalid_notebook")])
    stopped = GradeReport("a", "s", tests=[TestResult("t", 0.0, 1.0, False, "m", kind=Kind.NOT_GRADED)])
    assert [r.unfinished for r in (ok, unread, stopped, GradeReport("a", "s"))] == [False, True, True, True]


def test_a_process_killed_is_told_by_its_exit_status_not_its_message():
    class Proc:  # a student's process that has exited with ``code``
        def __init__(self, code):
            self.returncode = code
            self.stderr = type("Closed", (), {"closed": True})()  # the student's code has run

        def wait(self, timeout=None):
            return self.returncode

    def died(code):
        worker = Worker.__new__(Worker)
        worker.proc = Proc(code)
        return worker._died()

    killed, exited = died(-signal.SIGKILL), died(3)
    assert killed.killed and _killed(killed) and "was killed" in str(killed)
    assert not exited.killed and not _killed(exited)
    assert not _killed(RuntimeError("was killed (memory limit or out of memory)"))


def test_a_public_check_is_data_and_one_still_to_implement_is_told_by_a_flag():
    """A check whose function is still the release's stub is pending, not failed: a flag, not a
    prefix of its message; records written with ``[description, passed, message]`` read the same."""
    checks = [Check("s(1) = log 2", True), Check("eps decreases", False, "implement eps first", pending=True),
              Check("R in [0, 1]", False, "AssertionError: R = 1.5")]
    back = GradeReport.from_dict(json.loads(json.dumps(GradeReport("a", "s", checks=checks).to_dict()))).checks
    assert back == checks
    old = GradeReport.from_dict({"checks": [["s(1) = log 2", True, ""],
                                            ["eps decreases", False, "not yet: implement eps first"],
                                            ["R in [0, 1]", False, "AssertionError: R = 1.5"]]}).checks
    assert old == checks


def test_reports_and_records_carry_their_format_and_a_newer_one_is_refused(tmp_path):
    """Format 2 is written; a file without "format" is format 1 and reads; a newer one is refused
    with a reason that says to upgrade, and a cohort does not take it for a damaged record (which
    it would grade again, over the newer engine's file)."""
    import pytest

    from autograder.cohort.grade import read_record
    from autograder.run.record import FORMAT, NewerFormat

    report = GradeReport(assignment="a", submission="s.ipynb", score=1.0, max_score=1.0,
                         tests=[TestResult("t", 1.0, 1.0, True, "ok", kind=Kind.PASS)])
    rec = Record(assignment="a", submission="s.ipynb", student="ada")
    assert FORMAT == 2 and report.to_dict()["format"] == 2 and rec.to_dict()["format"] == 2
    assert GradeReport.from_dict(json.loads(json.dumps(report.to_dict()))) == report
    old = {k: v for k, v in report.to_dict().items() if k != "format"}
    assert GradeReport.from_dict(old) == report  # format 1: no key
    assert Record.from_dict({k: v for k, v in rec.to_dict().items() if k != "format"}) == rec
    for newer in (report.to_dict(), rec.to_dict()):
        with pytest.raises(NewerFormat, match=r"format 3.*newer version.*upgrade the engine"):
            type(report).from_dict({**newer, "format": FORMAT + 1})
    path = tmp_path / "ada.json"
    path.write_text(json.dumps({**rec.to_dict(), "format": FORMAT + 1}))
    with pytest.raises(NewerFormat, match="record is in format 3"):
        read_record(path)
    path.write_text(json.dumps(rec.to_dict()))
    assert read_record(path) == rec
