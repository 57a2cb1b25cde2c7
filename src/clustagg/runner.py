"""The aggregation loop in three resource modes, with node-seconds accounting.

Every mode runs the same rounds (:mod:`clustagg.steps`) with the same seeds, so for a
given seed all modes, serial or MPI, give the same labels. They differ in which classical
nodes they hold while they run:

``baseline``
    All ranks are held for the whole run (``mpiexec -n 3``: one clustering per rank; one
    process runs all three). During the quantum step ranks 1.. wait idle.
``malleable``
    Rank 0 alone holds the run. For each cluster phase it spawns ``workers`` processes
    (``MPI.COMM_SELF.Spawn``), merges them into one communicator, clusters, and releases
    them (``Disconnect``) before the quantum step. Every phase's output goes to a
    checkpoint directory, with ``checkpoint.json`` naming the last (iteration, phase); a
    rerun on the same directory resumes from there.
``workflow``
    Each step is a separate command (``python -m clustagg cluster|aggregate|score``)
    passing files; the cluster step runs under ``mpiexec -n cluster_processes``. A step
    whose output is already on disk is skipped, a failed step is rerun once, so a killed
    step or runner is recovered by running again on the same directory. The same loop
    is described for workflow managers in ``examples/clustagg/workflow.cwl``.

Node-seconds
------------
Each mode records a timeline of phases ``(iteration, phase, start, end, nodes)`` and a
*floor*, the nodes held between phases. Node-seconds are
``floor * wall + sum((nodes - floor) * (end - start))``:

* baseline: floor = nodes = ranks held, so ``ranks * wall`` (3 x wall under ``mpiexec -n 3``);
* malleable: floor 1 (rank 0), ``1 + workers`` nodes during cluster phases;
* workflow: floor 0; ``cluster_processes`` nodes for the cluster step, 0 for the quantum
  step (it holds no classical node), 1 for the score step.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from backends.validation import (
    check_choice,
    check_interval,
    check_nonnegative,
    check_positive_int,
    check_seed,
)

from . import steps
from ._validation import check_points
from .clusterers import draw_parameters
from .errors import ClustAggError, InvalidParameterError, StepInputError
from .solvers import get_solver

__all__ = ["MODES", "AggregationResult", "Timeline", "run"]

MODES = ("baseline", "malleable", "workflow")
PHASES = ("cluster", "quantum", "score")


@dataclass
class AggregationResult:
    """Outcome of an aggregation run.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        Best clustering found, labels ``0..k-1``.
    silhouette : float
        Its silhouette.
    chosen_clusters : list of dict
        The clusters it is made of: ``algorithm`` (which base clustering won),
        ``cluster`` (its label there) and ``size`` (points before uncovered points were
        assigned).
    iterations : list of float
        Silhouette of every round.
    wall_seconds : float
        Wall time of the run (s).
    node_seconds : float
        Classical nodes held times seconds (see the module docstring).
    mode : str
    seed : int
    best_iteration : int
        Round of ``labels``.
    parameters : list of dict
        Base-clustering parameters of every round.
    fallbacks : int
        Rounds in which the QAOA solver fell back to annealing.
    timeline : list of dict
        ``iteration``, ``phase``, ``start``, ``end`` (s since the run started), ``nodes``.
    """

    labels: np.ndarray
    silhouette: float
    chosen_clusters: list
    iterations: list
    wall_seconds: float
    node_seconds: float
    mode: str
    seed: int
    best_iteration: int
    parameters: list
    fallbacks: int
    timeline: list = field(default_factory=list)

    def to_json(self) -> dict:
        """Plain-dict form with the attribute names as keys (labels as a list)."""
        data = asdict(self)
        data["labels"] = self.labels.tolist()
        return data


class Timeline:
    """Phases of a run and the node-seconds they hold.

    Parameters
    ----------
    floor : int
        Nodes held between phases.
    """

    def __init__(self, floor: int):
        self.floor = floor
        self.origin = time.perf_counter()
        self.records: list[dict] = []

    @contextlib.contextmanager
    def phase(self, iteration: int, name: str, nodes: int):
        """Record the enclosed block as ``name`` holding ``nodes`` nodes."""
        start = time.perf_counter() - self.origin
        try:
            yield
        finally:
            end = time.perf_counter() - self.origin
            self.records.append(
                {"iteration": iteration, "phase": name, "start": start, "end": end, "nodes": nodes}
            )

    def node_seconds(self, wall: float) -> float:
        """``floor * wall`` plus the extra nodes of every phase times its duration."""
        extra = sum((r["nodes"] - self.floor) * (r["end"] - r["start"]) for r in self.records)
        return self.floor * wall + extra


def run(
    points,
    mode: str = "baseline",
    solver="anneal",
    seed: int = 0,
    *,
    threshold: float = 0.8,
    max_iter: int = 10,
    quantum_delay: float = 0.0,
    sample_size: int | None = 20000,
    solver_options: dict | None = None,
    workdir=None,
    workers: int = 2,
    cluster_processes: int = 3,
    comm=None,
) -> AggregationResult:
    """Aggregate k-means, DBSCAN and single-linkage clusterings until the silhouette exceeds ``threshold``.

    Round ``i`` uses seed ``seed + i`` for the clustering parameters, the solver and the
    silhouette sample. The loop stops after the first round scoring above ``threshold``,
    or after ``max_iter`` rounds, and keeps the best round.

    Parameters
    ----------
    points : array-like of shape (n_samples, n_features)
        Under MPI (baseline), only rank 0's points are used.
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
    >>> len(result.labels), len(result.iterations) <= 2
    (600, True)
    """
    check_choice(mode, "mode", MODES)
    seed = check_seed(seed, optional=False)
    threshold = check_interval(threshold, "threshold", -1.0, 1.0)
    max_iter = check_positive_int(max_iter, "max_iter")
    check_nonnegative(quantum_delay, "quantum_delay")
    if sample_size is not None:
        check_positive_int(sample_size, "sample_size")
    options = dict(solver_options or {})
    if mode == "workflow" and not isinstance(solver, str):
        raise InvalidParameterError(
            "mode='workflow' runs steps as commands and takes a solver name, not a callable"
        )
    loop = {
        "threshold": threshold,
        "max_iter": max_iter,
        "quantum_delay": quantum_delay,
        "sample_size": sample_size,
    }
    if mode == "baseline":
        return _baseline(points, get_solver(solver, **options), seed, loop, comm)
    X = check_points(points)
    check_positive_int(workers, "workers")
    check_positive_int(cluster_processes, "cluster_processes")
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"clustagg-{mode}-"))
        if mode == "malleable":
            return _malleable(X, get_solver(solver, **options), seed, loop, Path(workdir), workers)
        return _workflow(X, solver, options, seed, loop, Path(workdir), cluster_processes)


def _result(labels, state: steps.LoopState, timeline: Timeline, mode: str, seed: int) -> AggregationResult:
    wall = time.perf_counter() - timeline.origin
    return AggregationResult(
        labels=labels,
        silhouette=state.silhouette,
        chosen_clusters=state.chosen_clusters,
        iterations=state.iterations,
        wall_seconds=wall,
        node_seconds=timeline.node_seconds(wall),
        mode=mode,
        seed=seed,
        best_iteration=state.best_iteration,
        parameters=state.parameters,
        fallbacks=state.fallbacks,
        timeline=timeline.records,
    )


def _baseline(points, solver, seed: int, loop: dict, comm) -> AggregationResult:
    if comm is None:
        from mpi4py import MPI

        comm = MPI.COMM_WORLD
    timeline = Timeline(floor=comm.size)
    X = comm.bcast(check_points(points) if comm.rank == 0 else None, root=0)
    state, best, result = steps.LoopState(), None, None
    for i in range(loop["max_iter"]):
        with timeline.phase(i, "cluster", comm.size):
            candidates = steps.cluster(X, seed + i, comm)
        stop = None
        if comm.rank == 0:
            with timeline.phase(i, "quantum", comm.size):
                selection = steps.aggregate(candidates, solver, seed + i, quantum_delay=loop["quantum_delay"])
            with timeline.phase(i, "score", comm.size):
                labels, silhouette = steps.score_round(
                    X, candidates, selection, sample_size=loop["sample_size"]
                )
            if state.update(silhouette, selection, draw_parameters(seed + i)):
                best = labels
            stop = state.done(loop["threshold"], loop["max_iter"])
        steps.idle_barrier(comm)  # ranks 1.. sleep through the quantum and score steps
        if comm.bcast(stop, root=0):
            break
    if comm.rank == 0:
        result = _result(best, state, timeline, "baseline", seed)
    return comm.bcast(result, root=0)


class _Rounds:
    """File layout shared by the malleable and workflow modes: ``round-NNN/`` per round."""

    def __init__(self, workdir: Path, X: np.ndarray, seed: int):
        self.workdir = workdir
        self.points = workdir / "points.npy"
        self.seed = seed
        workdir.mkdir(parents=True, exist_ok=True)
        if not self.points.exists():
            steps.atomic_write(self.points, lambda handle: np.save(handle, X))
        elif not np.array_equal(np.load(self.points, allow_pickle=False), X):
            raise StepInputError(f"{workdir} holds the files of other points; use a new workdir")

    def path(self, i: int, name: str) -> Path:
        return self.workdir / f"round-{i:03d}" / name

    def outputs(self, i: int) -> dict[str, Path]:
        return {
            "cluster": self.path(i, "clusters.npz"),
            "quantum": self.path(i, "selection.json"),
            "score": self.path(i, "score.json"),
        }

    def done(self, i: int, phase: str, n_samples: int) -> bool:
        """Whether ``phase`` of round ``i`` has a complete output for this run's seed."""
        out, seed = self.outputs(i)[phase], self.seed + i
        try:
            if phase == "cluster":
                steps.load_clusters(out, seed=seed, n_samples=n_samples)
            else:
                steps.load_json(out, seed=seed)
                if phase == "score":
                    np.load(self.path(i, "labels.npy"), allow_pickle=False)
        except (ClustAggError, OSError, ValueError):
            return False
        return True

    def previous(self, i: int) -> dict:
        """Keyword arguments passing round ``i - 1``'s loop state to round ``i``'s score step."""
        if i == 0:
            return {}
        return {"previous": self.path(i - 1, "score.json"), "previous_labels": self.path(i - 1, "labels.npy")}

    def run(
        self, X, timeline: Timeline, loop: dict, execute: dict, nodes: dict, mode: str
    ) -> AggregationResult:
        """Run rounds, skipping phases already on disk; ``execute[phase](i)`` produces a phase's output."""
        for i in range(loop["max_iter"]):
            for phase in PHASES:
                if self.done(i, phase, len(X)):
                    continue
                with timeline.phase(i, phase, nodes[phase]):
                    execute[phase](i)
                steps.save_json(
                    self.workdir / "checkpoint.json", {"iteration": i, "phase": phase, "seed": self.seed}
                )
            state = steps.LoopState.from_json(steps.load_json(self.outputs(i)["score"], seed=self.seed + i))
            if state.done(loop["threshold"], loop["max_iter"]):
                break
        labels = np.load(self.path(i, "labels.npy"), allow_pickle=False)
        return _result(labels, state, timeline, mode, self.seed)


