"""Where the submissions are, and who each one belongs to.

A folder or zip in any of the layouts people upload: ``<student>/<id>.ipynb``,
``<student>.ipynb``, nbgrader's ``submitted/<student>/<id>/``, a Gradescope export, a Canvas
download (``name[_LATE]_userid_fileid_filename``), a Moodle download (``Full Name_id_assignsubmission_file_/``).
Everything that cannot be matched to a student is reported, never silently skipped.

Who a student is comes from outside the student's folder only: the folder or file name the LMS or
the TA gave it, or the LMS's metadata at the export's root; nothing inside a submission (a nested
folder, a planted ``submission_metadata.yml``, ``times.csv`` or ``submissions.json``) decides it.
Every identity gets an id safe as a file name, fixed the first time it is seen and recorded in
``<out>/ids.json``: distinct identities always distinct ids, across runs too.

Submission times (what the late policy needs, ``autograder.cohort.late``): Gradescope's
``:created_at``, nbgrader's ``timestamp.txt``; for any layout, a ``times.csv`` (``student,
submitted_at``) at the export's root; for a Canvas download, whose file names carry no time,
Canvas's Submissions API JSON saved at the root as ``submissions.json`` (pages:
``submissions-2.json``, ...). Either file may instead be given explicitly (``discover(times=)``).
Of a file and its Canvas resubmissions (``x.ipynb``, ``x-1.ipynb``, ``x-2.ipynb``) the highest
suffix is graded and the others listed as superseded.
"""

from __future__ import annotations

import csv
import datetime as dt
import fcntl
import hashlib
import io
import json
import os
import re
import shutil
import stat
import tempfile
import unicodedata
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml
from anyascii import anyascii  # ids from names: ISC licence, maintained, every script (王伟 -> WangWei)

import course_config
from autograder.cohort import late

# (anyascii rather than Unidecode, which is GPL, or text-unidecode, unmaintained since 2019)

MAX_UNZIPPED = 2 * 2**30
MAX_ID = 64      # characters of an id made from a name (records/<id>.json must be a valid file name)
MAX_NAME = 200   # characters of a name as written
REGISTRY = "ids.json"
METADATA = "submission_metadata.yml"
TIMES = "times.csv"  # the TA's own: ``student,submitted_at`` (other columns ignored), at the export's root
CANVAS_TIMES = re.compile(r"submissions(?:-[0-9]+)?\.json")  # Canvas's Submissions API JSON, and its pages
MAX_TIMES = 64 * 2**20  # bytes of a times file read

# Canvas: ``name[_LATE]_userid_fileid_filename`` (Canvas appends -1, -2 to a resubmitted filename).
# The filename is the student's own, so the ids are the *first* ``_digits_digits_`` (a filename
# like ``x_12_34_y.ipynb`` cannot move them; the name Canvas writes holds no digits).
CANVAS = re.compile(r"(?P<name>.*?)(?P<late>_LATE)?_(?P<uid>[0-9]+)_(?P<fid>[0-9]+)_(?P<file>.+)", re.DOTALL)
# Moodle: a folder ``Full Name_id_assignsubmission_file_`` (or, without folders, a file
# ``Full Name_id_assignsubmission_file_filename``). The folder's name ends with Moodle's part,
# so the id is the last one; in a file's name the first (the filename after it is the student's).
MOODLE_DIR = re.compile(r"(?P<name>.*)_(?P<uid>[0-9]+)_assignsubmission_[a-z]+_?", re.DOTALL)
MOODLE_FILE = re.compile(r"(?P<name>.*?)_(?P<uid>[0-9]+)_assignsubmission_file_(?P<file>.+)", re.DOTALL)
ID_SHAPE = re.compile(r"[A-Za-z0-9_.@-]{1,100}")


