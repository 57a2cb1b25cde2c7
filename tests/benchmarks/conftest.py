"""Shared checks of the benchmark scripts' command lines."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def assert_refused():
    """Check that ``benchmarks/SCRIPT OPTION VALUE`` exits 2 with one line naming the option as an integer."""

    def check(script: str, option: list[str]) -> None:
        command = [sys.executable, str(ROOT / "benchmarks" / script), *option]
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=50)
        assert result.returncode == 2 and result.stdout == ""
        (last,) = result.stderr.strip().splitlines()[-1:]
        assert last.startswith(f"{script}: error: argument {option[0]}: must be an integer")

    return check