def _malleable(X, solver, seed: int, loop: dict, workdir: Path, workers: int) -> AggregationResult:
    from mpi4py import MPI

    if MPI.COMM_WORLD.size != 1:
        raise InvalidParameterError(
            "mode='malleable' starts on one process and spawns its workers; "
            f"got {MPI.COMM_WORLD.size} processes"
        )
    rounds = _Rounds(workdir, X, seed)
    timeline = Timeline(floor=1)

    def cluster(i):
        inter = MPI.COMM_SELF.Spawn(sys.executable, args=["-m", "clustagg._worker"], maxprocs=workers)
        comm = inter.Merge(high=False)
        try:
            comm.bcast((X, seed + i), root=0)
            steps.cluster_file(X, seed + i, rounds.outputs(i)["cluster"], comm)
        finally:
            comm.Free()
            inter.Disconnect()

    execute = {
        "cluster": cluster,
        "quantum": lambda i: steps.aggregate_file(
            rounds.outputs(i)["cluster"],
            seed + i,
            rounds.outputs(i)["quantum"],
            solver,
            quantum_delay=loop["quantum_delay"],
        ),
        "score": lambda i: steps.score_file(
            X,
            rounds.outputs(i)["cluster"],
            rounds.outputs(i)["quantum"],
            seed + i,
            rounds.outputs(i)["score"],
            rounds.path(i, "labels.npy"),
            sample_size=loop["sample_size"],
            **rounds.previous(i),
        ),
    }
    nodes = {"cluster": 1 + workers, "quantum": 1, "score": 1}
    return rounds.run(X, timeline, loop, execute, nodes, "malleable")


