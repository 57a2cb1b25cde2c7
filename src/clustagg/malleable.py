"""The ``malleable`` resource mode: workers are held only while clustering.

Rank 0 alone holds the run. For each cluster phase it spawns ``workers`` processes
(:func:`clustagg.mpi.spawned_workers`), clusters with them, and releases them before the
quantum step. Every phase's output goes to a checkpoint directory
(:class:`clustagg.rounds.RoundFiles`), with ``checkpoint.json`` naming the last
(iteration, phase); a rerun on the same directory resumes from there. Node-seconds:
floor 1 (rank 0), ``1 + workers`` nodes during cluster phases.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from . import steps
from .errors import InvalidParameterError
from .loop import LoopSettings
from .mpi import check_spawn, spawned_workers, world
from .result import AggregationResult
from .rounds import RoundFiles
from .solvers import MWISSolver
from .timeline import Timeline

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
    """

    X: NDArray[np.float64]
    solver: MWISSolver
    loop: LoopSettings
    rounds: RoundFiles
    workers: int

    def cluster(self, i: int) -> None:
        """Spawn the workers, cluster round ``i`` with them and release them."""
        seed = self.rounds.seed + i
        with spawned_workers(self.workers) as comm:
            comm.bcast((self.X, seed), root=0)
            steps.cluster_file(self.X, seed, self.rounds.outputs(i)["cluster"], comm)

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
    phases = MalleablePhases(X, solver, loop, rounds, workers)
    execute = {"cluster": phases.cluster, "quantum": phases.quantum, "score": phases.score}
    nodes = {"cluster": 1 + workers, "quantum": 1, "score": 1}
    return rounds.run(timeline, loop, execute, nodes, "malleable")
