"""Public checks: the helper cell every notebook carries, and ``pdl check``."""

from __future__ import annotations

from pathlib import Path

from autograder.run.grading import assignment_files
from autograder.run.notebook import read_notebook
from autograder.run.proxy import SandboxStudent

# Inserted verbatim into release and solution notebooks (students have no `pdl` import). It is
# what a student reads: plain code, no word of the course's tools (``release_checks`` scans it).
# A failing check says what failed: the message of the exception; for a bare ``assert``, the
# values of what it compared (its operands, evaluated again in the check's frame); and where a
# nan or inf is involved, the notebook function it came from (the check run again under
# ``sys.setprofile``: the last function that returned a non-finite value from finite arguments
# while none it called did).
_HELPER = '''\
# Public checks: each @check function below runs when its cell runs and prints one line:
# "ok" when it passes, "not yet" naming the function still to implement, or "FAIL" saying what
# failed (for an `assert`, the values it compared; for a nan or inf, the function it came from).
# Run this cell; you need not read the code below.
import ast as _ast
import contextlib as _contextlib
import io as _io
import linecache as _linecache
import re as _re
import sys as _sys
import traceback as _traceback

import numpy as _np

_PDL_CHECKS = {}


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
        print(f"FAIL     {doc}: {_pdl_why(exc, fn)}")
    else:
        print(f"ok       {doc}")
    return fn


def _pdl_why(exc, fn):
    """Why the check `fn` failed with `exc`, in one line."""
    kind, text = type(exc).__name__, str(exc).strip()
    frames = list(_traceback.extract_tb(exc.__traceback__))
    line = next((t for f in reversed(frames) if (t := (f.line or "").strip())), "")[:200]
    compared = _pdl_compared(exc, fn)
    shown = "; ".join(f"{code} = {_pdl_show(value)}" for code, value in compared or [])
    if text:
        why = f"{kind}: {' '.join(text.split())}"
    elif compared is not None:
        why = f"{kind}: `{line}` does not hold" + (f", where {shown}" if shown else "")
    else:
        why = f"{kind} (raised without a message)" + (f" at `{line}`" if line else "")
    why = why if len(why) <= 300 else why[:300] + " ..."
    if _re.search(r"\\b(nan|inf|infinity)s?\\b", text, _re.I) or not _pdl_finite([v for _, v in compared or []]):
        origin = _pdl_origin(fn)
        if origin:
            why = f"{origin[0]} returned {origin[1]} from finite arguments in this check: fix {origin[0]} first ({why})"
    return why


def _pdl_compared(exc, fn):
    """(code, value) of what the failing `assert` of this notebook compared, evaluated again; None
    when `exc` was not raised by an `assert` of the notebook."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if not isinstance(exc, AssertionError) or tb is None or tb.tb_frame.f_globals is not fn.__globals__:
        return None
    frame, name = tb.tb_frame, tb.tb_frame.f_code.co_filename
    source = "".join(_linecache.getlines(name, frame.f_globals))
    try:
        nodes = [n for n in _ast.walk(_ast.parse(source))
                 if isinstance(n, _ast.Assert) and n.lineno <= tb.tb_lineno <= n.end_lineno]
    except SyntaxError:
        return None
    if not nodes:
        return None

    def value(node):
        return eval(compile(_ast.Expression(node), name, "eval"), frame.f_globals, frame.f_locals)

    def parts(test):
        if isinstance(test, _ast.UnaryOp) and isinstance(test.op, _ast.Not):
            return parts(test.operand)
        if isinstance(test, _ast.BoolOp):  # the first part that decides the outcome
            for part in test.values:
                try:
                    if bool(value(part)) == isinstance(test.op, _ast.Or) or part is test.values[-1]:
                        return parts(part)
                except Exception:
                    return []
        if isinstance(test, _ast.Compare):
            return [test.left, *test.comparators]
        if isinstance(test, _ast.Call):
            return [*test.args, *(k.value for k in test.keywords)]
        return [test]

    out = []
    for node in parts(max(nodes, key=lambda n: n.lineno).test):
        if isinstance(node, (_ast.Constant, _ast.Lambda, _ast.GeneratorExp)) or (
                isinstance(node, _ast.UnaryOp) and isinstance(node.operand, _ast.Constant)):
            continue
        try:
            out.append((_ast.get_source_segment(source, node) or _ast.unparse(node), value(node)))
        except Exception:
            pass
    return out


def _pdl_show(value):
    """A short one-line repr."""
    if isinstance(value, _np.ndarray):
        text = _np.array2string(value, precision=6, threshold=8, edgeitems=2, separator=", ")
    elif isinstance(value, _np.generic):
        text = repr(value.item())
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:80] + " ..."


def _pdl_finite(value, test=_np.isfinite, depth=0):
    """Does `test` hold on every number of `value` (numbers, arrays; lists, tuples, dicts of them)?"""
    if isinstance(value, dict):
        value = list(value.values())
    try:
        array = _np.asarray(value)
        if array.dtype.kind in "fc":
            return bool(test(array).all())
    except Exception:
        pass
    if isinstance(value, (list, tuple)) and depth < 4:
        return all(_pdl_finite(v, test, depth + 1) for v in value)
    return True


def _pdl_origin(fn):
    """Run the check `fn` again, watching the functions of this notebook: the last one that
    returned nan or inf from finite arguments while none it called did, or None."""
    codes = {f.__code__: name for name, f in list(fn.__globals__.items())
             if getattr(f, "__globals__", None) is fn.__globals__ and f is not fn and name not in _PDL_CHECKS
             and not name.startswith("_pdl") and name != "check"}
    stack, origins = [], []

    def watch(frame, event, arg):
        if event not in ("call", "return") or frame.f_code not in codes:
            return
        if event == "call":
            stack.append([_pdl_finite(list(frame.f_locals.values())), False])
        elif stack:
            finite_arguments, inner = stack.pop()
            if not _pdl_finite(arg):
                if stack:
                    stack[-1][1] = True
                if finite_arguments and not inner:
                    kind = "inf" if _pdl_finite(arg, lambda a: ~_np.isnan(a)) else "nan"
                    origins.append((codes[frame.f_code], kind))

    before = _sys.getprofile()
    _sys.setprofile(watch)
    try:
        with _contextlib.redirect_stdout(_io.StringIO()):
            fn()
    except Exception:
        pass
    finally:
        _sys.setprofile(before)
    return origins[-1] if origins else None


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
except Exception:  # not in IPython: figure cells run as they are
    pass
'''  # noqa: E501 - inserted verbatim into the notebooks: a wrapped line would change every release

CHECK_HELPER = _HELPER


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
