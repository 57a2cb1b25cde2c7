"""Samples and counters of a quantum MIS call, apart from the solver that makes them.

:class:`MISSamples` (bitstrings and how often each came), the :data:`Stats` counters every
sampler and solver keeps, and the annealing budget (:func:`annealing_reads`). They import
nothing of the quantum stack, so a colouring run whose sampler runs no circuit (``exact``,
``anneal``) starts without qiskit; :mod:`bbqmis.solver` makes them from circuits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np

from backends.utils.validation import SeedLike, check_random_state

from .mis.problem import MISProblem, bits_from_strings

__all__ = [
    "ANNEALING_WORK",
    "DEVICE_KEYS",
    "STAT_KEYS",
    "MISSamples",
    "Stats",
    "add_stats",
    "annealing_reads",
    "new_stats",
]

#: Spin updates (reads x sweeps x (vertices + edges)) of one annealing call (the fallback, or
#: the annealing sampler), about a second: a wide residual gets fewer reads than asked for
#: rather than minutes of annealing that no deadline can stop.
ANNEALING_WORK = 500_000_000

#: Device counters kept apart for the training of the angles and for the final sampling.
DEVICE_KEYS = ("circuits", "shots", "quantum_seconds")

#: Counters of :attr:`MISSamples.stats` and :attr:`QuantumMISSolver.stats`.
STAT_KEYS = (
    "calls",
    *DEVICE_KEYS,
    "cut_problems",
    "fallbacks",
    "seconds",
    *(f"{phase}_{key}" for phase in ("training", "sampling") for key in DEVICE_KEYS),
    "training_problems",
    "training_evaluations",
    "training_gap",
    "training_relative_gap",
)

#: Work counters by name (counts and seconds); a missing counter reads 0.
Stats: TypeAlias = defaultdict[str, float]


def new_stats(**values: float) -> Stats:
    """Counters starting at ``values``, every other counter at 0.

    Parameters
    ----------
    **values : float
        Initial counters by name.

    Returns
    -------
    Stats

    Examples
    --------
    >>> stats = new_stats(calls=1)
    >>> stats["calls"], stats["shots"]
    (1, 0.0)
    """
    return defaultdict(float, values)


def add_stats(total: Stats, more: Mapping[str, float], *, skip: Iterable[str] = ()) -> None:
    """Add every counter of ``more`` to ``total``, except those named in ``skip``.

    Parameters
    ----------
    total : Stats
        Updated in place.
    more : mapping of str to float
    skip : iterable of str, optional
        Counters of ``more`` left out.

    Examples
    --------
    >>> total = new_stats(calls=1, seconds=0.5)
    >>> add_stats(total, {"calls": 2, "seconds": 1.0, "shots": 100}, skip=["seconds"])
    >>> dict(total)
    {'calls': 3, 'seconds': 0.5, 'shots': 100.0}
    """
    skipped = set(skip)
    for key, value in more.items():
        if key not in skipped:
            total[key] += value


@dataclass
class MISSamples:
    """Bitstrings sampled for one problem.

    Attributes
    ----------
    bits : ndarray of shape (k, n), dtype uint8
        Distinct bitstrings, ``bits[r, u]`` the bit of qubit ``u`` (``problem.nodes[u]``);
        not repaired, so a row may break the independence constraint.
    counts : ndarray of shape (k,), dtype int64
        How often each row was sampled; the rows are ordered most frequent first.
    stats : Stats
        Work of this call: ``calls``, ``circuits``, ``shots`` (every shot of every
        circuit), ``quantum_seconds`` (device execution), ``cut_problems`` (1 when
        sampled through circuit cutting), ``fallbacks`` (1 when annealed instead),
        ``seconds`` (wall time); the device counters split into ``training_circuits``,
        ``training_shots``, ``training_quantum_seconds`` (training the angles) and
        ``sampling_circuits``, ``sampling_shots``, ``sampling_quantum_seconds`` (the final
        sampling); ``training_problems`` (1 when the angles were trained),
        ``training_evaluations``, ``training_gap`` and ``training_relative_gap`` (exact
        energy at the trained angles less the closed-form optimum, absolute and relative
        to its magnitude; see :class:`~bbqmis.mis.training.TrainedAngles`).
    angles : TrainedAngles or QAOAAngles, optional
        The angles sampled at: trained or closed-form (None when no circuit ran).

    Examples
    --------
    >>> samples = MISSamples.from_counts({"01": 3, "10": 5}, 2, new_stats(calls=1))
    >>> samples.bits.tolist(), samples.counts.tolist()  # most frequent first; bits indexed by qubit
    ([[0, 1], [1, 0]], [5, 3])
    """

    bits: np.ndarray
    counts: np.ndarray
    stats: Stats = field(default_factory=new_stats)
    angles: object = None

    @classmethod
    def from_counts(
        cls, counts: Mapping[str, int], num_bits: int, stats: Stats, angles: object = None
    ) -> MISSamples:
        """Build from qiskit-ordered counts (qubit 0 is the rightmost character).

        Parameters
        ----------
        counts : mapping of str to int
            Bitstring -> times sampled.
        num_bits : int
            ``n``, the width of ``bits`` (also when ``counts`` is empty).
        stats : Stats
        angles : TrainedAngles or QAOAAngles, optional
            The angles sampled at.

        Returns
        -------
        MISSamples
            Rows ordered by decreasing count, ties by bitstring.

        Examples
        --------
        >>> samples = MISSamples.from_counts({"001": 2, "100": 2, "110": 7}, 3, new_stats())
        >>> samples.bits.tolist(), samples.counts.tolist()
        ([[0, 1, 1], [1, 0, 0], [0, 0, 1]], [7, 2, 2])
        """
        keys = sorted(counts, key=lambda key: (-counts[key], key))
        bits = bits_from_strings(keys, num_bits) if keys else np.zeros((0, num_bits), np.uint8)
        return cls(bits, np.array([counts[key] for key in keys], dtype=np.int64), stats, angles)

    @classmethod
    def from_rows(cls, rows: np.ndarray, stats: Stats) -> MISSamples:
        """Build from sampled rows of shape (shots, n), one row per shot.

        Parameters
        ----------
        rows : ndarray of shape (shots, n)
            0/1 rows indexed by qubit.
        stats : Stats

        Returns
        -------
        MISSamples
            Distinct rows, most frequent first.

        Examples
        --------
        >>> samples = MISSamples.from_rows(np.array([[1, 0], [0, 1], [0, 1]]), new_stats())
        >>> samples.bits.tolist(), samples.counts.tolist()
        ([[0, 1], [1, 0]], [2, 1])
        """
        unique, counts = np.unique(np.asarray(rows, dtype=np.uint8), axis=0, return_counts=True)
        order = np.lexsort((np.arange(len(counts)), -counts))
        return cls(unique[order], counts[order].astype(np.int64), stats)

    def most_frequent(self, k: int) -> MISSamples:
        """The ``k`` most frequent distinct bitstrings (all of them if fewer), same statistics.

        Examples
        --------
        >>> samples = MISSamples.from_rows(np.array([[1, 0], [0, 1], [0, 1]]), new_stats())
        >>> samples.most_frequent(1).bits.tolist(), samples.most_frequent(1).counts.tolist()
        ([[0, 1]], [2])
        """
        return MISSamples(self.bits[:k], self.counts[:k], self.stats, self.angles)

    def repaired(self, problem: MISProblem, seed: SeedLike = None) -> np.ndarray:
        """Each row repaired to a maximal independent set (:meth:`MISProblem.repair`).

        Returns
        -------
        ndarray of shape (k, n), dtype uint8
            Row ``r`` is the repair of ``bits[r]``; rows may repeat.

        Examples
        --------
        >>> import networkx as nx
        >>> problem = MISProblem(nx.path_graph(3))
        >>> samples = MISSamples.from_counts({"011": 4, "000": 1}, 3, new_stats())
        >>> fixed = samples.repaired(problem, seed=0)
        >>> [bool(problem.is_maximal(row)) for row in fixed]
        [True, True]
        """
        rng = check_random_state(seed)
        if len(self.bits) == 0:
            return np.zeros((0, problem.num_nodes), dtype=np.uint8)
        return np.array([problem.repair(row, seed=rng) for row in self.bits], dtype=np.uint8)


def annealing_reads(shots: int, sweeps: int, size: int) -> int:
    """Annealing reads of one call: ``shots``, or as many as :data:`ANNEALING_WORK` allows (at least 1).

    Parameters
    ----------
    shots : int
        Reads wanted (the circuit's shots).
    sweeps : int
        Sweeps per read.
    size : int
        Vertices plus edges of the problem: the work of one sweep.

    Examples
    --------
    >>> annealing_reads(1024, 200, 100)  # a small problem: every shot
    1024
    >>> annealing_reads(1024, 200, 250_000)  # a dense 1,000-vertex residual
    10
    """
    return max(1, min(shots, ANNEALING_WORK // max(1, sweeps * size)))