@dataclass
class Submission:
    student: str
    path: Path
    name: str = ""          # as written: Gradescope's, Canvas's or Moodle's, else the folder or file name found
    email: str = ""
    submitted_at: str = ""  # ISO 8601 UTC: Gradescope's :created_at, nbgrader's timestamp.txt, times.csv,
    #                         Canvas's submissions.json (``_attach_times``)
    raw: str = ""           # the student's name as found (file, folder, Gradescope id), before cleaning
    note: str = ""          # how the id was made, when it is not simply the name found
    lms: str = ""           # where the identity comes from: "gradescope", "canvas", "moodle"; "" for a name found
    lms_id: str = ""        # that LMS's id of the student (Gradescope sid, Canvas user id, Moodle id)
    late: bool | None = None  # the LMS's own late flag (Canvas's _LATE); None where the LMS says nothing
    key: str = ""           # the identity's key in <out>/ids.json: "name:<as found>", "canvas:<user id>", ...
    lms_file: str = ""      # the LMS's id of the file (a Canvas download's file id): its attempt's time


def _clean_id(text: str) -> str:
    """An id safe as a file name made from a name: transliterated to ASCII, runs of anything
    but ``A-Za-z0-9_.@-`` made ``_``, at most MAX_ID characters, no leading or trailing ``.``/``_``."""
    ascii_text = anyascii(unicodedata.normalize("NFC", text))
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", ascii_text).strip("._")[:MAX_ID].rstrip("._")


def _as_written(text: str) -> str:
    """A name as written (any script), minus what is not text: control and format characters
    (newlines, right-to-left overrides) become spaces; at most MAX_NAME characters."""
    text = unicodedata.normalize("NFC", str(text))
    kept = "".join(c if unicodedata.category(c)[0] in "LMNPS" or c == " " else " " for c in text)
    return re.sub(r" +", " ", kept).strip()[:MAX_NAME]


def _suffixed(base: str, seed: str, taken: set[str]) -> str:
    """``<base>_<hash of seed>``, rehashed until it is no id taken (case-insensitively)."""
    n = 0
    while True:
        digest = hashlib.sha1((seed if n == 0 else f"{seed}\n{n}").encode()).hexdigest()[:6]
        sid = f"{base or 'student'}_{digest}"
        if sid.lower() not in taken:
            return sid
        n += 1


def _assign_ids(found: dict[str, str], registry: dict | None = None) -> dict[str, tuple[str, str]]:
    """key -> (student id, note), for ``found`` (identity key such as ``name:Carol`` or
    ``canvas:12345`` -> the text an id is made from). ``registry`` (key -> {"id", "note"}, from
    ``<out>/ids.json``) is updated in place: an identity seen before keeps its id, and a new one never takes an id
    that is recorded or given in this run (compared case-insensitively).

    New identities: a name that is already clean (``carol``) takes its own id when free; one that
    needs cleaning (``Émile Zola`` -> ``Emile_Zola``) takes it when free and no other new name cleans
    to the same id; every other one gets ``<id>_<hash>`` (``carol_1a2b3c``), rehashed until free,
    with a note; a name with nothing usable (``...``) becomes ``student_<hash>``."""
    registry = {} if registry is None else registry
    taken = {entry["id"].lower() for entry in registry.values()}
    new = sorted((k for k in found if k not in registry), key=lambda k: (found[k], k))
    base = {k: _clean_id(found[k]) for k in new}
    group: dict[str, list[str]] = {}
    for k in new:
        group.setdefault(base[k].lower(), []).append(k)
    for clean_pass in (True, False):
        for k in new:
            if k in registry or not base[k] or base[k].lower() in taken:
                continue
            if (base[k] == found[k]) if clean_pass else len(group[base[k].lower()]) == 1:
                registry[k] = {"id": base[k], "note": ""}
                taken.add(base[k].lower())
    for k in new:
        if k in registry:
            continue
        sid = _suffixed(base[k], k.partition(":")[2], taken)
        others = [found[o] for o in group[base[k].lower()] if o != k]
        if not base[k]:
            why = "it has no letters or digits to make an id from"
        elif others:
            why = f"its cleaned name collides with {', '.join(map(repr, others))}"
        else:
            why = f"{base[k]!r} is already another student's id"
        registry[k] = {"id": sid, "note": f"{found[k]!r} is graded as {sid!r}: {why}"}
        taken.add(sid.lower())
    return {k: (registry[k]["id"], registry[k].get("note", "")) for k in found}


