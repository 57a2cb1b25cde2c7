"""Run the subexperiments of a :class:`CutPlan` and keep their outcomes as arrays."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol, TypeAlias

import numpy as np
from numpy.typing import NDArray
from qiskit.circuit import QuantumCircuit

from backends import QuantumBackend, shared_backend
from backends.utils.validation import check_finite_pair, check_positive_int

from .plan import CutPlan

__all__ = [
    "Angles",
    "AnglesLike",
    "check_angles",
    "Progress",
    "FragmentShots",
    "CutResults",
    "collect",
    "register_values",
    "run_subexperiments",
    "resolve_backend",
]


class Angles(Protocol):
    """QAOA angles as attributes, such as :class:`bbqmis.mis.qaoa.QAOAAngles` (trained angles).

    Attributes
    ----------
    gamma, beta : float
        Cost and mixer angles (radians).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> check_angles(SimpleNamespace(gamma=0.4, beta=0.2))  # any object with both attributes
    (0.4, 0.2)
    """

    @property
    def gamma(self) -> float:
        """Cost angle (radians)."""

    @property
    def beta(self) -> float:
        """Mixer angle (radians)."""


#: QAOA angles: an object with ``gamma`` and ``beta`` (:class:`Angles`) or a ``(gamma, beta)``
#: pair, in radians.
AnglesLike: TypeAlias = Angles | tuple[float, float]

#: A progress callback: called with snapshot mappings such as ``{"phase": "run", "done": 0,
#: "total": 192}`` (:class:`backends.utils.progress.ProgressLine` renders them).
Progress: TypeAlias = Callable[[Mapping[str, Any]], None]


class FragmentShots(NamedTuple):
    """Distinct outcomes of one fragment's subexperiments, as flat arrays of equal length ``r``.

    Attributes
    ----------
    experiment : ndarray of shape (r,) of int
        Subexperiment (coefficient) index ``i``.
    outcome : ndarray of shape (r,) of int
        Final bits of the fragment's original qubits; bit ``b`` is ``Fragment.qubits[b]``.
    sign : ndarray of shape (r,) of float
        ``(-1)**parity`` of the cut measurements.
    weight : ndarray of shape (r,) of float
        Count over the subexperiment's total: the empirical probability of the row.
    totals : ndarray of shape (8**K,) of float
        Shots (total count) per subexperiment.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> from cutting import cut_qaoa
    >>> plan = cut_qaoa(MISProblem(nx.path_graph(5)), 3)
    >>> shots = run_subexperiments(plan, (0.4, 0.2), "aer", shots=500, seed=1).fragments[0]
    >>> shots.totals.tolist()  # twin circuits pool their shots: 2 x 500 per subexperiment
    [1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0]
    >>> np.bincount(shots.experiment, weights=shots.weight).round(12).tolist()  # rows sum to 1
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    """

    experiment: NDArray[np.int64]
    outcome: NDArray[np.int64]
    sign: NDArray[np.float64]
    weight: NDArray[np.float64]
    totals: NDArray[np.float64]


class CutResults(NamedTuple):
    """Outcomes of every subexperiment of a plan.

    Attributes
    ----------
    counts : dict of int to list of dict[str, float]
        Raw counts per fragment label, one dict per subexperiment in coefficient order,
        keyed by bitstrings over all classical bits (clbit ``k`` is character ``key[-1-k]``).
    fragments : dict of int to FragmentShots
        The same data as arrays.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> from cutting import cut_qaoa
    >>> plan = cut_qaoa(MISProblem(nx.path_graph(5)), 3)
    >>> results = run_subexperiments(plan, (0.4, 0.2), "aer", shots=500, seed=1)
    >>> [len(tables) for tables in results.counts.values()], sorted(results.fragments)
    ([8, 8], [0, 1])
    >>> sum(results.counts[1][0].values()), int(plan.twins[1][6])  # subexperiment 6 is 0's twin: pooled
    (1000, 0)
    """

    counts: dict[int, list[dict[str, float]]]
    fragments: dict[int, FragmentShots]


def check_angles(angles: object) -> tuple[float, float]:
    """Return QAOA angles (:data:`AnglesLike`) as two finite floats ``(gamma, beta)``.

    Parameters
    ----------
    angles : object with ``gamma`` and ``beta``, or (float, float)
        Cost and mixer angles (radians).

    Returns
    -------
    gamma, beta : float

    Raises
    ------
    InvalidParameterError
        If ``angles`` is neither a pair nor has both attributes, or an angle is not a
        finite number (:func:`backends.utils.validation.check_finite`).

    Examples
    --------
    >>> check_angles((0.4, 0.2))
    (0.4, 0.2)
    >>> check_angles((0.4,))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: angles must be a pair (gamma, beta) or have attributes \
