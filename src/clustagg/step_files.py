"""The files between the steps of a round: written atomically, read back checked.

Each ``save_*`` writes atomically (:func:`backends.utils.files.atomic_write`: a temporary
file in the same directory, then a rename), so a killed step leaves either no output or
a complete one. Each ``load_*`` checks what it reads against what the next step needs
(seed, number of points, algorithms, candidate ids) and raises
:class:`~clustagg.errors.StepInputError`, naming the file, on any mismatch. The formats
are those of :mod:`clustagg.steps`.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from backends.utils import files

from . import aggregate as agg
from ._validation import check_candidate_ids, first_overlap
from .errors import InvalidParameterError, StepInputError

__all__ = [
    "atomic_write",
    "load_clusters",
    "load_json",
    "load_labels",
    "load_selection",
    "save_clusters",
    "save_json",
]


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
    >>> from clustagg.clusterers import ALGORITHMS
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
