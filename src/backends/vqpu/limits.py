"""What one request may ask of a vQPU server.

>>> Limits(max_shots=1000).max_shots
1000
>>> Limits(max_queue=0)
Traceback (most recent call last):
...
backends.errors.InvalidParameterError: The 'max_queue' limit must be a positive integer. Got 0 instead.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from numbers import Integral

from backends.errors import InvalidParameterError

__all__ = ["MAX_WAIT", "Limits"]

#: Longest accepted long-poll, in seconds.
MAX_WAIT = 30.0


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server.

    Attributes
    ----------
    max_payload_bytes : int
        Largest request body.
    max_shots : int
        Most shots per circuit.
    max_circuits : int
        Most circuits per batch.
    max_queue : int
        Most batches queued or running at once; further submissions get 429.
    max_qubits : int or None
        Widest circuit; None means the device's ``num_qubits``.

    Raises
    ------
    InvalidParameterError
        If a limit is not a positive integer.
    """

    max_payload_bytes: int = 8 * 2**20
    max_shots: int = 100_000
    max_circuits: int = 1_000
    max_queue: int = 1_000
    max_qubits: int | None = None

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if value is None and name == "max_qubits":
                continue
            if not isinstance(value, Integral) or isinstance(value, bool) or value < 1:
                raise InvalidParameterError(
                    f"The '{name}' limit must be a positive integer. Got {value!r} instead."
                )
