"""What one request, and all of them together, may ask of a vQPU server.

Every limit is checked before the work it bounds: sizes before reading, the QPY
header before deserialising, the deserialised circuits (in a memory-capped worker
process, within a time limit) before queueing. ``python -m backends.vqpu serve``
has one option per limit (``--max-qubits``, ``--max-decode-seconds``...).

>>> Limits(max_shots=1000).max_shots
1000
>>> Limits(max_queue=0)
Traceback (most recent call last):
...
backends.utils.errors.InvalidParameterError: The 'max_queue' limit must be a positive integer. Got 0 instead.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from numbers import Integral, Real

from backends.utils.errors import InvalidParameterError

__all__ = [
    "MAX_PENDING_DECODES",
    "MAX_WAIT",
    "SQLITE_INT_MAX",
    "Limits",
    "backend_max_shots",
    "result_bytes_bound",
]

#: Longest accepted long-poll, in seconds.
MAX_WAIT = 30.0

#: Largest integer SQLite stores (signed 64 bit); ids, seeds and counts above it are refused.
SQLITE_INT_MAX = 2**63 - 1

#: Submissions waiting for the decoder process at once; more are answered 503 (retry later).
MAX_PENDING_DECODES = 8

#: Limits given in seconds (positive finite numbers); every other limit is a positive integer.
_SECONDS = ("max_decode_seconds", "max_read_seconds")


@dataclass(frozen=True)
class Limits:
    """What one request, and all requests together, may ask of the server.

    Attributes
    ----------
    max_payload_bytes : int
        Largest request body (``Content-Length``), default 8 MiB.
    max_shots : int
        Most shots per circuit. A server lowers it to the backend's own limit
        (``max_shots`` of :class:`~backends.base.BaseBackend`, 1,000,000 for ``aer`` and
        ``null``), so a batch the backend would refuse is refused at submission.
    max_result_bytes : int
        Largest the counts of one batch may grow, as the JSON the server stores and
        answers, default 64 MiB. A batch is refused before it is queued when its
        bound may exceed this (see :meth:`result_bytes`): a few kilobytes of circuits
        with wide classical registers and many shots could otherwise produce
        gigabytes of distinct outcomes.
    max_circuits : int
        Most circuits per batch.
    max_queue : int
        Most batches queued or running at once; further submissions get 429.
    max_batches_per_share : int or None
        Most batches one job may have queued or running per share it holds (a job
        holding ``vqpu:N`` under Slurm-bound access has N shares, any other caller one);
        further submissions of that job get 429 ``job_busy``. None: no bound per job.
    max_qubits : int or None
        Widest circuit, nested definitions included; None means the device's
        ``num_qubits`` (a larger value is lowered to it).
    max_clbits : int
        Most classical bits of a circuit.
    max_instructions : int
        Most instructions of one circuit (and of each nested definition). Batches
        run on a thread of the server, and transpiling for a device with a coupling
        map holds the GIL in one call per circuit (about 0.3 ms per instruction for
        ``iqm-fake:adonis``), so this also bounds how long other requests can stall.
    max_decode_bytes : int
        Memory (address space) the worker process may add while deserialising one
        batch, default 1 GiB; a batch needing more is refused with 422.
    max_decode_seconds : float
        Seconds the worker process may spend deserialising one batch.
    max_read_seconds : float
        Seconds a client has to send a request's head, and again its body; a slower
        client is cut off (408 for a body).
    max_connections : int
        Open connections and requests at once; further requests get 503.
    max_head_bytes : int
        Largest request head (request line and headers), default 64 KiB; a longer one
        gets 431 and its connection is closed as soon as that many bytes arrived. Our
        clients send well under 1 KiB; the HTTP parser joins a header's pieces by
        repeated concatenation on the event loop, so an unbounded head would stall
        every client.

    Raises
    ------
    InvalidParameterError
        If a limit is not a positive integer (positive finite number for seconds).

    Examples
    --------
    >>> limits = Limits(max_circuits=10, max_decode_seconds=2.5)
    >>> limits.max_circuits, limits.max_decode_seconds, limits.max_qubits
    (10, 2.5, None)
    >>> Limits(max_read_seconds=float("inf"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: The 'max_read_seconds' limit must be ... Got inf instead.
    """

    max_payload_bytes: int = 8 * 2**20
    max_shots: int = 100_000
    max_result_bytes: int = 64 * 2**20
    max_circuits: int = 1_000
    max_queue: int = 1_000
    max_batches_per_share: int | None = None
    max_qubits: int | None = None
    max_clbits: int = 1_024
    max_instructions: int = 10_000
    max_decode_bytes: int = 2**30
    max_decode_seconds: float = 10.0
    max_read_seconds: float = 10.0
    max_connections: int = 512
    max_head_bytes: int = 64 * 2**10

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if value is None and name in ("max_qubits", "max_batches_per_share"):
                continue
            if name in _SECONDS:
                if not _is_positive_seconds(value):
                    raise InvalidParameterError(
                        f"The '{name}' limit must be a positive number of seconds. Got {value!r} instead."
                    )
            elif (
                not isinstance(value, Integral)
                or isinstance(value, bool)
                or not 1 <= int(value) <= SQLITE_INT_MAX
            ):
                raise InvalidParameterError(
                    f"The '{name}' limit must be a positive integer. Got {value!r} instead."
                )


def result_bytes_bound(circuits: int, clbits: int, shots: int) -> int:
    """Most bytes the counts of a batch can take as compact JSON (``[{"0110":12,...},...]``).

    Each circuit has at most ``min(shots, 2**clbits)`` distinct outcomes; each outcome
    is a key of ``clbits`` characters in quotes, a colon, a count of at most as many
    digits as ``shots`` and a comma.

    Parameters
    ----------
    circuits : int
        Number of circuits of the batch.
    clbits : int
        Classical bits of the widest circuit (the length of every key at most).
    shots : int
        Shots per circuit.

    Returns
    -------
    int
        An upper bound of the size of the stored and answered counts, in bytes.

    Examples
    --------
    >>> result_bytes_bound(circuits=1, clbits=2, shots=1000)  # 4 outcomes of 10 bytes
    45
    >>> result_bytes_bound(circuits=2, clbits=1024, shots=100_000) > 64 * 2**20
    True
    """
    outcomes = min(shots, 2**clbits)
    return circuits * (outcomes * (clbits + len(str(shots)) + 4) + 3) + 2


def backend_max_shots(backend: object) -> int | None:
    """The most shots per circuit ``backend`` itself accepts, or None if it sets no limit.

    Read from the backend's ``max_shots`` attribute
    (:attr:`backends.base.BaseBackend.max_shots`); a backend without one (any other
    :class:`~backends.base.QuantumBackend`) sets no limit. A server accepts at most
    this many shots per circuit, whatever its own ``max_shots``.

    Parameters
    ----------
    backend : QuantumBackend
        The physical backend of a server.

    Returns
    -------
    int or None

    Examples
    --------
    >>> from backends import get_backend
    >>> backend_max_shots(get_backend("null")), backend_max_shots(object())
    (1000000, None)
    """
    max_shots = getattr(backend, "max_shots", None)
    return None if max_shots is None else int(max_shots)


def _is_positive_seconds(value: object) -> bool:
    """Whether ``value`` is a finite real number > 0 (bools refused)."""
    return (
        isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value) and float(value) > 0
    )
