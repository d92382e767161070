"""Drive real nbgrader on the generated course (``nbgrader/``, configured by course_config.py).

``pdl generate`` writes ``nbgrader/source/<id>/<id>.ipynb``; these helpers run nbgrader's own
``generate_assignment`` and ``autograde`` commands and read its gradebook through its API.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.sandbox import REPO

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


def _nbgrader(*args: str, timeout: float = 1800, db_url: str | None = None) -> subprocess.CompletedProcess:
    bindir = Path(sys.executable).parent  # nbgrader shells out to `alembic`, found on PATH
    env = dict(os.environ, PATH=f"{bindir}:{os.environ.get('PATH', '')}")
    extra = [f"--CourseDirectory.db_url={db_url}"] if db_url else []
    proc = subprocess.run([str(bindir / "nbgrader"), *args, CONFIG, *extra], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    return proc


def generate_assignment(assignment: str, db_url: str | None = None) -> Path:
    """``nbgrader generate_assignment``: writes nbgrader/release/<id>/ and registers the assignment."""
    _nbgrader("generate_assignment", assignment, "--force", db_url=db_url)
    return course_root() / "release" / assignment / f"{assignment}.ipynb"


def submit(assignment: str, student: str, notebook: Path) -> Path:
    dest = course_root() / "submitted" / student / assignment / f"{assignment}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(notebook, dest)
    return dest


def autograde(assignment: str, student: str | None = None, db_url: str | None = None) -> None:
    args = ["autograde", assignment, "--force"]
    if student:
        args.append(f"--student={student}")
    _nbgrader(*args, db_url=db_url)


def code_scores(assignment: str, url: str | None = None) -> dict[str, tuple[float, float]]:
    """student -> (autograded code score, its maximum), from nbgrader's gradebook."""
    from nbgrader.api import Gradebook

    ensure_alembic_on_path()
    out = {}
    with Gradebook(url or db_url()) as gb:
        for sub in gb.assignment_submissions(assignment):
            out[sub.student.id] = (sub.code_score, sub.max_code_score)
    return out
