"""The cohort's pages in a real browser (headless Chromium from the distribution's packages):
what a person sees is rendered math, the per-student table, links that lead somewhere.
The screenshots are kept under the cohort's output folder (``<out>/screenshots/``)."""

import csv
from pathlib import Path
from urllib.parse import unquote

import pytest
from conftest import EXEMPLAR

from autograder.cohort import browser, outputs
from autograder.cohort.record import CohortSummary, Record
from autograder.course.source import load

pytestmark = pytest.mark.skipif(browser.find_chromium() is None,
                                reason="no Chromium here: install the distribution's `chromium` package "
                                       "(scripts/setup.sh does where it runs as root with apt-get) or set PDL_CHROMIUM")


def _cohort(out: Path) -> CohortSummary:
    questions = load(EXEMPLAR).written_questions()
    model = {q.name: q.model_answer for q in questions}

    def rec(student, score, answers=True, **extra):
        tests = [{"name": "test_critical_load", "points": 3.0 if score else 0.0, "max_points": 3.0,
                  "passed": bool(score), "message": "critical_load: alpha_c, R* and eps* at the transition",
                  "diagnosis": "" if score else "returned the spinodal instead of the critical load"},
                 {"name": "test_enumerate", "points": 0.0, "max_points": 2.0, "passed": False,
                  "message": "enumerate_version_space did not finish within 10 s"}]
        manual = [{"question": q.name, "points": q.points, "cell": 3, "text": model[q.name] if answers else "",
                   "missing": False, "blank": not answers} for q in questions]
        return Record.from_dict({"student": student, "assignment": EXEMPLAR, "score": score, "max_score": 5.0,
                                 "version": "2026.x", "tests": tests, "errors": [], "manual": manual, "seconds": 3.2,
                                 **extra})

    results = [rec("ada", 3.0, name="Ada Lovelace", submitted_at="2026-10-15T21:30:00Z"),
               rec("-1-1", 0.0, name="=HYPERLINK(1)"), rec("bob", 0.0, answers=False),
               Record(student="broken", assignment=EXEMPLAR, submission="", score=0.0, max_score=5.0,
                      version="2026.x", seconds=0.4,
                      errors=["invalid notebook: the notebook is not valid JSON (Expecting value: line 1 column 1)"])]
    summary = CohortSummary(assignment=EXEMPLAR, version="2026.x", unmatched=["notes.txt: not a notebook; not graded"],
                            results=results)
    outputs.write_outputs(summary, out)
    sheet = out / "written_scores.csv"
    with open(sheet, newline="") as f:
        table = list(csv.DictReader(f))
    for row in table:
        if row["student"] == "ada":
            row["score"], row["comment"] = "1", "Good: $\\partial_\\alpha\\varphi$ is a sigmoid, $\\mathbb E$ fine."
    with open(sheet, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    outputs.write_outputs(summary, out)
    return summary


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("pages") / "cohort"
    summary = _cohort(out)
    seen = browser.screenshot_cohort(out, students=["ada"])
    return out, summary, seen


def test_report_has_the_student_table_and_working_links(pages):
    out, summary, seen = pages
    report = seen["report.html"]
    assert report["students_rows"] == len(summary.results)
    links = [h for h in report["links"] if not h.startswith(("http", "#", "data:"))]
    assert {f"feedback/{r.student}.html" for r in summary.results} <= {unquote(h) for h in links}
    for href in links:
        assert (out / unquote(href)).is_file(), href
    text = report["text"]
    assert "Mistakes found in this cohort" in text and "returned the spinodal instead of the critical load" in text
    assert "did not finish within 10 s" in text            # a timeout is a grader note
    assert "Ada Lovelace" in text and "late" not in text.split("Students")[0]
    # under the pages' Content-Security-Policy the inline figures still load and the style applies
    assert report["images"] == 3 and report["images_shown"] == 3
    assert all(info["styled"] for info in seen.values()), {page: info["styled"] for page, info in seen.items()}


def test_written_answers_and_feedback_show_rendered_math(pages):
    out, _, seen = pages
    for page in ("written.html", "feedback/ada.html"):
        info = seen[page]
        assert info["math"] > 0 and info["math_shown"] == info["math"], page
        assert info["tex_words"] == [] and info["dollar_spans"] == [], (page, info["tex_words"][:5],
                                                                       info["dollar_spans"][:5])
    feedback = seen["feedback/ada.html"]["text"]
    assert "Good:" in feedback and "1 / 1" in feedback


def test_screenshots_are_kept_for_the_ta(pages):
    out, _, _ = pages
    shots = sorted(p.name for p in (out / "screenshots").glob("*.png"))
    assert shots == ["feedback-ada.png", "report.png", "written.png"]
    for name in shots:
        data = (out / "screenshots" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, name
