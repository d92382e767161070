"""The Gradescope route: what the otter autograder zip holds, and the results it writes.

One engine, two front doors: on Gradescope (and under ``otter run -a <zip>``) otter's own
runner loads ``autograder.otter_plugin.PdlGrading``, which grades the submission with
``autograder.grading.grade`` — the sandbox, limits and hidden tests of ``pdl grade`` — and hands
otter the results below instead of running anything of the student's in otter's kernel.

The zip keeps otter's format (``otter generate`` builds it) with these changes:

* ``pdl/``: the grading engine, the reference, the hidden tests, the release notebook and its
  data files, and ``course_config.py``; ``setup.sh`` makes all of ``/autograder`` readable by
  root only and creates the account ``pdl-student`` the student's process runs as
  (``account`` isolation) where the container refuses namespaces.
* ``requirements.txt`` / ``environment.yml``: exact versions of what generated the course;
  torch only where the assignment imports it, from the CPU wheel index; no browser unless
  otter's PDF export is switched on.
* no otter test files: the tests are ``pdl/grading_tests/<id>``, run in the grader's process.
"""

from __future__ import annotations

import ast
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from importlib import metadata
from pathlib import Path

from autograder.sandbox import ACCOUNT, REPO

# What the grading side imports (pinned to the versions that generated the course).
GRADING_PACKAGES = ["numpy", "scipy", "matplotlib", "pytest", "ipython", "otter-grader[grading]"]
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
ENGINE_MODULES = ["__init__", "grading", "sandbox", "worker", "protocol", "testing", "source",
                  "diagnose", "gradescope", "otter_plugin"]
PLUGIN = "autograder.otter_plugin.PdlGrading"


def imported_modules(code: str) -> set[str]:
    """Top-level names of the absolute imports in ``code`` (cell magics skipped)."""
    code = "\n".join(ln for ln in code.splitlines() if not ln.lstrip().startswith(("%", "!")))
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def grading_imports(assignment: str) -> set[str]:
    """Third-party modules the grader's side of an assignment imports: the reference, the hidden
    tests, and every code cell of the release (the sandbox runs the whole notebook)."""
    from autograder.grading import load_release

    code = [(REPO / "solutions" / assignment / "__init__.py").read_text()]
    code += [p.read_text() for p in sorted((REPO / "grading_tests" / assignment).glob("*.py"))]
    code += ["".join(c.get("source", "")) for c in load_release(assignment).get("cells", [])
             if c.get("cell_type") == "code"]
    ours = {"autograder", "solutions", "grading_tests", "course_config"}
    return {m for c in code for m in imported_modules(c)} - set(sys.stdlib_module_names) - ours


def requirements(assignment: str) -> str:
    """Exact versions of what generated the course: the grading engine's packages and the
    distributions of every module the assignment imports (torch from the CPU wheel index)."""
    by_module = metadata.packages_distributions()
    dists = {spec.split("[")[0].lower(): spec for spec in GRADING_PACKAGES}
    for module in sorted(grading_imports(assignment)):
        if module not in by_module:
            raise RuntimeError(f"{assignment} imports {module!r}, which no installed package provides; "
                               "install it into the course's environment (pyproject.toml) and regenerate")
        for dist in by_module[module]:
            dists.setdefault(dist.lower(), dist)
    lines = ["# exact versions of the environment that generated the course (`pdl generate`)"]
    for key in sorted(dists, key=lambda k: (k == "torch", k)):
        spec = dists[key]
        version = metadata.version(spec.split("[")[0])
        lines.append(f"{spec}=={version.split('+')[0]}")  # 2.13.0+cpu: the index decides the build
    if "torch" in dists:  # the CPU build: Gradescope has no GPU, and the default index's CUDA wheels are GBs
        lines.insert(1, f"--extra-index-url {TORCH_INDEX}")
    return "\n".join(lines) + "\n"


def environment_yml(reqs: str) -> str:
    pins = [ln for ln in reqs.splitlines() if ln and not ln.startswith("#")]
    return ("name: otter-env\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.11\n  - pip\n"
            "  - pip:\n" + "".join(f"      - {ln}\n" for ln in pins))


def setup_sh(otter_setup: str, pdf: bool) -> str:
    """otter's setup.sh, with conda in /opt (the student's account must run its Python; /root
    is closed to it), no browser unless PDF export is on, then our account and permissions."""
    text = otter_setup.replace("/root/miniforge3", "/opt/miniforge3")
    text = text.replace("/autograder/source/mamba_install.sh -b", "/autograder/source/mamba_install.sh -b -p /opt/miniforge3")
    lines = []
    for ln in text.splitlines():
        if ln.startswith("apt-get install -y wget"):
            ln = "apt-get install -y --no-install-recommends wget jq ca-certificates util-linux"
        if "nb_conda_kernels" in ln or (not pdf and "playwright" in ln):
            continue  # otter's extras that grading does not use (a browser only for PDF export)
        lines.append(ln)
    text = "\n".join(lines) + "\n"
    return text.rstrip() + "\n\n# pdl: the student's account, and a grader readable by root only\n" \
        "bash /autograder/source/pdl/setup_account.sh\n"


