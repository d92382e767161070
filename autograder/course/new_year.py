"""A new course year (``pdl new-year``), as a Python API (docs/api.md).

``new_year(2027)`` sets ``YEAR`` in ``course_config.py``, regenerates every assignment on the new
year's parameters and hidden-test inputs, and adds the year's rows to ``CHANGELOG.md``.

Dates of the last term are not left behind silently: every date in ``course_config`` (the
deadlines in ``DEADLINES``, the ``no_credit_after`` dates in ``LATE_POLICY``, any other setting
holding a ``YYYY-MM-DD ...`` string) that lies before 1 January of the new year is listed
(``dates_before``), and ``new_year`` refuses, writing nothing, until they are updated, unless told
to move them by whole years (``deadlines="shift"``) or to keep them (``deadlines="keep"``). A date
is moved in the file itself, in its string literal (its time and zone kept; 29 February becomes
the 28th in a year without one); a date that is not written as a literal there is refused rather
than guessed. ``pdl validate`` notes the dates before the course year (``dates_before``).
Students' extensions are in the roster, not here: update the roster's dates with the term.

What the new year changes in each assignment, read from its source
(``autograder.course.year_change.what_a_new_year_changes``: the year's parameters and where they
appear, the hidden inputs, the written questions and graded functions that depend on them), is in
``NewYear.changes``; ``dry_run=True`` computes it, and the dates, and writes nothing
(``pdl new-year YEAR --dry-run``).
"""

from __future__ import annotations

import ast
import calendar
import datetime
import importlib
import io
import os
import re
import runpy
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import course_config
from autograder.course.generate import generate, solution_notebook_executed
from autograder.course.source import all_assignments
from autograder.course.year_change import YearChange, what_new_years_change
from autograder.run.paths import REPO
from autograder.run.versions import assignment_version

DATE = re.compile(r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})(?P<rest>(?:[ T]\d{2}:\d{2}.*)?)", re.DOTALL)
YEAR_LINE = re.compile(r"^YEAR = \d+", re.MULTILINE)
DEADLINE_MODES = ("refuse", "shift", "keep")


@dataclass(frozen=True)
class ConfigDate:
    """A date written in course_config: where (``DEADLINES['ex3_2_nngp']``) and what."""
    setting: str        # the top-level setting: DEADLINES, LATE_POLICY, ...
    keys: tuple         # the keys inside it, outermost first: ("ex3_2_nngp",), ("*", "no_credit_after")
    value: str          # as written: "2026-10-15 23:59:59 Europe/Berlin"

    @property
    def where(self) -> str:
        return self.setting + "".join(f"[{k!r}]" for k in self.keys)

    @property
    def year(self) -> int:
        return int(DATE.match(self.value.strip())["year"])

    def moved(self, years: int) -> str:
        """The same date and time, ``years`` whole years later (29 February: the 28th where there is none)."""
        m = DATE.match(self.value.strip())
        year, month, day = int(m["year"]) + years, int(m["month"]), int(m["day"])
        if month == 2 and day == 29 and not calendar.isleap(year):
            day = 28
        lead = self.value[:len(self.value) - len(self.value.lstrip())]
        return f"{lead}{year:04d}-{month:02d}-{day:02d}{m['rest']}"

    def concerns(self, assignment: str, known=()) -> bool:
        """Whether the date applies to ``assignment``: its own entry, or one for every assignment
        (no key on the way is another of the course's assignments, ``known``)."""
        return assignment in self.keys or not any(k in known for k in self.keys)


def _settings(config=None) -> dict:
    """The settings of ``config``: a course_config.py path, a mapping, or None for course_config."""
    if config is None:
        return vars(course_config)
    if isinstance(config, (str, os.PathLike)):
        return runpy.run_path(str(config))
    return dict(config)


