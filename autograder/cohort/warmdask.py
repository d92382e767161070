"""The dask route's warm workers: a worker plugin that readies each dask worker for one
assignment before it grades, as ``grade_cohort``'s own pool workers are readied
(``autograder.run.grading.warm``): the reference and the known mistakes loaded, and one warm
template (``autograder.run.sandbox.Template``) per worker thread. Imported only with
``--scheduler`` (``distributed`` is heavy)."""

from __future__ import annotations

from distributed.diagnostics.plugin import WorkerPlugin

from autograder.run.grading import warm
from autograder.run.sandbox import start_templates


class WarmGrading(WorkerPlugin):
    """Registered by ``grade_cohort`` on the cluster: ``setup`` runs on every worker, those there
    now and those that join later. A worker that cannot build the sandbox fails its set-up (dask
    reports it), and its grading jobs then refuse in the same words."""

    def __init__(self, assignment: str, isolation: str | None):
        self.assignment, self.isolation = assignment, isolation
        self.name = f"pdl-warm-{assignment}"

    def setup(self, worker) -> None:
        warm(self.assignment, self.isolation, mistakes=True)
        start_templates(self.assignment, getattr(getattr(worker, "state", None), "nthreads", 1) or 1)
