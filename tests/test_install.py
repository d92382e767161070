"""The course is invisible to the student whatever the install (issue 21).

The engine's wheel (``pip install .``, as on dask workers or a grading image) carries no
reference and no hidden tests; the grader finds them in the course (``PDL_COURSE_DIR``). And
whatever a site directory holds, the sandbox shows the student's process only the allowed
distributions: here a wheel install of the engine, next to a copy of the course planted in the
same site-packages as an older wheel would have put it, is graded with a notebook that looks
for the course every way it can.
"""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import EXEMPLAR

from autograder.run import packages, sandbox
from autograder.run.paths import REPO

COURSE = ("solutions", "grading_tests", "course_config.py", "source", "assignments")
FORBIDDEN = ("autograder", "solutions", "grading_tests", "course_config", "otter", "nbgrader", "pdl_course",
             "__editable__")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """``pip wheel .`` of a copy of the course (the engine, the reference, the hidden tests and
    course_config.py beside pyproject.toml, as in the checkout), built there so that the build
    neither writes into the checkout nor reuses a stale build/ folder of it."""
    src, out = tmp_path_factory.mktemp("course"), tmp_path_factory.mktemp("wheel")
    shutil.copy(REPO / "pyproject.toml", src)
    shutil.copy(REPO / "course_config.py", src)
    for folder in ("autograder", "solutions", "grading_tests"):
        shutil.copytree(REPO / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation",
                    "--quiet", "-w", str(out)], check=True, capture_output=True, timeout=300)
    (found,) = out.glob("pdl_course-*.whl")
    return found


def test_the_wheel_carries_no_course_content(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "autograder/run/sandbox.py" in names and "autograder/run/packages.py" in names
    templates = sorted(p.name for p in (REPO / "autograder" / "cohort" / "templates").glob("*.html"))
    assert templates and [n for n in templates if f"autograder/cohort/templates/{n}" not in names] == []  # the pages'
    assert [n for n in names if n.split("/")[0] in COURSE] == []


def test_the_wheel_needs_no_development_tool(wheel):
    """ruff, mypy, import-linter and pytest-xdist are the developers' (the ``dev`` extra that
    scripts/setup.sh installs), not requirements of the engine a grading image installs."""
    from packaging.requirements import Requirement

    with zipfile.ZipFile(wheel) as zf:
        metadata = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    needed = {Requirement(line.split(":", 1)[1]).name: Requirement(line.split(":", 1)[1]).marker
              for line in metadata.splitlines() if line.startswith("Requires-Dist:")}
    dev = {"ruff", "mypy", "import-linter", "pytest-xdist"}
    assert dev <= set(needed)  # declared, as the dev extra
    assert all(needed[name] is not None and 'extra == "dev"' in str(needed[name]) for name in dev), needed
    assert {"numpy", "pytest", "nbgrader"} <= {n for n, m in needed.items() if m is None}


# Run in the fresh environment, as the grader: grade a notebook that cheats, then ask a bare
# worker what it sees.
GRADER = r'''
import json, sys
import autograder
from autograder.run import sandbox
from autograder.run.grading import grade
from autograder.run.protocol import decode
report = grade(sys.argv[1], sys.argv[2], timeout=60, call_timeout=20, memory_mb=2048, isolation="namespace")
control = grade(sys.argv[1], sys.argv[2], timeout=60, call_timeout=20, memory_mb=2048, isolation="process")
w = sandbox.Worker({sys.argv[2] + ".ipynb": b"{}"}, memory_mb=2048)
try:
    w.wait_ready(60)
    errors = w.run_cells([(0, sys.argv[3])], 60)
    seen = w.request({"op": "call", "name": "seen", "args": [], "kwargs": {"__dict__": []}}, 60)
finally:
    w.close()
seen = decode(seen["value"]) if seen.get("status") == "ok" else seen
print(json.dumps({"engine": autograder.__file__, "score": report.score, "max": report.max_score,
                  "control": control.score, "errors": report.errors, "seen": seen, "cell_errors": errors}))
'''

CHEAT = """
import glob, os, sys
try:
    from solutions.{id} import *
except ImportError as exc:
    print(exc)
for path in [{course!r} + "/solutions/{id}/__init__.py"] + [
        p for top in sys.path for p in glob.glob(os.path.join(top, "**", "{id}", "__init__.py"), recursive=True)]:
    try:
        exec(open(path).read(), globals())
    except Exception:
        pass
"""

SEEN = """
import importlib.metadata, os, sys
def seen():
    sites = [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")]
    def dist(name):
        try:
            return importlib.metadata.distribution(name).metadata["Name"]
        except importlib.metadata.PackageNotFoundError:
            return None
    return {"sites": {p: sorted(os.listdir(p)) for p in sites if os.path.isdir(p)},
            "dists": sorted(d.metadata["Name"] for d in importlib.metadata.distributions()),
            "course": dist("pdl-course"), "course_dir": os.path.exists(%r)}
"""


@pytest.fixture(scope="module")
def fresh_env(wheel, tmp_path_factory) -> Path:
    """A new virtual environment with the engine installed from its wheel: the course's own
    environment's packages, hard-linked (no download), without the editable install of the course;
    and, planted in its site-packages as an older wheel would have put them, the reference and
    the hidden tests."""
    env = tmp_path_factory.mktemp("env") / "venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(env)],
                   check=True, timeout=120)
    ours = packages.site_dirs()[0][0]  # the course's environment (.venv)
    (site,) = (env / "lib").glob("python3*/site-packages")
    entries = [str(e) for e in ours.iterdir() if not e.name.startswith(("pdl_course", "__editable__"))]
    subprocess.run(["cp", "-al", *entries, str(site)], check=True, timeout=300)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install", "--quiet",
                    "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True, timeout=300)
    for folder in ("solutions", "grading_tests"):
        shutil.copytree(REPO / folder, site / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "course_config.py", site / "course_config.py")
    return env


pytestmark = pytest.mark.skipif(not sandbox.namespaces_available(),
                                reason=f"the allow-list sandbox cannot be built here: {sandbox.probe()}")


def test_a_wheel_install_shows_the_student_nothing_of_the_course(fresh_env, tmp_path, stub_nb):
    from autograder.run.notebook import code_cell, with_cells

    nb = tmp_path / f"{EXEMPLAR}.ipynb"
    nb.write_text(json.dumps(with_cells(stub_nb, [code_cell(CHEAT.format(id=EXEMPLAR, course=str(REPO)))])))
    out = subprocess.run([str(fresh_env / "bin" / "python"), "-c", GRADER, str(nb), EXEMPLAR, SEEN % str(REPO)],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path, check=False,
                         env={"PATH": os.environ["PATH"], "PDL_COURSE_DIR": str(REPO)})
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["engine"].startswith(str(fresh_env))  # graded by the engine the wheel installed
    assert result["max"] > 0 and result["score"] == 0, result
    assert result["control"] == result["max"]  # unsandboxed, the same notebook finds the planted reference
    assert result["cell_errors"] == [] and "status" not in result["seen"], result
    seen = result["seen"]
    assert seen["course"] is None and not seen["course_dir"]
    listed = [name for names in seen["sites"].values() for name in names]
    assert "numpy" in listed and "IPython" in listed and "scipy" in listed  # what the release imports
    assert [n for n in listed if n.startswith(FORBIDDEN)] == []
    assert not {"pdl-course", "otter-grader", "nbgrader", "pytest"} & set(seen["dists"])
