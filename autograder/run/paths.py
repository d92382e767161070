"""Where the course lives: the repository root (or the Gradescope zip's ``pdl/`` folder), or
``PDL_COURSE_DIR`` where the engine is installed from its wheel (``autograder.COURSE_DIR``).

The engine reads the course's generated files from here: ``solutions/<id>/`` (the reference),
``grading_tests/<id>/`` (the hidden tests), ``assignments/<id>/`` (the release) and
``source/<id>/<id>.py`` (the known mistakes, for the diagnosis).
"""

from __future__ import annotations

from pathlib import Path

import autograder

REPO = Path(autograder.COURSE_DIR).resolve()  # the checkout holding the engine, or PDL_COURSE_DIR
