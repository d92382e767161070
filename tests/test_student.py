"""The students' side: a requirements file that covers what the releases import, and a terminal
check that runs a notebook with nothing of the course's tools."""

import ast
import json
import re
import shutil
import subprocess
import sys

import pytest

from autograder.sandbox import REPO
from autograder.source import all_assignments

STDLIB = set(sys.stdlib_module_names)
IMPORT_NAMES = {"scikit-learn": "sklearn", "pyyaml": "yaml", "ipython": "IPython"}


def release_imports() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for assignment in all_assignments():
        nb = json.loads((REPO / "assignments" / assignment / f"{assignment}.ipynb").read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            code = "".join(cell["source"])
            code = "\n".join(ln for ln in code.splitlines() if not ln.startswith("%"))  # cell magics
            for node in ast.walk(ast.parse(code)):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
                for name in names:
                    out.setdefault(name.split(".")[0], set()).add(assignment)
    return out


def test_student_requirements_cover_every_import_of_the_releases():
    lines = (REPO / "assignments" / "requirements.txt").read_text().splitlines()
    pinned = {ln.split("==")[0].strip().lower() for ln in lines if "==" in ln and not ln.startswith("#")}
    listed = {IMPORT_NAMES.get(p, p) for p in pinned}
    missing = {m: sorted(a) for m, a in release_imports().items() if m not in STDLIB and m not in listed}
    assert not missing, f"imported by the releases but not in assignments/requirements.txt: {missing}"
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in lines  # no CUDA download
    assert not pinned & {"pdl-course", "otter-grader", "nbgrader", "pytest"}, "course tools are not for students"


def test_terminal_check_runs_an_untouched_release_without_the_course_tools(tmp_path):
    assignment = "ex3_2_nngp"
    for path in (REPO / "assignments" / assignment).iterdir():
        shutil.copy(path, tmp_path / path.name)
    run = subprocess.run([sys.executable, str(REPO / "assignments" / "check_notebook.py"), f"{assignment}.ipynb"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={"PATH": f"{sys.prefix}/bin:/usr/bin:/bin", "HOME": str(tmp_path)})
    assert run.returncode == 1, run.stdout + run.stderr
    assert "not yet" in run.stdout and "implement erf_kernel first" in run.stdout
    assert "error " not in run.stdout  # an untouched ex3_2 runs top to bottom
    assert re.search(r"^0/[1-9]\d* public checks ok\.$", run.stdout, flags=re.M)


@pytest.mark.parametrize("assignment", all_assignments())
def test_untouched_release_runs_top_to_bottom(assignment, tmp_path):
    """Run All on the untouched release: no cell stops with an error; checks and figures that
    need a missing function say which, and the notebook goes on."""
    import nbformat
    from nbclient import NotebookClient

    from autograder.generate import _quiet_env

    for path in (REPO / "assignments" / assignment).iterdir():
        shutil.copy(path, tmp_path / path.name)
    nb = nbformat.read(tmp_path / f"{assignment}.ipynb", as_version=4)
    with _quiet_env():
        NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [f"cell {i}: {o['ename']}: {o['evalue'][:200]}" for i, c in enumerate(nb.cells)
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    text = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
    assert "not yet" in text and "implement " in text


@pytest.mark.skipif(not __import__("os").environ.get("PDL_STUDENT_VENV"),
                    reason="set PDL_STUDENT_VENV=1 to build a fresh students' venv (a package index, ~1.4 GB, a few minutes)")
def test_a_fresh_student_venv_runs_every_untouched_release(tmp_path):
    """The students' environment alone (no course package) runs every untouched release top to
    bottom: `pip install -r assignments/requirements.txt` in a new venv, then check_notebook.py."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--retries", "1", "-r",
                    str(REPO / "assignments" / "requirements.txt")], check=True, timeout=1800)
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    assert subprocess.run([str(venv / "bin" / "python"), "-c", "import autograder"], env=env, cwd=tmp_path,
                          capture_output=True).returncode != 0  # no course tools
    assert "nvidia" not in subprocess.run([str(venv / "bin" / "pip"), "list"], capture_output=True, text=True).stdout
    for assignment in all_assignments():
        work = tmp_path / assignment
        shutil.copytree(REPO / "assignments" / assignment, work)
        run = subprocess.run([str(venv / "bin" / "python"), str(REPO / "assignments" / "check_notebook.py"),
                              f"{assignment}.ipynb"], cwd=work, env=env, capture_output=True, text=True, timeout=600)
        assert "\nerror " not in "\n" + run.stdout and "public checks ok." in run.stdout, (assignment, run.stdout[-2000:])
