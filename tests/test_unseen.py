"""The corpus benchmark judges what a student reads first (the lead) apart from the told text."""

from autograder.course.unseen import Graded, judged_file


def test_the_lead_and_the_told_words_are_judged_apart_and_bare_differs_is_counted(tmp_path):
    g = Graded("ex", "m", "factor", "f", "truth")
    g.failing = [("test_a", "f: differs from the expected value", "f is off by a factor 2 (rule text)"),
                 ("test_b", "f: differs from the expected value", "f is off by a factor 2 (rule text)")]
    g.first_reading = [("test_a", "f: differs from the expected value", "f is too large on every input"),
                       ("test_b", "f: differs from the expected value", "")]
    assert g.hints("told") == ["f is off by a factor 2 (rule text)"]
    assert g.hints("lead") == ["f is too large on every input"]
    assert g.sha("told") != g.sha("lead")
    assert not g.bare  # one test has a lead
    g.first_reading = [(t, m, "") for t, m, _ in g.first_reading]
    assert g.bare
    g.first_reading[0] = ("test_a", "f: entry 3 of the answer is off", "")
    assert not g.bare
    assert judged_file(tmp_path, "told").name == "judged.csv"
    assert judged_file(tmp_path, "lead").name == "judged_lead.csv"
