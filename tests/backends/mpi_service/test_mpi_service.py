"""The MPI quantum service and its client, launched with mpiexec (no Slurm needed)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backends import get_backend
from backends.errors import BackendConnectionError, InvalidParameterError
from backends.mpi_service.names import PORT_DIR_VARIABLE, lookup

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


def test_lookup_gives_up_after_its_timeout(monkeypatch, tmp_path):
    monkeypatch.setenv(PORT_DIR_VARIABLE, str(tmp_path))
    with pytest.raises(
        BackendConnectionError, match=f"no MPI quantum service named 'nobody' found in {tmp_path}"
    ):
        lookup("nobody", timeout=0.2)


@pytest.mark.parametrize("arguments", [["serve"], ["serve", "--backend", "aer", "--clients", "x"], ["stop"]])
def test_cli_bad_input_is_one_line_and_status_2(arguments, env):
    done = subprocess.run(
        [sys.executable, "-m", "backends.mpi_service", *arguments], env=env, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "error:" in done.stderr


def test_cli_bad_backend_spec_is_one_line_and_status_2(env):
    done = subprocess.run([*SERVE[:-1], "nonsense", "--name", "q"], env=env, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "python -m backends.mpi_service: error: " + done.stderr.split("error: ", 1)[1].strip()
    ]
    assert "unknown backend spec 'nonsense'" in done.stderr


@pytest.mark.mpi
@pytest.mark.timeout(120)
def test_probe_says_goodbye_at_exit_so_the_service_stops(env):
    probe = [sys.executable, "-m", "backends.mpi_service", "probe", "--backend", "mpi:world", "--shots", "64"]
    done = subprocess.run(
        ["mpiexec", "-n", "1", *probe, ":", "-n", "1", *SERVE],
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    probed = next(line for line in lines if "counts" in line)
    assert set(probed["counts"]) <= {"000", "111"} and sum(probed["counts"].values()) == 64
    assert next(line for line in lines if "stopped" in line)["stopped"] == "goodbye"
