"""Name the mistake: turn a failing hidden test into feedback that says *why*.

When a hidden test fails, the grader has the answers the student's functions returned on the
test's inputs (``call_log`` of the student proxy: ``(name, args, kwargs, value)``). Here, in the
grader's process (never in the student's), those inputs are replayed on

* each **known mistake**: the reference module with one ``wrong`` cell of the source applied
  (so a wrong helper also changes the functions that call it, as in a student's notebook).
  A mistake is named when the student's answers match it on every call of the test that the
  mistake affects, and the mistake shows on those inputs (it differs from the reference on at
  least one). Functions that draw random numbers match only where the wrong variant is
  deterministic given its inputs, otherwise they are skipped: under a tolerance looser than
  ``LOOSE`` a replay must give the same answer; under a tighter one, random draws cannot
  agree by chance.
  Where several mistakes with different hints match one test, only one already matched alone by
  an earlier test is named (otherwise none is: the student is not sent after a mistake she may
  not have made).
  A mistake is named only on the function it is about: it must show on a function the cell
  redefines (or the student's version of it must have shown it on an earlier test), and not
  where a function the test's functions use answered wrongly on an earlier test in a way the
  cell does not explain (``_matches``).
* the **reference**, when no known mistake matches, for generic diagnoses, each only where it
  holds on every input of the test with margin (``generic``): the same constant factor (named
  when it is 2, 1/2, pi, ...), the sign or an additive constant at every size, transposed,
  wrong shape, nan/inf where finite values are expected, an argument ignored (correct only at
  its default value), one part of the answer wrong, wrong only at -1, 0 or 1, correct below a
  clean threshold only.

Answers match within the loosest tolerance the test passed to ``assert_close`` (the default
when it passed none: ``DEFAULT_RTOL``, ``DEFAULT_ATOL``; never tighter than ``MIN_RTOL``,
``MIN_ATOL``). No text produced here contains a value the reference returned: hints are the
author's words, generic diagnoses name only factors from a fixed list, shapes and argument
names.

Cost: only failing tests are diagnosed, and only where the student's function answered (a
function that raised, hung or is not implemented already has its reason); each wrong cell is
applied once per process (``catalogue``); a test replays at most ``MAX_CALLS`` calls within
``TEST_BUDGET_S``, a submission spends at most ``GRADE_BUDGET_S`` on diagnoses.
``PDL_DIAGNOSE=0`` in the environment (or ``run_hidden_tests(..., diagnose=False)``) turns the
diagnosis off.
"""

from __future__ import annotations

import inspect

import numpy as np

from autograder.run import settings
from autograder.run.diagnose.catalogue import _FAILED, Call, Variant, as_calls, catalogue
from autograder.run.diagnose.compare import _leaves, close, tolerance
from autograder.run.diagnose.generic import _function_diagnosis, _numeric, array_crash, generic
from autograder.run.diagnosis import Diagnosis, Found
from autograder.run.timelimit import Allowance

ENV = "PDL_DIAGNOSE"
MAX_CALLS = 64                           # calls of one test that are replayed
TEST_BUDGET_S = 20.0                     # all replays for one failing test
GRADE_BUDGET_S = settings.DIAGNOSIS_BUDGET_S  # all diagnoses of one submission
LOOSE = 1e-6                             # a looser tolerance: replay once to rule out chance
TIGHTER = 1e-2                           # ... and match within this fraction of it
EXACT = 1e-4                             # a test no looser than this is not statistical


def _shows(answer, expected, rtol, atol) -> bool:
    """Whether ``answer`` differs from ``expected`` where one of them is finite, or is inf where
    nan is expected (a definite value for an undefined case): nan where inf is expected (or inf of
    the other sign) is no evidence of one mistake, many give it."""
    if close(answer, expected, rtol, atol):
        return False
    leaves = list(_leaves(answer, expected))
    if not leaves or any(a is None for _, a, _ in leaves):
        return True
    for _, a, e in leaves:
        if a.shape != e.shape:
            return True
        with np.errstate(all="ignore"):
            finite = np.isfinite(e)  # a tolerance relative to an infinite value would be infinite
            off = np.where(finite, ~(np.abs(a - e) <= atol + rtol * np.abs(np.where(finite, e, 0.0))), a != e)
        differ = off & (np.isfinite(a) | np.isfinite(e) | (np.isinf(a) & np.isnan(e))) & ~(np.isnan(a) & np.isnan(e))
        if np.any(differ):
            return True
    return False


