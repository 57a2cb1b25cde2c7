"""The three steps of a round, in memory and on files.

A round with seed ``s`` (run seed + round index) is

1. *cluster*: the three base clusterings (:func:`cluster`, one per MPI rank when given a
   communicator);
2. *aggregate*: conflict graph, MWIS QUBO, solver, optionally an emulated quantum delay
   (:func:`aggregate`);
3. *score*: labels of the chosen clusters and their silhouette (:func:`score_round`), and
   the loop state (history and best so far, :class:`~clustagg.loop.LoopState`).

The ``*_file`` functions run a step from files and write its output atomically
(:func:`backends.utils.files.atomic_write`: a temporary file in the same directory, then a
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
    ``fallbacks``, ``seconds``.
``score.json``
    :meth:`LoopState.to_json` plus ``seed`` and ``round_silhouette``; ``labels.npy`` next to
    it holds the best labels so far.
"""

from __future__ import annotations

import json
import os
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from backends.utils import files
from backends.utils.validation import check_nonnegative

from . import aggregate as agg
from ._validation import check_candidate_ids, check_round_seed, first_overlap
from .clusterers import ALGORITHMS, draw_parameters, fit_labels
from .errors import InvalidParameterError, StepInputError
from .loop import LoopState
from .mpi import idle_barrier
from .solvers import MWISSolver, solve

if TYPE_CHECKING:
    from mpi4py import MPI

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
def atomic_write(path: str | os.PathLike[str], write: Callable[[IO[bytes]], object]) -> None:
    """:func:`backends.utils.files.atomic_write`, creating the output's directory if missing.

    Parameters
    ----------
    path : str or path-like
        The output; its directory is created if missing.
    write : callable
        Writes the content to the binary file handle it is given.

    Examples
    --------
    The folder ``new`` is made on the way:

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     atomic_write(f"{folder}/new/a.txt", lambda handle: handle.write(b"done"))
    ...     Path(f"{folder}/new/a.txt").read_bytes()
    b'done'
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    files.atomic_write(path, write)


def save_json(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Write ``data`` as JSON, atomically.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_json(f"{folder}/selection.json", {"seed": 0, "chosen": [2, 3]})
    ...     json.loads(Path(f"{folder}/selection.json").read_text())
    {'seed': 0, 'chosen': [2, 3]}
    """
    atomic_write(path, lambda handle: handle.write(json.dumps(data, indent=1).encode()))


def load_json(path: str | os.PathLike[str], *, seed: int | None = None) -> dict[str, Any]:
    """Read a step's JSON output; check its ``seed`` when given.

    Raises
    ------
    StepInputError
        If the file is missing, truncated, or belongs to another seed.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     Path(f"{folder}/score.json").write_text('{"seed": 1, "silhou')  # a truncated write
    ...     try:
    ...         load_json(f"{folder}/score.json", seed=1)
    ...     except StepInputError as error:
    ...         print("missing or unreadable" in str(error))
    ...     save_json(f"{folder}/score.json", {"seed": 1})
    ...     load_json(f"{folder}/score.json", seed=1)
    19
    True
    {'seed': 1}
    """
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:  # ValueError: truncated JSON or text
        raise StepInputError(f"{path}: missing or unreadable step output ({error})") from None
    if not isinstance(data, dict) or (seed is not None and data.get("seed") != seed):
        raise StepInputError(f"{path}: not the output of the step with seed {seed}")
    return data


def save_clusters(path: str | os.PathLike[str], candidates: agg.Candidates, meta: dict[str, Any]) -> None:
    """Write a round's base clusterings (``clusters.npz``), atomically.

    Examples
    --------
    >>> import tempfile
    >>> candidates = agg.Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_clusters(f"{folder}/clusters.npz", candidates, {"seed": 0, "n_samples": 4})
    ...     sorted(np.load(f"{folder}/clusters.npz"))
    ['algorithms', 'labelings', 'meta']
    """
    atomic_write(
        path,
        lambda handle: np.savez(
            handle,
            labelings=candidates.labelings,
            algorithms=np.array(candidates.algorithms),
            meta=np.array(json.dumps(meta)),
        ),
    )


