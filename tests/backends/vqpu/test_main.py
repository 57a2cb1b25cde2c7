"""``python -m backends.vqpu`` runs :func:`backends.vqpu.cli.main` and exits with its code."""

import subprocess
import sys


def test_module_run_exits_with_the_cli_status():
    result = subprocess.run(
        [sys.executable, "-m", "backends.vqpu", "report"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "error:" in result.stderr


def test_version_names_the_command():
    result = subprocess.run(
        [sys.executable, "-m", "backends.vqpu", "--version"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and result.stdout.startswith("python -m backends.vqpu ")
