"""CHANGELOG.md lists every assignment's version (issue 23, item 9): a regeneration that changes a
version (``autograder.run.versions.assignment_version``) must add it, so a TA can tell from a grade's
version which course it was graded with."""

import re

from autograder.course.source import all_assignments
from autograder.run.paths import REPO
from autograder.run.versions import assignment_version


def listed_versions(text: str) -> set[tuple[str, str]]:
    """(assignment, version) of each row of the changelog's version tables."""
    return set(re.findall(r"^\| `(\w+)` \| `(\d{4}\.[0-9a-f]{10})` \|", text, re.MULTILINE))


def test_changelog_lists_the_version_of_every_assignment():
    listed = listed_versions((REPO / "CHANGELOG.md").read_text())
    missing = [f"| `{aid}` | `{assignment_version(aid)}` | <what changed> |"
               for aid in all_assignments() if (aid, assignment_version(aid)) not in listed]
    assert not missing, ("CHANGELOG.md does not list these versions; add the rows to its 'Assignment versions' "
                         "table and say what changed in the year's section:\n" + "\n".join(missing))


def test_a_version_missing_from_the_changelog_is_found():
    """The check above can fail: a changed hidden test (another hash) is not listed."""
    text = (REPO / "CHANGELOG.md").read_text()
    aid = all_assignments()[0]
    assert (aid, assignment_version(aid)) in listed_versions(text)
    assert (aid, assignment_version(aid)) not in listed_versions(
        text.replace(assignment_version(aid), "2026.0000000000"))
