"""Lint, format and type checks run with the suite, so the one test command covers them."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ["src", "tests", "benchmarks"]


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_finds_no_lint():
    result = run("ruff", "check", *CHECKED)
    assert result.returncode == 0, result.stdout + result.stderr


def test_code_is_ruff_formatted():
    result = run("ruff", "format", "--check", *CHECKED)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_finds_no_type_error():
    result = run("mypy", "--no-incremental")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr
    assert "Success: no issues found" in result.stdout
