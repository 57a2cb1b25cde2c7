"""Suite-wide rules: a test that needs a command gets it, or fails under CI and skips elsewhere.

``@pytest.mark.requires("mpiexec")`` names the commands a test needs on PATH. Without one,
the test fails with the reason when the environment variable ``CI`` is set (a CI run must
run every test of the project's own features, so a missing dependency is the install's
fault), and skips with the same reason elsewhere (a developer's machine may lack it).
"""

import os
import shutil

import pytest

pytest_plugins = ["pytester"]

#: What to do about each command a test may need: the hint that ends the reason.
HINTS = {
    "mpiexec": "pip's mpich puts it beside the python executable (the venv's bin): add that folder to PATH",
}


def in_ci() -> bool:
    """Whether this is a CI run (``CI`` set to anything but empty, 0 or false)."""
    return os.environ.get("CI", "").lower() not in {"", "0", "false"}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "requires(*commands): commands the test needs on PATH (fail under CI, skip elsewhere)"
    )


def pytest_runtest_setup(item):
    for marker in item.iter_markers("requires"):
        for command in marker.args:
            if shutil.which(command) is None:
                reason = f"{command} is not on PATH: {HINTS.get(command, 'install it')}"
                if in_ci():
                    pytest.fail(f"CI={os.environ['CI']}: {reason}", pytrace=False)
                pytest.skip(reason)