SETUP_ACCOUNT = f"""#!/usr/bin/env bash
# Run by setup.sh (and by the local simulation): the account the student's process runs as,
# and permissions that keep the reference, the hidden tests and the engine from it.
set -euo pipefail
AG="${{PDL_AUTOGRADER_DIR:-/autograder}}"
if ! id -u {ACCOUNT} >/dev/null 2>&1; then
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin {ACCOUNT} \\
    || id -u {ACCOUNT} >/dev/null  # another process may have created it meanwhile
fi
chmod 0700 "$AG"
chmod -R go-rwx "$AG/source"
"""


def run_autograder(otter_script: str) -> str:
    """otter's run_autograder with conda in /opt and the engine on the path; the autograder's
    folder may be moved with PDL_AUTOGRADER_DIR (the local simulation does)."""
    lines = [ln.replace("/root/miniforge3", "/opt/miniforge3") for ln in otter_script.splitlines()
             if "run_otter.py" not in ln]
    activate = [ln for ln in lines[1:] if ln.strip()]
    return ("#!/usr/bin/env bash\n"
            "if [ -x /opt/miniforge3/bin/mamba ]; then\n" + "".join(f"  {ln}\n" for ln in activate) + "fi\n"
            'AG="${PDL_AUTOGRADER_DIR:-/autograder}"\n'
            'export PYTHONPATH="$AG/source/pdl"\n'
            'exec python "$AG/source/run_otter.py"\n')


RUN_OTTER = '''"""Runs Otter-Grader's autograding process; the grading itself is pdl's (autograder.otter_plugin)."""

import os

from otter.run.run_autograder import main as run_autograder

from autograder.otter_plugin import grade_unreadable

if __name__ == "__main__":
    ag = os.environ.get("PDL_AUTOGRADER_DIR", "/autograder")
    if not grade_unreadable(ag):  # otter itself cannot open a file that is not a notebook
        run_autograder(ag)
'''


def engine_files(assignment: str) -> dict[str, bytes]:
    """pdl/... entries of the zip: what grading one submission of ``assignment`` reads."""
    files = {}
    for name in ENGINE_MODULES:
        path = REPO / "autograder" / f"{name}.py"
        if path.exists():
            files[f"pdl/autograder/{name}.py"] = path.read_bytes()
    trees = [("solutions", f"solutions/{assignment}"), ("grading_tests", f"grading_tests/{assignment}"),
             (None, f"assignments/{assignment}"), (None, f"source/{assignment}")]
    for package, folder in trees:
        if package:
            for top in ("__init__.py", "conftest.py"):
                if (REPO / package / top).exists():
                    files[f"pdl/{package}/{top}"] = (REPO / package / top).read_bytes()
        for path in sorted((REPO / folder).rglob("*")):
            if (path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
                    and not (package == "solutions" and path.suffix == ".ipynb")):
                files[f"pdl/{path.relative_to(REPO)}"] = path.read_bytes()
    for top in ("course_config.py",):
        files[f"pdl/{top}"] = (REPO / top).read_bytes()
    files["pdl/setup_account.sh"] = SETUP_ACCOUNT.encode()
    return files


# -- results.json ---------------------------------------------------------------------------
def results(report: dict) -> dict:
    """Gradescope's results.json from a pdl report (``GradeReport.to_dict()``).

    Students see, before the deadline, the public checks (pass/fail and their message) and the
    grader's notes about their notebook; the hidden tests and the score become visible when the
    instructor publishes grades (``after_published``). No line claims a test passed that did not run.
    """
    tests = []
    for description, passed, message in report.get("checks", []):
        tests.append({"name": f"Public check: {description}", "status": "passed" if passed else "failed",
                      "output": "ok" if passed else message, "visibility": "visible"})
    if not report.get("checks"):
        tests.append({"name": "Public checks", "status": "failed", "visibility": "visible",
                      "output": "No public check could run on this notebook (see the notes below)."})
    if report.get("errors"):
        tests.append({"name": "Notes from the grader", "visibility": "visible",
                      "output": "\n".join(report["errors"])})
    for t in report.get("tests", []):
        output = t.get("message", "")
        if t.get("diagnosis"):
            output += "\n" + t["diagnosis"]
        tests.append({"name": t["name"], "score": t["points"], "max_score": t["max_points"],
                      "status": "passed" if t.get("passed") else "failed",
                      "output": output, "visibility": "after_published"})
    written = report.get("manual") or []
    summary = (f"Hidden tests: {len(report.get('tests', []))} tests worth {report.get('max_score', 0):g} "
               "points; their results appear when grades are published.")
    if written:
        summary += (f" Written answers ({sum(m['points'] for m in written):g} points) are graded by hand "
                    "in a separate Gradescope assignment.")
    return {"score": report.get("score", 0.0), "output": summary, "visibility": "after_published",
            "stdout_visibility": "hidden", "tests": tests}


