"""The three steps of a round, in memory and on files.

A round with seed ``s`` (run seed + round index) is

1. *cluster*: the three base clusterings (:func:`cluster`, one per MPI rank when given a
   communicator);
2. *aggregate*: conflict graph, MWIS QUBO, solver, optionally an emulated quantum delay
   (:func:`aggregate`);
3. *score*: labels of the chosen clusters and their silhouette (:func:`score_round`), and
   the loop state (history and best so far, :class:`LoopState`).

The ``*_file`` functions run a step from files and write its output atomically (a
temporary file in the same directory, then :func:`os.replace`): a killed step leaves
either no output or a complete one, and rerunning a step on the same inputs writes the
same bytes' worth of content, so a workflow recovers by rerunning whatever is missing.

File formats
------------
``clusters.npz``
    ``labelings`` (int32, shape (3, n_samples)), ``algorithms``, ``meta`` (JSON text:
    ``seed``, ``n_samples``, ``parameters``, ``seconds``).
``selection.json``
    ``seed``, ``chosen`` (global candidate ids), ``chosen_clusters``, ``n_candidates``,
    ``fallbacks``, ``seconds``.
``score.json``
    :meth:`LoopState.to_json` plus ``seed`` and ``round_silhouette``; ``labels.npy`` next to
    it holds the best labels so far.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from backends.validation import check_nonnegative, check_seed

from . import aggregate as agg
from .clusterers import ALGORITHMS, draw_parameters, fit_labels
from .errors import StepInputError
from .solvers import solve

__all__ = [
    "LoopState",
    "aggregate",
    "aggregate_file",
    "atomic_write",
    "cluster",
    "cluster_file",
    "idle_barrier",
    "load_clusters",
    "load_json",
    "save_clusters",
    "save_json",
    "score_file",
    "score_round",
]


def cluster(X: np.ndarray, seed: int, comm=None) -> agg.Candidates | None:
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

    Returns
    -------
    Candidates on rank 0 (or without ``comm``), None on the other ranks.
    """
    params = draw_parameters(seed)
    rank, size = (0, 1) if comm is None else (comm.rank, comm.size)
    mine = {name: fit_labels(name, X, params[name]) for name in ALGORITHMS[rank::size]}
    if size > 1:
        idle_barrier(comm)
        parts = comm.gather(mine, root=0)
        if rank != 0:
            return None
        mine = {name: labels for part in parts for name, labels in part.items()}
    return agg.Candidates(np.stack([mine[name] for name in ALGORITHMS]), ALGORITHMS)


def idle_barrier(comm, interval: float = 0.005) -> None:
    """Barrier at which waiting ranks sleep instead of spinning.

    MPICH busy-polls in blocking calls, so a rank waiting for others would steal a core
    from them whenever ranks share cores (three ranks on two cores, say).
    """
    request = comm.Ibarrier()
    while not request.Test():
        time.sleep(interval)


def aggregate(candidates: agg.Candidates, solver, seed: int, *, quantum_delay: float = 0.0) -> dict:
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
    }


def score_round(
    X: np.ndarray, candidates: agg.Candidates, selection: dict, *, sample_size: int | None = 20000
) -> tuple[np.ndarray, float]:
    """Labels of the chosen clusters (uncovered points to the nearest centroid) and their silhouette.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
    silhouette : float
    """
    labels = agg.assign_labels(X, candidates, selection["chosen"])
    return labels, agg.score(X, labels, sample_size=sample_size, seed=selection["seed"])


@dataclass
class LoopState:
    """History of the loop and its best round so far.

    Attributes
    ----------
    iterations : list of float
        Silhouette of every round, in order.
    parameters : list of dict
        Base-clustering parameters of every round.
    fallbacks : int
        Solver fallbacks (QAOA -> annealing) over all rounds.
    best_iteration : int
        Round of the best silhouette (first one on ties); -1 before any round.
    silhouette : float
        Best silhouette so far.
    chosen_clusters : list of dict
        The best round's chosen clusters: ``algorithm``, ``cluster``, ``size``.
    """

    iterations: list = field(default_factory=list)
    parameters: list = field(default_factory=list)
    fallbacks: int = 0
    best_iteration: int = -1
    silhouette: float = float("-inf")
    chosen_clusters: list = field(default_factory=list)

    def update(self, silhouette: float, selection: dict, parameters: dict) -> bool:
        """Record a round; return whether it is the new best."""
        self.iterations.append(float(silhouette))
        self.parameters.append(parameters)
        self.fallbacks += int(selection["fallbacks"])
        improved = silhouette > self.silhouette
        if improved:
            self.best_iteration = len(self.iterations) - 1
            self.silhouette = float(silhouette)
            self.chosen_clusters = selection["chosen_clusters"]
        return improved

    def done(self, threshold: float, max_iter: int) -> bool:
        """Whether the loop stops: the last round scored above ``threshold`` or ``max_iter`` rounds ran."""
        return bool(self.iterations) and (self.iterations[-1] > threshold or len(self.iterations) >= max_iter)

    def to_json(self) -> dict:
        """Plain-dict form with the attribute names as keys."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> LoopState:
        """Inverse of :meth:`to_json` (extra keys are ignored)."""
        return cls(**{name: data[name] for name in cls.__dataclass_fields__})


# -- files ------------------------------------------------------------------------------
def atomic_write(path: Path, write) -> None:
    """Call ``write(handle)`` on a temporary file next to ``path``, then rename it to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_json(path: Path, data: dict) -> None:
    """Write ``data`` as JSON, atomically."""
    atomic_write(path, lambda handle: handle.write(json.dumps(data, indent=1).encode()))


