"""The mpi: client backend: specs, non-blocking submit and results in a shared world."""

import json
import subprocess
import sys

import pytest

from backends import get_backend
from backends.utils.errors import InvalidParameterError

from .conftest import SERVE, check_client_output, client


@pytest.mark.mpi
@pytest.mark.slow
@pytest.mark.timeout(120)
def test_shared_world_service_answers_with_nonblocking_receives(tmp_path, env):
    out = tmp_path / "client.json"
    stats = tmp_path / "stats.json"
    command = ["mpiexec", "-n", "1", *client("mpi:world", out), ":", "-n", "1", *SERVE]
    done = subprocess.run(
        [*command, "--latency", "0.3", "--stats", str(stats)],
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert done.returncode == 0, done.stderr
    check_client_output(out)
    assert json.loads(stats.read_text()) | {"busy_seconds": 0, "wall_seconds": 0} == {
        "clients": 1,
        "requests": 2,
        "circuits": 3,
        "busy_seconds": 0,
        "wall_seconds": 0,
        "stopped": "goodbye",
    }


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mpi:bad name", "service name must be 1 to 64 letters"),
        ("mpi:world:x", "spec 'mpi:world:RANK' needs RANK >= 0, got 'x'"),
    ],
)
def test_malformed_specs_are_refused(spec, message):
    with pytest.raises(InvalidParameterError, match=message):
        get_backend(spec)


def test_a_singleton_cannot_be_its_own_service(env):
    code = "from backends import get_backend; get_backend('mpi:world')"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert "needs a service rank in 0..0 other than this process's rank 0, got 0" in done.stderr
