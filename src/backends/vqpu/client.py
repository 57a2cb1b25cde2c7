"""The ``vqpu:<url>`` backend: circuits run on a shared vQPU server.

.. code-block:: python

    backend = get_backend("vqpu:http://127.0.0.1:8765", token="...", sleep_factor=2.0)
    backend.run([circuit], shots=1000)  # [{'00': 497, '11': 503}]

Checks, timing records and the sleep factor come from
:class:`~backends.base.BaseBackend`; the execute step sends the batch to the server
and takes the server's start and end timestamps as the quantum execution, so the
record's ``queue_seconds`` is the time the batch waited behind other jobs' batches.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from qiskit import QuantumCircuit

from backends.base import BaseBackend, Execution
from backends.errors import UnknownBackendError
from backends.registry import check_vqpu_url
from backends.vqpu.api import VQPUSession
from backends.vqpu.wire import encode_circuits

__all__ = ["RemoteDevice", "VQPUBackend"]


@dataclass(frozen=True)
class RemoteDevice:
    """The physical device behind a vQPU server, as its ``/health`` reports it.

    Examples
    --------
    >>> RemoteDevice("aer", 20).num_qubits
    20
    """

    name: str
    num_qubits: int


class VQPUBackend(BaseBackend):
    """A job's virtual QPU: a client of a vQPU server.

    Parameters
    ----------
    url : str
        Server address ``http://host:port`` (the part of the spec after ``vqpu:``).
    name : str, optional
        Backend name; default ``vqpu:<url>``.
    token : str, optional
        The job's token; default the environment variable ``VQPU_TOKEN``.
    job : str, optional
        Job label for servers in open mode; default ``SLURM_JOB_ID`` or ``<host>-<pid>``.
    timeout : float
        Seconds allowed for one HTTP request.
    deadline : float
        Seconds of retrying (exponential backoff) on connection errors and 5xx answers
        before :class:`~backends.errors.BackendConnectionError`.
    ca : str or path, optional
        CA bundle of an ``https://`` server's certificate; default ``VQPU_CA``, else the
        system's trust store (:class:`~backends.vqpu.api.VQPUSession`).
    **options
        ``num_qubits``, ``sleep_factor``, ``seed``, ``label`` of
        :class:`~backends.base.BaseBackend`.

    Attributes
    ----------
    max_circuits : int or None
        Most circuits per batch the server accepts (its ``/health`` limits), ``None``
        if it reports none. :class:`~backends.qiskit_backend.QiskitBackend` reports it
        as its ``max_circuits``, so Qiskit's primitives split larger jobs.

    Raises
    ------
    UnknownBackendError
        If ``url`` is not an http(s) address with a host (and a valid port, if any).
    BackendConnectionError
        If the server cannot be reached within ``deadline``.
    backends.vqpu.api.VQPURejectedError
        If the server refuses the token.

    Examples
    --------
    >>> backend = VQPUBackend("http://127.0.0.1:8765", token="tok-a")  # doctest: +SKIP
    >>> backend.device.num_qubits  # doctest: +SKIP
    20
    >>> VQPUBackend("127.0.0.1:8765")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.errors.UnknownBackendError: bad vqpu spec '127.0.0.1:8765': The 'url' parameter must start ...
    """

    def __init__(
        self,
        url: str,
        /,
        *,
        name: str | None = None,
        token: str | None = None,
        job: str | None = None,
        timeout: float = 30.0,
        deadline: float = 60.0,
        ca: str | os.PathLike[str] | None = None,
        **options: Any,
    ) -> None:
        if isinstance(url, str):
            check_vqpu_url(url, name or url)
        try:
            self.session = VQPUSession(url, token=token, job=job, timeout=timeout, deadline=deadline, ca=ca)
        except ValueError as exc:
            raise UnknownBackendError(f"bad vqpu spec {name or url!r}: {exc}") from None
        health = self.session.health()
        super().__init__(
            RemoteDevice(health["backend"], health["num_qubits"]), name=name or f"vqpu:{url}", **options
        )
        self.max_circuits: int | None = health.get("limits", {}).get("max_circuits")

    def _needs_transpile(self, circuits: list[QuantumCircuit]) -> bool:
        """Never here: the server's backend transpiles for the physical device."""
        return False

    def _execute(self, circuits: list[QuantumCircuit], shots: int, seed: int) -> Execution:
        batch = self.session.execute(encode_circuits(circuits), shots, seed)
        return Execution(batch["counts"], (batch["started"], batch["ended"]))
