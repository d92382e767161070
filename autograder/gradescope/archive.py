"""What the otter autograder zip for Gradescope holds.

One engine, two front doors: on Gradescope (and under ``otter run -a <zip>``) otter's own
runner loads ``autograder.gradescope.plugin.PdlGrading``, which grades the submission with
``autograder.run.grading.grade`` — the sandbox, limits and hidden tests of ``pdl grade`` — and hands
otter the results (``autograder.gradescope.results``) instead of running anything of the student's in otter's kernel.

The zip keeps otter's format (``otter generate`` builds it) with these changes:

* ``pdl/``: the grading engine (the run layer and the plugin, ``engine_modules``), the reference, the hidden
  tests, the release notebook and its data files, and ``course_config.py``; ``setup.sh`` makes all of
  ``/autograder`` readable by
  root only (where the container refuses namespaces, the student's process runs as a uid of its
  own, ``account`` isolation: no account is created for it).
* ``requirements.txt`` / ``environment.yml``: exact versions of what generated the course;
  torch only where the assignment imports it, from the CPU wheel index; no browser unless
  otter's PDF export is switched on.
* no otter test files: the tests are ``pdl/grading_tests/<id>``, run in the grader's process.
"""

from __future__ import annotations

import sys
from importlib import metadata

from autograder.run.grading import load_release
from autograder.run.packages import imported_modules
from autograder.run.paths import REPO

# What the grading side imports (pinned to the versions that generated the course).
GRADING_PACKAGES = ["numpy", "scipy", "matplotlib", "pytest", "ipython", "ijson", "landlockpy", "otter-grader[grading]"]
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
# Beside the run layer (autograder/run/, all of it): the plugin otter loads, and what it writes.
GRADESCOPE_MODULES = ("__init__.py", "gradescope/__init__.py", "gradescope/plugin.py", "gradescope/results.py")
PLUGIN = "autograder.gradescope.plugin.PdlGrading"


def grading_imports(assignment: str) -> set[str]:
    """Third-party modules the grader's side of an assignment imports: the reference, the hidden
    tests, and every code cell of the release (the sandbox runs the whole notebook)."""

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
    text = text.replace("/autograder/source/mamba_install.sh -b",
                        "/autograder/source/mamba_install.sh -b -p /opt/miniforge3")
    lines = []
    for ln in text.splitlines():
        if ln.startswith("apt-get install -y wget"):
            ln = "apt-get install -y --no-install-recommends wget jq ca-certificates util-linux"
        if "nb_conda_kernels" in ln or (not pdf and "playwright" in ln):
            continue  # otter's extras that grading does not use (a browser only for PDF export)
        lines.append(ln)
    text = "\n".join(lines) + "\n"
    return text.rstrip() + "\n\n# pdl: a grader readable by root only\n" \
        "bash /autograder/source/pdl/setup_account.sh\n"


SETUP_ACCOUNT = """#!/usr/bin/env bash
# Run by setup.sh (and by the local simulation): permissions that keep the reference, the hidden
# tests and the engine from the student's process. No account is created: in ``account``
# isolation the student's process runs as a uid of its own without one (autograder/run/accounts.py).
set -euo pipefail
AG="${PDL_AUTOGRADER_DIR:-/autograder}"
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


RUN_OTTER = '''"""Runs Otter-Grader's autograding process; the grading itself is pdl's (autograder.gradescope.plugin).

First the submission folder is reduced to the notebook, as pdl reads it (prepare_submission): no
other file a student uploads reaches otter's runner, which would unpickle its log file and start
its kernel in that folder. Before anything, course_config.py and the PDL_ environment are checked
as pdl checks them (autograder.run.schema): a refusal is one line, exit status 2."""

import sys

from autograder.run import schema

if __name__ == "__main__":
    try:
        schema.check_course()
    except schema.SettingsError as exc:
        print(f"pdl: {exc}. Nothing was graded.", file=sys.stderr)
        sys.exit(2)
    from otter.run.run_autograder import main as run_autograder

    from autograder.gradescope.plugin import prepare_submission
    from autograder.run.settings import Settings

    ag = Settings.load().autograder_dir
    if prepare_submission(ag):  # else results.json holds the verdict: a note, or the unreadable notebook's 0
        run_autograder(ag)
'''


def engine_modules() -> list[str]:
    """The engine's files in the zip, relative to ``autograder/``: the run layer and the plugin."""
    run = sorted(str(p.relative_to(REPO / "autograder")) for p in (REPO / "autograder" / "run").rglob("*.py"))
    return sorted(GRADESCOPE_MODULES + tuple(run))


def engine_files(assignment: str) -> dict[str, bytes]:
    """pdl/... entries of the zip: what grading one submission of ``assignment`` reads."""
    files = {f"pdl/autograder/{name}": (REPO / "autograder" / name).read_bytes() for name in engine_modules()}
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
