"""Fixtures of the vQPU tests; helpers live in ``vqpu_helpers`` beside this file."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from backends import get_backend  # noqa: E402


@pytest.fixture(scope="session")
def physical():
    """The physical device of the in-thread servers: Aer, 5 qubits (an Adonis-sized QPU)."""
    return get_backend("aer", num_qubits=5, seed=11)


@pytest.fixture(scope="session")
def munged(tmp_path_factory):
    """A munged on a socket of its own (its key made here); stopped after the session."""
    if shutil.which("munged") is None:
        pytest.fail("munged is not installed: run 'bash examples/slurm/install.sh'")
    folder = tmp_path_factory.mktemp("munge")
    folder.chmod(0o700)
    key = folder / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    socket = str(folder / "munge.socket")
    subprocess.run(
        ["munged", "--force", f"--socket={socket}", f"--key-file={key}", f"--pid-file={folder / 'pid'}",
         f"--log-file={folder / 'log'}", f"--seed-file={folder / 'seed'}"],
        check=True, timeout=30,
    )  # fmt: skip
    yield socket
    subprocess.run(["munged", f"--socket={socket}", "--stop"], timeout=30, capture_output=True)
