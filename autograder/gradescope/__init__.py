"""The Gradescope route: otter's autograder zip with pdl's engine inside.

``archive`` says what the zip holds (the run layer, the reference, the hidden tests, pinned
requirements, set-up scripts), ``plugin`` is the otter plugin that grades through
``autograder.run.grading`` and ``results`` turns a report into Gradescope's results.json;
``simulate`` runs the zip locally as Gradescope would.
"""
