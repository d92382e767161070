"""The settings' schema (issue 44): every name ``course_config.py`` may set and every ``PDL_*``
environment variable the engine reads, each declared once here with its type, default and what it
does; the checks that refuse anything else; and the tables of docs/settings.md, rendered from these
declarations (``python -m autograder.run.schema --write-docs`` rewrites them; tests/test_schema.py
fails while the committed doc differs).

A refusal is a ``SettingsError``: one line that says what to fix (``file:line`` where the file has
one). ``pdl`` checks before every command (``check_course``: exit status 2, nothing done);
``Settings.load()`` checks whenever it builds settings (``check_environment``, ``check_module``),
so the Gradescope zip, the cohort's workers and a test that sets a variable at run time are checked
the same way.

Refused: an unknown UPPER_CASE name in course_config (or a lower-case spelling of a setting), with
the nearest known name; a value of the wrong type; course_config.py that is not valid Python or
fails when run; an unknown ``PDL_*`` variable in the environment, with the nearest known one; a
variable's value of the wrong type. Names that are not settings are allowed: ``ROOT``, imports,
nbgrader's ``c`` and ``get_config``, private ``_names``, any other lower-case name.

Imports nothing of the engine, nor course_config at import: ``pdl`` imports this module first.
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib
import math
import os
import re
import sys
import traceback
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REQUIRED = object()  # the default of a setting the course must set

# When a student reads the rule text of a known mistake (its catalogued hint); before that, and
# always for "lead", she reads the lead: the place and the symptom (``run.diagnosis.tells``).
HINT_MODES = ("lead", "tell-after-publication", "tell-on-resubmission")
ISOLATIONS = ("namespace", "account", "process")  # as run/isolation.py's (tests/test_schema.py)
FLAG_ON = ("1", "true", "yes", "on")
FLAG_OFF = ("0", "false", "no", "off")
DOC = Path(__file__).resolve().parents[2] / "docs" / "settings.md"
WRITE_DOCS = "python -m autograder.run.schema --write-docs"


class SettingsError(ValueError):
    """A setting refused: one line saying what to fix."""


@dataclass(frozen=True)
class Setting:
    """A name of ``course_config.py``. ``type``: ``str``, ``int``, ``number`` (int or float),
    ``bool``, ``None``, ``dict``, ``dict[K, V]``, ``list[T]``, alternatives ``A | B``, and a bound
    on a number (``int > 0``, ``number >= 1``)."""
    name: str
    type: str
    default: Any                    # REQUIRED: the course must set it
    what: str                       # one line, Markdown (see docs/settings.md)
    choices: tuple[str, ...] = ()   # a str setting: one of these


@dataclass(frozen=True)
class Variable:
    """A ``PDL_*`` environment variable. ``type``: a number with its bound, as for ``Setting``;
    ``flag`` (``FLAG_ON``, ``FLAG_OFF``); ``choice`` (one of ``choices``); ``path``; ``folder`` (one
    holding course_config.py). A blank value is the same as none."""
    name: str
    type: str
    field: str                      # what it sets: the Settings field, or where it is read
    default: Any                    # when it is not set (or blank)
    what: str                       # one line, Markdown (see docs/settings.md)
    choices: tuple[str, ...] = ()
    course: str = ""                # the course_config setting it overrides (its default is that one's)
    default_text: str = ""          # the default in words, where it is not one value
    tests_only: bool = False        # read by the test suite only, never by the engine


COURSE_SETTINGS = {s.name: s for s in (
    Setting("COURSE", "str", REQUIRED, "the course's name (nbgrader's course id)"),
    Setting("YEAR", "int", REQUIRED, "the course year: this year's parameters derive from it; `pdl new-year` changes "
            "it ([years](years.md))"),
    Setting("SEED", "int", REQUIRED, "the course seed: hidden-test inputs and year parameters derive from it"),
    Setting("TIMEOUT_S", "number > 0", 300, "CPU seconds for running the notebook, unless `pdl grade --timeout` or "
            "`PDL_TIMEOUT_S` says otherwise (and nbgrader's execution timeout)"),
    Setting("CALL_TIMEOUT_S", "number > 0", 60, "CPU seconds for one call of a student's function (`--call-timeout`, "
            "`PDL_CALL_TIMEOUT_S`)"),
    Setting("MEMORY_MB", "int > 0 | None", 4096, "address space of the student's process, and of the grader's side of "
            "one submission, MB (`None`: no cap; `--memory`, `PDL_MEMORY_MB`)"),
    Setting("CARRY_FORWARD", "bool", True, "error carried forward: a failing test whose answers follow from the "
            "student's own wrong answers elsewhere keeps its points, with a note "
            "([error carried forward](error-carried-forward.md))"),
    Setting("HINTS", "str", HINT_MODES[1], "when a student reads a known mistake's rule text "
            "([diagnosis](diagnosis.md#hints-lead-then-tell))", choices=HINT_MODES),
    Setting("DEADLINES", "dict[str, str]", {}, "assignment id to its deadline, `YYYY-MM-DD HH:MM:SS <zone>` (an IANA "
            "zone or an offset; none: UTC): late submissions are flagged, and it is nbgrader's due date"),
    Setting("LATE_POLICY", "dict", {}, "the late penalty: `grace_minutes`, `per_day` or `per_hour`, `cap`, "
            "`no_credit_after`; one policy, or one per assignment id with `\"*\"` for the others (its keys are "
            "checked by `autograder/cohort/late.py`)"),
    Setting("CANVAS_ASSIGNMENT_IDS", "dict[str, int | str]", {}, "assignment id to its Canvas assignment id, for "
            "canvas.csv's column `<assignment> (<id>)` (without one, Canvas matches the column by name)"),
    Setting("MODULES", "dict[str, list[str]]", {}, "named groups of assignment ids released together "
            "(`pdl generate --module`, `pdl validate --module`)"),
    Setting("GRADESCOPE_COURSE_ID", "int | str | None", None, "the Gradescope course the otter zip uploads written "
            "answers to (with `GRADESCOPE_MANUAL_ASSIGNMENTS` and the environment's `GRADESCOPE_TOKEN`)"),
    Setting("GRADESCOPE_MANUAL_ASSIGNMENTS", "dict[str, int | str]", {}, "assignment id to the Gradescope "
            "assignment where TAs grade its written answers by hand"),
)}
# Upper-case names of course_config.py that are not settings (allowed, never read as one).
NOT_SETTINGS = {"ROOT": "the course's folder, for nbgrader's block of course_config.py"}

ENVIRONMENT = {v.name: v for v in (
    Variable("PDL_TIMEOUT_S", "number > 0", "limits.timeout_s", None, "CPU seconds for running the notebook",
             course="TIMEOUT_S"),
    Variable("PDL_CALL_TIMEOUT_S", "number > 0", "limits.call_timeout_s", None,
             "CPU seconds for one call of a student's function (fractions allowed)", course="CALL_TIMEOUT_S"),
    Variable("PDL_MEMORY_MB", "int > 0", "limits.memory_mb", None,
             "address space of the student's process, and of the grader's side of one submission", course="MEMORY_MB"),
    Variable("PDL_WALL_FACTOR", "number >= 1", "limits.wall_factor", 4.0,
             "the time limits count the student's CPU time; the wall clock allowed is this many times a limit, plus "
             "10 s (an outer bound, for a process asleep or starved)"),
    Variable("PDL_ISOLATION", "choice", "isolation", "namespace",
             "how the student's process is isolated ([grading engine](grading-engine.md))", choices=ISOLATIONS),
    Variable("PDL_WARM", "flag", "warm", True, "`0`: every student process starts cold (no warm template)"),
    Variable("PDL_DIAGNOSE", "flag", "diagnose", True,
             "`0`: no diagnosis of failing tests ([diagnosis](diagnosis.md))"),
    Variable("PDL_CARRY_FORWARD", "flag", "carry_forward", None,
             "`0`: no error carried forward ([error carried forward](error-carried-forward.md))",
             course="CARRY_FORWARD"),
    Variable("PDL_HINTS", "choice", "hints", None, "when a student reads a known mistake's rule text "
             "([diagnosis](diagnosis.md#hints-lead-then-tell))", choices=HINT_MODES, course="HINTS"),
    Variable("PDL_PUBLISHED", "flag", "published", False,
             "`1`: the cohort's feedback pages are written for after grades are published (they then tell a known "
             "mistake's rule text under `tell-after-publication`, and a failing test's values: the student's, its "
             "call, the expected); `pdl grade-cohort --published` sets it"),
    Variable("PDL_CHROMIUM", "path", "chromium", None, "the browser for page screenshots and the browser tests",
             default_text="`chromium` on `PATH`"),
    Variable("PDL_AUTOGRADER_DIR", "path", "autograder_dir", "/autograder",
             "the Gradescope zip's folder (its local simulation moves it)"),
    Variable("PDL_COURSE_DIR", "folder", "`autograder.COURSE_DIR`", None,
             "the course an installed engine grades; read once, when `autograder` is imported",
             default_text="the checkout"),
    Variable("PDL_STUDENT_VENV", "flag", "(tests only)", True,
             "`0`: `tests/test_student.py` uses the course's venv instead of building the students'", tests_only=True),
)}


def default(name: str) -> Any:
    """The default of a course_config setting or of a variable (a variable tied to a setting: that one's)."""
    if name in ENVIRONMENT:
        var = ENVIRONMENT[name]
        return COURSE_SETTINGS[var.course].default if var.course else var.default
    return COURSE_SETTINGS[name].default


def course_value(module: Any, name: str) -> Any:
    """A setting of ``module`` (course_config), or its declared default."""
    return getattr(module, name, COURSE_SETTINGS[name].default)


# -- types -------------------------------------------------------------------------------------

def _split(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets, each part stripped."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "[") - (ch == "]")
        if ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return parts + [text[start:].strip()]


def _bounded(value: Any, kind: str) -> bool:
    """``value`` within the bound of ``kind`` (``number > 0``, ``int >= 1``; none: any)."""
    _, _, bound = kind.partition(" ")
    if not bound:
        return not (isinstance(value, float) and math.isnan(value))
    op, limit = bound.split()
    return value > float(limit) if op == ">" else value >= float(limit)


_PLAIN: dict[str, type | tuple[type, ...]] = {
    "str": str, "bool": bool, "None": type(None), "dict": dict, "object": object, "int": int, "number": (int, float)}


def _plain(value: Any, kind: str) -> bool:
    base = kind.split(" ")[0]
    if base in ("int", "number"):
        return isinstance(value, _PLAIN[base]) and not isinstance(value, bool) and _bounded(value, kind)
    return isinstance(value, _PLAIN[base])


@functools.cache
def _parse(kind: str) -> tuple:
    """``kind`` parsed once: ("|", alternatives), ("list", item), ("dict", key, value), or
    ("plain", kind)."""
    alternatives = _split(kind, "|")
    if len(alternatives) > 1:
        return "|", tuple(_parse(alt) for alt in alternatives)
    container = re.fullmatch(r"(dict|list)\[(.*)\]", kind)
    if container:
        outer, inner = container.groups()
        return ("list", _parse(inner)) if outer == "list" else ("dict", *map(_parse, _split(inner, ",")))
    return "plain", kind


def conforms(value: Any, kind: str) -> bool:
    """``value`` is of type ``kind`` (``Setting``); fast, as ``Settings.load`` checks each time."""
    return _conforms(value, _parse(kind))


def _conforms(value: Any, parsed: tuple) -> bool:
    tag = parsed[0]
    if tag == "|":
        return any(_conforms(value, alt) for alt in parsed[1])
    if tag == "list":
        return isinstance(value, (list, tuple)) and all(_conforms(item, parsed[1]) for item in value)
    if tag == "dict":
        return isinstance(value, dict) and all(_conforms(k, parsed[1]) and _conforms(v, parsed[2])
                                               for k, v in value.items())
    return _plain(value, parsed[1])


def mismatch(value: Any, kind: str, where: str) -> tuple[str, Any, str] | None:
    """None where ``value`` is of type ``kind`` (``Setting``), else what is not: (its place in
    ``where``'s value, e.g. ``DEADLINES['ex3_2_nngp']``, that part of the value, its type)."""
    alternatives = _split(kind, "|")
    if len(alternatives) > 1:
        each = [mismatch(value, alt, where) for alt in alternatives]
        if any(f is None for f in each):
            return None
        inside = [f for f in each if f is not None and f[0] != where]  # the right container, a wrong part
        return inside[0] if inside else (where, value, kind)
    container = re.fullmatch(r"(dict|list)\[(.*)\]", kind)
    if not container:
        return None if _plain(value, kind) else (where, value, kind)
    outer, inner = container.groups()
    if outer == "list":
        if not isinstance(value, (list, tuple)):
            return where, value, kind
        for i, item in enumerate(value):
            wrong = mismatch(item, inner, f"{where}[{i}]")
            if wrong:
                return wrong
        return None
    if not isinstance(value, dict):
        return where, value, kind
    key_type, value_type = _split(inner, ",")
    for key, item in value.items():
        if mismatch(key, key_type, where):
            return f"{where}: the key", key, key_type
        wrong = mismatch(item, value_type, f"{where}[{key!r}]")
        if wrong:
            return wrong
    return None


def _words(kind: str) -> str:
    """A type in words: ``a number > 0``, ``an int > 0 or None``, ``a dict[str, str]``."""
    parts = _split(kind, "|")
    said = ", ".join(parts[:-1]) + f" or {parts[-1]}" if len(parts) > 1 else kind
    return said if said.startswith("None") else ("an " if said[0] in "aeiou" else "a ") + said


def _short(value: Any) -> str:
    text = repr(value).replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."


# -- course_config ---------------------------------------------------------------------------

def _place(path: str | None, line: int | None = None) -> str:
    """``path`` (relative to the current folder when under it) and ``:line``."""
    if not path:
        return "course_config.py"
    try:
        shown = os.path.relpath(path)
        shown = path if shown.startswith("..") else shown
    except ValueError:  # another drive
        shown = path
    return f"{shown}:{line}" if line else shown


def _line_of(path: str | None, name: str) -> int | None:
    """The line of ``path`` that last assigns ``name`` at the top level, or None."""
    try:
        tree = ast.parse(Path(path or "").read_text())
    except (OSError, SyntaxError, ValueError):
        return None
    lines = [node.lineno for node in ast.walk(tree)
             if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
             for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
             if isinstance(target, ast.Name) and target.id == name]
    return max(lines, default=None)


def _nearest(name: str, known) -> str:
    near = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"did you mean {near[0]}?" if near else f"the names are {', '.join(sorted(known))}"


def module_problem(module: Any) -> str:
    """What is wrong with the settings of ``module`` (course_config), in one line, or ''."""
    path = getattr(module, "__file__", None)
    names = vars(module)
    for name, value in names.items():
        if name.startswith("_") or isinstance(value, types.ModuleType) or callable(value):
            continue  # private, an import, a function or class (nbgrader's get_config)
        if name in COURSE_SETTINGS or name in NOT_SETTINGS:
            continue
        if name.isupper() or name.upper() in COURSE_SETTINGS:  # a lower-case spelling of a setting too
            where = _place(path, _line_of(path, name))
            if name.upper() in COURSE_SETTINGS:
                return f"{where}: {name} is not a setting; did you mean {name.upper()}? (see docs/settings.md)"
            variable = ENVIRONMENT.get(name if name.startswith("PDL_") else f"PDL_{name}")
            if variable and not variable.course:
                return (f"{where}: {name} is not a course_config setting: set the environment variable "
                        f"{variable.name} instead (see docs/settings.md)")
            return f"{where}: {name} is not a setting; {_nearest(name, COURSE_SETTINGS)} (see docs/settings.md)"
    for setting in COURSE_SETTINGS.values():
        if setting.name not in names:
            if setting.default is REQUIRED:
                return (f"{_place(path)}: sets no {setting.name} ({setting.type}: {setting.what.split(':')[0]}); "
                        f"add it (see docs/settings.md)")
            continue
        value = names[setting.name]
        if conforms(value, setting.type) and (not setting.choices or value in setting.choices):
            continue
        found = mismatch(value, setting.type, setting.name)
        if found is None and setting.choices and value not in setting.choices:
            found = (setting.name, value, f"one of {', '.join(setting.choices)}")
        if found:
            part, bad, kind = found
            said = kind if kind.startswith("one of") else _words(kind)
            example = ("" if setting.default is REQUIRED or part != setting.name else
                       f", e.g. {setting.name} = {setting.default!r}")
            shown = f"{part} {_short(bad)}" if part.endswith(": the key") else f"{part} = {_short(bad)}"
            return (f"{_place(path, _line_of(path, setting.name))}: {shown} ({type(bad).__name__}) must be "
                    f"{said}{example} (see docs/settings.md)")
    return ""


def check_module(module: Any) -> None:
    """Refuse (``SettingsError``) the settings of ``module`` (course_config) where they are wrong."""
    problem = module_problem(module)
    if problem:
        raise SettingsError(problem)


def load_course() -> types.ModuleType:
    """``course_config``, imported (once: then the same module), or ``SettingsError`` saying
    where it is not valid Python, or fails when run, or is missing."""
    try:
        return importlib.import_module("course_config")
    except SyntaxError as exc:
        raise SettingsError(f"{_place(exc.filename, exc.lineno)}: {exc.msg}: course_config.py is not valid Python; "
                            "fix that line") from None
    except ModuleNotFoundError as exc:
        if exc.name != "course_config":
            raise
        raise SettingsError("no course_config.py on the path: run pdl in the course's checkout, or set "
                            "PDL_COURSE_DIR to the course's folder") from None
    except Exception as exc:  # noqa: BLE001 - whatever course_config.py raises, said in one line
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).name == "course_config.py"]
        where = _place(frames[-1].filename, frames[-1].lineno) if frames else "course_config.py"
        said = " ".join(str(exc).split())
        raise SettingsError(f"{where}: {type(exc).__name__}: {said}: course_config.py fails when run; "
                            "fix that line") from None


