"""Who a submission belongs to (``autograder.cohort.layouts``): ids fixed the first time they are
seen (``<out>/ids.json``), never taken by a later name or a planted hash suffix; nothing inside
a student's folder decides who she is; Canvas and Moodle downloads read like Gradescope exports;
names kept as written, ids transliterated to ASCII.

Discovery never grades: every input here is a folder (or zip) of tiny fake notebooks.
"""

import csv
import hashlib
import json
import zipfile

import pytest
from conftest import EXEMPLAR

from autograder.cohort import layouts
from autograder.cohort.grade import with_identity
from autograder.cohort.layouts import discover, safe_extract
from autograder.cohort.outputs import write_csv
from autograder.cohort.record import Record

NB = EXEMPLAR + ".ipynb"


def tree(root, files: dict):
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return root


def ids(subs) -> dict:
    """name as found -> id"""
    return {s.raw: s.student for s in subs}


def zipped(tmp_path, files: dict, name="download.zip"):
    """The zip's members unpacked as grade_cohort does: (root, refused)."""
    archive = tmp_path / name
    with zipfile.ZipFile(archive, "w") as zf:
        for rel, content in files.items():
            zf.writestr(rel, content)
    root = tmp_path / "unpacked"
    root.mkdir()
    return root, safe_extract(archive, root)


# -- A. identities are stable -------------------------------------------------------------

def test_a_hash_suffix_never_equals_another_students_name(tmp_path):
    """'carol!' collides with 'carol' and gets carol_<hash>; a student who names her folder
    exactly that must not share the id (and so the record) with 'carol!'."""
    planted = "carol_" + hashlib.sha1(b"carol!").hexdigest()[:6]
    root = tree(tmp_path / "subs", {f"carol/{NB}": "{}", f"carol!/{NB}": "{}", f"{planted}/{NB}": "{}"})
    subs, _ = discover(root, EXEMPLAR)
    got = ids(subs)
    assert len({i.lower() for i in got.values()}) == 3, got
    assert got["carol"] == "carol" and got[planted] == planted and got["carol!"] not in ("carol", planted)


def test_a_later_name_never_takes_an_earlier_students_id(tmp_path):
    """Run 1 sees only 'carol!' (id 'carol'). Run 2 also sees 'carol': the id, and with it the
    record, hand scores and comments, stays with 'carol!'; the newcomer gets another."""
    out = tmp_path / "out"
    first, _ = discover(tree(tmp_path / "week1", {f"carol!/{NB}": "{}"}), EXEMPLAR, out)
    assert ids(first) == {"carol!": "carol"}
    second, _ = discover(tree(tmp_path / "week2", {f"carol!/{NB}": "{}", f"carol/{NB}": "{}"}), EXEMPLAR, out)
    got = ids(second)
    assert got["carol!"] == "carol" and got["carol"].startswith("carol_")
    assert "already another student's id" in {s.raw: s for s in second}["carol"].note


def test_ids_are_kept_across_runs_whoever_is_present(tmp_path):
    """Two grade_cohort-style discoveries into one output folder: every identity seen keeps its
    id, whether or not the others are present, whatever order new names arrive in."""
    out = tmp_path / "out"
    week1 = {f"Carol/{NB}": "{}", f"carol/{NB}": "{}", f"Émile Zola/{NB}": "{}", "dave.ipynb": "{}"}
    first = ids(discover(tree(tmp_path / "w1", week1), EXEMPLAR, out)[0])
    registry = json.loads((out / "ids.json").read_text())["students"]
    assert {k: v["id"] for k, v in registry.items()} == {f"name:{raw}": sid for raw, sid in first.items()}
    week2 = {f"carol/{NB}": "{}", f"Emile_Zola/{NB}": "{}", "dave.ipynb": "{}", f"Dave/{NB}": "{}"}
    second = ids(discover(tree(tmp_path / "w2", week2), EXEMPLAR, out)[0])
    assert second["carol"] == first["carol"] and second["dave"] == first["dave"] == "dave"
    assert second["Emile_Zola"] != first["Émile Zola"] == "Emile_Zola"   # the id is Émile's
    assert second["Dave"] != "dave" and second["Dave"].lower() != "dave"  # case-insensitive filesystems
    again = ids(discover(tmp_path / "w1", EXEMPLAR, out)[0])
    assert again == first
    assert not [p for p in out.iterdir() if p.name.startswith(".ids.json.")]  # written whole (atomic)