def _workflow(X, solver: str, options: dict, seed: int, loop: dict, workdir: Path, processes: int):
    rounds = _Rounds(workdir, X, seed)
    timeline = Timeline(floor=0)
    python = [sys.executable, "-m", "clustagg"]
    launcher = ["mpiexec", "-n", str(processes)] if processes > 1 else []
    if launcher and shutil.which("mpiexec") is None:
        raise InvalidParameterError(
            f"cluster_processes={processes} needs mpiexec on PATH; use 1 to run serially"
        )
    solver_args = [
        "--solver",
        solver,
        *(f"--{key.replace('_', '-')}={value}" for key, value in options.items()),
    ]
    sample = (
        ["--exact-silhouette"] if loop["sample_size"] is None else ["--sample-size", str(loop["sample_size"])]
    )

    def command(i: int, phase: str) -> list[str]:
        out = rounds.outputs(i)
        common = ["--seed", str(seed + i), "--out", str(out[phase])]
        if phase == "cluster":
            return [*launcher, *python, "cluster", "--points", str(rounds.points), *common]
        if phase == "quantum":
            delay = ["--quantum-delay", str(loop["quantum_delay"])]
            return [*python, "aggregate", "--clusters", str(out["cluster"]), *solver_args, *delay, *common]
        previous = [f"--{key.replace('_', '-')}={path}" for key, path in rounds.previous(i).items()]
        return [
            *python,
            "score",
            "--points",
            str(rounds.points),
            "--clusters",
            str(out["cluster"]),
            "--selection",
            str(out["quantum"]),
            "--labels-out",
            str(rounds.path(i, "labels.npy")),
            *sample,
            *previous,
            *common,
        ]

    def execute(phase):
        def step(i):
            for _attempt in (1, 2):
                done = subprocess.run(command(i, phase), capture_output=True, text=True)
                if done.returncode == 0:
                    return
            raise ClustAggError(f"workflow step {phase} of round {i} failed twice:\n{done.stderr.strip()}")

        return step

    nodes = {"cluster": processes, "quantum": 0, "score": 1}
    return rounds.run(X, timeline, loop, {phase: execute(phase) for phase in PHASES}, nodes, "workflow")
