"""Expectation values of Z-type observables, reconstructed from cut subexperiments.

For a product of Z's, term ``t``, the reconstruction is
``<O_t> = sum_i a_i prod_L m_{L,t}^(i)`` with ``m_{L,t}^(i)`` the mean over the shots of
subexperiment ``i`` of fragment ``L`` of ``(-1)**(parity of cut bits + parity of O_t's bits)``.
qiskit-addon-cutting's ``reconstruct_expectation_values`` loops over shots in Python; here
each fragment's shots are binned once with ``bincount`` into a signed histogram over its
``2**w`` outcomes and multiplied by a ``(2**w, T)`` table of parities.
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from qiskit.primitives.containers import BitArray, DataBin, PrimitiveResult, SamplerPubResult
from qiskit.quantum_info import PauliList
from qiskit_addon_cutting import expand_observables, partition_problem
from qiskit_addon_cutting.qpd import WeightType

from backends import QuantumBackend
from backends.utils.errors import InvalidParameterError

from .execute import CutResults, register_values, run_subexperiments
from .plan import CutPlan

__all__ = ["EnergyEstimate", "histograms", "expectation_values", "energy", "expectation", "library_arguments"]


class EnergyEstimate(NamedTuple):
    """Reconstructed QUBO energy.

    Attributes
    ----------
    value : float
        Estimate of ``<f>``, offset included.
    standard_error : float
        Delta-method standard error from the shot noise of every fragment histogram.

    Examples
    --------
    >>> est = EnergyEstimate(value=-1.68, standard_error=0.02)
    >>> value, error = est  # a named tuple
    >>> f"{value:.2f} +- {est.standard_error:.2f}"
    '-1.68 +- 0.02'
    """

    value: float
    standard_error: float


def histograms(
    plan: CutPlan, results: CutResults, label: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Signed and unsigned outcome histograms of one fragment.

    Parameters
    ----------
    plan : CutPlan
    results : CutResults
    label : int
        Fragment label, of width ``w = len(plan.fragments[label].qubits)`` measured qubits.

    Returns
    -------
    signed : ndarray of shape (8**K, 2**w)
        ``q_L^(i)(x)``: probability of outcome ``x`` with even cut parity minus with odd parity.
    unsigned : ndarray of shape (8**K, 2**w)
        Probability of outcome ``x``.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem, qaoa
    >>> from cutting import cut_qaoa, run_subexperiments
    >>> problem = MISProblem(nx.path_graph(5))
    >>> plan = cut_qaoa(problem, 3)
    >>> results = run_subexperiments(plan, (0.4, 0.2), "aer", shots=500, seed=1)
    >>> signed, unsigned = histograms(plan, results, 1)  # fragment 1 measures qubits 2, 3, 4
    >>> signed.shape, unsigned.sum(axis=1).round(12).tolist()
    ((8, 8), [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    >>> bool((abs(signed) <= unsigned + 1e-12).all())
    True
    """
    shots = results.fragments[label]
    size = 1 << len(plan.fragments[label].qubits)
    count = len(plan.coefficients)
    index = shots.experiment * size + shots.outcome
    signed = np.bincount(index, weights=shots.weight * shots.sign, minlength=count * size)
    unsigned = np.bincount(index, weights=shots.weight, minlength=count * size)
    # bincount with weights is float64 already; astype(copy=False) only tells the type checker
    return (
        signed.astype(np.float64, copy=False).reshape(count, size),
        unsigned.astype(np.float64, copy=False).reshape(count, size),
    )


def _z_masks(observables: PauliList, num_qubits: int) -> NDArray[np.bool_]:
    """Z support of every observable, shape (T, n); checks that they are Z-type on ``n`` qubits."""
    if observables.num_qubits != num_qubits:
        raise InvalidParameterError(
            f"observables act on {observables.num_qubits} qubits, the plan's circuit has {num_qubits}"
        )
    if observables.x.any():
        raise InvalidParameterError("observables must be products of Z and I (the subexperiments measure Z)")
    return observables.z


def _parities(qubits: tuple[int, ...], masks: NDArray[np.bool_]) -> NDArray[np.float64]:
    """``(-1)**popcount(x & mask_t)`` as an ndarray of shape (2**w, T)."""
    local = masks[:, list(qubits)].astype(np.int64) @ (1 << np.arange(len(qubits), dtype=np.int64))
    x = np.arange(1 << len(qubits), dtype=np.int64)
    return 1.0 - 2.0 * (np.bitwise_count(x[:, None] & local[None, :]) & 1)


