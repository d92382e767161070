"""The settings' schema (issue 44, autograder/run/schema.py): every course_config name and every
PDL_ variable declared once; anything else, a wrong type, or a course_config.py that is not valid
Python refused in one line with exit status 2, by `pdl` before a command and by Settings.load();
docs/settings.md's tables rendered from the declarations."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from conftest import EXEMPLAR

import course_config
from autograder.run import schema
from autograder.run.paths import REPO
from autograder.run.settings import Settings

CHECKOUT = Path(__file__).resolve().parents[1]  # the engine's checkout (its docs, scripts)
PDL = Path(sys.executable).with_name("pdl")


def _pdl(*args: str, config: str | None = None, tmp_path: Path | None = None, **env: str):
    """`pdl <args>` as typed, in a process of its own; ``config``: the text of a course_config.py in
    ``tmp_path`` that the engine reads instead of the course's (``PDL_COURSE_DIR``)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PDL_")}
    cwd = REPO
    if config is not None:
        assert tmp_path is not None
        (tmp_path / "course_config.py").write_text(config)
        environ["PDL_COURSE_DIR"] = cwd = str(tmp_path)
    command = [str(PDL)] if PDL.exists() else [sys.executable, "-m", "autograder.cli"]
    return subprocess.run(command + list(args), capture_output=True, text=True, timeout=120, cwd=cwd,
                          env=environ | env)


def _refused(run, *says: str) -> str:
    """The one line of a refusal (exit status 2, no traceback), which says each of ``says``."""
    assert run.returncode == 2, (run.returncode, run.stderr[-2000:])
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    for text in says:
        assert text in lines[0], lines[0]
    return lines[0]


def _with(line: str) -> tuple[str, int]:
    """The course's course_config.py with ``line`` added at its end, and that line's number."""
    text = (REPO / "course_config.py").read_text()
    return text + line + "\n", text.count("\n") + 1


GRADE = ("grade-cohort", "no-such-folder", "--assignment", EXEMPLAR, "--out", "no-such-out")


# -- through pdl ----------------------------------------------------------------------------------

def test_a_misspelt_setting_is_refused_naming_the_nearest(tmp_path):
    config, line = _with('LATE_POLCY = {"per_day": 0.1}')
    said = _refused(_pdl(*GRADE, config=config, tmp_path=tmp_path),
                    f"course_config.py:{line}: LATE_POLCY is not a setting; did you mean LATE_POLICY?",
                    "Nothing was done.")
    assert said.startswith("pdl: ")
    assert not (tmp_path / "no-such-out").exists()


@pytest.mark.parametrize("line, says", [
    ('TIMEOUT_S = "300"', "TIMEOUT_S = '300' (str) must be a number > 0, e.g. TIMEOUT_S = 300"),
    ("LATE_POLICY = []", "LATE_POLICY = [] (list) must be a dict"),
    ('DEADLINES = {"ex3_2_nngp": 20261015}', "DEADLINES['ex3_2_nngp'] = 20261015 (int) must be a str"),
])
def test_a_wrong_type_is_refused(tmp_path, line, says):
    config, number = _with(line)
    _refused(_pdl(*GRADE, config=config, tmp_path=tmp_path), f"course_config.py:{number}: {says}")


def test_a_syntax_error_is_refused_with_its_file_and_line(tmp_path):
    config, line = _with('MODULES = {"day_b7": ["ex2_1_cumulants"]')
    _refused(_pdl(*GRADE, config=config, tmp_path=tmp_path),
             f"course_config.py:{line}: ", "was never closed", "not valid Python")
    config, line = _with("TIMEOUT_S = MINUTES * 5")  # valid Python that fails when run
    _refused(_pdl(*GRADE, config=config, tmp_path=tmp_path),
             f"course_config.py:{line}: NameError: name 'MINUTES' is not defined")


def test_an_unknown_or_ill_typed_variable_is_refused():
    _refused(_pdl(*GRADE, PDL_TIMEOUT="120"), "PDL_TIMEOUT (in the environment) is not a pdl variable; "
             "did you mean PDL_TIMEOUT_S?")
    _refused(_pdl(*GRADE, PDL_TIMEOUT_S="abc"), "PDL_TIMEOUT_S='abc' (in the environment) must be a number > 0")
    _refused(_pdl(*GRADE, PDL_WARM="maybe"), "PDL_WARM='maybe'", "must be 1 or 0")


