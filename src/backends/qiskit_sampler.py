"""Any backend as a Qiskit ``SamplerV2``: ``sampler = get_sampler(spec)``.

.. code-block:: python

    from backends import get_sampler

    sampler = get_sampler("vqpu:http://127.0.0.1:8765")  # instead of a Qiskit sampler
    result = sampler.run([(circuit, parameter_values)], shots=1000).result()
    result[0].data.meas.get_counts()  # one BitArray per classical register

:class:`Sampler` is Qiskit's :class:`~qiskit.primitives.BackendSamplerV2` over a
:class:`~backends.qiskit_backend.QiskitBackend`, so pubs, parameter binding, shots per
pub and the ``DataBin`` of ``BitArray`` s (one per classical register, named after it)
are Qiskit's own; the circuits run on the wrapped backend, which transpiles them for
its device. Two additions: each job runs in a copy of the calling context (so a
:func:`~backends.timing.record_timings` block around ``run(...).result()`` sees its
executions), and ``result.metadata["timings"]`` lists the job's
:class:`~backends.timing.TimingRecord` s, one per distinct shots value.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable
from typing import Any

import numpy as np
from qiskit.primitives import BackendSamplerV2, PrimitiveJob, PrimitiveResult, SamplerPubResult
from qiskit.primitives.containers import SamplerPubLike
from qiskit.primitives.containers.sampler_pub import SamplerPub

from backends.base import QuantumBackend
from backends.qiskit_backend import QiskitBackend, get_qiskit_backend
from backends.timing import record_timings
from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_positive_int

__all__ = ["Sampler", "get_sampler"]


class Sampler(BackendSamplerV2):
    """A Qiskit ``BaseSamplerV2`` that runs on a :class:`~backends.qiskit_backend.QiskitBackend`.

    Parameters
    ----------
    backend : QiskitBackend
        Where the circuits run.
    default_shots : int, optional
        Shots of pubs that give none, when ``run`` gives none either. Default 1024.

    Raises
    ------
    InvalidParameterError
        If ``default_shots`` is not a positive integer.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> from qiskit.circuit import Parameter
    >>> theta = Parameter("theta")
    >>> circuit = QuantumCircuit(1)
    >>> _ = circuit.rx(theta, 0)
    >>> circuit.measure_all()
    >>> sampler = get_sampler("aer", seed=5)
    >>> result = sampler.run([(circuit, [[0.0], [3.141592653589793]])], shots=8).result()
    >>> result[0].data.meas.get_counts(0), result[0].data.meas.get_counts(1)
    ({'0': 8}, {'1': 8})
    >>> [record.shots for record in result.metadata["timings"]]
    [8]
    """

    def __init__(self, backend: QiskitBackend, *, default_shots: int = 1024) -> None:
        super().__init__(
            backend=backend, options={"default_shots": check_positive_int(default_shots, "default_shots")}
        )

    def __repr__(self) -> str:
        return f"Sampler({self.backend!r}, default_shots={self.options.default_shots})"

    def run(
        self, pubs: Iterable[SamplerPubLike], *, shots: int | None = None
    ) -> PrimitiveJob[PrimitiveResult[SamplerPubResult]]:
        """Run pubs ``(circuit[, parameter_values[, shots]])``; return the (running) job.

        As :meth:`qiskit.primitives.BackendSamplerV2.run`, except that the job runs in a
        copy of the calling context.

        Parameters
        ----------
        pubs : iterable of SamplerPubLike
            Circuits with their parameter values (array of shape ``(..., num_parameters)``)
            and optional shots.
        shots : int or None, optional
            Shots of the pubs that give none; default :attr:`options` ``.default_shots``.

        Returns
        -------
        PrimitiveJob
            Its result holds one ``SamplerPubResult`` per pub, and
            ``metadata["timings"]``.

        Raises
        ------
        InvalidParameterError
            If a parameter value is NaN or infinite (the message names the parameter).
        ValueError
            If a pub is malformed (Qiskit's checks: parameter values, shots).

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> circuit = QuantumCircuit(2)
        >>> _ = circuit.x(0)
        >>> circuit.measure_all()
        >>> result = get_sampler("aer", seed=1).run([circuit], shots=6).result()
        >>> result[0].data.meas.get_counts()
        {'01': 6}
        """
        shots = self.options.default_shots if shots is None else shots
        coerced_pubs = [SamplerPub.coerce(pub, shots) for pub in pubs]
        self._validate_pubs(coerced_pubs)
        for index, pub in enumerate(coerced_pubs):
            _check_finite_values(pub, index)
        job = PrimitiveJob(contextvars.copy_context().run, self._run, coerced_pubs)
        job._submit()
        return job

    def _run(self, pubs: list[SamplerPub]) -> PrimitiveResult[SamplerPubResult]:
        with record_timings() as timings:
            result = super()._run(pubs)
        result.metadata["timings"] = timings
        return result


def _check_finite_values(pub: SamplerPub, index: int) -> None:
    """Raise if a parameter value of ``pub`` (``pubs[index]``) is NaN or infinite, naming the parameter."""
    for names, values in pub.parameter_values.data.items():
        bad = ~np.isfinite(values)
        if bad.any():
            where = tuple(np.argwhere(bad)[0])
            name, value = names[where[-1]], float(values[where])
            raise InvalidParameterError(f"parameter {name!r} of pubs[{index}] must be finite, got {value!r}")


def get_sampler(spec: str | QuantumBackend, *, default_shots: int = 1024, **options: Any) -> Sampler:
    """Return a Qiskit ``BaseSamplerV2`` running on the backend named by ``spec``.

    Parameters
    ----------
    spec : str or QuantumBackend
        Any spec :func:`~backends.registry.get_backend` accepts (``"aer"``,
        ``"iqm-fake:adonis"``, ``"vqpu:http://host:port"``...), or a backend.
    default_shots : int, optional
        Shots of pubs that give none. Default 1024.
    **options
        As for :func:`~backends.registry.get_backend` (``seed``, ``sleep_factor``,
        ``token``...).

    Returns
    -------
    Sampler

    Raises
    ------
    UnknownBackendError, BackendUnavailableError, InvalidParameterError
        As :func:`~backends.registry.get_backend`, or if ``default_shots`` is not a
        positive integer.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> circuit = QuantumCircuit(1)
    >>> _ = circuit.x(0)
    >>> circuit.measure_all()
    >>> sampler = get_sampler("aer", default_shots=10, seed=1)
    >>> sampler.run([circuit]).result()[0].data.meas.get_counts()
    {'1': 10}
    """
    default_shots = check_positive_int(default_shots, "default_shots")  # before connecting
    return Sampler(get_qiskit_backend(spec, **options), default_shots=default_shots)
