"""What travels between vQPU client and server: circuits as base64-encoded QPY.

Both sides call these two functions, so the encoding lives in one place.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence

from qiskit import QuantumCircuit, qpy

__all__ = ["decode_circuits", "encode_circuits"]


def encode_circuits(circuits: Sequence[QuantumCircuit]) -> str:
    """Serialise circuits with QPY and return the payload as base64 text.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> qc = QuantumCircuit(1, 1); _ = qc.measure(0, 0)
    >>> [c.num_qubits for c in decode_circuits(encode_circuits([qc]))]
    [1]
    """
    buffer = io.BytesIO()
    qpy.dump(list(circuits), buffer)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def decode_circuits(payload: str | bytes) -> list[QuantumCircuit]:
    """Inverse of :func:`encode_circuits`.

    Raises
    ------
    ValueError
        If ``payload`` is not base64-encoded QPY holding circuits.
    """
    try:
        circuits = qpy.load(io.BytesIO(base64.b64decode(payload, validate=True)))
    except Exception as exc:  # noqa: BLE001 - any decoding failure is bad input
        raise ValueError(f"circuits are not base64-encoded QPY: {exc}") from exc
    if not circuits or not all(isinstance(c, QuantumCircuit) for c in circuits):
        raise ValueError("circuits are not base64-encoded QPY: the payload holds no circuits")
    return circuits
