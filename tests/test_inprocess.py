"""The baseline of in-process grading (``autograder.course.inprocess.Baseline``): a variant of the
reference keeps the reference's pass, unrun, on the tests that reach none of its changes, and the
grades are those of running every test."""

import numpy as np
import pytest
from conftest import EXEMPLAR

from autograder.course.inprocess import Baseline, _only_definitions, _reach, _same, grade_code, namespace_of
from autograder.course.mutate import variant_cells
from autograder.course.source import load
from autograder.course.validate import module_text

HELPERS = '''
import numpy as np
SCALE = 2.0
def helper(x):
    return SCALE * x
def graded(x):
    return helper(x) + 1
def other(x):
    return np.sin(x)
def dynamic(x):
    return globals()["helper"](x)
'''


def _ns(code):
    return namespace_of("demo", code)


def test_same_compares_code_defaults_and_plain_data():
    a, b = _ns(HELPERS), _ns(HELPERS)
    assert _same(dict.get(a, "graded"), dict.get(b, "graded")) and _same(dict.get(a, "np"), dict.get(b, "np"))
    assert _same(dict.get(a, "SCALE"), dict.get(b, "SCALE"))
    changed = _ns(HELPERS.replace("helper(x) + 1", "helper(x) - 1"))
    assert not _same(dict.get(a, "graded"), dict.get(changed, "graded"))
    assert _same(np.linspace(0, 1, 5), np.linspace(0, 1, 5))  # a grid computed as the module loads
    assert not _same(np.zeros(2), np.zeros(3)) and not _same(np.zeros(2), np.zeros(2, dtype=int))
    assert not _same(lambda x=1: x, lambda x=2: x)


def test_reach_follows_the_module_functions_and_gives_up_on_run_time_lookups():
    ns = _ns(HELPERS)
    assert {"graded", "helper", "SCALE"} <= _reach(ns, "graded") and "other" not in _reach(ns, "graded")
    assert _reach(ns, "dynamic") is None


@pytest.mark.parametrize("code, only", [
    ("import numpy as np\nX = 1\ndef f():\n    return X\n", True),
    ("from numpy.polynomial.hermite_e import hermegauss\nZ, W = hermegauss(9)\n", True),
    ("import numpy as np\nX = [0]\nX[0] = 1\n", False),
    ('"""doc"""\nclass A:\n    pass\nY: int = 3\n', True),
    ("import numpy as np\nnp.sum = lambda *a: 0\n", False),
    ("import numpy as np\nnp.random.seed(0)\n", False),
    ("for i in range(3):\n    pass\n", False),
])
def test_only_definitions(code, only):
    assert _only_definitions(code) is only


def test_a_changed_helper_reruns_every_test_that_reaches_it():
    """In the exemplar, a wrong cell redefines one graded function: the tests of the others are
    not run, the tests that call it (directly or through another function) are."""
    src = load(EXEMPLAR)
    ref = module_text(src)
    base = Baseline(EXEMPLAR, ref)
    assert base.passed and all(base.reached.get(t) for t in base.passed)
    mistake = src.mistakes()[0]
    text = ref + "\n\n" + mistake.code
    skip = base.unaffected(namespace_of(EXEMPLAR, text), text)
    assert 0 < len(skip) < len(base.passed)
    changed = {n for n in base.ns if n in namespace_of(EXEMPLAR, mistake.code)}
    ns = namespace_of(EXEMPLAR, text)
    for test in base.passed - skip:  # each test that runs reaches a changed name
        assert any(_reach(ns, name) & changed for name in base.reached[test])
    side_effect = text + "\nnp.random.seed(0)\n"
    assert base.unaffected(namespace_of(EXEMPLAR, side_effect), side_effect) == set()


def test_grades_with_the_baseline_are_those_of_running_every_test():
    """Every wrong, rewrite and alternative cell of the exemplar: the same points and the same
    diagnoses with and without the baseline."""
    src = load(EXEMPLAR)
    ref = module_text(src)
    base = Baseline(EXEMPLAR, ref)
    cells = ([m.code for m in src.mistakes()] + [code for m in src.mistakes() for _, code in m.rewrites]
             + [code for _, code in variant_cells(src, "alternative")])
    assert len(cells) >= 5
    for code in cells:
        full, _ = grade_code(EXEMPLAR, ref + "\n\n" + code)
        fast, _ = grade_code(EXEMPLAR, ref + "\n\n" + code, base)
        assert [(r.name, r.points, r.diagnosis) for r in fast] == [(r.name, r.points, r.diagnosis) for r in full]
