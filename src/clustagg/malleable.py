"""The ``malleable`` resource mode: workers are held only while clustering.

Rank 0 alone holds the run. For each cluster phase it spawns ``workers`` processes
(:func:`clustagg.mpi.spawned_workers`), clusters with them, and releases them before the
quantum step. Every phase's output goes to a checkpoint directory
(:class:`clustagg.rounds.RoundFiles`), with ``checkpoint.json`` naming the last
(iteration, phase); a rerun on the same directory resumes from there. Node-seconds:
floor 1 (rank 0), ``1 + workers`` nodes during cluster phases.

Inside a Slurm job (``SLURM_JOB_ID`` set) the mode resizes its real allocation with the
reconfiguration library (:class:`clustagg.reconfiguration.Reconfiguration`): before each
cluster phase it grows to ``1 + workers`` nodes, giving up after ``CLUSTAGG_GROW_TIMEOUT``
seconds (default 30), and Slurm starts one worker on each node added (an ``srun`` step there,
joined over MPI ports); after the phase the workers leave and their nodes are returned, so
the quantum and score steps hold one node. The labels do not depend on the number of workers.

With ``asynchronous=True`` (``--grow async``) the grow does not block: as each quantum step
starts, rank 0 asks Slurm for the next cluster phase's nodes without waiting
(:class:`~clustagg.reconfiguration.Reconfiguration` with ``asynchronous=True``); Slurm grants
them and their workers start while the quantum step runs, and the cluster phase adopts them if
they are ready, else clusters with the nodes it has (the first round's, which no quantum step
precedes, clusters alone unless its request is granted by then). Nodes granted early are held
from their grant on, so the grow's wait is traded for node-seconds.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from . import steps
from .environment import seconds_from_env
from .errors import InvalidParameterError
from .loop import LoopSettings
from .mpi import WORKER_MODULE, check_spawn, spawned_workers, world
from .node_pools import SlurmNodes
from .quantum_step import QuantumStep
from .reconfiguration import Reconfiguration
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
    reconfiguration : Reconfiguration or None
        Grows to ``1 + workers`` nodes (a worker on each added node) before each cluster
        phase and back to one node after it; None: workers are spawned, nothing is resized.
    quantum_step : QuantumStep or None
        Where the quantum step runs (:mod:`clustagg.quantum_step`); None: on rank 0 with
        ``solver``, sleeping ``loop.quantum_delay``.

    The grow is asynchronous when ``reconfiguration.asynchronous``: :meth:`quantum` queues it.
    """

    X: NDArray[np.float64]
    solver: MWISSolver
    loop: LoopSettings
    rounds: RoundFiles
    workers: int
    reconfiguration: Reconfiguration | None = None
    quantum_step: QuantumStep | None = None

    def cluster(self, i: int) -> None:
        """Get the workers (growing the allocation), cluster round ``i`` with them, release both."""
        seed = self.rounds.seed + i
        if self.reconfiguration is None:
            with self._workers(self.workers) as comm:
                if comm is not None:
                    comm.bcast((self.X, seed), root=0)
                steps.cluster_file(self.X, seed, self.rounds.outputs(i)["cluster"], comm)
            return
        try:
            comm = self.reconfiguration.reconfigure(nodes=1 + self.workers)
            assert comm is not None  # rank 0 never leaves
            if comm.size > 1:
                comm.bcast((self.X, seed), root=0)
            steps.cluster_file(
                self.X, seed, self.rounds.outputs(i)["cluster"], comm if comm.size > 1 else None
            )
        finally:
            self.reconfiguration.reconfigure(nodes=1)  # the workers leave, then their nodes go

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
        """The quantum step of round ``i``, where :attr:`quantum_step` says (rank 0 by default).

        With an asynchronous grow, the next cluster phase's nodes are asked for first.
        """
        grow = self.reconfiguration
        if grow is not None and grow.asynchronous and i + 1 < self.loop.max_iter:
            grow.reconfigure(nodes=1 + self.workers)  # queues the request; adopted at the next phase
        if self.quantum_step is not None:
            self.quantum_step(i)
            return
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
    *,
    quantum: Callable[[RoundFiles], QuantumStep] | None = None,
    asynchronous: bool = False,
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
    quantum : callable, optional
        ``quantum(rounds)`` gives the :class:`~clustagg.quantum_step.QuantumStep` of the
        run's files, where the quantum step runs; by default rank 0 runs it with ``solver``.
    asynchronous : bool, default=False
        Inside a Slurm job: ask for the next cluster phase's nodes as each quantum step starts,
        without waiting, and adopt them once granted (see the module's description).

    Returns
    -------
    AggregationResult

    Raises
    ------
    InvalidParameterError
        If started on more than one MPI process.
    ClustAggError
        Outside Slurm, if no process manager can spawn the workers (no ``mpiexec`` on
        ``PATH`` for a run not started by ``mpiexec``), before any file is written.
    """
    size = world().size
    if size != 1:
        raise InvalidParameterError(
            f"mode='malleable' starts on one process and spawns its workers; got {size} processes"
        )
    allocation = slurm_allocation()
    if allocation is None:
        check_spawn()
    rounds = RoundFiles(workdir, X, seed)
    step = None if quantum is None else quantum(rounds)  # a HyperQueue server is reached here
    timeline = Timeline(floor=1)
    reconfiguration = None
    if allocation is not None:
        reconfiguration = Reconfiguration(
            [sys.executable, "-m", WORKER_MODULE],
            max_nodes=1 + workers,
            asynchronous=asynchronous,
            pool=SlurmNodes(allocation),
            workdir=workdir,
            log=allocation.log,
        )
    phases = MalleablePhases(X, solver, loop, rounds, workers, reconfiguration, step)
    execute = {"cluster": phases.cluster, "quantum": phases.quantum, "score": phases.score}
    nodes = {"cluster": 1 + workers, "quantum": 1, "score": 1}
    on = "rank0" if step is None else step.on
    try:
        return rounds.run(timeline, loop, execute, nodes, "malleable", quantum_step_on=on)
    finally:
        if reconfiguration is not None:
            reconfiguration.close()


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
