"""The course's engine, in layers; each imports only from the layers below it
(``lint-imports`` checks this, see ``[tool.importlinter]`` in pyproject.toml):

* ``cli``          the ``pdl`` command
* ``cohort``       the TA's side: a cohort graded at once, gradebook, hand scores, pages
* ``course``       the instructor's side: sources, generation, validation, nbgrader's course
* ``gradescope``   the otter/Gradescope zip, its otter plugin, and the local simulation
* ``run``          grading one notebook: sandbox, worker, protocol, hidden tests, diagnosis;
                   all that the Gradescope zip ships
"""

import os as _os
import sys as _sys

# Where the course lives (course_config.py, solutions/, grading_tests/, assignments/, source/): the
# checkout that holds this engine, or PDL_COURSE_DIR where the engine is installed from its wheel,
# which carries none of the course. Its modules are imported from there.
COURSE_DIR = _os.path.abspath(_os.environ.get("PDL_COURSE_DIR")
                              or _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))
if _os.path.isfile(_os.path.join(COURSE_DIR, "course_config.py")) and COURSE_DIR not in _sys.path:
    _sys.path.append(COURSE_DIR)
