"""Hostile submissions against the cohort's pages (issue 21, item 5: "Pages run nothing").

Every vector below tries to run script (each appends its own marker to ``document.title``, so
what ran is named in the DOM), to navigate (a meta refresh to ``elsewhere.html``), to fetch, or
to leave a link or attribute that would run on a click. They are put in everything of a
submission that reaches a page: a written answer (Markdown and TeX), the code's error messages,
a test's message and diagnosis, student ids and names, emails, the version, unmatched files and
id notes, and the TA's comments and scores in ``written_scores.csv``. Each page the cohort writes
(report.html, written.html, feedback/<student>.html) is then opened in headless Chromium and its
DOM inspected (``--dump-dom``, after virtual time for timers and refreshes): no marker, only
inert elements and attributes, only safe links; once as written and once without its
Content-Security-Policy (so the sanitizer alone must hold). The same vectors, raw, on a page
without either protection do run there (the detector sees them); with the policy alone no script
runs; the sanitizer alone leaves nothing of them that could. The pages still show the student's
text, escaped, and real math as laid-out MathML.
"""

import csv
import html
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import EXEMPLAR
from latex2mathml.converter import convert as library_convert

from autograder.cohort import browser, markup, outputs, pages
from autograder.cohort.record import CohortSummary, Record
from autograder.course.source import load
from autograder.run.record import Answer

needs_chromium = pytest.mark.skipif(browser.find_chromium() is None,
                                    reason="no Chromium here: install the distribution's `chromium` package "
                                           "or set PDL_CHROMIUM")


def run(k: int, where: str = "document") -> str:
    """Script that appends marker ``pwned<k>`` to the title; the word itself is never in a vector."""
    return f"{where}.title+=['pw','ned',{k}].join('')"


FIRED = re.compile(r"pwned(\d+)")
NAVIGATED = 0  # elsewhere.html's marker
REFRESH = 11

# raw HTML, SVG and MathML: k -> markup
HTML_VECTORS = {
    1: f"<script>{run(1)}</script>",
    2: f'<img src=x onerror="{run(2)}">',
    3: f'<svg onload="{run(3)}"></svg>',
    4: f'<iframe srcdoc="<script>{run(4, "parent.document")}</script>"></iframe>',
    5: f'<details open ontoggle="{run(5)}"><summary>s</summary></details>',
    6: f'<svg><animate onbegin="{run(6)}" attributeName="x" dur="1s"/></svg>',
    7: f'<math><maction actiontype="statusline" xlink:href="javascript:{run(7)}"><mtext>m</mtext></maction></math>',
    8: f'<math><mtext><table><mglyph><style><img src=x onerror="{run(8)}">',
    9: f'<a href="javascript:{run(9)}">click</a>',
    10: f'<a href="jav&#x09;ascript:{run(10)}">tab</a>',
    11: '<meta http-equiv="refresh" content="0;url=elsewhere.html">',
    12: f"<style>body{{background:url(javascript:{run(12)})}}</style>",
    13: f"<p style=\"background:url('javascript:{run(13)}')\">css</p>",
    14: '<base href="https://attacker.example/">',
    15: f"&lt;script&gt;{run(15)}&lt;/script&gt;",
    16: f'<object data="javascript:{run(16)}"></object>',
    17: f'<embed src="javascript:{run(17)}">',
    18: f'<form action="javascript:{run(18)}"><button>go</button></form>',
    19: f'<body onload="{run(19)}">',
    20: f'<noscript><p title="</noscript><img src=x onerror={run(20)}>">',
    21: f'<svg><a xlink:href="javascript:{run(21)}"><text x="0" y="20">x</text></a></svg>',
    22: f'<!--><img src=x onerror="{run(22)}">-->',
    23: f'"><img src=x onerror="{run(23)}">',
    24: f"'><svg onload=\"{run(24)}\">",
    25: f'<video><source onerror="{run(25)}"></video>',
    26: '<img src=x onerror="&#100;ocument.title+=[&#39;pw&#39;,&#39;ned&#39;,26].join(&#39;&#39;)">',
    27: f'<svg><foreignObject><img src=x onerror="{run(27)}"></foreignObject></svg>',
    28: '<link rel="stylesheet" href="https://attacker.example/x.css">',
}
# TeX inside $...$: what latex2mathml copies into MathML
TEX_VECTORS = {
    30: rf"\text{{<script>{run(30)}</script>}}",
    31: rf"\mbox{{<svg/onload={run(31)}>}}",
    32: rf"\fbox{{<svg/onload={run(32)}>}}",
    33: rf"\hbox{{<svg/onload={run(33)}>}}",
    34: rf"\textbf{{<img/src/onerror={run(34)}>}}",
    35: rf"\href{{javascript:{run(35)}}}{{click}}",
    36: rf"\style{{background:url(javascript:{run(36)})}}{{x}}",
    37: rf"\text{{&#x3C;script&#x3E;{run(37)}&#x3C;/script&#x3E;}}",
    38: rf"\text{{&lt;svg/onload={run(38)}&gt;}}",
    39: rf"\color{{red\" onmouseover=\"{run(39)}}}{{x}}",
    40: rf"\text{{<math><maction actiontype=statusline xlink:href=javascript:{run(40)}>m</maction>}}",
}
# Markdown's own links and images
MD_VECTORS = {
    41: f"[md](javascript:{run(41)})",
    42: f"[md](JaVaScRiPt:{run(42)})",
    43: f"[md](&#106;avascript:{run(43)})",
    44: f"<javascript:{run(44)}>",
    45: f'![x](x" onerror="{run(45)})',
    46: "[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
}
# ids and names that break out of an attribute (no '/': an id is a file name)
ID_VECTORS = [f"x'><img src=x onerror={run(50)}>", f'y"><svg onload="{run(51)}">',
              f"<details open ontoggle={run(52)}>"]
