"""Generic diagnoses, tried when no known mistake matches: a constant factor, a sign, an additive
constant, transposed, the wrong shape, nan/inf, an argument ignored, one part of the answer
wrong, wrong only at a special input, right only for small inputs. They name only factors from
a fixed list, shapes, parts and argument names, never a value.

A generic diagnosis is a claim about every input of the test, so it is made only where the
recorded answers show it with margin (a wrong claim misleads more than no claim):

* a constant factor (or the sign, or an additive constant) only when it is the same on every
  input within ``TIGHT`` (relative), on at least ``MIN_POINTS`` distinct inputs, and every
  numeric argument the test passes takes at least two sizes among them (``_varied``): a factor
  seen at one ``N`` only may well depend on ``N``;
* "right for small inputs only" only with a clean threshold in one argument: every input below
  it right, every one above it wrong, at least ``MIN_SIDE`` on each side, and more inputs than
  a chance split would explain (``CHANCE``);
* "wrong only where x = 0" (or -1, 1) only when every wrong input, and no right one, is there,
  with at least ``MIN_SIDE`` right inputs elsewhere;
* "this part is wrong, the rest right" (an entry of a tuple or dict, entries of a fixed-length
  array) only when the rest is right on every call;
* an argument ignored only when the reference with that argument at its default gives the
  student's answer on every call that sets it (at least two calls where it matters);
  "correct only at the default" only when every call at the default is right, every other one
  wrong, with at least two of each and two values other than the default.

``autograder.course.diagnosis_quality`` checks each claim against the reference on the course's
own mistakes (``benchmarks/diagnosis_quality.py``).
"""

from __future__ import annotations

import inspect
import itertools
import math
import re
from dataclasses import dataclass

import numpy as np

from autograder.run.diagnose.catalogue import _FAILED, Call
from autograder.run.diagnose.compare import _leaves, close
from autograder.run.diagnose.mutants import term_mutant
from autograder.run.diagnose.streams import repeated_steps
from autograder.run.diagnosis import Diagnosis, Found
from autograder.run.protocol import ProtocolError
from autograder.run.testing import StudentError

_FACTORS = [("2", 2.0), ("1/2", 0.5), ("3", 3.0), ("1/3", 1 / 3), ("4", 4.0), ("1/4", 0.25),
            ("π", math.pi), ("1/π", 1 / math.pi), ("2π", 2 * math.pi), ("1/(2π)", 1 / (2 * math.pi)),
            ("√2", math.sqrt(2)), ("1/√2", 1 / math.sqrt(2)), ("√π", math.sqrt(math.pi)),
            ("1/√π", 1 / math.sqrt(math.pi)), ("√(2π)", math.sqrt(2 * math.pi)),
            ("1/√(2π)", 1 / math.sqrt(2 * math.pi)), ("e", math.e), ("1/e", 1 / math.e),
            ("log 2", math.log(2)), ("1/log 2", 1 / math.log(2)), ("log 10", math.log(10)),
            ("1/log 10", 1 / math.log(10))]
_FACTORS += [("-" + k, -v) for k, v in _FACTORS] + [("-1", -1.0)]

TIGHT = 1e-7        # relative spread allowed in a constant factor or shift (round-off, not a method)
FLOOR = 1e-10       # ... relative to the largest value, for entries near zero
MIN_POINTS = 3      # distinct inputs a factor or shift must hold on
MIN_SIDE = 3        # inputs on each side of a "small inputs only" threshold
CHANCE = 20         # ... and no split as clean by chance once in CHANCE (for all orderings tried)


def _factor_name(c: float) -> str | None:
    for label, value in _FACTORS:
        if abs(c - value) <= 1e-6 * abs(value):
            return label
    return None


def _finite_arrays(obj, skip_bools: bool = False):
    """The finite numbers of each leaf of a nested value (dicts, tuples, lists), as flat arrays."""
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack += list(x.values())
        elif isinstance(x, (tuple, list)):
            stack += list(x)
        elif not (skip_bools and isinstance(x, (bool, np.bool_))):
            try:
                arr = np.asarray(x, dtype=float).ravel()
            except (TypeError, ValueError):
                continue
            yield arr[np.isfinite(arr)]


# -- the inputs of a test, one point per independent input ------------------------------------
@dataclass
class _Point:
    """One independent input: a call, or one entry of an elementwise call (an array argument
    with the answer's shape). ``keys``: each numeric argument's identity as a size (a number's
    value, an integer array's content, a float array's shape; an entry's value when
    elementwise); ``sizes``: orderings of the arguments (``p``: magnitude, ``p#``: entries)."""
    keys: dict
    sizes: dict
    a: np.ndarray
    e: np.ndarray
    ok: bool
    passed: set  # the arguments the call passed (the others are at their default)
    ends: frozenset = frozenset()  # the arguments with a value (or an array's end) at -1, 0 or 1


def _arguments(cat, name, call) -> tuple[dict, set]:
    """The call's arguments by parameter name, defaults included (by position where the
    reference cannot bind them), and the names of those it passed."""
    try:
        bound = inspect.signature(cat.reference.ns.get(name)).bind(*call.args, **call.kwargs)
    except (TypeError, ValueError):
        args = {**{f"#{k}": v for k, v in enumerate(call.args)}, **call.kwargs}
        return args, set(args)
    passed = set(bound.arguments)
    bound.apply_defaults()
    return dict(bound.arguments), passed


def _numeric(x):
    """``x`` as a float or int array, or None (flags, names, functions, ragged data)."""
    if isinstance(x, (bool, np.bool_, str, bytes)) or x is None or isinstance(x, dict):
        return None
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):
        return None
    return arr if arr.dtype.kind in "iuf" else None


def _key_and_sizes(p, x) -> tuple[object, dict]:
    arr = _numeric(x)
    if arr is None:
        return None, {}
    finite = arr[np.isfinite(arr)] if arr.dtype.kind == "f" else arr
    magnitude = float(np.abs(finite).max()) if finite.size else math.nan
    if arr.ndim == 0:
        return float(arr), {p: magnitude}
    key: tuple
    if arr.dtype.kind in "iu":
        key = ("int", arr.shape, arr.tobytes() if arr.size <= 4096 else arr.size)
    else:
        key = ("shape", arr.shape)
    return key, {p: magnitude, p + "#": float(arr.size)}


