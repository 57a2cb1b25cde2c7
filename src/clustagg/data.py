"""Points for the clustering workload: the reference data set and CSV files.

:func:`parse_points` is pure (lines in, array out); :func:`read_points` opens a file and
passes its lines on, so errors name the file and the line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.datasets import make_blobs

from backends.utils.files import atomic_write
from backends.utils.validation import check_positive_int

from ._validation import check_points
from .errors import DataFormatError

__all__ = ["REFERENCE_SAMPLES", "make_reference_points", "parse_points", "read_points", "write_points"]

#: Size of the reference data set.
REFERENCE_SAMPLES = 80_000


def make_reference_points(n_samples: int = REFERENCE_SAMPLES) -> NDArray[np.float64]:
    """Generate the reference data: eight 2-D Gaussian blobs (``make_blobs`` seeded with 0x1337).

    Parameters
    ----------
    n_samples : int, default=80000
        Number of points; 80,000 regenerates the reference CSV exactly, fewer points give
        a smaller data set of the same shape (centres do not depend on ``n_samples``).

    Returns
    -------
    points : ndarray of shape (n_samples, 2)

    Examples
    --------
    >>> make_reference_points(1000).shape
    (1000, 2)
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    points, _ = make_blobs(
        n_samples=n_samples, centers=8, n_features=2, random_state=0x1337, center_box=(-20.0, 20.0)
    )
    return points


def parse_points(lines: Iterable[str], source: str = "<lines>") -> NDArray[np.float64]:
    """Parse comma-separated points, one per line; a first line that is not numeric is a header.

    Parameters
    ----------
    lines : iterable of str
    source : str
        Name used in error messages (usually the file path).

    Returns
    -------
    points : ndarray of shape (n_samples, n_features)

    Raises
    ------
    DataFormatError
        On a non-numeric field, a row of another width, or no data, naming ``source`` and
        the line.

    Examples
    --------
    >>> parse_points(["x,y", "0,1", "# a comment", "2.5,3"]).tolist()
    [[0.0, 1.0], [2.5, 3.0]]
    >>> try:
    ...     parse_points(["0,1", "2,3,4"], source="points.csv")
    ... except ValueError as error:
    ...     print(error)
    points.csv, line 2: expected 2 columns, got 3
    """
    rows: list[list[float]] = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        fields = text.split(",")
        try:
            values = [float(field) for field in fields]
        except ValueError:
            if number == 1:
                continue  # header
            raise DataFormatError(f"{source}, line {number}: expected numbers, got {text!r}") from None
        if not np.isfinite(values).all():
            raise DataFormatError(f"{source}, line {number}: values must be finite, got {text!r}")
        if rows and len(values) != len(rows[0]):
            raise DataFormatError(
                f"{source}, line {number}: expected {len(rows[0])} columns, got {len(values)}"
            )
        rows.append(values)
    if len(rows) < 2:
        raise DataFormatError(f"{source}: expected at least 2 points, got {len(rows)}")
    return check_points(rows)


def read_points(path: str | os.PathLike[str]) -> NDArray[np.float64]:
    """Read points from a CSV file (see :func:`parse_points`) or a ``.npy`` array.

    Raises
    ------
    DataFormatError
        If the file cannot be read or parsed; the message names the file.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     np.save(f"{folder}/points.npy", np.eye(3))
    ...     read_points(f"{folder}/points.npy").shape
    (3, 3)
    >>> try:
    ...     read_points("no-such-file.csv")
    ... except ValueError as error:
    ...     print(error)
    no-such-file.csv: cannot read points (No such file or directory)
    """
    path = Path(path)
    try:
        if path.suffix == ".npy":
            return check_points(np.load(path, allow_pickle=False), name="points")
        with path.open(encoding="utf-8") as handle:
            return parse_points(handle, source=str(path))
    except OSError as error:
        raise DataFormatError(f"{path}: cannot read points ({error.strerror or error})") from None
    except ValueError as error:
        if isinstance(error, DataFormatError):
            raise
        raise DataFormatError(f"{path}: {error}") from None


def write_points(points: ArrayLike, path: str | os.PathLike[str]) -> None:
    """Write points as a ``.npy`` array, or else as CSV with an ``x0,x1,...`` header.

    Either is readable by :func:`read_points`; the file is replaced atomically
    (:func:`backends.utils.files.atomic_write`).

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> points = make_reference_points(100)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_points(points, f"{folder}/points.csv")
    ...     print(open(f"{folder}/points.csv").readline().strip())
    ...     np.array_equal(read_points(f"{folder}/points.csv"), points)
    ...     write_points(points, f"{folder}/points.npy")
    ...     np.array_equal(read_points(f"{folder}/points.npy"), points)
    x0,x1
    True
    True
    """
    points = check_points(points)

    def write(handle: IO[bytes]) -> None:
        if Path(path).suffix == ".npy":
            np.save(handle, points, allow_pickle=False)
        else:
            header = ",".join(f"x{i}" for i in range(points.shape[1]))
            np.savetxt(handle, points, delimiter=",", header=header, comments="", fmt="%.17g")

    atomic_write(path, write)
