"""Fixtures of the vQPU tests; helpers live in ``vqpu_helpers`` beside this file."""

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from vqpu_helpers import private_munged  # noqa: E402

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
    with private_munged(tmp_path_factory.mktemp("munge")) as socket:
        yield socket
