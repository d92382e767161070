"""What a new course year changes in one assignment, read from its source (``pdl new-year``).

A new year (``pdl new-year``) changes two things an assignment is made of: the **year's
parameters** (the source's ``params`` cell, drawn anew and written as ``PARAMS = {...}`` into the
release, the solution notebook and ``solutions.<id>``) and the **hidden-test inputs** (each test's
``rng_for(...)`` draws, seeded by the course seed and year). Everything else (the text, the
graded functions' contracts, the hidden tests' code) stays as it is: the text names a parameter
(``PARAMS["loads"]``) and never states its value.

``what_a_new_year_changes(assignment)`` reads, from the source alone (no grading, no writing):

* which parameters there are, and where the source uses each one (``ParamUse``): the release's
  text, its figures, its public checks, the code it provides, the graded functions' reference
  code (a body or a default), the solution notebook's cells, the hidden tests, the written
  questions (prompt or model answer), the claims of the text;
* the hidden tests' inputs: how many tests draw from ``rng_for`` (redrawn each year), how many
  pass this year's ``PARAMS`` (so their inputs move with the parameters), and how many use fixed
  inputs only (the same every year);
* the written questions whose numbers depend on the year (``WrittenUse``): ``"names"`` where
  the prompt, the model answer or a claim cell of the question reads the year's parameters (its
  expected numbers change), ``"follows"`` where the question closes a part whose figure, text or
  solution cells are drawn from them (an answer that quotes that output quotes another number);
* the graded functions whose answer depends on the year's parameters *in the student's own
  notebook* (``YearBound``): the reference reads ``PARAMS`` (or a provided name that does) in
  its body or its defaults, or the docstring tells the student to. A notebook of last year runs
  its own, last year's, ``PARAMS`` cell when graded, so such a function, correct last year,
  answers for last year's parameters; the hidden tests that call it and reach that path (an
  argument left to a default that the reading depends on, ``if x is None: x = exercise_inputs()``)
  can fail it. Every other graded function takes what it needs as arguments: a correct notebook
  of last year passes this year's hidden tests there (up to the tests' false-fail budget).

The analysis is static and errs on the side of "can change": a year-bound function's tests are
those that may reach the year's reading (``autograder.course.year_change.last_years_reference_score``
grades last year's reference against this year's tests and measures it).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import numpy as np

import course_config
from autograder.course.generate import module_text, year_rng
from autograder.course.inprocess import score_code
from autograder.course.source import CLAIM_ROLE, Source, all_assignments, load

# where a parameter can appear, in the order printed
TEXT, FIGURES, CHECKS, PROVIDED, GRADED, SOLUTION, TESTS, WRITTEN, CLAIMS = (
    "release text", "figures", "public checks", "provided code", "graded functions", "solution notebook",
    "hidden tests", "written questions", "claims")
PLACES = (TEXT, FIGURES, CHECKS, PROVIDED, GRADED, SOLUTION, TESTS, WRITTEN, CLAIMS)
_ROLE_PLACE = {"text": TEXT, "figure": FIGURES, "check": CHECKS, "setup": PROVIDED, "provided": PROVIDED,
               "reference": PROVIDED, "graded": GRADED, "solution": SOLUTION, "tests": TESTS,
               "answer": WRITTEN, "claim": CLAIMS}
_MODULE_CODE = ("setup", "graded", "provided", "reference")  # solutions.<id>, but PARAMS
_NOTEBOOK_CODE = ("figure", "solution", "check")             # run after the module's code in the notebooks
_TEXT_PARAM = re.compile(r"""\bPARAMS\s*\[\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*\]|\bPARAMS\b""")
_RNG, _STUDENT = "<rng_for>", "<student>."  # tags of the hidden tests' reading (besides parameter names)


@dataclass(frozen=True)
class ParamUse:
    """One year parameter and where the source uses it (a subset of ``PLACES``, in that order)."""
    name: str
    places: tuple[str, ...]


@dataclass(frozen=True)
class WrittenUse:
    """A written question whose expected numbers depend on the year's parameters."""
    question: str               # written_1, ...
    how: str                    # "names": its prompt, model answer or claim reads them;
    #                             "follows": the output of its part (figures, text, solution cells) does
    params: tuple[str, ...]


