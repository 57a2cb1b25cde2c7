"""The reference application's per-round parameters, for reproducing its published run.

The C++ reference seeds each base clustering with the loop index (round seed
``s = iteration - 1``): k-means calls glibc ``srand(s)``, draws ``k`` and one data row per
initial centre; DBSCAN draws ``eps`` from ``std::default_random_engine(s + 228)``; single
linkage draws ``k`` from ``std::default_random_engine(s + 456)``. Re-running exactly those
calls (GCC 12, glibc, 80,000 points) gives :data:`REFERENCE_ROUNDS`; glibc treats
``srand(0)`` as ``srand(1)``, so rounds 0 and 1 share their k-means. The rows index the
reference data in the order :func:`clustagg.data.make_reference_points` returns them.

With these parameters, k-means run to convergence (``tol=0``: until no assignment
changes) and the MWIS tie-break toward more selected clusters
(:func:`clustagg.aggregate.mwis_problem`), the loop gives the published trajectory,
silhouette 0.702, 0.702, 0.590, then 0.838 in round 3, where it stops above 0.8.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ._validation import check_round_seed
from .errors import InvalidParameterError

__all__ = ["REFERENCE_ROUNDS", "ReferenceRound", "check_reference_run", "reference_parameters"]


class ReferenceRound(NamedTuple):
    """The parameters the reference draws in one round.

    Examples
    --------
    >>> first = REFERENCE_ROUNDS[0]
    >>> len(first.kmeans_rows), first.eps, first.hclust_k
    (9, 4.469032, 4)
    """

    kmeans_rows: tuple[int, ...]
    """Rows of the reference data that start k-means; ``k`` is their number."""
    eps: float
    """DBSCAN radius (``min_samples`` 10)."""
    hclust_k: int
    """Single-linkage clusters."""


#: Parameters of the reference's rounds, by round seed (0..9).
REFERENCE_ROUNDS: tuple[ReferenceRound, ...] = (
    ReferenceRound((31551, 62648, 63875, 72932, 15804, 26818, 61458, 22222, 44318), 4.469032, 4),
    ReferenceRound((31551, 62648, 63875, 72932, 15804, 26818, 61458, 22222, 44318), 1.603106, 4),
    ReferenceRound((64774, 7104, 9718, 27865, 33757, 55984, 5311, 46999), 2.037181, 4),
    ReferenceRound((17999, 31447, 35515, 22803, 11582, 45084, 69174), 2.471256, 4),
    ReferenceRound((10719, 15297, 20806, 17142, 28813, 33584, 52326, 15549, 24778, 40550), 2.905331, 4),
    ReferenceRound((3717, 79420, 6402, 11815, 6372), 3.339405, 4),
    ReferenceRound((77001, 63978, 32241, 6810), 3.773480, 4),
    ReferenceRound((69438, 47407, 17177, 818, 41185, 79676, 2555), 4.207555, 4),
    ReferenceRound((63167, 72466, 3511, 76341, 19862, 69439), 1.341629, 4),
    ReferenceRound((55961, 16274, 28710, 70763, 37059), 1.775704, 4),
)


def reference_parameters(seed: int) -> dict[str, dict[str, Any]]:
    """The reference's parameters for the round with seed ``seed``, shaped as the drawn ones.

    :func:`~clustagg.clusterers.draw_parameters` draws them; these are the reference's.

    Parameters
    ----------
    seed : int
        Round seed, 0..9 (the reference's loop index minus one).

    Returns
    -------
    dict
        ``{"kmeans": {"n_clusters", "init_rows", "tol"}, "dbscan": {"eps", "min_samples"},
        "hclust": {"n_clusters"}}``; ``tol`` is 0, so k-means runs to convergence.

    Raises
    ------
    InvalidParameterError
        If ``seed`` is not in 0..9.

    Examples
    --------
    >>> reference_parameters(3)["kmeans"]["n_clusters"], reference_parameters(3)["dbscan"]["eps"]
    (7, 2.471256)
    """
    seed = check_round_seed(seed)
    if seed >= len(REFERENCE_ROUNDS):
        raise InvalidParameterError(
            f"seed must be a reference round seed in 0..{len(REFERENCE_ROUNDS) - 1}, got {seed}"
        )
    rows, eps, hclust_k = REFERENCE_ROUNDS[seed]
    return {
        "kmeans": {"n_clusters": len(rows), "init_rows": list(rows), "tol": 0.0},
        "dbscan": {"eps": eps, "min_samples": 10},
        "hclust": {"n_clusters": hclust_k},
    }


def check_reference_run(mode: str, seed: int, max_iter: int) -> None:
    """Refuse a reference run the reference never made.

    Parameters
    ----------
    mode : str
        Must be ``"baseline"``.
    seed : int
        Must be 0 (round ``i`` then has the reference's round seed ``i``).
    max_iter : int
        At most the 10 rounds of :data:`REFERENCE_ROUNDS`.

    Raises
    ------
    InvalidParameterError
        Naming the three values.

    Examples
    --------
    >>> check_reference_run("baseline", seed=0, max_iter=10)  # the reference's run: accepted
    >>> try:
    ...     check_reference_run("malleable", seed=0, max_iter=4)
    ... except ValueError as error:
    ...     print(str(error).partition("; ")[2])
    got mode='malleable', seed=0, max_iter=4
    """
    if mode != "baseline" or seed != 0 or max_iter > len(REFERENCE_ROUNDS):
        raise InvalidParameterError(
            f"reference=True replays the reference's {len(REFERENCE_ROUNDS)} rounds in mode='baseline' "
            f"from seed 0 (max_iter <= {len(REFERENCE_ROUNDS)}); got mode={mode!r}, seed={seed}, "
            f"max_iter={max_iter}"
        )
