"""The public-check helper every notebook carries: a check that needs a missing function names it."""

from autograder.course.checks import CHECK_HELPER


def test_not_yet_names_the_missing_function(capsys):
    ns: dict = {}
    exec(CHECK_HELPER, ns)  # noqa: S102 - the helper cell, as a notebook runs it

    def erf_kernel():
        return 1.0

    def relu_kernel():
        raise NotImplementedError("relu_kernel: replace this line with your implementation")

    @ns["check"]
    def check_kernels():
        "closed forms vs quadrature"
        erf_kernel()
        relu_kernel()

    @ns["check"]
    def check_own_error():
        "a student's own NotImplementedError"
        raise NotImplementedError

    out = capsys.readouterr().out.splitlines()
    assert out == ["not yet  closed forms vs quadrature: implement relu_kernel first",
                   "not yet  a student's own NotImplementedError: implement the functions it uses first"]
