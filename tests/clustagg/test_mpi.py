import numpy as np
import pytest

from clustagg import mpi, steps


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


@pytest.mark.slow
@pytest.mark.mpi
def test_spawned_workers_share_the_cluster_step(points_1000):
    seed = 6
    with mpi.spawned_workers(2) as comm:
        assert (comm.rank, comm.size) == (0, 3)
        comm.bcast((points_1000, seed), root=0)  # what clustagg._worker waits for
        gathered = steps.cluster(points_1000, seed, comm)
    np.testing.assert_array_equal(gathered.labelings, steps.cluster(points_1000, seed).labelings)