def config_dates(config=None) -> list[ConfigDate]:
    """Every date in the settings (upper-case names) of ``config`` (default: course_config), in
    the order written."""
    found: list[ConfigDate] = []

    def walk(name: str, keys: tuple, value) -> None:
        if isinstance(value, str):
            if DATE.fullmatch(value.strip()):
                found.append(ConfigDate(name, keys, value))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(name, keys + (key,), item)
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                walk(name, keys + (index,), item)

    for name, value in _settings(config).items():
        if name.isupper() and not name.startswith("_"):
            walk(name, (), value)
    return found


def dates_before(year: int, config=None, assignment: str | None = None) -> list[ConfigDate]:
    """The dates of ``config`` (default: course_config) that lie before 1 January of ``year`` (as
    written, in their own zone); with ``assignment``, only those that apply to it."""
    dates = [d for d in config_dates(config) if d.year < year]
    if assignment is not None:
        known = set(all_assignments())
        dates = [d for d in dates if d.concerns(assignment, known)]
    return dates


def date_notes(assignment: str) -> list[str]:
    """``pdl validate``'s notes: the dates of course_config that apply to ``assignment`` and lie
    before the course year (a term's deadline left from an earlier year)."""
    return [f"course_config.{d.where} = {d.value!r} lies before the course year {course_config.YEAR}: "
            "a date of an earlier term? (`pdl new-year --shift-deadlines` moves such dates)"
            for d in dates_before(course_config.YEAR, assignment=assignment)]


class DatesBeforeYear(ValueError):
    """``new_year`` refused: course_config has dates before the new year (``dates``); nothing was written."""

    def __init__(self, year: int, dates: list[ConfigDate]):
        self.year, self.dates = year, list(dates)
        super().__init__(f"course_config.py has {len(dates)} date(s) before {year}: "
                         + "; ".join(f"{d.where} = {d.value!r}" for d in dates))


class NewYearRefused(ValueError):
    """``new_year`` cannot edit course_config.py as asked; nothing was written."""


@dataclass
class NewYear:
    """What ``new_year`` did."""
    old_year: int
    year: int
    config: Path                                         # the course_config.py edited
    dates: list[ConfigDate] = field(default_factory=list)  # the dates found before the new year
    moved: dict = field(default_factory=dict)            # ConfigDate -> its new value (deadlines="shift")
    regenerated: list[str] = field(default_factory=list)  # assignments regenerated
    unexecuted: list[str] = field(default_factory=list)  # solution notebooks left without outputs
    changelog: Path | None = None                        # where the year's rows were added
    changes: list[YearChange] = field(default_factory=list)  # what the year changes, per assignment
    dry_run: bool = False                                # nothing was written

    @property
    def kept(self) -> list[ConfigDate]:
        """Dates before the new year left as they are (deadlines="keep")."""
        return [d for d in self.dates if d not in self.moved]


