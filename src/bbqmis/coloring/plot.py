"""Figures of a colouring run: the coloured graph, and the incumbent and bound over time.

Drawn with matplotlib's object interface on the Agg canvas (no display, no pyplot state),
and saved atomically (:func:`backends.utils.files.atomic_write`): the PNG appears complete or
not at all. matplotlib and networkx are imported when a figure is drawn, not with this module.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from backends.utils.files import atomic_write

if TYPE_CHECKING:
    import networkx as nx
    from matplotlib.axes import Axes

    from .result import ColoringResult

__all__ = ["MAX_DRAWN_VERTICES", "plot_run"]

#: Larger graphs get only the time panel: a drawing of them says nothing.
MAX_DRAWN_VERTICES = 200


def plot_run(
    graph: nx.Graph,
    result: ColoringResult,
    history: Sequence[tuple[float, int | None, int | None]],
    path: str | os.PathLike,
) -> None:
    """Save a PNG of the coloured graph (up to 200 vertices) and of the search over time.

    Parameters
    ----------
    graph : networkx.Graph
        The coloured graph, nodes labelled as :func:`~bbqmis.mis.graphio.read_graph` leaves
        them (attribute ``label`` naming the keys of ``result.coloring``).
    result : ColoringResult
    history : sequence of (seconds, colours, bound)
        Samples of the incumbent's colours and the proven bound (None where not known yet)
        as the run went, for instance from its progress snapshots; the final result is
        added at ``result.stats["seconds"]``.
    path : path-like
        Where the PNG goes (replaced atomically; a device such as ``/dev/null`` is
        written, not replaced).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import networkx as nx
    >>> from bbqmis.coloring import color_graph
    >>> graph = nx.cycle_graph(5)
    >>> result = color_graph(graph, "exact")
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "run.png"
    >>> plot_run(graph, result, [(0.0, 3, 2)], out)
    >>> out.read_bytes()[1:4] == b"PNG"
    True
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    drawn = 0 < graph.number_of_nodes() <= MAX_DRAWN_VERTICES
    figure = Figure(figsize=(11 if drawn else 6, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    if drawn:
        _draw_coloring(figure.add_subplot(1, 2, 1), graph, result)
    _draw_history(figure.add_subplot(1, 2 if drawn else 1, 2 if drawn else 1), result, history)
    atomic_write(path, functools.partial(figure.savefig, format="png", dpi=120))


def _draw_coloring(axes: Axes, graph: nx.Graph, result: ColoringResult) -> None:
    import networkx as nx

    colours = [result.coloring[graph.nodes[v].get("label", v)] for v in graph]
    layout = nx.spring_layout(graph, seed=0)
    nx.draw_networkx_edges(graph, layout, ax=axes, alpha=0.3, width=0.6)
    nx.draw_networkx_nodes(
        graph, layout, ax=axes, node_color=colours, cmap="tab20", node_size=max(20, 3000 // len(graph))
    )
    proof = "optimal" if result.optimal else f"bound {result.lower_bound}"
    axes.set_title(f"{result.num_colors} colours ({proof})")
    axes.set_axis_off()


def _draw_history(
    axes: Axes, result: ColoringResult, history: Sequence[tuple[float, int | None, int | None]]
) -> None:
    from matplotlib.ticker import MaxNLocator

    samples = [*history, (float(result.stats.get("seconds", 0.0)), result.num_colors, result.lower_bound)]
    for column, label, style in ((1, "colours (incumbent)", "-"), (2, "lower bound", "--")):
        points = [(sample[0], sample[column]) for sample in samples if sample[column] is not None]
        if points:
            seconds, values = zip(*points, strict=True)
            axes.step(seconds, values, style, where="post", label=label)
    axes.set_xlabel("seconds")
    axes.set_ylabel("colours")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_title("search" + (f" (stopped: {result.stopped})" if result.stopped else ""))
    axes.legend(loc="best")
    axes.grid(alpha=0.3)
