"""What a submission passes before it is stored: its body's fields, the limits, the sandboxed decoding.

A batch is checked in order of cost, each step only after the previous passed: the
body's fields (:class:`BatchIn`: types, and every integer within SQLite's signed 64
bits); shots; the QPY header (circuits, qubits, clbits and instructions it declares,
and the size of the counts they may give); then the deserialised circuits, nested ones
included, in the memory-capped decoder process of :mod:`backends.vqpu.server.sandbox`:
their sizes, that each measures, and a bound of their counts' size
(:func:`~backends.vqpu.server.limits.result_bytes_bound`). The key and the quotas are
checked by :class:`~backends.vqpu.server.service.VQPUService` before :meth:`Admission.check`.
"""

from __future__ import annotations

import threading

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from backends.vqpu.server.errors import APIError
from backends.vqpu.server.limits import MAX_PENDING_DECODES, SQLITE_INT_MAX, Limits, result_bytes_bound
from backends.vqpu.server.sandbox import CircuitSummary, DecodeLimitError, DecodeWorker
from backends.vqpu.wire import QPYHeader, b64decode_payload, read_qpy_header

__all__ = ["Admission", "BatchIn"]


class BatchIn(BaseModel):
    """Body of ``POST /batches``.

    Fields are strict: integers must be JSON integers (``true``, ``1.0`` and ``"1"``
    are refused) within SQLite's signed 64-bit range, and unknown fields are refused.

    Examples
    --------
    >>> import pydantic
    >>> BatchIn(key="k1", circuits="UUlTS0lU", shots=100).seed is None
    True
    >>> try:
    ...     BatchIn(key="k1", circuits="UUlTS0lU", shots=True)
    ... except pydantic.ValidationError as error:
    ...     print(error.errors()[0]["loc"], error.errors()[0]["type"])
    ('shots',) int_type
    """

    model_config = ConfigDict(extra="forbid")

    key: StrictStr = Field(min_length=1, max_length=128)
    circuits: StrictStr
    shots: StrictInt = Field(ge=1, le=SQLITE_INT_MAX)
    seed: StrictInt | None = Field(default=None, ge=0, le=SQLITE_INT_MAX)

    @field_validator("key")
    @classmethod
    def _utf8(cls, key: str) -> str:
        """Refuse keys SQLite cannot store as UTF-8 text (lone surrogates)."""
        key.encode("utf-8")
        return key


