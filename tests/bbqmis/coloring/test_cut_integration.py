"""The colouring search on a 5-qubit device, with circuit cutting for wide components."""

import networkx as nx
import pytest

from bbqmis import QAOASampler, color_graph, verify_coloring
from cutting import kd_clustered_graph


@pytest.mark.slow
def test_search_on_fake_adonis_cuts_a_clustered_component():
    clustered = kd_clustered_graph(2, 4, 1, 0.5, 0.5, seed=0)  # 9 vertices, one separator vertex
    assert clustered.number_of_nodes() == 9 and max(d for _, d in clustered.degree) < 5
    # The Groetzsch graph (chi 4, bounds 3) forces branching on its degree-5 vertex; the
    # residual then holds the whole 9-vertex clustered component, wider than the device.
    graph = nx.disjoint_union(nx.mycielski_graph(4), clustered)
    sampler = QAOASampler(backend="iqm-fake:adonis", shots=500)
    result = color_graph(graph, sampler, seed=1)
    verify_coloring(graph, result.coloring)
    assert result.optimal and result.num_colors == 4
    stats = result.stats["sampler"]
    assert stats["cut_problems"] >= 1 and stats.get("fallbacks", 0) == 0
    assert stats["circuits"] >= 16  # one wire cut: 8 configurations x 2 fragments