# -- the local simulation -------------------------------------------------------------------
def base_python() -> Path:
    """The Python the simulated environment is built on: the system's 3.11 where there is one (as
    on Gradescope, it lives where the student's account can run it), else this interpreter's base."""
    system = Path("/usr/bin/python3.11")
    return system if system.exists() else Path(getattr(sys, "_base_executable", sys.executable))


def default_cache() -> Path:
    """Where simulated environments are kept: a world-traversable place (the student's account of
    ``account`` isolation must run their Python), outside the course."""
    cache = Path(tempfile.gettempdir()) / "gradescope-venvs-pdl"
    cache.mkdir(mode=0o755, exist_ok=True)
    return cache


def venv_for(zip_path: Path, cache: Path | None = None) -> Path:
    """A fresh virtual environment built from the zip's own requirements.txt (not the project's),
    cached under ``cache`` by the requirements' content."""
    with zipfile.ZipFile(zip_path) as zf:
        reqs = zf.read("requirements.txt")
    cache = cache or default_cache()
    venv = cache / f"gradescope-{hashlib.sha256(reqs).hexdigest()[:12]}"
    with open(cache / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # tests in parallel processes share one build
        return _build_venv(venv, reqs)


def _build_venv(venv: Path, reqs: bytes) -> Path:
    if (venv / ".complete").exists():
        return venv
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(base_python()), "-m", "venv", str(venv)], check=True)
    (venv / "requirements.txt").write_bytes(reqs)
    # one retry, short timeouts: where PyTorch's CPU index cannot be reached (a grader offline but
    # for a package mirror), pip's default of 5 retries costs ~8 s per package, ~15 min in all
    print(f"building the Gradescope environment {venv.name} from the zip's requirements.txt "
          "(once; a few minutes) ...", file=sys.stderr, flush=True)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--retries", "1",
                          "--timeout", "30", "-r", str(venv / "requirements.txt")], capture_output=True, text=True)
    if pip.returncode:  # pip's retry warnings for an unreachable index are noise unless it fails
        raise RuntimeError(f"pip could not build {venv}:\n{pip.stderr[-3000:]}")
    (venv / ".complete").write_text("ok\n")
    return venv


def simulate(zip_path: Path, submission: Path, venv: Path, root: Path, timeout: float = 900,
             extra_env: dict | None = None) -> dict:
    """Grade ``submission`` as Gradescope would: the zip unpacked into ``root/autograder/source``,
    the notebook in ``root/autograder/submission``, the zip's ``setup_account.sh`` and
    ``run_autograder`` run as root with ``venv`` first on the PATH. Returns results.json plus
    ``_seconds`` (wall time) and ``_stdout``."""

    ag = root / "autograder"
    for sub in ("source", "submission", "results"):
        (ag / sub).mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(ag / "source")
    for script in ("run_autograder", "setup.sh", "pdl/setup_account.sh"):
        (ag / "source" / script).chmod(0o755)
    shutil.copy(submission, ag / "submission" / submission.name)
    (ag / "submission_metadata.json").write_text("{}")
    env = {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(root),
           "PDL_AUTOGRADER_DIR": str(ag), "LANG": "C.UTF-8"}
    for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(extra_env or {})
    subprocess.run(["bash", str(ag / "source" / "pdl" / "setup_account.sh")], env=env, check=True,
                   capture_output=True)
    start = time.monotonic()
    proc = subprocess.run([str(ag / "source" / "run_autograder")], env=env, cwd=str(ag),
                          capture_output=True, timeout=timeout)
    seconds = time.monotonic() - start
    out = ag / "results" / "results.json"
    if not out.exists():
        raise RuntimeError(f"run_autograder wrote no results.json (exit {proc.returncode}):\n"
                           + proc.stderr.decode("utf-8", "replace")[-3000:])
    data = json.loads(out.read_text())
    data["_seconds"], data["_stdout"] = round(seconds, 1), proc.stdout.decode("utf-8", "replace")
    return data


