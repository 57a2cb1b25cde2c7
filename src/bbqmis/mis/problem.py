r"""Maximum (weight) independent set as a QUBO and as an Ising model.

A bitstring ``x`` selects the vertices ``{nodes[i] : x[i] = 1}``. The QUBO cost is

.. math::

    f(x) = -\sum_i w_i x_i + P \sum_{(i, j) \in E} x_i x_j ,

and with the spin substitution :math:`x_i = (1 - z_i) / 2` (so ``z = +1`` is the
bit ``0``, the computational-basis state :math:`|0\rangle`) the same cost reads

.. math::

    f = \text{offset} + \sum_i h_i z_i + \sum_{i<j} J_{ij} z_i z_j ,
    \quad h_i = \frac{w_i}{2} - \frac{P \deg(i)}{4},\;
    J_{ij} = \frac{P}{4},\;
    \text{offset} = -\frac{1}{2}\sum_i w_i + \frac{P |E|}{4}.

Bit order
---------
Arrays of bits are indexed by qubit: ``bits[i]`` belongs to ``problem.nodes[i]``.
Strings use qiskit's order: qubit 0 is the *rightmost* character, so ``"001"``
selects ``nodes[0]`` only.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, TypeAlias

import networkx as nx
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import SeedLike, check_finite, check_random_state

from .adjacency import Adjacency, adjacency

if TYPE_CHECKING:
    from qiskit.circuit import QuantumCircuit

__all__ = ["MAX_COST", "MISProblem", "bits_from_strings", "check_graph"]

#: Bound on ``penalty * edges + sum(weights)``, the largest QUBO cost: far below the float
#: range, so that costs, Ising terms and closed-form energies stay finite.
MAX_COST = 1e300

#: Vertex weights: None (all 1), a node attribute name, a mapping node -> weight, or a sequence
#: in node order.
WeightsLike: TypeAlias = str | Mapping[Hashable, float] | Sequence[float] | np.ndarray | None


def bits_from_strings(strings: str | Iterable[str], num_bits: int | None = None) -> np.ndarray:
    """Turn qiskit-ordered bitstrings into a 0/1 array indexed by qubit.

    Parameters
    ----------
    strings : str or iterable of str
        Bitstrings such as ``"0110"``; qubit 0 is the rightmost character.
    num_bits : int, optional
        Expected length; a string of another length raises ``InvalidParameterError``.

    Returns
    -------
    bits : ndarray of shape (num_bits,) for one string, (k, num_bits) for k strings
        ``bits[..., i]`` is the bit of qubit ``i``, dtype ``uint8``.

    Examples
    --------
    >>> bits_from_strings("001").tolist()
    [1, 0, 0]
    """
    single = isinstance(strings, str)
    items: list[str] = [strings] if isinstance(strings, str) else list(strings)
    width = num_bits if num_bits is not None else (len(items[0]) if items else 0)
    for s in items:
        if len(s) != width or set(s) - {"0", "1"}:
            raise InvalidParameterError(f"expected a bitstring of {width} characters '0'/'1', got {s!r}")
    raw = np.frombuffer("".join(items).encode("ascii"), dtype=np.uint8).reshape(len(items), width)
    bits = (raw - ord("0"))[:, ::-1].copy()
    return bits[0] if single else bits


def check_graph(graph: object, name: str = "graph") -> nx.Graph:
    """Return ``graph`` if it is an undirected simple networkx graph without self-loops.

    A vertex adjacent to itself belongs to no independent set, and the bitstring
    encodings cannot express that, so such a graph is refused rather than its loop
    dropped.

    Parameters
    ----------
    graph : object
        The graph to check.
    name : str, default="graph"
        Parameter name used in the error message.

    Returns
    -------
    networkx.Graph
        ``graph`` itself.

    Raises
    ------
    InvalidParameterError
        If ``graph`` is not a networkx graph, is directed or a multigraph, or has a
        self-loop.

    Examples
    --------
    >>> check_graph(nx.path_graph(3)).number_of_edges()
    2
    >>> check_graph(nx.Graph([(0, 0), (0, 1)]))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: graph must have no self-loops (a vertex adjacent to itself \
is in no independent set), got one on node 0
    """
    if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
        raise InvalidParameterError(
            f"{name} must be an undirected simple networkx.Graph, got {type(graph).__name__}"
        )
    loop = next(iter(nx.selfloop_edges(graph)), None)
    if loop is not None:
        raise InvalidParameterError(
            f"{name} must have no self-loops (a vertex adjacent to itself is in no independent set), "
            f"got one on node {loop[0]!r}"
        )
    return graph


def _floats(values: object, name: str) -> np.ndarray:
    """``values`` as a float ndarray, or InvalidParameterError naming ``name``."""
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        text = repr(values)
        shown = text if len(text) <= 60 else f"{text[:60]}..."
        raise InvalidParameterError(f"{name} must be numbers, got {shown}") from None


class MISProblem:
    """Maximum (weight) independent set of a graph, as a QUBO and an Ising model.

    Parameters
    ----------
    graph : networkx.Graph
        Undirected simple graph without self-loops; any hashable node labels. Qubit
        ``i`` stands for ``problem.nodes[i]`` (the graph's node order).
    weights : None, str, mapping or array-like of shape (n,), default=None
        Vertex weights: ``None`` for unit weights, the name of a node attribute, a
        mapping node -> weight, or an array in node order. Weights must be positive.
    penalty : float, default=2.0
        Penalty ``P`` per edge inside the selected set. It must exceed the largest
        weight: then dropping a vertex of a violated edge always lowers the cost, so
        every QUBO optimum is an independent set. ``P * edges + sum(weights)`` must
        not exceed :data:`MAX_COST`, so that every cost and energy is finite.

    Attributes
    ----------
    nodes : list
        Graph nodes in qubit order.
    weights : ndarray of shape (n,)
        Vertex weights in qubit order.
    edges : ndarray of shape (m, 2)
        Edges as qubit indices, ``edges[:, 0] < edges[:, 1]``, sorted.

    Raises
    ------
    InvalidParameterError
        If ``graph`` is not an undirected simple graph without self-loops
        (:func:`check_graph`), ``weights`` misses a node or holds a weight that is not
        positive and finite, or ``penalty`` is not finite, does not exceed the largest
        weight, or makes the costs exceed :data:`MAX_COST`.

    Examples
    --------
    >>> import networkx as nx
    >>> problem = MISProblem(nx.path_graph(3))
    >>> problem.cost("101"), problem.is_independent("101")
    (-2.0, True)
    >>> problem.cost("011")
    0.0
    """

    def __init__(
        self,
        graph: nx.Graph,
        weights: None | str | Mapping[Hashable, float] | Sequence[float] | np.ndarray = None,
        penalty: float = 2.0,
    ):
        self._setup(graph, weights)
        penalty = check_finite(penalty, "penalty")
        largest = float(self.weights.max()) if self.num_nodes else 0.0
        if not penalty > largest:
            raise InvalidParameterError(
                f"penalty={penalty:g} must exceed the largest vertex weight {largest:g}, "
                "otherwise a QUBO optimum may contain an edge"
            )
        bound = penalty * len(self.edges) + float(self.weights.sum())
        if not bound <= MAX_COST:
            raise InvalidParameterError(
                f"penalty={penalty:g} is too large: penalty * edges + sum(weights) = {bound:g} "
                f"({len(self.edges)} edges) must be at most {MAX_COST:g}, so that costs stay finite"
            )
        self.penalty = penalty

    def _setup(self, graph: nx.Graph, weights: WeightsLike) -> None:
        """Check ``graph`` and set every attribute but ``penalty``."""
        self.graph = check_graph(graph)
        self.nodes = list(graph.nodes)
        self._index = {node: i for i, node in enumerate(self.nodes)}
        self.weights = self._weights(weights)
        edges = [tuple(sorted((self._index[u], self._index[v]))) for u, v in graph.edges]
        self.edges = np.array(sorted(set(edges)), dtype=np.int64).reshape(-1, 2)
        self._neighbors = [
            np.array(sorted(self._index[w] for w in graph[node]), dtype=np.int64) for node in self.nodes
        ]

    @classmethod
    def _unpenalized(cls, graph: nx.Graph, weights: WeightsLike = None) -> MISProblem:
        """A problem with ``graph`` and ``weights`` checked but no penalty (``inf``): for classical solvers.

        Only what does not involve the penalty is meant for it (:meth:`repair`,
        :meth:`to_nodes`, :meth:`is_maximal`, ``weights``); any weights are accepted.
        """
        problem = cls.__new__(cls)
        problem._setup(graph, weights)
        problem.penalty = math.inf
        return problem

    def _weights(self, weights: WeightsLike) -> np.ndarray:
        n = len(self.nodes)
        if weights is None:
            values = np.ones(n)
        elif isinstance(weights, str):
            missing = [v for v in self.nodes if weights not in self.graph.nodes[v]]
            if missing:
                raise InvalidParameterError(
                    f"node {missing[0]!r} has no attribute {weights!r} for its weight"
                )
            values = _floats([self.graph.nodes[v][weights] for v in self.nodes], f"weights {weights!r}")
        elif isinstance(weights, Mapping):
            missing = [v for v in self.nodes if v not in weights]
            if missing:
                raise InvalidParameterError(
                    f"weights has no entry for node {missing[0]!r} ({len(missing)} of {n} nodes missing)"
                )
            values = _floats([weights[v] for v in self.nodes], "weights")
        else:
            values = _floats(weights, "weights")
            if values.shape != (n,):
                raise InvalidParameterError(f"weights must have shape ({n},), got {values.shape}")
        bad = ~(np.isfinite(values) & (values > 0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidParameterError(
                f"weights must be positive and finite; node {self.nodes[i]!r} has {float(values[i])!r}"
            )
        return values

    @property
    def num_nodes(self) -> int:
        """Number of vertices, equal to the number of qubits."""
        return len(self.nodes)

    def __repr__(self) -> str:
        return f"MISProblem(nodes={self.num_nodes}, edges={len(self.edges)}, penalty={self.penalty:g})"

    # -- encodings -----------------------------------------------------------------
    def qubo(self) -> np.ndarray:
        """Upper-triangular QUBO matrix.

        Returns
        -------
        Q : ndarray of shape (n, n)
            ``f(x) = x @ Q @ x`` for 0/1 vectors ``x`` (the diagonal holds the
            linear terms, since ``x_i**2 = x_i``). Dense: meant for device-sized
            problems.

        Examples
        --------
        >>> import networkx as nx
        >>> problem = MISProblem(nx.path_graph(3))
        >>> q = problem.qubo()
        >>> q.tolist()
        [[-1.0, 2.0, 0.0], [0.0, -1.0, 2.0], [0.0, 0.0, -1.0]]
        >>> x = np.array([1, 1, 0])  # vertices 0 and 1: an edge inside the set
        >>> float(x @ q @ x) == problem.cost(x)
        True
        """
        q = np.diag(-self.weights)
        q[self.edges[:, 0], self.edges[:, 1]] = self.penalty
        return q

    def ising_terms(self) -> tuple[np.ndarray, np.ndarray, float]:
        """Ising form of the QUBO under ``x = (1 - z) / 2``, couplings listed per edge.

        Returns
        -------
        h : ndarray of shape (n,)
            Local fields.
        couplings : ndarray of shape (m,)
            ``J`` of edge ``edges[e]``: ``penalty / 4`` on every edge.
        offset : float
            Constant, so that ``f(x) = offset + h @ z + sum_e couplings[e] z_u z_v``.

        Examples
        --------
        >>> import networkx as nx
        >>> h, couplings, offset = MISProblem(nx.path_graph(3)).ising_terms()
        >>> h.tolist(), couplings.tolist(), offset
        ([0.0, -0.5, 0.0], [0.5, 0.5], -0.5)
        """
        degree = np.bincount(self.edges.ravel(), minlength=self.num_nodes)
        h = self.weights / 2 - self.penalty * degree / 4
        couplings = np.full(len(self.edges), self.penalty / 4)
        offset = -self.weights.sum() / 2 + self.penalty * len(self.edges) / 4
        return h, couplings, float(offset)

    def ising(self) -> tuple[np.ndarray, sp.csr_array, float]:
        """Ising form of the QUBO under ``x = (1 - z) / 2``.

        Returns
        -------
        h : ndarray of shape (n,)
            Local fields.
        J : scipy.sparse.csr_array of shape (n, n)
            Couplings, upper triangular (``J[i, j]`` with ``i < j``).
        offset : float
            Constant, so that ``f(x) = offset + h @ z + sum_{i<j} J[i, j] z_i z_j``.

        Examples
        --------
        >>> import networkx as nx
        >>> problem = MISProblem(nx.path_graph(3))
        >>> h, J, offset = problem.ising()
        >>> J.toarray().tolist()
        [[0.0, 0.5, 0.0], [0.0, 0.0, 0.5], [0.0, 0.0, 0.0]]
        >>> z = 1.0 - 2.0 * problem.to_bits([0, 2])  # bit 1 is spin -1
        >>> float(offset + h @ z + z @ J @ z) == problem.cost("101")
        True
        """
        h, couplings, offset = self.ising_terms()
        n = self.num_nodes
        J = sp.csr_array((couplings, (self.edges[:, 0], self.edges[:, 1])), shape=(n, n))
        return h, J, offset

    @cached_property
    def adjacency(self) -> Adjacency:
        """Edges at each vertex and triangles on each edge (:func:`~bbqmis.mis.adjacency.adjacency`).

        Computed on first use and kept; edge ids are rows of :attr:`edges`. ``del
        problem.adjacency`` drops the cached value.

        Examples
        --------
        >>> import networkx as nx
        >>> MISProblem(nx.complete_graph(3)).adjacency.triangle_edge.tolist()  # one triangle, 3 edges
        [0, 1, 2]
        """
        return adjacency(self.edges, self.num_nodes)

    def qaoa_circuit(self, *, measure: bool = True) -> QuantumCircuit:
        """The p = 1 QAOA circuit, :func:`bbqmis.mis.qaoa.circuit` (qiskit is loaded on first call).

        This method makes the problem a :class:`cutting.QAOAProblem`, which ``cutting`` cuts.

        Parameters
        ----------
        measure : bool, default=True
            Append ``measure_all`` (register ``meas``; clbit ``u`` holds qubit ``u``).

        Returns
        -------
        QuantumCircuit
            Qubit ``u`` is ``nodes[u]``; parameters ``gamma`` and ``beta`` (radians).

        Examples
        --------
        >>> import networkx as nx
        >>> qc = MISProblem(nx.path_graph(3)).qaoa_circuit(measure=False)
        >>> qc.num_qubits, sorted(p.name for p in qc.parameters), qc.count_ops()["rzz"]
        (3, ['beta', 'gamma'], 2)
        """
        from . import qaoa  # qiskit: loaded by processes that build circuits only

        return qaoa.circuit(self, measure=measure)

    # -- bitstrings ----------------------------------------------------------------
    def _bits(self, bits: npt.ArrayLike) -> np.ndarray:
        if isinstance(bits, str) or (
            isinstance(bits, Sequence | np.ndarray) and len(bits) and isinstance(bits[0], str)
        ):
            return bits_from_strings(bits, self.num_nodes)  # type: ignore[arg-type]
        array = np.asarray(bits)
        if array.shape[-1:] != (self.num_nodes,) or array.ndim > 2:
            raise InvalidParameterError(
                f"bits must have shape ({self.num_nodes},) or (k, {self.num_nodes}), got {array.shape}"
            )
        binary = np.isin(array, (0, 1))
        if not binary.all():
            bad = array[tuple(np.argwhere(~binary)[0])]
            raise InvalidParameterError(f"bits must hold only 0 and 1, got {np.asarray(bad).tolist()!r}")
        return array.astype(np.uint8)

    def cost(self, bits: npt.ArrayLike) -> float | np.ndarray:
        """QUBO cost ``f(x)``.

        Parameters
        ----------
        bits : str, sequence of str, or array-like of shape (n,) or (k, n)
            Bitstrings (qiskit order) or 0/1 arrays indexed by qubit.

        Returns
        -------
        float, or ndarray of shape (k,) for several bitstrings.

        Examples
        --------
        >>> import networkx as nx
        >>> problem = MISProblem(nx.path_graph(3), weights=[1.0, 3.0, 1.0], penalty=4.0)
        >>> problem.cost("010"), problem.cost([1, 0, 1]), problem.cost(["011", "111"]).tolist()
        (-3.0, -2.0, [0.0, 3.0])
        """
        x = self._bits(bits).astype(float)
        value = -x @ self.weights + self.penalty * (x[..., self.edges[:, 0]] * x[..., self.edges[:, 1]]).sum(
            -1
        )
        return float(value) if x.ndim == 1 else value

    def is_independent(self, bits: npt.ArrayLike) -> bool | np.ndarray:
        """Whether the selected vertices are pairwise non-adjacent.

        Parameters
        ----------
        bits : str, sequence of str, or array-like of shape (n,) or (k, n)

        Returns
        -------
        bool, or ndarray of shape (k,) of bool.

        Examples
        --------
        >>> import networkx as nx
        >>> problem = MISProblem(nx.cycle_graph(4))
        >>> problem.is_independent("0101"), problem.is_independent(["0011", "0000"]).tolist()
        (True, [False, True])
        """
        x = self._bits(bits).astype(bool)
        ok = ~(x[..., self.edges[:, 0]] & x[..., self.edges[:, 1]]).any(-1)
        return bool(ok) if x.ndim == 1 else ok

    def is_maximal(self, bits: npt.ArrayLike) -> bool:
        """Whether ``bits`` is an independent set to which no vertex can be added.

        Parameters
        ----------
        bits : str or array-like of shape (n,)

        Returns
        -------
        bool
            ``False`` also for several bitstrings or a set that is not independent.

        Examples
        --------
        >>> import networkx as nx
        >>> problem = MISProblem(nx.path_graph(4))
        >>> problem.is_maximal("1001"), problem.is_maximal("0001"), problem.is_maximal("0011")
        (True, False, False)
        """
        x = self._bits(bits).astype(bool)
        if x.ndim != 1 or not self.is_independent(x):
            return False
        return all(x[i] or x[self._neighbors[i]].any() for i in range(self.num_nodes))

    def repair(self, bits: npt.ArrayLike, seed: SeedLike = None) -> np.ndarray:
        """Turn any bitstring into a maximal independent set.

        First, while the selection contains an edge, drop the selected vertex with
        the most selected neighbours (ties: the lighter one, then a seeded random
        order). Then add vertices greedily by the GWMIN rule, the largest
        ``w / (free degree + 1)`` first, where the free degree counts neighbours
        that could still be added (unit weights: minimum degree first).

        Parameters
        ----------
        bits : str or array-like of shape (n,)
            Bitstring (qiskit order) or 0/1 array indexed by qubit.
        seed : None, int or numpy.random.Generator
            Breaks ties; the result is deterministic for a fixed seed.

        Returns
        -------
        ndarray of shape (n,), dtype uint8
            A maximal independent set containing no vertex outside the repaired
            selection's closure.

        Raises
        ------
        InvalidParameterError
            If ``bits`` holds more than one bitstring.

        Examples
        --------
        >>> import networkx as nx
        >>> problem = MISProblem(nx.star_graph(3))  # hub 0, leaves 1, 2, 3
        >>> fixed = problem.repair("0111", seed=0)  # hub 0 clashes with leaves 1, 2: drop it, add 3
        >>> fixed.tolist(), problem.is_maximal(fixed)
        ([0, 1, 1, 1], True)
        """
        x = self._bits(bits)
        if x.ndim != 1:
            raise InvalidParameterError("repair takes one bitstring at a time")
        rng = check_random_state(seed)
        rank = rng.permutation(self.num_nodes)
        selected = x.astype(bool).copy()
        nbrs = self._neighbors
        conflicts = np.array([selected[nbrs[i]].sum() if selected[i] else 0 for i in range(self.num_nodes)])
        while conflicts.max(initial=0) > 0:
            worst = np.flatnonzero(conflicts == conflicts.max())
            drop = min(worst, key=lambda i: (self.weights[i], rank[i]))
            selected[drop] = False
            conflicts[drop] = 0
            touched = nbrs[drop][selected[nbrs[drop]]]
            conflicts[touched] -= 1
        free = ~selected
        for i in np.flatnonzero(selected):
            free[nbrs[i]] = False
        free_degree = np.array([free[nbrs[i]].sum() for i in range(self.num_nodes)])
        while free.any():
            candidates = np.flatnonzero(free)
            score = self.weights[candidates] / (free_degree[candidates] + 1)
            best = candidates[score == score.max()]
            pick = best[np.argmin(rank[best])]
            closed = np.concatenate(([pick], nbrs[pick][free[nbrs[pick]]]))
            selected[pick] = True
            free[closed] = False
            for j in closed:
                free_degree[nbrs[j]] -= 1
        return selected.astype(np.uint8)

    def to_nodes(self, bits: npt.ArrayLike) -> frozenset:
        """The set of graph nodes selected by ``bits`` (one bitstring).

        Parameters
        ----------
        bits : str or array-like of shape (n,)

        Returns
        -------
        frozenset of graph nodes

        Examples
        --------
        >>> import networkx as nx
        >>> problem = MISProblem(nx.path_graph(["a", "b", "c"]))
        >>> sorted(problem.to_nodes("101"))  # qubit 0 (node "a") is the rightmost character
        ['a', 'c']
        """
        x = self._bits(bits)
        return frozenset(self.nodes[i] for i in np.flatnonzero(x))

    def to_bits(self, nodes: Iterable[Hashable]) -> np.ndarray:
        """0/1 array of shape (n,) selecting ``nodes``.

        Parameters
        ----------
        nodes : iterable of graph nodes

        Returns
        -------
        ndarray of shape (n,), dtype uint8
            Indexed by qubit.

        Raises
        ------
        InvalidParameterError
            If an item of ``nodes`` is not a node of the graph.

        Examples
        --------
        >>> import networkx as nx
        >>> problem = MISProblem(nx.path_graph(["a", "b", "c"]))
        >>> problem.to_bits({"b"}).tolist(), sorted(problem.to_nodes(problem.to_bits({"a", "c"})))
        ([0, 1, 0], ['a', 'c'])
        """
        x = np.zeros(self.num_nodes, dtype=np.uint8)
        try:
            x[[self._index[v] for v in nodes]] = 1
        except KeyError as exc:
            raise InvalidParameterError(f"nodes must be nodes of the graph, got {exc.args[0]!r}") from None
        except TypeError:  # not iterable, or an unhashable item
            raise InvalidParameterError(f"nodes must be an iterable of graph nodes, got {nodes!r}") from None
        return x
