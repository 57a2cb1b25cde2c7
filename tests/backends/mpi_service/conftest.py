"""Shared helpers of the MPI service tests: the environment of launched programs and the client job."""

import json
import os
import sys
from pathlib import Path

import pytest

from backends import get_backend
from backends.mpi_service.names import PORT_DIR_VARIABLE

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
SERVE = [sys.executable, "-m", "backends.mpi_service", "serve", "--backend", "aer"]


@pytest.fixture
def env(tmp_path):
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
        PORT_DIR_VARIABLE: str(tmp_path / "ports"),
    }


def client(spec, out, *extra):
    return [sys.executable, str(HERE / "client_job.py"), spec, str(out), *extra]


def check_client_output(path):
    result = json.loads(path.read_text())
    # the service's Aer gives exactly the counts of a local Aer with the same seeds
    assert result["counts"] == result["local"]
    assert result["blocking"] == result["local_blocking"]
    assert set(result["counts"][0]) <= {"000", "111"} and sum(result["counts"][0].values()) == 500
    assert result["steps"] > 0  # the classical rank kept working while the batch was pending
    assert result["timing"] >= 0.3  # the service's latency is the record's quantum time
    assert result["device"] == ["aer", get_backend("aer").num_qubits]
    return result
