"""The local Gradescope simulation: the zip run exactly as Gradescope runs it.

The zip is unpacked into ``<root>/autograder/source``, the notebook put in
``<root>/autograder/submission``, a fresh venv is built from the zip's own ``requirements.txt``,
then the zip's ``setup_account.sh`` and ``run_autograder`` run (``pdl validate``,
``tests/test_gradescope.py``).
"""

from __future__ import annotations

import ast
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from autograder.gradescope.results import check_results_json
from autograder.run import accounts, settings
from autograder.run.grading import grade
from autograder.run.notebook import _tagged_cells, code_cell, load_release, with_cells
from autograder.run.paths import REPO


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
    # for a package mirror), pip's default of 5 retries costs ~8 s per package, ~15 min in all.
    # --no-compile: half the build (38 s -> 18 s here); the first simulation, run as root, writes
    # the .pyc files of what grading imports (+3.5 s once), later ones run as fast as before
    print(f"building the Gradescope environment {venv.name} from the zip's requirements.txt "
          "(once; a few minutes) ...", file=sys.stderr, flush=True)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-compile",
                          "--retries", "1", "--timeout", "30", "-r", str(venv / "requirements.txt")],
                         capture_output=True, text=True)
    if pip.returncode:  # pip's retry warnings for an unreachable index are noise unless it fails
        raise RuntimeError(f"pip could not build {venv}:\n{pip.stderr[-3000:]}")
    (venv / ".complete").write_text("ok\n")
    return venv


def simulate(zip_path: Path, submission: Path, venv: Path, root: Path, timeout: float = 900,
             extra_env: dict | None = None, extra_files: dict[str, bytes] | None = None) -> dict:
    """Grade ``submission`` as Gradescope would: the zip unpacked into ``root/autograder/source``,
    the notebook in ``root/autograder/submission`` (with ``extra_files``, name: bytes, uploaded
    beside it), the zip's ``setup_account.sh`` and ``run_autograder`` run as root with ``venv``
    first on the PATH. Returns results.json plus ``_seconds`` (wall time), ``_stdout`` and
    ``_submission`` (the submission folder's names afterwards)."""

    ag = root / "autograder"
    for sub in ("source", "submission", "results"):
        (ag / sub).mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(ag / "source")
    for script in ("run_autograder", "setup.sh", "pdl/setup_account.sh"):
        (ag / "source" / script).chmod(0o755)
    shutil.copy(submission, ag / "submission" / submission.name)
    for name, data in (extra_files or {}).items():
        (ag / "submission" / name).write_bytes(data)
    (ag / "submission_metadata.json").write_text("{}")
    env = {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(root),
           "PDL_AUTOGRADER_DIR": str(ag), "LANG": "C.UTF-8"}
    for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(extra_env or {})
    etc = private_etc(root)  # the host's accounts stay as they are, whatever the zip's set-up does
    subprocess.run(etc + ["bash", str(ag / "source" / "pdl" / "setup_account.sh")], env=env, check=True,
                   capture_output=True)
    start = time.monotonic()
    proc = subprocess.run(etc + [str(ag / "source" / "run_autograder")], env=env, cwd=str(ag),
                          capture_output=True, timeout=timeout)
    seconds = time.monotonic() - start
    out = ag / "results" / "results.json"
    if not out.exists():
        raise RuntimeError(f"run_autograder wrote no results.json (exit {proc.returncode}):\n"
                           + proc.stderr.decode("utf-8", "replace")[-3000:])
    data = json.loads(out.read_text())
    data["_seconds"], data["_stdout"] = round(seconds, 1), proc.stdout.decode("utf-8", "replace")
    data["_submission"] = sorted(p.name for p in (ag / "submission").iterdir())
    return data


def private_etc(root: Path) -> list[str]:
    """A prefix that runs a command in a mount namespace of its own with ``root/etc``, a copy of
    the host's ``/etc`` made once per simulation, mounted over ``/etc``: accounts, groups and
    shadow files that the zip's set-up creates or changes (``useradd``...) are the copy's, never
    the host's. Files, not bind mounts of single files: ``useradd`` renames its new passwd file
    into place. Where the copy cannot be mounted the command fails (exit 96) before it runs.
    Not root: nothing of /etc can be changed, so no prefix."""
    if os.geteuid() != 0:
        return []
    etc = root / "etc"
    if not etc.exists():
        subprocess.run(["cp", "-a", "/etc", str(etc)], check=True, capture_output=True)
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
            'mount --bind "$0" /etc || { echo "pdl: cannot give the simulation a private /etc" >&2; exit 96; }; '
            'exec "$@"', str(etc)]


CASES = ("correct", "partial", "stub", "infinite_loop", "invalid_json", "cheat", "big_answers")
# The cases that try the engine rather than the assignment (a loop, a broken file, a cheat, huge
# answers): the same code for every zip, so a run over several assignments tries them on one.
ENGINE_CASES = ("infinite_loop", "invalid_json", "cheat", "big_answers")
# The loop waits out the call limit three times (pdl grade's run, then the simulation's hidden
# tests and public checks); the exemplars' calls answer in milliseconds, so a shorter limit tries
# the same path.
LOOP_CALL_TIMEOUT_S = 4.0
BIG_ANSWER = "_np.zeros(2**24, dtype=_np.int8)"  # 16 MB where the reference returns a few numbers


