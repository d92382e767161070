"""A grade as types (issue 33): one submission's ``GradeReport`` with its ``TestResult``s, and a
cohort's ``Record`` (the report with who submitted it) and ``CohortSummary``. They cross a process
boundary (the bounded child, the pool, a dask worker) and the record file as JSON, and nowhere
else: ``to_dict`` / ``from_dict`` are the only conversions.

A test's outcome is a ``Kind``, never a message to be parsed back. A failing test's ``Fault`` is
the one decision of which graded function is at fault and on what evidence (``decide``): points
charged to functions, error carried forward, the diagnoses a student reads, the pages, Gradescope's
results and ``pdl grade``'s table all read it, none decides it again.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from pathlib import Path

from autograder.run import redact
from autograder.run.diagnosis import Diagnosis, Found, from_old_text, hints_of, sentence, words
from autograder.run.shown import Shown


class Kind(str, Enum):
    """What became of one hidden test."""
    PASS = "pass"
    FAIL = "fail"                    # the student's answer was wrong
    CARRIED = "carried"              # it failed, and keeps its points: the error carried forward
    STUDENT_ERROR = "student error"  # the student's function raised, is missing or not implemented, or crashed
    TIMEOUT = "timeout"              # the student's function or notebook ran past its time limit
    MEMORY = "memory"                # the student's process was killed (its memory limit, or out of memory)
    NOT_GRADED = "not graded"        # the grader stopped before the test finished

    def __str__(self) -> str:
        return self.value


# The student's process could not answer at all (not a wrong answer nor one exception of theirs).
TROUBLE = frozenset({Kind.TIMEOUT, Kind.MEMORY, Kind.NOT_GRADED})
STUDENT_ERROR_KINDS = {"timeout": Kind.TIMEOUT, "memory": Kind.MEMORY}  # StudentError.kind -> Kind
# StudentError kinds of a process that could not answer (kept by a test credited afterwards)
TROUBLED_ERRORS = frozenset({"crashed", "timeout", "memory"})

# Records written before kinds: what the messages of those versions said (read there only).
_OLD_TIMEOUT = re.compile(r"did not finish within|ran past the time limit", re.IGNORECASE)
_OLD_MEMORY = re.compile(r"out of memory|killed", re.IGNORECASE)
_OLD_CRASH = re.compile(r"crashed|stopped the notebook|could not start", re.IGNORECASE)
_OLD_NOT_IMPLEMENTED = re.compile(r"is not implemented yet")
_OLD_UNREADABLE = re.compile(r"the notebook could not be read: ")


def _old_kind(data: dict) -> tuple[Kind, str]:
    """(kind, error) of a test in a record written before kinds, from its flags and message."""
    if data.get("passed"):
        return Kind.PASS, ""
    message = str(data.get("message", ""))
    error = ("invalid_notebook" if _OLD_UNREADABLE.search(message) else
             "timeout" if _OLD_TIMEOUT.search(message) else "memory" if _OLD_MEMORY.search(message) else
             "crashed" if _OLD_CRASH.search(message) else
             "not_implemented" if _OLD_NOT_IMPLEMENTED.search(message) else "")
    if data.get("carried_forward"):
        return Kind.CARRIED, error
    return STUDENT_ERROR_KINDS.get(error, Kind.STUDENT_ERROR) if error else Kind.FAIL, error


# -- the fault: which graded function a failing test is charged to, and why ---------------------
class Evidence(str, Enum):
    """What shows that a function is at fault for a failing test (``decide``: the strongest first)."""
    CARRIED = "carried"  # the test passes when re-run with the root functions answered by the reference
    RAISED = "raised"    # its call raised (in its own code, where that is a graded function)
    ANSWER = "answer"    # its answer failed the comparison
    CALLED = "called"    # nothing closer: the graded function the test called last
    OWNER = "owner"      # nothing better: the function the test counts for

    def __str__(self) -> str:
        return self.value


# What each evidence says, in the words of the TA's table (`pdl grade`).
EVIDENCE_WORDS = {
    Evidence.CARRIED: "error carried forward: the test passes with it answered by a correct version",
    Evidence.RAISED: "its call raised an error",
    Evidence.ANSWER: "its answer failed the comparison",
    Evidence.CALLED: "the function the test called last",
    Evidence.OWNER: "the function the test counts for",
}


@dataclass(frozen=True)
class Fault:
    """Which graded function a failing test is charged to (``function``; "" where no function is
    known), on what evidence, and what the answers show of that function (``diagnoses``).

    Only a diagnosis about ``function`` (or one that names no function: a record written before
    diagnoses named one) can be in it: the constructor refuses any other, so a test cannot be
    charged to one function while its feedback blames another. A credited test (``CARRIED``) is
    charged to a root function it is credited from (``carried_from``: all of them), never to the
    function it counts for."""
    function: str
    evidence: Evidence
    carried_from: tuple[str, ...] = ()
    diagnoses: tuple[Diagnosis, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "evidence", Evidence(self.evidence))
        object.__setattr__(self, "carried_from", tuple(str(n) for n in self.carried_from))
        object.__setattr__(self, "diagnoses", tuple(self.diagnoses))
        if self.evidence is Evidence.CARRIED:
            # a record written before credits named their functions may know none of them
            if self.function not in self.carried_from and (self.function or self.carried_from):
                raise ValueError(f"a credited test is charged to a function it is credited from, not "
                                 f"{self.function!r} (credited from {list(self.carried_from)})")
        elif self.carried_from:
            raise ValueError(f"only a credited test is credited from other functions ({self.evidence})")
        for d in self.diagnoses:
            if not isinstance(d, Diagnosis):
                raise TypeError(f"a fault holds diagnoses, not {type(d).__name__}")
            if not self.admits(d):
                raise ValueError(f"a diagnosis of {d.function!r} cannot explain a fault of {self.function!r}")

    def admits(self, d: Diagnosis) -> bool:
        """Whether ``d`` may be told for this fault: it is about ``function`` (or names none)."""
        return d.function in ("", self.function)

    @property
    def credited(self) -> bool:
        return self.evidence is Evidence.CARRIED

    @property
    def roots(self) -> list[str]:
        """A credited test's functions it follows from, the one it is charged to first."""
        return list(dict.fromkeys([self.function, *self.carried_from] if self.function else self.carried_from))

    def to_dict(self) -> dict:
        return {"function": self.function, "evidence": self.evidence.value, "carried_from": list(self.carried_from),
                "diagnoses": [d.to_dict() for d in self.diagnoses]}

    @classmethod
    def from_dict(cls, data: dict) -> Fault:
        return cls(str(data.get("function") or ""), Evidence(data.get("evidence") or Evidence.OWNER),
                   tuple(data.get("carried_from") or ()),
                   tuple(Diagnosis.from_dict(d) for d in data.get("diagnoses") or ()))


