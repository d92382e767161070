"""A failing test's diagnosis as data (issue 33), and the one place it becomes words.

The diagnosis engine (``autograder.run.diagnose``) finds *what* the answers show: a known mistake
of the catalogue, or a generic pattern (a constant factor, a transpose, an argument ignored...).
It returns ``Diagnosis(kind, function, params)`` values; they travel in a failing test's
``record.Fault`` (only those about the function at fault) through the bounded child, the pool,
dask and the record file as JSON. Code that needs to know what was found reads the kind and the
parameters (the cohort's mistake counts read ``hints``, the diagnosis benchmark checks each claim
from its parameters); only a page, a results file or a terminal turns them into sentences, with
``words``.

Parameters hold names of arguments, factors from a fixed list, shapes and parts, never a value
the reference returned (``autograder.run.diagnose.leaks`` checks the words).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Found(str, Enum):
    """What a diagnosis says, one kind per sentence the student can read."""
    KNOWN = "known"                # catalogued mistakes (``hints``: their authors' texts); one of them
    TOGETHER = "together"          # catalogued mistakes made together (``hints``)
    STRUCTURE = "structure"        # ``what``: what the function returns instead (a tuple where...)
    TRANSPOSE = "transpose"        # the transpose of the expected matrix
    SHAPE = "shape"                # ``got`` and ``want``: the shapes
    NONFINITE = "nonfinite"        # nan or inf where finite values are expected (``p``: for large p)
    IGNORED = "ignored"            # the argument ``p`` ignored (as if at its default)
    DEFAULT_ONLY = "default_only"  # correct only at ``p``'s default
    SIGN = "sign"                  # the opposite sign everywhere
    FACTOR = "factor"              # ``factor``: a named constant factor
    SOME_FACTOR = "some_factor"    # one constant factor, not a named one
    SHIFT = "shift"                # an additive constant
    POWER = "power"                # ``powers``: {argument: power}, a factor that is their product
    RELATION = "relation"          # ``relation``: one of RELATIONS (1 minus, the reciprocal, ...)
    OFF_BY_ONE = "off_by_one"      # the answer at ``p`` + ``d`` (d = ±1)
    PARTS = "parts"                # ``parts``: the paths of the wrong parts, the rest right
    SPECIAL = "special"            # wrong only where ``p`` is one of ``values`` (-1, 0, 1)
    SMALL_ONLY = "small_only"      # right below a threshold in ``p`` (``how``: magnitude or entries)
    UPSTREAM = "upstream"          # ``upstream``: functions it uses that answered wrongly (fix them first)
    TERM = "term"                  # one term of a sum ``how``: "missing" or "sign"; ``involves``: its arguments
    UNUSED = "unused"              # the answer does not change with ``p`` where the expected one does
    BESSEL = "bessel"              # off by (M-1)/M (``d`` = -1) or M/(M-1) (``d`` = 1), M from ``p`` (``how``)
    SAME_DRAWS = "same_draws"      # identical answers where fresh random draws are expected (a re-seeded stream)
    ARRAY_CRASH = "array_crash"    # right on scalar inputs, raises on array ones (``p``: the array argument)
    TEXT = "text"                  # a record written before diagnoses were data: its ``text``

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Diagnosis:
    """What one failing test's answers show of ``function`` (a graded function; "" where it names
    none: a record written before diagnoses named one). Frozen: a ``record.Fault`` holds only
    diagnoses of its own function, and one cannot be renamed once in it."""
    kind: Found
    function: str = ""
    params: dict = field(default_factory=dict)

    @property
    def hints(self) -> list[str]:
        """The catalogued mistakes it names (their hints), none for a generic diagnosis."""
        return list(self.params.get("hints") or []) if self.kind in (Found.KNOWN, Found.TOGETHER) else []

    def to_dict(self) -> dict:
        return {"kind": self.kind.value, "function": self.function, "params": self.params}

    @classmethod
    def from_dict(cls, data: dict) -> Diagnosis:
        return cls(Found(data["kind"]), str(data.get("function") or ""), dict(data.get("params") or {}))


# -- words --------------------------------------------------------------------------------------
KNOWN = "Your results match a known mistake: "
TOGETHER = "Your results match known mistakes made together: "
RELATIONS = {  # what the answer is, of the expected value: where to look
    "1 minus": "check that you compute the quantity asked for and not its complement (the other case, 1 - p).",
    "the reciprocal of": "check for a ratio taken the wrong way round (a division inverted).",
    "the square of": "check for a square too many (a variance where a standard deviation is meant, σ² where σ is).",
    "the square root of": "check for a missing square (a standard deviation where a variance is meant, σ where σ² is).",
}
_ROOTS = {-2.0: ("", "²"), -1.0: ("", ""), -0.5: ("√", ""), 0.5: ("√", ""), 1.0: ("", ""), 2.0: ("", "²")}


def named(p: str) -> str:
    """An argument as a sentence names it: `beta`, or "argument 2" where only its position is known."""
    return f"`{p}`" if not p.startswith("#") else f"argument {int(p[1:]) + 1}"


def monomial(powers: dict) -> str:
    """{"N": -0.5} -> "1/√`N`"; {"N": 1, "beta": 1} -> "`N`·`beta`"; {"N": 1, "d": -1} -> "`N`/`d`"."""
    def term(p, k):
        root, square = _ROOTS[float(k)]
        return f"{root}`{p}`{square}"
    num = [term(p, k) for p, k in powers.items() if k > 0]
    den = [term(p, k) for p, k in powers.items() if k < 0]
    top = "·".join(num) if num else "1"
    if not den:
        return top
    return f"{top}/{den[0]}" if len(den) == 1 else f"{top}/({'·'.join(den)})"


SYMPTOMS = {  # how a known mistake's answers differ from the expected ones, in a lead
    "larger": "too large in magnitude",
    "smaller": "too small in magnitude",
    "sign": "of the wrong sign",
    "nonfinite": "nan or inf where finite values are expected",
    "shape": "not of the expected shape or structure",
    "differs": "not the expected values",
}


_REGIONS = {  # where a branch answers nan or inf (``NONFINITE`` with ``branch``), in words without inputs
    "value": "where {p} = {values}",
    "largest": "for the largest values of {p} in this test",
    "smallest": "for the smallest values of {p} in this test",
    "positive": "where {p} is positive",
    "negative": "where {p} is negative",
}


def tells(mode: str, *, published: bool, resubmissions: int = 0) -> bool:
    """Whether a student reads a known mistake's rule text (its catalogued hint), or only its
    lead (the place and the symptom): the one place that decides (``course_config.HINTS``,
    ``settings.HINT_MODES``). ``published``: she reads it after grades are published;
    ``resubmissions``: how many submissions she made before this one."""
    if mode == "tell-after-publication":
        return published
    if mode == "tell-on-resubmission":
        return resubmissions >= 2
    return False  # "lead"


def lead(d: Diagnosis) -> str:
    """What a student reads first for a known mistake (``KNOWN``, ``TOGETHER``): where it shows
    and what the answers do there, never the rule or a formula (nor a value)."""
    q = d.params
    if q.get("lead"):  # a generic diagnosis of the same function that holds: the symptom in its words
        return sentence(Diagnosis.from_dict(q["lead"]))
    functions = [str(f) for f in q.get("functions") or ([d.function] if d.function else [])]
    if d.kind is Found.TOGETHER and len(functions) > 1:
        both = " and ".join(f"`{f}`" for f in functions)
        return (f"{both} both answer wrongly on this test, in a way that two mistakes made together "
                "explain: compare each step of each with the notes.")
    if not functions:
        return ("The answers on this test show a mistake others have made too: compare each step "
                "of the functions this test calls with the notes.")
    f = functions[0]
    symptom = SYMPTOMS.get(str(q.get("symptom")), SYMPTOMS["differs"])
    count = (f" on {q['wrong']} of the {q['calls']} calls of this test" if q.get("wrong") and q.get("calls")
             else " on this test")
    return (f"{f} is wrong{count}: its answers there are {symptom}. Compare each step of {f} with "
            "the notes (a mistake others have made too).")


def sentence(d: Diagnosis, tell: bool = True) -> str:
    """The sentence a student reads for one diagnosis; for a known mistake its rule text
    (``tell``) or its lead (``lead``)."""
    f, q = d.function, d.params
    k = d.kind
    if k in (Found.KNOWN, Found.TOGETHER) and not tell:
        return lead(d)
    if k is Found.KNOWN:
        return KNOWN + " Or this one: ".join(d.hints)
    if k is Found.TOGETHER:
        return TOGETHER + " And: ".join(d.hints)
    if k is Found.TEXT:
        return str(q.get("text", ""))
    if k is Found.STRUCTURE:
        return f"{f} returns {q['what']} (see the docstring for what it returns)."
    if k is Found.TRANSPOSE:
        return f"{f} returns the transpose of the expected matrix (rows and columns swapped)."
    if k is Found.SHAPE:
        return f"{f} returns an array of shape {tuple(q['got'])} where shape {tuple(q['want'])} is expected."
    if k is Found.NONFINITE:
        where = f" for large {named(q['p'])}" if q.get("p") and not q.get("branch") else ""
        if q.get("branch"):  # not at a limit point: no arithmetic advice, the region it answers in
            region = _REGIONS.get(str(q.get("region")), "")
            if region and q.get("p"):
                values = " or ".join(f"{v:g}" for v in q.get("values") or [])
                at = region.format(p=named(q["p"]), values=values)
                return (f"{f} returns nan or inf {at}, where finite values are expected (the expected "
                        "values are ordinary numbers there, not a limit): check which case or branch of "
                        "your code these inputs reach and what it returns.")
            return (f"{f} returns nan or inf on some inputs of this test where finite values are "
                    "expected: check which case of your code these inputs reach.")
        return (f"{f} returns nan or inf{where} where finite values are expected: look for 0 log 0, "
                "0/0, the log of 0 or an exp that overflows, and use the limiting value there.")
    if k is Found.IGNORED:
        return (f"{f} answers as if the argument `{q['p']}` always had its default value: "
                f"check that your code uses `{q['p']}`.")
    if k is Found.DEFAULT_ONLY:
        return f"{f} is correct only when `{q['p']}` has its default value: check how your code uses `{q['p']}`."
    if k is Found.SIGN:
        return f"{f} is correct up to the sign: every value has the opposite sign."
    if k is Found.FACTOR:
        c = q["factor"]
        return (f"{f} is off by the same factor {c} on every input: your values are "
                f"{c} times the expected ones (a missing or extra constant or normalization).")
    if k is Found.SOME_FACTOR:
        return (f"{f} is off by the same constant factor on every input: look for a missing or "
                "extra constant or normalization.")
    if k is Found.SHIFT:
        return f"{f} is off by the same additive constant on every input: look for a missing or extra constant term."
    if k is Found.POWER:
        m = monomial(q["powers"])
        return (f"{f} is off by a factor {m} on every input of this test: your values are {m} "
                "times the expected ones (a normalization that depends on the arguments: a sum where a "
                "mean is meant, 1/N where 1/√N is meant, a power too many or too few).")
    if k is Found.RELATION:
        return f"{f} returns {q['relation']} the expected value on every input of this test: {RELATIONS[q['relation']]}"
    if k is Found.OFF_BY_ONE:
        p, more = q["p"], q["d"] > 0
        return (f"{f} answers as if `{p}` were one {'more' if more else 'less'} on every input of this "
                f"test (`{p}` {'+' if more else '-'} 1 in place of `{p}`): check the bounds of your loops "
                "and ranges (an off-by-one).")
    if k is Found.PARTS:
        parts = q["parts"]
        which = ", ".join(f"`{f}(...){p}`" for p in parts)
        return (f"{which} {'is' if len(parts) == 1 else 'are'} wrong, and the rest of what {f} returns "
                "is right on every input of this test: look at how your code computes that part.")
    if k is Found.SPECIAL:
        where = " or ".join(f"{named(q['p'])} = {v:g}" for v in q["values"])
        return (f"{f} is wrong only where {where}, and right at every other input of this test: "
                "check that case (a limit, a convention such as 0 log 0 = 0, a division by zero, "
                "an index at the boundary).")
    if k is Found.SMALL_ONLY:
        what = f"{named(q['p'])} is small" if q["how"] == "magnitude" else f"{named(q['p'])} has few entries"
        return (f"{f} is right when {what} and wrong for every larger one in this test: check what "
                "in your code changes as it grows (a case treated apart, the bound of a sum or loop, "
                "a grid or series cut short, an overflow).")
    if k is Found.UPSTREAM:
        ups = " and ".join(f"{u}" for u in q["upstream"])
        return (f"{f} uses {ups}, whose answers are wrong: fix {ups} first ({f} may well be right; its "
                "answers are wrong through what it is given).")
    if k is Found.TERM:
        about = (" (a term that involves " + " and ".join(named(p) for p in q["involves"]) + ")") \
            if q.get("involves") else ""
        what = "is missing" if q["how"] == "missing" else "has the wrong sign"
        return (f"{f} is off by one term on every input of this test: one term of a sum{about} {what}. "
                "Check each term of your formula against the notes.")
    if k is Found.UNUSED:
        return (f"{f} gives the same answer when only {named(q['p'])} changes, where the expected answer "
                f"changes: check that your code uses {named(q['p'])} (and not a default or a global).")
    if k is Found.BESSEL:
        m = f"the length of {named(q['p'])}" if q.get("how") == "entries" else named(q["p"])
        ratio = "(M-1)/M" if q["d"] < 0 else "M/(M-1)"
        ratio = f"√({ratio})" if q.get("root") else ratio
        return (f"{f} is off by a factor {ratio} on every input of this test, with M = {m}: check the "
                "normalization of your sample statistic (divide by M - 1 for an unbiased estimate, "
                "count M(M-1) distinct pairs, not M²).")
    if k is Found.SAME_DRAWS and q.get("how") == "steps":
        return (f"{f}: the random draws repeat from step to step (every step's increment is a multiple "
                "of the same vector, where fresh draws give independent increments): a generator "
                "re-created with the same seed inside the loop? Create it once, before the loop.")
    if k is Found.SAME_DRAWS:
        return (f"{f} returns the same sample again and again (identical along one axis) where independent "
                "random samples are expected: check that every sample gets fresh random draws (the random "
                "generator created once, not re-seeded at every step, network or layer).")
    if k is Found.ARRAY_CRASH:
        where = f" when {named(q['p'])} is an array" if q.get("p") else " on array inputs"
        return (f"{f} works for single numbers but fails{where}: use numpy operations (np.where, "
                "np.log, np.sum) that act on whole arrays, not Python's if, math or loops over scalars.")
    raise ValueError(f"no words for a diagnosis of kind {k}")


def words(diagnoses, tell: bool = True) -> str:
    """What a student reads for a test's diagnoses: their sentences, in order ("" for none); a
    known mistake told (its rule text) or led to (``tell``: decided by ``tells``)."""
    return " ".join(sentence(d, tell) for d in diagnoses)


def hints_of(diagnoses) -> list[str]:
    """The catalogued mistakes that diagnoses name, in order."""
    return [h for d in diagnoses for h in d.hints]


def from_old_text(text: str) -> list[Diagnosis]:
    """The diagnoses of a record written when they were sentences: a known mistake's prefix names
    its hints; any other text is kept as it was written."""
    if not text:
        return []
    for kind, prefix, sep in ((Found.KNOWN, KNOWN, " Or this one: "), (Found.TOGETHER, TOGETHER, " And: ")):
        if text.startswith(prefix):
            return [Diagnosis(kind, params={"hints": text[len(prefix):].split(sep)})]
    return [Diagnosis(Found.TEXT, params={"text": text})]
