"""Markdown with math, rendered to static HTML for the TA's and the students' pages.

Why these libraries: the pages are opened from disk, often offline, so nothing may be fetched
when they are viewed (no MathJax/KaTeX from a CDN, no script at all).

* ``markdown-it-py`` (CommonMark, maintained by the executable-books project that also makes
  MyST/Jupyter Book) parses the Markdown; with ``html=False`` raw HTML in a student's answer is
  shown as text, never as markup.
* ``mdit-py-plugins``' ``dollarmath`` finds ``$...$`` and ``$$...$$`` as Jupyter writes them.
* ``latex2mathml`` (pure Python, maintained) turns the TeX into MathML, which browsers render
  natively (Chromium since 109, Firefox, Safari). A formula it cannot convert is shown as its
  TeX source in a ``<code>`` span, never dropped. Its own ``convert()`` copies the text of
  ``\\text{...}``, ``\\mbox``, ``\\fbox`` ... into ``<mtext>`` unescaped, so the element tree is
  serialized here instead: a student's ``\\text{<script>}`` is shown as text.
* ``nh3`` (the Python binding of the Rust sanitizer ammonia, maintained) cleans every page's body
  against an allow-list of the HTML and MathML elements, attributes, classes and links the pages
  use (``sanitize``, applied by ``autograder.cohort.pages.page``): MathML's ``href`` and ``style``
  (``\\href``, ``\\style``) are removed, a link is kept only to ``http(s)``, ``mailto``, a page of
  the cohort or an anchor, and an image only as an inline PNG.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache
from xml.etree.ElementTree import tostring

import nh3
from latex2mathml.converter import convert_to_element
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

# A few macros latex2mathml lacks, rewritten to ones it has (the notes use them).
_MACROS = [
    (re.compile(r"\\tfrac(?![A-Za-z])"), r"\\frac"),
    (re.compile(r"\\dfrac(?![A-Za-z])"), r"\\frac"),
    (re.compile(r"\\Big(?:[lr])?(?![A-Za-z])"), r"\\big"),
    (re.compile(r"\\bigg(?:[lr])?(?![A-Za-z])"), r"\\big"),
    (re.compile(r"\\lesssim(?![A-Za-z])"), "\u2272"),
    (re.compile(r"\\gtrsim(?![A-Za-z])"), "\u2273"),
]


def _tex(source: str) -> str:
    for pattern, repl in _MACROS:
        source = pattern.sub(repl, source)
    # align-like environments: latex2mathml renders rows but shows `&` literally
    return re.sub(r"(?<!\\)&", " ", source) if "\\begin{" in source else source


_VARIANTS = {"double-struck": "DOUBLE-STRUCK", "script": "SCRIPT", "bold": "BOLD", "bold-italic": "BOLD ITALIC",
             "fraktur": "FRAKTUR", "bold-script": "BOLD SCRIPT", "sans-serif": "SANS-SERIF",
             "monospace": "MONOSPACE"}
_OLD_NAMES = {"DOUBLE-STRUCK": "DOUBLE-STRUCK", "SCRIPT": "SCRIPT", "FRAKTUR": "BLACK-LETTER"}  # ℝ, ℒ, ℭ ...


def _styled(char: str, variant: str) -> str:
    """One character in a Unicode mathematical alphabet (what MathML Core renders; browsers
    ignore ``mathvariant`` other than normal): E in double-struck is U+1D53C."""

    try:
        name = unicodedata.name(char)
    except ValueError:
        return char
    if char.isascii() and char.isalpha():
        case = "CAPITAL" if char.isupper() else "SMALL"
        names = [f"MATHEMATICAL {variant} {case} {char.upper()}"]
        if variant in _OLD_NAMES:
            names.append(f"{_OLD_NAMES[variant]} {case} {char.upper()}")
    elif char.isdigit():
        names = [f"MATHEMATICAL {variant} DIGIT {name.split()[-1]}"]
    elif name.startswith("GREEK "):
        names = [f"MATHEMATICAL {variant} {name.replace('GREEK ', '').replace('LETTER ', '')}"]
    else:
        return char
    for candidate in names:
        try:
            return unicodedata.lookup(candidate)
        except KeyError:
            continue
    return char


def _unicode_variants(mathml: str) -> str:
    def repl(m):
        variant = _VARIANTS.get(m.group(2))
        if variant is None:
            return m.group(0)
        text = html.unescape(m.group(3))
        styled = html.escape(''.join(_styled(c, variant) for c in text))
        return f"<{m.group(1)} mathvariant=\"normal\">{styled}</{m.group(1)}>"

    return re.sub(r'<(mi|mn|mo|mtext) mathvariant="([a-z-]+)">([^<]*)</\1>', repl, mathml)


_SYMBOL_REF = re.compile(r"&#x[0-9A-Fa-f]{1,6};")


@lru_cache(maxsize=4096)
def math_to_html(tex: str, display: bool = False) -> str:
    """MathML for one formula; its TeX in a <code> span if it cannot be converted."""

    try:
        tree = convert_to_element(_tex(tex.strip()), display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - any parser failure: show the source instead
        return f"<code class='tex' title='formula shown as TeX'>{html.escape(tex)}</code>"
    # latex2mathml's texts hold its symbols as hexadecimal character references (&#x27E8;) next
    # to the student's raw text (\text{<b>}), and its convert() un-escapes the whole serialized
    # tree: resolve only those references here, and let ElementTree escape every text and attribute.
    for element in tree.iter():
        element.text = _SYMBOL_REF.sub(lambda m: html.unescape(m.group(0)), element.text or "") or None
        element.tail = _SYMBOL_REF.sub(lambda m: html.unescape(m.group(0)), element.tail or "") or None
    return _unicode_variants(tostring(tree, encoding="unicode"))


@lru_cache(maxsize=2)
def _parser(images: bool):

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.enable("strikethrough")
    if not images:  # a student's ![](http://...) would be fetched when the TA opens the page
        md.disable("image")
    # $5 and $6 is not math: the opening $ must touch a non-space, the closing one must not be
    # followed by a digit (pandoc's rule); $$...$$ may also stand inside a paragraph.
    md.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True,
           allow_labels=False,
           renderer=lambda content, options: math_to_html(content, bool(options.get("display_mode"))))

    def link_open(self, tokens, idx, options, env):  # links open in a new tab, leaking nothing
        tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
        tokens[idx].attrSet("target", "_blank")
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    return md


def render(text: str, *, images: bool = False) -> str:
    """Markdown and ``$``-math to HTML. Raw HTML in ``text`` is escaped, never passed through.
    Remembered: a cohort's pages render the same test messages and diagnoses again and again."""
    return _render(str(text or ""), images)


