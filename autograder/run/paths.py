"""Where the course lives: the repository root (or the Gradescope zip's ``pdl/`` folder).

The engine reads the course's generated files from here: ``solutions/<id>/`` (the reference),
``grading_tests/<id>/`` (the hidden tests), ``assignments/<id>/`` (the release) and
``source/<id>/<id>.py`` (the known mistakes, for the diagnosis).
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