@dataclass(frozen=True)
class Clues:
    """What a failing test showed, while it ran, of which graded function failed it: the
    function it counts for (``owner``), the one whose call raised (``raised``: where its own code
    raised, when that is a graded function), the one whose answer failed the comparison
    (``answered``), the graded function it called last (``called``); "" for none."""
    owner: str = ""
    raised: str = ""
    answered: str = ""
    called: str = ""


def decide(clues: Clues, carried_from: Sequence[str] = (), diagnoses: Iterable[Diagnosis] = ()) -> Fault:
    """The fault of a failing test, the one decision every reader reads. Precedence:

    1. ``CARRIED``: the test is credited (``carried_from``, by ``carry.decide``): it is charged to
       the function the evidence below names, where that is one it is credited from, else to the
       first of them;
    2. ``RAISED``: the function whose call raised;
    3. ``ANSWER``: the function whose answer failed the comparison;
    4. ``CALLED``: the graded function the test called last;
    5. ``OWNER``: the function the test counts for.

    Of ``diagnoses`` (what the answers of the test show, ``run/diagnose``) the fault keeps those
    about the function it is charged to (``Fault.admits``); a diagnosis of another function (a
    credited test's own function included) is not told."""
    if clues.raised:
        function, evidence = clues.raised, Evidence.RAISED
    elif clues.answered:
        function, evidence = clues.answered, Evidence.ANSWER
    elif clues.called:
        function, evidence = clues.called, Evidence.CALLED
    else:
        function, evidence = clues.owner, Evidence.OWNER
    names = tuple(dict.fromkeys(str(n) for n in carried_from))
    if names:
        function, evidence = (function if function in names else names[0]), Evidence.CARRIED
    probe = Fault(function, evidence, names)
    return Fault(function, evidence, names, tuple(d for d in diagnoses if probe.admits(d)))