def enabled() -> bool:
    return settings.current().diagnose


def _matches(v: Variant, calls, ref, rtol, atol, evidenced: bool = False, seen_wrong=(),
             reference: Variant | None = None, reach=None, against: list | None = None) -> bool:
    """The student's answers match ``v`` on every call it affects, and the mistake shows there.

    Where the mistake is named matters as much as whether it matches: it must show on a function
    the cell redefines (``evidenced``: or anywhere, the student's own version of that function
    having shown the mistake on an earlier test). A mistake that shows only through a caller (a
    wrong helper changes the functions that use it) is no evidence that the student made it: the
    student's helper may be right and the caller wrong in its own way. Nor is a match evidence
    where a function the test's functions use (in ``reference``, or in the student's code:
    ``reach``) and that the cell leaves alone answered wrongly on an earlier test (``seen_wrong``):
    the cell's answers assume it right."""
    relevant = [i for i, c in enumerate(calls) if v.affects(c.name)]
    if not relevant:
        return False
    def uses(name: str) -> set:  # in the reference, or in the student's code (her mean_shift calls her variance)
        mine = reach(name) if reach is not None else None
        return set(reference.reaches(name) if reference is not None else ()) | set(mine or ())

    if (reference is not None or reach is not None) and any(
            w in uses(calls[i].name) and w != calls[i].name and not v.affects(w)
            for w in seen_wrong for i in relevant):
        return False
    answers = {}
    # under a statistical test's loose tolerance, a match within it may be chance: the replay must
    # match far tighter than the test asks
    mrtol, matol = (rtol, atol) if rtol <= LOOSE and atol <= LOOSE else \
        (max(rtol * TIGHTER, LOOSE), max(atol * TIGHTER, LOOSE))
    for i in relevant:
        answers[i] = v.call(calls[i])
        if answers[i] is _FAILED or not close(calls[i].value, answers[i], mrtol, matol):
            # evidence against it (``against``): on a test that is not statistical, the student's
            # answer at a call the mistake affects is not the mistake's (wrong where it is right,
            # or right where it is wrong): her function is not this mistake
            if against is not None and answers[i] is not _FAILED and rtol <= EXACT and atol <= EXACT \
                    and _shows(calls[i].value, answers[i], rtol, atol):  # nan for nan, or for inf: no evidence
                against.append(v)
            return False
    shows = [i for i in relevant if ref(i) is not _FAILED and _shows(answers[i], ref(i), rtol, atol)]
    if not shows or not (evidenced or any(calls[i].name in v.defined for i in shows)):
        return False
    if rtol <= LOOSE and atol <= LOOSE:
        return True  # random draws cannot agree this closely by chance
    replay = v.call(calls[relevant[0]], fresh=True)  # random draws not fixed by the inputs: no verdict
    return replay is not _FAILED and close(replay, answers[relevant[0]], rtol, atol)