NAME_VECTOR = f'"><script>{run(53)}</script>'
# scripts that run when the raw vectors stand in a page (what the detector must see)
RUNS_RAW = {1, 2, 3, 4, 5, 6, 19, 20, 22, 23, 24, 25, 26, 27, 30, 31, 32, 33, 34}

BENIGN_MATH = r"The integral $\int_0^1 x^2\,dx = \frac{1}{3}$ and $$\sum_{i=1}^N \sigma_i \tanh(\beta h)$$"


def hostile_text() -> str:
    parts = (list(HTML_VECTORS.values()) + [f"${tex}$" for tex in TEX_VECTORS.values()]
             + list(MD_VECTORS.values()))
    return "\n\n".join(parts)


# -- what the DOM may hold ----------------------------------------------------------------------
HEAD_TAGS = {"html", "head", "body", "title", "meta", "style"}
INERT_TAGS = {  # the pages' HTML and latex2mathml's MathML: nothing here runs, fetches or navigates
    "a", "b", "blockquote", "br", "code", "details", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "img", "li", "ol", "p", "pre", "s", "section", "small", "span", "strong", "summary", "table", "tbody",
    "td", "th", "thead", "tr", "ul",
    "math", "menclose", "mfrac", "mi", "mn", "mo", "mover", "mpadded", "mphantom", "mroot", "mrow", "mspace",
    "msqrt", "mstyle", "msub", "msubsup", "msup", "mtable", "mtd", "mtext", "mtr", "munder", "munderover"}
INERT_ATTRIBUTES = {
    "alt", "title", "class", "id", "rel", "target", "start", "lang",
    "accent", "columnalign", "columnlines", "columnspacing", "depth", "display", "displaystyle", "fence", "form",
    "height", "largeop", "linebreak", "linethickness", "lspace", "mathbackground", "mathcolor", "mathsize",
    "mathvariant", "maxsize", "minsize", "movablelimits", "notation", "rowlines", "rowspacing", "rspace",
    "scriptlevel", "separator", "stretchy", "voffset", "width"}


