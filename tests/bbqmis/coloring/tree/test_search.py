import networkx as nx

from bbqmis.coloring.limits import Clock, Limits
from bbqmis.coloring.samplers import ExactSampler
from bbqmis.coloring.tree.executors import SerialExecutor
from bbqmis.coloring.tree.search import run_tree
from bbqmis.coloring.tree.tree import Node, SearchState, to_bits


def fresh(graph, limits, strategy="best-first"):
    search = SearchState(
        graph, ExactSampler(), strategy=strategy, exhaustive=True, seed=0, clock=Clock(limits)
    )
    coloring = nx.greedy_color(graph, strategy="largest_first")
    classes = {}
    for v, c in coloring.items():
        classes.setdefault(c, set()).add(v)
    search.offer(tuple(to_bits(c) for c in classes.values()), "greedy")
    everything = (1 << graph.number_of_nodes()) - 1
    search.push(Node((), everything, 2))
    return search


def test_an_exhausted_exact_search_proves_the_chromatic_number():
    graph = nx.convert_node_labels_to_integers(nx.mycielski_graph(4))  # chi 4, bound 2
    search = fresh(graph, Limits())
    outcome = run_tree(search, SerialExecutor(), Limits(), 2)
    assert outcome.stop_reason == "exhausted" and search.best == 4 and outcome.lower_bound == 4


def test_the_node_limit_stops_with_open_nodes_and_a_valid_bound():
    graph = nx.convert_node_labels_to_integers(nx.mycielski_graph(5))  # chi 5
    limits = Limits(node_limit=2)
    search = fresh(graph, limits)
    outcome = run_tree(search, SerialExecutor(), limits, 2)
    assert outcome.stop_reason == "node_limit" and search.heap
    assert 2 <= outcome.lower_bound <= 5 and search.best >= 5


def test_a_zero_time_limit_stops_at_once():
    graph = nx.convert_node_labels_to_integers(nx.mycielski_graph(5))
    limits = Limits(time_limit=0.0)
    outcome = run_tree(fresh(graph, limits), SerialExecutor(), limits, 2)
    assert outcome.stop_reason == "time_limit" and outcome.lower_bound == 2


def test_a_tiny_memory_limit_turns_depth_first_then_stops():
    graph = nx.convert_node_labels_to_integers(nx.mycielski_graph(5))
    limits = Limits(memory_limit=0.001)  # 1 MB: already exceeded by the interpreter
    search = fresh(graph, limits)
    search.seen[123] = 1
    outcome = run_tree(search, SerialExecutor(), limits, 2)
    assert outcome.stop_reason == "memory_limit"
    assert outcome.events == ["depth-first", "dropped-seen"] and search.strategy == "depth-first"
