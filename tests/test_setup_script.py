"""scripts/setup.sh (run by demo.sh and test.sh) says what it does at each step (issue 23, item 9):
its first run, minutes of installing, is never silent. Run here on a copy whose .venv holds a
stand-in python that records how it was called (nothing is installed)."""

import shutil
import subprocess

import pytest

from autograder.run.paths import REPO

FAKE_PYTHON = """#!/usr/bin/env bash
echo "$*" >> "$(dirname "$0")/calls.log"
"""


def _setup(root):
    return subprocess.run(["bash", "-c", "source scripts/setup.sh && echo \"PATH=$PATH\""], cwd=root, check=False,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_setup_says_each_step_and_shows_pips_progress_the_first_time(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "python").write_text(FAKE_PYTHON)
    (bin_ / "python").chmod(0o755)

    first = _setup(tmp_path)
    assert first.returncode == 0, first.stderr
    steps = [line for line in first.stdout.splitlines() if line.startswith("setup [")]
    assert [s.split("]: ", 1)[1].split(" (")[0] for s in steps] == [
        "upgrading pip", "installing the course and its dependencies into .venv",
        "checking that the course tools import", "done"]
    assert all(s.split(" s]: ")[0].removeprefix("setup [").isdigit() for s in steps)
    calls = (bin_ / "calls.log").read_text().splitlines()
    assert "-m pip install -e .[dev]" in calls  # not --quiet: pip's progress shows
    assert f"PATH={bin_}:" in first.stdout

    (bin_ / "pdl").write_text("")  # installed: later runs check quietly
    (bin_ / "pdl").chmod(0o755)
    (bin_ / "calls.log").unlink()
    again = _setup(tmp_path)
    assert again.returncode == 0, again.stderr
    assert [line.split("]: ", 1)[1] for line in again.stdout.splitlines() if line.startswith("setup [")] == [
        "checking the installation in .venv", "checking that the course tools import", "done"]
    assert "-m pip install --quiet -e .[dev]" in (bin_ / "calls.log").read_text().splitlines()


SLOW_PYTHON = """#!/usr/bin/env bash
echo "$*" >> "$(dirname "$0")/calls.log"
case "$*" in *"install -e .[dev]"*)
  echo "Installing collected packages: numpy, torch"
  sleep 12
  echo "  /tmp/x/editable_wheel.py:354: BuildBackendWarning: Editable installation." >&2
  echo "  !!" >&2
  echo "          Please be careful with folders in your working directory with the same" >&2
  echo "  !!" >&2
  echo "    with strategy, WheelFile(wheel_path, 'w') as wheel_obj:" >&2
  echo "Successfully installed numpy torch";;
esac
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_long_install_is_never_silent_and_setuptools_banner_is_dropped(tmp_path):
    """pip's silent unpacking gets a line every 10 s; setuptools' editable-install banner, which
    reads like an error, is left out; pip's own lines are kept (issue 37, item 5)."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "python").write_text(SLOW_PYTHON)
    (bin_ / "python").chmod(0o755)
    done = _setup(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "pip is still at work" in done.stdout
    assert "Installing collected packages" in done.stdout and "Successfully installed" in done.stdout
    assert "BuildBackendWarning" not in done.stderr + done.stdout and "!!" not in done.stderr
    assert "Please be careful" not in done.stderr
