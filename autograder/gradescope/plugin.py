"""otter-grader plugin: otter's runner (Gradescope's ``run_autograder``, or ``otter run -a <zip>``)
grades through ``autograder.run.grading.grade``, the engine of ``pdl grade``.

``before_execution`` grades the real submission in pdl's sandbox and gives otter's kernel an
empty notebook, so nothing of the student's ever runs in otter's (root) kernel;
``after_grading`` makes otter write pdl's verdict as Gradescope's results.json
(``autograder.gradescope.results``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbformat
from otter.plugins import AbstractOtterPlugin
from otter.run.run_autograder.utils import OtterRuntimeError

import course_config
from autograder.gradescope.results import results
from autograder.run.grading import grade
from autograder.run.paths import REPO
from autograder.run.sandbox import SandboxUnavailable


def grade_unreadable(ag: str) -> bool:
    """If the one notebook in ``<ag>/submission`` cannot be read as a notebook (otter would stop
    with a traceback before any plugin runs), grade it with pdl (0, with the reason) and write
    results.json; True if it did."""

    notebooks = sorted(Path(ag, "submission").glob("*.ipynb"))
    if len(notebooks) != 1:
        return False  # none or several: otter's own message says so
    try:
        nbformat.reads(notebooks[0].read_text(encoding="utf-8"), as_version=nbformat.NO_CONVERT)
        return False
    except Exception:  # noqa: BLE001 - whatever otter would choke on
        pass

    config = json.loads(Path(ag, "source", "otter_config.json").read_text())
    plugin = next(p for p in config["plugins"] if isinstance(p, dict))
    try:
        report = pdl_grade(notebooks[0], next(iter(plugin.values()))["assignment"])
        data = results(report.to_dict())
        print(f"pdl: {report.score:g} / {report.max_score:g}: {report.errors[0] if report.errors else ''}")
    except SandboxUnavailable as exc:  # as otter writes an OtterRuntimeError
        data = {"score": 0, "stdout_visibility": "hidden",
                "tests": [{"name": "Autograder Error", "output": f"pdl refused to grade: {exc}"}]}
    Path(ag, "results").mkdir(exist_ok=True)
    Path(ag, "results", "results.json").write_text(json.dumps(data, indent=2))
    return True


def pdl_grade(path, assignment: str, **options):
    """``grading.grade`` under the course's limits (``limits_from``), from the zip's ``pdl/``."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))

    return grade(path, assignment, **limits_from(course_config), **options)


def limits_from(course_config) -> dict:
    """pdl grade's limits (course_config), unless the grader's environment sets PDL_TIMEOUT_S /
    PDL_CALL_TIMEOUT_S / PDL_MEMORY_MB (the local simulation's tests use shorter ones)."""

    def pick(name, default):
        value = os.environ.get(f"PDL_{name}")
        return type(default)(value) if value else default
    return {"timeout": pick("TIMEOUT_S", course_config.TIMEOUT_S),
            "call_timeout": pick("CALL_TIMEOUT_S", course_config.CALL_TIMEOUT_S),
            "memory_mb": pick("MEMORY_MB", course_config.MEMORY_MB)}


class PdlGrading(AbstractOtterPlugin):
    """Config (otter_config.json, under this plugin's name): ``assignment``."""

    report: dict | None = None

    def before_execution(self, submission):


        try:
            report = pdl_grade(self.submission_path, self.plugin_config["assignment"], public_checks=True)
        except SandboxUnavailable as exc:  # refuse: otter records an "Autograder Error", nothing runs
            raise OtterRuntimeError(f"pdl refused to grade: {exc}") from None
        self.report = report.to_dict()
        print(f"pdl: {report.score:g} / {report.max_score:g} ({report.isolation} isolation, "
              f"{report.seconds:.1f} s)")
        return nbformat.v4.new_notebook(metadata=submission.get("metadata", {}))

    def after_grading(self, otter_results):

        data = results(self.report or {"errors": ["the submission was not graded"],
                                       "public_notes": ["the submission was not graded"]})
        # otter writes results.json from this method; ours replaces its (empty) verdict
        otter_results.to_gradescope_dict = lambda ag_config: data
