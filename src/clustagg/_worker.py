"""Entry point of the processes the malleable mode spawns (``python -m clustagg._worker``).

A worker merges with its parent, runs its share of one cluster phase
(:func:`clustagg.steps.cluster`) and disconnects, releasing its node. The parent's side
is :func:`clustagg.mpi.spawned_workers`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .steps import cluster

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = ["main", "serve"]


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


def main() -> None:
    """Serve the parent process (``MPI.Comm.Get_parent()``)."""
    from mpi4py import MPI

    serve(MPI.Comm.Get_parent())


if __name__ == "__main__":
    main()