# A test's own parenthetical advice about a step, "(check the drift step)": not told where her
# answers show the random draws repeating (the stream, not the step, is the cause)
STEP_ADVICE = re.compile(r"\s*\((?:check|look at)\b[^()]*\bstep\b[^()]*\)", re.IGNORECASE)


# A credit's note as records of every version wrote it (``carry.NOTE``): its functions, for a
# record written before credits named them apart (read there only).
_OLD_NOTE = re.compile(r"because of your (.+?), which lost points")


def _old_fault(data: dict, kind: Kind, diagnoses: list[Diagnosis]) -> Fault:
    """The fault of a failing test in a record written before faults (``charged_to``,
    ``carried_from``, ``diagnoses``): a credit is charged to the function it follows from; another
    failure to ``charged_to`` (its call raised, for a student error; else its answer failed), or to
    the function it counts for where the record names none. Diagnoses of another function are
    not told (the disagreement a fault rules out)."""
    owner, charged = str(data.get("function") or ""), str(data.get("charged_to") or "")
    if kind is Kind.CARRIED:
        names = [str(n) for n in data.get("carried_from") or []]
        if not names and (m := _OLD_NOTE.search(str(data.get("carried_forward") or ""))):
            names = m.group(1).split(", ")
        if not names:  # nothing says which: charged to no function
            return Fault("", Evidence.CARRIED, (), tuple(d for d in diagnoses if not d.function))
        return decide(Clues(owner=owner), names, diagnoses)
    if not charged:
        return decide(Clues(owner=owner), (), diagnoses)
    student_error = kind in (Kind.STUDENT_ERROR, *TROUBLE) and kind is not Kind.NOT_GRADED
    return decide(Clues(owner=owner, raised=charged if student_error else "",
                        answered="" if student_error else charged), (), diagnoses)


@functools.cache
def _names(cls) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


