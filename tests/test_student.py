"""The students' side: a requirements file that covers what the releases import, and a terminal
check that runs a notebook with nothing of the course's tools."""

import fcntl
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

from autograder.course.source import all_assignments
from autograder.run.paths import REPO

STDLIB = set(sys.stdlib_module_names)
IMPORT_NAMES = {"scikit-learn": "sklearn", "pyyaml": "yaml", "ipython": "IPython"}


def release_imports() -> dict[str, set[str]]:
    """{module: assignments whose release imports it}; every code cell must compile cleanly."""
    from autograder.gradescope.archive import imported_modules

    out: dict[str, set[str]] = {}
    for assignment in all_assignments():
        nb = json.loads((REPO / "assignments" / assignment / f"{assignment}.ipynb").read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # e.g. "\\p" in a plain string: a SyntaxWarning for students on 3.12
                try:
                    names = imported_modules("".join(cell["source"]))
                except (SyntaxError, SyntaxWarning, DeprecationWarning) as e:
                    raise AssertionError(f"{assignment}: a code cell does not compile cleanly: {e}") from None
            for name in names:
                out.setdefault(name, set()).add(assignment)
    return out


def test_student_requirements_cover_every_import_of_the_releases():
    lines = (REPO / "assignments" / "requirements.txt").read_text().splitlines()
    pinned = {ln.split("==")[0].strip().lower() for ln in lines if "==" in ln and not ln.startswith("#")}
    listed = {IMPORT_NAMES.get(p, p) for p in pinned}
    missing = {m: sorted(a) for m, a in release_imports().items() if m not in STDLIB and m not in listed}
    assert not missing, f"imported by the releases but not in assignments/requirements.txt: {missing}"
    # only the default index (an unreachable extra one would be retried for every package);
    # torch's CPU build on Linux x86-64 is a second, explicit step from PyTorch's index
    assert not any(ln.startswith("-") for ln in lines), "requirements.txt must ask the default index alone"
    torch = next(ln for ln in lines if ln.startswith("torch=="))
    assert torch.endswith('; sys_platform != "linux" or platform_machine != "x86_64"'), torch
    cpu = (REPO / "assignments" / "requirements-torch-cpu.txt").read_text().splitlines()
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in cpu  # no CUDA download
    assert [ln for ln in cpu if ln.startswith("torch==")] == [torch.split(";")[0].strip()]  # the same pin
    assert not pinned & {"pdl-course", "otter-grader", "nbgrader", "pytest"}, "course tools are not for students"


def test_torch_comes_from_the_default_index_only_where_its_wheel_there_is_the_cpu_build():
    """pip install -r requirements.txt asks the default index alone: torch where that index's wheel
    is CPU-only (macOS, Windows, Linux on ARM); not on Linux x86-64, where it would bring CUDA."""
    from packaging.requirements import Requirement

    line = next(ln for ln in (REPO / "assignments" / "requirements.txt").read_text().splitlines()
                if ln.startswith("torch=="))
    marker = Requirement(line).marker
    where = {"linux x86_64": ("linux", "x86_64"), "linux aarch64": ("linux", "aarch64"),
             "macOS": ("darwin", "arm64"), "Windows": ("win32", "AMD64")}
    installed = {name: marker.evaluate({"sys_platform": os_, "platform_machine": machine})
                 for name, (os_, machine) in where.items()}
    assert installed == {"linux x86_64": False, "linux aarch64": True, "macOS": True, "Windows": True}


def _requirement_files() -> list[str]:
    files = ["requirements.txt"]
    if sys.platform == "linux" and platform.machine() == "x86_64":  # torch's CPU build: the explicit step
        files.append("requirements-torch-cpu.txt")
    return files


def _build_student_venv(venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # --no-compile: half the build time; the notebooks compile what they import as they run (as the student)
    for name in _requirement_files():
        pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-compile", "--retries", "1",
                              "--timeout", "30", "-r", str(REPO / "assignments" / name)],
                             capture_output=True, text=True, timeout=1800)
        assert pip.returncode == 0, f"the students' {name} does not install:\n" + pip.stderr[-3000:]


