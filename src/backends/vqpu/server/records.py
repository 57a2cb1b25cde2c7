"""Records of the vQPU store: an accepted batch as stored, and a queued batch as the scheduler sees it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = ["Batch", "Queued"]


@dataclass(frozen=True)
class Batch:
    """One accepted batch as stored (without its QPY payload).

    Attributes
    ----------
    id : int
        Server-assigned batch id, increasing in arrival order.
    job : str
        Name of the job (token name, or the client's job label in open mode).
    key : str
        Client-generated idempotency key, unique per job.
    circuits, qubits, shots : int
        Number of circuits, widest circuit, shots per circuit.
    seed : int or None
        Simulator seed passed by the client.
    status : {"queued", "running", "done", "failed"}
        Life-cycle state.
    submitted, started, ended : float or None
        Epoch seconds of acceptance, start and end of the execution.
    quantum_seconds : float or None
        Seconds the device was busy with this batch.
    runs : int
        How often the execution was started.
    counts : list of dict or None
        Counts per circuit once done (qiskit bit order).
    error : str or None
        Reason of a failed execution.
    fetched : int
        How often the finished result was read by its job.
    user : str
        Who is billed for the job.
    transpile_seconds : float or None
        Server seconds spent decoding and transpiling the batch (not device time).
    account : str
        The Slurm account billed for the job (empty without Slurm, and for batches
        stored before accounts were recorded).

    Examples
    --------
    >>> batch = Batch(1, "j", "k", 2, 3, 100, None, "done", 10.0, 12.5, 13.0, 0.5, 1, None, None, 0)
    >>> batch.queue_seconds, batch.status
    (2.5, 'done')
    """

    id: int
    job: str
    key: str
    circuits: int
    qubits: int
    shots: int
    seed: int | None
    status: str
    submitted: float
    started: float | None
    ended: float | None
    quantum_seconds: float | None
    runs: int
    counts: list[dict[str, int]] | None
    error: str | None
    fetched: int
    user: str = ""
    transpile_seconds: float | None = None
    account: str = ""

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Batch:
        """Build a batch from a row selected with the store's column list.

        Examples
        --------
        >>> row = (1, "j", "k", 1, 2, 10, 7, "done", 1.0, 2.0, 3.0, 0.5, 1, '[{"00": 10}]', None, 0)
        >>> Batch.from_row(row).counts
        [{'00': 10}]
        """
        values = list(row)
        values[13] = None if values[13] is None else json.loads(values[13])
        return cls(*values)

    @property
    def queue_seconds(self) -> float | None:
        """Seconds between acceptance and start, or None before the start."""
        return None if self.started is None else self.started - self.submitted

    def to_json(self) -> dict[str, Any]:
        """Return the public view sent to clients.

        Examples
        --------
        >>> batch = Batch(4, "j", "k", 1, 2, 10, None, "queued", 1.0, None, None, None, 0, None, None, 0)
        >>> view = batch.to_json()
        >>> view["id"], view["status"], view["queue_seconds"], "job" in view
        (4, 'queued', None, False)
        """
        return {
            "id": self.id,
            "key": self.key,
            "status": self.status,
            "submitted": self.submitted,
            "started": self.started,
            "ended": self.ended,
            "quantum_seconds": self.quantum_seconds,
            "queue_seconds": self.queue_seconds,
            "circuits": self.circuits,
            "shots": self.shots,
            "counts": self.counts,
            "error": self.error,
        }


class Queued(NamedTuple):
    """A queued batch as the scheduler sees it: id, job, acceptance time (epoch seconds) and account.

    The account (empty without Slurm) is what ``--policy fair-share`` shares the device between.

    Examples
    --------
    >>> Queued(3, "job-a", 1.5).job, Queued(3, "job-a", 1.5, "physics").account
    ('job-a', 'physics')
    """

    id: int
    job: str
    submitted: float
    account: str = ""
