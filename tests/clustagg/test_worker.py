import numpy as np

from clustagg import _worker
from clustagg.clusterers import draw_parameters, fit_labels


class Request:
    def Test(self):
        return True


class MergedComm:
    """Rank 1 of 3 after the merge; the parent (rank 0) broadcast ``payload``."""

    rank, size = 1, 3

    def __init__(self, payload):
        self.payload, self.sent, self.freed = payload, None, False

    def bcast(self, obj, root=0):
        assert obj is None and root == 0
        return self.payload

    def Ibarrier(self):
        return Request()

    def gather(self, obj, root=0):
        self.sent = obj

    def Free(self):
        self.freed = True


class Parent:
    def __init__(self, comm):
        self.comm, self.high, self.disconnected = comm, None, False

    def Merge(self, high):
        self.high = high
        return self.comm

    def Disconnect(self):
        self.disconnected = True


def test_serve_runs_this_ranks_clustering_and_releases_the_parent(points_1000):
    comm = MergedComm((points_1000, 8))
    parent = Parent(comm)
    _worker.serve(parent)
    assert parent.high is True  # the parent is rank 0 of the merged communicator
    assert list(comm.sent) == ["dbscan"]  # ALGORITHMS[1::3]
    np.testing.assert_array_equal(
        comm.sent["dbscan"], fit_labels("dbscan", points_1000, draw_parameters(8)["dbscan"])
    )
    assert comm.freed and parent.disconnected