@pytest.fixture(scope="session")
def student_python() -> Path:
    """A venv from the students' requirements alone (no course package): `python -m venv`, then
    `pip install -r assignments/requirements.txt` (and, on Linux x86-64, the explicit step
    `pip install -r assignments/requirements-torch-cpu.txt`). Built once per content of those
    files and this Python (a later run of the suite on this machine reuses it: about a minute),
    under the temporary directory, as the Gradescope venv is. PDL_STUDENT_VENV=0 uses the course's
    interpreter instead (for working without a package index)."""
    if os.environ.get("PDL_STUDENT_VENV") == "0":
        return Path(sys.executable)
    digest = hashlib.sha256(sys.version.encode())
    for name in _requirement_files():
        digest.update((REPO / "assignments" / name).read_bytes())
    cache = Path(tempfile.gettempdir()) / "student-venvs-pdl"
    cache.mkdir(mode=0o755, exist_ok=True)
    venv = cache / f"student-{digest.hexdigest()[:12]}"
    with open(cache / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two runs of the suite share one build
        if not (venv / ".complete").exists():
            shutil.rmtree(venv, ignore_errors=True)
            _build_student_venv(venv)
            (venv / ".complete").write_text("ok\n")
    return venv / "bin" / "python"


@pytest.mark.xdist_group("student_venv")
def test_the_student_venv_has_no_course_tools_and_no_cuda(student_python, tmp_path):
    if os.environ.get("PDL_STUDENT_VENV") == "0":
        pytest.skip("PDL_STUDENT_VENV=0: no students' venv was built")
    env = {"PATH": f"{student_python.parent}:/usr/bin:/bin", "HOME": str(tmp_path)}
    for module in ("autograder", "solutions", "otter", "nbgrader"):
        assert subprocess.run([str(student_python), "-c", f"import {module}"], env=env, cwd=tmp_path,
                              capture_output=True).returncode != 0, f"{module} is importable by students"
    packages = subprocess.run([str(student_python), "-m", "pip", "list"], capture_output=True, text=True).stdout
    assert "torch" in packages and "nvidia" not in packages  # the CPU wheel, no CUDA libraries


@pytest.mark.xdist_group("student_venv")
@pytest.mark.parametrize("assignment", all_assignments())
def test_untouched_release_runs_top_to_bottom_in_the_student_venv(assignment, student_python, tmp_path):
    """Run All on the untouched release, in the students' venv, as a student runs it from a
    terminal (check_notebook.py): no cell stops with an error; checks and figures that need a
    missing function say which, and the notebook goes on; nothing is left beside the notebook."""
    work = tmp_path / assignment
    shutil.copytree(REPO / "assignments" / assignment, work)
    before = sorted(p.name for p in work.iterdir())
    run = subprocess.run([str(student_python), str(REPO / "assignments" / "check_notebook.py"), f"{assignment}.ipynb"],
                         cwd=work, capture_output=True, text=True, timeout=600,
                         env={"PATH": f"{student_python.parent}:/usr/bin:/bin", "HOME": str(tmp_path)})
    assert run.returncode == 1, run.stdout + run.stderr  # nothing implemented: not every check is ok
    assert "\nerror " not in "\n" + run.stdout, run.stdout
    assert re.search(r"^not yet .*: implement \w+", run.stdout, flags=re.M), run.stdout
    assert not re.search(r"^(ok|FAIL) ", run.stdout, flags=re.M), run.stdout  # a stub neither passes nor fails
    assert re.search(r"^0/[1-9]\d* public checks pass\. Public checks are a first test only", run.stdout,
                     flags=re.M), run.stdout
    assert sorted(p.name for p in work.iterdir()) == before
    assert "WARNING" not in run.stderr, run.stderr
