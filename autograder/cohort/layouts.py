"""Where the submissions are, and who each one belongs to.

A folder or zip in any of the layouts people upload: ``<student>/<id>.ipynb``,
``<student>.ipynb``, nbgrader's ``submitted/<student>/<id>/``, a Gradescope export. Everything
that cannot be matched to a student is reported, never silently skipped; every student gets an
id safe as a file name, distinct names always distinct ids.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

MAX_UNZIPPED = 2 * 2**30



@dataclass
class Submission:
    student: str
    path: Path
    name: str = ""          # from Gradescope's metadata
    email: str = ""
    submitted_at: str = ""  # ISO 8601 UTC, from Gradescope's :created_at or nbgrader's timestamp.txt
    raw: str = ""           # the student's name as found (file, folder, Gradescope id), before cleaning
    note: str = ""          # how the id was made, when it is not simply the name found



def _clean_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", text).strip("._")



def _assign_ids(raws) -> dict[str, tuple[str, str]]:
    """raw name -> (student id, note). Ids are safe as file names; distinct names always get
    distinct ids: where cleaning makes several names one id (``carol``, ``carol!``; also
    ``Carol``), the name that is already clean keeps it and every other one gets a suffix from
    its own name's hash (stable across runs), with a note; a name with nothing usable
    (``...``) becomes ``student_<hash>``."""
    groups: dict[str, list[str]] = {}
    for raw in sorted(set(raws)):
        groups.setdefault((_clean_id(raw) or "student").lower(), []).append(raw)
    out = {}
    for members in groups.values():
        clean = [m for m in members if _clean_id(m) == m]
        keeper = clean[0] if clean else (members[0] if len(members) == 1 and _clean_id(members[0]) else None)
        for raw in members:
            base = _clean_id(raw) or "student"
            if raw == keeper:
                out[raw] = (base, "")
                continue
            sid = f"{base}_{hashlib.sha1(raw.encode()).hexdigest()[:6]}"
            others = [m for m in members if m != raw]
            why = (f"its cleaned name collides with {', '.join(map(repr, others))}" if others
                   else "it has no letters or digits to make an id from")
            out[raw] = (sid, f"{raw!r} is graded as {sid!r}: {why}")
    return out



def _student_id(text: str) -> str:
    """The id one name would get on its own (see ``_assign_ids`` for names that collide)."""
    return _assign_ids([text])[text][0]



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



def _gradescope_meta(root: Path) -> dict[str, dict]:
    """submission folder -> {"id", "name", "email", "submitted_at", "note"} from a Gradescope
    export's submission_metadata.yml; ``group`` lists every submitter of a group submission
    (each of them gets the grade)."""
    meta = next(root.rglob("submission_metadata.yml"), None)
    if meta is None:
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
        group = [{"id": get(s, "sid") or get(s, "email") or get(s, "name"), "name": get(s, "name"),
                  "email": get(s, "email")} for s in submitters]
        group = [m for m in group if m["id"]]
        names = [m["name"] or m["id"] for m in group]
        out[str(folder)] = {
            "id": ident, "name": get(first, "name"), "email": get(first, "email"), "group": group,
            "submitted_at": _utc_iso(info.get(":created_at", info.get("created_at"))),
            "note": f"group submission of {', '.join(names)}" if len(group) > 1 else ""}
    return out



def discover(root: Path, assignment: str) -> tuple[list[Submission], list[str]]:
    """Submissions under ``root`` and the list of things that could not be matched."""
    meta = _gradescope_meta(root)
    found: dict[str, Submission] = {}  # by the name as found
    unmatched: list[str] = []
    used: set[Path] = set()  # files that belong to a submission (nbgrader's timestamp.txt)
    notebooks = sorted(p for p in root.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    by_dir: dict[Path, list[Path]] = {}
    for nb in notebooks:
        by_dir.setdefault(nb.parent, []).append(nb)
    for nb in notebooks:
        rel = nb.relative_to(root)
        parts = rel.parts
        info: dict = {}
        if len(parts) == 1:  # <student>.ipynb
            student = nb.stem
        elif len(parts) >= 3 and parts[-2] == assignment:  # nbgrader: [submitted/]<student>/<id>/<nb>
            student = parts[-3]
            stamp = nb.parent / "timestamp.txt"
            if stamp.is_file():
                used.add(stamp)
                info["submitted_at"] = _utc_iso(stamp.read_text(errors="replace")[:200])
        else:  # <student>/<anything>.ipynb, or a Gradescope submission folder
            info = meta.get(parts[-2], {})
            student = info.get("id") or parts[-2]
            siblings = by_dir[nb.parent]
            if len(siblings) > 1:
                preferred = [s for s in siblings if s.stem == assignment]
                if nb not in preferred:
                    if preferred or nb != siblings[0]:
                        unmatched.append(f"{rel}: another notebook in the same folder was graded instead")
                        continue
        if student in found:
            unmatched.append(f"{rel}: second notebook for student {student!r} (first: "
                             f"{found[student].path.relative_to(root)}); not graded")
            continue
        found[student] = Submission("", nb, name=info.get("name", ""), email=info.get("email", ""),
                                    submitted_at=info.get("submitted_at", ""), raw=student,
                                    note=info.get("note", ""))
        for member in info.get("group", [])[1:]:  # the other submitters of a group submission
            if member["id"] in found:
                unmatched.append(f"{rel}: {member['id']!r} is in two submissions; only the first counts")
                continue
            found[member["id"]] = Submission("", nb, name=member["name"], email=member["email"],
                                             submitted_at=info.get("submitted_at", ""),
                                             raw=member["id"], note=info.get("note", ""))
    ids = _assign_ids(found)
    for raw, sub in found.items():
        sub.student, note = ids[raw]
        sub.note = "; ".join(n for n in (note, sub.note) if n)
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix != ".ipynb" and path.name != "submission_metadata.yml" \
                and path not in used and ".ipynb_checkpoints" not in path.parts:
            unmatched.append(f"{path.relative_to(root)}: not a notebook; not graded")
    return sorted(found.values(), key=lambda s: s.student), unmatched



def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