@lru_cache(maxsize=8192)
def _render(text: str, images: bool) -> str:
    return _parser(images).render(text)


def render_inline(text: str) -> str:
    """One line of Markdown and math, without the surrounding <p>."""
    return _parser(False).renderInline(str(text or ""))


# -- the sanitizer every page's body passes (autograder.cohort.pages.page) ---------------------
# Allow-lists: an element, attribute, class or link that is not named here is removed.
HTML_TAGS = frozenset({
    "a", "b", "blockquote", "br", "code", "details", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "img", "li", "mark", "ol", "p", "pre", "s", "section", "small", "span", "strong", "summary", "table", "tbody",
    "td", "th", "thead", "tr", "ul"})
# What latex2mathml writes (its converter and command table), less the attributes that carry a
# URL or CSS (``href`` from \\href, ``style`` from \\style) and ``xmlns`` (HTML does not need it).
MATHML_TAGS = frozenset({
    "math", "menclose", "mfrac", "mi", "mn", "mo", "mover", "mpadded", "mphantom", "mroot", "mrow",
    "mspace", "msqrt", "mstyle", "msub", "msubsup", "msup", "mtable", "mtd", "mtext", "mtr", "munder",
    "munderover"})
MATHML_ATTRIBUTES = frozenset({
    "accent", "columnalign", "columnlines", "columnspacing", "depth", "display", "displaystyle", "fence",
    "form", "height", "largeop", "linebreak", "linethickness", "lspace", "mathbackground", "mathcolor",
    "mathsize", "mathvariant", "maxsize", "minsize", "movablelimits", "notation", "rowlines", "rowspacing",
    "rspace", "scriptlevel", "separator", "stretchy", "voffset", "width"})
