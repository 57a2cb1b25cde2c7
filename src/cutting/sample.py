r"""Bitstrings of the original circuit, drawn from the reconstructed quasi-distribution.

With ``K`` wire cuts and every original qubit measured in Z,

.. math::

    p(x) = \sum_i a_i \prod_L q_L^{(i)}(x_L),

where ``q_L^(i)`` is fragment ``L``'s signed histogram in subexperiment ``i`` (probability
of its final bits with even cut parity minus with odd parity). Samples are drawn from this
joint reconstruction, never by concatenating fragment samples drawn independently (which
would lose the correlations across the cuts).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce

import numpy as np
from numpy.typing import NDArray

from backends import QuantumBackend
from backends.utils.validation import SeedLike, check_choice, check_positive_int, check_random_state

from .execute import AnglesLike, CutResults, Progress, run_subexperiments
from .plan import CutPlan
from .reconstruct import histograms

__all__ = ["EXACT_MAX_QUBITS", "CutSampleResult", "quasi_distribution", "draw", "sample_result", "sample"]

#: ``method="auto"`` contracts exactly up to this many qubits (a 2**n table), Monte-Carlo beyond.
EXACT_MAX_QUBITS = 20


@dataclass(frozen=True)
class CutSampleResult:
    """Samples and diagnostics of a cut-sampling run.

    Attributes
    ----------
    counts : dict[str, int]
        Bitstrings over the original ``n`` qubits (qiskit order, qubit 0 rightmost).
    quasi : dict[str, float]
        Reconstructed quasi-probability of every bitstring with a non-zero estimate.
    kappa : float
        ``4**K``; the sampling overhead is ``kappa**2``.
    negative_fraction : float
        Mass of the negative entries of ``quasi`` over its total absolute mass.
    total : float
        Sum of ``quasi`` (about 1).
    method : str
        ``"exact"`` or ``"montecarlo"``.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem, qaoa
    >>> from cutting import cut_qaoa, run_subexperiments
    >>> problem = MISProblem(nx.path_graph(5))
    >>> plan = cut_qaoa(problem, 3)
    >>> result = sample_result(plan, qaoa.optimize(problem), "aer", shots=1000, num_samples=1000, seed=2)
    >>> result.method, result.kappa, sum(result.counts.values()), round(result.total, 9)
    ('exact', 4.0, 1000, 1.0)
    >>> max(result.quasi, key=result.quasi.get)  # vertices 0, 2 and 4: the maximum independent set
    '10101'
    """

    counts: dict[str, int]
    quasi: dict[str, float]
    kappa: float
    negative_fraction: float
    total: float
    method: str

    def to_json(self) -> dict[str, object]:
        """Plain dict of the diagnostics and the counts (``quasi`` left out).

        Returns
        -------
        dict
            ``counts``, ``kappa``, ``negative_fraction``, ``total`` and ``method``;
            JSON-serialisable.

        Examples
        --------
        >>> result = CutSampleResult({"101": 3}, {"101": 0.9, "001": 0.1}, 4.0, 0.0, 1.0, "exact")
        >>> result.to_json()
        {'counts': {'101': 3}, 'kappa': 4.0, 'negative_fraction': 0.0, 'total': 1.0, 'method': 'exact'}
        """
        return {
            "counts": self.counts,
            "kappa": self.kappa,
            "negative_fraction": self.negative_fraction,
            "total": self.total,
            "method": self.method,
        }


def quasi_distribution(plan: CutPlan, results: CutResults) -> NDArray[np.float64]:
    """Exact contraction of the fragment histograms into ``p(x)`` over all ``2**n`` bitstrings.

    Parameters
    ----------
    plan : CutPlan
    results : CutResults

    Returns
    -------
    ndarray of shape (2**n,)
        ``p[k]`` for the bitstring ``format(k, f"0{n}b")`` (bit ``q`` of ``k`` is qubit ``q``).
        Sums to about 1 and may have small negative entries.

    Examples
    --------
    >>> from qiskit.quantum_info import Statevector
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem, qaoa
    >>> from cutting import cut_qaoa, run_subexperiments
    >>> problem = MISProblem(nx.path_graph(5))
    >>> plan = cut_qaoa(problem, 3)
    >>> results = run_subexperiments(plan, (0.4, 0.2), "aer", shots=2000, seed=1)
    >>> p = quasi_distribution(plan, results)
    >>> uncut = qaoa.circuit(problem, measure=False).assign_parameters({"gamma": 0.4, "beta": 0.2})
    >>> exact = Statevector(uncut).probabilities()
    >>> p.shape, round(float(p.sum()), 9), bool(abs(p - exact).max() < 0.02)
    ((32,), 1.0, True)
    """
    signed = [histograms(plan, results, f.label)[0] for f in plan.fragments]
    p = sum(
        a * reduce(np.multiply.outer, rows).ravel() for a, *rows in zip(plan.weights, *signed, strict=True)
    )
    # Axis k of the outer product is, fragment after fragment, bit w-1 .. 0 of that fragment.
    axis_qubit = [q for f in plan.fragments for q in reversed(f.qubits)]
    position = {q: k for k, q in enumerate(axis_qubit)}
    n = plan.num_qubits
    tensor = np.reshape(p, (2,) * n) if n else np.asarray(p)
    return np.transpose(tensor, [position[n - 1 - j] for j in range(n)]).ravel()


def _montecarlo(
    plan: CutPlan, results: CutResults, draws: int, rng: np.random.Generator
) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """Signed Monte-Carlo estimate of ``p`` on the bitstrings drawn: (bits (k, n), values (k,))."""
    weights = plan.weights
    kappa = np.abs(weights).sum()
    config = rng.choice(weights.size, size=draws, p=np.abs(weights) / kappa)
    sign = np.sign(weights[config])
    bits = np.zeros((draws, plan.num_qubits), dtype=np.uint8)
    for fragment in plan.fragments:
        shots = results.fragments[fragment.label]
        # Rows are grouped by experiment and each experiment's weights sum to 1, so the
        # cumulative weight runs from i to i + 1 over experiment i.
        keys = np.cumsum(shots.weight)
        row = np.minimum(np.searchsorted(keys, config + rng.random(draws), side="right"), keys.size - 1)
        sign = sign * shots.sign[row]
        w = len(fragment.qubits)
        bits[:, list(fragment.qubits)] = (shots.outcome[row, None] >> np.arange(w)) & 1
    unique, inverse = np.unique(bits, axis=0, return_inverse=True)
    return unique, kappa * np.bincount(inverse.ravel(), weights=sign) / draws


def _strings(bits: NDArray[np.uint8]) -> list[str]:
    """Bitstrings of the rows of ``bits`` (shape (k, n)), qiskit order: column 0 rightmost."""
    chars = (bits[:, ::-1] + ord("0")).astype(np.uint8)
    return [row.tobytes().decode("ascii") for row in chars]


def _estimate(
    plan: CutPlan, results: CutResults, num_samples: int, method: str, rng: np.random.Generator
) -> tuple[list[str], NDArray[np.float64]]:
    """Bitstrings and their quasi-probability estimates, ``"exact"`` or ``"montecarlo"``."""
    if method == "exact":
        n = plan.num_qubits
        p = quasi_distribution(plan, results)
        support = np.flatnonzero(p)
        return [format(k, f"0{n}b") for k in support], p[support]
    bits, values = _montecarlo(plan, results, num_samples, rng)
    return _strings(bits), values


def _select(
    keys: list[str], values: NDArray[np.float64], num_samples: int, negative: str, rng: np.random.Generator
) -> dict[str, int]:
    """Counts of ``num_samples`` draws from the clipped estimates, or the top ``num_samples`` ranked."""
    if negative == "rank":
        top = np.argsort(-values, kind="stable")[:num_samples]
        return {keys[k]: 1 for k in top}
    clipped = np.clip(values, 0.0, None)
    drawn = rng.multinomial(num_samples, clipped / clipped.sum())
    return {keys[k]: int(drawn[k]) for k in np.flatnonzero(drawn)}


def draw(
    plan: CutPlan,
    results: CutResults,
    num_samples: int,
    *,
    seed: SeedLike = None,
    method: str = "auto",
    negative: str = "clip",
) -> CutSampleResult:
    """Draw bitstrings from the quasi-distribution reconstructed from ``results``.

    Parameters
    ----------
    plan : CutPlan
    results : CutResults
    num_samples : int
        Bitstrings to return (``"clip"``) or candidates to rank (``"rank"``).
    seed : None, int or numpy.random.Generator
    method : {"auto", "exact", "montecarlo"}, default="auto"
        ``"exact"`` contracts ``p`` over all ``2**n`` bitstrings
        (:func:`quasi_distribution`). ``"montecarlo"`` draws ``num_samples`` configurations
        ``i`` with probability ``|a_i| / kappa``, one stored shot per fragment of that
        configuration, and weighs the joined bitstring by ``sign(a_i)`` times the shots' cut
        parities: ``kappa`` times the signed histogram estimates ``p`` on the bitstrings seen.
        ``"auto"`` is exact up to ``EXACT_MAX_QUBITS`` (20) qubits.
    negative : {"clip", "rank"}, default="clip"
        ``"clip"`` sets negative quasi-probabilities to zero, renormalises and draws
        ``num_samples`` bitstrings from the result. This is biased: it moves probability
        from the bitstrings with small (noisy) estimates to the others, by about the
        negative mass (see ``negative_fraction``), which shrinks as the shots grow.
        ``"rank"`` returns the ``num_samples`` bitstrings of largest quasi-probability,
        most probable first, each with count 1: enough for MIS, where every candidate is
        checked classically.

    Returns
    -------
    CutSampleResult

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem, qaoa
    >>> from cutting import cut_qaoa, run_subexperiments
    >>> problem = MISProblem(nx.path_graph(5))
    >>> plan = cut_qaoa(problem, 3)
    >>> results = run_subexperiments(plan, qaoa.optimize(problem), "aer", shots=2000, seed=1)
    >>> ranked = draw(plan, results, 3, negative="rank")
    >>> list(ranked.counts), all(problem.is_independent(bits) for bits in ranked.counts)
    (['10101', '10010', '01001'], True)
    """
    num_samples = check_positive_int(num_samples, "num_samples")
    method = check_choice(method, "method", ("auto", "exact", "montecarlo"))
    negative = check_choice(negative, "negative", ("clip", "rank"))
    rng = check_random_state(seed)
    if method == "auto":
        method = "exact" if plan.num_qubits <= EXACT_MAX_QUBITS else "montecarlo"
    keys, values = _estimate(plan, results, num_samples, method, rng)
    counts = _select(keys, values, num_samples, negative, rng)
    magnitude = np.abs(values).sum()
    return CutSampleResult(
        counts=counts,
        quasi=dict(zip(keys, values.tolist(), strict=True)),
        kappa=plan.kappa,
        negative_fraction=float(-values[values < 0].sum() / magnitude) if magnitude else 0.0,
        total=float(values.sum()),
        method=method,
    )


def sample_result(
    plan: CutPlan,
    angles: AnglesLike,
    backend: str | QuantumBackend,
    shots: int,
    num_samples: int,
    seed: SeedLike = None,
    method: str = "auto",
    negative: str = "clip",
    progress: Progress | None = None,
) -> CutSampleResult:
    """Run the subexperiments once and draw bitstrings of the original circuit, with diagnostics.

    Parameters
    ----------
    plan : CutPlan
    angles : object with ``gamma`` and ``beta`` (such as QAOAAngles), or (gamma, beta)
    backend : str or backends.QuantumBackend
    shots : int
        Shots per subexperiment.
    num_samples : int
    seed : None, int or numpy.random.Generator
        Seeds the backend run and the draws.
    method, negative : str
        See :func:`draw`.
    progress : callable, optional
        Snapshot callback, as :func:`~cutting.execute.run_subexperiments` reports it, then
        ``{"phase": "draw", "done": d, "total": t}`` with ``t`` the subexperiments.

    Returns
    -------
    CutSampleResult

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem, qaoa
    >>> from cutting import cut_qaoa, run_subexperiments
    >>> problem = MISProblem(nx.path_graph(5))
    >>> plan = cut_qaoa(problem, 3)
    >>> snapshots = []
    >>> result = sample_result(plan, (0.4, 0.2), "aer", 500, 100, seed=2, progress=snapshots.append)
    >>> snapshots[-1], sum(result.counts.values())
    ({'phase': 'draw', 'done': 16, 'total': 16}, 100)
    """
    rng = check_random_state(seed)
    run_seed = None if seed is None else int(rng.integers(2**31))
    results = run_subexperiments(plan, angles, backend, shots, seed=run_seed, progress=progress)
    if progress is not None:
        progress({"phase": "draw", "done": plan.num_subexperiments, "total": plan.num_subexperiments})
    return draw(plan, results, num_samples, seed=rng, method=method, negative=negative)


def sample(
    plan: CutPlan,
    angles: AnglesLike,
    backend: str | QuantumBackend,
    shots: int,
    num_samples: int,
    seed: SeedLike = None,
    method: str = "auto",
    negative: str = "clip",
    progress: Progress | None = None,
) -> dict[str, int]:
    """Bitstring counts over the original qubits, sampled through the cuts.

    The counts of :func:`sample_result`; see :func:`draw` for ``method`` and ``negative``
    (by default negative quasi-probabilities are clipped and the rest renormalised,
    a small bias that shrinks with the shots) and :func:`sample_result` for ``progress``.

    Returns
    -------
    dict[str, int]
        Keys are ``n``-character bitstrings in qiskit order (qubit 0 rightmost).

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem, qaoa
    >>> from cutting import cut_qaoa, run_subexperiments
    >>> problem = MISProblem(nx.path_graph(5))
    >>> plan = cut_qaoa(problem, 3)
    >>> counts = sample(plan, qaoa.optimize(problem), "aer", shots=1000, num_samples=1000, seed=2)
    >>> independent = sum(n for bits, n in counts.items() if problem.is_independent(bits))
    >>> sum(counts.values()), independent > 800  # the uncut circuit's share is 0.83
    (1000, True)
    """
    return sample_result(plan, angles, backend, shots, num_samples, seed, method, negative, progress).counts