def _student_id(text: str) -> str:
    """The id one name would get on its own (see ``_assign_ids`` for names that collide)."""
    return _assign_ids({f"name:{text}": text})[f"name:{text}"][0]


class IdRegistryError(ValueError):
    """``<out>/ids.json`` cannot be read: no id is given rather than a wrong one."""


def _read_registry(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    why = ""
    try:
        students = json.loads(path.read_text(encoding="utf-8")).get("students")
    except (OSError, ValueError, AttributeError) as exc:
        students, why = None, str(exc)
    if not isinstance(students, dict):
        raise IdRegistryError(f"{path} is not pdl's id registry ({why or 'no students'}); it fixes who "
                              "owns which record: restore it rather than delete it")
    seen: set[str] = set()
    for key, entry in students.items():
        sid = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(sid, str) or not ID_SHAPE.fullmatch(sid) or sid.lower() in seen:
            raise IdRegistryError(f"{path}: the entry of {key!r} is not a valid, unique id ({sid!r})")
        seen.add(sid.lower())
    return students


def _write_registry(path: Path, students: dict[str, dict]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"about": "pdl grade-cohort: the id of every student ever seen here (keep this file)",
                   "students": students}, f, indent=1, sort_keys=True)  # ensure_ascii: names escaped
    os.replace(tmp, path)


