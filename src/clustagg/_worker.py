"""Entry point of the malleable mode's workers (``python -m clustagg._worker``).

Started by Slurm on a node the job has grown onto (``srun``, :mod:`clustagg.reconfiguration`),
a worker joins at its first reconfiguration point, runs its share of one cluster phase
(:func:`clustagg.steps.cluster`) and leaves at the next one, before its node is returned
(:func:`serve_reconfiguration`). Spawned outside Slurm, it merges with its parent instead
(:func:`serve`; the parent's side is :func:`clustagg.mpi.spawned_workers`). Each worker
reports on stderr the node Slurm started it on (``SLURMD_NODENAME``).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from .reconfiguration import NODE_ENV, READY_ENV, Reconfiguration
from .steps import cluster

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = ["main", "serve", "serve_reconfiguration"]


def serve(parent: MPI.Intercomm) -> None:
    """Run this worker's share of one cluster phase for ``parent``, then disconnect.

    Parameters
    ----------
    parent : mpi4py.MPI.Intercomm
        Intercommunicator to the spawning process, which broadcasts
        ``(X, seed)``: points of shape (n_samples, n_features) and the round's seed.
    """
    comm = parent.Merge(high=True)
    X, seed = comm.bcast(None, root=0)
    cluster(X, seed, comm)
    comm.Free()
    parent.Disconnect()


def _report(event: str, rank: int, size: int) -> None:
    """One line on stderr: the event, this worker's rank, and where Slurm started it."""
    where = os.environ.get("SLURMD_NODENAME", "?")
    node = os.environ.get(NODE_ENV, "?")
    print(
        f"clustagg worker: {event} rank={rank}/{size} SLURMD_NODENAME={where} node={node}",
        file=sys.stderr,
        flush=True,
    )


def serve_reconfiguration() -> None:
    """Join the grow, run this worker's share of the cluster phase, leave at the shrink."""
    reconfiguration = Reconfiguration()
    comm = reconfiguration.reconfigure()
    assert comm is not None
    rank, size = comm.rank, comm.size
    _report("joined", rank, size)
    X, seed = comm.bcast(None, root=0)
    cluster(X, seed, comm)
    left = reconfiguration.reconfigure() is None
    _report("leaving" if left else "still running", rank, size)


def main() -> None:
    """Join a reconfiguration (started by the library) or serve the spawning parent."""
    if READY_ENV in os.environ:
        serve_reconfiguration()
        return
    from mpi4py import MPI

    serve(MPI.Comm.Get_parent())


if __name__ == "__main__":
    main()