def _points(cat, name, calls, pairs, rtol, atol) -> list[_Point] | None:
    """The independent inputs of the calls ``pairs`` [(i, answer, expected)], or None where an
    answer's structure differs from the expected one."""
    out = []
    for i, a, e in pairs:
        leaves = list(_leaves(a, e))
        if any(x is None for _, x, _ in leaves):
            return None
        if any(x.size != y.size for _, x, y in leaves):
            return None
        args, passed = _arguments(cat, name, calls[i])
        keys, sizes = {}, {}
        for p, x in args.items():
            keys[p], s = _key_and_sizes(p, x)
            sizes.update(s)
        ends = frozenset(p for p, x in args.items() if p in passed and _at_an_end(x))
        if len(leaves) == 1 and leaves[0][2].ndim >= 1:
            e_arr, a_arr = leaves[0][2], leaves[0][1].reshape(leaves[0][2].shape)
            elementwise = {}
            for p, x in args.items():
                arr = _numeric(x)
                if arr is not None and arr.shape == e_arr.shape:
                    elementwise[p] = arr.astype(float).ravel()
            if elementwise:
                for j, (u, v) in enumerate(zip(a_arr.ravel(), e_arr.ravel())):
                    k = {**keys, **{p: float(arr[j]) for p, arr in elementwise.items()}}
                    s = {**sizes, **{p: abs(float(arr[j])) for p, arr in elementwise.items()}}
                    for p in elementwise:
                        s.pop(p + "#", None)
                    out.append(_Point(k, s, np.array([u]), np.array([v]), close(u, v, rtol, atol), passed,
                                      (ends - set(elementwise))
                                      | {p for p in elementwise if k[p] in SPECIAL}))
                continue
        a_flat = np.concatenate([x.ravel() for _, x, _ in leaves]) if leaves else np.array([])
        e_flat = np.concatenate([y.ravel() for _, _, y in leaves]) if leaves else np.array([])
        out.append(_Point(keys, sizes, a_flat, e_flat, close(a, e, rtol, atol), passed, ends))
    return out


def _at_an_end(x) -> bool:
    """A number at -1, 0 or 1, or an array whose smallest or largest entry is: a limit point
    where a formula may give 0 log 0 or 0/0."""
    arr = _numeric(x)
    if arr is None or not arr.size:
        return False
    with np.errstate(all="ignore"):
        ends = (float(np.nanmin(arr)), float(np.nanmax(arr)))
    return any(v in SPECIAL for v in ends)


def _broadcast_entries(cat, name, calls, pairs):
    """Per leaf of each answer: (off, {argument: its value at each entry}) where ``off`` marks the
    entries that are nan or inf where the expected one is finite, an argument's value read at an
    entry where it broadcasts to the answer's shape (a number everywhere; an array that does not
    broadcast is left out), random seeds left out. None where an answer's structure differs."""
    out = []
    for i, a, e in pairs:
        args, passed = _arguments(cat, name, calls[i])
        args = {p: x for p, x in args.items() if p in passed and not RANDOM.search(p)}
        for _, x, y in _leaves(a, e):
            if x is None or x.shape != y.shape or y.size > 1_000_000:
                continue
            with np.errstate(all="ignore"):
                off = ~np.isfinite(x) & np.isfinite(y)
            values, unmapped = {}, {}
            for p, x_arg in args.items():
                arr = _numeric(x_arg)
                if arr is None or not arr.size:
                    continue
                try:
                    values[p] = np.broadcast_to(arr.astype(float).ravel()[0] if arr.size == 1 else arr.astype(float),
                                                y.shape)
                except ValueError:
                    unmapped[p] = arr
            out.append((off, values, unmapped))
    return out


def _at_limit(cat, name, calls, pairs) -> bool:
    """Whether every entry of the answers that is nan or inf where the expected one is finite sits
    at a limit point: an argument of its call at -1, 0 or 1 where that entry is computed (a number;
    an array that broadcasts to the answer's shape, read at that entry; an array that does not,
    at its smallest or largest entry), a random seed not counting. Arithmetic (0 log 0, 0/0, the
    log of 0) gives a non-finite value there; a branch that returns one at an ordinary input is
    another mistake, and no such entry is a limit point."""
    entries = _broadcast_entries(cat, name, calls, pairs)
    if not any(np.any(off) for off, _, _ in entries):
        return False
    for off, values, unmapped in entries:
        if not np.any(off):
            continue
        at = np.zeros(off.shape, dtype=bool)
        for v in values.values():
            at |= np.isin(v, SPECIAL)
        if any(_at_an_end(arr) for arr in unmapped.values()):
            at |= True
        if not np.all(at[off]):
            return False
    return True


def _nonfinite_region(cat, name, calls, pairs) -> dict | None:
    """Where the answers are nan or inf and the expected ones finite, in words that show no input:
    {"p", "region"} with region "value" (every such entry, and no other, has ``p`` at one of
    -1, 0, 1: ``values``), "largest" or "smallest" (they have the largest or the smallest ``p`` of
    the test), "positive" or "negative", with ``MIN_SIDE`` entries or more that are nan or inf and
    as many distinct values of ``p`` where the answer is finite; None where no argument sets them apart."""
    bad: dict[str, list] = {}
    fine: dict[str, list] = {}
    names: set = set()
    entries = _broadcast_entries(cat, name, calls, pairs)
    for _off, values, _ in entries:
        names |= set(values)
    for off, values, _ in entries:
        for p in names:
            if p not in values:  # not read at every entry: not a region of it
                bad.setdefault(p, []).append(np.array([np.nan]))
                continue
            bad.setdefault(p, []).append(values[p][off])
            fine.setdefault(p, []).append(values[p][~off])
    for p in sorted(names):
        u = np.concatenate(bad.get(p) or [np.array([])])
        v = np.concatenate(fine.get(p) or [np.array([])])
        if not u.size or not v.size or not (np.all(np.isfinite(u)) and np.all(np.isfinite(v))):
            continue
        su = set(u.tolist())
        if u.size < MIN_SIDE or len(set(v.tolist())) < MIN_SIDE:  # a region needs inputs on each side
            continue
        if su <= set(SPECIAL) and not su & set(v.tolist()):
            return {"p": p, "region": "value", "values": sorted(su)}
        if u.min() > v.max():
            return {"p": p, "region": "positive" if u.min() > 0 >= v.max() else "largest"}
        if u.max() < v.min():
            return {"p": p, "region": "negative" if u.max() < 0 <= v.min() else "smallest"}
    return None


