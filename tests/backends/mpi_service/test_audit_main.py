"""Audit fixes of the command line: bad input is refused up front, nothing waits forever."""

import math
import subprocess
import sys

import pytest

from backends.mpi_service.client import MPIServiceBackend
from backends.utils.errors import InvalidParameterError

PROG = "python -m backends.mpi_service"


def run_cli(*arguments, env):
    return subprocess.run(
        [sys.executable, "-m", "backends.mpi_service", *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_serve_refuses_a_stats_file_in_a_missing_folder_before_serving(env, tmp_path):
    stats = tmp_path / "missing" / "s.json"
    done = run_cli("serve", "--backend", "aer", "--name", "q", "--stats", str(stats), env=env)
    assert done.returncode == 2
    assert done.stderr == f"{PROG}: error: --stats {stats}: folder {stats.parent} does not exist\n"
    assert not (tmp_path / "ports").exists()  # nothing was published


def test_serve_refuses_a_directory_as_stats_file(env, tmp_path):
    done = run_cli("serve", "--backend", "aer", "--name", "q", "--stats", str(tmp_path), env=env)
    assert done.returncode == 2
    assert done.stderr == f"{PROG}: error: --stats {tmp_path}: is a directory\n"


def test_serve_without_name_alone_in_its_world_is_refused(env):
    done = run_cli("serve", "--backend", "aer", env=env)
    assert done.returncode == 2
    assert done.stderr == (
        f"{PROG}: error: serving MPI_COMM_WORLD needs client ranks, but this process is its only "
        "rank; start the clients in the same launch (mpiexec ... : ...) or publish the service "
        "under a name (--name)\n"
    )


def test_probe_gives_up_after_its_timeout(env):
    done = run_cli("probe", "--backend", "mpi:nosuch", "--timeout", "0.2", env=env)
    assert done.returncode == 2
    port_file = f"{env['BBQMIS_MPI_PORTS']}/nosuch.port"
    assert done.stderr == (
        f"{PROG}: error: no MPI quantum service named 'nosuch' found in {port_file} within 0.2 s\n"
    )


def test_probe_timeout_defaults_to_10_seconds():
    from backends.mpi_service.__main__ import build_parser

    args = build_parser().parse_args(["probe", "--backend", "mpi:qpu"])
    assert args.timeout == 10.0


@pytest.mark.parametrize("shots", ["0", "-3"])
def test_probe_checks_shots_before_connecting(env, shots):
    done = run_cli("probe", "--backend", "mpi:nosuch", "--shots", shots, env=env)
    assert done.returncode == 2
    assert done.stderr == (
        f"{PROG} probe: error: argument --shots: must be an integer in [1, 2147483647], got '{shots}'\n"
    )


@pytest.mark.parametrize("command", ["shutdown", "probe"])
@pytest.mark.parametrize("timeout", ["nan", "-1", "inf"])
def test_timeout_must_be_a_finite_number_of_seconds(env, command, timeout):
    target = ["--name", "qpu"] if command == "shutdown" else ["--backend", "mpi:qpu"]
    done = run_cli(command, *target, "--timeout", timeout, env=env)
    assert done.returncode == 2
    assert done.stderr == (
        f"{PROG} {command}: error: argument --timeout: must be a number in [0, 1000000000], got '{timeout}'\n"
    )


@pytest.mark.parametrize("timeout", [math.nan, -1.0, math.inf])
def test_client_refuses_a_bad_timeout_before_touching_mpi(timeout):
    with pytest.raises(InvalidParameterError) as info:
        MPIServiceBackend("qpu", timeout=timeout)
    assert str(info.value) == f"timeout must be a finite number >= 0, got {timeout!r}"