def diagnose(assignment: str, log, tolerances=(), budget_s: float = TEST_BUDGET_S,
             found: list | None = None, reach=None) -> list[Diagnosis]:
    """The diagnoses of one failing test from its calls ([] when there is nothing to say).

    ``found`` (kept by the caller across the tests of one submission) collects what the
    diagnoses learn: the known mistakes matched so far (their indices in the catalogue) and the
    functions that answered wrongly (their names). A test that no single mistake explains is
    then tried against each pair of those mistakes made together (a wrong helper and a wrong
    caller compound); a function seen wrong keeps the mistakes that assume it right from being
    named on its callers (``_matches``); a mistake the student's answers contradicted on an
    earlier test (at a call it affects, in a test that is not statistical, her answer was not the
    mistake's) is not named later, where it may agree with hers on some inputs only.
    ``reach(name)``: the graded functions the student's own ``name`` can call (read from her code;
    None where unknown), for naming the function a wrong answer comes from (``generic._upstream``)."""
    calls = as_calls(log)[:MAX_CALLS]
    if not calls:
        return []
    rtol, atol = tolerance(tolerances)
    cat = catalogue(assignment)
    allowance = Allowance(budget_s)  # CPU time: the same diagnoses at any load
    reference: dict[int, object] = {}
    found = found if found is not None else []
    known = [k for k in found if isinstance(k, int)]
    seen_wrong = {k for k in found if isinstance(k, str)}

    def ref(i):
        if i not in reference:
            reference[i] = cat.reference.call(calls[i])
        return reference[i]

    def findings() -> list[Diagnosis]:
        hits: list[int] = []
        for k, v in enumerate(cat.variants()):
            if allowance.over():
                break
            if ("against", k) in found and k not in known:
                continue  # an earlier test showed the student's answers are not this mistake's
            against: list = []
            if v.hint and v.hint not in [cat.variants()[j].hint for j in hits] and \
                    _matches(v, calls, ref, rtol, atol, k in known, seen_wrong, cat.reference, reach, against):
                hits.append(k)
            elif against and k not in known:
                found.append(("against", k))
        if len(hits) > 1:
            # Mistakes that answer alike on this test: naming them all would send the student after
            # a mistake she did not make. Only one that an earlier test matched alone is named.
            earlier = [k for k in hits if k in known]
            hits = earlier if len(earlier) == 1 else []
            if not hits:
                return generic(cat, calls, ref, rtol, atol, wrong=wrong_functions(), reach=reach)
        found.extend(k for k in hits if k not in found)
        if hits:
            hints = [cat.variants()[k].hint for k in hits]
            lead = _lead(cat, calls, ref, rtol, atol, _defined(cat, hits), allowance)
            return [Diagnosis(Found.KNOWN, lead.get("functions", [""])[0], {"hints": hints, **lead})]
        pairs = [(a, b) for n, a in enumerate(known) for b in known[n + 1:]]
        for pair in pairs:
            if allowance.over():
                return []
            both = cat.combined(pair)
            if both is not None and _matches(both, calls, ref, rtol, atol, True, seen_wrong, cat.reference, reach):
                lead = _lead(cat, calls, ref, rtol, atol, _defined(cat, pair), allowance, symptom=False)
                return [Diagnosis(Found.TOGETHER, lead.get("functions", [""])[0],
                                  {"hints": [cat.variants()[k].hint for k in pair], **lead})]
        if allowance.over():
            return []
        return generic(cat, calls, ref, rtol, atol, wrong=wrong_functions(), reach=reach)

    def wrong_functions() -> set:
        """The functions seen answering wrongly: in earlier tests, or in this one."""
        here = {c.name for i, c in enumerate(calls) if not allowance.over()
                and ref(i) is not _FAILED and not close(c.value, ref(i), rtol, atol)}
        return seen_wrong | here

    out = findings()
    for i, c in enumerate(calls):  # the functions this test saw answer wrongly
        if c.name not in found and not allowance.over() and ref(i) is not _FAILED \
                and not close(c.value, ref(i), rtol, atol):
            found.append(c.name)
    return out




def _defined(cat, ks) -> set:
    """The functions the catalogue's mistakes ``ks`` redefine."""
    return set().union(*(getattr(cat.variants()[k], "defined", set()) for k in ks))


def _symptom(pairs, rtol, atol) -> str:
    """How the answers ``pairs`` [(answer, expected)] differ where they are wrong: a key of
    ``diagnosis.SYMPTOMS`` (too large or too small in magnitude, the wrong sign on every wrong
    entry; nan or inf; another shape), "differs" otherwise."""
    leaves = [(a, e) for x, y in pairs for _, a, e in _leaves(x, y)]
    if any(a is None or np.shape(a) != np.shape(e) for a, e in leaves):
        return "shape"
    if not leaves:
        return "differs"
    a = np.concatenate([np.ravel(x) for x, _ in leaves]).astype(float)
    e = np.concatenate([np.ravel(y) for _, y in leaves]).astype(float)
    if np.any(~np.isfinite(a) & np.isfinite(e)):
        return "nonfinite"
    with np.errstate(all="ignore"):
        off = ~(np.abs(a - e) <= atol + rtol * np.abs(e)) & np.isfinite(a) & np.isfinite(e)
    a, e = a[off], e[off]
    if not a.size:
        return "differs"
    if np.all(a * e < 0):
        return "sign"
    if np.all(np.abs(a) > np.abs(e)):
        return "larger"
    if np.all(np.abs(a) < np.abs(e)):
        return "smaller"
    return "differs"


