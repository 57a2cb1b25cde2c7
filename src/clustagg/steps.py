"""The three steps of a round, in memory and on files.

A round with seed ``s`` (run seed + round index) is

1. *cluster*: the three base clusterings (:func:`cluster`, one per MPI rank when given a
   communicator);
2. *aggregate*: conflict graph, MWIS QUBO, solver, optionally an emulated quantum delay
   (:func:`aggregate`);
3. *score*: labels of the chosen clusters and their silhouette (:func:`score_round`), and
   the loop state (history and best so far, :class:`~clustagg.loop.LoopState`).

The ``*_file`` functions run a step from files and write its output atomically
(:mod:`clustagg.step_files`, re-exported here: a temporary file in the same directory, then a
rename): a killed step leaves either no output or a complete one, and rerunning a step
on the same inputs writes the same bytes' worth of content, so a workflow recovers by
rerunning whatever is missing.

The ``load_*`` functions, and the steps that call them, check what they read against
what the next step needs (seed, number of points, algorithms, candidate ids) and raise
:class:`~clustagg.errors.StepInputError`, naming the file, on any mismatch: a caller of
this module gets the checks of the command line.

File formats
------------
``clusters.npz``
    ``labelings`` (int32, shape (3, n_samples)), ``algorithms``, ``meta`` (JSON text:
    ``seed``, ``n_samples``, ``parameters``, ``seconds``).
``selection.json``
    ``seed``, ``chosen`` (global candidate ids), ``chosen_clusters``, ``n_candidates``,
    ``fallbacks``, ``seconds``, and ``ran_on``: the Slurm ``job``, ``partition`` and ``node``
    the step ran on (:func:`clustagg.environment.slurm_placement`; None outside Slurm).
``score.json``
    :meth:`LoopState.to_json` plus ``seed`` and ``round_silhouette``; ``labels.npy`` next to
    it holds the best labels so far.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from backends.utils.validation import check_nonnegative

from . import aggregate as agg
from ._validation import check_round_seed
from .clusterers import ALGORITHMS, draw_parameters, fit_labels
from .environment import seconds_from_env, slurm_placement
from .errors import StepInputError
from .loop import LoopState
from .mpi import WORKER_MODULE, idle_barrier
from .solvers import MWISSolver, solve, training_counters
from .step_files import (
    atomic_write,
    load_clusters,
    load_json,
    load_labels,
    load_selection,
    save_clusters,
    save_json,
)

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = [
    "LoopState",
    "aggregate",
    "aggregate_file",
    "atomic_write",
    "cluster",
    "cluster_file",
    "cluster_file_malleable",
    "idle_barrier",
    "load_clusters",
    "load_json",
    "load_labels",
    "load_selection",
    "save_clusters",
    "save_json",
    "score_file",
    "score_round",
]


def cluster(
    X: NDArray[np.float64],
    seed: int,
    comm: MPI.Intracomm | None = None,
    *,
    parameters: dict[str, Any] | None = None,
) -> agg.Candidates | None:
    """Run the three base clusterings of one round.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The same points on every rank.
    seed : int
        The round's seed.
    comm : mpi4py.MPI.Intracomm, optional
        Rank ``r`` of a size-``p`` communicator runs ``ALGORITHMS[r::p]`` (one each for
        ``p = 3``); labels are gathered on rank 0. ``None`` runs all three here.
    parameters : dict, optional
        The round's parameters, the same on every rank; ``draw_parameters(seed)`` by
        default.

    Returns
    -------
    Candidates or None
        Candidates on rank 0 (or without ``comm``), None on the other ranks.

    Examples
    --------
    >>> from clustagg.data import make_reference_points
    >>> candidates = cluster(make_reference_points(300), seed=0)
    >>> candidates.algorithms, candidates.labelings.shape
    (('kmeans', 'dbscan', 'hclust'), (3, 300))
    """
    params = draw_parameters(seed) if parameters is None else parameters
    rank, size = (0, 1) if comm is None else (comm.rank, comm.size)
    mine = {name: fit_labels(name, X, params[name]) for name in ALGORITHMS[rank::size]}
    if comm is not None and size > 1:
        idle_barrier(comm)
        parts = comm.gather(mine, root=0)
        if rank != 0 or parts is None:
            return None
        mine = {name: labels for part in parts for name, labels in part.items()}
    return agg.Candidates(np.stack([mine[name] for name in ALGORITHMS]), ALGORITHMS)


def aggregate(
    candidates: agg.Candidates, solver: MWISSolver, seed: int, *, quantum_delay: float = 0.0
) -> dict[str, Any]:
    """Solve the round's MWIS problem (the quantum step).

    Parameters
    ----------
    candidates : Candidates
    solver : callable
        See :func:`clustagg.solvers.solve`.
    seed : int
    quantum_delay : float, default=0.0
        Seconds to sleep after solving, emulating queueing and execution on a QPU.

    Returns
    -------
    dict
        ``seed``, ``chosen`` (sorted global candidate ids), ``chosen_clusters`` (origin of
        each: algorithm, cluster, size), ``n_candidates``, ``fallbacks`` (solver fallbacks
        during this call) and ``seconds``.

    Examples
    --------
    >>> from clustagg.solvers import ExactSolver
    >>> candidates = agg.Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> selection = aggregate(candidates, ExactSolver(), seed=0)
    >>> selection["chosen"], selection["n_candidates"], selection["chosen_clusters"][1]
    ([2, 3], 4, {'algorithm': 'b', 'cluster': 1, 'size': 3})
    """
    start = time.perf_counter()
    delay = check_nonnegative(quantum_delay, "quantum_delay")
    problem = agg.mwis_problem(agg.conflict_graph(candidates))
    before = getattr(solver, "fallbacks", 0)
    chosen = np.flatnonzero(solve(problem, solver, seed=seed)).tolist()
    time.sleep(delay)
    return {
        "seed": int(seed),
        "chosen": chosen,
        "chosen_clusters": [candidates.origin(c) for c in chosen],
        "n_candidates": problem.num_nodes,
        "fallbacks": getattr(solver, "fallbacks", 0) - before,
        "seconds": time.perf_counter() - start,
        **training_counters(solver),
    }


def score_round(
    X: NDArray[np.float64],
    candidates: agg.Candidates,
    selection: dict[str, Any],
    *,
    sample_size: int | None = 20000,
) -> tuple[NDArray[np.int32], float]:
    """Labels of the chosen clusters (uncovered points to the nearest centroid) and their silhouette.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    candidates : Candidates
    selection : dict
        Output of :func:`aggregate`; its ``chosen`` and ``seed`` are used.
    sample_size : int or None, default=20000
        See :func:`clustagg.aggregate.score`.

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype int32
    silhouette : float

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [4.0, 0.0], [4.0, 1.0]])
    >>> candidates = agg.Candidates(np.array([[0, 0, 1, 1], [0, 1, 2, 3]]), ("a", "b"))
    >>> labels, silhouette = score_round(X, candidates, {"chosen": [0, 1], "seed": 0})
    >>> labels.tolist(), round(silhouette, 3)
    ([0, 0, 1, 1], 0.754)
    """
    labels = agg.assign_labels(X, candidates, selection["chosen"])
    return labels, agg.score(X, labels, sample_size=sample_size, seed=selection["seed"])


# -- files ------------------------------------------------------------------------------
def cluster_file(
    X: NDArray[np.float64], seed: int, out: str | os.PathLike[str], comm: MPI.Intracomm | None = None
) -> None:
    """:func:`cluster`, written to ``out`` (``clusters.npz``) by rank 0.

    Examples
    --------
    >>> import tempfile
    >>> from clustagg.data import make_reference_points
    >>> X = make_reference_points(300)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cluster_file(X, 4, f"{folder}/clusters.npz")
    ...     candidates, meta = load_clusters(f"{folder}/clusters.npz", seed=4, n_samples=300)
    >>> candidates.labelings.shape, meta["parameters"] == draw_parameters(4)
    ((3, 300), True)
    """
    seed = check_round_seed(seed)
    start = time.perf_counter()
    candidates = cluster(X, seed, comm)
    if candidates is not None:
        meta = {
            "seed": seed,
            "n_samples": len(X),
            "parameters": draw_parameters(seed),
            "seconds": time.perf_counter() - start,
        }
        save_clusters(out, candidates, meta)


def cluster_file_malleable(
    X: NDArray[np.float64], seed: int, out: str | os.PathLike[str], nodes: int
) -> list[str]:
    """:func:`cluster_file` as a malleable step: grow to ``nodes`` nodes to cluster, shrink before writing.

    Started on one process (the workflow's cluster step with ``CLUSTAGG_MALLEABLE_CLUSTER=1``:
    a one-node Slurm job), it grows its Slurm job to ``nodes`` nodes with
    :class:`~clustagg.reconfiguration.Reconfiguration`, which starts one worker
    (``python -m clustagg._worker``) on each node added, as the malleable mode does; the three
    clusterings run over them; then the workers leave and their nodes are returned before
    ``out`` is written, so the step holds one node except while it clusters. A grow that
    Slurm does not grant within ``CLUSTAGG_GROW_TIMEOUT`` seconds (default 30) gives up and
    the step clusters with what it has; outside Slurm it clusters alone. The labels do not
    depend on the number of processes. Resizes are logged on stderr (``clustagg: ...``).

    Returns
    -------
    list of str
        The node each process clustered on, rank 0's first (the nodes the job was granted
        for its workers; each worker also reports its own ``SLURMD_NODENAME`` on stderr).

    Examples
    --------
    >>> import tempfile
    >>> from clustagg.data import make_reference_points
    >>> X = make_reference_points(300)
    >>> with tempfile.TemporaryDirectory() as folder:  # outside Slurm: no node to add
    ...     nodes = cluster_file_malleable(X, 4, f"{folder}/clusters.npz", nodes=3)
    ...     candidates, meta = load_clusters(f"{folder}/clusters.npz", seed=4, n_samples=300)
    >>> len(nodes), meta["processes"], candidates.labelings.shape
    (1, 1, (3, 300))
    """
    from .node_pools import FixedNodes, NodePool, SlurmNodes
    from .reconfiguration import Reconfiguration
    from .slurm import SlurmAllocation

    seed = check_round_seed(seed)
    start = time.perf_counter()

    def log(line: str) -> None:
        print(f"clustagg: {line}", file=sys.stderr, flush=True)

    job = os.environ.get("SLURM_JOB_ID")
    pool: NodePool = FixedNodes([os.environ.get("SLURMD_NODENAME", "localhost")])
    if job:
        timeout = seconds_from_env("CLUSTAGG_GROW_TIMEOUT") or 30.0
        partition = os.environ.get("SLURM_JOB_PARTITION", "")
        pool = SlurmNodes(SlurmAllocation(job, partition, timeout, log=log))
    folder = os.path.dirname(os.path.abspath(out))  # the workers' ready files: every node sees it
    os.makedirs(folder, exist_ok=True)
    worker = [sys.executable, "-m", WORKER_MODULE]
    with Reconfiguration(worker, max_nodes=nodes, pool=pool, workdir=folder, log=log) as reconfiguration:
        comm = reconfiguration.reconfigure()
        assert comm is not None  # rank 0 never leaves
        placed = pool.names()
        if comm.size > 1:
            comm.bcast((X, seed), root=0)
        candidates = cluster(X, seed, comm if comm.size > 1 else None)
        processes = comm.size
        reconfiguration.reconfigure(nodes=1)  # the workers leave, then their nodes are returned
    assert candidates is not None  # on rank 0
    meta = {
        "seed": seed,
        "n_samples": len(X),
        "parameters": draw_parameters(seed),
        "seconds": time.perf_counter() - start,
        "processes": processes,
    }
    save_clusters(out, candidates, meta)
    return placed


def aggregate_file(
    clusters: str | os.PathLike[str],
    seed: int,
    out: str | os.PathLike[str],
    solver: MWISSolver,
    *,
    quantum_delay: float = 0.0,
) -> dict[str, Any]:
    """:func:`aggregate` on ``clusters``, written to ``out`` (``selection.json``).

    Returns
    -------
    dict
        The selection written: :func:`aggregate`'s, plus ``ran_on`` (the Slurm job,
        partition and node of this process, see :func:`clustagg.environment.slurm_placement`).

    Raises
    ------
    StepInputError
        If ``clusters`` is not the cluster step's output of round ``seed`` (see
        :func:`load_clusters`, with ``algorithms=ALGORITHMS``); nothing is written then.

    Examples
    --------
    >>> import tempfile
    >>> from clustagg.solvers import ExactSolver
    >>> labelings = np.array([[0, 0, 1, 1], [0, 1, 1, 1], [0, 0, 0, 0]])
    >>> candidates = agg.Candidates(labelings, ALGORITHMS)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_clusters(f"{folder}/clusters.npz", candidates, {"seed": 5, "n_samples": 4})
    ...     selection = aggregate_file(f"{folder}/clusters.npz", 5, f"{folder}/selection.json", ExactSolver())
    ...     load_json(f"{folder}/selection.json", seed=5)["chosen"], selection["chosen"]
    ([2, 3], [2, 3])
    """
    candidates, _ = load_clusters(clusters, seed=check_round_seed(seed), algorithms=ALGORITHMS)
    selection = {
        **aggregate(candidates, solver, seed, quantum_delay=quantum_delay),
        "ran_on": slurm_placement(),
    }
    save_json(out, selection)
    return selection


def _previous_state(
    previous: str | os.PathLike[str] | None,
    previous_labels: str | os.PathLike[str] | None,
    n_samples: int,
) -> tuple[LoopState, NDArray[np.integer[Any]] | None]:
    """Loop state and best labels after the previous round; fresh ones for the first round."""
    if previous is None:
        if previous_labels is not None:
            raise StepInputError(f"{previous_labels}: the previous round's score is needed with it")
        return LoopState(), None
    if previous_labels is None:
        raise StepInputError(f"{previous}: the previous round's labels are needed with it")
    try:
        state = LoopState.from_json(load_json(previous))
    except KeyError as error:
        raise StepInputError(f"{previous}: no {error}; expected the score step's output") from None
    return state, load_labels(previous_labels, n_samples=n_samples)


def score_file(
    X: NDArray[np.float64],
    clusters: str | os.PathLike[str],
    selection: str | os.PathLike[str],
    seed: int,
    out: str | os.PathLike[str],
    labels_out: str | os.PathLike[str],
    *,
    previous: str | os.PathLike[str] | None = None,
    previous_labels: str | os.PathLike[str] | None = None,
    sample_size: int | None = 20000,
) -> LoopState:
    """:func:`score_round` on files; updates the loop state of ``previous`` (if any).

    Writes ``labels_out`` (the best labels so far) before ``out``, so a complete ``out``
    always has its labels on disk.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    clusters, selection : path
        The round's ``clusters.npz`` and ``selection.json``.
    seed : int
        The round's seed; both inputs must carry it.
    out, labels_out : path
        ``score.json`` and the best labels so far (``.npy``, shape (n_samples,)).
    previous, previous_labels : path, optional
        The previous round's ``score.json`` and labels; none for the first round.
    sample_size : int or None, default=20000

    Returns
    -------
    LoopState
        After this round.

    Raises
    ------
    StepInputError
        If an input is missing, truncated, of another seed or size, or does not fit the
        others: see :func:`load_clusters` (with ``algorithms=ALGORITHMS``),
        :func:`load_selection` and :func:`load_labels`. Nothing is written then.

    Examples
    --------
    Two rounds; the second reads the first's loop state and best labels:

    >>> import tempfile
    >>> from clustagg.data import make_reference_points
    >>> from clustagg.solvers import ExactSolver
    >>> X = make_reference_points(300)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     for seed in (0, 1):
    ...         cluster_file(X, seed, f"{folder}/{seed}/clusters.npz")
    ...         _ = aggregate_file(
    ...             f"{folder}/{seed}/clusters.npz", seed, f"{folder}/{seed}/selection.json", ExactSolver()
    ...         )
    ...         previous = {} if seed == 0 else {
    ...             "previous": f"{folder}/0/score.json", "previous_labels": f"{folder}/0/labels.npy"
    ...         }
    ...         state = score_file(
    ...             X, f"{folder}/{seed}/clusters.npz", f"{folder}/{seed}/selection.json", seed,
    ...             f"{folder}/{seed}/score.json", f"{folder}/{seed}/labels.npy", **previous,
    ...         )
    ...     best = load_labels(f"{folder}/1/labels.npy")
    >>> len(state.iterations), state.silhouette == max(state.iterations), best.shape
    (2, True, (300,))
    """
    seed = check_round_seed(seed)
    candidates, meta = load_clusters(clusters, seed=seed, n_samples=len(X), algorithms=ALGORITHMS)
    if "parameters" not in meta:
        raise StepInputError(f"{clusters}: no parameters in its meta; expected the cluster step's output")
    chosen = load_selection(selection, candidates, seed=seed)
    state, best = _previous_state(previous, previous_labels, len(X))
    labels, silhouette = score_round(X, candidates, chosen, sample_size=sample_size)
    if state.update(silhouette, chosen, meta["parameters"]) or best is None:
        best = labels
    atomic_write(labels_out, lambda handle: np.save(handle, best))
    save_json(out, {"seed": seed, "round_silhouette": silhouette, **state.to_json()})
    return state
