"""Evidence for a diagnosis's cause, something to go on where there is none, and no hidden input or
reference value in what a student reads before publication (issue 43, items 3 and 4).

* non-finite-arithmetic advice (0 log 0, 0/0, an overflow) only for a nan or inf at a limit point
  (``generic._at_limit``); an infinity a branch returns at an ordinary input is told with the region
  it answers in, without that advice;
* a random-stream claim only where the stream is seen repeating in her answers
  (``generic.repeated_steps``), and it names the stream, not the step;
* a failing test without a diagnosis says where her answer is off (``Shown.lead``), with no value;
* before publication a test message shows none of the test's hidden inputs nor a reference value
  (``TestResult.message_before_publication``), and no page or visible Gradescope entry does.
"""

import numpy as np

from autograder.course.generate import module_text
from autograder.course.inprocess import grade_code
from autograder.course.source import load
from autograder.run.diagnosis import Found


def _grade(assignment, code):
    results, student = grade_code(assignment, module_text(load(assignment)) + "\n\n" + code)
    return results, student


def _diagnoses(results, test):
    return [d for r in results if r.name == test for d in r.diagnoses]


# -- rule 1: arithmetic advice only at a limit point ------------------------------------------------
BRANCH_INF = '''
_ref_annealed_action = annealed_action
def annealed_action(R, alpha):
    out = _ref_annealed_action(R, alpha)
    # a wrong branch: "too large a load" answered inf, at an ordinary input
    return np.where(np.asarray(alpha) + 0 * np.asarray(R) > 100, np.inf, out)
'''

LIMIT_NAN = '''
def overlap_entropy(R):
    R = np.asarray(R, dtype=float)
    p, q = (1 + R) / 2, (1 - R) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(p * np.log(p) + q * np.log(q))   # 0 log 0 = nan at R = -1 and R = 1
'''


def test_an_infinity_a_branch_returns_gets_no_arithmetic_advice():
    # the failing call is a table whose R and alpha arrays reach 0 and 1 (limit points of other
    # entries): the inf entries are at alpha = 1000, R ordinary, so no 0 log 0 advice
    results, _ = _grade("ex2_3_ising_perceptron", BRANCH_INF)
    found = _diagnoses(results, "test_annealed_action")
    assert found and found[0].kind is Found.NONFINITE and found[0].params.get("branch"), found
    text = next(r.diagnosis for r in results if r.name == "test_annealed_action")
    assert "0 log 0" not in text and "overflow" not in text, text
    assert "for the largest values of `alpha`" in text, text  # the region it answers in


def test_a_nan_at_a_limit_point_keeps_the_arithmetic_advice():
    results, _ = _grade("ex2_3_ising_perceptron", LIMIT_NAN)
    texts = [r.diagnosis for r in results if not r.passed]
    assert any("0 log 0" in t for t in texts), texts


# -- rule 2: a random-stream claim needs the stream seen repeating ---------------------------------
RESEEDED = '''
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    g = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    x[0] = g.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths) if x0 is None else x0
    for i in range(steps):
        g = np.random.default_rng(rng)          # re-created with the same seed: the same draws
        z = g.standard_normal(n_paths)
        x[i + 1] = x[i] - k * x[i] * dt + np.sqrt(D * dt) * z
    return x
'''

WRONG_DRIFT = '''
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    g = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    x[0] = g.normal(0.0, np.sqrt(D / (2 * k)), size=n_paths) if x0 is None else x0
    for i in range(steps):
        z = g.standard_normal(n_paths)
        x[i + 1] = x[i] - 2 * k * x[i] * dt + np.sqrt(D * dt) * z   # the drift step wrong, fresh draws
    return x
'''


def test_a_generator_recreated_in_the_loop_is_named_by_its_stream():
    results, _ = _grade("ex6_1_ou_fdt", RESEEDED)
    found = _diagnoses(results, "test_simulate_ou_increments")
    assert [(d.kind, d.params.get("how")) for d in found] == [(Found.SAME_DRAWS, "steps")], found
    r = next(r for r in results if r.name == "test_simulate_ou_increments")
    assert "random draws repeat" in r.diagnosis and "generator re-created" in r.diagnosis
    # the test's own step advice is not what she reads once the stream is seen repeating
    assert "drift step" in r.message and "drift step" not in r.message_before_publication
    assert "drift step" not in r.told_message(published=True)


