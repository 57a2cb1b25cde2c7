"""The suite's ``requires`` marker: a missing command fails a CI run and skips elsewhere."""

from pathlib import Path

import pytest

CONFTEST = (Path(__file__).parent / "conftest.py").read_text()
TEST = """
import pytest

@pytest.mark.requires("no-such-command-xyz", "sh")
def test_needs_a_command():
    pass

@pytest.mark.requires("sh")
def test_has_its_command():
    pass

@pytest.mark.mpi
def test_starts_mpiexec():
    pass
"""


@pytest.mark.parametrize(("ci", "errors", "skipped"), [("true", 2, 0), (None, 0, 2), ("false", 0, 2)])
def test_a_missing_command_fails_under_ci_and_skips_elsewhere(pytester, monkeypatch, ci, errors, skipped):
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # sh is there, mpiexec (pip's mpich) is not
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nmarkers =\n    mpi: starts mpiexec\n")
    pytester.makepyfile(TEST)
    result = pytester.runpytest("-rsf", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=errors, skipped=skipped)  # a setup failure is an error
    result.stdout.fnmatch_lines(
        ["*no-such-command-xyz is not on PATH: install it*", "*mpiexec is not on PATH: pip's mpich*"]
    )