def _isolated(points, p: str) -> bool:
    """Whether a right input and a wrong one differ in the argument ``p`` alone, every other
    argument the same: the counterfactual that isolates ``p`` as the deciding one."""
    def rest(pt):
        return tuple(sorted((q, repr(k)) for q, k in pt.keys.items() if q != p))
    return bool({rest(pt) for pt in points if pt.ok} & {rest(pt) for pt in points if not pt.ok})


def _parity_splits(good: list, bad: list) -> bool:
    """Whether the parity of integer sizes splits right from wrong as well (a simpler pattern)."""
    values = good + bad
    if not all(float(v).is_integer() for v in values):
        return False
    return len({int(v) % 2 for v in good}) == 1 and len({int(v) % 2 for v in bad}) == 1 and \
        {int(v) % 2 for v in good} != {int(v) % 2 for v in bad}


def _distinct(points) -> int:
    return len({tuple(sorted((p, repr(k)) for p, k in pt.keys.items())) for pt in points})


def _varied(points) -> bool:
    """At least ``MIN_POINTS`` distinct inputs, and every numeric argument takes at least two
    sizes among them (an argument no call passes is not an input of the test): what a claim
    "the same on every input" needs to mean more than one size."""
    if _distinct(points) < MIN_POINTS:
        return False
    params = {p for pt in points for p in pt.passed if pt.keys.get(p) is not None}
    return all(len({repr(pt.keys.get(p)) for pt in points}) >= 2 for p in params)


def _constant(points, shift: bool) -> float | None:
    """The factor c with answers = c * expected on every point (``shift``: the constant d with
    answers = expected + d), within ``TIGHT``; None when there is none or it is 1 (0)."""
    a = np.concatenate([pt.a for pt in points]) if points else np.array([])
    e = np.concatenate([pt.e for pt in points]) if points else np.array([])
    if not a.size or not (np.all(np.isfinite(a)) and np.all(np.isfinite(e))):
        return None
    big = float(np.abs(e).max())
    if big == 0:
        return None
    if shift:
        c = float(np.median(a - e))
        model = e + c
        if abs(c) <= max(1e-6 * big, 1e-12):
            return None
    else:
        scale = np.abs(e) > 1e-3 * big
        c = float(np.median(a[scale] / e[scale]))
        model = c * e
        if abs(c - 1) <= 1e-6 or c == 0:
            return None
    room = TIGHT * np.abs(model) + FLOOR * max(float(np.abs(model).max()), big)
    return c if np.all(np.abs(a - model) <= room) else None


def _threshold(points) -> tuple[str, str] | None:
    """(argument, "magnitude" or "entries") where every right input is smaller than every wrong
    one, with at least ``MIN_SIDE`` of each and too many inputs for chance: were right and wrong
    drawn at random, no ordering tried would split them cleanly once in ``CHANCE``. None otherwise."""
    good = [pt for pt in points if pt.ok]
    bad = [pt for pt in points if not pt.ok]
    orderings = sorted({p for pt in points for p in pt.sizes})
    if len(good) < MIN_SIDE or len(bad) < MIN_SIDE or math.comb(len(points), len(good)) < CHANCE * len(orderings):
        return None
    for p in orderings:
        small = [pt.sizes.get(p, math.nan) for pt in good]
        large = [pt.sizes.get(p, math.nan) for pt in bad]
        if not (np.all(np.isfinite(small + large)) and max(small) < min(large)):
            continue
        # a size claim needs more than one size on each side (right only at 0 is another
        # pattern), no simpler split (parity), and a right and a wrong input that differ in
        # that size alone
        if len(set(small)) < 2 or len(set(large)) < 2 or _parity_splits(small, large) \
                or not _isolated(points, p.rstrip("#")):
            continue
        return p.rstrip("#"), "entries" if p.endswith("#") else "magnitude"
    return None


def _parts(a, e, elementwise: bool):
    """[(part, actual, expected)]: the leaves of an answer by their path (``[1]``, ``['key']``),
    a one-dimensional array answer entry by entry (``[0]``, ``[1]``, ...) unless it is
    elementwise in an argument; None where the structures differ."""
    leaves = list(_leaves(a, e))
    if any(x is None for _, x, _ in leaves):
        return None
    if len(leaves) == 1 and leaves[0][0] == "" and leaves[0][2].ndim == 1 and not elementwise:
        x, y = leaves[0][1].reshape(leaves[0][2].shape), leaves[0][2]
        return [(f"[{j}]", x[j], y[j]) for j in range(y.size)]
    return leaves


def _span(wrong: list[int], n: int) -> list[str]:
    """Entries of a one-dimensional answer of length n as slices: [3:], [1:4], or [0], [5]."""
    lo, hi = min(wrong), max(wrong)
    if wrong == list(range(lo, hi + 1)) and hi > lo:
        return [f"[{lo}:]" if hi == n - 1 else f"[{lo}:{hi + 1}]"]
    return [f"[{j}]" for j in wrong] if len(wrong) <= 3 else []