@dataclass(frozen=True)
class YearBound:
    """A graded function whose answer reads the year's parameters of the notebook it runs in."""
    function: str
    reads: tuple[str, ...]      # the names it reads: PARAMS, or provided names that read it (exercise_inputs)
    params: tuple[str, ...]     # the parameters behind them
    where: tuple[str, ...]      # "body", "default", "docstring" (the contract tells the student to)
    gated_by: tuple[str, ...]   # arguments whose omission leads to the reading (x=None -> PARAMS); () = always
    tests: tuple[str, ...]      # hidden tests that may reach the reading
    points: float               # their points


@dataclass(frozen=True)
class HiddenInputs:
    """The hidden tests' inputs: redrawn (``rng_for``), this year's parameters, or fixed."""
    tests: int
    redrawn: int                # draw from rng_for: other inputs every year
    on_params: int              # pass this year's PARAMS (possibly besides rng_for draws)
    fixed: int                  # neither: the same inputs every year


@dataclass(frozen=True)
class YearChange:
    """What a new course year changes in ``assignment`` (``what_a_new_year_changes``)."""
    assignment: str
    params: tuple[ParamUse, ...]
    hidden: HiddenInputs
    written: tuple[WrittenUse, ...] = ()
    year_bound: tuple[YearBound, ...] = ()
    questions: int = 0          # written questions in all

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @property
    def last_years_notebook_passes(self) -> bool:
        """Whether a correct notebook of last year passes this year's hidden tests: no hidden
        test reaches a graded function's reading of the notebook's own PARAMS."""
        return not any(b.tests for b in self.year_bound)

    @property
    def written_numbers_change(self) -> tuple[str, ...]:
        """The written questions whose prompt, model answer or claim reads the year's parameters."""
        return tuple(w.question for w in self.written if w.how == "names")

    def line(self) -> str:
        """One line for ``pdl new-year``'s output."""
        h = self.hidden
        inputs = (f"hidden inputs redrawn: {h.redrawn} of {h.tests} tests draw from rng_for"
                  + (f", {h.on_params} {'takes' if h.on_params == 1 else 'take'} this year's PARAMS"
                     if h.on_params else "")
                  + (f", {h.fixed} fixed" if h.fixed else ""))
        if not self.params:
            return (f"{self.assignment}: no year parameters: unchanged but for the hidden inputs ({inputs}); "
                    "a correct notebook of last year passes")
        by_place: dict[str, list[str]] = {}
        for p in self.params:
            for place in p.places:
                by_place.setdefault(place, []).append(p.name)
        unused = [p.name for p in self.params if not p.places]
        where = "; ".join(f"{place}: {', '.join(names)}" for place, names in
                          sorted(by_place.items(), key=lambda kv: PLACES.index(kv[0])))
        parts = [f"{self.assignment}: year parameters {', '.join(self.param_names)} ({where or 'not used'}"
                 + (f"; unused: {', '.join(unused)}" if unused and where else "") + ")", inputs]
        names = [w for w in self.written if w.how == "names"]
        follows = [w for w in self.written if w.how == "follows"]
        if names:
            parts.append("written numbers change: " + ", ".join(f"{w.question} ({', '.join(w.params)})" for w in names))
        if follows:
            parts.append("written questions after output drawn from them: " + ", ".join(w.question for w in follows))
        if not self.written:
            parts.append("written questions unchanged" if self.questions else "no written questions")
        if self.last_years_notebook_passes:
            parts.append("graded functions take the parameters as arguments: a correct notebook of last year passes")
        else:
            for b in self.year_bound:
                if b.tests:
                    parts.append(f"{b.function} reads the notebook's own {', '.join(b.reads)} "
                                 f"({'/'.join(b.where)}"
                                 + (f", when {' or '.join(b.gated_by)} is left to its default" if b.gated_by else "")
                                 + f"): a correct notebook of last year can lose up to {b.points:g} points in "
                                 f"{len(b.tests)} hidden test(s) ({', '.join(b.tests)})")
        return "; ".join(parts)


