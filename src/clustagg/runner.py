"""The aggregation loop in three resource modes, with node-seconds accounting.

Every mode runs the same rounds (:mod:`clustagg.steps`) with the same seeds, so for a
given seed all modes, serial or MPI, give the same labels. They differ in which classical
nodes they hold while they run:

``baseline`` (:mod:`clustagg.baseline`)
    All ranks are held for the whole run (``mpiexec -n 3``: one clustering per rank; one
    process runs all three). During the quantum step ranks 1.. wait idle.
``malleable`` (:mod:`clustagg.malleable`)
    Rank 0 alone holds the run. For each cluster phase it spawns ``workers`` processes
    (``MPI.COMM_SELF.Spawn``), merges them into one communicator, clusters, and releases
    them (``Disconnect``) before the quantum step. Every phase's output goes to a
    checkpoint directory, with ``checkpoint.json`` naming the last (iteration, phase); a
    rerun on the same directory resumes from there.
``workflow`` (:mod:`clustagg.workflow`)
    Each step is a separate command (``python -m clustagg cluster|aggregate|score``)
    passing files; the cluster step runs under ``mpiexec -n cluster_processes``. A step
    whose output is already on disk is skipped, a failed step is rerun once, so a killed
    step or runner is recovered by running again on the same directory. The same loop
    is described for workflow managers in ``examples/clustagg/workflow.cwl``.

Node-seconds
------------
Each mode records a timeline of phases ``(iteration, phase, start, end, nodes)`` and a
*floor*, the nodes held between phases (:class:`~clustagg.timeline.Timeline`).
Node-seconds are ``floor * wall + sum((nodes - floor) * (end - start))``:

* baseline: floor = nodes = ranks held, so ``ranks * wall`` (3 x wall under ``mpiexec -n 3``);
* malleable: floor 1 (rank 0), ``1 + workers`` nodes during cluster phases;
* workflow: floor 0; ``cluster_processes`` nodes for the cluster step, 0 for the quantum
  step (it holds no classical node), 1 for the score step.

Quantum step
------------
In the baseline and malleable modes ``quantum_step`` says where the quantum step runs
(:mod:`clustagg.quantum_step`): ``qpu-partition`` (a job on the quantum partition),
``hyperqueue``, ``vqpu`` or ``local`` (rank 0, sleeping ``quantum_delay``). By default:
``vqpu`` for a ``vqpu:`` backend; inside a Slurm job, ``hyperqueue`` when
``CLUSTAGG_HQ_SERVER_DIR`` is set, else ``qpu-partition``; outside Slurm (or for a solver
given as a callable) ``local``. The workflow mode places its steps by its environment
variables (:mod:`clustagg.workflow`). Every result says where: ``quantum_step_on``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from numpy.typing import ArrayLike

from backends.utils.validation import check_choice, check_positive_int

from ._validation import check_points, check_round_seed
from .baseline import run_baseline
from .errors import ClustAggError, InvalidParameterError
from .loop import LoopSettings
from .malleable import run_malleable
from .mpi import world
from .quantum_step import OFFLOADED, QuantumStep, check_quantum_step
from .reference import check_reference_run
from .result import AggregationResult
from .rounds import RoundFiles
from .solvers import MWISSolver, get_solver
from .timeline import Timeline
from .workflow import run_workflow

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = ["GROWS", "MODES", "AggregationResult", "Timeline", "run"]

#: The resource modes.
MODES = ("baseline", "malleable", "workflow")

#: How the malleable mode grows its allocation.
GROWS = ("blocking", "async")


def run(
    points: ArrayLike | None,
    mode: str = "baseline",
    solver: str | MWISSolver = "anneal",
    seed: int = 0,
    *,
    threshold: float = 0.8,
    max_iter: int = 10,
    quantum_delay: float = 0.0,
    sample_size: int | None = 20000,
    reference: bool = False,
    progress: Callable[[Mapping[str, Any]], None] | None = None,
    solver_options: dict[str, Any] | None = None,
    workdir: str | os.PathLike[str] | None = None,
    workers: int = 2,
    cluster_processes: int = 3,
    comm: MPI.Intracomm | None = None,
    quantum_step: str | None = None,
    grow: str = "blocking",
    malleable_cluster: bool | None = None,
) -> AggregationResult:
    """Aggregate k-means, DBSCAN and single-linkage clusterings until the silhouette exceeds ``threshold``.

    Round ``i`` uses seed ``seed + i`` for the clustering parameters, the solver and the
    silhouette sample. The loop stops after the first round scoring above ``threshold``,
    or after ``max_iter`` rounds, and keeps the best round.

    Parameters
    ----------
    points : array-like of shape (n_samples, n_features)
        Under MPI (baseline), only rank 0's points are used; the other ranks may pass None.
    mode : {"baseline", "malleable", "workflow"}, default="baseline"
    solver : {"anneal", "exact", "qaoa"} or callable, default="anneal"
        See :mod:`clustagg.solvers`; the workflow mode takes names only.
    seed : int, default=0
    threshold : float, default=0.8
    max_iter : int, default=10
    quantum_delay : float, default=0.0
        Seconds added to every quantum step, emulating a remote QPU.
    sample_size : int or None, default=20000
        Silhouette sample; ``None`` for the exact silhouette.
    reference : bool, default=False
        Replay the reference application's run (:mod:`clustagg.reference`): its
        per-round parameters, k-means to convergence. Needs ``mode="baseline"``,
        ``seed=0`` and the reference data (:func:`clustagg.data.make_reference_points`
        with 80,000 points); it gives the published trajectory.
    progress : callable, optional
        Receives a snapshot (phase, round, last and best silhouette) as each phase starts
        and when the loop ends, on rank 0; for example a
        :class:`backends.utils.progress.ProgressLine`.
    solver_options : dict, optional
        Options for a named solver, e.g. ``{"backend": "aer", "shots": 2000}`` for QAOA.
    workdir : path, optional
        Files of the malleable (checkpoints) and workflow modes; a temporary directory
        by default. Rerunning on the same directory resumes.
    workers : int, default=2
        Processes the malleable mode spawns per cluster phase (rank 0 is the third).
    cluster_processes : int, default=3
        MPI processes of the workflow's cluster step (1: no ``mpiexec``).
    comm : mpi4py.MPI.Intracomm, optional
        Communicator of the baseline mode; ``MPI.COMM_WORLD`` by default. Every rank
        calls :func:`run`.
    quantum_step : {"qpu-partition", "hyperqueue", "vqpu", "local"}, optional
        Where the baseline and malleable modes run the quantum step (see above); the
        default depends on where the run is. An offloaded step passes files through
        ``workdir`` (a temporary folder in the working directory by default), which the
        quantum node must see.
    grow : {"blocking", "async"}, default="blocking"
        The malleable mode's grow inside a Slurm job: wait for the nodes before each cluster
        phase, or ask for them as the quantum step starts and adopt them once granted
        (:mod:`clustagg.malleable`).
    malleable_cluster : bool, optional
        The workflow mode's cluster step starts on one node and grows its own Slurm job to
        ``cluster_processes`` nodes (:func:`clustagg.workflow.malleable_cluster`); default
        ``CLUSTAGG_MALLEABLE_CLUSTER``.

    Returns
    -------
    AggregationResult
        On every rank.

    Raises
    ------
    InvalidParameterError
        On a bad parameter; the message names it.

    Examples
    --------
    >>> from clustagg.data import make_reference_points
    >>> result = run(make_reference_points(600), solver="exact", max_iter=2)
    >>> len(result.labels), len(result.iterations) <= 2, result.quantum_step_on
    (600, True, 'rank0')
    """
    check_choice(mode, "mode", MODES)
    check_choice(grow, "grow", GROWS)
    seed = check_round_seed(seed)
    loop = LoopSettings(threshold, max_iter, quantum_delay, sample_size, reference, progress)
    if loop.reference:
        check_reference_run(mode, seed, loop.max_iter)
    options = dict(solver_options or {})
    if mode == "workflow" and quantum_step is not None:
        raise InvalidParameterError(
            "quantum_step applies to the baseline and malleable modes; mode='workflow' places its quantum "
            "step by CLUSTAGG_SRUN_PARTITIONS, CLUSTAGG_SRUN_HETJOB or CLUSTAGG_HQ_SERVER_DIR"
        )
    where = check_quantum_step(quantum_step, solver, options, loop.quantum_delay)
    if mode == "baseline":
        return _run_baseline(points, solver, options, seed, loop, comm, where, workdir)
    if mode == "workflow" and not isinstance(solver, str):
        raise InvalidParameterError(
            "mode='workflow' runs steps as commands and takes a solver name, not a callable"
        )
    X = check_points(points)
    check_positive_int(workers, "workers")
    check_positive_int(cluster_processes, "cluster_processes")
    with contextlib.ExitStack() as stack:
        folder = _workdir(workdir, stack, mode, where)
        if mode == "workflow" and isinstance(solver, str):  # a name, checked above
            return run_workflow(X, solver, options, seed, loop, folder, cluster_processes, malleable_cluster)
        solver_object = get_solver(solver, **options)
        step_solver = solver if where in OFFLOADED else solver_object

        def quantum(rounds: RoundFiles) -> QuantumStep:
            return QuantumStep(where, step_solver, options, loop, rounds)

        asynchronous = grow == "async"
        return run_malleable(
            X, solver_object, seed, loop, folder, workers, quantum=quantum, asynchronous=asynchronous
        )


def _workdir(
    workdir: str | os.PathLike[str] | None, stack: contextlib.ExitStack, mode: str, where: str
) -> Path:
    """``workdir``, or a temporary folder (in the working directory when the quantum step leaves)."""
    if workdir is not None:
        return Path(workdir)
    parent = Path.cwd() if where in OFFLOADED else None  # the quantum node must see it
    return Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"clustagg-{mode}-", dir=parent)))


def _run_baseline(
    points: ArrayLike | None,
    solver: str | MWISSolver,
    options: dict[str, Any],
    seed: int,
    loop: LoopSettings,
    comm: MPI.Intracomm | None,
    where: str,
    workdir: str | os.PathLike[str] | None,
) -> AggregationResult:
    """:func:`run_baseline` with rank 0's quantum step placed at ``where``; every rank fails alike."""
    if comm is None:
        comm = world()
    solver_object = get_solver(solver, **options)
    with contextlib.ExitStack() as stack:
        quantum, error = None, None
        if comm.rank == 0:
            try:
                rounds = None
                if where in OFFLOADED:
                    rounds = RoundFiles(
                        _workdir(workdir, stack, "baseline", where), check_points(points), seed
                    )
                quantum = QuantumStep(
                    where, solver if where in OFFLOADED else solver_object, options, loop, rounds
                )
            except (ClustAggError, ValueError) as exc:
                error = exc
        reason = comm.bcast(None if error is None else str(error), root=0) if comm.size > 1 else None
        if error is not None:
            raise error
        if reason is not None:
            raise InvalidParameterError(reason)
        return run_baseline(points, solver_object, seed, loop, comm, quantum=quantum)
