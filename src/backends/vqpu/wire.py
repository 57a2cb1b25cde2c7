"""What travels between vQPU client and server: circuits as base64-encoded QPY.

Both sides call :func:`encode_circuits` and :func:`decode_circuits`, so the encoding
lives in one place. The server reads a payload's QPY header with
:func:`read_qpy_header` first, which only unpacks a few fixed-size structs, so a
payload that declares more circuits, qubits or instructions than allowed is refused
before any of it is deserialised.
"""

from __future__ import annotations

import base64
import binascii
import io
import struct
from collections.abc import Sequence
from typing import NamedTuple

from qiskit import QuantumCircuit, qpy

__all__ = [
    "QPYHeader",
    "b64decode_payload",
    "decode_circuits",
    "encode_circuits",
    "load_circuits",
    "read_qpy_header",
]

#: ``FILE_HEADER`` of QPY: magic, format version, Qiskit version, number of programs
#: (plus the symbolic encoding from version 10 on).
_FILE_HEADER = {False: struct.Struct("!6sBBBBQ"), True: struct.Struct("!6sBBBBQc")}
#: Circuit ``HEADER`` of QPY version 1, versions 2 to 11, and version 12 on (``num_vars`` added).
_CIRCUIT_HEADER_V1 = struct.Struct("!HdIIQIQ")
_CIRCUIT_HEADER_V2 = struct.Struct("!H1cHIIQIQ")
_CIRCUIT_HEADER_V12 = struct.Struct("!H1cHIIQIQI")
#: Program type key written after the file header from QPY version 5 on.
_CIRCUIT_TYPE_KEY = b"q"


class QPYHeader(NamedTuple):
    """What the header of a QPY payload declares.

    Attributes
    ----------
    version : int
        QPY format version.
    circuits : int
        Number of programs in the payload.
    qubits, clbits, instructions : int
        ``num_qubits``, ``num_clbits`` and ``num_instructions`` of the first circuit
        (the others follow its body, so they are only known once it is read).

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> payload = b64decode_payload(encode_circuits([QuantumCircuit(5, 1)]))
    >>> read_qpy_header(payload)._replace(version=0)
    QPYHeader(version=0, circuits=1, qubits=5, clbits=1, instructions=0)
    """

    version: int
    circuits: int
    qubits: int
    clbits: int
    instructions: int


def read_qpy_header(data: bytes) -> QPYHeader:
    """Unpack the file header and the first circuit's header of a QPY payload.

    Only fixed-size structs of the documented QPY layout are read (``FILE_HEADER``,
    the program type key and the circuit ``HEADER`` of the payload's format
    version); nothing is deserialised, so this is safe on hostile input.

    Parameters
    ----------
    data : bytes
        Raw QPY bytes (base64-decoded).

    Returns
    -------
    QPYHeader

    Raises
    ------
    ValueError
        If ``data`` is not QPY of a version this Qiskit reads, holds no circuit, or
        is too short for its headers.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> qc = QuantumCircuit(3, 2); _ = qc.h(0)
    >>> header = read_qpy_header(b64decode_payload(encode_circuits([qc, qc])))
    >>> header.circuits, header.qubits, header.clbits, header.instructions
    (2, 3, 2, 1)
    >>> read_qpy_header(b"hello world")
    Traceback (most recent call last):
    ...
    ValueError: circuits are not base64-encoded QPY: the payload does not start with b'QISKIT'
    """
    if data[:6] != b"QISKIT" or len(data) < 7:
        raise ValueError("circuits are not base64-encoded QPY: the payload does not start with b'QISKIT'")
    version = data[6]
    if not 1 <= version <= qpy.QPY_VERSION:
        raise ValueError(
            f"circuits are not base64-encoded QPY: format version {version} is not in 1..{qpy.QPY_VERSION}"
        )
    file_header = _FILE_HEADER[version >= 10]
    if version >= 12:
        circuit_header = _CIRCUIT_HEADER_V12
    else:
        circuit_header = _CIRCUIT_HEADER_V2 if version >= 2 else _CIRCUIT_HEADER_V1
    offset = file_header.size + (1 if version >= 5 else 0)
    if len(data) < offset + circuit_header.size:
        raise ValueError(
            f"circuits are not base64-encoded QPY: {len(data)} bytes are too few for its headers"
        )
    programs = file_header.unpack_from(data)[5]
    if version >= 5 and data[offset - 1 : offset] != _CIRCUIT_TYPE_KEY:
        raise ValueError("circuits are not base64-encoded QPY: the payload holds no circuits")
    if programs == 0:
        raise ValueError("circuits are not base64-encoded QPY: the payload holds no circuits")
    fields = circuit_header.unpack_from(data, offset)
    qubits, clbits, instructions = (fields[i] for i in ((2, 3, 6) if version < 2 else (3, 4, 7)))
    return QPYHeader(version, programs, qubits, clbits, instructions)


def b64decode_payload(payload: str | bytes) -> bytes:
    """Return the raw QPY bytes of a base64 payload.

    Raises
    ------
    ValueError
        If ``payload`` is not strict base64.

    Examples
    --------
    >>> b64decode_payload("UUlTS0lU")
    b'QISKIT'
    >>> b64decode_payload("not base64!")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: circuits are not base64-encoded QPY: ...
    """
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"circuits are not base64-encoded QPY: {exc}") from None


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
    MemoryError
        If the circuits do not fit in memory (hostile payloads can declare huge
        circuits: the server deserialises in :mod:`backends.vqpu.server.sandbox`).

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> bell = QuantumCircuit(2, 2); _ = bell.h(0); _ = bell.cx(0, 1)
    >>> [decoded] = decode_circuits(encode_circuits([bell]))
    >>> decoded == bell
    True
    >>> decode_circuits("UUlTS0lU")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: circuits are not base64-encoded QPY: ...
    """
    return load_circuits(b64decode_payload(payload))


def load_circuits(data: bytes) -> list[QuantumCircuit]:
    """Deserialise raw QPY ``data`` holding circuits (no base64).

    Raises
    ------
    ValueError
        If ``data`` is not QPY holding circuits.
    MemoryError
        If the circuits do not fit in memory.

    Examples
    --------
    >>> import io
    >>> from qiskit import QuantumCircuit, qpy
    >>> buffer = io.BytesIO(); qpy.dump([QuantumCircuit(3)], buffer)
    >>> [c.num_qubits for c in load_circuits(buffer.getvalue())]
    [3]
    """
    try:
        circuits = qpy.load(io.BytesIO(data))
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - any decoding failure is bad input
        raise ValueError(f"circuits are not base64-encoded QPY: {exc}") from exc
    if not circuits or not all(isinstance(c, QuantumCircuit) for c in circuits):
        raise ValueError("circuits are not base64-encoded QPY: the payload holds no circuits")
    return circuits
