"""MPI layout of the cluster step: the ranks that share it and the workers spawned for it.

* ``baseline`` runs on ``MPI.COMM_WORLD`` (:func:`world`): rank ``r`` of ``p`` runs
  ``ALGORITHMS[r::p]`` and rank 0 gathers the labels (:func:`clustagg.steps.cluster`).
* ``malleable`` starts on one process, which spawns workers for each cluster phase and
  merges them into one intracommunicator with itself as rank 0 (:func:`spawned_workers`);
  each worker runs :mod:`clustagg._worker` and disconnects afterwards, releasing its node.

``mpi4py.MPI`` is imported only inside these functions: importing it initialises MPI,
which the workflow mode and the other modules never need.

Spawning needs a process manager. A process started by ``mpiexec`` has one; a process
started alone (an MPI "singleton") gets one by running ``mpiexec`` from ``PATH`` when it
first spawns, and MPICH then waits forever if there is none. :func:`check_spawn` refuses
that case beforehand, with a message that says how to fix it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .errors import ClustAggError

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = ["WORKER_MODULE", "check_spawn", "idle_barrier", "spawned_workers", "world"]

#: Module each spawned worker runs (``python -m clustagg._worker``).
WORKER_MODULE = "clustagg._worker"

#: Variables a process manager (MPICH's hydra, PMIx, Open MPI) sets in the processes it starts.
_LAUNCHER_VARIABLES = ("PMI_RANK", "PMI_FD", "PMI_PORT", "PMIX_RANK", "OMPI_COMM_WORLD_RANK")


def check_spawn() -> None:
    """Refuse to spawn when no process manager can start the workers.

    Raises
    ------
    ClustAggError
        If this process was not started by ``mpiexec`` and no ``mpiexec`` is on ``PATH``
        (an MPI singleton would wait forever for one at the first spawn).
    """
    if any(variable in os.environ for variable in _LAUNCHER_VARIABLES):
        return
    if shutil.which("mpiexec") is None:
        raise ClustAggError(
            "mode='malleable' spawns its workers with MPI_Comm_spawn, which needs mpiexec on PATH "
            "when the run is not started by mpiexec; no mpiexec was found on PATH: add the folder "
            "of your MPI's mpiexec to PATH (pip's mpich puts it next to the python executable), "
            "or start the run as mpiexec -n 1 python -m clustagg ..."
        )


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

    Raises
    ------
    ClustAggError
        If no process manager can start the workers (:func:`check_spawn`).
    """
    check_spawn()
    from mpi4py import MPI

    inter = MPI.COMM_SELF.Spawn(sys.executable, args=["-m", module], maxprocs=workers)
    comm = inter.Merge(high=False)
    try:
        yield comm
    finally:
        comm.Free()
        inter.Disconnect()
