import numpy as np
import pytest

from clustagg import mpi, steps
from clustagg.errors import ClustAggError


@pytest.fixture
def no_mpiexec(monkeypatch, tmp_path):
    """PATH without any mpiexec, in a process that no launcher started."""
    monkeypatch.setenv("PATH", str(tmp_path))
    for variable in mpi._LAUNCHER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


class CountingRequest:
    def __init__(self, pending):
        self.pending, self.tests = pending, 0

    def Test(self):
        self.tests += 1
        return self.tests > self.pending


class BarrierComm:
    def __init__(self, pending):
        self.request = CountingRequest(pending)

    def Ibarrier(self):
        return self.request


def test_idle_barrier_polls_until_the_barrier_completes():
    comm = BarrierComm(pending=3)
    mpi.idle_barrier(comm, interval=0.001)
    assert comm.request.tests == 4


def test_world_is_comm_world():
    from mpi4py import MPI

    assert mpi.world() is MPI.COMM_WORLD


def test_spawning_without_mpiexec_is_refused_before_any_spawn(no_mpiexec):
    with pytest.raises(ClustAggError) as info:
        with mpi.spawned_workers(2):
            pytest.fail("spawned without a process manager")
    message = str(info.value)
    assert "no mpiexec was found on PATH" in message and "mpiexec -n 1 python -m clustagg" in message
    assert "\n" not in message


def test_spawning_is_allowed_with_mpiexec_on_path_or_under_a_launcher(no_mpiexec, monkeypatch, tmp_path):
    monkeypatch.setenv("PMI_RANK", "0")
    mpi.check_spawn()  # started by mpiexec: its process manager spawns
    monkeypatch.delenv("PMI_RANK")
    fake = tmp_path / "mpiexec"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    mpi.check_spawn()


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.requires("mpiexec")
def test_spawned_workers_share_the_cluster_step(points_1000):
    seed = 6
    with mpi.spawned_workers(2) as comm:
        assert (comm.rank, comm.size) == (0, 3)
        comm.bcast((points_1000, seed), root=0)  # what clustagg._worker waits for
        gathered = steps.cluster(points_1000, seed, comm)
    np.testing.assert_array_equal(gathered.labelings, steps.cluster(points_1000, seed).labelings)
