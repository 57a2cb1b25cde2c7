"""Exact graph colouring: BBQ-MIS (exact sampler) against OR-Tools CP-SAT on the DIMACS graphs.

Method
------
For every selected graph in ``data/graphs`` both solvers run one after the other on the
same machine, each in a fresh subprocess (so the peak resident memory reported is that
run's alone: the child reads ``VmHWM`` from ``/proc/self/status`` and the
``RUSAGE_CHILDREN`` peak of anything it started), with the same time limit ``T``:

* **ours**: ``color_graph(read_graph(path), sampler="exact", time_limit=T, seed=0)``;
  proven is ``result.optimal``; colours, lower bound and the ``how`` of each entry of
  ``result.stats["searched"]`` are recorded.
* **CP-SAT**: the plain assignment model. An upper bound ``UB`` comes from networkx's
  greedy DSATUR colouring; one Boolean ``x[v, c]`` per vertex ``v`` and colour ``c < UB``,
  ``sum_c x[v, c] == 1`` per vertex, ``x[u, c] + x[v, c] <= 1`` per edge and colour,
  ``y[c] >= x[v, c]``, minimise ``sum_c y[c]``. Symmetry breaking: a large clique ``K``
  (``max(nx.find_cliques(g), key=len)`` when the enumeration ends within a small budget,
  else the best greedy clique) is fixed to colours ``0..|K|-1`` and ``y[c] >= y[c + 1]``.
  ``num_search_workers=2``; ``max_time_in_seconds`` is ``T`` minus the seconds already
  spent on DSATUR, the clique and the model, so that both solvers get the same wall-clock
  budget from the loaded graph on. Proven when the status is ``OPTIMAL``; colours are
  the colours of the returned solution, bound is ``ceil(best objective bound)`` (at least
  ``|K|``).

Times are wall seconds from the loaded graph to the result (graph reading and
interpreter start-up excluded, for both). Every returned colouring is checked to be
proper in the parent. A proven value that disagrees with the chromatic number of the
literature (``data/graphs/README.md``; "open" entries and ranges count as unknown), a
lower bound above it, fewer colours than it, an improper colouring, or two proven values
that disagree are counted as *wrong optima* and flagged loudly on stderr and in the
table.

Usage::

    python benchmarks/coloring_vs_cpsat.py [--time-limit 120] [--graphs myciel5 queen6_6 ...]

Prints the table, a summary, and last one JSON line with every row and the summary.
Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _graphs import literature_chi  # benchmarks/_graphs.py; stdlib only, imported before the path change

# benchmarks/cutting.py is named like the `cutting` package bbqmis imports: keep this folder off the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import networkx as nx  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GRAPH_DIR = ROOT / "data" / "graphs"
DEFAULT_PATTERNS = (
    "myciel*",
    "queen*",
    "miles*",
    "games120",
    "mug*",
    "*Insertions*",
    "*FullIns*",
    "le450_5*",
    "DSJC125.*",
)
#: Seconds the exhaustive clique enumeration may take before the greedy clique is used.
CLIQUE_BUDGET = 2.0


def select_graphs(names: list[str] | None) -> list[str]:
    """Graph names to run: the given ones, or the default families present in ``data/graphs``."""
    present = sorted(p.stem for p in GRAPH_DIR.glob("*.col"))
    if names:
        missing = [n for n in names if n not in present]
        if missing:
            raise SystemExit(f"unknown graphs: {missing}; present: {present}")
        return names
    return [n for n in present if any(fnmatch.fnmatchcase(n, pat) for pat in DEFAULT_PATTERNS)]


def peak_gb() -> float:
    """Peak resident memory of this process (VmHWM) and of its finished children, in GB."""
    own_kb = 0
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                own_kb = int(line.split()[1])
    except OSError:
        own_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own_kb, children_kb) / 1024**2


def is_proper(graph: nx.Graph, coloring: dict[Any, int]) -> bool:
    """True when every vertex has a colour and no edge joins two vertices of one colour."""
    return all(v in coloring for v in graph) and all(coloring[u] != coloring[v] for u, v in graph.edges)


def greedy_clique(graph: nx.Graph) -> list[Any]:
    """Best clique over greedy growths (highest degree inside the candidates) from every vertex."""
    best: list[Any] = []
    adj = {v: set(graph[v]) for v in graph}
    for start in sorted(graph, key=lambda v: -len(adj[v])):
        if len(adj[start]) + 1 <= len(best):
            break
        clique, cand = [start], set(adj[start])
        while cand:
            v = max(cand, key=lambda u: (len(adj[u] & cand), -hash(u)))
            clique.append(v)
            cand &= adj[v]
        if len(clique) > len(best):
            best = clique
    return best


def large_clique(graph: nx.Graph, budget: float = CLIQUE_BUDGET) -> tuple[list[Any], str]:
    """A maximum clique if ``nx.find_cliques`` ends within ``budget`` seconds, else a greedy one."""
    greedy = greedy_clique(graph)
    start, best = time.perf_counter(), list(greedy)
    for clique in nx.find_cliques(graph):
        if len(clique) > len(best):
            best = clique
        if time.perf_counter() - start > budget:
            return best, "greedy+partial-enumeration"
    return best, "maximum"


def run_ours(graph: nx.Graph, limit: float) -> dict[str, Any]:
    """Child side of (a): BBQ-MIS with the exact sampler."""
    from bbqmis import color_graph

    start = time.perf_counter()
    result = color_graph(graph, sampler="exact", time_limit=limit, seed=0)
    seconds = time.perf_counter() - start
    by_label = {graph.nodes[v].get("label", v): v for v in graph}
    coloring = {by_label[label]: int(c) for label, c in result.coloring.items()}
    return {
        "proven": bool(result.optimal),
        "colors": int(result.num_colors),
        "bound": int(result.lower_bound),
        "seconds": seconds,
        "how": [str(s.get("how")) for s in result.stats.get("searched", [])],
        "stopped": result.stopped,
        "coloring": [coloring.get(v, -1) for v in graph],
    }


def run_cpsat(graph: nx.Graph, limit: float) -> dict[str, Any]:
    """Child side of (b): CP-SAT on the assignment model with clique and y-order symmetry breaking."""
    from ortools.sat.python import cp_model

    start = time.perf_counter()
    dsatur = nx.greedy_color(graph, strategy="saturation_largest_first")
    ub = max(dsatur.values(), default=-1) + 1
    clique, clique_kind = large_clique(graph)
    assert all(graph.has_edge(u, v) for i, u in enumerate(clique) for v in clique[i + 1 :]), "not a clique"
    model = cp_model.CpModel()
    x = {(v, c): model.new_bool_var(f"x_{v}_{c}") for v in graph for c in range(ub)}
    y = [model.new_bool_var(f"y_{c}") for c in range(ub)]
    for v in graph:
        model.add_exactly_one(x[v, c] for c in range(ub))
        for c in range(ub):
            model.add(y[c] >= x[v, c])
    for u, v in graph.edges:
        for c in range(ub):
            model.add(x[u, c] + x[v, c] <= 1)
    for i, v in enumerate(clique):
        model.add(x[v, i] == 1)
    for c in range(ub - 1):
        model.add(y[c] >= y[c + 1])
    model.minimize(sum(y))
    solver = cp_model.CpSolver()
    solver.parameters.num_search_workers = 2
    solver.parameters.max_time_in_seconds = max(limit - (time.perf_counter() - start), 0.1)
    solver.parameters.random_seed = 0
    status = solver.solve(model)
    seconds = time.perf_counter() - start
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    coloring = [next(c for c in range(ub) if solver.boolean_value(x[v, c])) for v in graph] if found else []
    return {
        "proven": status == cp_model.OPTIMAL,
        "colors": len(set(coloring)) if found else None,
        "objective": int(round(solver.objective_value)) if found else None,
        "bound": max(math.ceil(solver.best_objective_bound - 1e-6), len(clique)) if found else len(clique),
        "seconds": seconds,
        "status": solver.status_name(status),
        "dsatur": ub,
        "clique": len(clique),
        "clique_kind": clique_kind,
        "coloring": coloring,
    }


def child(solver: str, name: str, limit: float) -> None:
    """Run one solver on one graph and print one JSON line (with this process's peak memory)."""
    from bbqmis import read_graph

    graph = read_graph(GRAPH_DIR / f"{name}.col")
    out = (run_ours if solver == "ours" else run_cpsat)(graph, limit)
    out["peak_gb"] = peak_gb()
    print(json.dumps(out), flush=True)


def spawn(solver: str, name: str, limit: float) -> dict[str, Any]:
    """Run :func:`child` in a fresh interpreter; a crash or a hang past 2 T + 120 s is recorded."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", solver, name, "--time-limit", str(limit)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=2 * limit + 120, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"error": "killed after 2T+120 s", "wall": time.perf_counter() - start}
    wall = time.perf_counter() - start
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"error": f"exit {proc.returncode}: {proc.stderr.strip()[-500:]}", "wall": wall}
    out: dict[str, Any] = json.loads(lines[-1])
    out["wall"] = wall
    return out


def check(graph: nx.Graph, out: dict[str, Any], chi: int | None, label: str) -> list[str]:
    """Problems with one solver's result: improper colouring, or values contradicting chi."""
    if "error" in out or out["colors"] is None:  # crashed, or no solution within the limit
        out.pop("coloring", None)
        return []
    problems = []
    nodes = list(graph)
    coloring = dict(zip(nodes, out.pop("coloring"), strict=False))
    out["proper"] = bool(coloring) and is_proper(graph, coloring)
    if not out["proper"] or len(set(coloring.values())) > out["colors"]:
        problems.append(f"{label}: colouring is not proper or uses more colours than reported")
    if chi is not None:
        if out["proven"] and out["colors"] != chi:
            problems.append(f"{label}: proved {out['colors']} but chi = {chi}")
        if out["bound"] > chi:
            problems.append(f"{label}: lower bound {out['bound']} > chi = {chi}")
        if out["colors"] < chi:
            problems.append(f"{label}: {out['colors']} colours < chi = {chi}")
    return problems


def fmt(out: dict[str, Any], how: bool) -> list[str]:
    """Table cells of one solver's result."""
    if "error" in out:
        return ["ERR", "-", "-", f"{out['wall']:.1f}", "-"] + (["-"] if how else [])
    cells = [
        "yes" if out["proven"] else "no",
        "none" if out["colors"] is None else str(out["colors"]),
        str(out["bound"]),
        f"{out['seconds']:.2f}",
        f"{out['peak_gb']:.3f}",
    ]
    return cells + ([",".join(sorted(set(out["how"]))) or "-"] if how else [])


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and print the table, the summary and one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--graphs", nargs="+", metavar="NAME")
    parser.add_argument("--child", nargs=2, metavar=("SOLVER", "NAME"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.time_limit)
        return
    from bbqmis import read_graph

    limit = args.time_limit
    chis = literature_chi()
    rows: list[dict[str, Any]] = []
    for name in select_graphs(args.graphs):
        graph = read_graph(GRAPH_DIR / f"{name}.col")
        chi = chis.get(name)
        ours = spawn("ours", name, limit)
        cpsat = spawn("cpsat", name, limit)
        problems = check(graph, ours, chi, "ours") + check(graph, cpsat, chi, "cp-sat")
        if ours.get("proven") and cpsat.get("proven") and ours["colors"] != cpsat["colors"]:
            problems.append(f"ours proved {ours['colors']}, cp-sat proved {cpsat['colors']}")
        for problem in problems:
            print(f"!!! WRONG RESULT on {name}: {problem}", file=sys.stderr, flush=True)
        row = {
            "graph": name,
            "n": graph.number_of_nodes(),
            "m": graph.number_of_edges(),
            "chi": chi,
            "ours": ours,
            "cpsat": cpsat,
            "problems": problems,
        }
        rows.append(row)
        print(
            f"[{name}] ours {fmt(ours, True)} cp-sat {fmt(cpsat, False)}"
            + (f" PROBLEMS {problems}" if problems else ""),
            file=sys.stderr,
            flush=True,
        )

    header = ["graph", "n", "m", "chi", "ours:proven", "colours", "bound", "s", "GB", "how"]
    header += ["cp-sat:proven", "colours", "bound", "s", "GB", "flag"]
    table = [header]
    for r in rows:
        chi_cell = "?" if r["chi"] is None else str(r["chi"])
        cells = [r["graph"], str(r["n"]), str(r["m"]), chi_cell]
        table.append(
            cells + fmt(r["ours"], True) + fmt(r["cpsat"], False) + ["WRONG" if r["problems"] else ""]
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for line in table:
        print(
            "  ".join(
                cell.rjust(w) if i else cell.ljust(w)
                for i, (cell, w) in enumerate(zip(line, widths, strict=True))
            )
        )

    ok = [r for r in rows if "error" not in r["ours"] and "error" not in r["cpsat"]]
    both = [r for r in ok if r["ours"]["proven"] and r["cpsat"]["proven"]]
    ratios = [r["ours"]["seconds"] / max(r["cpsat"]["seconds"], 1e-3) for r in both]
    results = [r[s] for r in rows for s in ("ours", "cpsat") if "error" not in r[s]]
    summary = {
        "time_limit": limit,
        "graphs": len(rows),
        "proven_ours": sum(bool(r["ours"].get("proven")) for r in rows),
        "proven_cpsat": sum(bool(r["cpsat"].get("proven")) for r in rows),
        "proven_only_ours": sorted(
            r["graph"] for r in ok if r["ours"]["proven"] and not r["cpsat"]["proven"]
        ),
        "proven_only_cpsat": sorted(
            r["graph"] for r in ok if r["cpsat"]["proven"] and not r["ours"]["proven"]
        ),
        "proven_both": len(both),
        "median_time_ratio_ours_over_cpsat": statistics.median(ratios) if ratios else None,
        "wrong_optima": sum(bool(r["problems"]) for r in rows),
        "no_solution": sorted(
            f"{r['graph']}:{s}" for r in ok for s in ("ours", "cpsat") if r[s]["colors"] is None
        ),
        "errors": sorted(f"{r['graph']}:{s}" for r in rows for s in ("ours", "cpsat") if "error" in r[s]),
        "max_overrun_s_ours": max((o["seconds"] - limit for o in (r["ours"] for r in ok)), default=None),
        "max_overrun_s_cpsat": max((o["seconds"] - limit for o in (r["cpsat"] for r in ok)), default=None),
        "max_peak_gb_ours": max((r["ours"]["peak_gb"] for r in ok), default=None),
        "max_peak_gb_cpsat": max((r["cpsat"]["peak_gb"] for r in ok), default=None),
        "max_peak_gb": max((o["peak_gb"] for o in results), default=None),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "node": platform.node()},
    }
    summary["max_time_overrun_s"] = max(
        (v for v in (summary["max_overrun_s_ours"], summary["max_overrun_s_cpsat"]) if v is not None),
        default=None,
    )
    print()
    print(f"time limit {limit:g} s per graph and solver; {len(rows)} graphs")
    print(f"proven: ours {summary['proven_ours']}, cp-sat {summary['proven_cpsat']}, both {len(both)}")
    print(f"  only ours: {summary['proven_only_ours']}")
    print(f"  only cp-sat: {summary['proven_only_cpsat']}")
    ratio = summary["median_time_ratio_ours_over_cpsat"]
    print(f"median time ratio ours/cp-sat on graphs both prove: {'-' if ratio is None else f'{ratio:.3f}'}")
    print(
        f"wrong optima: {summary['wrong_optima']}"
        + ("   <<<<<< MUST BE 0" if summary["wrong_optima"] else "")
    )
    print(
        f"errors: {summary['errors'] or 'none'}; "
        f"no solution within the limit: {summary['no_solution'] or 'none'}"
    )
    overrun = summary["max_time_overrun_s"]
    print(f"max time overrun over the limit: {'-' if overrun is None else f'{overrun:+.2f} s'}")
    peak = summary["max_peak_gb"]
    print(f"max peak memory: {'-' if peak is None else f'{peak:.3f} GB'}")
    print(json.dumps({"rows": rows, "summary": summary}))


if __name__ == "__main__":
    main()