gamma and beta, got (0.4,)
    >>> check_angles((0.4, float("inf")))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: beta must be a finite number, got inf
    """
    return check_finite_pair(angles, "angles", ("gamma", "beta"))


def resolve_backend(backend: str | QuantumBackend) -> QuantumBackend:
    """Return ``backend``, or :func:`backends.shared_backend` of it when it is a spec string.

    Parameters
    ----------
    backend : str or backends.QuantumBackend

    Returns
    -------
    backends.QuantumBackend

    Examples
    --------
    >>> aer = resolve_backend("aer")
    >>> resolve_backend("aer") is aer, resolve_backend(aer) is aer  # one shared instance per spec
    (True, True)
    """
    return shared_backend(backend) if isinstance(backend, str) else backend


def register_values(
    circuit: QuantumCircuit, keys: Sequence[str]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Integer values of the ``observable_measurements`` and ``qpd_measurements`` registers.

    Parameters
    ----------
    circuit : QuantumCircuit
        A subexperiment.
    keys : sequence of str
        Bitstrings over all its classical bits, qiskit order, no spaces.

    Returns
    -------
    observable, qpd : ndarrays of shape (len(keys),) of int
        Register ``r``'s bit ``j`` is bit ``j`` of the integer; a register the circuit
        lacks reads as 0.

    Examples
    --------
    >>> from qiskit.circuit import ClassicalRegister, QuantumRegister
    >>> circuit = QuantumCircuit(
    ...     QuantumRegister(1), ClassicalRegister(1, "qpd_measurements"),
    ...     ClassicalRegister(2, "observable_measurements"),
    ... )
    >>> observable, qpd = register_values(circuit, ["101", "010"])
    >>> observable.tolist(), qpd.tolist()
    ([2, 1], [1, 0])
    """
    width = circuit.num_clbits
    chars = np.frombuffer("".join(keys).encode("ascii"), dtype=np.uint8).reshape(len(keys), width) - ord("0")
    values = []
    for name in ("observable_measurements", "qpd_measurements"):
        register = next((r for r in circuit.cregs if r.name == name), ())
        columns = [width - 1 - circuit.find_bit(bit).index for bit in register]
        values.append(chars[:, columns].astype(np.int64) @ (1 << np.arange(len(columns), dtype=np.int64)))
    return values[0], values[1]


def _fragment_shots(circuits: Sequence[QuantumCircuit], tables: Sequence[dict[str, float]]) -> FragmentShots:
    """One fragment's counts tables (one per subexperiment) as :class:`FragmentShots`."""
    parts = []
    for i, (circuit, table) in enumerate(zip(circuits, tables, strict=True)):
        keys = list(table)
        outcome, qpd = register_values(circuit, keys)
        number = np.fromiter(table.values(), dtype=float, count=len(keys))
        parts.append((np.full(len(keys), i), outcome, 1.0 - 2.0 * (np.bitwise_count(qpd) & 1), number))
    experiment, outcome, sign, number = (np.concatenate(column) for column in zip(*parts, strict=True))
    totals = np.bincount(experiment, weights=number, minlength=len(circuits)).astype(np.float64, copy=False)
    return FragmentShots(experiment, outcome, sign, number / totals[experiment], totals)


