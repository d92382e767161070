"""Public checks: the helper cell every notebook carries, and ``pdl check``."""

from __future__ import annotations

import inspect
from pathlib import Path

from autograder.run.grading import SandboxStudent, assignment_files
from autograder.run.notebook import read_notebook
from autograder.run.worker import check_failure

# Inserted verbatim into release and solution notebooks (students have no `pdl` import).
_HELPER = '''\
# Public checks (inserted by the course tools; do not edit).
# Each @check function below runs when its cell runs and prints one line:
# "ok" when it passes, "not yet" naming the function still to implement, "FAIL" with a hint otherwise.
import re as _re
import traceback

_PDL_CHECKS = {}
{why}

def check(fn):
    """Register a public check and run it now."""
    _PDL_CHECKS[fn.__name__] = fn
    doc = (fn.__doc__ or fn.__name__).strip().splitlines()[0]
    try:
        fn()
    except NotImplementedError as exc:
        missing = _re.match(r"\\s*(\\w+):", str(exc))
        print(f"not yet  {doc}: implement {missing.group(1) if missing else 'the functions it uses'} first")
    except Exception as exc:
        print(f"FAIL     {doc}: {_pdl_why(exc)}")
    else:
        print(f"ok       {doc}")
    return fn


def _pdl_stubs():
    """The functions of the notebook that still raise the release's NotImplementedError."""
    return [name for name, f in list(get_ipython().user_ns.items())
            if f"{name}: replace this line with your implementation" in getattr(getattr(f, "__code__", None), "co_consts", ())]


try:  # `%%figure` on a figure cell: with functions still missing it says which and Run All goes on
    from IPython.core.magic import register_cell_magic

    @register_cell_magic
    def figure(line, cell):
        try:
            exec(compile(get_ipython().transform_cell(cell), "<figure cell>", "exec"), get_ipython().user_ns)
        except NotImplementedError as exc:
            missing = _re.match(r"\\s*(\\w+):", str(exc))
            print(f"not yet  this figure needs {missing.group(1) if missing else 'a function'}: implement it first")
        except Exception as exc:
            if not _pdl_stubs():
                raise
            print(f"not yet  this figure needs results that cells above could not compute yet "
                  f"({type(exc).__name__}: {exc}); implement {', '.join(_pdl_stubs())} first")
except Exception:  # noqa: BLE001 - not in IPython: figure cells run as they are
    pass
'''  # noqa: E501 - inserted verbatim into the notebooks: a wrapped line would change every release


def _why_source() -> str:
    """The worker's ``check_failure`` as the helper's ``_pdl_why``: one function says why a check
    failed, in the grader and in the student's notebook (where the engine is not installed)."""
    source = inspect.getsource(check_failure).replace("def check_failure(", "def _pdl_why(", 1)
    return "\n\n" + source


# braces in the helper are its own f-strings: only the one placeholder is filled
CHECK_HELPER = _HELPER.replace("{why}", _why_source())


def run_public_checks(notebook, assignment: str | None = None, timeout: float = 300) -> tuple[list, list]:
    """Execute a notebook (sandboxed, like grading); return ([Check], grader notes)."""


    path = Path(notebook)
    cells = read_notebook(path)
    files = assignment_files(assignment) if assignment else {}
    files[path.name] = path.read_bytes()
    student = SandboxStudent(files, [c for c in cells if "figure" not in c[2]], timeout=timeout,
                             call_timeout=timeout, memory_mb=4096)
    try:
        results = student.public_checks()
    finally:
        student.close()
    return results, student.errors