# -- reading the code ----------------------------------------------------------------------------------------
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _stored(node) -> set[str]:
    """The names ``node`` binds in its own scope (assignments, loop and ``with`` targets, imports,
    nested definitions), not looking into nested functions, lambdas or comprehensions."""
    names, declared = set(), set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            declared |= set(n.names)
            continue
        if n is not node and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
            continue
        if n is not node and isinstance(n, (ast.Lambda, *_COMPREHENSIONS)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names |= {a.asname or a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
        stack.extend(ast.iter_child_nodes(n))
    return names - declared


def _function_locals(fn) -> set[str]:
    a = fn.args
    names = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]} | {x.arg for x in (a.vararg, a.kwarg) if x}
    if isinstance(fn, ast.Lambda):
        return names
    return names | set().union(*(_stored(s) for s in fn.body)) if fn.body else names


class _Reader:
    """The tags an AST reads: parameter names (``PARAMS["k"]``; every name for a bare ``PARAMS``),
    and whatever the global names of ``env`` carry (names defined from them; a function's own
    local of the same name is not one). ``module`` (the hidden tests' and the claims' view): read
    ``ref.PARAMS`` and ``ref.<name>`` of the reference module instead. ``tests``: also tag the use
    of ``rng_for`` and each ``student.<function>``. ``gates``: the functions that read their tags
    only where a call leaves an argument out (name -> (its arguments, those)); a call that gives
    them all reads nothing through that function."""

    def __init__(self, every: frozenset, env: dict | None = None, module: dict | None = None, tests: bool = False,
                 gates: dict | None = None):
        self.every, self.env, self.module, self.tests = every, dict(env or {}), module, tests
        self.gates = gates if gates is not None else {}

    def _gated_call(self, call, shadow) -> bool:
        """Whether ``call`` is of a gated function and gives every argument its reading needs."""
        f = call.func
        name = f.id if isinstance(f, ast.Name) and f.id not in shadow and self.module is None else \
            f.attr if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "ref"
                       and self.module is not None) else None
        if name not in self.gates:
            return False
        names, gated = self.gates[name]
        return not _call_omits(call, names, gated)

    def _is_params(self, node, shadow) -> bool:
        if self.module is None:
            return isinstance(node, ast.Name) and node.id == "PARAMS" and "PARAMS" not in shadow
        return (isinstance(node, ast.Attribute) and node.attr == "PARAMS" and isinstance(node.value, ast.Name)
                and node.value.id == "ref")

    def tags(self, node, shadow: frozenset = frozenset()) -> frozenset:
        """The tags ``node`` reads; ``shadow``: names that are local where it stands."""
        found: set = set()
        stack = [(node, frozenset(shadow))]
        while stack:
            n, shadow = stack.pop()
            if isinstance(n, _SCOPES):
                outer = [*n.args.defaults, *(d for d in n.args.kw_defaults if d is not None),
                         *getattr(n, "decorator_list", [])]
                stack += [(d, shadow) for d in outer]
                inner = shadow | _function_locals(n)
                stack += [(b, inner) for b in (n.body if isinstance(n.body, list) else [n.body])]
                continue
            if isinstance(n, _COMPREHENSIONS):
                shadow = shadow | {x.id for g in n.generators for x in ast.walk(g.target) if isinstance(x, ast.Name)}
            if isinstance(n, ast.Call) and self._gated_call(n, shadow):
                stack += [(c, shadow) for c in [*n.args, *n.keywords]]
                continue
            if isinstance(n, ast.Subscript) and self._is_params(n.value, shadow):
                key = n.slice
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    found.add(key.value)
                else:
                    found |= self.every
                    stack.append((key, shadow))
                continue
            if self._is_params(n, shadow):
                found |= self.every
                continue
            if isinstance(n, ast.Name) and n.id not in shadow:
                found |= self.env.get(n.id, frozenset())
                if self.tests and n.id == "rng_for":
                    found.add(_RNG)
            elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
                if self.module is not None and n.value.id == "ref":
                    found |= self.module.get(n.attr, frozenset())
                if self.tests and n.value.id == "student":
                    found.add(_STUDENT + n.attr)
            stack.extend((c, shadow) for c in ast.iter_child_nodes(n))
        return frozenset(found)


