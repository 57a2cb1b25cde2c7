"""What cutting needs of a problem: the :class:`QAOAProblem` protocol and its check.

``cutting`` knows circuits, not the problems they come from (as qiskit-addon-cutting does).
A problem is anything with a graph whose vertex ``nodes[q]`` is qubit ``q``, the edge list
on those qubits, its Ising coefficients (for the energy) and its p = 1 QAOA circuit (to cut).
:class:`bbqmis.mis.MISProblem` is one; so is any class with the same members.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from backends.utils.errors import InvalidParameterError

if TYPE_CHECKING:
    import networkx as nx
    from qiskit.circuit import QuantumCircuit

__all__ = ["QAOAProblem", "check_problem"]


@runtime_checkable
class QAOAProblem(Protocol):
    """A problem whose single-layer (p = 1) QAOA circuit can be cut.

    The layout reads the graph (separators split it; ``RZZ`` gates follow its edges), the
    circuit is cut, and the energy is rebuilt from the Ising coefficients.

    Attributes
    ----------
    graph : networkx.Graph
        Undirected; vertex ``nodes[q]`` is qubit ``q``.
    nodes : sequence of hashable
        Graph nodes in qubit order.
    edges : ndarray of shape (m, 2) of int
        Graph edges as qubit pairs: the pairs the circuit's ``RZZ`` gates act on.
    num_nodes : int
        Number of vertices and qubits, ``len(nodes)``.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> isinstance(MISProblem(nx.path_graph(3)), QAOAProblem), isinstance(nx.path_graph(3), QAOAProblem)
    (True, False)
    """

    @property
    def graph(self) -> nx.Graph:
        """The graph; vertex ``nodes[q]`` is qubit ``q``."""

    @property
    def nodes(self) -> Sequence[Hashable]:
        """Graph nodes in qubit order."""

    @property
    def edges(self) -> np.ndarray:
        """Edges as qubit pairs, ndarray of shape (m, 2) of int."""

    @property
    def num_nodes(self) -> int:
        """Number of vertices, equal to the number of qubits."""

    def ising(self) -> tuple[Any, Any, float]:
        """Ising form of the cost, ``offset + sum_u h_u z_u + sum_{u<v} J_uv z_u z_v``.

        Returns
        -------
        h : array-like of shape (n,)
            Local fields.
        J : scipy.sparse array or array-like of shape (n, n)
            Couplings; only the entries ``J[u, v]`` with ``u < v`` are read.
        offset : float

        Examples
        --------
        >>> import networkx as nx
        >>> from bbqmis.mis import MISProblem
        >>> h, J, offset = MISProblem(nx.path_graph(3)).ising()
        >>> h.tolist(), J.toarray().tolist(), offset
        ([0.0, -0.5, 0.0], [[0.0, 0.5, 0.0], [0.0, 0.0, 0.5], [0.0, 0.0, 0.0]], -0.5)
        """

    def qaoa_circuit(self, *, measure: bool = True) -> QuantumCircuit:
        """The p = 1 QAOA circuit.

        Parameters
        ----------
        measure : bool, default=True
            Whether to end with ``measure_all``; cutting asks for ``measure=False``.

        Returns
        -------
        QuantumCircuit
            ``num_nodes`` qubits; single-qubit gates, one ``RZZ`` per coupled edge, and the
            parameters ``gamma`` (cost) and ``beta`` (mixer) and no other, as
            :func:`bbqmis.mis.qaoa.circuit` builds it.

        Examples
        --------
        >>> import networkx as nx
        >>> from bbqmis.mis import MISProblem
        >>> circuit = MISProblem(nx.path_graph(3)).qaoa_circuit(measure=False)
        >>> circuit.num_qubits, sorted(p.name for p in circuit.parameters)
        (3, ['beta', 'gamma'])
        """


#: The members of :class:`QAOAProblem` in their order, for naming the missing ones.
MEMBERS = tuple(name for name in vars(QAOAProblem) if not name.startswith("_"))


def check_problem(problem: object, name: str = "problem") -> QAOAProblem:
    """Return ``problem`` if it is a :class:`QAOAProblem` with at least one vertex.

    Parameters
    ----------
    problem : object
    name : str, default="problem"
        Parameter name used in the error message.

    Returns
    -------
    QAOAProblem
        ``problem`` itself.

    Raises
    ------
    InvalidParameterError
        If ``problem`` lacks a member of :class:`QAOAProblem` (the message names the
        missing ones) or has no vertex.

    Examples
    --------
    >>> import networkx as nx
    >>> check_problem(nx.path_graph(3))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: problem must be a QAOAProblem such as MISProblem(graph), \
got Graph, which has no num_nodes, ising, qaoa_circuit
    """
    if not isinstance(problem, QAOAProblem):
        missing = ", ".join(member for member in MEMBERS if not hasattr(problem, member))
        raise InvalidParameterError(
            f"{name} must be a QAOAProblem such as MISProblem(graph), got {type(problem).__name__}, "
            f"which has no {missing}"
        )
    if problem.num_nodes == 0:
        raise InvalidParameterError(f"{name} must have at least one vertex, got an empty graph")
    return problem
