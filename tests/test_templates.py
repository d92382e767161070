"""The pages are Jinja2 templates with autoescape on (issue 33, item 5): the view models
(``pages.feedback_view``, ``report_view``, ``written_view``) return text as it came, escaping
nothing, and the templates escape every value that is not ``Markup``. So a student's
``<script>`` reaches the page as text even with the sanitizer taken out, and a value a view model
forgot to escape is escaped anyway. Every template is rendered here, and ships in the wheel."""

import fnmatch
import tomllib
from pathlib import Path

import pytest
from conftest import EXEMPLAR
from jinja2 import BaseLoader
from markupsafe import Markup

from autograder.cohort import markup, pages
from autograder.cohort.handscores import HandScores
from autograder.cohort.record import Absent, CohortSummary, Record
from autograder.run.paths import REPO
from autograder.run.record import TestResult

TEMPLATES = Path(pages.__file__).parent / "templates"
HOSTILE = "<script>alert(1)</script>"
ATTRIBUTE = "x'\"><img src=x onerror=alert(2)>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def _record(student: str = HOSTILE) -> Record:
    return Record.from_dict({
            "student": student, "name": ATTRIBUTE, "email": HOSTILE, "assignment": EXEMPLAR, "score": 1.0,
            "max_score": 2.0, "version": HOSTILE, "submitted_at": HOSTILE, "seconds": 1.0,
            "errors": [HOSTILE, f"invalid notebook: {ATTRIBUTE}"],
            "tests": [{"name": HOSTILE, "points": 0.0, "max_points": 1.0, "passed": False, "message": ATTRIBUTE,
                       "diagnosis": HOSTILE, "carried_forward": ""},
                      {"name": "test_ok", "points": 1.0, "max_points": 1.0, "passed": False, "message": HOSTILE,
                       "carried_forward": ATTRIBUTE}],
            "functions": [{"function": HOSTILE, "max_points": 2.0, "lost": 1.0}],
            "manual": [{"question": "written_1", "points": 1.0, "text": HOSTILE, "missing": False, "blank": False},
                       {"question": HOSTILE, "points": 2.0, "text": ATTRIBUTE, "missing": False, "blank": False}]})


def _summary() -> CohortSummary:
    return CohortSummary(assignment=EXEMPLAR, version=HOSTILE, results=[_record(), _record("ada")],
                         unmatched=[HOSTILE], notes=[ATTRIBUTE], absent=[Absent(name=HOSTILE, roster_id=ATTRIBUTE)])


def _every_page() -> dict[str, str]:
    """Each page the cohort writes, of records that carry hostile text everywhere."""
    summary = _summary()
    return {"feedback": pages.feedback_html(summary.results[0]),
            "report": pages.cohort_report(summary, similar="<h2>Similar submissions</h2>"),
            "written": pages.written_answers_html(summary),
            "page": pages.page(HOSTILE, "<p>made elsewhere</p>")}


def test_the_view_models_escape_nothing():
    """What a view model returns is the text as it came: escaping is the templates' job."""
    summary = _summary()
    view = pages.feedback_view(summary.results[0])
    assert view["student"] == HOSTILE and view["name"] == ATTRIBUTE and view["notes"][0] == HOSTILE
    assert view["tests"][0]["name"] == HOSTILE and view["functions"][0]["function"] == HOSTILE
    report = pages.report_view(summary)
    assert report["students"][0]["student"] == HOSTILE and report["unmatched"] == [HOSTILE]
    assert report["figures"] and all(src.startswith("data:image/png;base64,") for src in report["figures"])
    written = pages.written_view(summary)
    assert [a["student"] for q in written["questions"] for a in q["answers"]][:2] == [HOSTILE, "ada"]


