"""Where the submissions are, and who each one belongs to.

A folder or zip in any of the layouts people upload: ``<student>/<id>.ipynb``,
``<student>.ipynb``, nbgrader's ``submitted/<student>/<id>/``, a Gradescope export, a Canvas
download (``name[_LATE]_userid_fileid_filename``), a Moodle download (``Full Name_id_assignsubmission_file_/``).
Everything that cannot be matched to a student is reported, never silently skipped.

Who a student is comes from outside the student's folder only: the folder or file name the LMS or
the TA gave it, or the LMS's metadata at the export's root; nothing inside a submission (a nested
folder, a planted ``submission_metadata.yml``) decides it. Every identity gets an id safe as a
file name, fixed the first time it is seen and recorded in ``<out>/ids.json``: distinct
identities always distinct ids, across runs too.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
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

# (anyascii rather than Unidecode, which is GPL, or text-unidecode, unmaintained since 2019)

MAX_UNZIPPED = 2 * 2**30
MAX_ID = 64      # characters of an id made from a name (records/<id>.json must be a valid file name)
MAX_NAME = 200   # characters of a name as written
REGISTRY = "ids.json"
METADATA = "submission_metadata.yml"

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
    submitted_at: str = ""  # ISO 8601 UTC, from Gradescope's :created_at or nbgrader's timestamp.txt
    raw: str = ""           # the student's name as found (file, folder, Gradescope id), before cleaning
    note: str = ""          # how the id was made, when it is not simply the name found
    lms: str = ""           # where the identity comes from: "gradescope", "canvas", "moodle"; "" for a name found
    lms_id: str = ""        # that LMS's id of the student (Gradescope sid, Canvas user id, Moodle id)
    late: bool | None = None  # the LMS's own late flag (Canvas's _LATE); None where the LMS says nothing
    key: str = ""           # the identity's key in <out>/ids.json: "name:<as found>", "canvas:<user id>", ...


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
            return dict(key=f"canvas:{m['uid']}", text=m["name"], raw=top, lms="canvas", lms_id=m["uid"],
                        name=_as_written(m["name"]), late=bool(m["late"]),
                        stem=re.sub(r"-[0-9]+$", "", PurePosixPath(m["file"]).stem))
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


def discover(root: Path, assignment: str, out: Path | None = None, *,
             zipped: bool = False) -> tuple[list[Submission], list[str]]:
    """Submissions under ``root`` and the list of things that could not be matched. ``out``: the
    cohort's output folder, whose ``ids.json`` fixes every id ever given there (read, and
    extended with new identities); ``zipped``: ``root`` is an unpacked zip (see ``export_root``)."""
    base = export_root(root, zipped)
    meta = _gradescope_meta(base)
    unmatched: list[str] = []
    used: set[Path] = {base / METADATA}
    for planted in sorted(root.rglob(METADATA)):
        if planted != base / METADATA:
            used.add(planted)
            unmatched.append(f"{planted.relative_to(root)}: ignored: Gradescope's {METADATA} counts only "
                             "at the root of the folder or zip given (or a zip's single top folder), "
                             "never inside a submission")
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
        # one notebook per student: the one named after the assignment, then the shallowest
        cands.sort(key=lambda c: (c[1].get("stem", c[0].stem) != assignment, len(c[0].parts), c[0]))
        nb, info = cands[0]
        for other, _ in cands[1:]:
            unmatched.append(f"{other.relative_to(root)}: another notebook of the same student "
                             f"({nb.relative_to(root)}) was graded instead; not graded")
        found[key] = Submission("", nb, name=info["name"], email=info.get("email", ""),
                                submitted_at=info.get("submitted_at", ""), raw=info["raw"],
                                note=info.get("note", ""), lms=info.get("lms", ""),
                                lms_id=info.get("lms_id", ""), late=info.get("late"), key=key)
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
    for path in sorted(root.rglob("*")):
        if (path.is_file() or path.is_symlink()) and path not in used and ".ipynb_checkpoints" not in path.parts \
                and (path.suffix != ".ipynb" or path.relative_to(base if path.is_relative_to(base) else root)
                     .parts[0] == "__MACOSX"):
            unmatched.append(f"{path.relative_to(root)}: not a notebook; not graded")
    return sorted(found.values(), key=lambda s: s.student), unmatched


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
