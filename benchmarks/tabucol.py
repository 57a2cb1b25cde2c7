"""TabuCol upper bounds: colours reached from DSATUR, against networkx's greedy colourings.

For the DIMACS graphs ``myciel3``, ``myciel4``, ``queen5_5``, ``huck``, ``anna`` and
``le450_5a`` (every ``data/graphs/*.col`` with ``--all``): the
colours of each ``networkx.greedy_color`` strategy (the peer, timed in the same run),
the DSATUR start (``bbqmis.coloring.classical.bounds.dsatur``), then
``bbqmis.coloring.classical.tabucol.improve_coloring`` from that start with a fixed seed, a
deadline of ``--time-limit`` seconds and, as ``lower_bound``, the project's own root
lower bound (``adjacency_bounds``, computed here, not the literature value). The
descent stops at that bound, so on graphs whose bound is below the chromatic number
(myciel3, myciel4) it runs until the deadline: "to best" is the time at which the
final colour count was reached, "total" the whole call.

Iterations are counted by ``bbqmis.coloring.classical.tabucol.descend`` (``improve_coloring``
with the work of every TabuCol search). Chromatic numbers from the literature (the table
of ``data/graphs/README.md``) are shown for reference only.

Usage: ``python benchmarks/tabucol.py [--all | --graphs le450_5a ...] [--seeds 0 1 2]
[--time-limit 20] [--json-only]``. Prints a table, then one JSON line. Progress goes to
stderr. The default set takes about a minute (myciel3 and myciel4 run to the deadline);
``--all`` (52 graphs) about ten.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import statistics
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
from networkx.algorithms.coloring.greedy_coloring import strategy_random_sequential  # noqa: E402

import bbqmis  # noqa: E402
from bbqmis.coloring.classical.bounds import adjacency_bounds, dsatur  # noqa: E402
from bbqmis.coloring.classical.tabucol import descend  # noqa: E402
from bbqmis.mis.graphio import read_graph  # noqa: E402

DEFAULT_GRAPHS = ["myciel3", "myciel4", "queen5_5", "huck", "anna", "le450_5a"]


#: For reference only: nothing is computed from them.
LITERATURE_CHI = literature_chi()

#: networkx greedy strategies (label, strategy); random_sequential gets the seed.
GREEDY_STRATEGIES = [
    ("LF", "largest_first"),
    ("SL", "smallest_last"),
    ("DSATUR", "saturation_largest_first"),
    ("IS", "independent_set"),
    ("BFS", "connected_sequential_bfs"),
    ("DFS", "connected_sequential_dfs"),
    ("RS", "random_sequential"),
]


def proper(adjacency: np.ndarray, colors: np.ndarray) -> bool:
    rows, cols = np.nonzero(adjacency)
    return bool(np.all(colors[rows] != colors[cols]))


def networkx_peer(graph: nx.Graph, seed: int) -> dict:
    """Colours and seconds of every networkx greedy strategy."""
    out = {}
    for label, strategy in GREEDY_STRATEGIES:
        chosen = functools.partial(strategy_random_sequential, seed=seed) if label == "RS" else strategy
        began = time.perf_counter()
        coloring = nx.greedy_color(graph, strategy=chosen)
        seconds = time.perf_counter() - began
        out[label] = {"colors": len(set(coloring.values())), "seconds": round(seconds, 5)}
    return out


def run_graph(name: str, seeds: list[int], time_limit: float, log) -> dict:
    graph = read_graph(GRAPH_DIR / f"{name}.col")
    adjacency = nx.to_numpy_array(graph, dtype=bool, weight=None)
    peer = networkx_peer(graph, seeds[0])
    began = time.perf_counter()
    start = dsatur(adjacency)
    dsatur_seconds = time.perf_counter() - began
    lower = adjacency_bounds(adjacency).value
    runs = []
    for seed in seeds:
        began = time.perf_counter()
        descent = descend(adjacency, start, deadline=began + time_limit, seed=seed, lower_bound=max(lower, 1))
        total = time.perf_counter() - began
        colors = descent.colors
        assert proper(adjacency, colors), f"{name}: improper colouring"
        reached = int(colors.max()) + 1
        # Time to best: set-up plus every TabuCol run up to the last successful one.
        last_success = max((i for i, level in enumerate(descent.levels) if level[1]), default=-1)
        search_seconds = sum(level[3] for level in descent.levels)
        to_best = total - search_seconds + sum(level[3] for level in descent.levels[: last_success + 1])
        runs.append(
            {
                "seed": seed,
                "colors": reached,
                "seconds_to_best": round(to_best, 4),
                "seconds_total": round(total, 4),
                "iterations": descent.iterations,
                "iterations_per_second": round(descent.iterations / search_seconds)
                if search_seconds
                else None,
                "levels": [
                    {"k": k, "found": found, "iterations": its, "seconds": round(sec, 4)}
                    for k, found, its, sec in descent.levels
                ],
            }
        )
        log(f"{name} seed {seed}: {int(start.max()) + 1} -> {reached} colours in {to_best:.2f} s")
    return {
        "graph": name,
        "n": graph.number_of_nodes(),
        "m": graph.number_of_edges(),
        "chi_literature": LITERATURE_CHI.get(name),
        "lower_bound": lower,
        "networkx": peer,
        "dsatur_colors": int(start.max()) + 1,
        "dsatur_seconds": round(dsatur_seconds, 5),
        "tabucol": runs,
    }


def print_table(rows: list[dict], time_limit: float) -> None:
    header = (
        f"{'graph':<14} {'n':>4} {'m':>5} {'chi*':>4} {'LB':>3} {'nx best':>12} {'nx s':>7} {'DSATUR':>6} "
        f"{'seed':>4} {'TabuCol':>7} {'to best s':>9} {'total s':>8} {'iterations':>10} {'it/s':>7}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        label, best = min(row["networkx"].items(), key=lambda item: item[1]["colors"])
        nx_seconds = sum(v["seconds"] for v in row["networkx"].values())
        for run in row["tabucol"]:
            print(
                f"{row['graph']:<14} {row['n']:>4} {row['m']:>5} {str(row['chi_literature'] or '?'):>4} "
                f"{row['lower_bound']:>3} {str(best['colors']) + ' (' + label + ')':>12} {nx_seconds:>7.3f} "
                f"{row['dsatur_colors']:>6} {run['seed']:>4} {run['colors']:>7} "
                f"{run['seconds_to_best']:>9.2f} {run['seconds_total']:>8.2f} {run['iterations']:>10} "
                f"{run['iterations_per_second'] or 0:>7}"
            )
    print(
        f"\nchi* = literature chromatic number (reference only); LB = the project's root lower bound, "
        f"where the descent stops; nx best = fewest colours over the {len(GREEDY_STRATEGIES)} networkx "
        f"greedy strategies, nx s = their summed time; deadline {time_limit:g} s per run."
    )


def environment() -> dict:
    return {
        "python": platform.python_version(),
        "networkx": nx.__version__,
        "numpy": np.__version__,
        "bbqmis": getattr(bbqmis, "__version__", None),
        "cpu_count": os.cpu_count(),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--graphs",
        nargs="+",
        default=DEFAULT_GRAPHS,
        help=f"DIMACS stems (default: {' '.join(DEFAULT_GRAPHS)})",
    )
    parser.add_argument("--all", action="store_true", help="every data/graphs/*.col")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0], help="TabuCol seeds (default 0)")
    parser.add_argument(
        "--time-limit", type=float, default=20.0, help="deadline of each improve_coloring call, s (20)"
    )
    parser.add_argument("--json-only", action="store_true", help="print only the JSON line")
    args = parser.parse_args(argv)
    log = (lambda *a: None) if args.json_only else (lambda *a: print(*a, file=sys.stderr, flush=True))

    load_start = list(os.getloadavg())
    began = time.perf_counter()
    names = sorted(p.stem for p in GRAPH_DIR.glob("*.col")) if args.all else args.graphs
    rows = [run_graph(name, args.seeds, args.time_limit, log) for name in names]
    total = time.perf_counter() - began
    load_end = list(os.getloadavg())
    if not args.json_only:
        print_table(rows, args.time_limit)
        le450 = [r for row in rows if row["graph"] == "le450_5a" for r in row["tabucol"] if r["colors"] == 5]
        if le450:
            times = [r["seconds_to_best"] for r in le450]
            median = statistics.median(times)
            print(
                f"le450_5a: 5 colours in {len(le450)} run(s), median {median:.2f} s, max {max(times):.2f} s"
            )
        print(f"total {total:.1f} s; load average (1/5/15 min) at start {load_start}, at end {load_end}")
    result = {
        "benchmark": "tabucol",
        "settings": {"seeds": args.seeds, "time_limit_s": args.time_limit},
        "graphs": rows,
        "total_seconds": round(total, 3),
        "load_average_1_5_15min": {"start": load_start, "end": load_end},
        "environment": environment(),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
