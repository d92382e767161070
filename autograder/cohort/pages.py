"""The pages ``pdl grade-cohort`` writes: each student's feedback (HTML and Markdown), the
cohort report and the written answers by question. Static HTML, readable offline: Markdown and
math are rendered here (``autograder.cohort.markup``: MathML, no script), figures are inline PNGs.

Every text that comes from a student (answers, error messages of their code, ids) or a TA
(comments) is escaped, or rendered by a Markdown parser that shows raw HTML as text. Then, in
``page``, which every page goes through, the body passes the allow-list sanitizer
(``markup.sanitize``) and the page carries a Content-Security-Policy (``CSP``) under which no
script runs and nothing is fetched: either alone keeps a hostile submission's markup from
running when the TA opens the page.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import re
from functools import lru_cache
from urllib.parse import quote

import course_config
from autograder.cohort import late as late_policy
from autograder.cohort import markup
from autograder.cohort.found import mistakes_found
from autograder.cohort.handscores import HandScores
from autograder.course.source import load
from autograder.run import carry
from autograder.run.grading import release_questions

NBGRADER_PLACEHOLDERS = ("YOUR ANSWER HERE",)  # nbgrader's ClearSolutions.text_stub (its default)
TROUBLE = re.compile(r"did not finish within|ran past the time limit|crashed|stopped the notebook|"
                     r"could not start|out of memory|killed", re.I)

CSS = ("body{font-family:system-ui,sans-serif;max-width:64em;margin:2em auto;padding:0 1em;line-height:1.45;"
       "color:#222}table{border-collapse:collapse;margin:.6em 0}td,th{padding:.3em .6em;"
       "border-bottom:1px solid #ddd;vertical-align:top;text-align:left}th{background:#f4f4f4}"
       "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}.ok td:first-child{color:#176}"
       ".bad td:first-child{color:#a22}.miss{color:#a22}.late{color:#a40;font-weight:600}"
       ".diag{margin-top:.3em;padding:.2em .5em;border-left:3px solid #c80;background:#fff8ec}"
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


def page(title: str, body: str) -> str:
    """A whole page: ``body`` sanitized (``markup.sanitize``), under the policy ``CSP``."""
    return (f"<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\"><title>{html.escape(title)}</title>"
            f"<meta name='viewport' content='width=device-width'><style>{CSS}</style></head>"
            f"<body>{markup.sanitize(body)}</body></html>\n")


def md_text(text) -> str:
    """Text for a Markdown file: any HTML in it shows as text, never as markup."""
    return html.escape(str(text), quote=False).replace("\n", " ")


# -- what each record says ----------------------------------------------------------------
def answer_state(m: dict) -> str:
    """'no cell', 'blank' (also nbgrader's untouched YOUR ANSWER HERE) or 'yes'."""
    if m.get("missing"):
        return "no cell"
    if m.get("blank") or str(m.get("text", "")).strip() in NBGRADER_PLACEHOLDERS:
        return "blank"
    return "yes"


def complete_answers(summary: dict) -> dict:
    """A record without written answers (its notebook could not be read) gets every question of
    the release as 'no cell', so its written total counts them (0 of the same maximum)."""
    if not any(r.get("manual") for r in summary["results"]):
        return summary

    questions = None
    for rec in summary["results"]:
        if not rec.get("manual"):
            if questions is None:
                questions = release_questions(summary["assignment"])
            rec["manual"] = [{**q, "cell": None, "text": "", "missing": True, "blank": True} for q in questions]
    return summary


def written(rec: dict, hand: HandScores | None = None) -> dict:
    """Each written question with the TA's score and comment, and the totals: blank or missing
    answers score 0 without the TA; an answered one counts once the TA has scored it."""
    items, got, top, ungraded = [], 0.0, 0.0, 0
    for m in rec.get("manual") or []:
        q = str(m.get("question", "?"))
        pts = float(m.get("points", 0) or 0)
        state = answer_state(m)
        entered = hand.get(rec["student"], q) if hand else {"score": "", "comment": ""}
        score = hand.points(rec["student"], q, pts) if hand else None
        if score is None and state != "yes":
            score = 0.0
        if score is None:
            ungraded += 1
        else:
            got += score
        top += pts
        items.append({"question": q, "points": pts, "state": state, "score": score,
                      "typed": entered["score"], "comment": entered["comment"], "text": m.get("text", "")})
    return {"items": items, "score": got, "max": top, "ungraded": ungraded}


def previous_grading(prev: dict | None) -> str:
    """The grading of an answer that changed since it was scored, as one line ("" if none)."""
    if not prev or not (prev.get("score") or str(prev.get("comment", "")).strip()):
        return ""
    return (f"score {prev.get('score') or '—'}" + (f"; comment: {prev['comment']}" if str(prev.get("comment", "")).strip()
                                                    else "") + " (answer changed since)")


def notes(rec: dict) -> list[str]:
    """Every grader note of a record, once each: its errors, then tests that timed out or crashed."""
    out: list[str] = []
    for e in rec.get("errors") or []:
        if e not in out:
            out.append(str(e))
    for t in rec.get("tests") or []:
        msg = str(t.get("message", ""))
        if not t.get("passed") and TROUBLE.search(msg):
            line = f"{t.get('name')}: {msg}"
            if line not in out:
                out.append(line)
    return out


def test_messages(rec: dict) -> list[tuple[dict, str]]:
    """Each test with its message, a problem already said in a note replaced by a pointer to it
    (an unreadable notebook is said once, not once per test)."""
    cores = []
    for e in rec.get("errors") or []:
        core = str(e).split(": ", 1)[1] if str(e).startswith("invalid notebook: ") else str(e)
        if len(core) >= 30:
            cores.append(core)
    out = []
    for t in rec.get("tests") or []:
        msg = str(t.get("message", ""))
        for core in cores:
            if core in msg:
                msg = msg.replace(core, "see the note below")
        out.append((t, msg))
    return out


def mistake_groups(rec: dict) -> list[dict]:
    """One entry per mistake the grader found, with the tests it explains: the same diagnosis on
    several tests is said once; a test credited by carrying an error forward names it too.
    [{"what", "tests", "credited"}] in the order the tests ran."""
    groups: dict[str, dict] = {}
    for t in rec.get("tests") or []:
        what = str(t.get("diagnosis") or "")
        credit = str(t.get("carried_forward") or "")
        if not what and not credit:
            continue
        g = groups.setdefault(what or credit, {"what": what or credit, "tests": [], "credited": []})
        g["tests"].append(str(t.get("name")))
        if credit:
            g["credited"].append(str(t.get("name")))
    return list(groups.values())


def _group_of(groups: list[dict], t: dict) -> int:
    key = str(t.get("diagnosis") or t.get("carried_forward") or "")
    return next((k for k, g in enumerate(groups) if g["what"] == key), -1)


def late(rec: dict, deadline) -> tuple[str, str]:
    """('yes'|'no'|'', how late as H:MM:SS) against the student's own deadline: the assignment's
    (naive UTC datetime) moved by her roster extension (autograder/cohort/late.py)."""

    fate = late_policy.assess(rec, deadline, {}, 0.0, 0.0)
    return fate["late"], fate["by"]


def penalty(rec: dict, w: dict, deadline) -> dict:
    """What lateness costs a record under course_config.LATE_POLICY (``late.assess``), ``w``: its written()."""
    return late_policy.assess(rec, deadline, late_policy.policy_for(str(rec.get("assignment"))),
                              rec["score"] + w["score"], rec["max_score"] + w["max"])


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


def when_text(iso: str) -> str:
    """2026-10-15T21:30:00Z -> 2026-10-15 21:30:00 UTC"""
    iso = str(iso or "")
    return iso.replace("T", " ").replace("Z", " UTC") if iso.endswith("Z") else iso


def _pts(x) -> str:
    return f"{float(x):g}"


def _unit(points: float) -> str:
    return "point" if float(points) == 1 else "points"


# -- feedback ------------------------------------------------------------------------------
def feedback_markdown(rec: dict, hand: HandScores | None = None, deadline=None) -> str:
    w = written(rec, hand)
    head = f"## {md_text(rec['assignment'])}: {rec['score']:g} / {rec['max_score']:g}"
    lines = [head, ""]
    if w["items"]:
        total = rec["score"] + w["score"]
        lines += [f"**Total: {total:g} / {rec['max_score'] + w['max']:g}** (tests {rec['score']:g} / "
                  f"{rec['max_score']:g}, written answers {w['score']:g} / {w['max']:g}"
                  + (f"; {w['ungraded']} written answer(s) not graded yet" if w["ungraded"] else "") + ")", ""]
    flag, by = late(rec, deadline)
    if rec.get("submitted_at"):
        lines += [f"Submitted {md_text(when_text(rec['submitted_at']))}" + (f" (late by {by})" if flag == "yes" else "") + ".", ""]
    fate = penalty(rec, w, deadline)
    if fate["why"]:
        lines += [md_text(fate["why"]) + (f" **Final: {fate['final']:g} / {rec['max_score'] + w['max']:g}**"
                                          if fate["penalty"] else ""), ""]
    groups = mistake_groups(rec)
    if groups:
        lines += ["What went wrong (each mistake once, with the tests it explains):", ""]
        for k, g in enumerate(groups):
            credited = f"; credited, the error carried forward: {', '.join(g['credited'])}" if g["credited"] else ""
            lines.append(f"{k + 1}. {md_text(g['what'])} (tests: {md_text(', '.join(g['tests']))}{md_text(credited)})")
        lines.append("")
    if any(t.get("carried_forward") for t in rec.get("tests") or []):
        lines += [md_text(carry.RULE), ""]
    for t, msg in test_messages(rec):
        mark = "✅" if t["passed"] else "↪️" if t.get("carried_forward") else "❌"
        k = _group_of(groups, t)
        see = f" (see {k + 1} above)" if k >= 0 else ""
        lines.append(f"- {mark} **{md_text(t['name'])}** ({t['points']:g}/{t['max_points']:g}): {md_text(msg)}{see}")
        if t.get("carried_forward"):
            lines.append(f"  - *{md_text(t['carried_forward'])}*")
    if rec.get("functions"):
        lines += ["", "By function (points the release gives it; points lost here):", ""]
        lines += [f"- {md_text(str(row['function']))}: {_pts(row['max_points'])}"
                  + (f", lost {_pts(row['lost'])}" if float(row.get("lost") or 0) else "") for row in rec["functions"]]
    if notes(rec) and rec.get("errors"):
        lines += ["", "Notes from the grader:"] + [f"- {md_text(e)}" for e in dict.fromkeys(rec["errors"])]
    if w["items"]:
        answered = sum(i["state"] == "yes" for i in w["items"])
        lines += ["", f"Written answers: {answered} of {len(w['items'])} answered ({w['max']:g} points, graded by hand)."]
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
    lines += ["", f"_Graded against version {md_text(rec.get('version', '?'))}. Hidden tests use inputs you "
                  "have not seen; the messages say what was checked, not the expected values._"]
    return "\n".join(lines) + "\n"


def feedback_html(rec: dict, hand: HandScores | None = None, deadline=None) -> str:
    w = written(rec, hand)
    e = html.escape
    rows = []
    groups = mistake_groups(rec)
    for t, msg in test_messages(rec):
        k = _group_of(groups, t)
        diag = f"<div class='diag'>What went wrong: see <a href='#mistake-{k + 1}'>mistake {k + 1}</a></div>" if k >= 0 else ""
        if t.get("carried_forward"):
            diag += f"<div class='diag'><b>{e(str(t['carried_forward']))}</b></div>"
        rows.append(f"<tr class='{'ok' if t['passed'] or t.get('carried_forward') else 'bad'}'><td>{e(str(t['name']))}</td>"
                    f"<td class='num'>{t['points']:g}&nbsp;/&nbsp;{t['max_points']:g}</td><td>{e(msg)}{diag}</td></tr>")
    note_items = "".join(f"<li>{e(str(n))}</li>" for n in dict.fromkeys(rec.get("errors") or []))
    who = e(str(rec["student"])) + (f" ({e(str(rec['name']))})" if rec.get("name") else "")
    flag, by = late(rec, deadline)
    when = (f" Submitted {e(when_text(rec['submitted_at']))}" + (f" <span class='late'>late by {by}</span>" if flag == "yes" else "")
            + "." if rec.get("submitted_at") else "")
    if w["items"]:
        total = (f"<p>Score: <b>{rec['score'] + w['score']:g} / {rec['max_score'] + w['max']:g}</b> "
                 f"(tests {rec['score']:g} / {rec['max_score']:g}, written answers {w['score']:g} / {w['max']:g}"
                 + (f"; {w['ungraded']} not graded yet" if w["ungraded"] else "") + ")</p>")
    else:
        total = f"<p>Score: <b>{rec['score']:g} / {rec['max_score']:g}</b></p>"
    parts = [f"<h1>{e(str(rec['assignment']))}</h1><p>Student: {who}.{when}</p>", total]
    fate = penalty(rec, w, deadline)
    if fate["why"]:
        parts.append(f"<p><span class='late'>{e(fate['why'])}</span>"
                     + (f" Final: <b>{fate['final']:g} / {rec['max_score'] + w['max']:g}</b>" if fate["penalty"] else "")
                     + "</p>")
    if groups:
        items = "".join(
            f"<li id='mistake-{k + 1}'>{markup.render_inline(g['what'])} <span class='tests'>(tests: "
            f"{e(', '.join(g['tests']))}" + (f"; credited, the error carried forward: {e(', '.join(g['credited']))}"
                                             if g["credited"] else "") + ")</span></li>"
            for k, g in enumerate(groups))
        parts.append(f"<h2>What went wrong</h2><p>Each mistake once, with the tests it explains.</p><ol>{items}</ol>")
    if rows:
        carried = any(t.get("carried_forward") for t in rec.get("tests") or [])
        parts.append("<h2>Tests</h2>" + (f"<p>{e(carry.RULE)}</p>" if carried else "")
                     + "<table><thead><tr><th>test</th><th class='num'>points</th><th>what was checked"
                     f"</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")
    if rec.get("functions"):
        cells = "".join(f"<tr class='{'bad' if float(row.get('lost') or 0) else 'ok'}'><td>{e(str(row['function']))}</td>"
                        f"<td class='num'>{_pts(row['max_points'])}</td><td class='num'>{_pts(row.get('lost') or 0)}</td></tr>"
                        for row in rec["functions"])
        parts.append("<h2>By function</h2><p>The points the release gives each function, and the points lost here "
                     "(a failing test counts against the function whose answer failed).</p><table><thead><tr><th>function"
                     f"</th><th class='num'>points</th><th class='num'>lost</th></tr></thead><tbody>{cells}</tbody></table>")
    if note_items:
        parts.append(f"<h2>Notes from the grader</h2><ul>{note_items}</ul>")
    if w["items"]:
        prompts = questions_of(str(rec.get("assignment")))
        answered = sum(i["state"] == "yes" for i in w["items"])
        parts.append(f"<h2>Written answers</h2><p>{answered} of {len(w['items'])} answered "
                     f"({w['max']:g} points, graded by hand).</p>")
        for i in w["items"]:
            if i["state"] != "yes":
                status = (f"<span class='miss'>{'no answer cell found' if i['state'] == 'no cell' else 'left blank'}"
                          f"</span>: 0 / {i['points']:g}")
            elif i["score"] is None:
                status = "not graded yet"
            else:
                status = f"<b>{i['score']:g} / {i['points']:g}</b>"
            prompt = prompts.get(i["question"], ("", ""))[0]
            parts.append(
                f"<section><h3>{e(i['question'])} ({i['points']:g} {_unit(i['points'])})</h3><p>Score: {status}</p>"
                + (f"<div class='comment md'><b>Comment:</b> {markup.render(i['comment'])}</div>" if i["comment"].strip() else "")
                + (f"<details><summary>Question</summary><div class='md'>{markup.render(prompt)}</div></details>" if prompt else "")
                + (f"<details><summary>Your answer</summary><div class='answer md'>{markup.render(i['text'])}</div></details>"
                   if i["state"] == "yes" else "")
                + "</section>")
    parts.append(f"<p><small>Version {e(str(rec.get('version', '?')))}. Hidden tests use inputs you have not seen; "
                 "the messages say what was checked, not the expected values.</small></p>")
    return page(f"{rec['assignment']}: {rec['student']}", "".join(parts))


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


def test_names(results: list[dict]) -> list[str]:
    names: list[str] = []
    for rec in results:
        for t in rec.get("tests", []):
            if t["name"] not in names:
                names.append(t["name"])
    return names


def feedback_href(student: str) -> str:
    return "feedback/" + quote(f"{student}.html")


def cohort_report(summary: dict, hand: HandScores | None = None, deadline=None, similar: str = "") -> str:
    """The cohort report; ``similar``: the similarity section (``similarity.report_section``)."""
    from matplotlib.ticker import MaxNLocator  # heavy: only the report's figures

    e = html.escape
    results = summary["results"]
    names = test_names(results)
    scores = [r["score"] for r in results]
    maxes = [r["max_score"] for r in results if r["max_score"]]
    full = max(maxes) if maxes else 1.0
    passed = {n: sum(any(t["name"] == n and t["passed"] for t in r.get("tests", [])) for r in results) for n in names}
    points = {}
    for r in results:
        for t in r.get("tests", []):
            points.setdefault(t["name"], t.get("max_points", 0))
    n = max(len(results), 1)
    slow = sorted(results, key=lambda r: -r.get("seconds", 0))[:10]

    def hist(ax):
        ax.hist(scores, bins=max(1, min(int(full), 25)), range=(0, full), color="#4a7", edgecolor="white")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # whole students
        ax.set_xlabel("score (tests)")
        ax.set_ylabel("students")
        ax.set_title("score distribution")

    def rates(ax):
        ax.barh(range(len(names)), [passed[x] / n for x in names], color="#47a")
        ax.set_yticks(range(len(names)), names, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("fraction passing")
        ax.set_title("per-test pass rate")

    def slowest(ax):
        ax.barh(range(len(slow)), [r.get("seconds", 0) for r in slow], color="#a74")
        ax.set_yticks(range(len(slow)), [r["student"] for r in slow], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("seconds")
        ax.set_title("slowest submissions")

    figures = [_figure_png(hist)]
    if names:
        figures.append(_figure_png(rates, rows=len(names)))
    if slow:
        figures.append(_figure_png(slowest, rows=len(slow)))

    # one row per student
    student_rows, all_notes, with_notes = [], [], 0
    any_written = any(r.get("manual") for r in results)
    any_name = any(r.get("name") or r.get("email") for r in results)
    any_time = any(r.get("submitted_at") or r.get("lms_late") is not None for r in results)
    fates = {id(r): penalty(r, written(r, hand), deadline) for r in results}
    any_penalty = any(f["penalty"] for f in fates.values())
    for r in results:
        w = written(r, hand)
        fate = fates[id(r)]
        rn = notes(r)
        with_notes += bool(rn)
        all_notes += [(r["student"], x) for x in rn]
        flag, by = late(r, deadline)
        when = e(when_text(r.get("submitted_at")))
        if flag == "yes":
            when += f" <span class='late'>late {by}</span>"
        if fate["lms_late"] == "yes":
            when += f" <span class='late'>late ({e(late_policy.LMS_NAMES.get(str(r.get('lms')), 'LMS'))})</span>"
        written_cell = (f"{w['score']:g} / {w['max']:g}" + (f" <small>({w['ungraded']} to grade)</small>" if w["ungraded"] else "")
                        if w["items"] else "")
        first = (rn[0][:160] + ("…" if len(rn[0]) > 160 else "")) if rn else ""
        student_rows.append(
            f"<tr><td><a href='{e(feedback_href(r['student']))}'>{e(str(r['student']))}</a></td>"
            + (f"<td>{e(str(r.get('name') or ''))}<br><small>{e(str(r.get('email') or ''))}</small></td>" if any_name else "")
            + (f"<td>{when}</td>" if any_time else "")
            + f"<td class='num'>{r['score']:g} / {r['max_score']:g}</td>"
            + (f"<td class='num'>{written_cell}</td><td class='num'>{r['score'] + w['score']:g} / "
               f"{r['max_score'] + w['max']:g}</td>" if any_written else "")
            + (f"<td class='num'>{fate['final']:g}" + (f" <small>(−{fate['penalty']:g} late)</small>" if fate["penalty"]
                                                      else "") + "</td>" if any_penalty else "")
            + f"<td class='num'>{len(rn)}</td><td>{e(first)}</td>"
            f"<td class='num'>{float(r.get('seconds', 0)):.1f}</td></tr>")
    head = ("<tr><th>student</th>" + ("<th>name</th>" if any_name else "")
            + ("<th>submitted</th>" if any_time else "") + "<th class='num'>tests</th>"
            + ("<th class='num'>written</th><th class='num'>total</th>" if any_written else "")
            + ("<th class='num'>final</th>" if any_penalty else "")
            + "<th class='num'>notes</th><th>first note</th><th class='num'>time (s)</th></tr>")
    test_rows = "".join(f"<tr><td>{e(x)}</td><td class='num'>{_pts(points.get(x, 0))}</td>"
                        f"<td class='num'>{passed[x]} / {len(results)}</td><td class='num'>{100 * passed[x] / n:.0f}%</td></tr>"
                        for x in names)
    mistakes = mistakes_found(summary)  # catalogued ones (also in mistakes.csv), then generic diagnoses
    mistake_rows = "".join(
        f"<tr><td>{e(m['mistake'])}" + (f"<br><small>hint: {e(m['hint'])}</small>" if m["hint"] else "")
        + f"</td><td>{e(m['function'])}</td><td class='num'>{len(m['students'])}</td><td>"
        + ", ".join(f"<a href='{e(feedback_href(s))}'>{e(s)}</a>" for s in m["students"]) + "</td></tr>"
        for m in mistakes)
    note_rows = "".join(f"<tr><td><a href='{e(feedback_href(s))}'>{e(s)}</a></td><td>{e(x)}</td></tr>" for s, x in all_notes)
    unmatched = "".join(f"<li>{e(u)}</li>" for u in summary.get("unmatched", []))
    id_notes = "".join(f"<li>{e(u)}</li>" for u in summary.get("notes", []) or [])
    mean = sum(scores) / len(scores) if scores else 0.0
    late_count = sum(late(r, deadline)[0] == "yes" for r in results)
    aid = e(str(summary["assignment"]))
    body = (f"<h1>{aid}: {len(results)} submissions</h1>"
            f"<p>Version {e(str(summary.get('version', '?')))}. Mean {mean:.2f} / {full:g} (tests); "
            f"{sum(s == full for s in scores)} full marks; {with_notes} with grader notes"
            + (f"; {late_count} late" if deadline is not None else "") + ".</p>"
            + ("<p>Written answers: scores typed in <code>written_scores.csv</code> or nbgrader's formgrader are "
               "merged on each run; <a href='written.html'>the answers by question</a>.</p>" if any_written else "")
            + "<h2>Students</h2><table id='students'><thead>" + head + "</thead><tbody>" + "".join(student_rows)
            + "</tbody></table>"
            + "".join(f"<img src='{src}' alt='figure'>" for src in figures)
            + "<h2>Tests</h2><table id='tests'><thead><tr><th>test</th><th class='num'>points</th>"
              "<th class='num'>passed</th><th class='num'>rate</th></tr></thead><tbody>" + test_rows + "</tbody></table>"
            + ("<h2>Mistakes found in this cohort</h2><p>Catalogued mistakes are also in <code>mistakes.csv</code>."
               "</p><table id='mistakes'><thead><tr><th>mistake</th><th>function</th><th class='num'>students</th>"
               "<th>who</th></tr></thead><tbody>" + mistake_rows + "</tbody></table>" if mistakes else "")
            + similar
            + f"<h2>Grader notes ({len(all_notes)})</h2>"
            + (f"<table id='notes'><tbody>{note_rows}</tbody></table>" if note_rows else "<p>none</p>")
            + (f"<h2>Student ids</h2><ul>{id_notes}</ul>" if id_notes else "")
            + (f"<h2>On the roster, no submission ({len(summary['absent'])})</h2><ul>"
               + "".join(f"<li>{e(a['name'] or a['roster_id'])} <small>{e(a['roster_id'])}</small></li>"
                         for a in summary["absent"]) + "</ul>" if summary.get("absent") else "")
            + f"<h2>Not matched to a student</h2><ul>{unmatched or '<li>none</li>'}</ul>")
    return page(f"{summary['assignment']} cohort", body)


# -- written answers by question -----------------------------------------------------------
def written_answers_html(summary: dict, hand: HandScores | None = None) -> str:
    """Grading by question: each written question with its model answer and rubric, then every
    student's answer to it, with the score and comment entered so far (Gradescope's 'grade by
    question'). Markdown and math rendered."""
    e = html.escape
    prompts = questions_of(summary["assignment"])
    by_question: dict[str, list] = {}
    points: dict[str, float] = {}
    for rec in summary["results"]:
        for m in rec.get("manual") or []:
            by_question.setdefault(str(m.get("question")), []).append((rec["student"], m))
            points.setdefault(str(m.get("question")), float(m.get("points", 0) or 0))
    order = list(prompts) + [q for q in by_question if q not in prompts]
    parts = []
    for name in order:
        prompt, model = prompts.get(name, ("", ""))
        answers = []
        for student, m in sorted(by_question.get(name, []), key=lambda pair: pair[0]):
            state = answer_state(m)
            entered = hand.get(student, name) if hand else {"score": "", "comment": ""}
            graded = (f"<div class='comment md'><b>Score:</b> {e(entered['score']) or '—'}"
                      + (f"; <b>comment:</b> {markup.render(entered['comment'])}" if entered["comment"].strip() else "")
                      + "</div>" if entered["score"] or entered["comment"].strip() else "")
            prev = hand.previous.get((student, name)) if hand else None
            if previous_grading(prev):
                if not entered["score"]:
                    graded = "<div class='comment md'><b>Score:</b> to grade (the answer changed)</div>" + graded
                graded += (f"<div class='comment md'><b>Previous grading (answer changed since):</b> score "
                           f"{e(prev.get('score') or '—')}"
                           + (f"; comment: {markup.render(prev['comment'])}" if str(prev.get('comment', '')).strip()
                              else "") + "</div>")
            body = ("<p class='miss'>no answer cell</p>" if state == "no cell" else
                    "<p class='miss'>left blank</p>" if state == "blank" else
                    f"<div class='answer md'>{markup.render(m.get('text', ''))}</div>")
            answers.append(f"<h3 id='{e(name)}-{e(student)}'>{e(student)}</h3>{body}{graded}")
        pts = points.get(name)
        if pts is None:
            try:
                pts = next(q.points for q in load(summary["assignment"]).written_questions() if q.name == name)
            except Exception:  # noqa: BLE001
                pts = 0.0
        parts.append(f"<section><h2>{e(name)} ({pts:g} {_unit(pts)})</h2><div class='md'>{markup.render(prompt)}</div>"
                     f"<details><summary>Model answer and rubric</summary><div class='answer md'>{markup.render(model)}</div>"
                     f"</details>{''.join(answers) or '<p>No submissions.</p>'}</section>")
    aid = e(str(summary["assignment"]))
    return page(f"{summary['assignment']}: written answers",
                f"<h1>{aid}: written answers, by question</h1>"
                "<p>Scores and comments go in <code>written_scores.csv</code> beside this file, or in nbgrader's "
                "formgrader on the same gradebook; the next <code>pdl grade-cohort</code> merges them into "
                "<code>grades.csv</code>, the gradebook and the feedback pages.</p>" + "".join(parts))