CLASSES = {"tr": {"ok", "bad"}, "td": {"num"}, "th": {"num"}, "span": {"late", "miss", "tests"}, "p": {"miss"},
           "div": {"diag", "answer", "comment", "md", "values"}, "code": {"tex"},
           "table": {"side"}}  # similarity.html: two submissions side by side
ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt"}, "code": {"title"}, "ol": {"start"},
              "h3": {"id"}, "table": {"id"}, "li": {"id"},  # li: a feedback page's mistakes, linked to
              **{tag: set(MATHML_ATTRIBUTES) for tag in MATHML_TAGS}}
for _tag in CLASSES:
    ATTRIBUTES.setdefault(_tag, set()).add("class")
LINK_REL = "noopener noreferrer nofollow"
# a link: another page of the cohort (feedback/<id>.html, written.html), an anchor, or the web
_HREF = re.compile(r"(?:(?:feedback/)?[\w.~%-]+\.html|#[\w.:~%-]*|(?:https?://|mailto:)[^\s\"'<>`\\]+)\Z", re.ASCII)
_SRC = re.compile(r"data:image/png;base64,[A-Za-z0-9+/]+={0,2}\Z")  # the report's figures, inline
_ID = re.compile(r"[\w.:-]{1,200}\Z")
_MATH_VALUE = re.compile(r"[\w.+# %-]{0,100}\Z", re.ASCII)  # lengths, keywords, colours: no url(), no quotes


def _attribute(tag: str, name: str, value: str) -> str | None:
    """The value of an allowed attribute, or None to remove it."""
    if name == "href":
        return value if _HREF.match(value) else None
    if name == "src":
        return value if _SRC.match(value) else None
    if name == "id":
        return value if _ID.match(value) else None
    if name == "class":
        return " ".join(c for c in value.split() if c in CLASSES.get(tag, ())) or None
    if tag in MATHML_TAGS:
        return value if _MATH_VALUE.match(value) else None
    return value


def _cleaner() -> nh3.Cleaner:
    """The sanitizer, checked on a sample: if it does not clean as configured, no page is written."""
    cleaner = nh3.Cleaner(tags=set(HTML_TAGS | MATHML_TAGS), clean_content_tags={"script", "style"},
                          attributes=ATTRIBUTES, attribute_filter=_attribute, strip_comments=True,
                          link_rel=LINK_REL, generic_attribute_prefixes=set(),
                          tag_attribute_values={"a": {"target": {"_blank"}}},
                          url_schemes={"http", "https", "mailto", "data"})
    sample = cleaner.clean("<div class='md x' onclick='x'>a<script>x</script><a href='javascript:x'>b</a>"
                           "<math><mrow href='javascript:x'><mtext>c</mtext></mrow></math></div>")
    if sample != f'<div class="md">a<a rel="{LINK_REL}">b</a><math><mrow><mtext>c</mtext></mrow></math></div>':
        raise RuntimeError(f"the HTML sanitizer (nh3) does not clean as configured: {sample!r}")
    return cleaner


_CLEANER = _cleaner()


def sanitize(body: str) -> str:
    """``body`` with only the allowed elements, attributes, classes and links (above): what every
    page's body passes, whatever built it (a student's or a TA's text included)."""
    return _CLEANER.clean(body)


CSS = """
math{font-size:1.08em}math[display=block]{margin:.6em 0;overflow-x:auto;overflow-y:hidden}
.md p{margin:.45em 0}.md pre{background:#f6f6f6;padding:.5em;overflow-x:auto}
.md code{background:#f3f3f3;padding:0 .2em}code.tex{color:#844}
.md h1,.md h2,.md h3,.md h4,.md h5{font-size:1.05em;margin:.7em 0 .3em}
"""
