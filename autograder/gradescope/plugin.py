"""otter-grader plugin: otter's runner (Gradescope's ``run_autograder``, or ``otter run -a <zip>``)
grades through ``autograder.run.grading.grade``, the engine of ``pdl grade``.

``prepare_submission`` runs first (the zip's ``run_otter.py``, before otter's runner): it reduces
the submission folder to the notebook as pdl reads it, so otter never opens a student's file.
``before_execution`` grades that notebook in pdl's sandbox and gives otter's kernel an empty
notebook, so nothing of the student's ever runs in otter's (root) kernel; ``after_grading`` makes
otter write pdl's verdict as Gradescope's results.json (``autograder.gradescope.results``).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import sys
from pathlib import Path

import nbformat
from otter.plugins import AbstractOtterPlugin
from otter.run.run_autograder.utils import OtterRuntimeError

from autograder.gradescope.results import results
from autograder.run.grading import grade
from autograder.run.isolation import SandboxUnavailable, namespaces_available
from autograder.run.notebook import SubmissionError, load_submission
from autograder.run.paths import REPO
from autograder.run.record import GradeReport
from autograder.run.settings import Settings


def prepare_submission(ag: str) -> bool:
    """Before otter's runner starts (the zip's ``run_otter.py``): reduce ``<ag>/submission`` to
    the notebook. Nothing else a student uploads reaches otter, which would unpickle its log file
    (``.OTTER_LOG``) as root and start its kernel in that folder (a ``.py`` there is importable).
    The notebook must be the folder's one ``.ipynb``, a regular file; pdl reads it
    (``load_submission``: code and text only, outputs and attachments skipped unread) and writes
    what it kept as ``<assignment>.ipynb``; everything the student uploaded is then deleted unread.

    True when otter may run. False when results.json already holds the verdict: a note to the
    student (not exactly one notebook, or a link), the notebook graded by pdl as unreadable (0,
    with the reason), or an "Autograder Error" where the folder could not be cleared."""

    folder = Path(ag, "submission")
    try:
        names = sorted(os.listdir(folder))
        notebooks = [n for n in names if n.endswith(".ipynb")]
        if len(notebooks) != 1:
            shown = ", ".join(ascii(n)[:80] for n in notebooks[:5]) or "none"
            return _refuse(ag, folder, f"Submit exactly one notebook (.ipynb file); this submission has "
                                       f"{len(notebooks)} ({shown}). Nothing was graded.")
        path = folder / notebooks[0]
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return _refuse(ag, folder, f"{ascii(notebooks[0])[:80]} is a link or a folder, not a notebook "
                                       "file; submit the .ipynb file itself. Nothing was graded.")
        assignment = _assignment(ag)
        try:
            data, _ = load_submission(path)
        except SubmissionError:
            _grade_unreadable(ag, path, assignment)
            _clear(folder)
            return False
        _clear(folder)
        (folder / f"{assignment}.ipynb").write_bytes(data)
        return True
    except OSError as exc:  # the folder could not be read or cleared: otter must not see it
        _write_results(ag, {"score": 0, "stdout_visibility": "hidden", "tests": [
            {"name": "Autograder Error", "output": f"pdl refused to grade: cannot prepare the submission "
                                                   f"folder ({exc.strerror})"}]})
        return False


def _assignment(ag: str) -> str:
    config = json.loads(Path(ag, "source", "otter_config.json").read_text())
    plugin = next(p for p in config["plugins"] if isinstance(p, dict))
    return next(iter(plugin.values()))["assignment"]


def _clear(folder: Path) -> None:
    """Delete everything in ``folder``, never following a link; OSError if anything is left."""
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)  # fd-based on Linux: a link inside is removed, not followed
        else:
            os.unlink(entry.path)
    if os.listdir(folder):
        raise OSError(errno.ENOTEMPTY, "files are left in the submission folder")


def _refuse(ag: str, folder: Path, note: str) -> bool:
    _clear(folder)
    print(f"pdl: not graded: {note}")
    _write_results(ag, {"score": 0.0, "stdout_visibility": "hidden", "tests": [
        {"name": "Notes from the grader", "status": "failed", "visibility": "visible", "output": note}]})
    return False


def _grade_unreadable(ag: str, path: Path, assignment: str) -> None:
    """A notebook that cannot be read (otter would stop with a traceback before any plugin
    runs): graded by pdl (0, with the reason), written as results.json."""
    try:
        report = pdl_grade(path, assignment)
        data = results(report)
        print(f"pdl: {report.score:g} / {report.max_score:g}: {report.errors[0] if report.errors else ''}")
    except SandboxUnavailable as exc:  # as otter writes an OtterRuntimeError
        data = {"score": 0, "stdout_visibility": "hidden",
                "tests": [{"name": "Autograder Error", "output": f"pdl refused to grade: {exc}"}]}
    _write_results(ag, data)


def previous_submissions(ag: str) -> int:
    """How many submissions the student made before this one (Gradescope's
    ``submission_metadata.json``, ``previous_submissions``); 0 where it cannot be read."""
    try:
        data = json.loads(Path(ag, "submission_metadata.json").read_text())
        return len(data.get("previous_submissions") or []) if isinstance(data, dict) else 0
    except (OSError, ValueError, TypeError):
        return 0


def _write_results(ag: str, data: dict) -> None:
    Path(ag, "results").mkdir(exist_ok=True)
    Path(ag, "results", "results.json").write_text(json.dumps(data, indent=2))


def pdl_grade(path, assignment: str, **options):
    """``grading.grade`` under the course's limits (``limits_from``), from the zip's ``pdl/``."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))

    options.setdefault("isolation", zip_isolation())
    return grade(path, assignment, **limits_from(), **options)


def zip_isolation() -> str:
    """The zip's explicit choice: ``PDL_ISOLATION`` if set, else the allow-list sandbox where the
    container allows namespaces, else ``account`` (Gradescope's containers usually refuse them; the
    grader runs as root there). Outside the zip, ``account`` is never chosen for anyone."""
    return Settings.load().isolation or ("namespace" if namespaces_available() else "account")


def limits_from() -> dict:
    """pdl grade's limits (``autograder.run.settings``: course_config, unless the grader's
    environment sets PDL_TIMEOUT_S / PDL_CALL_TIMEOUT_S / PDL_MEMORY_MB; the local simulation's
    tests use shorter ones)."""
    limits = Settings.load().limits
    return {"timeout": limits.timeout_s, "call_timeout": limits.call_timeout_s, "memory_mb": limits.memory_mb}


class PdlGrading(AbstractOtterPlugin):
    """Config (otter_config.json, under this plugin's name): ``assignment``."""

    report: GradeReport | None = None

    def before_execution(self, submission):


        try:
            report = pdl_grade(self.submission_path, self.plugin_config["assignment"], public_checks=True)
        except SandboxUnavailable as exc:  # refuse: otter records an "Autograder Error", nothing runs
            raise OtterRuntimeError(f"pdl refused to grade: {exc}") from None
        self.report = report
        print(f"pdl: {report.score:g} / {report.max_score:g} ({report.isolation} isolation, "
              f"{report.seconds:.1f} s)")
        return nbformat.v4.new_notebook(metadata=submission.get("metadata", {}))

    def after_grading(self, otter_results):

        data = results(self.report or GradeReport("", "", errors=["the submission was not graded"],
                                                  public_notes=["the submission was not graded"]),
                       resubmissions=previous_submissions(Settings.load().autograder_dir))
        # otter writes results.json from this method; ours replaces its (empty) verdict
        otter_results.to_gradescope_dict = lambda ag_config: data
