"""Drive real nbgrader on the generated course (``nbgrader/``, configured by course_config.py).

``pdl generate`` writes ``nbgrader/source/<id>/<id>.ipynb``; these helpers run nbgrader's own
``generate_assignment`` and ``autograde`` commands and read its gradebook through its API.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.run.paths import REPO

CONFIG = f"--NbGrader.config_file={REPO / 'course_config'}"


def course_root() -> Path:
    return REPO / "nbgrader"


def ensure_alembic_on_path() -> None:
    """nbgrader's Gradebook runs the `alembic` command (installed beside this Python) to create a db."""
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"


def db_url() -> str:
    return f"sqlite:///{course_root() / 'gradebook.db'}"


def _nbgrader(*args: str, timeout: float = 1800, db_url: str | None = None,
              root: Path | None = None) -> subprocess.CompletedProcess:
    bindir = Path(sys.executable).parent  # nbgrader shells out to `alembic`, found on PATH
    env = dict(os.environ, PATH=f"{bindir}:{os.environ.get('PATH', '')}")
    extra = [f"--CourseDirectory.db_url={db_url}"] if db_url else []
    if root is not None:  # the command line wins over course_config's CourseDirectory.root
        extra.append(f"--CourseDirectory.root={root}")
    proc = subprocess.run([str(bindir / "nbgrader"), *args, CONFIG, *extra], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    return proc


def generate_assignment(assignment: str, db_url: str | None = None, root: Path | None = None) -> Path:
    """``nbgrader generate_assignment``: registers the assignment in the gradebook and writes its
    release, into ``<root>/release/<id>/``. ``root`` (e.g. a temporary folder) is a course folder
    of its own: the source notebook is copied there and nothing is written into the course's
    ``nbgrader/``; by default the course's own folder is used."""
    if root is not None:
        root = Path(root)
        src = root / "source" / assignment
        src.mkdir(parents=True, exist_ok=True)
        for path in (course_root() / "source" / assignment).iterdir():
            if path.is_file():
                shutil.copy(path, src / path.name)
    _nbgrader("generate_assignment", assignment, "--force", db_url=db_url, root=root)
    return (root or course_root()) / "release" / assignment / f"{assignment}.ipynb"


def submit(assignment: str, student: str, notebook: Path, root: Path | None = None) -> Path:
    dest = (root or course_root()) / "submitted" / student / assignment / f"{assignment}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(notebook, dest)
    return dest


def autograde(assignment: str, student: str | None = None, db_url: str | None = None,
              root: Path | None = None) -> subprocess.CompletedProcess:
    args = ["autograde", assignment, "--force"]
    if student:
        args.append(f"--student={student}")
    return _nbgrader(*args, db_url=db_url, root=root)


def code_scores(assignment: str, url: str | None = None) -> dict[str, tuple[float, float]]:
    """student -> (autograded code score, its maximum), from nbgrader's gradebook."""
    from nbgrader.api import Gradebook  # heavy (nbgrader, SQLAlchemy): only with a gradebook

    ensure_alembic_on_path()
    out = {}
    with Gradebook(url or db_url()) as gb:
        for sub in gb.assignment_submissions(assignment):
            out[sub.student.id] = (sub.code_score, sub.max_code_score)
    return out


def __getattr__(name: str):
    """``OverwriteCells`` (course_config.py imports it from here), made on first use: it
    subclasses nbgrader's preprocessor, and importing nbgrader and nbformat takes seconds (7-11 s
    on a busy machine) that a cohort's grading or a refused command line should not wait for."""
    if name == "OverwriteCells":
        return _overwrite_cells()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _overwrite_cells() -> type:
    try:  # nbgrader is installed with the course tools
        import nbformat  # heavy (jsonschema's format checkers): only when nbgrader runs
        from nbgrader.preprocessors import ClearHiddenTests as _ClearHiddenTests  # heavy: only when nbgrader runs
        from nbgrader.preprocessors import OverwriteCells as _OverwriteCells  # heavy: only when nbgrader runs
    except ImportError:  # pragma: no cover
        _OverwriteCells = object

    class OverwriteCells(_OverwriteCells):
        """nbgrader's ``OverwriteCells`` without its false alarm on hidden-test cells.

        ``generate_assignment`` stores a hidden-test cell's checksum *before* removing the hidden
        tests from the release (jupyter/nbgrader#1961), so ``autograde`` warns ``Attribute
        'checksum' ... has changed!`` for every hidden-test cell of every honest submission, which
        reads like tampering. Here that warning is skipped exactly when the submitted cell is the
        gradebook's source with its hidden-test region removed, i.e. the release as handed out;
        any other change is reported as before, and the cell is restored from the gradebook as
        nbgrader always does. Selected in course_config.py (``Autograde.sanitize_preprocessors``).
        """

        def preprocess_cell(self, cell, resources, cell_index):
            self._as_released = False
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id is not None:
                try:
                    source = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
                except Exception:  # noqa: BLE001 - nbgrader's own code reports a missing cell
                    source = None
                if source is not None and source.locked:

                    released = nbformat.from_dict({"cell_type": source.cell_type, "source": source.source,
                                                   "metadata": {}})
                    if _ClearHiddenTests()._remove_hidden_test_region(released):
                        self._as_released = released.source == cell.source
            return super().preprocess_cell(cell, resources, cell_index)

        def report_change(self, name, attr, old, new):
            if attr == "checksum" and getattr(self, "_as_released", False):
                self.log.debug("cell %s: hidden tests restored from the gradebook", name)
                return
            super().report_change(name, attr, old, new)

    OverwriteCells.__qualname__ = "OverwriteCells"
    return OverwriteCells
