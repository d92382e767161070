"""Fair grades (issue 22): what the grader says about a mistake is true and points at the
student's own code."""

from __future__ import annotations

import json

from conftest import EXEMPLAR

from autograder.run.grading import grade
from autograder.run.notebook import code_cell, with_cells


def test_an_error_inside_a_library_is_placed_in_the_students_cell(write_nb, correct_nb):
    """scipy raising deep inside itself: the message cites the student's cell and line, the
    deepest frame of the student's code, never scipy's own line."""
    wrong = code_cell("import scipy.optimize\n"
                      "def spinodal_load():\n"
                      "    # a bracket with no sign change: brentq raises inside scipy\n"
                      "    return scipy.optimize.brentq(lambda a: a * a + 1.0, 0.0, 1.0)\n")
    nb = with_cells(correct_nb, [wrong])
    report = grade(write_nb("scipy", nb), EXEMPLAR)
    message = next(t.message for t in report.tests if t.name == "test_spinodal_load")
    cell = len(nb["cells"])  # the appended cell, counted from 1
    assert f"line 4 of your cell {cell}, which starts `import scipy.optimize`" in message, message
    assert "_zeros.py" not in message and "of your code)" not in message
