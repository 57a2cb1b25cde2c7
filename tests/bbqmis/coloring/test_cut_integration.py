"""The QAOA sampler on a 5-qubit device, with circuit cutting for components wider than the device."""

import networkx as nx
import pytest

from bbqmis import QAOASampler, color_graph, verify_coloring
from bbqmis.mis import MISProblem
from cutting import kd_clustered_graph


@pytest.mark.slow
def test_sampler_cuts_a_clustered_component_wider_than_the_device():
    clustered = kd_clustered_graph(2, 4, 1, 0.5, 0.5, seed=0)  # 9 vertices, one separator vertex
    assert clustered.number_of_nodes() == 9 and max(d for _, d in clustered.degree) < 5
    sampler = QAOASampler(backend="iqm-fake:adonis", shots=500)
    samples = sampler.sample(clustered, seed=1)
    problem = MISProblem(clustered)
    assert samples.sets and all(problem.is_maximal(problem.to_bits(s)) for s in samples.sets)
    assert samples.stats["cut_problems"] == 1 and samples.stats["fallbacks"] == 0
    assert samples.stats["circuits"] >= 16  # one wire cut: 8 configurations x 2 fragments


@pytest.mark.slow
def test_search_with_the_device_sampler_colours_both_components_optimally():
    clustered = kd_clustered_graph(2, 4, 1, 0.5, 0.5, seed=0)
    graph = nx.disjoint_union(nx.mycielski_graph(4), clustered)
    result = color_graph(graph, QAOASampler(backend="iqm-fake:adonis", shots=500), seed=1)
    verify_coloring(graph, result.coloring)
    assert result.optimal and result.num_colors == 4