class _Audit(HTMLParser):
    """Every element and attribute Chromium's DOM holds that could run, fetch or navigate."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.in_body = False
        self.head = {"meta": 0, "style": 0, "title": 0}

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.in_body = True
        if tag in self.head:
            self.head[tag] += 1
            if self.in_body:
                self.problems.append(f"<{tag}> in the body")
        elif tag not in INERT_TAGS | HEAD_TAGS:
            self.problems.append(f"element <{tag}>")
        for name, value in attrs:
            value = value or ""
            if tag == "meta" and not self.in_body and name in ("charset", "name", "content", "http-equiv"):
                if name == "http-equiv" and value.lower() != "content-security-policy":
                    self.problems.append(f"<meta http-equiv={value!r}>")
                continue
            if tag == "html" and name == "lang":
                continue
            if name == "href" and tag == "a":
                parts = urlsplit(value.strip())
                if parts.scheme not in ("", "http", "https", "mailto") or value.strip().startswith("//"):
                    self.problems.append(f"link {value[:60]}")
            elif name == "src" and tag == "img":
                if not value.startswith("data:image/png;base64,"):
                    self.problems.append(f"image {value[:60]}")
            elif name not in INERT_ATTRIBUTES:
                self.problems.append(f"attribute {name}= on <{tag}>")

    handle_startendtag = handle_starttag


def problems(dom: str) -> list[str]:
    """What ran (its markers) and what could run, in a DOM as Chromium dumped it."""
    found = [f"script ran: vector {k}" if int(k) != NAVIGATED else "the page navigated away"
             for k in FIRED.findall(dom)]
    audit = _Audit()
    audit.feed(dom)
    audit.close()
    found += audit.problems
    if audit.head["title"] != 1 or audit.head["style"] > 1 or audit.head["meta"] > 3:
        found.append(f"head elements {audit.head}")
    return found


# -- a cohort that carries every vector -----------------------------------------------------------
def _cohort(out: Path) -> dict:
    questions = load(EXEMPLAR).written_questions()
    text = hostile_text()

    def rec(student, answer, **extra):
        tests = [{"name": "test_critical_load", "points": 0.0, "max_points": 3.0, "passed": False,
                  "message": text, "diagnosis": text},
                 {"name": "test_enumerate", "points": 2.0, "max_points": 2.0, "passed": True, "message": "ok"}]
        manual = [{"question": q.name, "points": q.points, "cell": 3, "text": answer, "missing": False,
                   "blank": False} for q in questions]
        return Record.from_dict({"student": student, "assignment": EXEMPLAR, "score": 2.0, "max_score": 5.0,
                                 "version": text, "tests": tests, "errors": [text, f"invalid notebook: {text}"],
                                 "manual": manual, "seconds": 1.0, **extra})

    results = [rec("mallory", BENIGN_MATH + "\n\n" + text, name=text, email=text, submitted_at=text)]
    results += [rec(sid, BENIGN_MATH + " " + sid, name=NAME_VECTOR) for sid in ID_VECTORS]
    summary = CohortSummary(assignment=EXEMPLAR, version=text, unmatched=[text], notes=[text], results=results)
    outputs.write_outputs(summary, out)
    sheet = out / "written_scores.csv"
    with open(sheet, newline="") as f:
        table = list(csv.DictReader(f))
    for i, row in enumerate(table):
        row["score"] = "1" if i % 2 else NAME_VECTOR
        row["comment"] = BENIGN_MATH + "\n\n" + text
    with open(sheet, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    outputs.write_outputs(summary, out)
    for folder in (out, out / "feedback"):  # where the meta refresh would lead
        (folder / "elsewhere.html").write_text(f"<title>pwned{NAVIGATED}</title><p>pwned{NAVIGATED}</p>")
    return summary


def _pages(out: Path, summary: CohortSummary) -> list[Path]:
    """Every page the cohort wrote: the report, the written answers, the similar submissions side
    by side, each student's feedback."""
    return [out / "report.html", out / "written.html", out / "similarity.html"] + [
        out / "feedback" / f"{r.student}.html" for r in summary.results]


