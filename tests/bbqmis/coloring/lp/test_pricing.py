import math

import networkx as nx
import numpy as np
import pytest

from bbqmis.coloring.lp.exact_pricer import ExactPricer
from bbqmis.coloring.lp.heuristic_pricers import GreedyPricer
from bbqmis.coloring.lp.lp_bound import lp_bound
from bbqmis.coloring.lp.pricing import DEVICE_COUNTERS, IMPROVE_TOL, Pricer, PricingResult, device_work
from bbqmis.samples import new_stats


class FixedPricer:
    """A pricer that always offers the same independent sets of the 5-cycle."""

    name = "fixed"
    certifies = False

    def price(self, graph, duals, seed=None, *, time_limit=None):
        masks = [0b00101, 0b01010, 0b10100, 0b01001, 0b10010]
        weights = np.array([sum(duals[v] for v in range(5) if m >> v & 1) for m in masks])
        order = np.argsort(-weights, kind="stable")
        return PricingResult([masks[i] for i in order], weights[order], stats=new_stats(calls=1))


def test_pricing_result_best_is_the_heaviest_weight_or_zero():
    assert PricingResult([0b11], np.array([2.5, 1.0])).best == 2.5
    empty = PricingResult([], np.array([]))
    assert empty.best == 0.0 and math.isinf(empty.upper) and not empty.optimal


def test_every_pricer_satisfies_the_protocol():
    assert isinstance(GreedyPricer(), Pricer) and isinstance(ExactPricer(), Pricer)
    assert isinstance(FixedPricer(), Pricer)
    assert not isinstance(object(), Pricer)


def test_a_pricer_of_our_own_feeds_column_generation():
    result = lp_bound(nx.cycle_graph(5), pricers=(FixedPricer(),), seed=0)
    assert result.certified and result.value == pytest.approx(2.5) and result.bound == 3
    assert result.stats["fixed"]["calls"] >= 1


def test_device_work_sums_the_device_counters_over_pricers():
    stats = {
        "master": {"calls": 3, "initial_columns": 7},
        "qaoa": {"circuits": 2, "shots": 2048, "quantum_seconds": 0.5, "calls": 2},
        "other": {"circuits": 1, "shots": 100},
    }
    work = device_work(stats)
    assert set(work) == set(DEVICE_COUNTERS)
    assert work == {"circuits": 3.0, "shots": 2148.0, "quantum_seconds": 0.5}
    assert device_work({}) == dict.fromkeys(DEVICE_COUNTERS, 0.0)


def test_improving_columns_must_beat_one_by_the_tolerance():
    assert 0 < IMPROVE_TOL < 1e-6
