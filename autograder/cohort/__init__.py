"""The TA's side: a whole cohort graded at once, and what people read afterwards.

``layouts`` finds submissions (folders, zips, nbgrader and Gradescope exports) and gives each
student a stable id, ``grade`` grades them in parallel (or on dask) and keeps records,
``outputs`` writes the gradebook, CSVs and pages (``pages``, rendered with ``markup``),
``handscores`` merges the TA's hand scores, ``browser`` looks at the pages in Chromium.
"""

__all__ = ["Term", "TermRefused", "grade_term", "read_records"]


def __getattr__(name: str):
    """The term's API (``autograder.cohort.term``, docs/api.md), imported on first use: importing
    this package stays cheap."""
    if name in __all__:
        from autograder.cohort import term

        return getattr(term, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
