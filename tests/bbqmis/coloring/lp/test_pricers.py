import networkx as nx
import numpy as np
import pytest

from bbqmis import InvalidParameterError
from bbqmis.coloring.lp.exact_pricer import ExactPricer
from bbqmis.coloring.lp.heuristic_pricers import AnnealPricer, GreedyPricer, QAOAPricer, RandomPricer
from bbqmis.coloring.lp.master import IndexedGraph
from bbqmis.coloring.lp.pricers import get_pricer


def test_pricers_on_zero_duals_and_empty_graph():
    graph = nx.path_graph(4)
    for name in ["greedy", "anneal", "random", "exact"]:
        result = get_pricer(name).price(graph, np.zeros(4))
        assert result.best == 0.0
        assert all(IndexedGraph.from_graph(graph).extend(m) == m for m in result.masks)
        empty = get_pricer(name).price(nx.Graph(), np.zeros(0))
        assert empty.best == 0.0


def test_pricer_validation():
    with pytest.raises(InvalidParameterError, match="duals"):
        ExactPricer().price(nx.path_graph(3), [1.0, 1.0])
    with pytest.raises(InvalidParameterError, match="duals"):
        GreedyPricer().price(nx.path_graph(3), [1.0, -1.0, 1.0])
    with pytest.raises(InvalidParameterError, match="time_limit"):
        ExactPricer().price(nx.path_graph(3), [1.0, 1.0, 1.0], time_limit=-1)
    with pytest.raises(InvalidParameterError, match="penalty"):
        AnnealPricer(penalty=1.0)
    with pytest.raises(InvalidParameterError, match="shots"):
        RandomPricer(shots=0)
    with pytest.raises(InvalidParameterError, match="pricer must be one of"):
        get_pricer("quantum")
    with pytest.raises(InvalidParameterError, match="options"):
        get_pricer(ExactPricer(), mip_rel_gap=0.1)
    with pytest.raises(InvalidParameterError, match="solver"):
        QAOAPricer(solver="aer")  # type: ignore[arg-type]