@contextmanager
def _registry(out: Path | None):
    """The id registry of ``out`` (``{}`` in memory without one), locked while ids are given and
    written back atomically when it grew."""
    if out is None:
        yield {}
        return
    out.mkdir(parents=True, exist_ok=True)
    path = out / REGISTRY
    with open(out / ".ids.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        students = _read_registry(path)
        before = json.dumps(students, sort_keys=True)
        yield students
        if json.dumps(students, sort_keys=True) != before:
            _write_registry(path, students)


def _utc_iso(value) -> str:
    """A time from Gradescope's metadata or nbgrader's timestamp.txt as ISO 8601 UTC ('' if unreadable)."""

    from nbgrader.utils import parse_utc  # heavy (nbgrader): only for nbgrader's timestamp.txt

    if value in (None, ""):
        return ""
    try:
        when = parse_utc(value if isinstance(value, dt.datetime) else str(value).strip())
    except (ValueError, OverflowError, TypeError):
        return ""
    return when.strftime("%Y-%m-%dT%H:%M:%SZ") if when else ""


def safe_extract(archive: Path, dest: Path) -> list[str]:
    """Extract a zip, refusing absolute paths, ``..``, links and zip bombs; returns what was refused."""
    refused, total = [], 0
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            name = info.filename
            parts = PurePosixPath(name.replace("\\", "/")).parts
            mode = info.external_attr >> 16
            if name.startswith(("/", "\\")) or ".." in parts or re.match(r"^[A-Za-z]:", name):
                refused.append(f"{name}: path outside the archive (refused)")
                continue
            if stat.S_ISLNK(mode):
                refused.append(f"{name}: symbolic link (refused)")
                continue
            total += info.file_size
            if total > MAX_UNZIPPED:
                refused.append(f"{name}: archive expands beyond {MAX_UNZIPPED >> 30} GB (refused)")
                break
            target = dest.joinpath(*parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
    return refused


def export_root(root: Path, zipped: bool = False) -> Path:
    """Where the export starts: ``root``; for a zip whose only entry is a folder holding no
    notebook of its own (what zipping a folder, or Gradescope's export, makes), that folder."""
    if not zipped:
        return root
    entries = [p for p in root.iterdir() if p.name != "__MACOSX"]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink() \
            and not any(p.suffix == ".ipynb" for p in entries[0].iterdir()):
        return entries[0]
    return root


def _gradescope_meta(root: Path) -> dict[str, dict]:
    """submission folder -> {"id", "name", "email", "submitted_at", "note"} from the Gradescope
    export's submission_metadata.yml at ``root`` (the export's root: never one inside a
    submission folder); ``group`` lists every submitter of a group submission (each gets the grade)."""
    meta = root / METADATA
    if meta.is_symlink() or not meta.is_file():
        return {}

    try:
        data = yaml.safe_load(meta.read_text(errors="replace")) or {}
    except yaml.YAMLError:
        return {}
    out = {}
    for folder, info in (data.items() if isinstance(data, dict) else []):
        info = info if isinstance(info, dict) else {}

        def get(d, key):
            value = d.get(f":{key}", d.get(key)) if isinstance(d, dict) else None
            return "" if value is None else str(value).strip()

        submitters = info.get(":submitters") or info.get("submitters") or []
        submitters = [s for s in submitters if isinstance(s, dict)] if isinstance(submitters, list) else []
        first = submitters[0] if submitters else {}
        ident = get(first, "sid") or get(first, "email") or get(first, "name")
        if not ident:
            continue
        group = [{"id": get(s, "sid") or get(s, "email") or get(s, "name"), "name": _as_written(get(s, "name")),
                  "email": _as_written(get(s, "email"))} for s in submitters]
        group = [m for m in group if m["id"]]
        names = [m["name"] or m["id"] for m in group]
        out[str(folder)] = {
            "id": ident, "name": _as_written(get(first, "name")), "email": _as_written(get(first, "email")),
            "group": group, "submitted_at": _utc_iso(info.get(":created_at", info.get("created_at"))),
            "note": f"group submission of {', '.join(names)}" if len(group) > 1 else ""}
    return out


def _identify(parts: tuple[str, ...], nb: Path, assignment: str, meta: dict) -> dict:
    """Who the notebook at ``parts`` (relative to the export's root) belongs to, from the names
    outside the student's folder only: key, the text its id is made from, name, LMS fields."""
    top = parts[0]
    if len(parts) > 1 and top in meta:  # a Gradescope submission folder (anything inside it is hers)
        info = meta[top]
        return dict(key=f"gradescope:{info['id']}", text=info["id"], raw=info["id"], lms="gradescope",
                    lms_id=info["id"], name=info["name"], email=info["email"], note=info["note"],
                    submitted_at=info["submitted_at"], group=info["group"])
    if len(parts) == 1:
        m = CANVAS.fullmatch(top)
        if m:
            stem = PurePosixPath(m["file"]).stem
            resubmitted = re.search(r"-([0-9]+)$", stem)  # Canvas's -1, -2 of a resubmitted file
            return dict(key=f"canvas:{m['uid']}", text=m["name"], raw=top, lms="canvas", lms_id=m["uid"],
                        name=_as_written(m["name"]), late=bool(m["late"]), lms_file=m["fid"],
                        stem=stem[:resubmitted.start()] if resubmitted else stem,
                        resubmission=int(resubmitted[1][:9]) if resubmitted else 0)
        m = MOODLE_FILE.fullmatch(top)
        if m:
            return dict(key=f"moodle:{m['uid']}", text=m["name"], raw=top, lms="moodle", lms_id=m["uid"],
                        name=_as_written(m["name"]), stem=PurePosixPath(m["file"]).stem)
        return dict(key=f"name:{nb.stem}", text=nb.stem, raw=nb.stem, name=_as_written(nb.stem))
    if len(parts) == 4 and top == "submitted" and parts[2] == assignment:  # nbgrader's submitted/<student>/<id>/
        top = parts[1]
    elif not (len(parts) == 3 and parts[1] == assignment):  # else nbgrader's <student>/<id>/
        m = MOODLE_DIR.fullmatch(top)
        if m:
            return dict(key=f"moodle:{m['uid']}", text=m["name"], raw=top, lms="moodle", lms_id=m["uid"],
                        name=_as_written(m["name"]))
        return dict(key=f"name:{top}", text=top, raw=top, name=_as_written(top))
    info = dict(key=f"name:{top}", text=top, raw=top, name=_as_written(top))
    stamp = nb.parent / "timestamp.txt"
    if stamp.is_file() and not stamp.is_symlink():
        info["stamp"] = stamp
        info["submitted_at"] = _utc_iso(stamp.read_text(errors="replace")[:200])
    return info


def _time_name(name: str) -> bool:
    """Whether a file name is that of a file of submission times (``times.csv``, ``submissions.json``)."""
    return name == TIMES or bool(CANVAS_TIMES.fullmatch(name))


def _shown(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _iso_time(value) -> str:
    """A time from a file of submission times as ISO 8601 UTC ('' if it is none): ``YYYY-MM-DD
    HH:MM[:SS] [zone]`` as in course_config.DEADLINES (a zone name or offset; none means UTC), or
    ISO 8601 as Canvas writes it (``2026-10-15T22:05:01Z``; a fraction of a second is dropped)."""
    text = re.sub(r"(\d{2}:\d{2}:\d{2})[.,][0-9]+", r"\1", str(value or "").strip())
    try:
        return late.parse_when(text).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (ValueError, OverflowError):
        return ""


def _time_files(base: Path, root: Path, times, unmatched: list[str], used: set[Path]) -> dict[str, list[Path]]:
    """The files of submission times to read: ``{"csv": [times.csv], "canvas": [submissions*.json]}``
    at the export's root (``base``), never inside a submission; ``times`` (given explicitly: a
    ``.json`` is Canvas's, anything else a times.csv) replaces the root's file(s) of its kind, unless
    it lies inside the submissions elsewhere than at their root (then it is listed as ignored).
    Every file named here is added to ``used``; one replaced is listed as not used."""
    files: dict[str, list[Path]] = {"csv": [], "canvas": []}
    for path in sorted(base.iterdir()):
        if _time_name(path.name) and path.is_file() and not path.is_symlink():
            files["canvas" if path.suffix == ".json" else "csv"].append(path)
            used.add(path)
    files["canvas"].sort(key=lambda p: int(re.sub(r"[^0-9]", "", p.name) or 1))  # the pages in order
    if times is not None:
        given = Path(times)
        kind = "canvas" if given.suffix.lower() == ".json" else "csv"
        if given.resolve().is_relative_to(root.resolve()) and given.resolve().parent != base.resolve():
            used.add(root / given.resolve().relative_to(root.resolve()))  # said here, not again below
            unmatched.append(f"{_shown(given, root)}: ignored: given as the submission times, but it is inside "
                             "a submission; a file of submission times counts only at the root of the submissions "
                             "or outside them")
        else:
            unmatched += [f"{_shown(p, root)}: not used: the submission times were given as {given}"
                          for p in files[kind] if p.resolve() != given.resolve()]
            files[kind] = [given]
    return files


def _read_canvas_times(paths: list[Path], assignment: str, root: Path, problems: list[str]):
    """From Canvas's Submissions API JSON (``GET /api/v1/courses/:course_id/assignments/:id/submissions``,
    optionally with ``include[]=submission_history``; a list of submission objects, or of
    ``{"user_id", "submissions"}`` as ``grouped=true`` gives them): ``(by_user, by_file, files_of)``:
    Canvas user id -> ``submitted_at`` of her newest attempt; (user id, file id) -> that of the newest
    attempt that carried the file (``attachments``); user id -> every file id listed for her. Only
    this assignment's submissions (``assignment_id`` = course_config.CANVAS_ASSIGNMENT_IDS's id of it,
    where given; a file of several assignments without that id is not used)."""
    entries: list[dict] = []
    names = ", ".join(_shown(p, root) for p in paths)
    for path in paths:
        where = _shown(path, root)
        try:
            with open(path, "rb") as f:
                raw = f.read(MAX_TIMES + 1)
            if len(raw) > MAX_TIMES:
                problems.append(f"{where}: over {MAX_TIMES >> 20} MB; no submission time taken from it")
                continue
            data = json.loads(raw.decode("utf-8-sig"))
        except (OSError, ValueError) as exc:
            problems.append(f"{where}: not JSON ({str(exc)[:200]}); no submission time taken from it")
            continue
        if not isinstance(data, list):
            problems.append(f"{where}: not Canvas's submissions (a JSON list of submission objects, as the "
                            "Submissions API returns them); no submission time taken from it")
            continue
        for item in data:
            if isinstance(item, dict) and isinstance(item.get("submissions"), list):  # grouped=true
                entries += [{"user_id": item.get("user_id"), **e} for e in item["submissions"] if isinstance(e, dict)]
            elif isinstance(item, dict):
                entries.append(item)
    wanted = str((getattr(course_config, "CANVAS_ASSIGNMENT_IDS", {}) or {}).get(assignment, "") or "")
    seen = sorted({str(e["assignment_id"]) for e in entries if e.get("assignment_id") is not None})
    if wanted:
        kept = [e for e in entries if e.get("assignment_id") is None or str(e["assignment_id"]) == wanted]
        if entries and not kept:
            problems.append(f"{names}: submissions of Canvas assignment {', '.join(seen)}, not of {assignment} "
                            f"({wanted} in course_config.CANVAS_ASSIGNMENT_IDS); no submission time taken")
        entries = kept
    elif len(seen) > 1:
        problems.append(f"{names}: submissions of {len(seen)} Canvas assignments ({', '.join(seen[:5])}); set "
                        f"course_config.CANVAS_ASSIGNMENT_IDS[{assignment!r}] to say which is this one; no "
                        "submission time taken")
        entries = []
    by_user: dict[str, str] = {}
    by_file: dict[tuple[str, str], str] = {}
    files_of: dict[str, set[str]] = {}
    for e in entries:
        uid = "" if e.get("user_id") is None else str(e["user_id"])
        if not uid:
            continue
        history = e.get("submission_history")
        for attempt in [e, *(h for h in (history if isinstance(history, list) else []) if isinstance(h, dict))]:
            when = _iso_time(attempt.get("submitted_at"))
            attachments = attempt.get("attachments")
            for a in attachments if isinstance(attachments, list) else []:
                if isinstance(a, dict) and a.get("id") is not None:
                    files_of.setdefault(uid, set()).add(str(a["id"]))
                    if when > by_file.get((uid, str(a["id"])), ""):  # ISO UTC text sorts as time
                        by_file[(uid, str(a["id"]))] = when
        when = _iso_time(e.get("submitted_at"))
        if when > by_user.get(uid, ""):
            by_user[uid] = when
    return by_user, by_file, files_of


def _read_times_csv(path: Path, root: Path, problems: list[str]) -> list[tuple[int, str, str]]:
    """times.csv's lines ``(line, student, submitted_at as ISO UTC)``: a header naming ``student``
    and ``submitted_at`` (any case; other columns ignored; ``,``, ``;`` or tabs; a byte-order mark
    is fine); a line whose time is not one is ``(line, "", why)``."""
    where = _shown(path, root)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_TIMES + 1)
        text = raw[:MAX_TIMES].decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{where}: cannot be read as UTF-8 text ({str(exc)[:200]}); no submission time taken from it")
        return []
    first = text.split("\n", 1)[0]
    delimiter = next((d for d in (";", "\t") if d in first), ",") if "," not in first else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    out: list[tuple[int, str, str]] = []
    try:
        header = [c.strip().casefold() for c in next(reader, [])]
        if "student" not in header or "submitted_at" not in header:
            problems.append(f"{where}, line 1: the header must name the columns student and submitted_at; no "
                            "submission time taken from it")
            return []
        who, when = header.index("student"), header.index("submitted_at")
        start = reader.line_num + 1
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not any(c.strip() for c in cells):
                continue
            student = cells[who].strip() if who < len(cells) else ""
            text_at = cells[when].strip() if when < len(cells) else ""
            iso = _iso_time(text_at)
            if not student or not iso:
                out.append((line, "", f"{text_at!r} is not a date and time (YYYY-MM-DD HH:MM[:SS] [zone], or "
                            "ISO 8601)" if student else "no student"))
                continue
            out.append((line, student, iso))
    except csv.Error as exc:
        problems.append(f"{where}, line {reader.line_num}: {exc}; the lines after it were not read")
    return out


def _attach_times(subs: list[Submission], files: dict[str, list[Path]], assignment: str, root: Path,
                  problems: list[str]) -> None:
    """Submission times from the files of submission times (``_time_files``), in place: Canvas's
    JSON for the Canvas submissions (by the file's id, else the student's newest attempt), then
    times.csv for any (matched by student id, name as found or as written, LMS id or email, case
    ignored), which wins over every other source (a replaced time is noted). What cannot be used is
    listed in ``problems``."""
    source = {id(s): ("Gradescope's :created_at" if s.lms == "gradescope" else "nbgrader's timestamp.txt")
              for s in subs if s.submitted_at}
    if files["canvas"]:
        names = ", ".join(_shown(p, root) for p in files["canvas"])
        by_user, by_file, files_of = _read_canvas_times(files["canvas"], assignment, root, problems)
        canvas = [s for s in subs if s.lms == "canvas"]
        if not canvas:
            problems.append(f"{names}: Canvas's submissions, but no Canvas download "
                            "(name_userid_fileid_file) here; not used")
        missing = []
        for sub in canvas:
            when = by_file.get((sub.lms_id, sub.lms_file), "")
            if not when and sub.lms_file and sub.lms_id in files_of:
                problems.append(f"{_shown(sub.path, root)}: its file ({sub.lms_file}) is none of those {names} "
                                f"lists for Canvas user {sub.lms_id} (another assignment's?); no submission time")
                continue
            when = when or by_user.get(sub.lms_id, "")
            if when:
                sub.submitted_at, source[id(sub)] = when, _shown(files["canvas"][0], root)
            else:
                missing.append(sub.student)
        if missing and (by_user or by_file):
            problems.append(f"{names}: no submission time for {len(missing)} Canvas submission(s): "
                            + ", ".join(missing[:10]) + (", ..." if len(missing) > 10 else ""))
    for path in files["csv"]:
        where = _shown(path, root)
        index: dict[str, set[int]] = {}
        for i, sub in enumerate(subs):
            for ident in (sub.student, sub.raw, sub.name, sub.lms_id, sub.email):
                if ident:
                    index.setdefault(ident.casefold(), set()).add(i)
        given: dict[int, int] = {}
        for line, student, when in _read_times_csv(path, root, problems):
            if not student:
                problems.append(f"{where}, line {line}: {when}; ignored")
                continue
            owners = index.get(student.casefold(), set())
            if len(owners) != 1:
                problems.append(f"{where}, line {line}: {student!r} is " + ("no submission's student" if not owners
                                else f"{len(owners)} submissions' student") + " here; ignored")
                continue
            i = next(iter(owners))
            if i in given:
                problems.append(f"{where}, line {line}: {subs[i].student}'s time is already on line {given[i]}; "
                                "ignored")
                continue
            given[i], sub = line, subs[i]
            if sub.submitted_at and sub.submitted_at != when:
                sub.note = "; ".join(n for n in (sub.note, f"submitted at {when} by {where} (line {line}), not "
                                                 f"{sub.submitted_at} ({source[id(sub)]})") if n)
            sub.submitted_at = when


def discover(root: Path, assignment: str, out: Path | None = None, *,
             zipped: bool = False, times: Path | None = None) -> tuple[list[Submission], list[str]]:
    """Submissions under ``root`` and the list of things that could not be matched (and of what
    was skipped: superseded resubmissions, ignored files). ``out``: the cohort's output folder,
    whose ``ids.json`` fixes every id ever given there (read, and extended with new identities);
    ``zipped``: ``root`` is an unpacked zip (see ``export_root``); ``times``: a file of submission
    times given explicitly (Canvas's submissions JSON, or a times.csv), in place of the root's."""
    base = export_root(root, zipped)
    meta = _gradescope_meta(base)
    unmatched: list[str] = []
    used: set[Path] = {base / METADATA}
    time_files = _time_files(base, root, times, unmatched, used)
    for planted in sorted(root.rglob(METADATA)):
        if planted != base / METADATA:
            used.add(planted)
            unmatched.append(f"{planted.relative_to(root)}: ignored: Gradescope's {METADATA} counts only "
                             "at the root of the folder or zip given (or a zip's single top folder), "
                             "never inside a submission")
    for planted in sorted(p for p in root.rglob("*") if _time_name(p.name) and p not in used):
        used.add(planted)
        unmatched.append(f"{planted.relative_to(root)}: ignored: " + (
            "not a regular file" if planted.parent == base else
            "a file of submission times counts only at the root of the folder or zip given (or a zip's "
            "single top folder), never inside a submission"))
    candidates: dict[str, list[tuple[Path, dict]]] = {}
    for nb in sorted(base.rglob("*.ipynb")):
        rel = nb.relative_to(base)
        if ".ipynb_checkpoints" in rel.parts or rel.parts[0] == "__MACOSX":
            continue  # listed below as not graded
        if nb.is_symlink() or not nb.is_file():
            unmatched.append(f"{nb.relative_to(root)}: not a regular file; not graded")
            used.add(nb)
            continue
        info = _identify(rel.parts, nb, assignment, meta)
        if info.get("stamp"):
            used.add(info["stamp"])
        candidates.setdefault(info["key"], []).append((nb, info))
    found: dict[str, Submission] = {}
    for key, cands in sorted(candidates.items(), key=lambda kv: kv[1][0][0]):
        # one notebook per student: the one named after the assignment, then the shallowest, then
        # of a file and its Canvas resubmissions (x, x-1, x-2) the newest: the highest suffix
        cands.sort(key=lambda c: (c[1].get("stem", c[0].stem) != assignment, len(c[0].parts),
                                  -c[1].get("resubmission", 0), -int(c[1].get("lms_file") or 0), c[0]))
        nb, info = cands[0]
        for other, oinfo in cands[1:]:
            if "resubmission" in info and oinfo.get("stem") == info["stem"] \
                    and oinfo["resubmission"] < info["resubmission"]:
                unmatched.append(f"{other.relative_to(root)}: superseded by the resubmission "
                                 f"{nb.relative_to(root)} (Canvas's -{info['resubmission']}: the newest is graded)")
                continue
            unmatched.append(f"{other.relative_to(root)}: another notebook of the same student "
                             f"({nb.relative_to(root)}) was graded instead; not graded")
        found[key] = Submission("", nb, name=info["name"], email=info.get("email", ""),
                                submitted_at=info.get("submitted_at", ""), raw=info["raw"],
                                note=info.get("note", ""), lms=info.get("lms", ""),
                                lms_id=info.get("lms_id", ""), late=info.get("late"), key=key,
                                lms_file=info.get("lms_file", ""))
    texts = {key: info["text"] for key, ((_, info), *_) in candidates.items()}
    for _key, ((nb, info), *_) in sorted(candidates.items(), key=lambda kv: kv[1][0][0]):
        for member in info.get("group", [])[1:]:  # the other submitters of a group submission
            mkey = f"gradescope:{member['id']}"
            if mkey in found:
                unmatched.append(f"{nb.relative_to(root)}: {member['id']!r} is in two submissions; "
                                 "only the first counts")
                continue
            found[mkey] = Submission("", nb, name=member["name"], email=member["email"],
                                     submitted_at=info.get("submitted_at", ""), raw=member["id"],
                                     note=info.get("note", ""), lms="gradescope", lms_id=member["id"], key=mkey)
            texts[mkey] = member["id"]
    with _registry(out) as registry:
        ids = _assign_ids(texts, registry)
    for key, sub in found.items():
        sub.student, note = ids[key]
        sub.note = "; ".join(n for n in (note, sub.note) if n)
    _attach_times(sorted(found.values(), key=lambda s: s.student), time_files, assignment, root, unmatched)
    for path in sorted(root.rglob("*")):
        if (path.is_file() or path.is_symlink()) and path not in used and ".ipynb_checkpoints" not in path.parts \
                and (path.suffix != ".ipynb" or path.relative_to(base if path.is_relative_to(base) else root)
                     .parts[0] == "__MACOSX"):
            unmatched.append(f"{path.relative_to(root)}: not a notebook; not graded")
    return sorted(found.values(), key=lambda s: s.student), unmatched


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