class Admission:
    """The limits a batch must keep, checked cheapest first (see the module's notes).

    Parameters
    ----------
    limits : Limits
        The server's request limits.
    max_qubits, max_shots : int
        The widest circuit and the most shots per circuit accepted (the limits,
        lowered to what the backend accepts).
    decoder : DecodeWorker
        The sandbox that deserialises the circuits; at most
        :data:`~backends.vqpu.server.limits.MAX_PENDING_DECODES` submissions wait for it.

    Attributes
    ----------
    decode_slots : threading.BoundedSemaphore
        One slot per submission being decoded.

    Examples
    --------
    >>> decoder = DecodeWorker(memory_bytes=2**30, timeout=30.0)
    >>> admission = Admission(Limits(), max_qubits=4, max_shots=100, decoder=decoder)
    >>> try:
    ...     admission.check(BatchIn(key="k", circuits="UUlTS0lU", shots=1000))
    ... except APIError as error:
    ...     print(error.status, error.code, error.detail)
    422 too_many_shots shots=1000 exceeds the limit of 100
    >>> admission.decoder.close()
    """

    def __init__(self, limits: Limits, *, max_qubits: int, max_shots: int, decoder: DecodeWorker) -> None:
        self.limits = limits
        self.max_qubits = max_qubits
        self.max_shots = max_shots
        self.decoder = decoder
        self.decode_slots = threading.BoundedSemaphore(MAX_PENDING_DECODES)

    def check(self, body: BatchIn) -> CircuitSummary:
        """Check a batch against the limits, cheapest check first; return the summary of its circuits.

        Raises
        ------
        APIError
            400 for undecodable circuits or a circuit without measurements, 422 when
            a limit is exceeded (shots, or the circuits, qubits, clbits and
            instructions declared in the QPY header or found in the deserialised
            circuits, the size their counts may reach, or the decoder's memory and
            time), 503 when too many submissions are being decoded already.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> from backends.vqpu.wire import encode_circuits
        >>> decoder = DecodeWorker(memory_bytes=2**30, timeout=30.0)
        >>> admission = Admission(Limits(), max_qubits=4, max_shots=100, decoder=decoder)
        >>> circuit = QuantumCircuit(2, 2); _ = circuit.measure([0, 1], [0, 1])
        >>> summary = admission.check(BatchIn(key="k", circuits=encode_circuits([circuit]), shots=10))
        >>> summary.circuits, summary.qubits
        (1, 2)
        >>> admission.decoder.close()
        """
        if body.shots > self.max_shots:
            detail = f"shots={body.shots} exceeds the limit of {self.max_shots}"
            raise APIError(422, "too_many_shots", detail)
        try:
            data = b64decode_payload(body.circuits)
            header = read_qpy_header(data)
        except ValueError as exc:
            raise APIError(400, "bad_circuits", str(exc)) from None
        self._check_sizes(header)
        self._check_result_size(header, body.shots)  # the first circuit's clbits: a lower bound
        if not self.decode_slots.acquire(blocking=False):
            detail = f"{MAX_PENDING_DECODES} submissions are being checked already; retry later"
            raise APIError(503, "busy", detail)
        try:
            summary = self.decoder.summarize(data)
        except ValueError as exc:
            raise APIError(400, "bad_circuits", str(exc)) from None
        except DecodeLimitError as exc:
            raise APIError(422, "circuits_too_large", str(exc)) from None
        except RuntimeError as exc:
            raise APIError(503, "decoder_unavailable", str(exc)) from None
        finally:
            self.decode_slots.release()
        self._check_sizes(summary)
        if summary.nested_qubits > self.max_qubits:
            detail = f"a nested circuit needs {summary.nested_qubits} qubits, the limit is {self.max_qubits}"
            raise APIError(422, "too_many_qubits", detail)
        if summary.unmeasured is not None:
            detail = (
                f"circuits[{summary.unmeasured}] has no measurements; "
                "add measure() or measure_all() so that counts can be returned"
            )
            raise APIError(400, "no_measurements", detail)
        self._check_result_size(summary, body.shots)
        return summary

    def _check_result_size(self, sizes: QPYHeader | CircuitSummary, shots: int) -> None:
        """Refuse a batch whose counts could exceed ``max_result_bytes`` (``sizes.clbits`` the widest).

        Raises
        ------
        APIError
            422 ``result_too_large`` naming the circuits, clbits, shots and both sizes.
        """
        bound = result_bytes_bound(sizes.circuits, sizes.clbits, shots)
        if bound > self.limits.max_result_bytes:
            detail = (
                f"the counts of {sizes.circuits} circuits of {sizes.clbits} clbits at shots={shots} "
                f"may take {bound} bytes, the limit is {self.limits.max_result_bytes}; "
                "send fewer circuits or shots, or measure fewer clbits"
            )
            raise APIError(422, "result_too_large", detail)

    def _check_sizes(self, sizes: QPYHeader | CircuitSummary) -> None:
        """Check the circuits, qubits, clbits and instructions of a header or a summary.

        Raises
        ------
        APIError
            422 naming the first limit exceeded.
        """
        for count, limit, code, detail in (
            (sizes.circuits, self.limits.max_circuits, "too_many_circuits", "batch has {} circuits"),
            (sizes.qubits, self.max_qubits, "too_many_qubits", "a circuit needs {} qubits"),
            (sizes.clbits, self.limits.max_clbits, "too_many_clbits", "a circuit has {} clbits"),
            (
                sizes.instructions,
                self.limits.max_instructions,
                "too_many_instructions",
                "a circuit has {} instructions",
            ),
        ):
            if count > limit:
                raise APIError(422, code, f"{detail.format(count)}, the limit is {limit}")
