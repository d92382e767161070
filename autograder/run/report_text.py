"""A ``GradeReport`` as the terminal shows it (``pdl grade`` on one notebook): the TA's view, each
test, its fault and hint, the subtotals by function, the notes and the total."""

from __future__ import annotations

from autograder.run.carry import RULE
from autograder.run.record import EVIDENCE_WORDS, GradeReport


def format_report(report: GradeReport) -> str:
    width = max([len(t.name) for t in report.tests] + [4])
    lines = [f"{report.assignment}  {report.submission}", ""]
    for t in report.tests:
        mark = "PASS" if t.passed else "CARRIED" if t.carried_forward else "FAIL"
        lines.append(f"  {mark}  {t.name:<{width}}  {t.points:g}/{t.max_points:g}")
        if not t.passed:
            lines.append(f"        {t.message}")
            if t.values:  # the TA's view: the values are shown
                lines.append(f"        {t.values}")
            if t.carried_forward:
                lines.append(f"        {t.carried_forward}")
            if t.fault is not None and t.fault.function:
                lines.append(f"        at fault: {t.fault.function} ({EVIDENCE_WORDS[t.fault.evidence]})")
            if t.diagnosis:
                lines.append(f"        hint: {t.diagnosis}")
    if any(t.carried_forward for t in report.tests):
        lines += ["", f"  {RULE}"]
    if report.functions:
        lines += ["", "  by function (the points the release gives it; the points lost here, charged to the "
                      "function whose answer failed):"]
        lines += [f"    {row.function:<{width}}  {row.max_points:g}" + (f"  lost {row.lost:g}" if row.lost else "")
                  for row in report.functions]
    if report.errors:
        lines.append("")
        lines += [f"  note: {e}" for e in report.errors]
    lines += ["", f"  total: {report.score:g} / {report.max_score:g}"]
    if report.isolation and report.isolation != "namespace":  # the default is no news to a reader
        lines.append(f"  isolation: {report.isolation}")
    if report.manual:
        got = [m.question for m in report.manual if not m.blank]
        lines.append(f"  written answers: {len(got)} of {len(report.manual)} answered "
                     f"({sum(m.points for m in report.manual):g} points, graded by hand, not in the total)")
    return "\n".join(lines)