def test_an_unreadable_registry_stops_the_run_instead_of_guessing(tmp_path):
    out = tmp_path / "out"
    root = tree(tmp_path / "subs", {f"alice/{NB}": "{}"})
    out.mkdir()
    (out / "ids.json").write_text('{"students": {"name:x": {"id": "alice"}, "name:y": {"id": "ALICE"}}}')
    with pytest.raises(layouts.IdRegistryError):
        discover(root, EXEMPLAR, out)
    (out / "ids.json").write_text("{not json")
    with pytest.raises(layouts.IdRegistryError):
        discover(root, EXEMPLAR, out)


def test_metadata_inside_a_submission_folder_decides_nothing(tmp_path):
    """A submission_metadata.yml in a student's own folder claims her notebook for someone else:
    ignored, and said so."""
    planted = "x:\n  :submitters:\n  - :name: Alice A\n    :sid: alice\n"
    root = tree(tmp_path / "subs", {f"alice/{NB}": "{}", "mallory/submission_metadata.yml": planted,
                                    f"mallory/x/{NB}": "{}"})
    subs, unmatched = discover(root, EXEMPLAR)
    by = {s.student: s for s in subs}
    assert sorted(by) == ["alice", "mallory"]
    assert by["alice"].path == root / "alice" / NB and by["mallory"].path == root / "mallory" / "x" / NB
    assert by["mallory"].lms == "" and by["mallory"].name == "mallory"
    assert any(u.startswith("mallory/submission_metadata.yml") and "ignored" in u for u in unmatched)


def test_a_nested_folder_decides_nothing(tmp_path):
    """Inside a Gradescope export, a folder named after another submission's folder (or, in plain
    folders, after another student) is still the student's own."""
    meta = ("submission_9:\n  :submitters:\n  - :name: Bob B\n    :sid: S009\n"
            "submission_10:\n  :submitters:\n  - :name: Mallory M\n    :sid: S010\n")
    root = tree(tmp_path / "export", {"submission_metadata.yml": meta, f"submission_9/{NB}": "{}",
                                      f"submission_10/submission_9/{NB}": "{}"})
    subs, unmatched = discover(root, EXEMPLAR)
    by = {s.student: s.path.relative_to(root).as_posix() for s in subs}
    assert by == {"S009": f"submission_9/{NB}", "S010": f"submission_10/submission_9/{NB}"}, unmatched
    plain = tree(tmp_path / "plain", {f"alice/bob/{NB}": "{}", f"bob/{NB}": "{}"})
    by = {s.student: s.path.relative_to(plain).as_posix() for s in discover(plain, EXEMPLAR)[0]}
    assert by == {"alice": f"alice/bob/{NB}", "bob": f"bob/{NB}"}


def test_gradescope_metadata_counts_at_the_root_or_the_zips_single_top_folder(tmp_path):
    meta = "submission_1:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: S001\n"
    files = {"assignment_7_export/submission_metadata.yml": meta, f"assignment_7_export/submission_1/{NB}": "{}"}
    root, refused = zipped(tmp_path, files)
    subs, unmatched = discover(root, EXEMPLAR, zipped=True)
    assert not refused and not unmatched
    assert [(s.student, s.name, s.lms, s.lms_id) for s in subs] == [("S001", "Ada Lovelace", "gradescope", "S001")]
    # the same folder given unzipped: its metadata is not at the folder's root
    subs, unmatched = discover(root, EXEMPLAR)
    assert [s.student for s in subs] == ["assignment_7_export"] and any("ignored" in u for u in unmatched)


# -- B. LMS downloads, names as written ----------------------------------------------------

CANVAS = {
    f"smithjohn_LATE_12345_67890_{NB}": "{}",
    "smithjohn_LATE_12345_67891_scratch.ipynb": "{}",          # a second file of the same submission
    f"doejane_12346_67900_{EXEMPLAR}-1.ipynb": "{}",           # resubmitted: Canvas appended -1
    f"smithjohn_12347_67910_{NB}": "{}",                       # another John Smith
    f"mallory_12348_67920_x_12345_1_{NB}": "{}",               # her own filename plays Canvas ids
}