def _bound_names(stmt) -> set[str]:
    """The global names a top-level statement binds."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    return _stored(stmt)


def _closure(statements: list, reader: _Reader) -> dict[str, frozenset]:
    """``reader.env`` grown by every global name of ``statements`` whose definition reads a tag
    (a function reading PARAMS, a constant computed from it, a function calling those), to the
    fixpoint (a function may read one defined after it)."""
    env = reader.env
    changed = True
    while changed:
        changed = False
        for stmt in statements:
            tags = reader.tags(stmt)
            for name in _bound_names(stmt):
                if tags - env.get(name, frozenset()):
                    env[name] = env.get(name, frozenset()) | tags
                    changed = True
            if isinstance(stmt, ast.FunctionDef) and tags:  # gated by its arguments, or read always?
                always, gates, defaults = _readings(stmt, reader)
                gate = None if always or not gates | defaults else (_arguments(stmt), frozenset(gates | defaults))
                if reader.gates.get(stmt.name) != gate:
                    if gate is None:
                        reader.gates.pop(stmt.name, None)
                    else:
                        reader.gates[stmt.name] = gate
                    changed = True
    return env


def _statements(src: Source, roles) -> list:
    return [stmt for c in src.cells if c.role in roles for stmt in ast.parse(c.source).body]


def _param_values(src: Source) -> dict:
    """This year's parameters (the params cell run on the year's generator), or {} without one."""
    cells = [c for c in src.cells if c.role == "params"]
    if not cells:
        return {}
    ns: dict = {"np": np}
    exec(compile(cells[0].source, f"{src.path.name}:params", "exec"), ns)  # noqa: S102 - instructor code
    return dict(ns["draw_params"](year_rng(src.assignment)))


def _text_params(text: str, every: frozenset) -> frozenset:
    found: set = set()
    for m in _TEXT_PARAM.finditer(text):
        found |= {m.group(1)} if m.group(1) else every
    return frozenset(found)


def _docstring(node) -> str:
    return ast.get_docstring(node) or ""


def _arguments(node) -> list[str]:
    a = node.args
    return [x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]]


def _none_gate(test, params: set) -> set | None:
    """The arguments of ``if x is None [or y is None ...]``, or None for another condition."""
    if isinstance(test, ast.BoolOp):
        gates = [_none_gate(v, params) for v in test.values]
        return None if any(g is None for g in gates) else set().union(*gates)
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is)
            and isinstance(test.left, ast.Name) and test.left.id in params
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return {test.left.id}
    return None


def _readings(node, reader: _Reader) -> tuple[bool, set, set]:
    """Whether a graded function's body reads a tag unconditionally; the arguments whose ``None``
    leads to a reading (``if x is None: x = exercise_inputs()``); those whose default is one
    (``def f(a=PARAMS["a"])``)."""
    params = set(_arguments(node))
    local = frozenset(_function_locals(node))
    gates: set = set()
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = {a.arg for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults)
                if reader.tags(d)}
    defaults |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None and reader.tags(d)}
    body = node.body[1:] if _docstring(node) else node.body
    always = False

    def walk(stmts):
        nonlocal always
        for stmt in stmts:
            if isinstance(stmt, ast.If) and (gate := _none_gate(stmt.test, params)) is not None:
                if any(reader.tags(s, local) for s in stmt.body):
                    gates.update(gate)
                walk(stmt.orelse)
            elif reader.tags(stmt, local):
                always = True
    walk(body)
    return always, gates, defaults


def _call_omits(call: ast.Call, names: list[str], gated: set) -> bool:
    """Whether ``call`` (of a function with arguments ``names``) leaves one of ``gated`` out."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return True  # *args / **kwargs: cannot tell
    given = set(names[:len(call.args)]) | {k.arg for k in call.keywords}
    return bool(gated - given)


