"""Hidden tests get the `student` fixture: the grader's proxy, or the reference by default."""

from autograder.run.testing import student  # noqa: F401  (a pytest fixture)


def pytest_configure(config):
    config.addinivalue_line("markers", "points(k): the test is worth k points")