def load_json(path: Path, *, seed: int | None = None) -> dict:
    """Read a step's JSON output; check its ``seed`` when given.

    Raises
    ------
    StepInputError
        If the file is missing, truncated, or belongs to another seed.
    """
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise StepInputError(f"{path}: missing or unreadable step output ({error})") from None
    if not isinstance(data, dict) or (seed is not None and data.get("seed") != seed):
        raise StepInputError(f"{path}: not the output of the step with seed {seed}")
    return data


def save_clusters(path: Path, candidates: agg.Candidates, meta: dict) -> None:
    """Write a round's base clusterings (``clusters.npz``), atomically."""
    atomic_write(
        path,
        lambda handle: np.savez(
            handle,
            labelings=candidates.labelings,
            algorithms=np.array(candidates.algorithms),
            meta=np.array(json.dumps(meta)),
        ),
    )


def load_clusters(path: Path, *, seed: int | None = None, n_samples: int | None = None):
    """Read ``clusters.npz``.

    Returns
    -------
    candidates : Candidates
    meta : dict

    Raises
    ------
    StepInputError
        If the file is missing or truncated, or its seed or size differ from the given ones.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            candidates = agg.Candidates(data["labelings"], tuple(data["algorithms"].tolist()))
            meta = json.loads(str(data["meta"]))
    except (OSError, ValueError, KeyError) as error:
        raise StepInputError(f"{path}: missing or unreadable clusters file ({error})") from None
    if (seed is not None and meta["seed"] != seed) or (
        n_samples is not None and meta["n_samples"] != n_samples
    ):
        raise StepInputError(
            f"{path}: clusters of seed {meta['seed']}, {meta['n_samples']} points; expected {seed}"
        )
    return candidates, meta


def cluster_file(X: np.ndarray, seed: int, out: Path, comm=None) -> None:
    """:func:`cluster`, written to ``out`` by rank 0."""
    seed = check_seed(seed, optional=False)
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


def aggregate_file(clusters: Path, seed: int, out: Path, solver, *, quantum_delay: float = 0.0) -> dict:
    """:func:`aggregate` on ``clusters``, written to ``out``."""
    candidates, _ = load_clusters(clusters, seed=check_seed(seed, optional=False))
    selection = aggregate(candidates, solver, seed, quantum_delay=quantum_delay)
    save_json(out, selection)
    return selection


def score_file(
    X: np.ndarray,
    clusters: Path,
    selection: Path,
    seed: int,
    out: Path,
    labels_out: Path,
    *,
    previous: Path | None = None,
    previous_labels: Path | None = None,
    sample_size: int | None = 20000,
) -> LoopState:
    """:func:`score_round` on files; updates the loop state of ``previous`` (if any).

    Writes ``labels_out`` (the best labels so far) before ``out``, so a complete ``out``
    always has its labels on disk.
    """
    seed = check_seed(seed, optional=False)
    candidates, meta = load_clusters(clusters, seed=seed, n_samples=len(X))
    chosen = load_json(selection, seed=seed)
    state = LoopState()
    best = None
    if previous is not None:
        state = LoopState.from_json(load_json(previous))
        try:
            best = np.load(previous_labels, allow_pickle=False)
        except (OSError, ValueError, TypeError) as error:
            raise StepInputError(f"{previous_labels}: missing or unreadable labels ({error})") from None
    labels, silhouette = score_round(X, candidates, chosen, sample_size=sample_size)
    if state.update(silhouette, chosen, meta["parameters"]):
        best = labels
    atomic_write(labels_out, lambda handle: np.save(handle, best))
    save_json(out, {"seed": seed, "round_silhouette": silhouette, **state.to_json()})
    return state
