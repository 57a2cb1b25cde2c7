"""Deserialise untrusted QPY in a worker process that cannot take the server's memory or time.

A QPY payload is small but may declare huge circuits (e.g. a custom gate whose
definition has 2**25 qubits): deserialising it can take gigabytes and minutes while
holding the GIL. :class:`DecodeWorker` therefore deserialises each payload in one
long-lived worker process (a ``python -c`` subprocess) whose address space is capped
with ``RLIMIT_AS`` and whose answer is awaited for a limited time; a worker that
runs out of memory, crashes or overruns is killed and replaced. The worker sends
back only a :class:`CircuitSummary`, never the circuits.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import struct
import subprocess
import sys
import threading
from typing import Any, BinaryIO, NamedTuple

__all__ = ["CircuitSummary", "DecodeLimitError", "DecodeWorker", "summarize_circuits"]

log = logging.getLogger("backends.vqpu")

#: Seconds a new worker may take to import Qiskit and report ready.
STARTUP_SECONDS = 120.0


class CircuitSummary(NamedTuple):
    """Sizes of the circuits of a payload, nested circuits included.

    Attributes
    ----------
    circuits : int
        Number of top-level circuits.
    qubits : int
        Widest top-level circuit (the width the device needs).
    nested_qubits : int
        Widest circuit anywhere: top level, control-flow blocks, custom definitions.
    clbits : int
        Most classical bits of any circuit.
    instructions : int
        Most instructions of any circuit.
    unmeasured : int or None
        Index of the first top-level circuit without a measurement (the device
        could return no counts for it), None when every circuit measures.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> summary = summarize_circuits([QuantumCircuit(3, 1)])
    >>> summary.qubits, summary.clbits, summary.instructions, summary.unmeasured
    (3, 1, 0, 0)
    """

    circuits: int
    qubits: int
    nested_qubits: int
    clbits: int
    instructions: int
    unmeasured: int | None


class DecodeLimitError(RuntimeError):
    """Deserialising a payload needed more memory or time than the worker may use.

    Examples
    --------
    >>> str(DecodeLimitError("deserialising the circuits took longer than 10 s"))
    'deserialising the circuits took longer than 10 s'
    """


def summarize_circuits(circuits: list[Any]) -> CircuitSummary:
    """Measure ``circuits`` and every circuit nested in their instructions.

    Nested circuits are the blocks of control-flow operations and the definitions
    that came with custom instructions (``_definition``, not the lazily built
    definitions of standard gates); each is visited once. A circuit counts as
    measured when its own instructions include a ``measure``, as the backends check
    before running it.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> inner = QuantumCircuit(4); _ = inner.h(range(4))
    >>> outer = QuantumCircuit(4, 1); _ = outer.append(inner.to_gate(), range(4))
    >>> _ = outer.measure(0, 0)
    >>> summarize_circuits([outer, QuantumCircuit(2)])
    CircuitSummary(circuits=2, qubits=4, nested_qubits=4, clbits=1, instructions=4, unmeasured=1)
    """
    seen: set[int] = set()
    stack = list(circuits)
    nested_qubits = clbits = instructions = 0
    while stack:
        circuit = stack.pop()
        if id(circuit) in seen:
            continue
        seen.add(id(circuit))
        nested_qubits = max(nested_qubits, circuit.num_qubits)
        clbits = max(clbits, circuit.num_clbits)
        instructions = max(instructions, len(circuit.data))
        for instruction in circuit.data:
            operation = instruction.operation
            stack.extend(getattr(operation, "blocks", ()))
            for owner in (
                operation,
                getattr(operation, "base_gate", None),
                getattr(operation, "base_op", None),
            ):
                if (definition := getattr(owner, "_definition", None)) is not None:
                    stack.append(definition)
    return CircuitSummary(
        circuits=len(circuits),
        qubits=max((c.num_qubits for c in circuits), default=0),
        nested_qubits=nested_qubits,
        clbits=clbits,
        instructions=instructions,
        unmeasured=next((index for index, c in enumerate(circuits) if "measure" not in c.count_ops()), None),
    )


def _address_space() -> int | None:
    """Bytes of address space (``VmSize``) this process uses, or None off Linux."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    """``size`` bytes from ``stream``; EOFError if it ends first."""
    data = stream.read(size)
    if len(data) != size:
        raise EOFError("the stream ended")
    return data


def _write_answer(stream: BinaryIO, kind: str, value: object) -> None:
    """One answer of the worker: a JSON line ``[kind, value]``."""
    stream.write(json.dumps([kind, value]).encode() + b"\n")
    stream.flush()


def worker_main(memory_bytes: int) -> None:
    """Main loop of the worker process: cap the address space, then summarise payloads.

    Requests arrive on stdin as an 8-byte big-endian length and the raw QPY bytes.
    Each answer is a JSON line on the original stdout (fd 1 is pointed at stderr, so
    a stray print cannot garble it): ``["ok", summary]`` (the fields of
    :class:`CircuitSummary` as a list, in order), ``["error", message]`` for
    bad QPY, or ``["memory", message]``, after which the worker exits (its heap may
    be in pieces). The first line, ``["ready", null]``, says the worker is ready.
    """
    import resource

    from backends.vqpu.wire import load_circuits

    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    if (used := _address_space()) is not None:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = used + memory_bytes
        resource.setrlimit(
            resource.RLIMIT_AS, (cap, cap if hard == resource.RLIM_INFINITY else min(cap, hard))
        )
    _write_answer(answers, "ready", None)
    while True:
        try:
            (size,) = struct.unpack("!Q", _read_exactly(requests, 8))
            data = _read_exactly(requests, size)
        except EOFError:
            return
        try:
            summary = summarize_circuits(load_circuits(data))
        except MemoryError:
            _write_answer(answers, "memory", "out of memory")
            return
        except ValueError as exc:
            _write_answer(answers, "error", str(exc))
        except Exception as exc:  # noqa: BLE001 - anything else a hostile payload provokes is bad input
            _write_answer(
                answers, "error", f"circuits are not base64-encoded QPY: {type(exc).__name__}: {exc}"
            )
        else:
            _write_answer(answers, "ok", list(summary))


class DecodeWorker:
    """Deserialise QPY payloads in one memory-capped worker process, one at a time.

    Parameters
    ----------
    memory_bytes : int
        Address space the worker may add to what it uses after importing Qiskit
        (``RLIMIT_AS``; Linux only, elsewhere only the time limit holds).
    timeout : float
        Seconds allowed for one payload; the worker is killed when it overruns.

    Notes
    -----
    The worker is a ``python -c`` subprocess that finds this package on the
    parent's ``sys.path``; it is started on first use and again after it died or
    was killed. Calls are thread-safe (payloads wait for each other); :meth:`close`
    stops the worker.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> from backends.vqpu.wire import b64decode_payload, encode_circuits
    >>> worker = DecodeWorker(memory_bytes=2**30, timeout=30.0)  # no process yet
    >>> payload = b64decode_payload(encode_circuits([QuantumCircuit(2, 2)]))
    >>> worker.summarize(payload)  # starts the worker process
    CircuitSummary(circuits=1, qubits=2, nested_qubits=2, clbits=2, instructions=0, unmeasured=0)
    >>> worker.close()
    """

    def __init__(self, *, memory_bytes: int, timeout: float) -> None:
        self.memory_bytes = memory_bytes
        self.timeout = timeout
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None

    def summarize(self, data: bytes) -> CircuitSummary:
        """Deserialise raw QPY ``data`` in the worker and return its summary.

        Raises
        ------
        ValueError
            If ``data`` is not QPY holding circuits (or crashes the worker).
        DecodeLimitError
            If deserialising needs more than ``memory_bytes`` or ``timeout`` seconds.
        RuntimeError
            If no worker process can be started.

        Examples
        --------
        >>> worker = DecodeWorker(memory_bytes=2**30, timeout=30.0)
        >>> try:
        ...     worker.summarize(b"QISKIT but not QPY")
        ... except ValueError as error:
        ...     print(str(error).startswith("circuits are not base64-encoded QPY"))
        True
        >>> worker.close()
        """
        with self._lock:
            try:
                process = self._send(data)
            except OSError:  # the worker died since the last payload: once more with a new one
                self._kill()
                process = self._send(data)
            line = self._read_line(process, self.timeout)
            if line is None:
                self._kill()
                raise DecodeLimitError(f"deserialising the circuits took longer than {self.timeout:g} s")
            if not line:
                ended = self._kill()
                raise ValueError(f"circuits are not base64-encoded QPY: they crashed the decoder ({ended})")
            kind, value = json.loads(line)
            if kind == "memory":
                self._kill()
                raise DecodeLimitError(
                    f"deserialising the circuits needs more than {self.memory_bytes / 2**20:g} MiB"
                )
            if kind == "error":
                raise ValueError(value)
            return CircuitSummary(*value)

    def _send(self, data: bytes) -> subprocess.Popen[bytes]:
        """Send one payload to a live worker (started first if needed); return the worker."""
        process = self._ready()
        assert process.stdin is not None
        process.stdin.write(struct.pack("!Q", len(data)) + data)
        process.stdin.flush()
        return process

    def _ready(self) -> subprocess.Popen[bytes]:
        """A live worker; start one, and wait until it is ready, if needed."""
        if self._process is not None and self._process.poll() is None:
            return self._process
        self._kill()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path for path in sys.path if path)}
        self._process = process = subprocess.Popen(
            [sys.executable, "-c", f"from {__name__} import worker_main; worker_main({self.memory_bytes})"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        line = self._read_line(process, STARTUP_SECONDS)
        if not line or json.loads(line)[0] != "ready":
            ended = self._kill()
            raise RuntimeError(f"the decoder process did not start within {STARTUP_SECONDS:g} s ({ended})")
        return process

    @staticmethod
    def _read_line(process: subprocess.Popen[bytes], timeout: float) -> bytes | None:
        """The worker's next answer line; ``b""`` if it ended, None if none came within ``timeout``."""
        assert process.stdout is not None
        poller = select.poll()  # not select(): it fails on descriptors past 1023 in a busy server
        poller.register(process.stdout, select.POLLIN)
        ready = poller.poll(timeout * 1000)
        return process.stdout.readline() if ready else None

    def _kill(self) -> str:
        """Stop the worker (if any) and forget it; return how it ended, for messages."""
        process, self._process = self._process, None
        if process is None:
            return "no process"
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        return f"exit code {process.returncode}"

    def close(self) -> None:
        """Stop the worker; safe to call twice.

        Examples
        --------
        >>> worker = DecodeWorker(memory_bytes=2**30, timeout=1.0)
        >>> worker.close(); worker.close()
        """
        with self._lock:
            self._kill()
