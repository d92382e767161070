"""The instructor's side: one source per exercise in, everything else out.

``source`` reads an instructor source, ``generate`` writes the release, reference, hidden
tests, solution and nbgrader notebooks and the otter zip, ``validate`` checks an assignment
grades as it should (``mutate`` grades wrong, alternative and mutated code in-process,
``synth`` builds synthetic submissions), ``checks`` is the public-check helper of every
notebook and ``pdl check``, ``nbgrader`` drives nbgrader on the generated course.
"""
