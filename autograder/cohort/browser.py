"""Look at the cohort's pages in a real browser: headless Chromium from the distribution.

``probe`` opens a page and reports what a person would see there (the visible text, the math
actually laid out, the links), ``screenshot`` saves a PNG. Both drive Chromium's own command
line (``--dump-dom``, ``--screenshot``): no driver, no extra Python package. Debian/Ubuntu:
``apt-get install chromium``; elsewhere set ``PDL_CHROMIUM`` to the browser's executable.

The pages run no script (their Content-Security-Policy); the probe's own script runs in a copy
of the page whose policy lets that one script run, by a nonce drawn for the copy. ``dump_dom``
returns the DOM of a page exactly as written, once its timers and a meta refresh have had
(virtual) time to fire: whatever a script on it changed, or where it led, shows there.
"""

from __future__ import annotations

import html
import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

from autograder.run import settings

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")

# Appended to a copy of the page: opens every <details>, then writes what is on screen into
# the DOM, which --dump-dom returns.
_PROBE = """
<script>
(function () {
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  var text = document.body ? document.body.innerText : '';
  var maths = Array.prototype.slice.call(document.querySelectorAll('math'));
  var shown = maths.filter(function (m) { var r = m.getBoundingClientRect(); return r.width > 0 && r.height > 0; });
  var tex = text.match(/\\\\[A-Za-z]{2,}/g) || [];
  var dollars = text.match(/\\$[^\\s$][^$\\n]{0,80}\\$/g) || [];
  var links = Array.prototype.slice.call(document.querySelectorAll('a[href]')).map(function (a) {
    return a.getAttribute('href'); });
  var images = Array.prototype.slice.call(document.images);
  var out = {text: text, math: maths.length, math_shown: shown.length, tex_words: tex,
             dollar_spans: dollars, links: links, images: images.length,
             images_shown: images.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length,
             styled: document.body ? getComputedStyle(document.body).maxWidth !== 'none' : false,
             height: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0),
             students_rows: document.querySelectorAll('table#students tbody tr').length};
  var pre = document.createElement('pre');
  pre.id = 'pdl-probe';
  pre.textContent = JSON.stringify(out);
  document.documentElement.appendChild(pre);
})();
</script>
"""


_OPEN_DETAILS = "<script>document.querySelectorAll('details').forEach(function (d) { d.open = true; });</script>"


_POLICY = re.compile(r'(<meta http-equiv="Content-Security-Policy" content=")([^"]*)(")')


def _with_script(text: str, script: str) -> str:
    """The page with ``script`` appended; where its <head> has a Content-Security-Policy, the
    policy lets that one script run (a nonce drawn now) and nothing else."""
    nonce = secrets.token_hex(16)
    head, sep, rest = text.partition("</head>")
    if sep:
        head = _POLICY.sub(lambda m: f"{m.group(1)}{m.group(2)}; script-src 'nonce-{nonce}'{m.group(3)}", head, count=1)
    return head + sep + rest + script.replace("<script>", f"<script nonce='{nonce}'>", 1)


def find_chromium() -> str | None:
    """The browser's executable, or None where there is none."""
    explicit = settings.current().chromium
    if explicit:
        return explicit if Path(explicit).exists() or shutil.which(explicit) else None
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _chromium(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    exe = find_chromium()
    if exe is None:
        raise FileNotFoundError("no Chromium found (install the distribution's `chromium` package "
                                "or set PDL_CHROMIUM)")
    with tempfile.TemporaryDirectory(prefix="pdl-chromium-") as profile:
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--hide-scrollbars", "--no-first-run", "--no-default-browser-check",
               "--disable-extensions", "--disable-background-networking", "--mute-audio",
               f"--user-data-dir={profile}", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def probe(page: Path, timeout: float = 60) -> dict:
    """What a person sees on ``page``: visible text (every <details> opened), how many <math>
    elements exist and how many are laid out with a size, TeX control words and ``$...$`` spans
    left in the visible text, the links' targets, how many images exist and how many loaded,
    whether the page's style sheet applies (``styled``), the page height."""
    page = Path(page).resolve()
    copy = page.with_name(f".probe-{os.getpid()}-{page.name}")
    try:
        copy.write_text(_with_script(page.read_text(), _PROBE))
        proc = _chromium(["--window-size=1200,900", "--dump-dom", copy.as_uri()], timeout)
    finally:
        copy.unlink(missing_ok=True)
    found = re.search(r"<pre id=\"pdl-probe\">(.*?)</pre>", proc.stdout, re.S)
    if not found:
        raise RuntimeError(f"Chromium did not render {page} (exit {proc.returncode}): {proc.stderr[-1500:]}")
    return json.loads(html.unescape(found.group(1)))


def dump_dom(page: Path, *, settle_ms: int = 2000, timeout: float = 60) -> str:
    """The DOM Chromium builds from ``page`` as written (nothing added), once it has loaded and
    ``settle_ms`` of virtual time has passed (timers, a meta refresh): what a script on the page
    changed, or where a refresh led, shows in it."""
    page = Path(page).resolve()
    proc = _chromium(["--window-size=1200,900", f"--virtual-time-budget={int(settle_ms)}", "--dump-dom",
                      page.as_uri()], timeout)
    if "<html" not in proc.stdout:
        raise RuntimeError(f"Chromium did not render {page} (exit {proc.returncode}): {proc.stderr[-1500:]}")
    return proc.stdout


def screenshot(page: Path, png: Path, *, width: int = 1200, height: int | None = None,
               timeout: float = 60) -> Path:
    """A PNG of the whole page (up to 12000 px tall)."""
    page = Path(page).resolve()
    if height is None:
        height = probe(page, timeout)["height"]
    height = max(400, min(int(height) + 40, 12000))
    png = Path(png).resolve()
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    copy = page.with_name(f".shot-{os.getpid()}-{page.name}")  # every <details> opened
    try:
        copy.write_text(_with_script(page.read_text(), _OPEN_DETAILS))
        proc = _chromium([f"--window-size={width},{height}", f"--screenshot={png}", copy.as_uri()], timeout)
    finally:
        copy.unlink(missing_ok=True)
    if not png.exists():
        raise RuntimeError(f"Chromium wrote no screenshot of {page} (exit {proc.returncode}): {proc.stderr[-1500:]}")
    return png


def screenshot_cohort(out: Path, students: list[str] | None = None) -> dict[str, dict]:
    """Screenshots of a cohort's pages into ``<out>/screenshots/``: report.html, written.html and
    the feedback pages of ``students`` (default: the first one). Returns each page's probe."""
    out = Path(out)
    pages = [out / "report.html", out / "written.html"]
    feedback = sorted((out / "feedback").glob("*.html"))
    if students is None:
        pages += feedback[:1]
    else:
        pages += [out / "feedback" / f"{s}.html" for s in students]
    seen = {}
    for page in pages:
        if not page.exists():
            continue
        info = probe(page)
        name = page.stem if page.parent == out else f"feedback-{page.stem}"
        screenshot(page, out / "screenshots" / f"{name}.png", height=info["height"])
        seen[str(page.relative_to(out))] = info
    return seen
