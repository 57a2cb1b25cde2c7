"""Shared checks of the benchmark scripts' command lines."""

import json
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


@pytest.fixture
def run_benchmark():
    """Run ``benchmarks/SCRIPT ARGS`` in a subprocess; return its stdout lines and its final JSON line."""

    def run(script: str, *args: str, timeout: float = 110) -> tuple[list[str], dict]:
        command = [sys.executable, str(ROOT / "benchmarks" / script), *args]
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        assert result.returncode == 0, result.stderr[-3000:]
        lines = result.stdout.strip().splitlines()
        return lines, json.loads(lines[-1])

    return run
