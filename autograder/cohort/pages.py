"""The pages ``pdl grade-cohort`` writes: each student's feedback (HTML and Markdown), the
cohort report and the written answers by question. Static HTML, readable offline: Markdown and
math are rendered here (``autograder.cohort.markup``: MathML, no script), figures are inline PNGs.

Each HTML page is a Jinja2 template (``autograder/cohort/templates/``) filled by a view model: a
function of a record (``feedback_view``, ``report_view``, ``written_view``) that returns plain
data (texts, numbers already formatted, figures as ``data:`` URIs) and escapes nothing. The
templates' environment escapes every value (``autoescape``), so a text that comes from a student
(answers, error messages of their code, ids, names) or a TA (comments) is escaped without anyone
remembering to; only HTML this package made is passed as ``Markup`` and written as is: Markdown
and math rendered by ``markup`` (a parser that shows raw HTML as text), the similarity section.
Then, in ``page.html``, which every page extends, the body passes the allow-list sanitizer
(``markup.sanitize``) and the page carries a Content-Security-Policy (``CSP``) under which no
script runs and nothing is fetched: either alone keeps a hostile submission's markup from
running when the TA opens the page.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
from functools import lru_cache
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined
from jinja2.ext import Extension
from markupsafe import Markup

import course_config
from autograder.cohort import late as late_policy
from autograder.cohort import markup
from autograder.cohort.found import mistakes_found
from autograder.cohort.handscores import HandScores
from autograder.cohort.record import CohortSummary, Record
from autograder.course.source import load
from autograder.run import carry, settings
from autograder.run.diagnosis import tells
from autograder.run.grading import release_questions
from autograder.run.record import Answer, Kind, TestResult, at_fault, credited

NBGRADER_PLACEHOLDERS = ("YOUR ANSWER HERE",)  # nbgrader's ClearSolutions.text_stub (its default)

CSS = ("body{font-family:system-ui,sans-serif;max-width:64em;margin:2em auto;padding:0 1em;line-height:1.45;"
       "color:#222}table{border-collapse:collapse;margin:.6em 0}td,th{padding:.3em .6em;"
       "border-bottom:1px solid #ddd;vertical-align:top;text-align:left}th{background:#f4f4f4}"
       "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
       ".ok td:first-child{color:#176}"
       ".bad td:first-child{color:#a22}.miss{color:#a22}.late{color:#a40;font-weight:600}"
       ".diag{margin-top:.3em;padding:.2em .5em;border-left:3px solid #c80;background:#fff8ec}"
       ".values{margin-top:.3em;font-family:ui-monospace,monospace;font-size:.9em;overflow-wrap:anywhere}"
       ".answer{border-left:3px solid #ccc;padding-left:1em;margin:.4em 0}.comment{border-left:3px solid #47a;"
       "padding-left:1em;margin:.4em 0;background:#f3f7fc}section{margin-bottom:2.5em}"
       "details>summary{cursor:pointer;color:#345}small{color:#666}img{max-width:100%}"
       ".side{table-layout:fixed;width:100%}.side pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8em}"
       + markup.CSS)


# No script, frame, form, font or fetch: images only inline (data:), styles only the page's own
# <style> (by its hash: no style attribute, no other sheet), no <base>.
CSP = ("default-src 'none'; img-src data:; "
       f"style-src 'sha256-{base64.b64encode(hashlib.sha256(CSS.encode()).digest()).decode()}'; "
       "base-uri 'none'; form-action 'none'")


class Joined(Extension):
    """The templates are written an element a line, indented; a line break and the indentation
    after it are not part of the page (a space wanted at a join is written at the start of the
    next line's text: ``{% if late %} late``). Only the templates' own text is joined, never a
    value put in it; the pages are written as they were before templates, with no space between
    elements. A template's tag or expression stays on one line."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return re.sub(r"\n[ \t]*", "", source)


def _sanitized(body) -> Markup:
    """The filter ``sanitize`` of page.html: the body through ``markup.sanitize`` (looked up when
    called, so a test can take it out and see the policy alone hold)."""
    return Markup(markup.sanitize(str(body)))


ENV = Environment(loader=PackageLoader("autograder.cohort", "templates"), autoescape=True,
                  undefined=StrictUndefined, extensions=[Joined])
ENV.filters["sanitize"] = _sanitized


def render(template: str, view: dict) -> str:
    """A whole page: ``template`` (one extending page.html) filled with ``view``, a view model's
    plain data; every value is escaped unless it is ``Markup``."""
    # CSS and CSP are this module's constants, written as they are: the policy holds the style's
    # hash, and the policy stands in a "-quoted attribute (it has no ")
    return ENV.get_template(template).render(view, css=Markup(CSS), csp=Markup(CSP)) + "\n"


def page(title: str, body: str) -> str:
    """A whole page around ``body``, HTML made elsewhere (similarity.html): sanitized
    (``markup.sanitize``), under the policy ``CSP``; ``title`` is text (escaped)."""
    return render("page.html", {"title": title, "body": Markup(body)})


# What Markdown would read as HTML: a "<" that opens a tag, a comment or an autolink, an entity
# ("&amp;", "&#62;"), and a backslash before punctuation (it would undo the escape of what follows).
_MD_HTML = re.compile(r"<(?=[A-Za-z/!?])|&(?=#?\w+;)|\\(?=[!-/:-@\[-`{-~])")


def md_text(text) -> str:
    """Text for a Markdown file, as plain as it can stay (``x > 0`` stays ``x > 0``, never
    ``&gt;``): only what Markdown would read as HTML is backslash-escaped (``\\<b>``), so it shows
    as typed, never as markup. Newlines become spaces."""
    return _MD_HTML.sub(lambda m: "\\" + m.group(0), str(text)).replace("\n", " ")


# -- what each record says ----------------------------------------------------------------
def answer_state(m: Answer) -> str:
    """'no cell', 'blank' (also nbgrader's untouched YOUR ANSWER HERE) or 'yes'."""
    if m.missing:
        return "no cell"
    if m.blank or str(m.text).strip() in NBGRADER_PLACEHOLDERS:
        return "blank"
    return "yes"


def complete_answers(summary: CohortSummary) -> CohortSummary:
    """A record without written answers (its notebook could not be read) gets every question of
    the release as 'no cell', so its written total counts them (0 of the same maximum)."""
    if not any(r.manual for r in summary.results):
        return summary

    questions = None
    for rec in summary.results:
        if not rec.manual:
            if questions is None:
                questions = release_questions(summary.assignment)
            rec.manual = [Answer.from_dict({**q, "cell": None, "text": "", "missing": True, "blank": True})
                          for q in questions]
    return summary


def written(rec: Record, hand: HandScores | None = None) -> dict:
    """Each written question with the TA's score and comment, and the totals: blank or missing
    answers score 0 without the TA; an answered one counts once the TA has scored it."""
    items, got, top, ungraded = [], 0.0, 0.0, 0
    for m in rec.manual or []:
        q = str(m.question)
        pts = float(m.points or 0)
        state = answer_state(m)
        entered = hand.get(rec.student, q) if hand else {"score": "", "comment": ""}
        score = hand.points(rec.student, q, pts) if hand else None
        if score is None and state != "yes":
            score = 0.0
        if score is None:
            ungraded += 1
        else:
            got += score
        top += pts
        items.append({"question": q, "points": pts, "state": state, "score": score,
                      "typed": entered["score"], "comment": entered["comment"], "text": m.text})
    return {"items": items, "score": got, "max": top, "ungraded": ungraded}


def previous_grading(prev: dict | None) -> str:
    """The grading of an answer that changed since it was scored, as one line ("" if none)."""
    if not prev or not (prev.get("score") or str(prev.get("comment", "")).strip()):
        return ""
    return (f"score {prev.get('score') or '—'}"
            + (f"; comment: {prev['comment']}" if str(prev.get("comment", "")).strip() else "")
            + " (answer changed since)")


def troubled(t: TestResult) -> bool:
    """A test the student's process could not answer (a timeout, a kill, a crash); one the grader
    did not finish is said by the record's own note."""
    return t.troubled and t.kind is not Kind.NOT_GRADED


def notes(rec: Record) -> list[str]:
    """Every grader note of a record, once each: its errors, then tests that timed out or crashed."""
    out: list[str] = []
    for e in rec.errors or []:
        if e not in out:
            out.append(str(e))
    for t in rec.tests or []:
        msg = str(t.message)
        if not t.passed and troubled(t):
            line = f"{t.name}: {msg}"
            if line not in out:
                out.append(line)
    return out


def test_messages(rec: Record) -> list[tuple[TestResult, str]]:
    """Each test with its message, a problem already said in a note replaced by a pointer to it
    (an unreadable notebook is said once, not once per test)."""
    notes = [str(e) for e in rec.errors or [] if len(str(e)) >= 30]
    out = []
    for t in rec.tests or []:
        if t.error == "invalid_notebook":  # every test: the reason is the note's
            out.append((t, "the notebook could not be read: see the note below"))
            continue
        msg = str(t.told_message(settings.current().published))  # before publication: no hidden input
        for note in notes:
            if note in msg:
                msg = msg.replace(note, "see the note below")
        out.append((t, msg))
    return out


def mistake_groups(rec: Record) -> list[dict]:
    """What went wrong: each function at fault once (``record.at_fault``, read from each failing
    test's ``fault``), with its failing tests that are not credited, the points they lost and the
    words of its diagnoses, each once. [{"function", "tests", "lost", "what"}] in the order the
    tests ran; "function" "" for tests the record charges to no function."""
    tell = _tell()
    return [{"function": c.function, "tests": [str(t.name) for t in c.tests], "lost": c.lost, "what": c.words(tell)}
            for c in at_fault(rec.tests)]


def credits(rec: Record) -> list[dict]:
    """Kept by error carried forward: each credited test, the points it kept and the functions
    it follows from, the one it is charged to first (``Fault.roots``). [{"test", "points", "from"}]."""
    return [{"test": str(t.name), "points": float(t.max_points), "from": [str(f) for f in t.fault.roots]}
            for t in credited(rec.tests) if t.fault is not None]


NO_FUNCTION = "tests charged to no function"  # what an entry of "What went wrong" is called without one


def _tell() -> bool:
    """Whether the feedback pages tell a known mistake's rule text or lead to it
    (``course_config.HINTS``; ``PDL_PUBLISHED=1``: the pages are written for after publication)."""
    now = settings.current()
    return tells(now.hints, published=now.published)


def values_of(t: TestResult) -> str:
    """A failing test's values (her value, its call, the expected value: ``TestResult.shown``), on
    pages written for after publication only (``PDL_PUBLISHED=1``): before, a hidden input and a
    reference value are secrets."""
    return t.values if settings.current().published else ""


def _footer() -> str:
    """What the pages say of the hidden tests' inputs and expected values."""
    if settings.current().published:
        return ("Hidden tests use inputs you had not seen; a failing test shows your value, the call that "
                "returned it and the expected value.")
    return "Hidden tests use inputs you have not seen; the messages say what was checked, not the expected values."


def _group_of(groups: list[dict], t: TestResult) -> int:
    """The entry of "What went wrong" that lists ``t`` (-1 for none: passed, credited, unreadable)."""
    return next((k for k, g in enumerate(groups) if t.name in g["tests"]), -1)


def _credit_of(kept: list[dict], t: TestResult) -> int:
    """The entry of "Kept by error carried forward" that lists ``t`` (-1 for none)."""
    return next((k for k, c in enumerate(kept) if c["test"] == t.name), -1)


def late(rec: Record, deadline) -> tuple[str, str]:
    """('yes'|'no'|'', how late as H:MM:SS) against the student's own deadline: the assignment's
    (naive UTC datetime) moved by her roster extension (autograder/cohort/late.py)."""

    fate = late_policy.assess(rec, deadline, {}, 0.0, 0.0)
    return fate["late"], fate["by"]


def penalty(rec: Record, w: dict, deadline) -> dict:
    """What lateness costs a record under course_config.LATE_POLICY (``late.assess``), ``w``: its written()."""
    return late_policy.assess(rec, deadline, late_policy.policy_for(str(rec.assignment)),
                              rec.score + w["score"], rec.max_score + w["max"])


def deadline_of(assignment: str):
    """The deadline in course_config.DEADLINES as a naive UTC datetime, or None."""
    from nbgrader.utils import parse_utc  # heavy (nbgrader): only where a deadline is set

    try:
        text = (getattr(course_config, "DEADLINES", {}) or {}).get(assignment)
        return parse_utc(text) if text else None
    except (ImportError, ValueError, OverflowError):
        return None


@lru_cache(maxsize=8)
def questions_of(assignment: str) -> dict:
    """question name -> (prompt, model answer) from the assignment's source ({} if unknown)."""
    try:

        return {q.name: (q.prompt, q.model_answer) for q in load(assignment).written_questions()}
    except Exception:  # noqa: BLE001 - pages without prompts rather than no pages
        return {}


def when_text(iso: str, assignment: str = "") -> str:
    """2026-10-15T21:30:00Z -> 2026-10-15 23:30:00 Europe/Berlin: in the zone the assignment's
    deadline is written in, with its name (``late.local_time``; UTC where it names none)."""
    return late_policy.local_time(iso, str(assignment or ""))


def _pts(x) -> str:
    return f"{float(x):g}"


def _unit(points: float) -> str:
    return "point" if float(points) == 1 else "points"


def _g(x) -> str:
    return format(x, "g")


def _md(text) -> Markup:
    """Markdown and math as HTML (``markup.render``: raw HTML in ``text`` shown as text)."""
    return Markup(markup.render(text))


# -- feedback ------------------------------------------------------------------------------
def feedback_markdown(rec: Record, hand: HandScores | None = None, deadline=None) -> str:
    w = written(rec, hand)
    head = f"## {md_text(rec.assignment)}: {rec.score:g} / {rec.max_score:g}"
    lines = [head, ""]
    if w["items"]:
        total = rec.score + w["score"]
        lines += [f"**Total: {total:g} / {rec.max_score + w['max']:g}** (tests {rec.score:g} / "
                  f"{rec.max_score:g}, written answers {w['score']:g} / {w['max']:g}"
                  + (f"; {w['ungraded']} written answer(s) not graded yet" if w["ungraded"] else "") + ")", ""]
    flag, by = late(rec, deadline)
    if rec.submitted_at:
        lines += [f"Submitted {md_text(when_text(rec.submitted_at, rec.assignment))}"
                  + (f" (late by {by})" if flag == "yes" else "") + ".", ""]
    fate = penalty(rec, w, deadline)
    if fate["why"]:
        lines += [md_text(fate["why"]) + (f" **Final: {fate['final']:g} / {rec.max_score + w['max']:g}**"
                                          if fate["penalty"] else ""), ""]
    groups = mistake_groups(rec)
    if groups:
        lines += ["What went wrong (each function at fault once, with its failing tests and the points they lost):",
                  ""]
        for k, g in enumerate(groups):
            lines.append(f"{k + 1}. **{md_text(g['function'] or NO_FUNCTION)}**: {_pts(g['lost'])} "
                         f"{_unit(g['lost'])} lost (tests: {md_text(', '.join(g['tests']))})")
            lines += [f"   - {md_text(w)}" for w in g["what"]]
        lines.append("")
    kept = credits(rec)
    if kept:
        lines += ["Kept by error carried forward (each credited test, with the function it follows from):", ""]
        lines += [f"- {md_text(c['test'])} ({_pts(c['points'])} {_unit(c['points'])} kept): it follows from your "
                  f"{md_text(', '.join(c['from']))}" for c in kept]
        lines += ["", md_text(carry.RULE), ""]
    for t, msg in test_messages(rec):
        mark = "✅" if t.passed else "↪️" if t.carried_forward else "❌"
        k = _group_of(groups, t)
        see = f" (charged to {md_text(groups[k]['function'] or NO_FUNCTION)}: see {k + 1} above)" if k >= 0 else ""
        lines.append(f"- {mark} **{md_text(t.name)}** ({t.points:g}/{t.max_points:g}): {md_text(msg)}{see}")
        if values := values_of(t):
            lines.append(f"  - {md_text(values)}")
        if t.carried_forward:
            lines.append(f"  - *{md_text(t.carried_forward)}*")
    if rec.functions:
        lines += ["", "By function (points the release gives it; points lost here):", ""]
        lines += [f"- {md_text(str(row.function))}: {_pts(row.max_points)}"
                  + (f", lost {_pts(row.lost)}" if float(row.lost or 0) else "") for row in rec.functions]
    if notes(rec) and rec.errors:
        lines += ["", "Notes from the grader:"] + [f"- {md_text(e)}" for e in dict.fromkeys(rec.errors)]
    if w["items"]:
        answered = sum(i["state"] == "yes" for i in w["items"])
        lines += ["", f"Written answers: {answered} of {len(w['items'])} answered "
                      f"({w['max']:g} points, graded by hand)."]
        for i in w["items"]:
            q = md_text(i["question"])
            if i["state"] == "no cell":
                lines.append(f"- {q}: no answer cell found (0 / {i['points']:g})")
            elif i["state"] == "blank":
                lines.append(f"- {q}: left blank (0 / {i['points']:g})")
            elif i["score"] is None:
                lines.append(f"- {q}: not graded yet ({i['points']:g} {_unit(i['points'])})")
            else:
                lines.append(f"- {q}: {i['score']:g} / {i['points']:g}")
            if i["comment"].strip():
                lines.append(f"  - *Comment:* {md_text(i['comment'].strip())}")
    lines += ["", f"_Graded against version {md_text(rec.version or '?')}. {md_text(_footer())}_"]
    return "\n".join(lines) + "\n"


def feedback_view(rec: Record, hand: HandScores | None = None, deadline=None) -> dict:
    """What a student's feedback page shows (feedback.html), as plain data: texts as they are (the
    template escapes them), Markdown rendered by ``markup`` (Markup)."""
    w = written(rec, hand)
    groups = mistake_groups(rec)
    kept = credits(rec)
    tests = []  # "mistake": the number of the function at fault that lists the test (0: none); "credit" likewise
    for t, msg in test_messages(rec):
        k = _group_of(groups, t)
        tests.append({"name": str(t.name), "ok": bool(t.passed or t.carried_forward),
                      "points": _g(t.points), "max_points": _g(t.max_points), "message": msg,
                      "mistake": k + 1, "charged": (groups[k]["function"] or NO_FUNCTION) if k >= 0 else "",
                      "credit": _credit_of(kept, t) + 1, "carried_forward": str(t.carried_forward or ""),
                      "values_shown": values_of(t)})
    flag, by = late(rec, deadline)
    fate = penalty(rec, w, deadline)
    view = {
        "title": f"{rec.assignment}: {rec.student}", "assignment": str(rec.assignment),
        "student": str(rec.student), "name": str(rec.name) if rec.name else "",
        "submitted": when_text(rec.submitted_at, rec.assignment) if rec.submitted_at else "",
        "late_by": by if flag == "yes" else "",
        "tests_score": f"{rec.score:g} / {rec.max_score:g}",
        "total": f"{rec.score + w['score']:g} / {rec.max_score + w['max']:g}",
        "late_why": fate["why"],
        "final": f"{fate['final']:g} / {rec.max_score + w['max']:g}" if fate["penalty"] else "",
        "mistakes": [{"function": g["function"] or NO_FUNCTION, "lost": _pts(g["lost"]), "unit": _unit(g["lost"]),
                      "tests": ", ".join(g["tests"]), "what": [Markup(markup.render_inline(w)) for w in g["what"]]}
                     for g in groups],
        "credits": [{"test": c["test"], "points": _pts(c["points"]), "unit": _unit(c["points"]),
                     "from": ", ".join(c["from"])} for c in kept],
        "tests": tests, "carry_rule": carry.RULE,
        "functions": [{"function": str(row.function), "points": _pts(row.max_points),
                       "lost": _pts(row.lost or 0), "lost_any": bool(float(row.lost or 0))}
                      for row in rec.functions or []],
        "notes": [str(n) for n in dict.fromkeys(rec.errors or [])],
        "version": str(rec.version or "?"), "footer": _footer(),
        "written": None,
    }
    if w["items"]:
        prompts = questions_of(str(rec.assignment))
        answers = []
        for i in w["items"]:
            prompt = prompts.get(i["question"], ("", ""))[0]
            answers.append({"question": i["question"], "points": _g(i["points"]), "unit": _unit(i["points"]),
                            "state": i["state"], "score": None if i["score"] is None else _g(i["score"]),
                            "comment": _md(i["comment"]) if i["comment"].strip() else None,
                            "prompt": _md(prompt) if prompt else None,
                            "answer": _md(i["text"]) if i["state"] == "yes" else None})
        view["written"] = {"score": f"{w['score']:g} / {w['max']:g}", "ungraded": w["ungraded"], "max": _g(w["max"]),
                           "answered": sum(i["state"] == "yes" for i in w["items"]), "answers": answers}
    return view


def feedback_html(rec: Record, hand: HandScores | None = None, deadline=None) -> str:
    return render("feedback.html", feedback_view(rec, hand, deadline))


# -- the cohort report ---------------------------------------------------------------------
def _figure_png(draw, rows: int = 0) -> str:

    import matplotlib  # heavy: only the report's figures
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # heavy: only the report's figures

    fig, ax = plt.subplots(figsize=(8, max(3.6, 0.28 * rows + 1.2)))
    draw(ax)
    fig.tight_layout()
    if rows:  # long test names on the y axis need room
        fig.subplots_adjust(left=0.42)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def test_names(results: list[Record]) -> list[str]:
    names: list[str] = []
    for rec in results:
        for t in rec.tests:
            if t.name not in names:
                names.append(t.name)
    return names


def feedback_href(student: str) -> str:
    return "feedback/" + quote(f"{student}.html")


def report_figures(scores: list[float], full: float, rates: dict[str, float],
                   slow: list[tuple[str, float]]) -> list[str]:
    """The report's figures as data: URIs of PNGs: the histogram of ``scores`` (tests, out of
    ``full``) in whole students, each test's pass rate (``rates``: name -> fraction passing), and
    the slowest submissions (``slow``: (student, seconds))."""
    from matplotlib.ticker import MaxNLocator  # heavy: only the report's figures

    def hist(ax):
        ax.hist(scores, bins=max(1, min(int(full), 25)), range=(0, full), color="#4a7", edgecolor="white")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # whole students
        ax.set_xlabel("score (tests)")
        ax.set_ylabel("students")
        ax.set_title("score distribution")

    def pass_rates(ax):
        ax.barh(range(len(rates)), list(rates.values()), color="#47a")
        ax.set_yticks(range(len(rates)), list(rates), fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("fraction passing")
        ax.set_title("per-test pass rate")

    def slowest(ax):
        ax.barh(range(len(slow)), [seconds for _, seconds in slow], color="#a74")
        ax.set_yticks(range(len(slow)), [student for student, _ in slow], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("seconds")
        ax.set_title("slowest submissions")

    figures = [_figure_png(hist)]
    if rates:
        figures.append(_figure_png(pass_rates, rows=len(rates)))
    if slow:
        figures.append(_figure_png(slowest, rows=len(slow)))
    return figures


def _student_row(r: Record, hand: HandScores | None, deadline, fate: dict) -> dict:
    """One row of the report's table of students (report.html)."""
    w = written(r, hand)
    rn = notes(r)
    flag, by = late(r, deadline)
    return {"href": feedback_href(r.student), "student": str(r.student), "name": str(r.name or ""),
            "email": str(r.email or ""), "submitted": when_text(r.submitted_at, r.assignment),
            "late_by": by if flag == "yes" else "",
            "lms_late": late_policy.LMS_NAMES.get(str(r.lms), "LMS") if fate["lms_late"] == "yes" else "",
            "tests": f"{r.score:g} / {r.max_score:g}",
            "written": f"{w['score']:g} / {w['max']:g}" if w["items"] else "",
            "to_grade": w["ungraded"] if w["items"] else 0,
            "total": f"{r.score + w['score']:g} / {r.max_score + w['max']:g}",
            "final": _g(fate["final"]), "penalty": _g(fate["penalty"]) if fate["penalty"] else "",
            "notes": len(rn), "first_note": (rn[0][:160] + ("…" if len(rn[0]) > 160 else "")) if rn else "",
            "seconds": f"{float(r.seconds):.1f}"}


def report_view(summary: CohortSummary, hand: HandScores | None = None, deadline=None, similar: str = "") -> dict:
    """What the cohort report shows (report.html), as plain data: the statistics, a row per
    student, per test and per mistake found, the grader notes, the figures (``report_figures``).
    ``similar``: the similarity section, HTML (``similarity.report_section``, which escapes)."""
    results = summary.results
    names = test_names(results)
    scores = [r.score for r in results]
    maxes = [r.max_score for r in results if r.max_score]
    full = max(maxes) if maxes else 1.0
    passed = {n: sum(any(t.name == n and t.passed for t in r.tests) for r in results) for n in names}
    points: dict = {}
    for r in results:
        for t in r.tests:
            points.setdefault(t.name, t.max_points)
    n = max(len(results), 1)
    slow = sorted(results, key=lambda r: -r.seconds)[:10]
    fates = [penalty(r, written(r, hand), deadline) for r in results]
    all_notes = [(r.student, x) for r in results for x in notes(r)]
    return {
        "title": f"{summary.assignment} cohort", "assignment": str(summary.assignment),
        "version": str(summary.version or "?"), "mean": f"{sum(scores) / len(scores) if scores else 0.0:.2f}",
        "full": _g(full), "full_marks": sum(s == full for s in scores),
        "with_notes": sum(bool(notes(r)) for r in results),
        # late by her deadline or by the LMS's own flag (Canvas's _LATE), each student once
        "late_count": (sum(f["late"] == "yes" or f["lms_late"] == "yes" for f in fates)
                       if deadline is not None or any(f["lms_late"] for f in fates) else None),
        "late_flagged": sum(f["lms_late"] == "yes" and f["late"] != "yes" for f in fates),
        "late_lms": next((late_policy.LMS_NAMES.get(str(r.lms), "the LMS") for r, f in zip(results, fates)
                          if f["lms_late"] == "yes"), "the LMS"),
        "columns": {"name": any(r.name or r.email for r in results),
                    "time": any(r.submitted_at or r.lms_late is not None for r in results),
                    "written": any(r.manual for r in results),
                    "final": any(f["penalty"] for f in fates)},
        "students": [_student_row(r, hand, deadline, fate) for r, fate in zip(results, fates)],
        "figures": report_figures(scores, full, {x: passed[x] / n for x in names},
                                  [(r.student, r.seconds) for r in slow]),
        "tests": [{"name": x, "points": _pts(points.get(x, 0)), "passed": passed[x],
                   "rate": f"{100 * passed[x] / n:.0f}%"} for x in names],
        # catalogued mistakes (also in mistakes.csv), then generic diagnoses
        "mistakes": [{"mistake": m["mistake"], "hint": m["hint"], "function": m["function"],
                      "students": [{"href": feedback_href(s), "student": s} for s in m["students"]]}
                     for m in mistakes_found(summary)],
        "similar": Markup(similar),
        "notes": [{"href": feedback_href(s), "student": s, "note": x} for s, x in all_notes],
        "id_notes": list(summary.notes or []),
        "absent": [{"name": a.name or a.roster_id, "roster_id": a.roster_id}
                   for a in summary.absent or []],
        "unmatched": list(summary.unmatched),
    }


def cohort_report(summary: CohortSummary, hand: HandScores | None = None, deadline=None, similar: str = "") -> str:
    """The cohort report; ``similar``: the similarity section (``similarity.report_section``)."""
    return render("report.html", report_view(summary, hand, deadline, similar))


# -- written answers by question -----------------------------------------------------------
def _graded_answer(student: str, question: str, m: Answer, hand: HandScores | None) -> dict:
    """One student's answer to a question on written.html, with the score and comment entered
    so far and the previous grading of an answer that changed since."""
    entered = hand.get(student, question) if hand else {"score": "", "comment": ""}
    prev = hand.previous.get((student, question)) if hand else None
    changed = bool(previous_grading(prev))
    return {"anchor": f"{question}-{student}", "student": student, "state": answer_state(m),
            "answer": _md(m.text), "score": entered["score"],
            "comment": _md(entered["comment"]) if entered["comment"].strip() else None,
            "graded": bool(entered["score"] or entered["comment"].strip()),
            "to_grade": changed and not entered["score"],
            "previous": {"score": prev.get("score") or "",
                         "comment": _md(prev["comment"]) if str(prev.get("comment", "")).strip() else None}
            if changed else None}


def written_view(summary: CohortSummary, hand: HandScores | None = None) -> dict:
    """What written.html shows, as plain data: each question (its prompt, model answer and rubric
    rendered), then every student's answer with the score and comment entered so far."""
    prompts = questions_of(summary.assignment)
    by_question: dict[str, list] = {}
    points: dict[str, float] = {}
    for rec in summary.results:
        for m in rec.manual or []:
            by_question.setdefault(str(m.question), []).append((rec.student, m))
            points.setdefault(str(m.question), float(m.points or 0))
    questions = []
    for name in list(prompts) + [q for q in by_question if q not in prompts]:
        prompt, model = prompts.get(name, ("", ""))
        pts = points.get(name)
        if pts is None:
            try:
                pts = next(q.points for q in load(summary.assignment).written_questions() if q.name == name)
            except Exception:  # noqa: BLE001
                pts = 0.0
        questions.append({"name": name, "points": _g(pts), "unit": _unit(pts), "prompt": _md(prompt),
                          "model": _md(model),
                          "answers": [_graded_answer(student, name, m, hand)
                                      for student, m in sorted(by_question.get(name, []), key=lambda pair: pair[0])]})
    return {"title": f"{summary.assignment}: written answers", "assignment": str(summary.assignment),
            "questions": questions}


def written_answers_html(summary: CohortSummary, hand: HandScores | None = None) -> str:
    """Grading by question: each written question with its model answer and rubric, then every
    student's answer to it, with the score and comment entered so far (Gradescope's 'grade by
    question'). Markdown and math rendered."""
    return render("written.html", written_view(summary, hand))