def _known(cls, data: dict) -> dict:
    """The keys of ``data`` that are fields of ``cls`` (records of older versions carry others)."""
    names = _names(cls)
    return {k: v for k, v in data.items() if k in names}


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class, wherever a test module imports it
    name: str
    points: float
    max_points: float
    passed: bool
    message: str
    detail: str = ""
    carried_forward: str = ""  # failing tests credited: the note naming what the error follows from
    function: str = ""  # the graded function the test counts for (its points are advertised under it)
    kind: Kind = Kind.FAIL
    error: str = ""  # a student error: the kind the grader gave it (``testing.StudentError.kind``)
    # a wrong answer: her value, its call, the expected value (run/shown.py); secret until grades
    # are published, so read only where a student reads after publication
    shown: Shown | None = None
    # a failing test: the function at fault, why, and its diagnoses (``decide``); None for a test
    # passed. A failing test built without one is charged to the function it counts for.
    fault: Fault | None = None
    # a failing test: the numbers it may not show before publication, its hidden inputs and the
    # expected value's (``redact.secrets_of``); None where none were kept (a record written before)
    secrets: list[float] | None = None

    def __post_init__(self):
        if self.passed and self.fault is not None:
            raise ValueError(f"{self.name} passed: no function is at fault")
        if not self.passed and self.fault is None:
            self.fault = decide(Clues(owner=self.function))

    @property
    def troubled(self) -> bool:
        """The student's process could not answer: a timeout, a kill, a crash, or the grader stopped."""
        return self.kind in TROUBLE or self.error in TROUBLED_ERRORS

    @property
    def values(self) -> str:
        """A wrong answer's values in words (``Shown.text``), "" for a test passed or credited: the
        one rule every view applies; read only after publication (the views decide when)."""
        return self.shown.text() if self.shown is not None and not self.passed and not self.carried_forward else ""

    def told_message(self, published: bool) -> str:
        """The message as a student reads it: after publication (``published``) as the test wrote
        it; before, with every hidden input and reference value taken out, a call that showed one
        named by its role (``redact.redact``; a record that kept no secrets loses every number
        written as an argument). Where her answers show the random draws repeating, the test's
        parenthetical advice about a step ("(check the drift step)") is dropped: the diagnosis
        names the stream. The one rule every view applies."""
        msg = self.message
        if any(d.kind is Found.SAME_DRAWS for d in self.diagnoses):
            msg = STEP_ADVICE.sub("", msg)
        if published:
            return msg
        return redact.redact(msg, self.secrets or (), loose=self.secrets is None and not self.passed)

    @property
    def message_before_publication(self) -> str:
        """What a student reads of the message before grades are published (``told_message``)."""
        return self.told_message(published=False)

    @property
    def lead(self) -> str:
        """A failing test with no diagnosis: where her answer is off at the comparison that failed
        (``Shown.lead``: the item, the entry, the sign, the order of magnitude, the shape; no value),
        with its hidden inputs and reference values taken out. "" otherwise."""
        if self.passed or self.carried_forward or self.diagnoses or self.shown is None or not self.shown.lead:
            return ""
        return redact.redact(self.shown.lead, self.secrets or ())

    @property
    def not_implemented(self) -> bool:
        return self.error in ("not_implemented", "missing")

    @property
    def credited(self) -> bool:
        """Failed, and keeps its points: the error carried forward (its fault says from where)."""
        return self.fault is not None and self.fault.credited

    # -- views of the fault (read-only: the fault is the one decision) --------------------------
    @property
    def diagnoses(self) -> list[Diagnosis]:
        """What the answers show of the function at fault (``Fault.diagnoses``)."""
        return list(self.fault.diagnoses) if self.fault is not None else []

    @property
    def charged_to(self) -> str:
        """A failing test not credited: the function at fault ("" for a test passed or credited)."""
        return self.fault.function if self.fault is not None and not self.fault.credited else ""

    @property
    def carried_from(self) -> list[str]:
        """A credited test: the functions it follows from."""
        return list(self.fault.carried_from) if self.fault is not None else []

    @property
    def diagnosis(self) -> str:
        """The diagnoses in the words a student reads ("" for none)."""
        return words(self.diagnoses)

    def hint(self, tell: bool) -> str:
        """The diagnoses in the words a student reads where a known mistake is told (its rule
        text) or only led to (``tell``; decided by ``diagnosis.tells``); without a diagnosis, where
        her answer is off (``lead``)."""
        return words(self.diagnoses, tell) or self.lead

    @property
    def named_hints(self) -> list[str]:
        """The catalogued mistakes the diagnoses name (their hints)."""
        return hints_of(self.diagnoses)

    def to_dict(self) -> dict:
        """Its JSON: ``fault`` (what ``from_dict`` reads), and for older readers and the TA's
        scripts the keys records wrote before faults, derived from it: ``charged_to``,
        ``carried_from``, ``diagnoses``."""
        data = {k: v for k, v in asdict(self).items() if k != "fault"}
        return {**data, "kind": self.kind.value, "shown": self.shown.to_dict() if self.shown is not None else None,
                "fault": self.fault.to_dict() if self.fault is not None else None,
                "charged_to": self.charged_to, "carried_from": self.carried_from,
                "diagnoses": [d.to_dict() for d in self.diagnoses]}

    @classmethod
    def from_dict(cls, data: dict) -> TestResult:
        raw = data
        data = _known(cls, data)
        if data.get("kind") is None:  # a record written before kinds: what its flags and message say
            data["kind"], data["error"] = _old_kind(data)
        kind = Kind(data["kind"])
        fault = None
        if data.get("passed"):
            pass
        elif raw.get("fault") is not None:
            fault = Fault.from_dict(raw["fault"])
        else:  # a record written before faults: its charged_to, carried_from and diagnoses
            diagnoses = ([Diagnosis.from_dict(d) for d in raw["diagnoses"]] if raw.get("diagnoses") is not None
                         else from_old_text(str(raw.get("diagnosis") or "")))  # or before they were data
            fault = _old_fault(raw, kind, diagnoses)
        return cls(**{**data, "kind": kind, "shown": Shown.from_dict(data.get("shown")), "fault": fault})