def load_clusters(
    path: str | os.PathLike[str],
    *,
    seed: int | None = None,
    n_samples: int | None = None,
    algorithms: Sequence[str] | None = None,
) -> tuple[agg.Candidates, dict[str, Any]]:
    """Read ``clusters.npz``, checked against its own ``meta`` and the given seed, size and algorithms.

    Parameters
    ----------
    path : str or path-like
    seed : int, optional
        The round's seed; the file's ``meta`` must carry it.
    n_samples : int, optional
        Number of points; the file's ``meta`` must give it.
    algorithms : sequence of str, optional
        The base clusterings the file must hold, in order (:data:`~clustagg.clusterers.ALGORITHMS`
        for the cluster step's output).

    Returns
    -------
    candidates : Candidates
    meta : dict

    Raises
    ------
    StepInputError
        If the file is missing or truncated, its labelings are not non-negative integers of
        shape (n_algorithms, n_samples), its seed or size differ from the given ones, it
        holds other algorithms than ``algorithms``, or its labelings label another number of
        points than its ``meta`` says.

    Examples
    --------
    >>> import tempfile
    >>> candidates = agg.Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_clusters(f"{folder}/clusters.npz", candidates, {"seed": 0, "n_samples": 4})
    ...     loaded, meta = load_clusters(f"{folder}/clusters.npz", seed=0, n_samples=4)
    ...     for wrong in ({"seed": 1}, {"algorithms": ALGORITHMS}):
    ...         try:
    ...             load_clusters(f"{folder}/clusters.npz", **wrong)
    ...         except StepInputError as error:
    ...             print(str(error).removeprefix(folder))
    /clusters.npz: clusters of seed 0, 4 points; expected seed 1
    /clusters.npz: clusterings of a, b; expected kmeans, dbscan, hclust
    >>> loaded.labelings.tolist(), loaded.algorithms, meta
    ([[0, 0, 1, 1], [0, 1, 1, 1]], ('a', 'b'), {'seed': 0, 'n_samples': 4})
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            candidates = agg.Candidates(data["labelings"], tuple(data["algorithms"].tolist()))
            meta = json.loads(str(data["meta"]))
        found_seed, found_samples = meta["seed"], meta["n_samples"]
    except (OSError, EOFError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as error:
        raise StepInputError(f"{path}: missing or unreadable clusters file ({error})") from None
    wrong = []
    if seed is not None and found_seed != seed:
        wrong.append(f"seed {seed}")
    if n_samples is not None and found_samples != n_samples:
        wrong.append(f"{n_samples} points")
    if wrong:
        raise StepInputError(
            f"{path}: clusters of seed {found_seed}, {found_samples} points; expected {' and '.join(wrong)}"
        )
    if algorithms is not None and candidates.algorithms != tuple(algorithms):
        raise StepInputError(
            f"{path}: clusterings of {', '.join(candidates.algorithms) or 'no algorithm'}; "
            f"expected {', '.join(algorithms)}"
        )
    found = candidates.labelings.shape[1]
    if found != found_samples:
        raise StepInputError(f"{path}: labelings of {found} points; expected {found_samples}")
    return candidates, meta


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
        The selection written (see :func:`aggregate`).

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
    selection = aggregate(candidates, solver, seed, quantum_delay=quantum_delay)
    save_json(out, selection)
    return selection


def load_selection(
    path: str | os.PathLike[str], candidates: agg.Candidates, *, seed: int | None = None
) -> dict[str, Any]:
    """Read ``selection.json`` and check it against the round's candidates.

    Parameters
    ----------
    path : str or path-like
    candidates : Candidates
        The round's candidate clusters (from its ``clusters.npz``).
    seed : int, optional
        The round's seed; the file must carry it.

    Returns
    -------
    dict
        As written by :func:`aggregate_file`.

    Raises
    ------
    StepInputError
        If the file is missing, truncated or of another seed (:func:`load_json`), counts
        another number of candidates, lacks ``chosen_clusters`` or ``fallbacks``, or its
        ``chosen`` is not a non-empty list of ids of non-overlapping candidates.

    Examples
    --------
    >>> import tempfile
    >>> candidates = agg.Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     for chosen in ([3, -1], [0, 3]):
    ...         selection = {"seed": 2, "chosen": chosen, "chosen_clusters": [], "fallbacks": 0}
    ...         save_json(f"{folder}/selection.json", selection)
    ...         try:
    ...             load_selection(f"{folder}/selection.json", candidates, seed=2)
    ...         except StepInputError as error:
    ...             print(str(error).removeprefix(folder))
    /selection.json: chosen[1] must be a candidate id in 0..3, found -1
    /selection.json: chosen clusters 0 and 3 share point 1
    """
    selection = load_json(path, seed=seed)
    n_candidates = int(candidates.offsets[-1])
    found = selection.get("n_candidates", n_candidates)
    if found != n_candidates:
        raise StepInputError(f"{path}: a selection among {found!r} candidates; expected {n_candidates}")
    try:
        ids = check_candidate_ids(selection.get("chosen"), n_candidates, name=f"{path}: chosen")
    except InvalidParameterError as error:
        raise StepInputError(str(error)) from None
    overlap = first_overlap(candidates.global_labels, ids)
    if overlap is not None:
        first, second, point = overlap
        raise StepInputError(f"{path}: chosen clusters {first} and {second} share point {point}")
    missing = [key for key in ("chosen_clusters", "fallbacks") if key not in selection]
    if missing:
        raise StepInputError(f"{path}: no {', '.join(missing)}; expected the aggregate step's output")
    return selection


def load_labels(path: str | os.PathLike[str], *, n_samples: int | None = None) -> NDArray[np.integer[Any]]:
    """Read labels saved by :func:`score_file` (``.npy``, shape (n_samples,)).

    Parameters
    ----------
    path : str or path-like
    n_samples : int, optional
        Number of points the labels must have.

    Returns
    -------
    ndarray of shape (n_samples,), integer dtype

    Raises
    ------
    StepInputError
        If the file is missing or truncated, does not hold a 1-D integer array, or holds
        another number of labels than ``n_samples``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     np.save(f"{folder}/labels.npy", np.array([0, 0, 1]))
    ...     print(load_labels(f"{folder}/labels.npy").tolist())
    ...     try:
    ...         load_labels(f"{folder}/labels.npy", n_samples=4)
    ...     except StepInputError as error:
    ...         print(str(error).removeprefix(folder))
    [0, 0, 1]
    /labels.npy: labels of 3 points; expected 4
    """
    try:
        labels = np.load(path, allow_pickle=False)
    except (OSError, EOFError, ValueError) as error:
        raise StepInputError(f"{path}: missing or unreadable labels ({error})") from None
    if not isinstance(labels, np.ndarray):  # an .npz archive, opened lazily
        labels.close()
        raise StepInputError(f"{path}: an .npz archive; expected labels saved by np.save")
    if labels.ndim != 1 or labels.dtype.kind not in "iu":
        raise StepInputError(
            f"{path}: labels of dtype {labels.dtype} and shape {labels.shape}; "
            "expected integers of shape (n_samples,)"
        )
    if n_samples is not None and len(labels) != n_samples:
        raise StepInputError(f"{path}: labels of {len(labels)} points; expected {n_samples}")
    return labels


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