def _markup_keys(value, key="") -> set[str]:
    if isinstance(value, Markup):
        return {key}
    if isinstance(value, dict):
        return set().union(*(_markup_keys(v, k) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return set().union(*(_markup_keys(v, key) for v in value))
    return set()


def test_only_html_made_here_is_markup():
    """A view model marks as Markup only HTML the engine made: Markdown and math rendered by
    ``markup`` (which shows raw HTML as text) and the similarity section; nothing else."""
    summary = _summary()
    hand = HandScores(values={(HOSTILE, "written_1"): {"score": HOSTILE, "comment": HOSTILE}},
                            previous={(HOSTILE, "written_1"): {"score": "1", "comment": HOSTILE}})
    views = [pages.feedback_view(summary.results[0], hand), pages.report_view(summary, hand, similar="<h2>s</h2>"),
             pages.written_view(summary, hand)]
    found = set().union(*(_markup_keys(v) for v in views))
    assert found == {"what", "comment", "prompt", "answer", "model", "similar"}, found


@pytest.mark.parametrize("which", ["feedback", "report", "written", "page"])
def test_hostile_text_is_escaped_by_the_template_alone(which, monkeypatch):
    """With the sanitizer taken out (the Content-Security-Policy aside), a student's <script>
    still reaches the page as text: the template escaped it, no view model did."""
    monkeypatch.setattr(markup, "sanitize", lambda body: body)
    text = _every_page()[which]
    assert "<script" not in text and "<img src=x" not in text
    assert ESCAPED in text  # shown, as text
    title = text.split("<title>", 1)[1].split("</title>", 1)[0]  # the title is not sanitized: escaped only
    assert "<" not in title and (which not in ("feedback", "page") or ESCAPED in title)


def test_a_value_a_view_model_forgot_to_escape_is_escaped():
    """A new template, or a new value in one, gets escaping without anyone remembering it: text
    in an element or an attribute is escaped, Markup alone is written as is; and a page that
    extends page.html is sanitized and carries the policy."""
    env = pages.ENV
    assert env.autoescape is True
    assert env.from_string("<p title='{{ x }}'>{{ x }}</p>").render(x=ATTRIBUTE) == (
        "<p title='x&#39;&#34;&gt;&lt;img src=x onerror=alert(2)&gt;'>"
        "x&#39;&#34;&gt;&lt;img src=x onerror=alert(2)&gt;</p>")
    assert env.from_string("{{ x }}").render(x=Markup("<b>made here</b>")) == "<b>made here</b>"
    new = env.from_string('{% extends "page.html" %}{% block body %}<h1>{{ x }}</h1>{{ y }}{% endblock %}')
    text = new.render(title=HOSTILE, x=HOSTILE, y=Markup(HOSTILE), css=Markup(pages.CSS), csp=Markup(pages.CSP))
    assert f"<title>{ESCAPED}</title>" in text and f"<h1>{ESCAPED}</h1>" in text
    assert "<script" not in text  # the Markup one: removed by the sanitizer
    assert f'<meta http-equiv="Content-Security-Policy" content="{pages.CSP}">' in text


def test_no_template_turns_escaping_off():
    for path in TEMPLATES.glob("*.html"):
        source = path.read_text()
        for off in ("|safe", "| safe", "autoescape false", "Markup"):
            assert off not in source, (path.name, off)


def test_templates_are_joined_into_the_pages_as_before():
    """The templates' line breaks and indentation are not written: the page has no space between
    elements, as before templates (only the break after the doctype and at the end)."""
    rec = Record(student="s", assignment=EXEMPLAR, submission="", score=1.0, max_score=2.0, errors=["e"],
                 tests=[TestResult("t", 1.0, 2.0, False, "m")])
    text = pages.feedback_html(rec)
    assert text.startswith("<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>")
    assert "\n" not in text.split("</style></head>", 1)[1][:-1] and text.endswith("\n")
    assert ('<tr class="bad"><td>t</td><td class="num">1&nbsp;/&nbsp;2</td><td>m</td></tr>' in text
            and "<h2>Notes from the grader</h2><ul><li>e</li></ul>" in text)
    assert text.endswith("the messages say what was checked, not the expected values.</small></p></body></html>\n")


class _Recording(BaseLoader):
    def __init__(self, inner):
        self.inner, self.loaded = inner, set()

    def get_source(self, environment, template):
        self.loaded.add(template)
        return self.inner.get_source(environment, template)


def test_every_template_is_rendered(monkeypatch):
    """Each file in autograder/cohort/templates/ is loaded by some page (so by these tests)."""
    recording = _Recording(pages.ENV.loader)
    monkeypatch.setattr(pages.ENV, "loader", recording)
    monkeypatch.setattr(pages.ENV, "cache", None)  # load each anew, through the recording loader
    _every_page()
    files = {p.name for p in TEMPLATES.glob("*.html")}
    assert files == {"page.html", "feedback.html", "report.html", "written.html"}
    assert recording.loaded == files


def test_the_templates_ship_in_the_wheel():
    """pyproject's package-data names every template (tests/test_install.py builds the wheel)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = config["autograder.cohort"]
    for path in TEMPLATES.iterdir():
        assert any(fnmatch.fnmatch(f"templates/{path.name}", p) for p in patterns), path.name