def _literal_edits(text: str, moves: dict[str, str]) -> tuple[str, set[str]]:
    """``text`` (Python source) with each string literal whose value is a key of ``moves`` given
    that key's value (comments and everything else untouched); and the keys found."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    edits, found = [], set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.STRING:
            continue
        try:
            value = ast.literal_eval(tok.string)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str) and value in moves and value in tok.string:
            begin = starts[tok.start[0] - 1] + tok.start[1]
            end = starts[tok.end[0] - 1] + tok.end[1]
            edits.append((begin, end, tok.string.replace(value, moves[value])))
            found.add(value)
    for begin, end, new in reversed(edits):
        text = text[:begin] + new + text[end:]
    return text, found


def new_year(year: int, *, deadlines: str = "refuse", execute: bool = True, otter: bool = True,
             regenerate: bool = True, config=None, changelog=None,
             log: Callable[[str], None] | None = None, dry_run: bool = False) -> NewYear:
    """Set the course year to ``year`` and regenerate every assignment; what ``pdl new-year`` does.

    ``deadlines``: what to do with the dates in course_config before ``year`` (``dates_before``):
    ``"refuse"`` (default: raise ``DatesBeforeYear``, nothing written), ``"shift"`` (move each by
    whole years: by as many as the course moves, or more where that still leaves it before
    ``year``) or ``"keep"``. ``execute``: execute the solution notebooks; ``otter``: build the
    otter zips; ``regenerate=False`` only edits the file (``config``: another course_config.py,
    allowed only so; ``changelog``: another CHANGELOG.md). ``log``: called with each assignment
    regenerated. ``NewYearRefused`` where the file cannot be edited as asked (nothing written).
    ``dry_run``: write nothing; return the dates found (without refusing: ``dates``, and ``moved``
    as ``"shift"`` would move them) and what the year changes per assignment (``changes``,
    also filled by a run that regenerates).
    """
    if deadlines not in DEADLINE_MODES:
        raise ValueError(f"deadlines must be one of {', '.join(DEADLINE_MODES)}, not {deadlines!r}")
    course_file = REPO / "course_config.py"
    path = Path(config) if config is not None else course_file
    if regenerate and not dry_run and path.resolve() != course_file.resolve():
        raise ValueError(f"{path} is not the course's course_config.py: pass regenerate=False to only edit it")
    say = log or (lambda _text: None)
    settings = _settings(path)
    old_year = int(settings["YEAR"])
    dates = dates_before(year, settings)
    if dates and deadlines == "refuse" and not dry_run:
        raise DatesBeforeYear(year, dates)
    text = path.read_text()
    text, replaced = YEAR_LINE.subn(f"YEAR = {year}", text, count=1)
    if not replaced:
        raise NewYearRefused(f"{path} has no line `YEAR = <year>` to change")
    moved: dict[ConfigDate, str] = {}
    if deadlines == "shift":
        moved = {d: d.moved(max(year - old_year, year - d.year)) for d in dates}
        text, found = _literal_edits(text, {d.value: new for d, new in moved.items()})
        missing = [d for d in moved if d.value not in found]
        if missing:
            raise NewYearRefused(f"cannot move {', '.join(d.where for d in missing)}: not written as a string in "
                                 f"{path}; update it by hand")
    if dry_run:  # what a run would do; nothing written
        return NewYear(old_year=old_year, year=year, config=path, dates=dates, moved=moved,
                       changes=what_new_years_change(), dry_run=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    done = NewYear(old_year=old_year, year=year, config=path, dates=dates, moved=moved)
    if not regenerate:
        return done
    importlib.reload(course_config)
    done.changes = what_new_years_change()  # read from the sources: the same before and after the year
    ids = all_assignments()
    for aid in ids:
        generate(aid, execute_solution=execute, otter=otter, log=lambda _: None)
        done.regenerated.append(aid)
        say(f"{aid}: regenerated for {year}")
    done.unexecuted = [aid for aid in ids if not solution_notebook_executed(aid)]
    log_path = Path(changelog) if changelog is not None else REPO / "CHANGELOG.md"
    entry = (f"\n## {year} (from {old_year}), {datetime.date.today().isoformat()}\n"
             f"- `pdl new-year {year}`: every assignment regenerated; hidden-test inputs and year "
             f"parameters redrawn from seed {course_config.SEED} and year {year}. Grades record version "
             f"`{year}.<hash>`; a late submission of {old_year} is graded with the {old_year} checkout.\n"
             f"- Assignments: {', '.join(ids)}\n")
    if moved:
        entry += ("- Dates in course_config.py moved to the new term: "
                  + "; ".join(f"{d.where} {d.value} -> {new}" for d, new in moved.items()) + "\n")
    if done.unexecuted:
        entry += (f"- Solution notebooks written without outputs (not yet executed for {year}): "
                  f"{', '.join(done.unexecuted)}\n")
    entry += ("\n| assignment | version | what |\n|---|---|---|\n"  # every version listed (tests/test_changelog.py)
              + "".join(f"| `{aid}` | `{assignment_version(aid)}` | year {year} |\n" for aid in ids))
    log_path.write_text(log_path.read_text() + entry if log_path.exists() else "# Changelog\n" + entry)
    done.changelog = log_path
    return done