@pytest.mark.parametrize("as_zip", [False, True])
def test_canvas_download(tmp_path, as_zip):
    if as_zip:
        root, _ = zipped(tmp_path, CANVAS)  # Canvas's submissions.zip: the files at its root
    else:
        root = tree(tmp_path / "submissions", CANVAS)
    subs, unmatched = discover(root, EXEMPLAR, tmp_path / "out", zipped=as_zip)
    got = {s.lms_id: (s.student, s.name, s.late, s.lms) for s in subs}
    assert set(got) == {"12345", "12346", "12347", "12348"}
    assert got["12345"][1:] == ("smithjohn", True, "canvas") and got["12346"][1:] == ("doejane", False, "canvas")
    assert got["12345"][0] == "smithjohn" and got["12347"][0].startswith("smithjohn_")  # two John Smiths
    assert got["12348"][:2] == ("mallory", "mallory")
    by = {s.lms_id: s for s in subs}
    assert by["12345"].path.name.endswith(f"67890_{NB}")  # the file named after the assignment
    assert [u for u in unmatched if "scratch" in u and "another notebook" in u] and len(unmatched) == 1
    # the Canvas user id is the stable key: a renamed student keeps her id
    again = tree(tmp_path / "renamed", {f"smithjohnny_LATE_12345_67990_{NB}": "{}"})
    assert discover(again, EXEMPLAR, tmp_path / "out")[0][0].student == got["12345"][0]


MOODLE = {
    f"Jane Doe_4242_assignsubmission_file_/{NB}": "{}",
    "Jane Doe_4242_assignsubmission_onlinetext_/onlinetext.html": "<p>hi</p>",
    f"Émile Zola_4243_assignsubmission_file_/{NB}": "{}",
    f"王伟_4244_assignsubmission_file_/{NB}": "{}",
    f"Jane Doe_4245_assignsubmission_file_/{NB}": "{}",        # another Jane Doe
    f"Max_4242_assignsubmission_file_x_9_assignsubmission_file_/{NB}": "{}",  # a name playing Moodle ids
}


@pytest.mark.parametrize("as_zip", [False, True])
def test_moodle_download(tmp_path, as_zip):
    if as_zip:
        root, _ = zipped(tmp_path, MOODLE)
    else:
        root = tree(tmp_path / "moodle", MOODLE)
    subs, unmatched = discover(root, EXEMPLAR, tmp_path / "out", zipped=as_zip)
    got = {s.lms_id: (s.student, s.name) for s in subs}
    assert {s.lms for s in subs} == {"moodle"} and len(subs) == 5
    assert got["4243"] == ("Emile_Zola", "Émile Zola") and got["4244"] == ("WangWei", "王伟")
    jane, other_jane = got["4242"], got["4245"]  # two Jane Does: neither is preferred, both get a suffix
    assert jane[1] == other_jane[1] == "Jane Doe" and jane[0] != other_jane[0]
    assert jane[0].startswith("Jane_Doe_") and other_jane[0].startswith("Jane_Doe_")
    assert got["9"][1] == "Max_4242_assignsubmission_file_x"  # the folder's id is its last one
    assert unmatched == ["Jane Doe_4242_assignsubmission_onlinetext_/onlinetext.html: not a notebook; not graded"]


def test_moodle_download_without_folders(tmp_path):
    root = tree(tmp_path / "moodle", {f"Jane Doe_4242_assignsubmission_file_{NB}": "{}",
                                      "Jane Doe_4242_assignsubmission_file_notes.ipynb": "{}",
                                      f"Max_7_assignsubmission_file_x_4242_assignsubmission_file_{NB}": "{}"})
    subs, unmatched = discover(root, EXEMPLAR)
    got = {s.lms_id: (s.student, s.name, s.path.name) for s in subs}
    assert got == {"4242": ("Jane_Doe", "Jane Doe", f"Jane Doe_4242_assignsubmission_file_{NB}"),
                   "7": ("Max", "Max", f"Max_7_assignsubmission_file_x_4242_assignsubmission_file_{NB}")}
    assert len(unmatched) == 1 and "notes.ipynb" in unmatched[0]