@dataclass(frozen=True)
class Charge:
    """One function at fault in a grade: its failing tests not credited and the points they lost,
    and the diagnoses of its faults (credited tests' included) for the words."""
    function: str
    tests: tuple[TestResult, ...]
    diagnoses: tuple[Diagnosis, ...] = ()

    @property
    def lost(self) -> float:
        return sum(t.max_points - t.points for t in self.tests)

    def words(self, tell: bool = True) -> list[str]:
        """Its diagnoses' sentences, each once, in order (``tell``: as ``TestResult.hint``), then
        for its tests without a diagnosis where the answer is off (``TestResult.lead``)."""
        said = [s for d in self.diagnoses if (s := sentence(d, tell))]
        return list(dict.fromkeys(said + [t.lead for t in self.tests if t.lead]))


def at_fault(tests) -> list[Charge]:
    """Each function at fault once (``Fault.function``), in the order its first failing test ran,
    with its failing tests that are not credited. A notebook that could not be read is no
    function's fault: its tests are left out (the grader's note says why), unless a diagnosis
    says more. Tests charged to no function (a record that does not say which one a test counts
    for) make one entry, ``""``, where their diagnoses say something."""
    tests = list(tests or [])
    charges: dict[str, list[TestResult]] = {}
    for t in tests:
        if t.fault is not None and not t.fault.credited and (t.error != "invalid_notebook" or t.fault.diagnoses):
            charges.setdefault(t.fault.function, []).append(t)
    out = [Charge(name, tuple(ts), tuple(d for t in tests if t.fault is not None and t.fault.function == name
                                         for d in t.fault.diagnoses))
           for name, ts in charges.items()]
    return [c for c in out if c.function or c.diagnoses]


def credited(tests) -> list[TestResult]:
    """The tests kept by error carried forward, in order."""
    return [t for t in tests or [] if t.credited]


@dataclass
class Answer:
    """A written answer, graded by hand: its question, the points the release gives it (never the
    submission's), the cell it was found in."""
    question: str
    points: float = 0.0
    cell: int | None = None
    text: str = ""
    missing: bool = False  # the notebook has no answer cell for the question
    blank: bool = False    # the cell is empty or still says the placeholder

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Answer:
        return cls(**{"question": "", **_known(cls, data)})


@dataclass(frozen=True)
class Check:
    """A public check as the student sees it: its description, passed or not, and why not.
    ``pending``: it could not run yet, a function it uses is still the release's stub (the
    message names it); a check that fails is not pending."""
    description: str
    passed: bool
    message: str = ""
    pending: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_data(cls, data) -> Check:
        """From a record: a dict, or the ``[description, passed, message]`` of records written
        before checks had a type (their "not yet: " prefix read here only)."""
        if isinstance(data, dict):
            return cls(**{"description": "", "passed": False, **_known(cls, data)})
        description, passed, message = (list(data) + ["", False, ""])[:3]
        pending = not passed and str(message).startswith("not yet: ")
        return cls(str(description), bool(passed), str(message).removeprefix("not yet: ") if pending else str(message),
                   pending)


