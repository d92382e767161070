"""Grading one notebook: all that a grader needs, and all that the Gradescope zip ships.

``grading`` runs the notebook in the student's process (``sandbox`` starts it, ``worker`` is
its side, ``protocol`` the plain data between them) and the hidden tests here (``testing``);
``diagnose`` names a failing test's mistake. ``notebook`` reads submissions and releases,
``mistakes`` the known mistakes of a source, ``paths`` says where the course lives.

Nothing is imported here: the student's process imports ``autograder.run.worker`` alone.
"""
