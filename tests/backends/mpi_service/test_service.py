"""The service loop over DPM: clients one after another, shutdown, unpublished port."""

import json
import subprocess

import pytest

from .conftest import SERVE, check_client_output, client


@pytest.mark.mpi
@pytest.mark.slow
@pytest.mark.timeout(150)
def test_dpm_service_serves_clients_one_after_another_until_shut_down(tmp_path, env):
    stats = tmp_path / "stats.json"
    service = subprocess.Popen(
        ["mpiexec", "-n", "1", *SERVE, "--name", "qpu", "--clients", "5", "--latency", "0.3"]
        + ["--stats", str(stats)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for name, extra in (("first", ()), ("second", ("--shutdown",))):
            out = tmp_path / f"{name}.json"
            done = subprocess.run(
                ["mpiexec", "-n", "1", *client("mpi:qpu", out, *extra)],
                env=env,
                capture_output=True,
                text=True,
            )
            assert done.returncode == 0, done.stderr
            check_client_output(out)
        assert service.wait(timeout=60) == 0, service.stderr.read()
    finally:
        service.kill()
    summary = json.loads(stats.read_text())
    assert (summary["clients"], summary["requests"], summary["stopped"]) == (2, 4, "shutdown")
    assert not (tmp_path / "ports" / "qpu.port").exists()  # unpublished when it stopped
