"""A user's own MPI program made malleable with clustagg.reconfiguration (docs/tutorials/malleable-mpi.md).

The program sums a distributed array, step after step. Before each step it calls the
library's reconfiguration point with the node count its plan asks for; the library grows or
shrinks the Slurm job, starts or stops one worker per node (``srun`` on that node) and
returns the new communicator; ``redistribute`` moves the array's pieces. Rank 0 prints one
JSON line per step (the node each rank runs on, the sum) and, at the end, one line with the
resizes' timings. Workers run this same file: their first reconfiguration point joins.

    sbatch -p cpu -N 1 --wrap "python malleable_sum.py --plan 3,3,1,1"
    sbatch -p cpu -N 1 --wrap "python malleable_sum.py --plan 3,3,3,1 --asynchronous --work 0.5"

Outside Slurm the workers are local processes on virtual nodes (``local1``...).
"""

import argparse
import json
import os
import sys
import time

import numpy as np

from clustagg.reconfiguration import Change, Reconfiguration


class Pieces:
    """The piece of the array this process holds, and the step the program is at."""

    def __init__(self, total: int, start: bool) -> None:
        self.piece = np.arange(total, dtype=np.int64) if start else np.empty(0, dtype=np.int64)
        self.step = 0

    def redistribute(self, comm, change: Change) -> None:
        """Called by the library on every process of the old and new communicator together."""
        gathered = comm.gather(self.piece, root=0)
        whole = np.concatenate(gathered) if comm.rank == 0 else None
        parts = (
            np.array_split(whole, change.new_size) + [whole[:0]] * change.removed
            if whole is not None
            else None
        )
        self.piece = comm.scatter(parts, root=0)
        self.step = comm.bcast(self.step, root=0)


def where() -> str:
    """The node Slurm started this process on (the virtual node outside Slurm)."""
    return os.environ.get("SLURMD_NODENAME") or os.environ.get("RECONFIGURATION_NODE", "local0")


def main() -> None:
    """Sum the array step by step, resizing the job before each step as ``--plan`` says."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", default="3,3,1,1", help="nodes wanted before each step")
    parser.add_argument("--total", type=int, default=1_000_000, help="length of the array")
    parser.add_argument("--work", type=float, default=0.0, help="seconds of (simulated) work per step")
    parser.add_argument("--asynchronous", action="store_true", help="queue grows, adopt nodes later")
    args = parser.parse_args()
    plan = [int(n) for n in args.plan.split(",")]
    log = lambda line: print(f"reconfiguration: {line}", file=sys.stderr, flush=True)  # noqa: E731
    with Reconfiguration(
        min_nodes=1, max_nodes=max(plan), asynchronous=args.asynchronous, log=log
    ) as reconfiguration:
        pieces = Pieces(args.total, start=not reconfiguration.joining)
        while pieces.step < len(plan):
            comm = reconfiguration.reconfigure(pieces.redistribute, nodes=plan[pieces.step])
            if comm is None:
                return  # this worker's node is being released: leave
            total = comm.allreduce(int(pieces.piece.sum()))
            nodes = comm.gather(where(), root=0)
            time.sleep(args.work)
            if comm.rank == 0:
                print(json.dumps({"step": pieces.step, "nodes": nodes, "sum": total}), flush=True)
            pieces.step += 1
    if reconfiguration.history:  # rank 0
        history = [{**vars(r), "seconds": r.seconds} for r in reconfiguration.history]
        print(json.dumps({"history": history}), flush=True)


if __name__ == "__main__":
    main()