def big_answers_notebook(assignment: str) -> str:
    """The correct example, its first graded function that none of its other graded functions
    calls (else its first) now answering 16 MB of int8: the grader must refuse the answer, not
    choke on it (the score is then pdl grade's). A function no other one calls: where the
    student's own callers computed on the 16 MB (128 MB as floats, ~0.4 s a call) and error
    carried forward re-ran their tests, the case took 33 s instead of 12, none of it the
    refusal's; tests/test_trust.py grades a notebook whose called functions answer 16 MB."""
    correct = json.loads((REPO / "examples" / "submissions" / assignment / "correct.ipynb").read_text())
    graded = [text for _, _, text in _tagged_cells(load_release(assignment), "graded", "code")]
    names = [n.name for text in graded for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)]
    called = set()
    for cell in correct["cells"]:
        try:
            tree = ast.parse("".join(cell["source"])) if cell["cell_type"] == "code" else None
        except SyntaxError:
            continue
        for fn in (n for n in (tree.body if tree else []) if isinstance(n, ast.FunctionDef) and n.name in names):
            called |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id != fn.name}
    first = next((n for n in names if n not in called), names[0])
    return json.dumps(with_cells(correct, [code_cell(f"import numpy as _np\ndef {first}(*a, **k):\n"
                                                      f"    return {BIG_ANSWER}\n")]))


def cheat_notebook(assignment: str, ag: Path, search_disk: bool = True) -> str:
    """The untouched release plus cells that import, exec and %run the reference where the
    autograder keeps it, and (``search_disk``) search the disk for any other copy."""


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


_SCORES: dict[tuple, float] = {}


def pdl_score(notebook: Path, assignment: str, timeout: float, call_timeout: float) -> float:
    """``pdl grade``'s score of ``notebook`` under these limits, graded once per process for the
    same notebook, hidden tests and reference (a simulation under another isolation compares the
    same notebooks with the same grade: tests/test_gradescope.py ran pdl grade on the correct and
    partial examples twice, 10 s)."""
    sources = [notebook, REPO / "grading_tests" / assignment / f"test_{assignment}.py",
               REPO / "solutions" / assignment / "__init__.py"]
    key = (assignment, timeout, call_timeout, repr(settings.current()),  # the environment's settings too
           *(hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else "" for p in sources))
    if key not in _SCORES:
        _SCORES[key] = grade(notebook, assignment, timeout=timeout, call_timeout=call_timeout).score
    return _SCORES[key]


def check_simulation(assignment: str, zip_file: Path, venv: Path, workdir: Path, *,
                     timeout: float = 60, call_timeout: float = 10, log=print, cases=CASES,
                     isolation: str | None = None) -> bool:
    """Run the Gradescope simulation on each of ``CASES``; compare with ``pdl grade`` under the
    same limits. True when every results.json is valid, every score matches ``pdl grade``, the
    cheat scores 0 and the loop finishes within its limits."""

    ok = True
    for case in cases:
        limit = min(call_timeout, LOOP_CALL_TIMEOUT_S) if case == "infinite_loop" else call_timeout
        env = {"PDL_TIMEOUT_S": str(timeout), "PDL_CALL_TIMEOUT_S": str(limit)}
        if isolation:
            env["PDL_ISOLATION"] = isolation
        root = workdir / case
        nb = root / "input" / f"{assignment}.ipynb"
        nb.parent.mkdir(parents=True, exist_ok=True)
        if case == "cheat":
            # account isolation hides the disk with Landlock; without it, only permissions protect
            # the zip's own copy of the reference (on Gradescope the only copy in the container),
            # and a host with the course checked out elsewhere is namespace isolation's to guard.
            search = isolation != "account" or accounts.landlock_abi() >= 1
            nb.write_text(cheat_notebook(assignment, root / "autograder", search_disk=search))
        elif case == "big_answers":
            nb.write_text(big_answers_notebook(assignment))
        else:
            shutil.copy(REPO / "examples" / "submissions" / assignment / f"{case}.ipynb", nb)
        got = simulate(zip_file, nb, venv, root, extra_env=env)
        want = 0.0 if case == "cheat" else pdl_score(nb, assignment, timeout, limit)
        problems = []
        try:
            check_results_json(got)
        except ValueError as exc:
            problems.append(f"invalid results.json: {exc}")
        if got.get("score") != want:
            problems.append(f"score {got.get('score')} but pdl grade gives {want}")
        bound = timeout + 4 * limit + 120
        if got["_seconds"] > bound:
            problems.append(f"took {got['_seconds']} s (more than {bound:g} s)")
        if isolation and case != "invalid_json" and f"({isolation} isolation" not in got["_stdout"]:
            problems.append(f"did not grade with {isolation} isolation")
        ok &= not problems
        log(f"  {'ok  ' if not problems else 'FAIL'} Gradescope simulation, {case}: "
            f"{got.get('score')} in {got['_seconds']} s" + ("; " + "; ".join(problems) if problems else ""))
    return ok