def test_the_course_config_passes(tmp_path):
    """The course's course_config.py, and a copy read through PDL_COURSE_DIR: the command's own
    refusal comes (a folder that does not exist), not the schema's."""
    schema.check_module(course_config)
    run = _pdl(*GRADE)
    assert run.returncode == 2 and "no-such-folder does not exist" in run.stderr, run.stderr[-2000:]
    run = _pdl(*GRADE, config=(REPO / "course_config.py").read_text(), tmp_path=tmp_path, PDL_WARM="0",
               PDL_TIMEOUT_S="", PDL_HINTS="lead")
    assert run.returncode == 2 and f"unknown assignment {EXEMPLAR!r}" in run.stderr, run.stderr[-2000:]


def test_the_gradescope_zip_checks_before_grading(tmp_path):
    """The zip's run_otter.py refuses as pdl does, before otter or the plugin is imported."""
    from autograder.gradescope import archive

    script = tmp_path / "run_otter.py"
    script.write_text(archive.RUN_OTTER)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PDL_")}
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env=environ | {"PYTHONPATH": str(REPO), "PDL_CALL_TIMEOUT": "5"})
    _refused(run, "PDL_CALL_TIMEOUT (in the environment) is not a pdl variable; did you mean PDL_CALL_TIMEOUT_S?",
             "Nothing was graded.")


# -- Settings.load(), wherever it runs -------------------------------------------------------------

def test_settings_load_refuses_as_pdl_does(monkeypatch):
    monkeypatch.delenv("PDL_TIMEOUT_S", raising=False)
    assert Settings.load().limits.timeout_s == float(course_config.TIMEOUT_S)  # valid: as before
    monkeypatch.setenv("PDL_TIMEOUT_S", "120")
    assert Settings.load().limits.timeout_s == 120.0
    monkeypatch.setenv("PDL_TIMEOUT", "120")
    with pytest.raises(schema.SettingsError, match="did you mean PDL_TIMEOUT_S"):
        Settings.load()
    monkeypatch.delenv("PDL_TIMEOUT")
    monkeypatch.setattr(course_config, "LATE_POLCY", {"per_day": 0.1}, raising=False)
    with pytest.raises(schema.SettingsError, match="LATE_POLCY is not a setting; did you mean LATE_POLICY"):
        Settings.load()
    monkeypatch.delattr(course_config, "LATE_POLCY")
    monkeypatch.setattr(course_config, "TIMEOUT_S", "300")
    with pytest.raises(schema.SettingsError, match=r"TIMEOUT_S = '300' \(str\) must be a number > 0"):
        Settings.load()


def _config(**changes) -> types.ModuleType:
    module = types.ModuleType("course_config")
    vars(module).update({k: v for k, v in vars(course_config).items() if not k.startswith("__")})
    for name, value in changes.items():
        if value is _DROP:
            delattr(module, name)
        else:
            setattr(module, name, value)
    return module


_DROP = object()


@pytest.mark.parametrize("changes, says", [
    ({}, ""),
    ({"MEMORY_MB": None, "TIMEOUT_S": 2.5, "GRADESCOPE_COURSE_ID": "123456", "c": object(), "helper_": 1}, ""),
    ({"MEMORY_MB": 0}, "MEMORY_MB = 0 (int) must be an int > 0 or None"),
    ({"CARRY_FORWARD": 0}, "CARRY_FORWARD = 0 (int) must be a bool"),
    ({"HINTS": "always"}, "must be one of lead, tell-after-publication, tell-on-resubmission"),
    ({"MODULES": {"day_b6": ["ex2_1_cumulants", 3]}}, "MODULES['day_b6'][1] = 3 (int) must be a str"),
    ({"CANVAS_ASSIGNMENT_IDS": {1: 2}}, "CANVAS_ASSIGNMENT_IDS: the key 1 (int) must be a str"),
    ({"YEAR": _DROP}, "sets no YEAR"),
    ({"timeout_s": 3}, "timeout_s is not a setting; did you mean TIMEOUT_S?"),
    ({"ISOLATION": "account"}, "set the environment variable PDL_ISOLATION instead"),
    ({"CALL_TIMEOUT": 5}, "did you mean CALL_TIMEOUT_S?"),
])
def test_names_and_types_of_course_config(changes, says):
    problem = schema.module_problem(_config(**changes))
    assert (says in problem and problem) if says else problem == "", problem


