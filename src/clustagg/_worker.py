"""Entry point of the processes the malleable mode spawns (``python -m clustagg._worker``).

A worker merges with its parent, runs its share of one cluster phase
(:func:`clustagg.steps.cluster`) and disconnects, releasing its node.
"""

from mpi4py import MPI

from .steps import cluster

if __name__ == "__main__":
    parent = MPI.Comm.Get_parent()
    comm = parent.Merge(high=True)
    X, seed = comm.bcast(None, root=0)
    cluster(X, seed, comm)
    comm.Free()
    parent.Disconnect()
