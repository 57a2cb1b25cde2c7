import subprocess
import sys

import pytest


@pytest.mark.slow
def test_python_m_clustagg_runs_the_command_line():
    done = subprocess.run([sys.executable, "-m", "clustagg", "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.startswith("usage: python -m clustagg") and "examples:" in done.stdout
    missing = subprocess.run([sys.executable, "-m", "clustagg"], capture_output=True, text=True)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "the following arguments are required: command" in missing.stderr
