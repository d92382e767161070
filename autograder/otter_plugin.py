"""otter-grader plugin: otter's runner (Gradescope's ``run_autograder``, or ``otter run -a <zip>``)
grades through ``autograder.grading.grade``, the engine of ``pdl grade``.

``before_execution`` grades the real submission in pdl's sandbox and gives otter's kernel an
empty notebook, so nothing of the student's ever runs in otter's (root) kernel;
``after_grading`` makes otter write pdl's verdict as Gradescope's results.json
(``autograder.gradescope.results``).
"""

from __future__ import annotations

import sys

import nbformat
from otter.plugins import AbstractOtterPlugin

from autograder.sandbox import REPO


class PdlGrading(AbstractOtterPlugin):
    """Config (otter_config.json, under this plugin's name): ``assignment``."""

    report: dict | None = None

    def before_execution(self, submission):
        if str(REPO) not in sys.path:
            sys.path.insert(0, str(REPO))
        import course_config

        from otter.run.run_autograder.utils import OtterRuntimeError

        from autograder.grading import grade
        from autograder.sandbox import SandboxUnavailable

        assignment = self.plugin_config["assignment"]
        try:
            report = grade(self.submission_path, assignment, timeout=course_config.TIMEOUT_S,
                           call_timeout=course_config.CALL_TIMEOUT_S, memory_mb=course_config.MEMORY_MB,
                           public_checks=True)
        except SandboxUnavailable as exc:  # refuse: otter records an "Autograder Error", nothing runs
            raise OtterRuntimeError(f"pdl refused to grade: {exc}") from None
        self.report = report.to_dict()
        print(f"pdl: {report.score:g} / {report.max_score:g} ({report.isolation} isolation, "
              f"{report.seconds:.1f} s)")
        return nbformat.v4.new_notebook(metadata=submission.get("metadata", {}))

    def after_grading(self, results):
        from autograder.gradescope import results as gradescope_results

        data = gradescope_results(self.report or {"errors": ["the submission was not graded"]})
        # otter writes results.json from this method; ours replaces its (empty) verdict
        results.to_gradescope_dict = lambda ag_config: data