def test_no_stream_claim_where_the_draws_do_not_repeat():
    results, _ = _grade("ex6_1_ou_fdt", WRONG_DRIFT)
    assert any(not r.passed for r in results)
    assert not [d for r in results for d in r.diagnoses if d.kind is Found.SAME_DRAWS]
    r = next(r for r in results if r.name == "test_simulate_ou_increments")
    assert "drift step" in r.message_before_publication  # the step advice stays where it may be right


def test_repeated_steps_on_made_up_paths():
    from autograder.run.diagnose.generic import repeated_steps
    rng = np.random.default_rng(0)
    z = rng.standard_normal(50)
    same = np.empty((20, 50))
    fresh = np.empty((20, 50))
    same[0] = fresh[0] = z
    for i in range(19):
        same[i + 1] = 0.9 * same[i] + 0.1 * z
        fresh[i + 1] = 0.9 * fresh[i] + 0.1 * rng.standard_normal(50)
    assert repeated_steps(same, fresh)
    assert not repeated_steps(fresh, same)
    assert not repeated_steps(fresh, fresh + 1e-3 * rng.standard_normal(fresh.shape))


# -- something to go on instead of a bare "differs" ------------------------------------------------
def test_a_failing_test_without_a_diagnosis_says_where_the_answer_is_off():
    from autograder.run.carry import holds
    from autograder.run.shown import lead_of, shown
    e = np.linspace(1.0, 2.0, 23)
    a = e.copy()
    a[20] = -a[20]
    got = shown(a, e, 1e-9, 0.0, [("generalization_error", (np.zeros(23),), {"beta": 0.571}, a)], holds)
    assert got.lead == ("Where it is off: your `generalization_error`'s answer is off at 1 of its 23 entries, "
                        "most at [20]; of the wrong sign there."), got.lead
    assert lead_of("f", "[1]", 5e3, 2.0, 1e-9, 0.0) == ("Where it is off: item [1] of your `f`'s answer is too "
                                                        "large in magnitude, by about 3 orders of magnitude.")
    assert "shape (3,)" in lead_of("f", "", np.zeros(3), np.zeros(4), 1e-9, 0.0)
    assert "nan or inf" in lead_of("", "", np.array([1.0, np.inf]), np.array([1.0, 2.0]), 1e-9, 0.0)
    for text in (got.lead, lead_of("f", "", 0.123456, 0.654321, 1e-9, 0.0)):
        assert "0.571" not in text and "0.654" not in text and "0.123" not in text  # no input, no value


def test_the_lead_reaches_a_test_graded_without_a_diagnosis(monkeypatch):
    from autograder.course.inprocess import reference_values
    from autograder.run.diagnose.leaks import leaked_numbers
    from autograder.run.record import at_fault
    # an ad-hoc error no pattern explains: the entries past the middle scrambled
    code = '''
_ref_generalization_error = generalization_error
def generalization_error(R):
    out = np.array(_ref_generalization_error(R), dtype=float)
    if out.ndim and out.size > 4:
        out[out.size // 2:] = out[out.size // 2:] ** 1.37 + 0.01 * np.arange(out.size - out.size // 2)
    return out
'''
    results, student = _grade("ex2_3_ising_perceptron", code)
    failed = [r for r in results if not r.passed and not r.carried_forward]
    bare = [r for r in failed if not r.diagnoses and r.shown is not None]
    assert bare, [(r.name, r.diagnosis) for r in failed]
    for r in bare:
        assert r.lead.startswith("Where it is off: ") and "generalization_error" in r.lead, r.lead
        assert r.hint(False) == r.lead and r.hint(True) == r.lead
        assert not leaked_numbers(r.lead, reference_values("ex2_3_ising_perceptron", student, r.name))
    words = [w for c in at_fault(results) for w in c.words(False)]
    assert any(w.startswith("Where it is off: ") for w in words), words


