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

import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol, runtime_checkable

import networkx as nx
import numpy as np

from . import qaoa
from ._validation import check_nonnegative, check_positive_int, check_random_state
from .classical import simulated_annealing
from .errors import InvalidParameterError
from .problem import MISProblem, bits_from_strings

__all__ = [
    "MISSampler",
    "Samples",
    "ExactSampler",
    "GreedySampler",
    "RandomSampler",
    "AnnealingSampler",
    "QAOASampler",
    "get_sampler",
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
    stats : collections.Counter
        Work done: ``calls``, ``circuits``, ``shots``, ``quantum_seconds``,
        ``fallbacks`` (components solved classically instead of on the device),
        ``cut_components`` (components sampled through circuit cutting), ``seconds``.
    """

    sets: list[frozenset]
    complete: bool = False
    stats: Counter = field(default_factory=Counter)


@runtime_checkable
class MISSampler(Protocol):
    """Anything with ``sample(graph, seed=None) -> Samples``.

    ``exhaustive`` marks samplers whose output is always complete.
    """

    exhaustive: bool

    def sample(self, graph: nx.Graph, seed=None) -> Samples:
        """Maximal independent sets of ``graph``."""


def maximal_independent_sets(graph: nx.Graph, limit: int | None = None) -> tuple[list[frozenset], bool]:
    """All maximal independent sets (Bron-Kerbosch on the complement, per component).

    Parameters
    ----------
    graph : networkx.Graph
    limit : int, optional
        Stop after this many sets.

    Returns
    -------
    sets : list of frozenset
        Sets in a deterministic order; ``[frozenset()]`` for the empty graph.
    complete : bool
        False when ``limit`` cut the enumeration short.
    """
    parts = []
    for nodes in sorted(nx.connected_components(graph), key=min):
        found = [frozenset(c) for c in nx.find_cliques(nx.complement(graph.subgraph(nodes)))]
        parts.append(sorted(found, key=lambda s: (-len(s), sorted(map(str, s)))))
    total = math.prod(map(len, parts))
    count = total if limit is None else min(total, limit)
    return [
        frozenset().union(*combo) for combo in itertools.islice(itertools.product(*parts), count)
    ], count == total


class ExactSampler:
    """Every maximal independent set: exhaustive branching, so the search can prove optimality.

    Parameters
    ----------
    limit : int, default=100_000
        Safety cap on the sets of one call; a capped call is reported incomplete
        and the search then does not claim optimality from exhaustion.
    """

    exhaustive = True

    def __init__(self, limit: int = 100_000):
        self.limit = check_positive_int(limit, "limit")

    def sample(self, graph: nx.Graph, seed=None) -> Samples:  # noqa: D102
        start = time.perf_counter()
        sets, complete = maximal_independent_sets(graph, self.limit)
        return Samples(sets, complete, Counter(calls=1, seconds=time.perf_counter() - start))


class GreedySampler:
    """Randomised GWMIN greedy maximal sets (:func:`bbqmis.greedy_independent_set` with varied ties).

    Parameters
    ----------
    num_sets : int, default=16
        Greedy runs per call (distinct results are returned).
    """

    exhaustive = False

    def __init__(self, num_sets: int = 16):
        self.num_sets = check_positive_int(num_sets, "num_sets")

    def sample(self, graph: nx.Graph, seed=None) -> Samples:  # noqa: D102
        start = time.perf_counter()
        rng = check_random_state(seed)
        problem = MISProblem(graph)
        empty = np.zeros(problem.num_nodes)
        found = Counter(problem.to_nodes(problem.repair(empty, seed=rng)) for _ in range(self.num_sets))
        return Samples(
            [s for s, _ in found.most_common()], False, Counter(calls=1, seconds=time.perf_counter() - start)
        )


def _counts(bits: np.ndarray) -> Counter:
    """Counts of qiskit-ordered bitstrings from 0/1 rows indexed by qubit, shape (k, n)."""
    return Counter("".join(map(str, row[::-1])) for row in bits)


class _BitstringSampler:
    """Shared path of samplers that draw bitstrings per component and repair them."""

    exhaustive = False

    penalty = 2.0

    def __init__(self, shots: int = 1024, max_sets: int = 64):
        self.shots = check_positive_int(shots, "shots")
        self.max_sets = check_positive_int(max_sets, "max_sets")

    def _bitstrings(self, problem: MISProblem, rng: np.random.Generator, stats: Counter) -> dict[str, int]:
        """Counts of qiskit-ordered bitstrings over the component's qubits."""
        raise NotImplementedError

    def sample(self, graph: nx.Graph, seed=None) -> Samples:
        """Distinct maximal independent sets, most frequently sampled first."""
        start = time.perf_counter()
        rng = check_random_state(seed)
        stats = Counter(calls=1)
        fixed = frozenset(v for v in graph if graph.degree(v) == 0)
        draws = [np.full(self.shots, fixed, dtype=object)]
        for nodes in sorted(nx.connected_components(graph), key=min):
            if len(nodes) == 1:
                continue
            problem = MISProblem(graph.subgraph(nodes), penalty=self.penalty)
            counts = self._bitstrings(problem, rng, stats)
            keys = list(counts)
            repaired = [problem.to_nodes(problem.repair(bits, seed=rng)) for bits in bits_from_strings(keys)]
            shots = np.repeat(np.arange(len(keys)), [counts[k] for k in keys])
            draws.append(np.array(repaired, dtype=object)[rng.permutation(shots)[: self.shots]])
        joint = Counter(frozenset().union(*column) for column in zip(*draws, strict=False))
        stats["seconds"] += time.perf_counter() - start
        return Samples([s for s, _ in joint.most_common(self.max_sets)], False, stats)


class RandomSampler(_BitstringSampler):
    """Uniformly random bitstrings repaired to maximal sets: the baseline QAOA must beat.

    Parameters
    ----------
    shots : int, default=1024
        Bitstrings per component.
    max_sets : int, default=64
        Most frequent distinct sets returned.
    """

    def _bitstrings(self, problem, rng, stats):
        return _counts(rng.integers(0, 2, size=(self.shots, problem.num_nodes)))


class AnnealingSampler(_BitstringSampler):
    """Simulated annealing of the MIS QUBO (dwave-samplers), one read per shot.

    Parameters
    ----------
    shots : int, default=64
        Annealing reads per component.
    max_sets : int, default=64
    beta_range : (float, float), default=(0.1, 100.0)
        Inverse-temperature schedule; an explicit range reaches the optimum far more
        often than the sampler's default at large penalties.
    sweeps : int, default=200
    """

    def __init__(self, shots: int = 64, max_sets: int = 64, beta_range=(0.1, 100.0), sweeps: int = 200):
        super().__init__(shots, max_sets)
        self.beta_range = tuple(float(b) for b in beta_range)
        self.sweeps = check_positive_int(sweeps, "sweeps")

    def _bitstrings(self, problem, rng, stats):
        bits = simulated_annealing(
            problem, num_reads=self.shots, num_sweeps=self.sweeps, beta_range=self.beta_range, seed=rng
        )
        return _counts(bits)


#: Default widest QAOA circuit when ``max_qubits`` is not given.
_DEFAULT_MAX_QUBITS = 24


@lru_cache(maxsize=8)
def _backend(spec: str, options: tuple):
    """One backend per (spec, options) per process: backends are not pickled to workers."""
    from backends import get_backend

    return get_backend(spec, **dict(options))


class QAOASampler(_BitstringSampler):
    """Single-layer QAOA samples, angles trained on the closed form.

    Each connected component becomes an :class:`MISProblem` (penalty ``penalty``);
    its p = 1 angles come from :func:`bbqmis.qaoa.optimize` (no circuit runs) and its
    bitstrings from ``shots`` shots on ``backend``. A component wider than
    ``max_qubits`` is sampled through circuit cutting (:mod:`cutting`) when a vertex
    separator allows it, otherwise by :class:`AnnealingSampler` as a counted fallback
    (``stats["fallbacks"]``).

    Parameters
    ----------
    backend : str, default="aer"
        Backend spec for :func:`backends.get_backend`.
    shots : int, default=1024
    max_qubits : int, optional
        Widest circuit to run; defaults to the backend's qubit count, at most 24 (a
        statevector of more qubits takes GBs and minutes per circuit on a simulator;
        pass a larger value explicitly for a larger device).
    penalty : float, default=2.0
    max_sets : int, default=64
    sleep_factor : float, default=0.0
        Passed to the backend: sleep alpha x quantum seconds after each execution.
    cut : bool, default=True
        Use circuit cutting for components wider than ``max_qubits``.
    max_cut_overhead : float, default=256.0
        Largest sampling overhead ``16**cuts`` accepted (256: two wire cuts); a wider
        plan falls back to annealing. Cutting is not tried for a component of more than
        ``(cuts + 1) * max_qubits`` vertices, which no plan within the bound can fit.
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
    ):
        super().__init__(shots, max_sets)
        if not isinstance(backend, str):
            raise InvalidParameterError(f"backend must be a spec string such as 'aer', got {backend!r}")
        self.backend = backend
        self.max_qubits = None if max_qubits is None else check_positive_int(max_qubits, "max_qubits")
        self.penalty = float(penalty)
        self.sleep_factor = check_nonnegative(sleep_factor, "sleep_factor")
        self.cut = bool(cut)
        self.max_cut_overhead = check_nonnegative(max_cut_overhead, "max_cut_overhead")

    def _device(self):
        return _backend(self.backend, (("sleep_factor", self.sleep_factor),))

    def _bitstrings(self, problem, rng, stats):
        device = self._device()
        width = min(self.max_qubits or _DEFAULT_MAX_QUBITS, device.num_qubits)
        angles = qaoa.optimize(problem)
        seed = int(rng.integers(2**31))
        before = len(device.timings)
        if problem.num_nodes <= width:
            counts = qaoa.sample(problem, angles, device, shots=self.shots, seed=seed)
        else:
            counts = self._wide(problem, angles, device, width, seed, rng, stats)
        for record in device.timings[before:]:
            stats["circuits"] += record.circuits
            stats["shots"] += record.shots * record.circuits
            stats["quantum_seconds"] += record.quantum_seconds
        return counts

    def _wide(self, problem, angles, device, width, seed, rng, stats):
        """Counts for a component wider than the device: circuit cutting, else annealing."""
        max_cuts = int(np.log(max(self.max_cut_overhead, 1.0)) / np.log(16.0) + 1e-9)
        if self.cut and problem.num_nodes <= (max_cuts + 1) * width:
            import cutting

            try:
                plan = cutting.cut_qaoa(problem, width, max_overhead=self.max_cut_overhead)
            except cutting.CuttingError:  # no separator, too costly, or a layout cut_wires cannot take
                pass
            else:
                stats["cut_components"] += 1
                return cutting.sample(
                    plan, (angles.gamma, angles.beta), device, self.shots, self.shots, seed=seed
                )
        stats["fallbacks"] += 1
        return AnnealingSampler(shots=self.shots)._bitstrings(problem, rng, stats)


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

    def __init__(self, function: Callable[[nx.Graph, object], Iterable]):
        self.function = function

    def sample(self, graph, seed=None):
        sets = dict.fromkeys(frozenset(s) for s in self.function(graph, seed))
        return Samples(list(sets), False, Counter(calls=1))


def get_sampler(sampler: str | MISSampler | Callable = "qaoa", **options) -> MISSampler:
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
    """
    if isinstance(sampler, str):
        if sampler not in _SAMPLERS:
            raise InvalidParameterError(
                f"sampler must be one of {', '.join(map(repr, _SAMPLERS))}; got {sampler!r}"
            )
        return _SAMPLERS[sampler](**options)
    if options:
        raise InvalidParameterError("sampler options can only be given with a sampler name")
    if isinstance(sampler, MISSampler):
        return sampler
    if callable(sampler):
        return _CallableSampler(sampler)
    raise InvalidParameterError(f"sampler must be a name, an MISSampler or a callable; got {sampler!r}")