#: Per fragment: signed and unsigned histograms, parity table and means (see :func:`_fragment_means`).
_Means: TypeAlias = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]


def _fragment_means(plan: CutPlan, results: CutResults, masks: NDArray[np.bool_]) -> list[_Means]:
    """Per fragment: (signed, unsigned, parity table, means of shape (8**K, T))."""
    out = []
    for fragment in plan.fragments:
        signed, unsigned = histograms(plan, results, fragment.label)
        parity = _parities(fragment.qubits, masks)
        out.append((signed, unsigned, parity, signed @ parity))
    return out


def expectation_values(plan: CutPlan, results: CutResults, observables: PauliList) -> NDArray[np.float64]:
    """Vectorised reconstruction of Z-type expectation values.

    Parameters
    ----------
    plan : CutPlan
    results : CutResults
    observables : PauliList
        ``T`` products of ``Z`` and ``I`` on the plan's ``n`` original qubits.

    Returns
    -------
    ndarray of shape (T,)
        Equal to ``reconstruct_expectation_values(*library_arguments(plan, results,
        observables))[1:]`` up to rounding.

    Raises
    ------
    InvalidParameterError
        If an observable has X or Y factors or the wrong number of qubits.

    Examples
    --------
    >>> from qiskit.quantum_info import Statevector
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem, qaoa
    >>> from cutting import cut_qaoa, run_subexperiments
    >>> problem = MISProblem(nx.path_graph(5))
    >>> plan = cut_qaoa(problem, 3)
    >>> results = run_subexperiments(plan, (0.4, 0.2), "aer", shots=2000, seed=1)
    >>> observables = PauliList(["IIIIZ", "ZIIIZ"])  # Z_0 and Z_0 Z_4 (qubit 0 rightmost)
    >>> uncut = qaoa.circuit(problem, measure=False).assign_parameters({"gamma": 0.4, "beta": 0.2})
    >>> state = Statevector(uncut)
    >>> exact = [state.expectation_value(o).real for o in observables]
    >>> bool(abs(expectation_values(plan, results, observables) - exact).max() < 0.05)
    True
    """
    masks = _z_masks(observables, plan.num_qubits)
    means = [m for *_, m in _fragment_means(plan, results, masks)]
    return plan.weights @ np.prod(means, axis=0)


def energy(plan: CutPlan, results: CutResults) -> EnergyEstimate:
    """Reconstructed energy ``<C>`` (offset included) and its standard error.

    ``C`` is the Ising cost of ``plan.problem.ising()``: for an MISProblem its QUBO cost.

    Parameters
    ----------
    plan : CutPlan
    results : CutResults

    Returns
    -------
    EnergyEstimate
        The error treats each distinct circuit's histogram as an independent multinomial
        sample of its shots and propagates it to first order through the multilinear
        reconstruction (terms that share a circuit's pooled data are summed first).

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem, qaoa
    >>> from cutting import cut_qaoa, run_subexperiments
    >>> problem = MISProblem(nx.path_graph(5))
    >>> plan = cut_qaoa(problem, 3)
    >>> angles = qaoa.optimize(problem)
    >>> estimate = energy(plan, run_subexperiments(plan, angles, "aer", shots=2000, seed=1))
    >>> bool(abs(estimate.value - angles.energy) < 3 * estimate.standard_error < 0.1)
    True
    """
    h, J, offset = plan.problem.ising()
    h = np.asarray(h, dtype=float)
    n = plan.num_qubits
    coo = sp.coo_array(sp.triu(J, k=1))  # the couplings u < v, as QAOAProblem.ising defines them
    masks = np.zeros((np.count_nonzero(h) + coo.nnz, n), dtype=bool)
    fields = np.flatnonzero(h)
    masks[np.arange(fields.size), fields] = True
    rows = fields.size + np.arange(coo.nnz)
    masks[rows, coo.row] = masks[rows, coo.col] = True
    coefficients = np.r_[h[fields], coo.data]
    parts = _fragment_means(plan, results, masks)
    means = np.array([m for *_, m in parts])  # (F, 8**K, T)
    a = plan.weights
    value = offset + a @ np.prod(means, axis=0) @ coefficients
    variance = 0.0
    for k, (signed, unsigned, parity, _) in enumerate(parts):
        others = np.prod(np.delete(means, k, axis=0), axis=0)  # (8**K, T)
        label = plan.fragments[k].label
        g = np.zeros((a.size, parity.shape[0]))  # gradients summed over terms sharing a circuit's data
        np.add.at(g, plan.twins[label], (a[:, None] * others * coefficients) @ parity.T)
        spread = (unsigned * g**2).sum(1) - (signed * g).sum(1) ** 2
        variance += (spread / results.fragments[label].totals).sum()
    return EnergyEstimate(float(value), float(np.sqrt(max(variance, 0.0))))