def check_results_json(data: dict) -> None:
    """Raise ValueError where ``data`` breaks Gradescope's results.json specification."""
    visibilities = {"visible", "hidden", "after_due_date", "after_published"}
    if not isinstance(data.get("tests"), list) or ("score" not in data and not all("score" in t for t in data["tests"])):
        raise ValueError("results.json needs a score or per-test scores, and a list of tests")
    if data.get("visibility", "visible") not in visibilities:
        raise ValueError("bad top-level visibility")
    for t in data["tests"]:
        if not isinstance(t.get("name"), str) or t.get("visibility", "visible") not in visibilities:
            raise ValueError(f"bad test entry {t!r}"[:200])
        if t.get("status") not in (None, "passed", "failed"):
            raise ValueError(f"bad status in {t['name']}")
        if "score" in t and not isinstance(t["score"], (int, float)):
            raise ValueError(f"bad score in {t['name']}")
    if re.search(r"All test cases passed", json.dumps(data)):
        raise ValueError("claims 'All test cases passed'")


# -- the simulation as a check (pdl validate, tests/test_gradescope.py) --------------------
CASES = ("correct", "partial", "stub", "infinite_loop", "invalid_json", "cheat")


def cheat_notebook(assignment: str, ag: Path, search_disk: bool = True) -> str:
    """The untouched release plus cells that import, exec and %run the reference where the
    autograder keeps it, and (``search_disk``) search the disk for any other copy."""
    from autograder.synth import code_cell, with_cells

    from autograder.grading import load_release

    release = load_release(assignment)
    ref = ag / "source" / "pdl" / "solutions" / assignment / "__init__.py"
    cells = [
        f"import sys\nsys.path.insert(0, {str(ref.parents[2])!r})\nfrom solutions.{assignment} import *",
        f"exec(open({str(ref)!r}).read(), globals())",
        f"%run {ref}",
    ]
    if search_disk:
        cells.append(
            "import os\nfor top, dirs, files in os.walk('/'):\n"
            "    if top == '/':\n        dirs[:] = [d for d in dirs if d not in ('proc', 'sys', 'dev')]\n"
            "    for f in files:\n        p = os.path.join(top, f)\n"
            f"        if p.endswith('solutions/{assignment}/__init__.py'):\n"
            "            try:\n                exec(open(p).read(), globals())\n"
            "            except Exception:\n                pass\n")
    return json.dumps(with_cells(release, [code_cell(c) for c in cells]))


def check_simulation(assignment: str, zip_file: Path, venv: Path, workdir: Path, *,
                     timeout: float = 60, call_timeout: float = 10, log=print, cases=CASES,
                     isolation: str | None = None) -> bool:
    """Run the Gradescope simulation on each of ``CASES``; compare with ``pdl grade`` under the
    same limits. True when every results.json is valid, every score matches ``pdl grade``, the
    cheat scores 0 and the loop finishes within its limits."""
    from autograder.grading import grade

    env = {"PDL_TIMEOUT_S": str(timeout), "PDL_CALL_TIMEOUT_S": str(call_timeout)}
    if isolation:
        env["PDL_ISOLATION"] = isolation
    ok = True
    for case in cases:
        root = workdir / case
        nb = root / "input" / f"{assignment}.ipynb"
        nb.parent.mkdir(parents=True, exist_ok=True)
        if case == "cheat":
            # account isolation protects by permissions the zip's own copy of the reference. On
            # Gradescope that is the only copy in the container; a host with the course checked
            # out elsewhere is namespace isolation's to guard (it hides the whole disk).
            nb.write_text(cheat_notebook(assignment, root / "autograder", search_disk=isolation != "account"))
        else:
            shutil.copy(REPO / "examples" / "submissions" / assignment / f"{case}.ipynb", nb)
        got = simulate(zip_file, nb, venv, root, extra_env=env)
        want = 0.0 if case == "cheat" else grade(nb, assignment, timeout=timeout,
                                                  call_timeout=call_timeout).score
        problems = []
        try:
            check_results_json(got)
        except ValueError as exc:
            problems.append(f"invalid results.json: {exc}")
        if got.get("score") != want:
            problems.append(f"score {got.get('score')} but pdl grade gives {want}")
        bound = timeout + 4 * call_timeout + 120
        if got["_seconds"] > bound:
            problems.append(f"took {got['_seconds']} s (more than {bound:g} s)")
        if isolation and case != "invalid_json" and f"({isolation} isolation" not in got["_stdout"]:
            problems.append(f"did not grade with {isolation} isolation")
        ok &= not problems
        log(f"  {'ok  ' if not problems else 'FAIL'} Gradescope simulation, {case}: "
            f"{got.get('score')} in {got['_seconds']} s" + ("; " + "; ".join(problems) if problems else ""))
    return ok
