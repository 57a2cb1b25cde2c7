"""Suite-wide rules: a test that needs something gets it, or fails under CI and skips elsewhere.

``@pytest.mark.requires("mpiexec")`` names the commands a test needs on PATH (a test marked
``mpi`` needs ``mpiexec``), and the
``needs`` fixture checks anything else (``needs(Path("/proc/self").is_dir(), "Linux /proc")``).
When the need is not met, the test fails with the reason when the environment variable
``CI`` is set (a CI run must run every test of the project's own features, so a missing
dependency is the install's fault), and skips with the same reason elsewhere (a
developer's machine may lack it).
"""

import os
import re
import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

#: What to do about each command a test may need: the hint that ends the reason.
HINTS = {
    "mpiexec": "pip's mpich puts it beside the python executable (the venv's bin): add that folder to PATH",
}


def in_ci() -> bool:
    """Whether this is a CI run (``CI`` set to anything but empty, 0 or false)."""
    return os.environ.get("CI", "").lower() not in {"", "0", "false"}


def need(condition: bool, reason: str) -> None:
    """Go on if ``condition``; else fail (under CI) or skip (elsewhere), naming ``reason``."""
    if condition:
        return
    if in_ci():
        pytest.fail(f"CI={os.environ['CI']}: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def needs():
    """``needs(condition, reason)``: the suite's rule for a test's own dependencies."""
    return need


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "requires(*commands): commands the test needs on PATH (fail under CI, skip elsewhere)"
    )


def pytest_runtest_setup(item):
    commands = [command for marker in item.iter_markers("requires") for command in marker.args]
    if item.get_closest_marker("mpi") is not None:  # "mpi: starts mpiexec"
        commands.append("mpiexec")
    for command in dict.fromkeys(commands):
        need(
            shutil.which(command) is not None, f"{command} is not on PATH: {HINTS.get(command, 'install it')}"
        )


GRAPHS = Path(__file__).resolve().parents[1] / "data" / "graphs"


@pytest.fixture
def backwards(tmp_path):
    """``backwards(name)``: the path of a copy of bundled graph NAME with its vertices numbered backwards.

    The Mycielskian bound follows the construction order of a Mycielski graph and settles
    myciel3 to myciel7 at the root; numbered backwards it stays at 3 or 4, so the tests that
    need a search (a tree, a SAT call, a checkpoint) still get one.
    """

    def write(name: str) -> str:
        text = (GRAPHS / f"{name}.col").read_text()
        n = int(re.search(r"^p edge (\d+)", text, re.M).group(1))
        path = tmp_path / f"{name}-backwards.col"
        renumber = lambda m: f"e {n + 1 - int(m[1])} {n + 1 - int(m[2])}"  # noqa: E731
        path.write_text(re.sub(r"^e (\d+) (\d+)", renumber, text, flags=re.M))
        return str(path)

    return write
