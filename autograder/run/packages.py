"""The Python packages the student's process may see: an allow-list of installed distributions.

The sandbox (``autograder.run.sandbox``) shows the student's process the interpreter's standard
library and, in each site directory (``site-packages``, ``dist-packages``), only the files of the
distributions allowed here: those providing what the release notebook and the reference import,
what the students' own environment holds (``assignments/requirements.txt``) and what the worker
needs (IPython for its shell, numpy for ``autograder.run.protocol``), with their requirements,
followed transitively through ``importlib.metadata``. A distribution that provides any of the
course's own modules (the engine, the reference, the hidden tests, ``course_config``) is never
allowed, so neither its files, its metadata nor its ``.pth`` files or editable finders are seen,
whether the course is installed editable, as a wheel, or not at all.
"""

from __future__ import annotations

import ast
import csv
import functools
import hashlib
import inspect
import json
import os
import site
import stat
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from autograder.run import serial
from autograder.run.notebook import load_release
from autograder.run.paths import REPO

WORKER_NEEDS = frozenset({"IPython", "numpy"})  # the worker's shell; numpy for autograder/run/protocol.py
COURSE_MODULES = frozenset({"autograder", "solutions", "grading_tests", "course_config"})
SITE_NAMES = ("site-packages", "dist-packages")
# in the students' requirements to run notebooks, not for their code to import
NOTEBOOK_TOOLS = frozenset({"jupyterlab", "ipykernel", "nbclient", "nbformat"})


def imports(code: str) -> list[tuple[str, list[str]]]:
    """Each absolute import in ``code`` (cell magics skipped) as (dotted module, names imported
    from it): ``import a.b`` is ("a.b", []), ``from a import b, c`` is ("a", ["b", "c"])."""
    code = "\n".join(ln for ln in code.splitlines() if not ln.lstrip().startswith(("%", "!")))
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(serial.parse(code)):
        if isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.module, [a.name for a in node.names]))
    return found


def imported_modules(code: str) -> set[str]:
    """Top-level names of the absolute imports in ``code`` (cell magics skipped)."""
    return {module.split(".")[0] for module, _ in imports(code)}


def environment_modules() -> frozenset[str]:
    """Top-level modules of the students' own environment (``assignments/requirements.txt``, the
    one file students install from): what a student may import in any notebook, whatever the
    release or the reference imports (a student may solve ex7 with scipy where the reference uses
    numpy only)."""
    path = REPO / "assignments" / "requirements.txt"
    names = set()
    for line in path.read_text().splitlines() if path.is_file() else []:
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        try:
            name = canonicalize_name(Requirement(line).name)
        except InvalidRequirement:
            continue
        if name in NOTEBOOK_TOOLS:
            continue
        try:
            dist = metadata.distribution(name)  # one look-up each, not every installed one's metadata
        except metadata.PackageNotFoundError:
            continue
        names |= _top_level(dist, () if dist.read_text("top_level.txt") else _files(dist))
    return frozenset(n for n in names - COURSE_MODULES if n.isidentifier() and not n.startswith("__"))


def release_modules(assignment: str) -> frozenset[str]:
    """Top-level modules the code cells of ``assignment``'s release notebook import, those the
    reference imports (a release's stub need not show the import its solution needs: ex4_1's
    ``ntk_autograd`` imports torch inside the function students write), and the students' own
    environment's (``environment_modules``)."""
    names = set(environment_modules())
    reference = REPO / "solutions" / assignment / "__init__.py"
    if reference.is_file():
        names |= imported_modules(reference.read_text()) - {"solutions", "autograder", "grading_tests",
                                                             "course_config"}
    for cell in load_release(assignment).get("cells", []):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            try:
                names |= imported_modules("".join(source) if isinstance(source, list) else str(source))
            except SyntaxError:
                continue
    return frozenset(names)


@functools.lru_cache(maxsize=1)
def site_dirs() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(searched, shown): the site directories on the path of the worker's interpreter (run as the
    worker runs it, ``-I``), where allowed distributions are looked up; and those plus every site
    directory of the installation, each of which the sandbox shows holding only allowed files."""
    out = subprocess.run([sys.executable, "-I", "-c", "import json, sys; print(json.dumps(sys.path))"],
                         capture_output=True, text=True, timeout=60, check=True, env={}, cwd="/")
    searched = _existing(p for p in json.loads(out.stdout) if Path(p).name in SITE_NAMES)
    every = site.getsitepackages([sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix])
    return searched, _existing([*searched, *every])


def _existing(paths) -> tuple[Path, ...]:
    found = []
    for p in paths:
        p = Path(p).resolve()
        if p.is_dir() and p not in found:
            found.append(p)
    return tuple(found)


@functools.lru_cache(maxsize=1)
def _installed(searched: tuple[Path, ...]) -> dict[str, tuple[metadata.Distribution, Path, tuple[str, ...]]]:
    """Canonical name -> (distribution, its site directory, the files it installed there), for the
    distributions in ``searched``, the first on the path winning."""
    found: dict[str, tuple[metadata.Distribution, Path, tuple[str, ...]]] = {}
    for dist in metadata.distributions(path=[str(p) for p in searched]):
        name = dist.metadata["Name"]
        if name and canonicalize_name(name) not in found:
            found[canonicalize_name(name)] = (dist, Path(str(dist.locate_file(""))).resolve(), _files(dist))
    return found


def _files(dist: metadata.Distribution) -> tuple[str, ...]:
    """What ``dist`` installed, relative to its site directory: RECORD's paths (what ``dist.files``
    lists, read here without making a path object of each of torch's 15,000 lines)."""
    record = dist.read_text("RECORD")
    if record is None:
        return tuple(str(f) for f in dist.files or ())
    return tuple(row[0] for row in csv.reader(record.splitlines()) if row and row[0])