def expectation(
    plan: CutPlan,
    gamma: float,
    beta: float,
    backend: str | QuantumBackend,
    shots: int,
    seed: int | None = None,
) -> EnergyEstimate:
    """Run the subexperiments at ``(gamma, beta)`` and reconstruct the QUBO energy.

    Parameters
    ----------
    plan : CutPlan
    gamma, beta : float
        QAOA angles (radians).
    backend : str or backends.QuantumBackend
    shots : int
        Shots per subexperiment.
    seed : int, optional
        Passed to ``backend.run``.

    Returns
    -------
    EnergyEstimate
        ``(value, standard_error)``; compare with :func:`bbqmis.qaoa.expectation`.

    Raises
    ------
    InvalidParameterError
        If ``gamma`` or ``beta`` is not a finite number, or ``shots`` is not a
        positive integer.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem, qaoa
    >>> from cutting import cut_qaoa, run_subexperiments
    >>> problem = MISProblem(nx.path_graph(5))
    >>> plan = cut_qaoa(problem, 3)
    >>> estimate = expectation(plan, 0.4, 0.2, "aer", shots=2000, seed=1)
    >>> exact = qaoa.expectation(problem, 0.4, 0.2)
    >>> bool(abs(estimate.value - exact) < 3 * estimate.standard_error)
    True
    """
    return energy(plan, run_subexperiments(plan, (gamma, beta), backend, shots, seed=seed))


def library_arguments(
    plan: CutPlan, results: CutResults, observables: PauliList
) -> tuple[dict[int, PrimitiveResult], list[tuple[float, WeightType]], dict[int, PauliList]]:
    """Arguments for :func:`qiskit_addon_cutting.reconstruct_expectation_values` on the same data.

    The all-Z observable the plan was built with is prepended, so that the library
    groups the observables as the subexperiments were measured: value ``0`` of the
    library's answer is ``<Z...Z>`` and values ``1:`` match :func:`expectation_values`.

    Parameters
    ----------
    plan : CutPlan
    results : CutResults
        Integer counts (the library needs shots).
    observables : PauliList
        Products of ``Z`` and ``I`` on the ``n`` original qubits.

    Returns
    -------
    (dict of PrimitiveResult, list of coefficients, dict of PauliList)

    Examples
    --------
    >>> from qiskit_addon_cutting import reconstruct_expectation_values
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem, qaoa
    >>> from cutting import cut_qaoa, run_subexperiments
    >>> problem = MISProblem(nx.path_graph(5))
    >>> plan = cut_qaoa(problem, 3)
    >>> results = run_subexperiments(plan, (0.4, 0.2), "aer", shots=500, seed=1)
    >>> observables = PauliList(["IIIIZ", "ZZIII"])
    >>> library = reconstruct_expectation_values(*library_arguments(plan, results, observables))
    >>> bool(np.allclose(library[1:], expectation_values(plan, results, observables), atol=1e-12))
    True
    """
    _z_masks(observables, plan.num_qubits)
    terms = PauliList(["Z" * plan.num_qubits, *observables.to_labels()])
    expanded = expand_observables(terms, plan.circuit, plan.cut_circuit)
    subobservables = partition_problem(
        plan.cut_circuit, plan.partition_labels, observables=expanded
    ).subobservables
    primitive = {}
    for label, circuits in plan.subexperiments.items():
        pubs = []
        for circuit, table in zip(circuits, results.counts[label], strict=True):
            outcome, qpd = register_values(circuit, list(table))
            repeats = np.fromiter(table.values(), dtype=np.int64, count=len(table))
            registers = {
                name: BitArray.from_samples(np.repeat(values, repeats).tolist(), num_bits=register.size)
                for name, values in (("observable_measurements", outcome), ("qpd_measurements", qpd))
                for register in circuit.cregs
                if register.name == name
            }
            pubs.append(SamplerPubResult(DataBin(**registers, shape=())))
        primitive[label] = PrimitiveResult(pubs)
    return primitive, plan.coefficients, subobservables
