"""MPI layout of the cluster step: the ranks that share it and the workers spawned for it.

* ``baseline`` runs on ``MPI.COMM_WORLD`` (:func:`world`): rank ``r`` of ``p`` runs
  ``ALGORITHMS[r::p]`` and rank 0 gathers the labels (:func:`clustagg.steps.cluster`).
* ``malleable`` starts on one process, which spawns workers for each cluster phase and
  merges them into one intracommunicator with itself as rank 0 (:func:`spawned_workers`);
  each worker runs :mod:`clustagg._worker` and disconnects afterwards, releasing its node.

``mpi4py.MPI`` is imported only inside these functions: importing it initialises MPI,
which the workflow mode and the other modules never need.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = ["WORKER_MODULE", "idle_barrier", "spawned_workers", "world"]

#: Module each spawned worker runs (``python -m clustagg._worker``).
WORKER_MODULE = "clustagg._worker"


def world() -> MPI.Intracomm:
    """``MPI.COMM_WORLD`` (imports and so initialises MPI)."""
    from mpi4py import MPI

    return MPI.COMM_WORLD


def idle_barrier(comm: MPI.Comm, interval: float = 0.005) -> None:
    """Barrier at which waiting ranks sleep instead of spinning.

    MPICH busy-polls in blocking calls, so a rank waiting for others would steal a core
    from them whenever ranks share cores (three ranks on two cores, say).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    interval : float, default=0.005
        Seconds between two tests of the barrier.
    """
    request = comm.Ibarrier()
    while not request.Test():
        time.sleep(interval)


@contextlib.contextmanager
def spawned_workers(workers: int, module: str = WORKER_MODULE) -> Iterator[MPI.Intracomm]:
    """Spawn ``workers`` processes running ``python -m module`` and merge them with this one.

    Parameters
    ----------
    workers : int
        Processes to spawn.
    module : str, default="clustagg._worker"

    Yields
    ------
    mpi4py.MPI.Intracomm
        Of size ``1 + workers``; this process is rank 0. On exit it is freed and the
        workers are disconnected, so they exit and release their nodes.
    """
    from mpi4py import MPI

    inter = MPI.COMM_SELF.Spawn(sys.executable, args=["-m", module], maxprocs=workers)
    comm = inter.Merge(high=False)
    try:
        yield comm
    finally:
        comm.Free()
        inter.Disconnect()