def _test_points(node) -> float:
    for dec in node.decorator_list:
        if isinstance(dec, ast.Call) and getattr(dec.func, "id", None) == "points" and dec.args \
                and isinstance(dec.args[0], ast.Constant):
            return float(dec.args[0].value)
    return 1.0


# -- the analysis ----------------------------------------------------------------------------------------------
def what_a_new_year_changes(assignment: str) -> YearChange:
    """What ``pdl new-year`` changes in ``assignment``, read from its source (``YearChange``)."""
    src = load(assignment)
    values = _param_values(src)
    every = frozenset(values)
    gates: dict = {}  # the module's functions that read PARAMS only where an argument is left out
    module = _closure(_statements(src, _MODULE_CODE), _Reader(every, gates=gates))
    # each code cell's reading, in notebook order: the release runs figures and checks after the
    # module's code, the solution notebook its solution cells too; a cell sees the names before it
    release, solution = dict(module), dict(module)
    read: dict[int, frozenset] = {}
    for cell in src.cells:
        if cell.role in _MODULE_CODE:
            read[cell.index] = _Reader(every, module, gates=gates).tags(ast.parse(cell.source))
        elif cell.role in _NOTEBOOK_CODE:
            for env in ([release, solution] if cell.role != "solution" else [solution]):
                reader = _Reader(every, env, gates=dict(gates))
                tags = reader.tags(ast.parse(cell.source))
                _closure(ast.parse(cell.source).body, reader)
                env.update(reader.env)
                read[cell.index] = read.get(cell.index, frozenset()) | tags
        elif cell.kind == "markdown":
            read[cell.index] = _text_params(cell.source, every)

    # hidden tests: their module-level names and helpers, then each test's reading
    test_stmts = _statements(src, ("tests",))
    test_reader = _Reader(every, module=module, tests=True, gates=dict(gates))
    _closure(test_stmts, test_reader)
    tests = {s.name: s for s in test_stmts if isinstance(s, ast.FunctionDef) and s.name.startswith("test_")}
    test_tags = {name: test_reader.tags(node) for name, node in tests.items()}

    places: dict[str, set] = {k: set() for k in values}

    def note(keys, place):
        for k in keys:
            if k in places:
                places[k].add(place)

    claim_reader = _Reader(every, module=module, gates=gates)
    for cell in src.cells:
        if cell.role == CLAIM_ROLE:
            read[cell.index] = claim_reader.tags(ast.parse(cell.source))
        if cell.role in _ROLE_PLACE and cell.index in read:
            note(read[cell.index], _ROLE_PLACE[cell.role])
    for tags in test_tags.values():
        note(tags, TESTS)
    for q in src.written_questions():
        note(_text_params(q.prompt, every), WRITTEN)

    # written questions: named in the prompt, the model answer or a claim of it; or in their part's output
    written: list[WrittenUse] = []
    claims = {c.index: c for c in src.claims()}
    start, k = 1, 0
    for i, cell in enumerate(src.cells):
        if cell.role != "answer":
            continue
        k += 1
        name = f"written_{k}"
        above = src.cells[i - 1] if i else None
        prompt = above if above is not None and above.kind == "markdown" and above.role == "text" else None
        named = set(read[cell.index]) | (set(read[prompt.index]) if prompt else set())
        named |= {key for c in claims.values() if c.question == name for key in read[c.index]}
        before = set().union(*(read.get(c.index, frozenset()) for c in src.cells[start:i] if c is not prompt
                               and (c.role in _NOTEBOOK_CODE or (c.kind == "markdown" and c.role == "text"))))
        order = [p for p in values if p in named]
        if order:
            written.append(WrittenUse(name, "names", tuple(order)))
        elif before:
            written.append(WrittenUse(name, "follows", tuple(p for p in values if p in before)))
        start = i + 1

    # graded functions that read the notebook's own PARAMS
    bound: list[YearBound] = []
    year_names = {n for n, tags in module.items() if tags}
    provided = {n for stmt in _statements(src, ("setup", "provided")) for n in _bound_names(stmt)} & year_names
    reader = _Reader(every, module, gates=gates)
    for stmt in _statements(src, ("graded",)):
        if not isinstance(stmt, ast.FunctionDef):
            continue
        doc = _docstring(stmt)
        told = bool(re.search(r"\bPARAMS\b", doc)) or any(
            re.search(rf"\b{re.escape(n)}\b", doc) for n in provided)
        always, gates, defaults = _readings(stmt, reader)
        if not (always or gates or defaults or told):
            continue
        reads = sorted({n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)
                        and (n.id == "PARAMS" or n.id in year_names) and n.id != stmt.name}) or ["PARAMS"]
        where = tuple(w for w, on in (("body", always or bool(gates)), ("default", bool(defaults)),
                                      ("docstring", told)) if on)
        gated = gates | defaults
        gated_by = () if always or not gated else tuple(a for a in _arguments(stmt) if a in gated)
        arg_names = _arguments(stmt)
        reaching = []
        for tname, tnode in tests.items():
            if _STUDENT + stmt.name not in test_tags[tname]:
                continue
            calls = [n for n in ast.walk(tnode) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr == stmt.name and isinstance(n.func.value, ast.Name)
                     and n.func.value.id == "student"]
            if not gated_by or not calls or any(_call_omits(c, arg_names, set(gated_by)) for c in calls):
                reaching.append(tname)
        behind = module.get(stmt.name, frozenset()) or (every if told else frozenset())
        params = sorted(behind, key=list(values).index)
        bound.append(YearBound(stmt.name, tuple(reads), tuple(params), where, gated_by, tuple(reaching),
                               sum(_test_points(tests[t]) for t in reaching)))

    redrawn = sum(1 for t in test_tags.values() if _RNG in t)
    on_params = sum(1 for t in test_tags.values() if t & every)
    fixed = sum(1 for t in test_tags.values() if _RNG not in t and not t & every)
    return YearChange(assignment=assignment,
                      params=tuple(ParamUse(k, tuple(p for p in PLACES if p in places[k])) for k in values),
                      hidden=HiddenInputs(len(tests), redrawn, on_params, fixed),
                      written=tuple(written), year_bound=tuple(bound), questions=k)