# -- the environment -------------------------------------------------------------------------

def variable_problem(name: str, value: str) -> str:
    """What is wrong with ``name=value`` of the environment, in one line, or ''."""
    var = ENVIRONMENT.get(name)
    if var is None:
        return (f"{name} (in the environment) is not a pdl variable; {_nearest(name, ENVIRONMENT)} "
                "Unset or rename it (see docs/settings.md)")
    text = value.strip()
    if not text:
        return ""  # blank: not set
    kind = var.type
    if kind.split(" ")[0] in ("int", "number"):
        try:
            number: float = int(text) if kind.startswith("int") else float(text)
        except ValueError:
            number = math.nan
        ok = math.isfinite(number) and _bounded(number, kind)
        said = _words(kind)
    elif kind == "flag":
        ok, said = text.lower() in FLAG_ON + FLAG_OFF, "1 or 0 (or true/false, yes/no, on/off)"
    elif kind == "choice":
        ok, said = text in var.choices, f"one of {', '.join(var.choices)}"
    elif kind == "folder":
        ok, said = os.path.isfile(os.path.join(text, "course_config.py")), "a folder that holds course_config.py"
    else:
        ok, said = True, ""
    return "" if ok else f"{name}={_short(value)} (in the environment) must be {said} (see docs/settings.md)"


