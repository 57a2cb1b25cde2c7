"""Exact DSATUR branch-and-bound (``bbqmis.coloring.classical.dsatur_exact``): nodes and seconds per graph.

For each graph: vertices, edges, the chromatic number from the literature, networkx's
greedy DSATUR colouring (``greedy_color(strategy="saturation_largest_first")``, the
peer: colours and seconds), then ``exact_coloring`` (colours, proven lower bound,
optimal, decisions, wall and CPU seconds, stop reason). Graphs: myciel3-5, queen5_5,
huck, anna and le450_5a from ``data/graphs``, and ``networkx.mycielski_graph(6)``
(myciel5 with another vertex order); ``--all`` adds every other DIMACS file there.
Chromatic numbers are read from the table in ``data/graphs/README.md``. Every search
has a time limit (``--time-limit``, default 20 s); CPU seconds show the effect of a
loaded machine.

Usage: ``python benchmarks/dsatur_exact.py [--all] [--time-limit 20] [--json-only]
[--graphs myciel5 queen5_5 ...]``. Prints the table and, last, one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from _graphs import (
    GRAPH_DIR,
    literature_chi,
)  # benchmarks/_graphs.py; stdlib only, imported before the path change

# benchmarks/cutting.py is named like the `cutting` package: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402

from bbqmis.coloring.classical.dsatur_exact import exact_coloring  # noqa: E402
from bbqmis.mis.graphio import read_graph  # noqa: E402

#: The default graphs; ``--all`` adds every other file in data/graphs.
DEFAULT = ["myciel3", "myciel4", "myciel5", "mycielski_graph(6)", "queen5_5", "huck", "anna", "le450_5a"]


def load_graphs(include_all: bool) -> dict[str, nx.Graph]:
    names = list(DEFAULT)
    if include_all:
        names += sorted(p.stem for p in GRAPH_DIR.glob("*.col") if p.stem not in names)
    return {
        name: nx.mycielski_graph(6) if name == "mycielski_graph(6)" else read_graph(GRAPH_DIR / f"{name}.col")
        for name in names
    }


def run(name: str, graph: nx.Graph, time_limit: float, chi: int | None) -> dict:
    start = time.perf_counter()
    greedy = nx.greedy_color(graph, strategy="saturation_largest_first")
    greedy_s = time.perf_counter() - start
    adjacency = nx.to_numpy_array(graph, dtype=bool, weight=None)
    wall, cpu = time.perf_counter(), time.process_time()
    result = exact_coloring(adjacency, deadline=wall + time_limit)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    colors = result.colors
    proper = not (adjacency & (colors[:, None] == colors[None, :])).any()
    return {
        "graph": name,
        "n": graph.number_of_nodes(),
        "m": graph.number_of_edges(),
        "chi_literature": chi,
        "nx_dsatur_colors": max(greedy.values(), default=-1) + 1,
        "nx_dsatur_s": greedy_s,
        "colors": result.num_colors,
        "lower_bound": result.lower_bound,
        "optimal": result.optimal,
        "nodes": result.nodes,
        "seconds": wall,
        "cpu_seconds": cpu,
        "stopped": result.stopped,
        "proper": bool(proper),
    }


def print_table(rows: list[dict], time_limit: float) -> None:
    header = (
        f"{'graph':<18} {'n':>4} {'m':>5} {'chi':>4} | {'nx DSATUR':>9} {'s':>7} | "
        f"{'colours':>7} {'lower':>5} {'optimal':>7} {'nodes':>8} {'s':>7} {'cpu s':>7}  stopped"
    )
    print(f"exact_coloring, time limit {time_limit:g} s per graph; nodes = branching decisions")
    print(header)
    print("-" * len(header))
    for r in rows:
        chi = "?" if r["chi_literature"] is None else r["chi_literature"]
        print(
            f"{r['graph']:<18} {r['n']:>4} {r['m']:>5} {chi:>4} | {r['nx_dsatur_colors']:>9} "
            f"{r['nx_dsatur_s']:>7.3f} | {r['colors']:>7} {r['lower_bound']:>5} {str(r['optimal']):>7} "
            f"{r['nodes']:>8} {r['seconds']:>7.3f} {r['cpu_seconds']:>7.3f}  {r['stopped'] or '-'}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--all", action="store_true", help="every graph in data/graphs")
    parser.add_argument("--time-limit", type=float, default=20.0, help="seconds per graph (default 20)")
    parser.add_argument("--json-only", action="store_true")
    parser.add_argument("--graphs", nargs="*", help="only these graphs")
    args = parser.parse_args()
    load_at_start = os.getloadavg()
    graphs = load_graphs(args.all)
    chi = {**literature_chi(), "mycielski_graph(6)": 6}
    if args.graphs:
        graphs = {name: graphs[name] for name in args.graphs}
    rows = []
    for name, graph in graphs.items():
        print(f"{name} ...", file=sys.stderr, flush=True)
        rows.append(run(name, graph, args.time_limit, chi.get(name)))
        assert rows[-1]["proper"], f"{name}: the colouring is not proper"
    if not args.json_only:
        print_table(rows, args.time_limit)
    myciel5 = [r for r in rows if r["graph"] in ("myciel5", "mycielski_graph(6)")]
    result = {
        "benchmark": "dsatur_exact",
        "time_limit_s": args.time_limit,
        "rows": rows,
        "myciel5_proven_within_5s": None
        if not myciel5
        else all(r["optimal"] and r["colors"] == 6 and r["seconds"] < 5 for r in myciel5),
        "environment": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "networkx": nx.__version__,
            "cpus": os.cpu_count(),
            "load_average_at_start": load_at_start,
        },
    }
    print(json.dumps(result, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
