"""The TA's side: a whole cohort graded at once, and what people read afterwards.

``layouts`` finds submissions (folders, zips, nbgrader and Gradescope exports) and gives each
student a stable id, ``grade`` grades them in parallel (or on dask) and keeps records,
``outputs`` writes the gradebook, CSVs and pages (``pages``, rendered with ``markup``),
``handscores`` merges the TA's hand scores, ``browser`` looks at the pages in Chromium.
``term`` does all of it in one call (``grade_term``: the API of docs/api.md, under ``pdl grade-cohort``).
"""