@dataclass
class FunctionSubtotal:
    """Per graded function: the points the release advertises for it (its tests' points), and the
    points lost in this grade charged to it."""
    function: str
    max_points: float = 0.0
    lost: float = 0.0

    @classmethod
    def from_dict(cls, data: dict) -> FunctionSubtotal:
        return cls(**{"function": "", **_known(cls, data)})


# The format of a report's JSON (``pdl grade --json``) and of a cohort's record files
# (``<out>/records/<student>.json``, ``cohort.record.Record``): its key "format". A file without
# one is format 1 (before the key) and still reads; one newer than this engine is refused.
FORMAT = 2


class NewerFormat(Exception):
    """A report or record written by a newer engine (its ``format`` above ``FORMAT``): refused, never
    read as damaged (a cohort would grade it again over the newer engine's record)."""


def check_format(data: dict, what: str = "report") -> int:
    """``data``'s format (1 where it names none); ``NewerFormat`` where this engine cannot read it."""
    found = data.get("format", 1)
    if not isinstance(found, int) or isinstance(found, bool) or found < 1:
        raise ValueError(f"this {what} has no readable format ({found!r})")
    if found > FORMAT:
        raise NewerFormat(f"this {what} is in format {found}, written by a newer version of the grading engine; "
                          f"this one reads formats up to {FORMAT}: upgrade the engine (pip install -U the course's "
                          "`pdl`, or pull the course repository and run scripts/setup.sh)")
    return found


@dataclass
class GradeReport:
    assignment: str
    submission: str
    score: float = 0.0
    max_score: float = 0.0
    tests: list[TestResult] = field(default_factory=list)
    errors: list = field(default_factory=list)
    version: str = ""
    manual: list[Answer] = field(default_factory=list)  # written answers, for grading by hand
    checks: list[Check] = field(default_factory=list)  # the public checks, when asked for
    public_notes: list = field(default_factory=list)  # the notes known before any hidden test ran
    score_without_carry_forward: float = 0.0  # the score had no error been carried forward
    functions: list[FunctionSubtotal] = field(default_factory=list)  # per graded function
    isolation: str = ""
    seconds: float = 0.0
    grader_mb: float = 0.0     # peak memory of the grader's side (the bounded child), for benchmarks
    grader_cpu_s: float = 0.0  # and its CPU time (the student's process not counted)

    @property
    def unfinished(self) -> bool:
        """Not graded in full: the notebook could not be read, or the grader stopped before every
        test had finished (or before any was collected)."""
        return not self.tests or self.unreadable or any(t.kind is Kind.NOT_GRADED for t in self.tests)

    @property
    def unreadable(self) -> bool:
        """The notebook could not be read (every test failed with that error)."""
        return any(t.error == "invalid_notebook" for t in self.tests)

    def to_dict(self) -> dict:
        return {"format": FORMAT, **asdict(self), "tests": [t.to_dict() for t in self.tests]}

    @classmethod
    def from_dict(cls, data: dict) -> GradeReport:
        """A report (or a cohort's record) from its JSON, of any format up to ``FORMAT``."""
        check_format(data, "record" if cls is not GradeReport else "report")
        data = {"assignment": "", "submission": "", **_known(cls, data)}
        return cls(**{**data, "tests": [TestResult.from_dict(t) for t in data.get("tests") or []],
                      "manual": [Answer.from_dict(m) for m in data.get("manual") or []],
                      "checks": [Check.from_data(c) for c in data.get("checks") or []],
                      "functions": [FunctionSubtotal.from_dict(f) for f in data.get("functions") or []]})

    def write_json(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")