def _lead(cat, calls, ref, rtol, atol, defined: set, allowance: Allowance, symptom: bool = True) -> dict:
    """The lead of a known mistake (``diagnosis.lead``): the functions it shows on (those of
    ``defined`` that answered wrongly on this test, in the order called; else every function that
    did), and for the first one how many of its calls are wrong, the symptom there, and a generic
    diagnosis of it that holds and says what the answers do (``lead``: its data; ``SYMPTOMS``),
    where there is one within ``allowance``."""
    wrong = [i for i, c in enumerate(calls) if ref(i) is not _FAILED and _shows(c.value, ref(i), rtol, atol)]
    names = list(dict.fromkeys(calls[i].name for i in wrong if calls[i].name in defined)) or \
        list(dict.fromkeys(calls[i].name for i in wrong))
    if not names:
        return {}
    out: dict = {"functions": names}
    if not symptom:
        return out
    f = names[0]
    mine = [i for i, c in enumerate(calls) if c.name == f and ref(i) is not _FAILED]
    bad = [i for i in mine if i in wrong]
    out.update(symptom=_symptom([(calls[i].value, ref(i)) for i in bad], rtol, atol), wrong=len(bad), calls=len(mine))
    if not allowance.over():
        try:
            d = _function_diagnosis(cat, f, calls, mine, ref, rtol, atol)
        except Exception:  # noqa: BLE001 - a lead without a generic diagnosis
            d = None
        if d is not None and d.kind in SYMPTOMS:
            out["lead"] = d.to_dict()
    return out


# generic diagnoses that say what the answers do, not why (a replayed guess at the cause: a term,
# an argument unused, an off-by-one): what a known mistake's lead may say
SYMPTOMS = {Found.FACTOR, Found.SOME_FACTOR, Found.SIGN, Found.SHIFT, Found.POWER, Found.RELATION, Found.PARTS,
            Found.SPECIAL, Found.SMALL_ONLY, Found.NONFINITE, Found.TRANSPOSE, Found.SHAPE, Found.STRUCTURE}


MAX_ENTRIES = 3  # entries of an array input tried one at a time, for a crash on arrays


def arrays_only(assignment: str, student, raised, tolerances=()) -> list[Diagnosis]:
    """"Works for single numbers, fails for arrays" (``Found.ARRAY_CRASH``), from one call that
    raised (``raised``: (name, args, kwargs)) and a counterfactual: the same call made again with
    each array argument replaced by one of its entries (at most ``MAX_ENTRIES``), where the
    reference answers elementwise (its answer has that argument's shape, and its answer at an
    entry is its answer's entry). The claim needs the student's function to answer each such call
    and to be right there; [] otherwise. ``student``: the proxy of the student's functions (the
    calls go to her process, with entries of inputs the test already sent)."""
    name, args, kwargs = raised
    cat = catalogue(assignment)
    rtol, atol = tolerance(tolerances)
    expected = cat.reference.call(Call(name, tuple(args), dict(kwargs), None))
    e = _numeric(expected) if expected is not _FAILED else None
    if e is None or e.ndim < 1 or e.size < 1:
        return []
    fn = cat.reference.ns.get(name)
    try:
        sig = inspect.signature(fn) if callable(fn) else None
        bound = sig.bind(*args, **kwargs) if sig is not None else None
    except (TypeError, ValueError):
        return []
    if sig is None or bound is None:
        return []
    along = [p for p, x in bound.arguments.items() if (a := _numeric(x)) is not None and a.ndim >= 1
             and a.shape == e.shape]
    if not along:
        return []
    flat = e.ravel()
    answered = []
    for j in sorted({0, flat.size // 2, flat.size - 1})[:MAX_ENTRIES]:
        one = dict(bound.arguments)
        for p in along:
            one[p] = np.asarray(one[p]).ravel()[j].item()
        moved = inspect.BoundArguments(sig, one)
        call = Call(name, moved.args, moved.kwargs, None)
        want = cat.reference.call(call)
        if want is _FAILED or not close(want, flat[j], rtol, atol):
            return []  # not elementwise in these arguments: no telling
        try:
            got = getattr(student, name)(*moved.args, **moved.kwargs)
        except Exception:  # noqa: BLE001 - it fails on single numbers too: another mistake
            return []
        answered.append(Call(name, moved.args, moved.kwargs, got))
    d = array_crash(cat, name, answered, [Call(name, tuple(args), dict(kwargs), None)], rtol, atol)
    return [d] if d is not None else []
