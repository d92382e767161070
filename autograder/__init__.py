"""The course's engine, in layers; each imports only from the layers below it
(``lint-imports`` checks this, see ``[tool.importlinter]`` in pyproject.toml):

* ``cli``          the ``pdl`` command
* ``cohort``       the TA's side: a cohort graded at once, gradebook, hand scores, pages
* ``course``       the instructor's side: sources, generation, validation, nbgrader's course
* ``gradescope``   the otter/Gradescope zip, its otter plugin, and the local simulation
* ``run``          grading one notebook: sandbox, worker, protocol, hidden tests, diagnosis;
                   all that the Gradescope zip ships
"""
