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