def collect(plan: CutPlan, counts: dict[int, list[dict[str, float]]]) -> CutResults:
    """Turn per-subexperiment counts into :class:`CutResults`.

    Parameters
    ----------
    plan : CutPlan
    counts : dict of int to list of dict[str, float]
        For every fragment label, one counts dict per subexperiment, in the order of
        ``plan.subexperiments[label]``. Values may be integer counts or probabilities
        (exact fragment distributions); rows are normalised per subexperiment.

    Returns
    -------
    CutResults

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> from cutting import cut_qaoa
    >>> plan = cut_qaoa(MISProblem(nx.path_graph(5)), 3)
    >>> counts = run_subexperiments(plan, (0.4, 0.2), "aer", shots=200, seed=1).counts
    >>> counts[0][0] = {key: 2 * value for key, value in counts[0][0].items()}  # doubled: same rows
    >>> collect(plan, counts).fragments[0].totals[:2].tolist()
    [800.0, 400.0]
    """
    fragments = {
        label: _fragment_shots(circuits, counts[label]) for label, circuits in plan.subexperiments.items()
    }
    return CutResults(counts, fragments)


def run_subexperiments(
    plan: CutPlan,
    angles: AnglesLike,
    backend: str | QuantumBackend,
    shots: int,
    seed: int | None = None,
    progress: Progress | None = None,
) -> CutResults:
    """Bind the angles, run every subexperiment once on ``backend`` and collect the counts.

    Parameters
    ----------
    plan : CutPlan
    angles : object with ``gamma`` and ``beta`` (such as QAOAAngles), or (gamma, beta)
        Radians.
    backend : str or backends.QuantumBackend
        A spec string is resolved with :func:`backends.get_backend`.
    shots : int
        Shots per subexperiment (the run costs ``shots * plan.num_subexperiments``).
    seed : int, optional
        Simulator and transpiler seed, passed to ``backend.run``.
    progress : callable, optional
        Called with ``{"phase": "bind" or "run", "done": d, "total": t}``: subexperiments
        bound so far, then ``done`` 0 when the single backend job starts and ``t`` when it
        has returned (a backend reports nothing in between).

    Returns
    -------
    CutResults
        Identical circuits (``plan.twins``) share their pooled counts, so a term whose
        circuit appears ``m`` times is estimated from ``m * shots`` shots; this keeps the
        estimates unbiased and lowers their variance at no extra cost.

    Raises
    ------
    InvalidParameterError
        If ``shots`` is not a positive integer, or ``angles`` is not a pair of finite
        numbers (:func:`check_angles`).

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> from cutting import cut_qaoa
    >>> plan = cut_qaoa(MISProblem(nx.path_graph(5)), 3)
    >>> snapshots = []
    >>> results = run_subexperiments(plan, (0.4, 0.2), "aer", shots=100, seed=1, progress=snapshots.append)
    >>> snapshots[-1], len(results.counts[0])
    ({'phase': 'run', 'done': 16, 'total': 16}, 8)
    """
    shots = check_positive_int(shots, "shots")
    gamma, beta = check_angles(angles)
    binding = dict(zip(plan.parameters, (gamma, beta), strict=True))
    labels = list(plan.subexperiments)
    report = progress or (lambda snapshot: None)
    total = plan.num_subexperiments
    circuits: list[QuantumCircuit] = []
    for label in labels:
        for circuit in plan.subexperiments[label]:
            report({"phase": "bind", "done": len(circuits), "total": total})
            circuits.append(circuit.assign_parameters(binding, strict=False))
    report({"phase": "run", "done": 0, "total": total})
    flat = resolve_backend(backend).run(circuits, shots=shots, seed=seed)
    report({"phase": "run", "done": total, "total": total})
    counts: dict[int, list[dict[str, float]]] = {}
    start = 0
    for label in labels:
        twins = plan.twins[label]
        pooled: list[Counter[str]] = [Counter() for _ in twins]
        for i, table in zip(twins, flat[start : start + twins.size], strict=True):
            pooled[i].update(table)
        counts[label] = [dict(pooled[i]) for i in twins]
        start += twins.size
    return collect(plan, counts)