# -- no hidden input nor reference value before publication ---------------------------------------
def test_a_message_is_redacted_before_publication_and_kept_after():
    from autograder.run.record import Kind, TestResult
    msg = ("quanta_loss(m, alpha=0.570, delta=1.7, None): differs from the expected value "
           "(1 of 1 entries off, worst by 3.2x the tolerance)")
    t = TestResult("test_q", 0.0, 2.0, False, msg, kind=Kind.FAIL, secrets=[0.5703, 1.7, 3.21, 20.0])
    assert t.message_before_publication == ("quanta_loss on the hidden inputs: differs from the expected value "
                                            "(1 of 1 entries off, worst by 3.2x the tolerance)")
    assert t.told_message(published=True) == msg
    other = TestResult("t", 0.0, 1.0, False, "alpha_n at alpha=0.570: f raised ValueError: bad 12.5",
                       secrets=[0.57, 12.5])
    assert other.message_before_publication == "alpha_n at alpha=…: f raised ValueError: bad …"
    # a number that is no secret stays; a record that kept none loses every number written as an argument
    assert TestResult("t", 0, 1, False, "f(N=23): off", secrets=[7.0]).message_before_publication == "f(N=23): off"
    old = TestResult.from_dict({**t.to_dict(), "secrets": None})
    assert old.secrets is None and old.message_before_publication.startswith("quanta_loss on the hidden inputs")
    assert TestResult.from_dict(t.to_dict()).secrets == t.secrets