def check_environment(environ=None) -> None:
    """Refuse (``SettingsError``) a ``PDL_*`` variable of ``environ`` (default: this process's
    environment) that is unknown or of the wrong type."""
    environ = os.environ if environ is None else environ
    for name in environ:
        if name.startswith("PDL_"):
            problem = variable_problem(name, environ.get(name) or "")  # or "": unset meanwhile (a thread)
            if problem:
                raise SettingsError(problem)


def check_course() -> types.ModuleType:
    """What ``pdl`` checks before a command (and the Gradescope zip before grading): the
    environment, then course_config.py (valid Python, runs, its names and types). Returns
    course_config; ``SettingsError`` (one line) for the first thing wrong."""
    check_environment()
    module = load_course()
    check_module(module)
    return module


# -- docs/settings.md ------------------------------------------------------------------------

def _value(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value!r}`" if not isinstance(value, str) else f"`{value}`"


def _either(choices: tuple[str, ...]) -> str:
    quoted = [f"`{c}`" for c in choices]
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}"


def course_table() -> str:
    """The Markdown table of course_config's settings."""
    rows = ["| name | type | default | what it does |", "|---|---|---|---|"]
    for s in COURSE_SETTINGS.values():
        dflt = "(required)" if s.default is REQUIRED else _value(s.default)
        kind = _either(s.choices) if s.choices else "`" + s.type.replace("|", "\\|") + "`"  # a pipe splits a cell
        rows.append(f"| `{s.name}` | {kind} | {dflt} | {s.what} |")
    rows += [f"| `{name}` | (not a setting) | | {what} |" for name, what in NOT_SETTINGS.items()]
    return "\n".join(rows)


def environment_table() -> str:
    """The Markdown table of the ``PDL_*`` variables."""
    rows = ["| variable | value | field | default | what it does |", "|---|---|---|---|---|"]
    for v in ENVIRONMENT.values():
        words = {"flag": "`1` or `0`", "path": "a path", "folder": "a folder with `course_config.py`"}
        value = _either(v.choices) if v.choices else words.get(v.type, f"`{v.type}`")
        field = v.field if v.field.startswith(("`", "(")) else f"`{v.field}`"
        if v.default_text:
            dflt = v.default_text
        elif v.course:
            dflt = f"`course_config.{v.course}` ({_value(default(v.name))})"
        elif v.type == "flag":
            dflt = "`1`" if v.default else "`0`"
        else:
            dflt = _value(v.default)
        rows.append(f"| `{v.name}` | {value} | {field} | {dflt} | {v.what} |")
    return "\n".join(rows)


TABLES = {"course_config": course_table, "environment": environment_table}


def render_doc(text: str) -> str:
    """``text`` (see docs/settings.md) with each generated table (between ``<!-- schema:<name> -->``
    and ``<!-- /schema:<name> -->``) rendered anew from the declarations."""
    for name, table in TABLES.items():
        pattern = re.compile(rf"(<!-- schema:{name} [^\n]*-->\n)(?:.*?\n)?(<!-- /schema:{name} -->)", re.S)
        found = pattern.search(text)
        if not found:
            raise ValueError(f"{DOC.name} has no generated table {name!r} (<!-- schema:{name} ... -->)")
        text = text[:found.end(1)] + "\n" + table() + "\n\n" + text[found.start(2):]  # blank lines: its own block
    return text


def main(argv: list[str] | None = None) -> int:
    """``--write-docs``: rewrite docs/settings.md's tables; else print them."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--write-docs"]:
        text = DOC.read_text()
        new = render_doc(text)
        if new != text:
            DOC.write_text(new)
        print(f"{DOC}: {'rewritten' if new != text else 'already up to date'}")
        return 0
    if args:
        print(f"usage: {WRITE_DOCS} (or no argument: print the tables)", file=sys.stderr)
        return 2
    print(course_table() + "\n\n" + environment_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
