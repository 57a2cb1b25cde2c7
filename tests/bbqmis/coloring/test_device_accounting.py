"""The colouring's statistics account for every circuit the device ran: branching and LP pricing."""

import networkx as nx
import pytest

from backends.timing import record_timings
from bbqmis import color_graph
from bbqmis.coloring.samplers import QAOASampler

pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize("method", ["bbq", "price"])
def test_sampler_and_pricing_counters_add_up_to_the_device_executions(method):
    # 11 vertices, chromatic number 4; in reverse order, so that the Mycielskian bound (which
    # follows the construction order and would settle it at the root) stays at 3 and the tree runs
    graph = nx.Graph()
    graph.add_nodes_from(range(10, -1, -1))
    graph.add_edges_from(nx.mycielski_graph(4).edges)
    with record_timings() as records:
        result = color_graph(
            graph, QAOASampler(shots=128), exact_share=0, lp_share=0.5, method=method, seed=3, time_limit=120
        )
    assert result.optimal and result.num_colors == 4
    sampler, pricing = result.stats["sampler"], result.stats["pricing"]
    assert pricing["circuits"] > 0  # QAOA pricing reached the device
    ran = sum(r.circuits for r in records)
    assert sampler.get("circuits", 0) + pricing["circuits"] == ran
    assert sampler.get("shots", 0) + pricing["shots"] == sum(r.circuits * r.shots for r in records)
    device_seconds = sum(r.quantum_seconds for r in records)
    counted = sampler.get("quantum_seconds", 0) + pricing["quantum_seconds"]
    assert counted == pytest.approx(device_seconds, rel=1e-9)
