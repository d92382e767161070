"""Course settings, and nbgrader's configuration (``--NbGrader.config_file=<root>/course_config``).

One file for both: `pdl` reads the constants; nbgrader (a traitlets application) executes
this file with ``c = get_config()`` in scope, so the nbgrader block runs only there.
"""

from pathlib import Path

COURSE = "physics-of-deep-learning"
YEAR = 2026          # the course year; `pdl new-year` changes it
SEED = 20260901      # the course seed: hidden-test inputs and year parameters derive from it

# Grading limits (per submission), used by `pdl grade` unless given on the command line.
TIMEOUT_S = 300      # wall-clock limit for running the notebook
CALL_TIMEOUT_S = 60  # wall-clock limit for one call of a student's function
MEMORY_MB = 4096     # address-space limit of the student's process
# Error carried forward (autograder/run/carry.py): a failing test whose answers follow from the
# student's own wrong answers elsewhere keeps its points, with a note (PDL_CARRY_FORWARD=0: off).
CARRY_FORWARD = True
# Hints that lead, then tell (autograder/run/diagnosis.py, `tells`): where a failing hidden test
# matches a known mistake, the student first reads where and what (the function, the symptom: "too
# large on every input", "off by a factor 1/2"), never the rule or the formula; the mistake's
# catalogued hint (its rule text) is shown
#   "tell-after-publication": in what she reads after grades are published (Gradescope's hidden-test
#                             results; the cohort's feedback pages written with PDL_PUBLISHED=1);
#   "tell-on-resubmission":   from her third submission on (a second resubmission; Gradescope's
#                             previous submissions);
#   "lead":                   never (the TA's views, `pdl grade` and the cohort report, always show it).
HINTS = "tell-after-publication"

# Deadlines, for `pdl grade-cohort`: a submission whose time (Gradescope's :created_at, nbgrader's
# timestamp.txt) is after its assignment's deadline is flagged late in grades.csv, the report and
# the feedback, and the deadline becomes the assignment's due date in nbgrader's gradebook.
# "YYYY-MM-DD HH:MM:SS <zone>" with an IANA zone name or an offset (+0200); no zone means UTC.
DEADLINES = {}  # type: dict[str, str]  # e.g. {"ex3_2_nngp": "2026-10-15 23:59:59 Europe/Berlin"}

# Late policy, for `pdl grade-cohort` (autograder/cohort/late.py): the penalty is taken from the
# total (tests + written answers) and grades.csv, canvas.csv and moodle.csv hold the final grade
# (never below 0). A policy is a dict with only these keys:
#   "grace_minutes": N      a submission at most N minutes late costs nothing (default 0);
#   "per_day": f | "per_hour": f   each started day (hour) after the deadline costs the fraction f
#                           (0..1) of the assignment's maximum, counted from the deadline;
#   "cap": f                 at most this fraction of the maximum from per_day/per_hour (default 1);
#   "no_credit_after": "YYYY-MM-DD HH:MM:SS <zone>"   a submission after it gets 0.
# Each student's deadline is her assignment's DEADLINES entry moved by her extension in the roster
# (`--roster`: a number of days, or a date and time); no_credit_after moves with it. The penalty
# is computed from the submission time; the LMS's own late flag (Canvas) is shown but costs nothing.
# One policy for every assignment, or {"<assignment id>": policy, "*": policy for the others}.
LATE_POLICY = {}  # type: dict[str, object]  # e.g. {"grace_minutes": 15, "per_day": 0.10, "cap": 0.5}

# Canvas assignment ids, for canvas.csv's column "<assignment> (<id>)" (Canvas's gradebook import
# matches the column by this id; without it, by the assignment's name).
CANVAS_ASSIGNMENT_IDS = {}  # type: dict[str, int]  # e.g. {"ex3_2_nngp": 123456}

# Modules: named groups of assignments that can be released together (notes, Section 0.1).
MODULES = {
    "day_b6": ["ex2_1_cumulants", "ex2_2_first_order", "ex2_3_ising_perceptron",
               "ex3_6_depth_width", "ex4_5_kernel_ridge", "ex4_4_lazy_lab",
               "ex5_3_mean_field_lab", "ex7_1_quanta"],
}

# Gradescope, through otter's autograder zip (`dist/otter/`). Written answers are otter's
# "manual questions": the zip exports them (only them, by otter's filtering comments) to a PDF
# and uploads it to a separate Gradescope assignment where TAs grade them by hand. Set the
# course id and, per assignment, the id of that manual-grading assignment; the upload token
# is read from the environment variable GRADESCOPE_TOKEN by `pdl generate`, never stored here.
GRADESCOPE_COURSE_ID = None            # e.g. 123456
GRADESCOPE_MANUAL_ASSIGNMENTS = {}  # type: dict[str, int]  # e.g. {"ex5_3_mean_field_lab": 654321}

ROOT = Path(__file__).resolve().parent

if "get_config" in globals():  # executed by nbgrader as its config file
    # traitlets puts get_config in the file's scope when nbgrader loads it as its config
    c = get_config()  # type: ignore[name-defined]  # noqa: F821
    c.CourseDirectory.course_id = COURSE
    c.CourseDirectory.root = str(ROOT / "nbgrader")
    c.CourseDirectory.db_url = f"sqlite:///{ROOT / 'nbgrader' / 'gradebook.db'}"
    c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    c.ExecutePreprocessor.timeout = TIMEOUT_S
    # written answers in nbgrader's release read like pdl's (and both count as blank when untouched)
    c.ClearSolutions.text_stub = "*Your answer here.*"  # autograder.run.notebook.ANSWER_PLACEHOLDER
    try:  # autograde without nbgrader's false checksum alarm on hidden-test cells (nbgrader#1961)
        from nbgrader.converters.autograde import Autograde as _Autograde

        from autograder.course.nbgrader import OverwriteCells as _OverwriteCells
        c.Autograde.sanitize_preprocessors = [
            _OverwriteCells if p.__name__ == "OverwriteCells" else p
            for p in _Autograde.class_traits()["sanitize_preprocessors"].default()]
    except Exception:  # noqa: BLE001 - nbgrader without the course tools: its own preprocessors
        pass
