"""Fixtures of the vQPU tests; helpers live in ``vqpu_helpers`` beside this file."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from backends import get_backend  # noqa: E402


@pytest.fixture(scope="session")
def physical():
    """The physical device of the in-thread servers: Aer, 5 qubits (an Adonis-sized QPU)."""
    return get_backend("aer", num_qubits=5, seed=11)