_NUMBER = __import__("re").compile(r"(?<![\w.#])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _visible_text(html: str) -> str:
    import re
    html = re.sub(r"<style.*?</style>|<head.*?</head>", " ", html, flags=re.S)
    return __import__("html").unescape(re.sub(r"<[^>]+>", " ", html))


def _scrub(text: str) -> str:
    """What the engine writes that is no secret: points, counts of entries, tolerances, versions."""
    import re
    for pattern in (r"\d+(?:\.\d+)?\s*/\s*\d+(?:\.\d+)?", r"\d+(?:\.\d+)? (?:points?|of (?:its )?\d+)",
                    r"worst by \S+ the tolerance", r"\S+ standard errors where \S+ are allowed",
                    r"version \S+", r"\(\d+ points?[^)]*\)", r"tests? \d+", r"\d+ orders of magnitude"):
        text = re.sub(pattern, " ", text)
    return text


def _found(text: str, secrets: list, integers: bool) -> list[str]:
    """The numbers of ``text`` that show a value of ``secrets`` at the precision they are printed
    with; integers below 10 (counts, indices, factors) are no evidence, nor (``integers`` False:
    reference values) any below 100."""
    arr = np.abs(np.asarray([v for v in secrets if np.isfinite(v)], dtype=float))
    out = []
    for m in _NUMBER.finditer(text):
        token = m.group()
        x = abs(float(token))
        if x.is_integer() and x <= 2:  # 0, 1, 2 however written: no evidence
            continue
        if "." not in token and "e" not in token.lower():
            if x < (10 if integers else 100):
                continue
            tol = 0.5
        else:
            digits, _, exp = token.lower().partition("e")
            decimals = len(digits.split(".")[1]) if "." in digits else 0
            tol = 0.5 * 10.0 ** ((int(exp) if exp else 0) - decimals)
        if arr.size and np.any(np.abs(arr - x) <= tol * (1 + 1e-9)):
            out.append(token)
    return out


def _notebook_code(path) -> str:
    import json
    cells = json.loads(path.read_text())["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c.get("cell_type") == "code"
                       and not "".join(c["source"]).lstrip().startswith(("%", "!")))


def _cohort(assignment):
    """(label, code) of what the scan grades: the assignment's example submissions (the exemplar's
    cohort), then the correct one with a catalogued mistake appended (failing tests whose messages
    name calls with their inputs)."""
    import json

    from autograder.run.mistakes import read_mistakes
    from autograder.run.paths import REPO
    folder = REPO / "examples" / "submissions" / assignment
    out, correct = [], ""
    for path in sorted(folder.glob("*.ipynb")):
        try:
            code = _notebook_code(path)
        except (ValueError, KeyError, json.JSONDecodeError):
            continue  # not a notebook: graded as unreadable, its tests carry no input
        if "while True" in code or path.stem == "partial":
            continue  # hangs in-process (a sandboxed grade stops it); partial: the correct one's and the stub's
        out.append((path.stem, code))
        if path.stem == "correct":
            correct = code
    for m in read_mistakes(assignment)[:2]:
        out.append((f"correct + {m.description}", correct + "\n\n" + m.code))
    return out


def test_nothing_written_before_publication_shows_a_hidden_input_or_a_reference_value(monkeypatch):
    """Every page (HTML and .md feedback) and every visible Gradescope entry written before
    publication, for the exemplar's example submissions and ex7_1_quanta's, searched for the hidden
    tests' own inputs (recorded by the recording student, apart from the grader's ledger) and the
    reference's values on them (the reference called again): none is there. The raw messages do
    show inputs (what the redaction takes out), so the scan would catch them."""
    from autograder.cohort import pages
    from autograder.cohort.record import Record
    from autograder.course.inprocess import grade_code, reference_values
    from autograder.gradescope.results import results as gradescope
    from autograder.run.diagnose.leaks import numbers_of
    from autograder.run.record import GradeReport

    monkeypatch.setenv("PDL_PUBLISHED", "0")
    raw_leaks = 0
    for assignment in ("ex2_3_ising_perceptron", "ex7_1_quanta"):
        descriptions: dict = {}
        for label, code in _cohort(assignment):
            tests, student = grade_code(assignment, code)
            if label == "correct":
                descriptions = {t.name: t.message for t in tests if t.passed}
            report = GradeReport(assignment, label, score=sum(t.points for t in tests),
                                 max_score=sum(t.max_points for t in tests), tests=tests)
            rec = Record(**{**vars(report), "student": "s1"})
            # the inputs the test made: a value her functions returned, passed on, is hers, not hidden
            inputs = {}
            for name in {r.name for r in tests}:
                calls = [c for test, c in student.history if test == name]
                hers = set(numbers_of([c.value for c in calls]))
                inputs[name] = [v for c in calls for v in numbers_of([c.args, c.kwargs]) if v not in hers]
            # a passing test's line is its description, whose numbers are course text (below): the
            # reference is called again on the failing tests' inputs only
            failed = {t.name for t in tests if not t.passed}
            values = {t: reference_values(assignment, student, t) if t in failed else [] for t in inputs}
            for t in tests:
                if not t.passed:
                    raw_leaks += bool(_found(_scrub(t.message), inputs[t.name], True))
            data = gradescope(report)
            visible = "\n".join(e.get("output", "") + " " + e.get("name", "") for e in data["tests"]
                                if e["visibility"] == "visible")
            # each test's own line against its own inputs and values; the rest of the page (what went
            # wrong, leads, notes) against every failing test's (a test's description may print a
            # number another test happens to pass)
            failing = [t.name for t in tests if not t.passed]
            wrong_inputs = [v for n in failing for v in inputs[n]]
            wrong_values = [v for n in failing for v in values[n]]
            for where, page in (("feedback.html", _visible_text(pages.feedback_html(rec))),
                                ("feedback.md", pages.feedback_markdown(rec)), ("gradescope visible", visible)):
                for t, msg in pages.test_messages(rec):
                    if msg and msg in page:
                        # the test's description (its docstring, course text the same for every
                        # student, what a passing test says) is not scanned: a tolerance it states
                        # may equal a value at the precision printed
                        course = set(_NUMBER.findall(descriptions.get(t.name, "")))
                        line = _scrub(msg)
                        found = [n for n in _found(line, inputs[t.name], True) + _found(line, values[t.name], False)
                                 if n not in course]
                        assert not found, (assignment, label, where, t.name, found)
                        page = page.replace(msg, " ")
                text = _scrub(page)
                found = _found(text, wrong_inputs, True) + _found(text, wrong_values, False)
                assert not found, (assignment, label, where, found)
    assert raw_leaks, "no test message carried an input: the scan would have nothing to find"