@pytest.mark.parametrize("name, value, ok", [
    ("PDL_TIMEOUT_S", "4.5", True), ("PDL_TIMEOUT_S", " ", True), ("PDL_TIMEOUT_S", "0", False),
    ("PDL_TIMEOUT_S", "inf", False), ("PDL_MEMORY_MB", "2048", True), ("PDL_MEMORY_MB", "2048.5", False),
    ("PDL_WALL_FACTOR", "1", True), ("PDL_WALL_FACTOR", "0.5", False), ("PDL_WARM", "off", True),
    ("PDL_WARM", "2", False), ("PDL_ISOLATION", "account", True), ("PDL_ISOLATION", "sandbox", False),
    ("PDL_HINTS", "lead", True), ("PDL_HINTS", "always", False), ("PDL_COURSE_DIR", str(REPO), True),
    ("PDL_COURSE_DIR", "/nonexistent", False), ("PDL_CHROMIUM", "/usr/bin/chromium", True),
    ("PDL_STUDENT_VENV", "0", True), ("PDL_WARMTH", "1", False),
])
def test_values_of_variables(name, value, ok):
    assert (schema.variable_problem(name, value) == "") == ok, schema.variable_problem(name, value)


# -- declared once, and everywhere --------------------------------------------------------------

def _python_files():
    for folder in ("autograder", "tests", "scripts", "benchmarks"):
        yield from (p for p in (CHECKOUT / folder).rglob("*.py")
                    if "__pycache__" not in p.parts and p.name != "test_schema.py")  # its names are wrong on purpose
    yield CHECKOUT / "course_config.py"


def test_every_name_read_is_declared():
    """Every course_config name the engine or the tests read or set (``course_config.X``,
    ``getattr(course_config, "X"...)``, ``monkeypatch.setattr(course_config, "X", ...)``) and every
    PDL_ variable read or set (a string ``"PDL_X"``, a keyword ``PDL_X=``, ``$PDL_X`` in a script,
    ``PDL_X`` in the docs) is declared in the schema."""
    read, variables = set(), set()
    for path in _python_files():
        text = path.read_text()
        if "course_config" not in text and "PDL_" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:  # a corpus of mistakes (benchmarks/) may hold one on purpose
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id == "course_config" and node.attr.isupper():
                read.add(node.attr)
            elif isinstance(node, ast.Call) and len(node.args) > 1 and isinstance(node.args[0], ast.Name) and \
                    node.args[0].id == "course_config" and isinstance(node.args[1], ast.Constant):  # getattr, setattr
                read.add(node.args[1].value)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                variables |= {exact or shell for exact, shell in
                              re.findall(r"^(PDL_[A-Z0-9_]+)$|\$\{?(PDL_[A-Z0-9_]+)", node.value)}
            elif isinstance(node, ast.keyword) and (node.arg or "").startswith("PDL_"):
                variables.add(node.arg)
    for path in [*(CHECKOUT / "scripts").glob("*.sh"), *(CHECKOUT / "docs").glob("*.md"), CHECKOUT / "README.md"]:
        text = re.sub(r"`PDL_[A-Z0-9_]+`: \"did you mean", "", path.read_text())  # a refusal's example
        variables |= set(re.findall(r"(?<![A-Za-z0-9_])PDL_[A-Z0-9_]*[A-Z0-9]", text))
    assert read and variables
    assert read - {"ROOT"} <= set(schema.COURSE_SETTINGS), sorted(read - set(schema.COURSE_SETTINGS))
    assert variables <= set(schema.ENVIRONMENT), sorted(variables - set(schema.ENVIRONMENT))
    assert {"PDL_TIMEOUT_S", "PDL_STUDENT_VENV", "PDL_AUTOGRADER_DIR"} <= variables  # the scan finds them
    assert schema.ENVIRONMENT["PDL_STUDENT_VENV"].tests_only


def test_the_choices_are_the_engines():
    from autograder.run import isolation, settings

    assert schema.ISOLATIONS == isolation.ISOLATIONS
    assert settings.HINT_MODES == schema.COURSE_SETTINGS["HINTS"].choices


def test_the_doc_is_rendered_from_the_schema():
    doc = schema.DOC.read_text()
    assert schema.render_doc(doc) == doc, (f"docs/settings.md's tables differ from autograder/run/schema.py: run "
                                           f"`{schema.WRITE_DOCS}` and commit docs/settings.md")
    for name in [*schema.COURSE_SETTINGS, *schema.ENVIRONMENT]:
        assert f"| `{name}` |" in doc, name
    stale = doc.replace("| `PDL_WARM` |", "| `PDL_WARMER` |")  # a doc out of step is found
    assert schema.render_doc(stale) == doc != stale