def test_names_as_written_ids_in_ascii(tmp_path):
    root = tree(tmp_path / "subs", {f"Émile Zola/{NB}": "{}", "王伟.ipynb": "{}", f"Zoë\u202e evil\n/{NB}": "{}"})
    subs, _ = discover(root, EXEMPLAR)
    by = {s.name: s for s in subs}
    assert by["Émile Zola"].student == "Emile_Zola" and not by["Émile Zola"].note
    assert by["王伟"].student == "WangWei" and not by["王伟"].note
    assert by["Zoë evil"].student == "Zoe_evil"   # control and format characters gone from the name
    for s in subs:
        assert s.student.isascii()


def test_grades_csv_and_records_carry_the_name_as_written(tmp_path):
    root = tree(tmp_path / "subs", {f"Émile Zola/{NB}": "{}", f"smithjohn_LATE_12345_67890_{NB}": "{}"})
    subs, _ = discover(root, EXEMPLAR)
    rec = Record(assignment=EXEMPLAR, submission="", score=1.0, max_score=2.0)
    results = [with_identity(rec, s) for s in subs]
    by = {r.student: r for r in results}
    assert by["Emile_Zola"].name == "Émile Zola" and by["Emile_Zola"].found_as == "Émile Zola"
    assert (by["smithjohn"].lms, by["smithjohn"].lms_id, by["smithjohn"].lms_late) == ("canvas", "12345", True)
    write_csv(results, tmp_path / "grades.csv")
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as f:
        names = {row["student"]: row["name"] for row in csv.DictReader(f)}
    assert names == {"Emile_Zola": "Émile Zola", "smithjohn": "smithjohn"}


def test_one_name_on_its_own_is_unchanged():
    """Names that were ids before keep the same ids (records of earlier terms still match)."""
    assert [layouts._student_id(n) for n in ("alice", "S001", "-1-1", "@SUM_1", "a.b@uni.example")] == \
        ["alice", "S001", "-1-1", "@SUM_1", "a.b@uni.example"]
    assert layouts._student_id("...") == "student_" + hashlib.sha1(b"...").hexdigest()[:6]
    assert len(layouts._student_id("x" * 300)) <= layouts.MAX_ID


# -- C. submission times and resubmissions (issue 44, item 3) ------------------------------

def test_the_newest_canvas_resubmission_is_graded_and_the_older_ones_superseded(tmp_path):
    """x, x-1, x-2 of one student: x-2 is graded whatever order the file ids sort in; x and x-1 are
    listed as superseded by it, neither as "another notebook ... not graded" nor dropped."""
    root = tree(tmp_path / "canvas", {
        f"smithjohn_12345_67890_{NB}": "{}",                 # the original sorts first by its name
        f"smithjohn_12345_67999_{EXEMPLAR}-1.ipynb": "{}",
        f"smithjohn_12345_67100_{EXEMPLAR}-2.ipynb": "{}",   # the newest, though its file id is the lowest
        "smithjohn_12345_67101_scratch.ipynb": "{}",          # another file, not a resubmission of it
        f"doejane_12346_67900_{NB}": "{}",
        f"doejane_12346_67950_{EXEMPLAR}-1.ipynb": "{}"})
    subs, unmatched = discover(root, EXEMPLAR)
    graded = {s.lms_id: s.path.name for s in subs}
    assert graded == {"12345": f"smithjohn_12345_67100_{EXEMPLAR}-2.ipynb",
                      "12346": f"doejane_12346_67950_{EXEMPLAR}-1.ipynb"}
    superseded = sorted(u for u in unmatched if "superseded" in u)
    assert superseded == [
        f"doejane_12346_67900_{NB}: superseded by the resubmission doejane_12346_67950_{EXEMPLAR}-1.ipynb "
        "(Canvas's -1: the newest is graded)",
        f"smithjohn_12345_67890_{NB}: superseded by the resubmission smithjohn_12345_67100_{EXEMPLAR}-2.ipynb "
        "(Canvas's -2: the newest is graded)",
        f"smithjohn_12345_67999_{EXEMPLAR}-1.ipynb: superseded by the resubmission "
        f"smithjohn_12345_67100_{EXEMPLAR}-2.ipynb (Canvas's -2: the newest is graded)"]
    assert [u for u in unmatched if "superseded" not in u] == [
        f"smithjohn_12345_67101_scratch.ipynb: another notebook of the same student "
        f"(smithjohn_12345_67100_{EXEMPLAR}-2.ipynb) was graded instead; not graded"]


