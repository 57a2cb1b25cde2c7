"""The ``baseline`` resource mode: every rank is held for the whole run.

Under ``mpiexec -n 3`` each rank runs one base clustering per round
(:func:`clustagg.steps.cluster`); rank 0 alone runs the quantum and score steps while the
other ranks wait at an :func:`~clustagg.mpi.idle_barrier`. One process runs all three
clusterings itself. Node-seconds are ``ranks * wall``. The quantum step runs where rank 0's
:class:`~clustagg.quantum_step.QuantumStep` says: a job on the quantum partition, a
HyperQueue job, a vQPU, or rank 0 itself (the default of :func:`run_baseline`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import steps
from ._validation import check_points
from .loop import LoopSettings, LoopState
from .mpi import idle_barrier, world
from .quantum_step import QuantumStep
from .result import AggregationResult, collect_result
from .solvers import MWISSolver
from .timeline import Timeline

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = ["run_baseline"]


def run_baseline(
    points: ArrayLike | None,
    solver: MWISSolver,
    seed: int,
    loop: LoopSettings,
    comm: MPI.Intracomm | None = None,
    *,
    quantum: QuantumStep | None = None,
) -> AggregationResult:
    """Run the loop with every rank of ``comm`` held throughout.

    Parameters
    ----------
    points : array-like of shape (n_samples, n_features)
        Only rank 0's points are used (the other ranks may pass None); they are
        broadcast to the other ranks.
    solver : MWISSolver
    seed : int
        The run's seed; round ``i`` uses ``seed + i``.
    loop : LoopSettings
    comm : mpi4py.MPI.Intracomm, optional
        ``MPI.COMM_WORLD`` by default. Every rank calls this function.
    quantum : QuantumStep, optional
        Rank 0's: where the quantum step runs; by default on rank 0 with ``solver``
        (``QuantumStep("local", solver, {}, loop)``). The other ranks may pass None.

    Returns
    -------
    AggregationResult
        On every rank.

    Examples
    --------
    One process (no ``mpiexec``) runs all three clusterings itself:

    >>> from clustagg.data import make_reference_points
    >>> from clustagg.solvers import ExactSolver
    >>> loop = LoopSettings(threshold=1.0, max_iter=2)
    >>> result = run_baseline(make_reference_points(300), ExactSolver(), seed=0, loop=loop)
    >>> result.mode, len(result.iterations), [r["phase"] for r in result.timeline[:3]]
    ('baseline', 2, ['cluster', 'quantum', 'score'])
    >>> result.node_seconds == result.wall_seconds  # one rank held throughout
    True
    >>> result.quantum_step_on
    'rank0'
    """
    if comm is None:
        comm = world()
    if comm.rank == 0 and quantum is None:
        quantum = QuantumStep("local", solver, {}, loop)
    timeline = Timeline(floor=comm.size)
    if comm.rank != 0:
        loop = dataclasses.replace(loop, progress=None)  # rank 0 reports
    X = comm.bcast(check_points(points) if comm.rank == 0 else None, root=0)
    state = LoopState()
    best: NDArray[np.int32] | None = None  # set on rank 0 by the first round
    for i in range(loop.max_iter):
        parameters = loop.parameters(seed + i)
        loop.report(i, "cluster", state)
        with timeline.phase(i, "cluster", comm.size):
            candidates = steps.cluster(X, seed + i, comm, parameters=parameters)
        stop = None
        if candidates is not None and quantum is not None:  # rank 0
            loop.report(i, "quantum", state)
            meta = {"seed": seed + i, "n_samples": len(X), "parameters": parameters}
            with timeline.phase(i, "quantum", comm.size):
                selection = quantum.solve(i, seed + i, candidates, meta)
            loop.report(i, "score", state)
            with timeline.phase(i, "score", comm.size):
                labels, silhouette = steps.score_round(X, candidates, selection, sample_size=loop.sample_size)
            if state.update(silhouette, selection, parameters):
                best = labels
            stop = state.done(loop.threshold, loop.max_iter)
        idle_barrier(comm)  # ranks 1.. sleep through the quantum and score steps
        if comm.bcast(stop, root=0):
            break
    loop.report(i, "done", state)
    result = None
    if best is not None and quantum is not None:  # rank 0
        result = collect_result(best, state, timeline, "baseline", seed, quantum_step_on=quantum.on)
    return comm.bcast(result, root=0)
