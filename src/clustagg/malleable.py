"""The ``malleable`` resource mode: workers are held only while clustering.

Rank 0 alone holds the run. For each cluster phase it spawns ``workers`` processes
(:func:`clustagg.mpi.spawned_workers`), clusters with them, and releases them before the
quantum step. Every phase's output goes to a checkpoint directory
(:class:`clustagg.rounds.RoundFiles`), with ``checkpoint.json`` naming the last
(iteration, phase); a rerun on the same directory resumes from there. Node-seconds:
floor 1 (rank 0), ``1 + workers`` nodes during cluster phases.

Inside a Slurm job (``SLURM_JOB_ID`` set) the mode also resizes its real allocation
(:class:`clustagg.slurm.SlurmAllocation`): before each cluster phase it grows to
``1 + workers`` nodes, giving up after ``CLUSTAGG_GROW_TIMEOUT`` seconds (default 30) and
spawning as many workers as it got nodes beyond the first; after it, it shrinks to one
node for the quantum and score steps. The labels do not depend on the number of workers.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from . import steps
from .environment import seconds_from_env
from .errors import InvalidParameterError
from .loop import LoopSettings
from .mpi import check_spawn, spawned_workers, world
from .result import AggregationResult
from .rounds import RoundFiles
from .slurm import SlurmAllocation
from .solvers import MWISSolver
from .timeline import Timeline

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = ["MalleablePhases", "run_malleable"]


@dataclass(frozen=True)
class MalleablePhases:
    """The three phases of a malleable round, each writing its output to ``rounds``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    solver : MWISSolver
    loop : LoopSettings
    rounds : RoundFiles
        The checkpoint directory; round ``i`` has seed ``rounds.seed + i``.
    workers : int
        Processes spawned for each cluster phase.
    allocation : SlurmAllocation or None
        Nodes to grow to ``1 + workers`` before each cluster phase and to shrink back
        after it; None: no resizing.
    """

    X: NDArray[np.float64]
    solver: MWISSolver
    loop: LoopSettings
    rounds: RoundFiles
    workers: int
    allocation: SlurmAllocation | None = None

    def cluster(self, i: int) -> None:
        """Grow the allocation, spawn the workers, cluster round ``i`` with them, release both."""
        seed = self.rounds.seed + i
        workers = self.workers
        if self.allocation is not None:
            workers = self.allocation.grow(1 + self.workers) - 1
        try:
            with self._workers(workers) as comm:
                if comm is not None:
                    comm.bcast((self.X, seed), root=0)
                steps.cluster_file(self.X, seed, self.rounds.outputs(i)["cluster"], comm)
        finally:
            if self.allocation is not None:
                self.allocation.shrink()

    @staticmethod
    @contextlib.contextmanager
    def _workers(workers: int) -> Iterator[MPI.Intracomm | None]:
        """:func:`spawned_workers`, or None (rank 0 clusters alone) when there are none."""
        if workers < 1:
            yield None
            return
        with spawned_workers(workers) as comm:
            yield comm

    def quantum(self, i: int) -> None:
        """The quantum step of round ``i``, on rank 0 alone."""
        out = self.rounds.outputs(i)
        steps.aggregate_file(
            out["cluster"],
            self.rounds.seed + i,
            out["quantum"],
            self.solver,
            quantum_delay=self.loop.quantum_delay,
        )

    def score(self, i: int) -> None:
        """The score step of round ``i``, on rank 0 alone."""
        out = self.rounds.outputs(i)
        steps.score_file(
            self.X,
            out["cluster"],
            out["quantum"],
            self.rounds.seed + i,
            out["score"],
            self.rounds.labels(i),
            sample_size=self.loop.sample_size,
            **self.rounds.previous(i),
        )


def run_malleable(
    X: NDArray[np.float64],
    solver: MWISSolver,
    seed: int,
    loop: LoopSettings,
    workdir: Path,
    workers: int,
) -> AggregationResult:
    """Run the loop on one process that spawns ``workers`` processes per cluster phase.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    solver : MWISSolver
    seed : int
        The run's seed; round ``i`` uses ``seed + i``.
    loop : LoopSettings
    workdir : Path
        Checkpoint directory; rerunning on it resumes.
    workers : int
        Processes spawned per cluster phase.

    Returns
    -------
    AggregationResult

    Raises
    ------
    InvalidParameterError
        If started on more than one MPI process.
    ClustAggError
        If no process manager can spawn the workers (no ``mpiexec`` on ``PATH`` for a run
        not started by ``mpiexec``), before any file is written.
    """
    size = world().size
    if size != 1:
        raise InvalidParameterError(
            f"mode='malleable' starts on one process and spawns its workers; got {size} processes"
        )
    check_spawn()
    rounds = RoundFiles(workdir, X, seed)
    timeline = Timeline(floor=1)
    phases = MalleablePhases(X, solver, loop, rounds, workers, slurm_allocation())
    execute = {"cluster": phases.cluster, "quantum": phases.quantum, "score": phases.score}
    nodes = {"cluster": 1 + workers, "quantum": 1, "score": 1}
    return rounds.run(timeline, loop, execute, nodes, "malleable")


def slurm_allocation() -> SlurmAllocation | None:
    """The allocation of the Slurm job this process runs in (None outside Slurm).

    Its partition is ``SLURM_JOB_PARTITION``; ``CLUSTAGG_GROW_TIMEOUT`` sets the seconds a
    grow may wait for free nodes (default 30). Resizes are logged on stderr.

    Raises
    ------
    InvalidParameterError
        If ``CLUSTAGG_GROW_TIMEOUT`` is set but not a positive number of seconds.
    """
    job = os.environ.get("SLURM_JOB_ID")
    if not job:
        return None
    timeout = seconds_from_env("CLUSTAGG_GROW_TIMEOUT") or 30.0
    return SlurmAllocation(
        job,
        os.environ.get("SLURM_JOB_PARTITION", ""),
        timeout,
        log=lambda line: print(f"clustagg: {line}", file=sys.stderr, flush=True),
    )