def canvas_json(*entries):
    return json.dumps(list(entries))


def test_canvas_submissions_json_at_the_root_gives_each_file_its_attempts_time(tmp_path, monkeypatch):
    """Canvas's Submissions API JSON (with include[]=submission_history) saved at the download's
    root: the graded file's time is that of the attempt that carried it (by Canvas's file id), a
    submission without files listed takes the newest attempt's; a file the JSON does not list for
    its student, or another assignment's JSON, gives no time, and says so."""
    import course_config

    monkeypatch.setattr(course_config, "CANVAS_ASSIGNMENT_IDS", {EXEMPLAR: 98765}, raising=False)
    files = {
        f"smithjohn_LATE_12345_67890_{NB}": "{}",
        f"smithjohn_LATE_12345_67999_{EXEMPLAR}-1.ipynb": "{}",
        f"doejane_12346_67900_{NB}": "{}",
        f"mallory_12348_67920_{NB}": "{}",
        f"nobody_12349_67930_{NB}": "{}",
        "submissions.json": canvas_json(
            {"user_id": 12345, "assignment_id": 98765, "attempt": 2, "late": True,
             "submitted_at": "2026-10-19T09:00:00Z",  # a later attempt whose files were not downloaded
             "attachments": [{"id": 70000}],
             "submission_history": [
                 {"attempt": 1, "submitted_at": "2026-10-14T10:00:00Z", "attachments": [{"id": 67890}]},
                 {"attempt": 2, "submitted_at": "2026-10-17T23:00:00Z", "attachments": [{"id": 67999}]}]},
            {"user_id": 12346, "assignment_id": 98765, "attempt": 1, "submitted_at": "2026-10-15T21:30:00.250Z"},
            {"user_id": 12348, "assignment_id": 98765, "attempt": 1, "submitted_at": "2026-10-15T20:00:00Z",
             "attachments": [{"id": 11111}]},
            {"user_id": 12349, "assignment_id": 98765, "workflow_state": "unsubmitted", "submitted_at": None}),
        "submissions-2.json": canvas_json(  # a second page
            {"user_id": 12350, "assignment_id": 98765, "submitted_at": "2026-10-15T20:00:00Z"})}
    subs, unmatched = discover(tree(tmp_path / "canvas", files), EXEMPLAR)
    when = {s.lms_id: s.submitted_at for s in subs}
    assert when == {"12345": "2026-10-17T23:00:00Z", "12346": "2026-10-15T21:30:00Z", "12348": "", "12349": ""}
    assert any(u.startswith(f"mallory_12348_67920_{NB}: its file (67920) is none of those") for u in unmatched)
    assert "submissions.json, submissions-2.json: no submission time for 2 Canvas submission(s): " \
           "mallory, nobody" not in unmatched  # mallory's is said above, once
    assert "submissions.json, submissions-2.json: no submission time for 1 Canvas submission(s): nobody" in unmatched
    assert not [u for u in unmatched if "not a notebook" in u]  # the JSON files are used, not listed

    # another assignment's JSON gives nothing
    files["submissions.json"] = canvas_json({"user_id": 12346, "assignment_id": 5, "submitted_at": "2026-10-15T21:30Z"})
    del files["submissions-2.json"]
    subs, unmatched = discover(tree(tmp_path / "other", files), EXEMPLAR)
    assert {s.submitted_at for s in subs} == {""}
    assert any("submissions of Canvas assignment 5, not of" in u for u in unmatched)