def what_new_years_change(assignments=None) -> list[YearChange]:
    """``what_a_new_year_changes`` of each assignment (default: the course's)."""
    return [what_a_new_year_changes(a) for a in (assignments if assignments is not None else all_assignments())]


def total_line(changes: list[YearChange]) -> str:
    """The closing line of ``pdl new-year``'s list: how many assignments a correct notebook of last
    year still passes, and what does catch a copied one."""
    passing = [c for c in changes if c.last_years_notebook_passes]
    losing = [c.assignment for c in changes if not c.last_years_notebook_passes]
    written = [c.assignment for c in changes if c.written_numbers_change]
    return (f"a correct notebook of last year still passes the hidden tests of {len(passing)} of {len(changes)} "
            "assignments" + (f" (not {', '.join(losing)})" if losing else "")
            + (f"; written answers quote this year's numbers in {', '.join(written)}" if written else "")
            + ": copying is caught, if at all, by the similarity report (similarity.csv: this cohort's "
            "submissions compared with each other, not with earlier years) and the year note a notebook of "
            "another year gets (where its header's course year or its PARAMS are not this year's; graded as "
            "usual), not by the score")


def last_years_reference_score(assignment: str, year: int | None = None) -> tuple[float, float]:
    """(score, max score) of the reference rendered for ``year`` (default: last year), with that
    year's ``PARAMS``, against this year's hidden tests, in-process: what a correct notebook of
    that year scores now. Writes nothing; measures what ``what_a_new_year_changes`` reads."""

    src = load(assignment)
    this = course_config.YEAR
    course_config.YEAR = this - 1 if year is None else year
    try:
        code = module_text(src)
    finally:
        course_config.YEAR = this
    return score_code(assignment, code)


__all__ = ["HiddenInputs", "ParamUse", "WrittenUse", "YearBound", "YearChange", "PLACES",
           "what_a_new_year_changes", "what_new_years_change", "total_line", "last_years_reference_score"]
