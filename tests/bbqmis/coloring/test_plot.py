import networkx as nx
from PIL import Image

from bbqmis.coloring import color_graph
from bbqmis.coloring.plot import MAX_DRAWN_VERTICES, plot_run


def size(path):
    with Image.open(path) as image:
        return image.format, image.size


def test_a_small_graph_is_drawn_beside_its_history(tmp_path):
    graph = nx.cycle_graph(5)
    plot_run(graph, color_graph(graph, "exact"), [(0.0, 3, 2), (0.1, 3, 3)], tmp_path / "run.png")
    kind, (width, height) = size(tmp_path / "run.png")
    assert kind == "PNG" and (width, height) == (11 * 120, int(4.5 * 120))


def test_a_large_graph_gets_the_history_alone(tmp_path):
    graph = nx.path_graph(MAX_DRAWN_VERTICES + 1)
    plot_run(graph, color_graph(graph, "greedy"), [(0.0, None, None)], tmp_path / "run.png")
    kind, (width, _) = size(tmp_path / "run.png")
    assert kind == "PNG" and width == 6 * 120