def _wrong_parts(cat, name, calls, pairs, rtol, atol) -> list[str]:
    """The parts of a tuple, list or dict answer (or the entries of a one-dimensional array
    answer of one length) that are wrong on some call, when the others are right on every call;
    [] otherwise."""
    paths = None
    wrong: set = set()
    for i, a, e in pairs:
        elementwise = any(np.shape(x) == np.shape(e) for x in _arguments(cat, name, calls[i])[0].values()
                          if _numeric(x) is not None)
        parts = _parts(a, e, elementwise)
        if parts is None:
            return []
        here = [p for p, _, _ in parts]
        if paths is None:
            paths = here
        if here != paths or not all(here):
            return []
        wrong |= {p for p, x, y in parts if not close(x, y, rtol, atol)}
    if not paths or len(paths) < 2 or not wrong or len(wrong) == len(paths):
        return []
    if all(re.fullmatch(r"\[\d+\]", p) for p in paths) and len(paths) >= 3:  # entries of an array or a tuple
        return _span(sorted(int(p[1:-1]) for p in wrong), len(paths))
    return [p for p in paths if p in wrong]


SPECIAL = (-1.0, 0.0, 1.0)  # special inputs: the ends of a range, zero


def _special(points) -> tuple[str, list] | None:
    """(argument, its values) when every wrong input, and no right one, has that argument at -1,
    0 or 1, with at least ``MIN_SIDE`` right inputs at two values of it or more; None otherwise."""
    good = [pt for pt in points if pt.ok]
    bad = [pt for pt in points if not pt.ok]
    if len(good) < MIN_SIDE or not bad:
        return None
    for p in sorted({p for pt in points for p, k in pt.keys.items() if isinstance(k, float)}):
        values = sorted({pt.keys.get(p) for pt in bad}, key=repr)
        if not all(v in SPECIAL for v in values) or len({pt.keys.get(p) for pt in good}) < 2:
            continue
        if not any(pt.keys.get(p) in values for pt in good) and _isolated(points, p):
            return p, sorted(values)
    return None


def _function_diagnosis(cat, name, calls, idx, ref, rtol, atol) -> Diagnosis | None:
    """What the calls ``idx`` (some failing) of the function ``name`` show, or None."""
    def found(kind: Found, **params) -> Diagnosis:
        return Diagnosis(kind, name, params)

    pairs = [(i, calls[i].value, ref(i)) for i in idx]
    pairs = [(i, a, e) for i, a, e in pairs if e is not _FAILED]
    bad = [(i, a, e) for i, a, e in pairs if not close(a, e, rtol, atol)]
    if not bad:
        return None
    good = [(i, a, e) for i, a, e in pairs if close(a, e, rtol, atol)]
    leaves = [leaf for _, a, e in pairs for leaf in _leaves(a, e)]
    # 1. structure and shape: facts about one answer
    broken = [why for _, a, why in leaves if a is None]
    if broken:
        return found(Found.STRUCTURE, what=broken[0])
    shaped = [(a, e) for _, a, e in leaves if a.shape != e.shape and not (a.size == e.size == 1)]
    if shaped:
        bad_leaves = [(a, e) for _, x, y in bad for _, a, e in _leaves(x, y)]
        if all(close(a, e, rtol, atol) or (a.ndim == 2 and a.shape == e.T.shape and close(a.T, e, rtol, atol))
               for a, e in bad_leaves):
            return found(Found.TRANSPOSE)
        a, e = shaped[0]
        return found(Found.SHAPE, got=[int(n) for n in a.shape], want=[int(n) for n in e.shape])
    points = _points(cat, name, calls, pairs, rtol, atol)
    if points is None:
        return None
    # 2. nan or inf where the expected values are finite: a fact; "for large inputs" with a threshold
    nonfinite = [(p, a, e) for p, a, e in leaves if np.any(~np.isfinite(a) & np.isfinite(e))]
    if nonfinite:
        cut = None
        if all(pt.ok or np.any(~np.isfinite(pt.a) & np.isfinite(pt.e)) for pt in points):
            cut = _threshold(points)
        if cut:
            return found(Found.NONFINITE, p=cut[0])
        # arithmetic advice (0 log 0, 0/0) only at a limit point: every entry that is nan or inf
        # where a finite value is expected sits at an argument at -1, 0 or 1 (``_at_limit``); an
        # infinity a branch returns at an ordinary input gets the region it answers in instead
        if _at_limit(cat, name, calls, pairs):
            return found(Found.NONFINITE, p=None)
        region = _nonfinite_region(cat, name, calls, pairs)
        return found(Found.NONFINITE, branch=True, **(region or {}))
    # 3. an argument ignored: correct at its default value only (before the factor: a kernel
    #    linear in sigma_w is off by a constant factor when sigma_w is ignored)
    ignored = _ignored_argument(cat, name, calls, [i for i, _, _ in pairs], [i for i, _, _ in bad], rtol, atol)
    if ignored:
        return found(Found.IGNORED, p=ignored)
    only = _default_only(cat, name, calls, [i for i, _, _ in good], [i for i, _, _ in bad])
    if only:
        return found(Found.DEFAULT_ONLY, p=only)
    draws = _same_draws(cat, name, calls, bad)
    if draws:
        return found(Found.SAME_DRAWS, **({"how": "steps"} if draws == "steps" else {}))
    unused = _unused(cat, name, calls, pairs, rtol, atol)
    if unused:
        return found(Found.UNUSED, p=unused)
    # 3b. a sample statistic off by (M-1)/M or M/(M-1) (ddof, pairs counted K² for K(K-1))
    bessel = _bessel(cat, name, calls, pairs, rtol, atol)
    if bessel:
        return found(Found.BESSEL, **bessel)
    # 4. the same factor (or sign, or shift) on every input, at every size
    if _varied([pt for pt in points if np.any(pt.e != 0)]):
        c = _constant(points, shift=False)
        if c is not None:
            label = _factor_name(c)
            if label == "-1":
                return found(Found.SIGN)
            if label:
                return found(Found.FACTOR, factor=label)
            return found(Found.SOME_FACTOR)
    else:  # one size: only a factor no size makes (2, √2, the sign, a change of log base) and no power of an argument
        c = _constant(points, shift=False)
        label = _factor_name(c) if c is not None else None
        if label in ONE_SIZE and c is not None \
                and not _a_power_equals(cat, name, calls, [i for i, _, _ in pairs], c) and \
                _visible(np.concatenate([pt.a for pt in points]), np.concatenate([pt.e for pt in points]),
                         rtol, atol) >= MIN_POINTS:
            if label == "-1":
                return found(Found.SIGN)
            return found(Found.FACTOR, factor=label)
    if _varied(points) and _constant(points, shift=True) is not None:
        return found(Found.SHIFT)
    # 5. a factor that is a power of the arguments (a sum where a mean is meant: N; 1/N for 1/sqrt N)
    power = _power_factor(cat, name, calls, pairs, rtol, atol)
    if power:
        return found(Found.POWER, powers=power)
    # 6. 1 minus, the reciprocal, the square or the square root of the expected value
    relation = _relation(points, rtol, atol)
    if relation:
        return found(Found.RELATION, relation=relation)
    # 7. the expected answer at an integer argument one more or one less
    off = _off_by_one(cat, name, calls, pairs, rtol, atol)
    if off:
        return found(Found.OFF_BY_ONE, p=off[0], d=off[1])
    # 7b. one term of a sum missing or with its sign flipped (a mutant of the reference's code)
    wrong_idx = [i for i, _, _ in bad] + [i for i, _, _ in good]
    if len(bad) >= 2 or _visible(np.concatenate([pt.a for pt in points]), np.concatenate([pt.e for pt in points]),
                                 rtol, atol) >= MIN_POINTS:
        term = term_mutant(cat.reference, name, calls, wrong_idx[:MAX_REPLAYS], rtol, atol)
        if term:
            return found(Found.TERM, how=term[0], involves=term[1])
    # 8. a part of a structured answer wrong, the rest right on every call
    parts = _wrong_parts(cat, name, calls, pairs, rtol, atol)
    if parts:
        return found(Found.PARTS, parts=parts)
    # 9. wrong only at a special input (0, ±1, a small integer), right everywhere else
    special = _special(points)
    if special:
        return found(Found.SPECIAL, p=special[0], values=[float(v) for v in special[1]])
    # 10. right below a threshold in one argument, wrong above it
    cut = _threshold(points)
    if cut:
        return found(Found.SMALL_ONLY, p=cut[0], how=cut[1])
    return None


