"""What two grading threads of one process (a dask worker's) must not do at once.

CPython 3.11's compiler is not thread-safe: parsing in two threads at once can fail with
``SystemError`` (python/cpython#106905), and a fork taken while another thread parses leaves the
child with the compiler's state half-changed. The grader's own parsing (``parse``) and the fork of
a grading child (``autograder.run.bounded``) take ``LOCK``; in the child, one thread is left.
"""

from __future__ import annotations

import ast
import threading

LOCK = threading.RLock()


def parse(source: str) -> ast.Module:
    """``ast.parse``, one thread at a time."""
    with LOCK:
        return ast.parse(source)
