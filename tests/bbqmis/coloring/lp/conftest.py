import itertools

import numpy as np
import pytest

from bbqmis.coloring.lp.master import IndexedGraph


def brute_force_mwis(graph: IndexedGraph, weights: np.ndarray) -> float:
    """The maximum weight of an independent set, by trying every subset."""
    best = 0.0
    for r in range(graph.n + 1):
        for subset in itertools.combinations(range(graph.n), r):
            mask = sum(1 << v for v in subset)
            if graph.is_independent(mask):
                best = max(best, float(weights[list(subset)].sum()))
    return best


def is_maximal_independent(graph: IndexedGraph, mask: int) -> bool:
    """Whether the bitset ``mask`` is a maximal independent set of ``graph``."""
    return graph.is_independent(mask) and graph.extend(mask) == mask


@pytest.fixture(name="brute_force_mwis")
def brute_force_mwis_fixture():
    return brute_force_mwis


@pytest.fixture(name="is_maximal_independent")
def is_maximal_independent_fixture():
    return is_maximal_independent