# -- relations beyond a constant: a power of the arguments, 1 - x, 1/x, x^2, sqrt x, off by one --
RELATIONS = {  # what the answer is, of the expected value e (their words: autograder/run/diagnosis.py)
    "1 minus": lambda e: 1.0 - e,
    "the reciprocal of": lambda e: 1.0 / e,
    "the square of": lambda e: e * e,
    "the square root of": lambda e: np.sqrt(e),
}
POWERS = (-2.0, -1.0, -0.5, 0.5, 1.0, 2.0)
PAIR_POWERS = (-1.0, -0.5, 0.5, 1.0)
MAX_SCALARS = 6      # scalar arguments tried in a power factor
ONE_SIZE = {"2", "1/2", "√2", "1/√2", "-1", "log 2", "1/log 2", "log 10", "1/log 10"}  # claimed at one size too
MAX_REPLAYS = 8      # calls replayed at a neighbouring integer argument


def _holds(a: np.ndarray, model: np.ndarray) -> bool:
    """``a`` equals ``model`` entry by entry within ``TIGHT`` (and ``FLOOR`` of the largest)."""
    if a.shape != model.shape or not a.size or not np.all(np.isfinite(model)) or not np.all(np.isfinite(a)):
        return False
    room = TIGHT * np.abs(model) + FLOOR * max(float(np.abs(model).max()), float(np.abs(a).max()))
    return bool(np.all(np.abs(a - model) <= room))


def _visible(a: np.ndarray, e: np.ndarray, rtol, atol) -> int:
    """How many distinct expected values the answer gets wrong: the evidence a relation has."""
    with np.errstate(all="ignore"):
        off = ~(np.abs(a - e) <= atol + rtol * np.abs(e)) & np.isfinite(e)
    return len(np.unique(e[off]))


def _relation(points, rtol, atol) -> str | None:
    """The relation (a key of ``RELATIONS``) when every answer is 1 - e, 1/e, e² or √e of the expected e (one of
    them only), within ``TIGHT``, with at least ``MIN_POINTS`` distinct wrong values."""
    a = np.concatenate([pt.a for pt in points]) if points else np.array([])
    e = np.concatenate([pt.e for pt in points]) if points else np.array([])
    if not a.size or not np.all(np.isfinite(e)) or _visible(a, e, rtol, atol) < MIN_POINTS:
        return None
    with np.errstate(all="ignore"):
        fits = [what for what, g in RELATIONS.items() if _holds(a, g(e))]
    return fits[0] if len(fits) == 1 else None


def _scalars(cat, name, calls, idx) -> dict:
    """{parameter: [its value on each call]} for the named parameters that are a nonzero real
    number on every call (not a flag), at most ``MAX_SCALARS`` of them (a negative one is
    raised only to whole powers, ``_monomials``)."""
    values: dict = {}
    for i in idx:
        args, _ = _arguments(cat, name, calls[i])
        for p, x in args.items():
            ok = (not p.startswith("#") and not isinstance(x, (bool, np.bool_)) and np.ndim(x) == 0
                  and isinstance(x, (int, float, np.integer, np.floating)) and math.isfinite(float(x))
                  and float(x) != 0)
            values.setdefault(p, []).append(float(x) if ok else None)
    out = {p: v for p, v in values.items() if None not in v and len(v) == len(idx)}
    return dict(sorted(out.items())[:MAX_SCALARS])


def _monomials(scalars: dict) -> list[dict]:
    """The products of powers tried: one argument to a power in ``POWERS``, or two to powers in
    ``PAIR_POWERS``."""
    def powers(p, choices):  # a negative argument only to whole powers
        return [k for k in choices if float(k).is_integer() or min(scalars[p]) > 0]
    out = [{p: k} for p in scalars for k in powers(p, POWERS)]
    return out + [{p: k, q: m} for p, q in itertools.combinations(scalars, 2) for k in powers(p, PAIR_POWERS)
                  for m in powers(q, PAIR_POWERS)]


