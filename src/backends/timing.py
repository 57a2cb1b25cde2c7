"""Timing records: one per backend execution, with JSON Lines I/O and a summary.

Absolute times are Unix epoch seconds (:func:`time.time`), so records written by
different processes (a worker, the vQPU server) can be compared and merged.
Durations are seconds as floats.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_positive_int

__all__ = ["TimingRecord", "publish", "read_jsonl", "record_timings", "summarize", "write_jsonl"]

#: The record lists of the :func:`record_timings` blocks open in this context, outermost first.
_RECORDERS: ContextVar[tuple[list[TimingRecord], ...]] = ContextVar("timing_recorders", default=())

_DURATIONS = ("quantum_seconds", "queue_seconds", "sleep_seconds")


@dataclass(frozen=True)
class TimingRecord:
    """Timing of one execution (one ``run`` call) on a backend.

    Parameters
    ----------
    label : str
        Free-form label, by default the backend spec (e.g. ``"iqm-fake:adonis"``).
    submitted : float
        Unix epoch seconds when the transpiled circuits were handed to the device.
    started : float
        Unix epoch seconds when execution started: the device's own timestamp when it
        reports one, else ``submitted``.
    ended : float
        Unix epoch seconds when execution ended: the device's own timestamp when it
        reports one, else ``submitted`` plus the wall time of the execution.
    quantum_seconds : float
        ``ended - started``, seconds >= 0.
    queue_seconds : float
        ``started - submitted`` (upload, server-side compilation and queueing), seconds
        >= 0; 0 for local simulators. Clipped at 0 against clock skew between client
        and server.
    sleep_seconds : float
        Seconds slept after the execution: ``sleep_factor * quantum_seconds``.
    circuits : int
        Number of circuits in the execution, >= 1.
    shots : int
        Shots per circuit, >= 1.

    Raises
    ------
    InvalidParameterError
        If a duration is negative or ``circuits``/``shots`` is not a positive int.

    Examples
    --------
    >>> record = TimingRecord("aer", 100.0, 100.5, 101.0, 0.5, 0.5, 0.0, circuits=2, shots=100)
    >>> record.ended - record.started == record.quantum_seconds
    True
    >>> TimingRecord("aer", 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, circuits=1, shots=0)
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: shots must be a positive integer, got 0
    """

    label: str
    submitted: float
    started: float
    ended: float
    quantum_seconds: float
    queue_seconds: float
    sleep_seconds: float
    circuits: int
    shots: int

    def __post_init__(self) -> None:
        for name in _DURATIONS:
            if not getattr(self, name) >= 0:
                raise InvalidParameterError(f"{name} must be >= 0 seconds, got {getattr(self, name)!r}")
        check_positive_int(self.circuits, "circuits")
        check_positive_int(self.shots, "shots")

    def to_json(self) -> dict[str, str | float | int]:
        """Return the record as a JSON-serialisable dict keyed by the field names.

        Examples
        --------
        >>> record = TimingRecord("aer", 100.0, 100.0, 100.25, 0.25, 0.0, 0.5, circuits=1, shots=64)
        >>> data = record.to_json()
        >>> data["label"], data["quantum_seconds"], data["shots"]
        ('aer', 0.25, 64)
        """
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimingRecord:
        """Build a record from the dict written by :meth:`to_json` (values as parsed from JSON).

        Raises
        ------
        TypeError
            If a field is missing or unknown.
        InvalidParameterError
            If a value is out of range, as for the constructor.

        Examples
        --------
        >>> import json
        >>> record = TimingRecord("aer", 100.0, 100.0, 100.25, 0.25, 0.0, 0.5, circuits=1, shots=64)
        >>> TimingRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
        True
        """
        return cls(**data)


@contextmanager
def record_timings() -> Iterator[list[TimingRecord]]:
    """Collect the timing records of the executions made inside the block.

    Records are gathered per context (thread or asyncio task), so callers that share
    one backend, on several threads or in nested blocks, each get exactly their own
    executions; nothing slices the backend's shared ``timings`` list.

    Yields
    ------
    list of TimingRecord
        Filled, oldest first, while the block runs.

    Examples
    --------
    >>> from backends import get_backend
    >>> from qiskit import QuantumCircuit
    >>> circuit = QuantumCircuit(1, 1)
    >>> _ = circuit.measure(0, 0)
    >>> backend = get_backend("aer", seed=1)
    >>> with record_timings() as records:
    ...     _ = backend.run(circuit, shots=10)
    >>> [(record.circuits, record.shots) for record in records]
    [(1, 10)]
    """
    records: list[TimingRecord] = []
    token = _RECORDERS.set((*_RECORDERS.get(), records))
    try:
        yield records
    finally:
        _RECORDERS.reset(token)


def publish(record: TimingRecord) -> None:
    """Hand ``record`` to every :func:`record_timings` block open in the calling context.

    Examples
    --------
    >>> record = TimingRecord("custom", 0.0, 0.0, 2.0, 2.0, 0.0, 0.0, circuits=1, shots=10)
    >>> with record_timings() as records:
    ...     publish(record)
    >>> records == [record]
    True
    """
    for records in _RECORDERS.get():
        records.append(record)


def write_jsonl(records: Iterable[TimingRecord], path: str | os.PathLike[str]) -> None:
    """Write records to ``path``, one JSON object per line (overwriting the file).

    Parameters
    ----------
    records : iterable of TimingRecord
        Records to write, in order.
    path : str or path-like
        Output file.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> records = [TimingRecord("aer", 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, circuits=1, shots=8)]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "timings.jsonl"
    ...     write_jsonl(records, path)
    ...     lines = path.read_text().splitlines()
    >>> len(lines), '"shots": 8' in lines[0]
    (1, True)
    """
    with open(path, "w", encoding="utf-8") as file:
        for record in records:
            file.write(json.dumps(record.to_json()) + "\n")


def read_jsonl(path: str | os.PathLike[str]) -> list[TimingRecord]:
    """Read records written by :func:`write_jsonl`; blank lines are skipped.

    Parameters
    ----------
    path : str or path-like
        Input file.

    Returns
    -------
    list of TimingRecord

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> records = [TimingRecord("aer", 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, circuits=1, shots=8)] * 2
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_jsonl(records, Path(folder) / "timings.jsonl")
    ...     read_jsonl(Path(folder) / "timings.jsonl") == records
    True
    """
    with open(path, encoding="utf-8") as file:
        return [TimingRecord.from_json(json.loads(line)) for line in file if line.strip()]


def summarize(records: Iterable[TimingRecord]) -> dict[str, int | float]:
    """Totals and means over executions.

    Parameters
    ----------
    records : iterable of TimingRecord
        Records to summarise.

    Returns
    -------
    dict
        ``executions``, ``circuits`` and ``shots`` (totals; ``shots`` counts every shot
        of every circuit), and for each of ``quantum``, ``queue`` and ``sleep`` the keys
        ``total_<kind>_seconds`` and ``mean_<kind>_seconds`` (mean per execution; 0.0
        when there are no records).

    Examples
    --------
    >>> records = [
    ...     TimingRecord("aer", 0.0, 0.0, 0.5, 0.5, 0.0, 1.0, circuits=2, shots=100),
    ...     TimingRecord("aer", 1.0, 1.0, 2.5, 1.5, 0.0, 3.0, circuits=1, shots=100),
    ... ]
    >>> summary = summarize(records)
    >>> summary["executions"], summary["shots"], summary["total_quantum_seconds"]
    (2, 300, 2.0)
    >>> summary["mean_sleep_seconds"]
    2.0
    """
    records = list(records)
    executions = len(records)
    summary: dict[str, int | float] = {
        "executions": executions,
        "circuits": sum(record.circuits for record in records),
        "shots": sum(record.circuits * record.shots for record in records),
    }
    for name in _DURATIONS:
        kind = name.removesuffix("_seconds")
        total = float(sum(getattr(record, name) for record in records))
        summary[f"total_{kind}_seconds"] = total
        summary[f"mean_{kind}_seconds"] = total / executions if executions else 0.0
    return summary