@pytest.fixture(scope="module")
def cohort(tmp_path_factory):
    out = tmp_path_factory.mktemp("injection") / "cohort"
    summary = _cohort(out)
    return out, summary


def _without_policy(page: Path) -> Path:
    text = page.read_text()
    bare, n = re.subn(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">', "", text)
    assert n == 1, f"{page.name} has {n} policies"
    copy = page.with_name(f"nopolicy-{page.name}")
    copy.write_text(bare)
    return copy


# -- the tests ----------------------------------------------------------------------------------
@needs_chromium
@pytest.mark.parametrize("policy", [True, False], ids=["as-written", "sanitizer-alone"])
def test_no_vector_runs_on_any_page(cohort, policy):
    out, summary = cohort
    found = {}
    written = _pages(out, summary)
    assert all(page.is_file() for page in written)
    assert sorted(p.name for p in (out / "feedback").glob("*.html") if not p.name.startswith("nopolicy-")) == \
        sorted([p.name for p in written[3:]] + ["elsewhere.html"])  # no page left out
    for page in written:
        dom = browser.dump_dom(page if policy else _without_policy(page))
        assert "</html>" in dom and "<h1>" in dom, page.name  # the page itself, rendered
        seen = problems(dom)
        if seen:
            found[page.name] = seen
    assert found == {}


@needs_chromium
def test_pages_show_the_hostile_text_as_text_and_the_math_as_math(cohort):
    out, _ = cohort
    for page in ("written.html", "feedback/mallory.html"):
        seen = browser.probe(out / page)
        assert seen["math"] >= 3 and seen["math_shown"] == seen["math"], page
        text = seen["text"]
        # raw HTML in Markdown and TeX's \text{...} shown as the student typed it
        assert HTML_VECTORS[2] in text and f"<script>{run(30)}</script>" in text, page
        assert f"<svg/onload={run(31)}>" in text and "&lt;svg/onload=" in text, page  # \text{&lt;...} as typed
        assert "The integral" in text and "click" in text, page
    report = browser.probe(out / "report.html")["text"]
    for sid in ID_VECTORS:
        assert sid in report
    assert HTML_VECTORS[1] in report and NAME_VECTOR in report
    feedback = browser.probe(out / "feedback" / f"{ID_VECTORS[1]}.html")["text"]
    assert ID_VECTORS[1] in feedback and NAME_VECTOR in feedback


def _raw_page(folder: Path, protection: str, monkeypatch) -> Path:
    """The vectors as they would stand if nothing escaped them: raw HTML, TeX through
    latex2mathml's own convert() (what the pages used), Markdown links as links; on a bare page
    (``none``), through ``pages.page`` without the sanitizer (``policy``), or through it with its
    policy taken out (``sanitizer``). The refresh only where the sanitizer is: elsewhere it would
    leave the page before anything is seen (it has its own page)."""
    vectors = [f"<div>{v}</div>" for k, v in HTML_VECTORS.items() if k != REFRESH or protection == "sanitizer"]
    vectors += [f"<p>{library_convert(tex)}</p>" for tex in TEX_VECTORS.values()]
    vectors += [f'<p><a href="{html.escape(m.group(1))}">md</a></p>' for v in MD_VECTORS.values()
                for m in [re.search(r"\]\((.*)\)\Z", v)] if m]
    if protection == "sanitizer":  # each alone: an unclosed <style> would take the rest with it
        vectors = [markup.sanitize(v) for v in vectors]
    body = "".join(vectors)
    if protection == "none":
        text = f"<!doctype html><html><head><title>raw</title></head><body>{body}</body></html>"
    else:
        if protection == "policy":
            monkeypatch.setattr(markup, "sanitize", lambda body: body)
        text = pages.page("raw", body)
    page = folder / "raw.html"
    page.write_text(text)
    (folder / "elsewhere.html").write_text(f"<title>pwned{NAVIGATED}</title>")
    return _without_policy(page) if protection == "sanitizer" else page


@needs_chromium
def test_the_detector_sees_what_runs_without_protection(tmp_path, monkeypatch):
    dom = browser.dump_dom(_raw_page(tmp_path, "none", monkeypatch))
    ran = {int(k) for k in FIRED.findall(dom)}
    assert RUNS_RAW <= ran, sorted(RUNS_RAW - ran)
    found = problems(dom)
    for what in ("link javascript:", "link data:text/html", "attribute href= on <mrow>", "attribute style= on <mrow>",
                 "element <iframe>", "element <object>", "element <base>", "element <link>", "<style> in the body"):
        assert any(p.startswith(what) for p in found), what
    (tmp_path / "refresh.html").write_text(f"<title>t</title><p>{HTML_VECTORS[REFRESH]}</p>")
    assert "the page navigated away" in problems(browser.dump_dom(tmp_path / "refresh.html"))


@needs_chromium
def test_the_policy_alone_runs_no_script(tmp_path, monkeypatch):
    dom = browser.dump_dom(_raw_page(tmp_path, "policy", monkeypatch))
    assert "<title>raw" in dom and "<iframe" in dom  # the raw page itself, unsanitized
    assert FIRED.findall(dom) == []


@needs_chromium
def test_the_sanitizer_alone_leaves_nothing_of_the_raw_vectors(tmp_path, monkeypatch):
    dom = browser.dump_dom(_raw_page(tmp_path, "sanitizer", monkeypatch))
    assert "<title>raw" in dom and "Content-Security-Policy" not in dom
    assert problems(dom) == []
    assert dom.count("<math") >= len(TEX_VECTORS) and "click" in dom and ">md</a>" in dom  # the harmless rest is kept


def test_mathml_text_is_escaped():
    """latex2mathml's convert() copies \\text{...} into <mtext> unescaped; ours shows it as text."""
    for tex in (r"\text{<b>x</b>}", r"\mbox{<i>x</i>}", r"\fbox{<u>x</u>}"):
        out = markup.math_to_html(tex)
        assert "<b>" not in out and "<i>" not in out and "<u>" not in out, out
        assert "&lt;" in out and "<mtext>" in out, out
    assert "⟨" in markup.math_to_html(r"\langle x \rangle")  # the library's own symbols still resolve


def test_sanitizer_keeps_only_the_allow_list():
    body = ("<div class='md evil' onclick='x'>a<script>x</script></div><a href='javascript:x'>j</a>"
            "<a href='feedback/bob.html'>f</a><img src='x'><img src='data:image/png;base64,AAAA'>"
            + markup.math_to_html(r"\href{javascript:x}{y} \style{color:red}{z} x^2"))
    clean = markup.sanitize(body)
    assert "script" not in clean and "onclick" not in clean and "evil" not in clean and "javascript" not in clean
    assert "style=" not in clean and "href=\"feedback/bob.html\"" in clean
    assert clean.count("<img") == 2 and 'src="x"' not in clean and "data:image/png;base64,AAAA" in clean
    assert "<msup>" in clean and 'class="md"' in clean


def test_every_page_is_sanitized_and_carries_the_policy():
    rec = Record(student="s", assignment=EXEMPLAR, submission="", score=0, max_score=1,
                 manual=[Answer("q", 1, text=HTML_VECTORS[2] + " $" + TEX_VECTORS[30] + "$")])
    text = pages.page("t", "<script>x</script><p>ok</p>")
    assert "<script>" not in text and "<p>ok</p>" in text
    assert f'<meta http-equiv="Content-Security-Policy" content="{pages.CSP}">' in text
    assert "script-src" not in pages.CSP and "default-src 'none'" in pages.CSP
    summary = CohortSummary(assignment=EXEMPLAR, results=[rec])
    for text in (pages.feedback_html(rec), pages.written_answers_html(summary)):
        assert "<script>" not in text and "<img" not in text and pages.CSP in text