def _a_power_equals(cat, name, calls, idx, c: float) -> bool:
    """Whether some product of powers of the scalar arguments equals ``c`` on one of the calls
    ``idx``: a factor seen at one size that may be that size."""
    scalars = _scalars(cat, name, calls, idx)
    return any(abs(math.prod(scalars[p][n] ** k for p, k in powers.items()) - c) <= 1e-6 * abs(c)
               for powers in _monomials(scalars) for n in range(len(idx)))


def _power_factor(cat, name, calls, pairs, rtol, atol) -> dict | None:
    """The product of powers of the scalar arguments m (one or two arguments, powers ±1/2, ±1,
    ±2) with answers = m * expected on every entry of every call within ``TIGHT``: the only one
    that fits, no constant factor fitting as well (nor a simple constant that m equals on every
    call: at one size, √N = 2 may be a factor 2), and at least ``MIN_POINTS`` distinct wrong
    values ({argument: power}). None otherwise."""
    flat = []
    for i, a, e in pairs:
        leaves = list(_leaves(a, e))
        if not leaves or any(x is None or x.size != y.size for _, x, y in leaves):
            return None
        flat.append((i, np.concatenate([x.ravel() for _, x, _ in leaves]),
                     np.concatenate([y.ravel() for _, _, y in leaves])))
    if not flat or sum(_visible(a, e, rtol, atol) for _, a, e in flat) < MIN_POINTS:
        return None
    scalars = _scalars(cat, name, calls, [i for i, _, _ in flat])
    if not scalars:
        return None
    simple = [v for _, v in _FACTORS] + [s * k ** q for k in (2, 3, 4) for q in (-1, -0.5, 0.5, 1) for s in (1, -1)]

    def fits(m) -> bool:
        return all(_holds(a, m[n] * e) for n, (_, a, e) in enumerate(flat))

    if any(fits([c] * len(flat)) for c in simple):
        return None
    found = []
    for powers in _monomials(scalars):
        m = [math.prod(scalars[p][n] ** k for p, k in powers.items()) for n in range(len(flat))]
        if all(abs(v - m[0]) <= 1e-9 * abs(m[0]) for v in m) and \
                any(abs(m[0] - c) <= 1e-6 * abs(c) for c in simple + [1.0]):
            continue  # one value on every call, and a simple constant: no telling which
        if fits(m):
            found.append(powers)
            if len(found) > 1:
                return None
    return found[0] if found else None


def _off_by_one(cat, name, calls, pairs, rtol, atol) -> tuple[str, int] | None:
    """(parameter, +1 or -1) when the reference with that integer parameter one more (or one
    less) gives the student's answer on every call (at most ``MAX_REPLAYS`` calls, all of them),
    the only such shift, with at least two wrong calls or ``MIN_POINTS`` distinct wrong values."""
    if not pairs or len(pairs) > MAX_REPLAYS:
        return None
    try:
        sig = inspect.signature(cat.reference.ns.get(name))
        bound = [sig.bind(*calls[i].args, **calls[i].kwargs) for i, _, _ in pairs]
    except (TypeError, ValueError):
        return None
    for b in bound:
        b.apply_defaults()
    wrong = [(a, e) for _, a, e in pairs if not close(a, e, rtol, atol)]
    evidence = sum(_visible(np.concatenate([x.ravel() for _, x, _ in _leaves(a, e)]),
                            np.concatenate([y.ravel() for _, _, y in _leaves(a, e)]), rtol, atol)
                   for a, e in wrong if all(x is not None for _, x, _ in _leaves(a, e)))
    if len(wrong) < 2 and evidence < MIN_POINTS:
        return None
    params = [p for p, param in sig.parameters.items()
              if param.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
              and all(isinstance(b.arguments.get(p), (int, np.integer))
                      and not isinstance(b.arguments.get(p), (bool, np.bool_)) for b in bound)]
    found = []
    params = [p for p in params if len({int(b.arguments[p]) for b in bound}) >= 2]  # at one value, not a shift
    for p in params:
        for d in (1, -1):
            for b, (_i, a, _) in zip(bound, pairs):
                args = dict(b.arguments)
                args[p] = args[p] + d
                moved = inspect.BoundArguments(sig, args)
                answer = cat.reference.call(Call(name, moved.args, moved.kwargs, None))
                if answer is _FAILED or not close(a, answer, rtol, atol):
                    break
            else:
                found.append((p, d))
                if len(found) > 1:
                    return None
    return found[0] if found else None


