"""Markdown with math, rendered to static HTML for the TA's and the students' pages.

Why these libraries: the pages are opened from disk, often offline, so nothing may be fetched
when they are viewed (no MathJax/KaTeX from a CDN, no script at all).

* ``markdown-it-py`` (CommonMark, maintained by the executable-books project that also makes
  MyST/Jupyter Book) parses the Markdown; with ``html=False`` raw HTML in a student's answer is
  shown as text, never as markup.
* ``mdit-py-plugins``' ``dollarmath`` finds ``$...$`` and ``$$...$$`` as Jupyter writes them.
* ``latex2mathml`` (pure Python, maintained) turns the TeX into MathML, which browsers render
  natively (Chromium since 109, Firefox, Safari). A formula it cannot convert is shown as its
  TeX source in a ``<code>`` span, never dropped.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

from latex2mathml.converter import convert
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
        return f"<{m.group(1)} mathvariant=\"normal\">{html.escape(''.join(_styled(c, variant) for c in text))}</{m.group(1)}>"

    return re.sub(r'<(mi|mn|mo|mtext) mathvariant="([a-z-]+)">([^<]*)</\1>', repl, mathml)


@lru_cache(maxsize=4096)
def math_to_html(tex: str, display: bool = False) -> str:
    """MathML for one formula; its TeX in a <code> span if it cannot be converted."""

    try:
        mathml = convert(_tex(tex.strip()), display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - any parser failure: show the source instead
        return f"<code class='tex' title='formula shown as TeX'>{html.escape(tex)}</code>"
    return _unicode_variants(mathml)


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
    """Markdown and ``$``-math to HTML. Raw HTML in ``text`` is escaped, never passed through."""
    return _parser(images).render(str(text or ""))


def render_inline(text: str) -> str:
    """One line of Markdown and math, without the surrounding <p>."""
    return _parser(False).renderInline(str(text or ""))


CSS = """
math{font-size:1.08em}math[display=block]{margin:.6em 0;overflow-x:auto;overflow-y:hidden}
.md p{margin:.45em 0}.md pre{background:#f6f6f6;padding:.5em;overflow-x:auto}
.md code{background:#f3f3f3;padding:0 .2em}code.tex{color:#844}
.md h1,.md h2,.md h3,.md h4,.md h5{font-size:1.05em;margin:.7em 0 .3em}
"""