def _top_level(dist: metadata.Distribution, files: tuple[str, ...]) -> set[str]:
    """The importable top-level names ``dist`` provides (as ``metadata.packages_distributions``
    reads them: ``top_level.txt``, else the first part of each file's path)."""
    declared = (dist.read_text("top_level.txt") or "").split()
    inferred = {f.split("/")[0] if "/" in f else inspect.getmodulename(f) for f in files}
    return set(declared) | {n for n in inferred if n}


def allowed_distributions(modules) -> dict[str, metadata.Distribution]:
    """The distributions providing ``modules`` (and the worker's needs), with their requirements
    (the extras asked for included), transitively; never one providing a module of the course."""
    installed = _installed(site_dirs()[0])
    providers: dict[str, list[str]] = {}
    course: set[str] = set()
    for name, (dist, _, files) in installed.items():
        tops = _top_level(dist, files)
        if tops & COURSE_MODULES:
            course.add(name)
        for top in tops:
            providers.setdefault(top, []).append(name)
    wanted = (set(modules) | WORKER_NEEDS) - COURSE_MODULES - set(sys.stdlib_module_names)
    todo: list[tuple[str, frozenset[str]]] = [
        (name, frozenset()) for module in sorted(wanted) for name in providers.get(module, [])]
    allowed, done = {}, set()
    while todo:
        name, extras = todo.pop()
        if (name, extras) in done or name in course or name not in installed:
            continue
        done.add((name, extras))
        dist = allowed[name] = installed[name][0]
        for text in dist.requires or ():
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in (*extras, "")):
                todo.append((canonicalize_name(req.name), frozenset(req.extras)))
    return allowed


@functools.lru_cache(maxsize=8)
def visible_entries(modules: frozenset[str]) -> dict[Path, tuple[str, ...]]:
    """``entries_for(modules)``, kept in a folder of the grader's own (a second ``pdl grade`` need
    not read the metadata of every installed distribution again, ~0.4 s); the key holds the site
    directories' modification times, which change whenever a distribution is added or removed."""
    searched, shown = site_dirs()
    try:
        stamp = [(str(d), d.stat().st_mtime_ns) for d in (*searched, *shown)]
        key = hashlib.sha256(json.dumps([sys.executable, stamp, sorted(modules),
                                         Path(__file__).read_text()]).encode()).hexdigest()[:32]
    except OSError:
        return entries_for(modules)
    folder = _private_cache()
    path = folder / f"{key}.json" if folder else None
    if path is not None and path.is_file():
        try:
            return {Path(k): tuple(v) for k, v in json.loads(path.read_text()).items()}
        except (OSError, ValueError, AttributeError):
            pass
    entries = entries_for(modules)
    if path is not None:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps({str(k): list(v) for k, v in entries.items()}))
            os.replace(tmp, path)
        except OSError:
            pass
    return entries


def _private_cache() -> Path | None:
    """A folder only this user can write (or None: then nothing is cached, never trusted)."""
    folder = Path(tempfile.gettempdir()) / f"pdl-packages-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return folder


def entries_for(modules: frozenset[str]) -> dict[Path, tuple[str, ...]]:
    """Site directory -> the paths in it (relative) that the sandbox shows, read-only: each allowed
    distribution's top-level packages and modules, its ``.dist-info``, ``*.libs`` folders and
    ``.pth`` files (whatever its RECORD names); inside a folder that a distribution which is not
    allowed also uses (a namespace package, the top-level ``__pycache__``), the allowed
    distribution's own entries instead of the folder. Files that no distribution installed are
    not shown, unless they lie in an allowed distribution's own folder."""
    searched, shown = site_dirs()
    allowed = allowed_distributions(modules)
    installed = _installed(searched)
    entries = {}
    for folder in shown:
        here = [(name, files) for name, (_, site_dir, files) in installed.items() if site_dir == folder]
        shared = {"__pycache__"}  # folders holding files of distributions not allowed
        for name, files in here:
            if name not in allowed:
                for f in files:
                    shared.update(f[:i] for i, c in enumerate(f) if c == "/")
        keep = set()
        for name, files in here:
            if name in allowed:
                for f in files:
                    parts = f.split("/")
                    if f.startswith("/") or ".." in parts:
                        continue  # scripts and data outside the site directory
                    k = next(k for k in range(1, len(parts) + 1) if "/".join(parts[:k]) not in shared)
                    keep.add("/".join(parts[:k]))
        entries[folder] = tuple(sorted(p for p in keep if (folder / p).exists() or (folder / p).is_symlink()))
    return entries