def test_times_csv_gives_any_layout_its_times(tmp_path):
    """times.csv at the root (student,submitted_at; other columns ignored): by student id, name as
    found, LMS id or email, case ignored; a time in a zone, in UTC or ISO 8601; it wins over
    nbgrader's timestamp.txt (and says so); a line that cannot be used is listed."""
    times = ("Student;Name;Submitted_At\n"
             "ALICE;Alice;2026-10-16 00:05 Europe/Berlin\n"
             "12345;John;2026-10-15T22:00:00Z\n"
             "bob;Bob;2026-10-15 21:00:00\n"
             "zed;Zed;2026-10-15 21:00\n"
             "carol;Carol;next friday\n"
             "alice;Alice;2026-10-20 00:00\n")
    root = tree(tmp_path / "subs", {f"alice/{NB}": "{}", f"carol/{NB}": "{}",
                                    f"submitted/bob/{EXEMPLAR}/{NB}": "{}",
                                    f"submitted/bob/{EXEMPLAR}/timestamp.txt": "2026-10-14 12:00:00 UTC",
                                    "times.csv": times})
    subs, unmatched = discover(root, EXEMPLAR)
    when = {s.student: s.submitted_at for s in subs}
    assert when == {"alice": "2026-10-15T22:05:00Z", "bob": "2026-10-15T21:00:00Z", "carol": ""}
    bob = next(s for s in subs if s.student == "bob")
    assert "submitted at 2026-10-15T21:00:00Z by times.csv (line 4), not 2026-10-14T12:00:00Z " \
           "(nbgrader's timestamp.txt)" in bob.note
    assert [u for u in unmatched if u.startswith("times.csv")] == [
        "times.csv, line 3: '12345' is no submission's student here; ignored",
        "times.csv, line 5: 'zed' is no submission's student here; ignored",
        "times.csv, line 6: 'next friday' is not a date and time (YYYY-MM-DD HH:MM[:SS] [zone], or ISO 8601); "
        "ignored",
        "times.csv, line 7: alice's time is already on line 2; ignored"]
    # a Canvas download: by Canvas's user id
    canvas = tree(tmp_path / "canvas", {f"smithjohn_12345_67890_{NB}": "{}",
                                        "times.csv": "student,submitted_at\n12345,2026-10-17 23:00 UTC\n"})
    assert [s.submitted_at for s in discover(canvas, EXEMPLAR)[0]] == ["2026-10-17T23:00:00Z"]


def test_a_times_file_inside_a_students_folder_is_ignored(tmp_path):
    """A times.csv or submissions.json in a student's own folder (or given explicitly from there)
    sets no one's time, hers included, and is listed as ignored; one given explicitly from outside
    the submissions replaces the root's."""
    planted = "student,submitted_at\nmallory,2026-10-01 00:00\nalice,2026-10-30 00:00\n"
    root = tree(tmp_path / "subs", {
        f"alice/{NB}": "{}", f"mallory/{NB}": "{}", "mallory/times.csv": planted,
        "mallory/sub/submissions.json": canvas_json({"user_id": 1, "submitted_at": "2026-10-01T00:00:00Z"}),
        f"Jane Doe_4242_assignsubmission_file_/{NB}": "{}",
        "Jane Doe_4242_assignsubmission_file_/times.csv": "student,submitted_at\n4242,2026-10-01 00:00\n"})
    subs, unmatched = discover(root, EXEMPLAR)
    assert {s.student: s.submitted_at for s in subs} == {"alice": "", "mallory": "", "Jane_Doe": ""}
    ignored = sorted(u.split(":")[0] for u in unmatched if "ignored: a file of submission times counts only at "
                     "the root" in u)
    assert ignored == ["Jane Doe_4242_assignsubmission_file_/times.csv", "mallory/sub/submissions.json",
                       "mallory/times.csv"]
    subs, unmatched = discover(root, EXEMPLAR, times=root / "mallory" / "times.csv")
    assert {s.submitted_at for s in subs} == {""}
    assert [u for u in unmatched if u.startswith("mallory/times.csv")] == [
        "mallory/times.csv: ignored: given as the submission times, but it is inside a submission; a file of "
        "submission times counts only at the root of the submissions or outside them"]
    # given from outside the submissions, and at their root, it counts
    (root / "times.csv").write_text("student,submitted_at\nalice,2026-10-15 00:00\n")
    outside = tree(tmp_path / "ta", {"times.csv": "student,submitted_at\nalice,2026-10-16 00:00\n"})
    assert {s.student: s.submitted_at for s in discover(root, EXEMPLAR)[0]}["alice"] == "2026-10-15T00:00:00Z"
    subs, unmatched = discover(root, EXEMPLAR, times=outside / "times.csv")
    assert {s.student: s.submitted_at for s in subs}["alice"] == "2026-10-16T00:00:00Z"
    assert f"times.csv: not used: the submission times were given as {outside / 'times.csv'}" in unmatched
