"""What the command line prints: the fields of its progress line and the summary of a result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

    from .result import ColoringResult

__all__ = ["format_result", "progress_view"]


def progress_view(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The fields of a search snapshot that the progress line shows, in display order.

    Examples
    --------
    >>> progress_view({"phase": "search", "component": 1, "components": 2, "nodes": 40, "open": 3,
    ...                "incumbent": 5, "bound": 4, "elapsed": 1.0, "memory_gb": 0.1})["gap"]
    '20%'
    """
    view: dict[str, Any] = {
        "phase": snapshot["phase"],
        "component": f"{snapshot['component']}/{snapshot['components']}",
    }
    if "nodes" in snapshot:
        view |= {"nodes": snapshot["nodes"], "open": snapshot["open"]}
    if "incumbent" in snapshot:
        colours, bound = snapshot["incumbent"], snapshot["bound"]
        gap = None if bound is None or not colours else f"{(colours - bound) / colours:.0%}"
        view |= {"colours": colours, "bound": bound, "gap": gap}
    return view | {"GB": snapshot["memory_gb"]}


def format_result(result: ColoringResult, graph: nx.Graph, sampler: str, backend: str | None) -> str:
    """Human-readable summary table of a result: one row per figure, then one per colour class.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.coloring import color_graph
    >>> graph = nx.cycle_graph(5)
    >>> table = format_result(color_graph(graph, "exact"), graph, "exact", None).splitlines()
    >>> table[1], table[3], table[-1]
    ('colours      3', 'optimal      yes', 'colour 2     4')
    """
    stats = result.stats
    s = stats["sampler"]
    classes: dict[int, list] = {}
    for label, color in result.coloring.items():
        classes.setdefault(color, []).append(label)
    work = f"{sampler}" + (
        f" on {backend}: {int(s.get('circuits', 0))} circuits, {int(s.get('shots', 0))} shots, "
        f"{s.get('quantum_seconds', 0.0):.3f} quantum s, {int(s.get('fallbacks', 0))} fallbacks, "
        f"{int(s.get('cut_components', 0))} cut"
        if backend
        else ""
    )
    rows = [
        (
            "graph",
            f"{graph.graph.get('name', '')} "
            f"({graph.number_of_nodes()} vertices, {graph.number_of_edges()} edges)",
        ),
        ("colours", str(result.num_colors)),
        (
            "lower bound",
            f"{result.lower_bound} "
            f"(root {stats['root_lower_bound']}, first colouring {stats['initial_colors']})",
        ),
        ("optimal", "yes" if result.optimal else "not proven"),
        (
            "nodes",
            f"{stats['nodes_explored']} explored, {stats['nodes_pruned']} pruned, "
            f"{stats['duplicates']} duplicates, {stats['open_nodes']} open; created from the sampler's "
            f"classes {stats.get('nodes_from_sampler', 0)}, "
            f"from the enumeration {stats.get('nodes_from_enumeration', 0)}",
        ),
        ("sampler", work),
        *([("training", _training_line(stats["training"]))] if backend and "training" in stats else []),
        ("pricing", _pricing_line(stats.get("pricing", {}))),
        ("LP columns", _lp_line(stats)),
        ("time", f"{stats['seconds']:.2f} s ({stats['stop_reason']})"),
    ]
    lines = [f"{key:<12} {value}" for key, value in rows]
    for color in sorted(classes):
        members = " ".join(str(v) for v in sorted(classes[color], key=lambda v: (str(type(v)), v)))
        lines.append(f"{'colour ' + str(color):<12} {members}")
    return "\n".join(lines)


def _training_line(training: dict[str, Any]) -> str:
    """What training the angles and sampling cost the branching sampler, and how close training came.

    >>> _training_line({"problems": 0, "evaluations": 0})
    'none (closed-form angles)'
    >>> _training_line({"problems": 2, "evaluations": 50, "circuits": 50, "shots": 51200,
    ...     "quantum_seconds": 0.25, "sampling": {"circuits": 2, "shots": 2048, "quantum_seconds": 0.01},
    ...     "mean_gap": 0.012, "mean_relative_gap": 0.006})
    '2 problems, 50 evaluations, 50 circuits, 51200 shots, 0.250 quantum s; sampling 2 circuits, \
2048 shots, 0.010 quantum s; mean gap to the closed-form optimum 0.012 (0.6%)'
    """
    if not training.get("problems"):
        return "none (closed-form angles)"
    sampling = training["sampling"]
    return (
        f"{training['problems']} problems, {training['evaluations']} evaluations, "
        f"{training['circuits']} circuits, {training['shots']} shots, "
        f"{training['quantum_seconds']:.3f} quantum s; sampling {sampling['circuits']} circuits, "
        f"{sampling['shots']} shots, {sampling['quantum_seconds']:.3f} quantum s; mean gap to the "
        f"closed-form optimum {training['mean_gap']:.3g} ({training['mean_relative_gap']:.1%})"
    )


def _pricing_line(device: dict[str, float]) -> str:
    """What the LP bounds' pricers sent to quantum devices.

    >>> _pricing_line({"circuits": 3.0, "shots": 3072.0, "quantum_seconds": 0.0125})
    '3 circuits, 3072 shots, 0.013 quantum s for LP columns'
    >>> _pricing_line({})
    'no circuits'
    """
    if not device.get("circuits"):
        return "no circuits"
    return (
        f"{int(device['circuits'])} circuits, {int(device.get('shots', 0))} shots, "
        f"{device.get('quantum_seconds', 0.0):.3f} quantum s for LP columns"
    )


def _lp_line(stats: dict[str, Any]) -> str:
    """Improving LP columns per pricer, and what the node LPs did.

    >>> _lp_line({"improving_columns": {"qaoa": 12, "exact": 1},
    ...           "node_lp": {"nodes": 4, "raised": 1, "pruned": 1}})
    'improving: qaoa 12, exact 1; node LPs 4 (raised 1 bound, pruned 1 node)'
    """
    improving = ", ".join(f"{name} {count}" for name, count in stats.get("improving_columns", {}).items())
    node_lp = stats.get("node_lp", {})
    return (
        f"improving: {improving or 'none'}; node LPs {int(node_lp.get('nodes', 0))} "
        f"(raised {int(node_lp.get('raised', 0))} bound, pruned {int(node_lp.get('pruned', 0))} node)"
    )