def _non_default(sig, call) -> set | None:
    """The parameters with a default that ``call`` sets to another value (None: cannot bind)."""
    try:
        bound = sig.bind(*call.args, **call.kwargs)
    except TypeError:
        return None
    out = set()
    for p, value in bound.arguments.items():
        param = sig.parameters[p]
        if param.default is inspect.Parameter.empty or param.kind not in (
                inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            continue
        try:
            same = close(value, param.default, 0.0, 0.0)
        except Exception:  # noqa: BLE001
            same = False
        if not same:
            out.add(p)
    return out


def _default_only(cat, name, calls, good, bad) -> str:
    """The one parameter that every wrong call sets and no right call does, with at least two
    calls of each kind and two values other than the default; or ""."""
    try:
        sig = inspect.signature(cat.reference.ns.get(name))
    except (TypeError, ValueError):
        return ""
    if len(good) < 2 or len(bad) < 2:
        return ""
    found = [_non_default(sig, calls[i]) for i in good + bad]
    sets = [x for x in found if x is not None]
    if len(sets) < len(found):
        return ""
    on_good, on_bad = set().union(*sets[:len(good)]), set.intersection(*sets[len(good):])
    candidates = sorted(on_bad - on_good)
    if len(candidates) != 1 or on_good:
        return ""
    p = candidates[0]
    values = {repr(sig.bind(*calls[i].args, **calls[i].kwargs).arguments[p]) for i in bad}
    return p if len(values) >= 2 else ""


def _ignored_argument(cat, name, calls, every, bad, rtol, atol) -> str:
    """A parameter whose value the student's answers ignore: with it reset to its default, the
    reference gives the student's answers on every call that sets it, and at least two of them
    are wrong. "" if none."""
    try:
        sig = inspect.signature(cat.reference.ns.get(name))
    except (TypeError, ValueError):
        return ""
    found = [_non_default(sig, calls[i]) for i in bad[:16]]
    sets = [x for x in found if x is not None]
    if len(sets) < 2 or len(sets) < len(found):
        return ""
    for p in sorted(set.intersection(*sets)):
        setting = [i for i in every if p in (_non_default(sig, calls[i]) or ())][:32]
        for i in setting:
            bound = sig.bind(*calls[i].args, **calls[i].kwargs)
            bound.arguments.pop(p)
            answer = cat.reference.call(Call(name, bound.args, bound.kwargs, None))
            if answer is _FAILED or not close(calls[i].value, answer, rtol, atol):
                break
        else:
            return p
    return ""


def _upstream(cat, name: str, wrong, reach=None) -> list[str]:
    """The functions seen answering wrongly (``wrong``) that ``name`` uses, in the reference or in
    the student's code (``reach(name)``: the graded functions her ``name`` can call, None where
    unknown): its answers may be wrong only through them."""
    def uses(a: str) -> set:
        mine = reach(a) if reach is not None else None
        return set(cat.reference.reaches(a)) | set(mine or ())

    try:
        ups = [w for w in wrong if w != name and w in uses(name)]
        # the first wrong ones only: one that uses another wrong one may be wrong through it (her
        # susceptibility calls her basin_occupation where the reference's does not)
        return sorted(w for w in ups if not any(u != w and u in uses(w) for u in ups))
    except Exception:  # noqa: BLE001 - a namespace we cannot read: no claim
        return []


def generic(cat, calls, ref, rtol, atol, wrong=(), reach=None) -> list[Diagnosis]:
    """Generic diagnoses, one per function that answered wrongly (at most two).

    A function that uses (in the reference) another one seen answering wrongly (``wrong``: in
    an earlier test of the submission or in this one) gets no claim of its own: its inputs to
    that function may have been wrong, so the hint names the upstream one (``Found.UPSTREAM``);
    ``reach``: what the student's own functions call (``_upstream``)."""
    by_name: dict[str, list[int]] = {}
    for i, c in enumerate(calls):
        by_name.setdefault(c.name, []).append(i)
    out: list[Diagnosis] = []
    ups = {name: _upstream(cat, name, wrong, reach) for name in by_name}
    for name in sorted(by_name, key=lambda n: bool(ups[n])):  # the upstream functions first
        idx = by_name[name]
        try:
            if ups[name]:
                wrong_here = any(ref(i) is not _FAILED and not close(calls[i].value, ref(i), rtol, atol)
                                 for i in idx)
                yours = [u for u in ups[name] if u not in cat.reference.reaches(name)]  # through her calls only
                d = Diagnosis(Found.UPSTREAM, name, {"upstream": ups[name], **({"yours": yours} if yours else {})}) \
                    if wrong_here else None
            else:
                d = _function_diagnosis(cat, name, calls, idx, ref, rtol, atol)
        except (ProtocolError, StudentError, ValueError, TypeError, IndexError):
            d = None
        if d is not None:
            out.append(d)
        if len(out) == 2:
            break
    return out


# -- an argument the answers do not change with; a sample statistic's (M-1)/M --------------------
def _same(x, y) -> bool:
    """Whether two arguments are the same value (arrays entry by entry, exactly)."""
    if x is y:
        return True
    try:
        if isinstance(x, (str, bytes, dict)) or isinstance(y, (str, bytes, dict)) or x is None or y is None:
            return bool(x == y)
        ax, ay = np.asarray(x), np.asarray(y)
        return ax.shape == ay.shape and ax.dtype.kind == ay.dtype.kind and bool(np.array_equal(ax, ay))
    except (TypeError, ValueError):
        return False


def _unchanged(a, b, rtol, atol) -> bool:
    return close(a, b, min(rtol, 1e-7), min(atol, 1e-10)) and close(b, a, min(rtol, 1e-7), min(atol, 1e-10))


def _unused(cat, name, calls, pairs, rtol, atol) -> str:
    """The argument ``p`` the answers do not change with: calls that differ in ``p`` alone (every
    other argument the same), both wrong, get the same answer where the expected answers differ,
    on at least two such pairs (or, within one call, ``p`` the one argument with the answer's shape: the
    answer the same at every entry where the expected one takes three values or more, in calls at
    two settings of the other arguments or more), and no such pair or call where the answer
    changes with it. "" if none, or more than one argument fits."""
    bound = [(_arguments(cat, name, calls[i])[0], a, e) for i, a, e in pairs]
    found = []
    for p in sorted({p for args, _, _ in bound for p in args}):
        same, changed, flat = 0, False, set()
        for (x, a, e), (y, b, f) in itertools.combinations(bound, 2):
            if set(x) != set(y) or p not in x or _same(x[p], y[p]) or \
                    not all(_same(x[q], y[q]) for q in x if q != p) or close(e, f, rtol, atol):
                continue
            if close(a, e, rtol, atol) or close(b, f, rtol, atol):
                continue  # one of them right: a special case (an empty product) may give the other's value
            if _unchanged(a, b, rtol, atol):
                same += 1
            else:
                changed = True
                break
        for x, a, e in bound:  # entries of one call: p elementwise, alone
            arr = _numeric(x.get(p))
            if changed or arr is None or not arr.ndim or arr.shape != np.shape(e) or np.shape(a) != np.shape(e):
                continue
            if any(q != p and _numeric(v) is not None and np.ndim(v) and np.shape(v) == np.shape(e)
                   for q, v in x.items()):
                continue
            av, ev = np.asarray(a, dtype=float).ravel(), np.asarray(e, dtype=float).ravel()
            if not (np.all(np.isfinite(av)) and np.all(np.isfinite(ev))) or len(np.unique(arr)) < 2:
                continue
            if _holds(av, np.full_like(av, av[0])) and len(np.unique(np.round(ev, 12))) >= 3 and \
                    not close(ev, np.full_like(ev, ev[0]), rtol, atol):
                flat.add(tuple(sorted((q, repr(_key_and_sizes(q, v)[0])) for q, v in x.items() if q != p)))
            elif not _holds(av, np.full_like(av, av[0])):
                # it changes with the entries of p, the one argument that varies along them: the
                # answer does change with p here (at one value of the others it may not: a power
                # of (1 - R²) that is 0 at one N)
                changed = True
        # flat in p within one call counts at two settings of the other arguments or more (at one,
        # a power of (1 - R²) may vanish there)
        if (same >= 2 or len(flat) >= 2) and not changed:
            found.append(p)
    return found[0] if len(found) == 1 else ""


def _counts(args: dict) -> dict:
    """{(how, p, axis): M} for the counts M > 1 an answer may be normalized by: an integer
    argument's value, the length of an array argument along each axis."""
    out = {}
    for p, x in args.items():
        if p.startswith("#") or isinstance(x, (bool, np.bool_)):
            continue
        if isinstance(x, (int, np.integer)) and x > 1:
            out[("value", p, -1)] = int(x)
            continue
        arr = _numeric(x) if not isinstance(x, (int, float, np.integer, np.floating)) else None
        if arr is not None:
            for k, n in enumerate(arr.shape):
                if n > 1:
                    out[("entries", p, k)] = int(n)
    return out


def bessel_factor(m: int, d: int, root: bool) -> float:
    """(M-1)/M (``d`` = -1) or M/(M-1) (``d`` = 1), or its square root."""
    r = (m - 1) / m if d < 0 else m / (m - 1)
    return math.sqrt(r) if root else r


def _bessel(cat, name, calls, pairs, rtol, atol) -> dict | None:
    """{"p", "how", "axis", "d", "root"} when the answers are (M-1)/M or M/(M-1) (or their
    square roots) times the expected ones on every call within ``TIGHT``, M a count of the
    call's (``_counts``); the only such fit, with at least ``MIN_POINTS`` distinct wrong values,
    and where M is the same on every call, not a factor 1/2, 2 or a power of an argument."""
    flat = []
    for i, a, e in pairs:
        leaves = list(_leaves(a, e))
        if not leaves or any(x is None or x.size != y.size for _, x, y in leaves):
            return None
        flat.append((i, np.concatenate([x.ravel() for _, x, _ in leaves]),
                     np.concatenate([y.ravel() for _, _, y in leaves])))
    if not flat or sum(_visible(a, e, rtol, atol) for _, a, e in flat) < MIN_POINTS:
        return None
    counts = [_counts(_arguments(cat, name, calls[i])[0]) for i, _, _ in flat]
    keys = set(counts[0]).intersection(*counts[1:]) if counts else set()
    fits = []
    for key in sorted(keys, key=repr):
        ms = [c[key] for c in counts]
        for d in (-1, 1):
            for root in (False, True):
                if all(_holds(a, bessel_factor(m, d, root) * e) for m, (_, a, e) in zip(ms, flat)):
                    fits.append((key, d, root, tuple(ms)))
    if len({(d, root, ms) for _, d, root, ms, in fits}) != 1:
        return None  # none, or counts that disagree: no telling which
    if len({key for key, _, _, _ in fits}) > 1:
        return None
    key, d, root, sizes = fits[0]
    if len(set(sizes)) == 1:
        c = bessel_factor(sizes[0], d, root)
        if _factor_name(c) or _a_power_equals(cat, name, calls, [i for i, _, _ in flat], c):
            return None
    how, p, axis = key
    return {"p": p, "how": how, "axis": axis, "d": d, "root": root}


# -- a random stream re-seeded per step; a crash on array inputs -----------------------------------
RANDOM = re.compile(r"rng|seed|random|generator|key", re.I)


def repeated_slices(a: np.ndarray, e: np.ndarray) -> bool:
    """Some axis of length 3 or more along which every slice of ``a`` is the same, where the
    slices of ``e`` are not: the same draws repeated where fresh ones are expected."""
    if a.shape != e.shape or a.size < 3 or not np.all(np.isfinite(a)):
        return False
    for axis, n in enumerate(a.shape):
        if n < 3:
            continue
        first_a, first_e = np.take(a, [0], axis=axis), np.take(e, [0], axis=axis)
        if np.all(a == first_a) and not np.allclose(e, first_e, rtol=1e-9, atol=1e-12, equal_nan=True):
            return True
    return False


def _same_draws(cat, name, calls, bad) -> str:
    """How a function that draws random numbers (an argument named like rng or seed) repeats its
    draws on every wrong call, seen in its answers: "samples" (one slice repeated along an axis of
    three or more, ``repeated_slices``), "steps" (every step's increment proportional to one
    vector, ``repeated_steps``); "" where they are not seen repeating."""
    if not bad:
        return ""
    args, _ = _arguments(cat, name, calls[bad[0][0]])
    if not any(RANDOM.search(p) for p in args if not p.startswith("#")):
        return ""
    for how, seen in (("samples", repeated_slices), ("steps", repeated_steps)):
        if all((leaves := list(_leaves(a, e))) and not any(x is None for _, x, _ in leaves)
               and any(seen(x, y) for _, x, y in leaves) for _, a, e in bad):
            return how
    return ""


def array_crash(cat, name: str, answered, raised, rtol, atol) -> Diagnosis | None:
    """"Works for single numbers, fails for arrays": the calls ``raised`` (of ``name``, that
    raised) each pass an array in the arguments ``p`` where the answered calls of ``name`` that
    pass a single number in each of them are right (at least one such call, every one right).
    For a grader that records the calls that raised (``diagnose.arrays_only``)."""
    def arrays(c) -> set:
        args, _ = _arguments(cat, name, c)
        return {p for p, x in args.items() if _numeric(x) is not None and np.ndim(x) >= 1}
    raised = [c for c in raised if c.name == name]
    if not raised or not all(arrays(c) for c in raised):
        return None
    common = set.intersection(*(arrays(c) for c in raised))
    scalar = [c for c in answered if c.name == name and common and not (arrays(c) & common)]
    if not common or not scalar:
        return None
    for c in scalar:
        e = cat.reference.call(c)
        if e is _FAILED or not close(c.value, e, rtol, atol):
            return None
    return Diagnosis(Found.ARRAY_CRASH, name, {"p": sorted(common)[0]} if len(common) == 1 else {})
