"""Samplers of maximal independent sets, the branching step of the colouring search.

Every sampler has ``sample(graph, seed=None) -> Samples``: distinct *maximal*
independent sets of ``graph``, best first. Bitstring samplers (QAOA, random,
annealing) work per connected component (isolated vertices belong to every maximal
set and need no qubit), repair each distinct bitstring to a maximal independent set
(:meth:`MISProblem.repair`) and draw joint sets from the product of the component
distributions. Samplers are picklable, so they travel to process-pool and MPI workers;
backends are created lazily in the worker.

Samplers by name (see :func:`get_sampler`): ``"qaoa"``, ``"exact"``, ``"greedy"``,
``"random"``, ``"anneal"``.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

import networkx as nx
import numpy as np

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import SeedLike, build_named, check_positive_int, check_random_state

from ..mis.classical import check_beta_range, simulated_annealing
from ..mis.problem import MISProblem, check_graph
from ..samples import MISSamples, Stats, add_stats, annealing_reads, new_stats

if TYPE_CHECKING:  # the quantum stack is imported when a QAOA sampler is made
    from ..mis.training import Training

__all__ = [
    "REPAIR_WORK",
    "MISSampler",
    "Samples",
    "ExactSampler",
    "GreedySampler",
    "RandomSampler",
    "AnnealingSampler",
    "QAOASampler",
    "get_sampler",
    "iter_maximal_independent_sets",
    "maximal_independent_sets",
]


@dataclass
class Samples:
    """Result of one :meth:`MISSampler.sample` call.

    Attributes
    ----------
    sets : list of frozenset
        Distinct maximal independent sets, best first (most frequent for samplers).
    complete : bool
        True when ``sets`` holds *every* maximal independent set of the graph.
    stats : Stats
        Work done: ``calls``, ``circuits``, ``shots``, ``quantum_seconds``,
        ``fallbacks`` (components solved classically instead of on the device),
        ``cut_components`` (components sampled through circuit cutting), ``seconds``.

    Examples
    --------
    >>> samples = ExactSampler().sample(nx.path_graph(3))
    >>> [sorted(s) for s in samples.sets], samples.complete, samples.stats["calls"]
    ([[0, 2], [1]], True, 1)
    """

    sets: list[frozenset]
    complete: bool = False
    stats: Stats = field(default_factory=new_stats)


@runtime_checkable
class MISSampler(Protocol):
    """Anything with ``sample(graph, seed=None) -> Samples``.

    ``exhaustive`` marks samplers whose output is always complete.

    Examples
    --------
    Any object with ``exhaustive`` and ``sample`` is a sampler:

    >>> isinstance(GreedySampler(), MISSampler)
    True
    """

    exhaustive: bool

    def sample(self, graph: nx.Graph, seed: SeedLike = None) -> Samples:
        """Maximal independent sets of ``graph``.

        Examples
        --------
        >>> sampler: MISSampler = ExactSampler()
        >>> [sorted(s) for s in sampler.sample(nx.complete_graph(3)).sets]
        [[0], [1], [2]]
        """


#: Largest candidate pool in which the pivot is chosen exactly (else by degree).
_EXACT_PIVOT_POOL = 256


def iter_maximal_independent_sets(graph: nx.Graph, deadline: float = math.inf) -> Iterator[frozenset]:
    """Every maximal independent set, one at a time.

    Bron-Kerbosch with Tomita's pivot, run on the complement without building it: the
    candidates that may join a set with ``v`` are those *not* adjacent to ``v``, so each
    step costs the degrees of the graph itself, and a sparse graph of thousands of
    vertices is enumerated as cheaply as a small one. The search is iterative (no
    recursion limit) and its order is deterministic for a graph built in the same order,
    so an enumeration can be resumed by skipping the sets already seen.

    Parameters
    ----------
    graph : networkx.Graph
    deadline : float, optional
        Wall-clock (:func:`time.time`) time at which the enumeration stops early; the
        caller tells an early stop from the end by looking at the clock.

    Yields
    ------
    frozenset
        One maximal independent set; only ``frozenset()`` for the empty graph.

    Examples
    --------
    >>> sorted(sorted(s) for s in iter_maximal_independent_sets(nx.path_graph(4)))
    [[0, 2], [0, 3], [1, 3]]
    """
    neighbours = {v: set(graph[v]) for v in graph}
    stack: list[tuple[frozenset, set, set]] = [(frozenset(), set(graph), set())]
    steps = 0
    while stack:
        steps += 1
        if steps % 256 == 0 and time.time() >= deadline:
            return
        chosen, candidates, excluded = stack.pop()
        if not candidates:
            if not excluded:
                yield chosen
            continue
        # The pivot leaves the fewest branches: candidates adjacent to it (as it may not
        # join a set with them) are the only ones besides itself worth branching on.
        pool = candidates | excluded
        if len(pool) > _EXACT_PIVOT_POOL:  # choosing the best pivot would cost O(pool x degree)
            pivot = max(candidates, key=lambda u: len(neighbours[u]))
        else:
            pivot = max(pool, key=lambda u: len(candidates & neighbours[u]))
        branches = sorted((candidates & neighbours[pivot]) | ({pivot} & candidates), key=str, reverse=True)
        for v in branches:
            stack.append((chosen | {v}, candidates - neighbours[v] - {v}, excluded - neighbours[v] - {v}))
            candidates = candidates - {v}
            excluded = excluded | {v}


def maximal_independent_sets(
    graph: nx.Graph, limit: int | None = None, *, max_elements: int | None = None
) -> tuple[list[frozenset], bool]:
    """All maximal independent sets (at most ``limit``), largest first.

    Parameters
    ----------
    graph : networkx.Graph
    limit : int, optional
        Stop after this many sets.
    max_elements : int, optional
        Stop once the sets found hold this many vertices in all (a bound on their memory:
        about 60 bytes per vertex).

    Returns
    -------
    sets : list of frozenset
        Sets in a deterministic order; ``[frozenset()]`` for the empty graph.
    complete : bool
        False when ``limit`` or ``max_elements`` cut the enumeration short.

    Examples
    --------
    >>> sets, complete = maximal_independent_sets(nx.path_graph(4))
    >>> [sorted(s) for s in sets], complete
    ([[0, 2], [0, 3], [1, 3]], True)
    >>> len(maximal_independent_sets(nx.path_graph(4), limit=2)[0])
    2
    >>> sets, complete = maximal_independent_sets(nx.path_graph(4), max_elements=3)
    >>> len(sets), complete
    (2, False)
    """
    limit = None if limit is None else check_positive_int(limit, "limit")
    max_elements = None if max_elements is None else check_positive_int(max_elements, "max_elements")
    found: list[frozenset] = []
    elements, complete = 0, True
    for independent in iter_maximal_independent_sets(graph):
        if (limit is not None and len(found) >= limit) or (
            max_elements is not None and elements >= max_elements
        ):
            complete = False  # one set more than the caps allow
            break
        found.append(independent)
        elements += len(independent)
    return sorted(found, key=lambda s: (-len(s), sorted(map(str, s)))), complete


class ExactSampler:
    """Every maximal independent set: exhaustive branching, so the search can prove optimality.

    Parameters
    ----------
    limit : int, default=100_000
        Safety cap on the sets of one call; a capped call is reported incomplete
        and the search then does not claim optimality from exhaustion.
    max_elements : int, default=2_000_000
        The same for the vertices of the sets together (about 120 MB of sets).

    Examples
    --------
    >>> sampler = ExactSampler(limit=2)
    >>> samples = sampler.sample(nx.cycle_graph(5))
    >>> len(samples.sets), samples.complete, sampler.exhaustive
    (2, False, True)
    """

    exhaustive = True

    def __init__(self, limit: int = 100_000, max_elements: int = 2_000_000) -> None:
        self.limit = check_positive_int(limit, "limit")
        self.max_elements = check_positive_int(max_elements, "max_elements")

    def sample(self, graph: nx.Graph, seed: SeedLike = None) -> Samples:
        """Every maximal independent set of ``graph``, largest first (``seed`` is unused).

        Raises
        ------
        InvalidParameterError
            If ``graph`` is not an undirected simple graph without self-loops.

        Examples
        --------
        >>> samples = ExactSampler().sample(nx.cycle_graph(5))
        >>> [sorted(s) for s in samples.sets], samples.complete
        ([[0, 2], [0, 3], [1, 3], [1, 4], [2, 4]], True)
        """
        start = time.perf_counter()
        sets, complete = maximal_independent_sets(
            check_graph(graph), self.limit, max_elements=self.max_elements
        )
        return Samples(sets, complete, new_stats(calls=1, seconds=time.perf_counter() - start))


class GreedySampler:
    """Randomised GWMIN greedy maximal sets (:func:`bbqmis.greedy_independent_set` with varied ties).

    Parameters
    ----------
    num_sets : int, default=16
        Greedy runs per call (distinct results are returned).

    Examples
    --------
    >>> graph = nx.cycle_graph(6)
    >>> samples = GreedySampler(num_sets=8).sample(graph, seed=3)
    >>> problem = MISProblem(graph)
    >>> all(problem.is_maximal(problem.to_bits(s)) for s in samples.sets)
    True
    """

    exhaustive = False

    def __init__(self, num_sets: int = 16) -> None:
        self.num_sets = check_positive_int(num_sets, "num_sets")

    def sample(self, graph: nx.Graph, seed: SeedLike = None) -> Samples:
        """Distinct greedy maximal independent sets of ``graph``, most often found first.

        Examples
        --------
        >>> samples = GreedySampler(num_sets=4).sample(nx.star_graph(3), seed=0)
        >>> [sorted(s) for s in samples.sets], samples.complete
        ([[1, 2, 3]], False)
        """
        start = time.perf_counter()
        rng = check_random_state(seed)
        problem = MISProblem(graph)
        empty = np.zeros(problem.num_nodes)
        found = Counter(problem.to_nodes(problem.repair(empty, seed=rng)) for _ in range(self.num_sets))
        return Samples(
            [s for s, _ in found.most_common()],
            False,
            new_stats(calls=1, seconds=time.perf_counter() - start),
        )


class _BitstringSampler:
    """Shared path of samplers that draw bitstrings per component and repair them."""

    exhaustive = False

    penalty = 2.0

    def __init__(self, shots: int = 1024, max_sets: int = 64) -> None:
        self.shots = check_positive_int(shots, "shots")
        self.max_sets = check_positive_int(max_sets, "max_sets")

    def _samples(self, problem: MISProblem, rng: np.random.Generator) -> MISSamples:
        """``shots`` bitstrings over the component's qubits."""
        raise NotImplementedError

    def sample(self, graph: nx.Graph, seed: SeedLike = None) -> Samples:
        """Distinct maximal independent sets, most frequently sampled first.

        Each distinct bitstring is repaired to a maximal independent set; on a component
        so large that repairing them all would exceed :data:`REPAIR_WORK` visits, only
        the most frequent are (at least ``max_sets``).

        Raises
        ------
        InvalidParameterError
            If ``graph`` is not an undirected simple graph without self-loops.
        """
        start = time.perf_counter()
        check_graph(graph)
        rng = check_random_state(seed)
        stats = new_stats(calls=1)
        fixed = frozenset(v for v in graph if graph.degree(v) == 0)
        draws = [np.full(self.shots, fixed, dtype=object)]
        # Components in the order of their first node in ``graph.nodes``: labels of mixed
        # types (1 and "a") cannot be compared.
        position = {v: i for i, v in enumerate(graph)}
        components = nx.connected_components(graph)
        for nodes in sorted(components, key=lambda nodes: min(position[v] for v in nodes)):
            if len(nodes) == 1:
                continue
            problem = MISProblem(graph.subgraph(nodes), penalty=self.penalty)
            samples = self._samples(problem, rng)
            size = problem.num_nodes + len(problem.edges)
            samples = samples.most_frequent(max(self.max_sets, REPAIR_WORK // size))  # repairs' cost
            add_stats(stats, samples.stats, skip=_PER_CALL)
            sets = np.empty(len(samples.counts), dtype=object)
            sets[:] = [problem.to_nodes(bits) for bits in samples.repaired(problem, rng)]
            shots = np.repeat(np.arange(len(sets)), samples.counts)
            draws.append(sets[rng.permutation(shots)[: self.shots]])
        joint = Counter(frozenset().union(*column) for column in zip(*draws, strict=False))
        stats["seconds"] += time.perf_counter() - start
        return Samples([s for s, _ in joint.most_common(self.max_sets)], False, stats)


#: Vertex and edge visits of the repairs of one component's samples, about a second: on a
#: large component only the most frequent bitstrings are repaired (at least ``max_sets``).
REPAIR_WORK = 25_000_000

#: Counters of the shared solver that the sampler keeps per ``sample`` call instead.
_PER_CALL = ("calls", "seconds")


class RandomSampler(_BitstringSampler):
    """Uniformly random bitstrings repaired to maximal sets: the baseline QAOA must beat.

    Parameters
    ----------
    shots : int, default=1024
        Bitstrings per component.
    max_sets : int, default=64
        Most frequent distinct sets returned.

    Examples
    --------
    >>> graph = nx.path_graph(5)
    >>> samples = RandomSampler(shots=64, max_sets=4).sample(graph, seed=1)
    >>> problem = MISProblem(graph)
    >>> 1 <= len(samples.sets) <= 4
    True
    >>> all(problem.is_maximal(problem.to_bits(s)) for s in samples.sets)
    True
    """

    def _samples(self, problem: MISProblem, rng: np.random.Generator) -> MISSamples:
        return MISSamples.from_rows(rng.integers(0, 2, size=(self.shots, problem.num_nodes)), new_stats())


class AnnealingSampler(_BitstringSampler):
    """Simulated annealing of the MIS QUBO (dwave-samplers), one read per shot.

    Parameters
    ----------
    shots : int, default=64
        Annealing reads per component, fewer on a component so large that they would
        exceed :data:`bbqmis.samples.ANNEALING_WORK` spin updates.
    max_sets : int, default=64
    beta_range : (float, float), default=(0.1, 100.0)
        Inverse-temperature schedule; an explicit range reaches the optimum far more
        often than the sampler's default at large penalties.
    sweeps : int, default=200

    Examples
    --------
    >>> graph = nx.cycle_graph(6)
    >>> samples = AnnealingSampler(shots=16, sweeps=50).sample(graph, seed=2)
    >>> problem = MISProblem(graph)
    >>> all(problem.is_maximal(problem.to_bits(s)) for s in samples.sets)
    True
    >>> max(len(s) for s in samples.sets)
    3
    """

    def __init__(
        self,
        shots: int = 64,
        max_sets: int = 64,
        beta_range: Sequence[float] = (0.1, 100.0),
        sweeps: int = 200,
    ) -> None:
        super().__init__(shots, max_sets)
        self.beta_range = check_beta_range(beta_range)
        self.sweeps = check_positive_int(sweeps, "sweeps")

    def _samples(self, problem: MISProblem, rng: np.random.Generator) -> MISSamples:
        reads = annealing_reads(self.shots, self.sweeps, problem.num_nodes + len(problem.edges))
        rows = simulated_annealing(
            problem, num_reads=reads, num_sweeps=self.sweeps, beta_range=self.beta_range, seed=rng
        )
        return MISSamples.from_rows(rows, new_stats())


class QAOASampler(_BitstringSampler):
    """Single-layer QAOA samples from the shared :class:`~bbqmis.solver.QuantumMISSolver`.

    Each connected component becomes an :class:`MISProblem` (penalty ``penalty``) that
    the solver samples: closed-form angles, ``shots`` shots on ``backend``, circuit
    cutting for a component wider than ``max_qubits``, annealing as a counted fallback
    (``stats["fallbacks"]``; ``stats["cut_problems"]`` counts cut components).

    Parameters
    ----------
    backend : str, default="aer"
        Backend spec for :func:`backends.shared_backend`.
    shots : int, default=1024
    max_qubits : int, optional
        See :class:`~bbqmis.solver.QuantumMISSolver` (default: the device, at most 24).
    penalty : float, default=2.0
    max_sets : int, default=64
    sleep_factor : float, default=0.0
        Passed to the backend: sleep alpha x quantum seconds after each execution.
    cut : bool, default=True
        Use circuit cutting for components wider than ``max_qubits``.
    max_cut_overhead : float, default=256.0
        See :class:`~bbqmis.solver.QuantumMISSolver`.
    angles : {"closed-form", "trained"} or Training, default="closed-form"
        The closed-form angles, or angles trained on ``backend`` for every component
        (:class:`~bbqmis.mis.training.Training`; ``stats`` then counts ``training_*`` and
        ``sampling_*`` work apart, see :func:`~bbqmis.mis.training.training_summary`).

    Examples
    --------
    >>> graph = nx.path_graph(4)
    >>> samples = QAOASampler(backend="aer", shots=128).sample(graph, seed=1)
    >>> problem = MISProblem(graph)
    >>> all(problem.is_maximal(problem.to_bits(s)) for s in samples.sets)
    True
    >>> samples.stats["shots"] >= 128, samples.stats["fallbacks"] == 0
    (True, True)
    >>> trained = QAOASampler(shots=128, angles="trained").sample(graph, seed=1)
    >>> 0 < trained.stats["training_evaluations"] <= 40
    True
    """

    def __init__(
        self,
        backend: str = "aer",
        shots: int = 1024,
        max_qubits: int | None = None,
        penalty: float = 2.0,
        max_sets: int = 64,
        sleep_factor: float = 0.0,
        cut: bool = True,
        max_cut_overhead: float = 256.0,
        angles: str | Training = "closed-form",
    ) -> None:
        from ..solver import QuantumMISSolver  # qiskit: only for samplers that run circuits

        super().__init__(shots, max_sets)
        self.solver = QuantumMISSolver(
            backend,
            shots=shots,
            max_qubits=max_qubits,
            sleep_factor=sleep_factor,
            cut=cut,
            max_cut_overhead=max_cut_overhead,
            angles=angles,
        )
        self.penalty = float(penalty)

    def _samples(self, problem: MISProblem, rng: np.random.Generator) -> MISSamples:
        return self.solver.sample(problem, rng)


#: What :func:`get_sampler` and :func:`~bbqmis.color_graph` accept as a sampler.
SamplerLike: TypeAlias = "str | MISSampler | Callable[[nx.Graph, SeedLike], Iterable[Iterable[Hashable]]]"

_SAMPLERS: dict[str, Callable[..., MISSampler]] = {
    "qaoa": QAOASampler,
    "exact": ExactSampler,
    "greedy": GreedySampler,
    "random": RandomSampler,
    "anneal": AnnealingSampler,
}


class _CallableSampler:
    """Adapter for a plain function ``f(graph, seed) -> iterable of sets``."""

    exhaustive = False

    def __init__(self, function: Callable[[nx.Graph, SeedLike], Iterable[Iterable[Hashable]]]) -> None:
        self.function = function

    def sample(self, graph: nx.Graph, seed: SeedLike = None) -> Samples:
        sets = dict.fromkeys(frozenset(s) for s in self.function(graph, seed))
        return Samples(list(sets), False, new_stats(calls=1))


def get_sampler(sampler: SamplerLike = "qaoa", **options: Any) -> MISSampler:
    """A sampler by name, a sampler object, or a function ``f(graph, seed) -> sets``.

    Parameters
    ----------
    sampler : {"qaoa", "exact", "greedy", "random", "anneal"}, MISSampler or callable
    **options
        Keyword arguments for the named sampler's constructor.

    Returns
    -------
    MISSampler

    Raises
    ------
    InvalidParameterError
        For an unknown name, or options given with a sampler object.

    Examples
    --------
    >>> get_sampler("greedy", num_sets=4).num_sets
    4
    >>> sampler = get_sampler(lambda graph, seed: [{0, 2}, [1]])
    >>> [sorted(s) for s in sampler.sample(nx.path_graph(3)).sets]
    [[0, 2], [1]]
    >>> get_sampler("quantum")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: sampler must be one of 'qaoa', ...; got 'quantum'
    """
    named = build_named(sampler, "sampler", _SAMPLERS, options)
    if named is not None:
        return named
    if isinstance(sampler, MISSampler):
        return sampler
    if callable(sampler):
        return _CallableSampler(sampler)
    raise InvalidParameterError(f"sampler must be a name, an MISSampler or a callable; got {sampler!r}")
