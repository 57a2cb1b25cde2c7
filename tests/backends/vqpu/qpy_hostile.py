"""Hostile payloads for the vQPU tests: QPY with patched headers, raw HTTP, process memory."""

from __future__ import annotations

import io
import socket
import struct

from qiskit import QuantumCircuit, qpy

#: Offsets in a QPY version >= 12 payload: the file header's ``num_programs``, then the
#: first circuit's ``num_qubits``, ``num_clbits``, ``num_instructions`` (after the type key).
FIELDS = {"circuits": (10, "!Q"), "qubits": (25, "!I"), "clbits": (29, "!I"), "instructions": (45, "!Q")}


def qpy_bytes(circuits) -> bytes:
    buffer = io.BytesIO()
    qpy.dump(list(circuits), buffer)
    return buffer.getvalue()


def patch_first_header(data: bytes, **fields: int) -> bytes:
    """``data`` with header fields (``circuits``, ``qubits``, ``clbits``, ``instructions``) replaced."""
    assert data[6] >= 12, "offsets are those of QPY version 12 on"
    patched = bytearray(data)
    for name, value in fields.items():
        offset, form = FIELDS[name]
        struct.pack_into(form, patched, offset, value)
    return bytes(patched)


def hostile_header(*, qubits: int) -> bytes:
    """A one-qubit circuit whose header declares ``qubits`` qubits."""
    circuit = QuantumCircuit(1, 1)
    circuit.h(0)
    circuit.measure(0, 0)
    return patch_first_header(qpy_bytes([circuit]), qubits=qubits)


def nested_definition(qubits: int) -> bytes:
    """A one-qubit circuit with a custom gate whose stored definition declares ``qubits`` qubits.

    The top-level header is harmless: only deserialising finds the wide definition.
    """
    definition = QuantumCircuit(1, name="hostile-definition")
    definition.h(0)
    gate = definition.to_gate()
    gate.name = "hostile"
    circuit = QuantumCircuit(1, 1)
    circuit.append(gate, [0])
    circuit.measure(0, 0)
    data = bytearray(qpy_bytes([circuit]))
    name = data.find(b"hostile-definition")
    offset = name - struct.calcsize("!H1cHIIQIQI") + struct.calcsize("!H1cH")  # its header's num_qubits
    assert struct.unpack_from("!I", data, offset) == (1,)
    struct.pack_into("!I", data, offset, qubits)
    return bytes(data)


def raw_request(url: str, data: bytes, *, timeout: float) -> bytes:
    """Send raw bytes to the server and return everything it answers until it closes (or ``timeout``)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(data)
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except TimeoutError:
            pass
    return answer


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` (Linux ``/proc``)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")
