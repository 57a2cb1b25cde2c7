"""Exact graph colouring: our three modes (exact, price, qaoa) against OR-Tools CP-SAT in one run.

Method
------
For every selected graph in ``data/graphs`` each selected mode (``--modes``, default all
four) runs one after the other on the same machine, each in a fresh subprocess (so the
peak resident memory reported is that run's alone: the child reads ``VmHWM`` from
``/proc/self/status`` and the ``RUSAGE_CHILDREN`` peak of anything it started), with the
same time limit ``T``:

* **exact**: ``color_graph(graph, sampler="exact", time_limit=T, seed=0)``, the BBQ-MIS
  tree with the exact MIS sampler;
* **price**: ``color_graph(graph, sampler="exact", method="price", time_limit=T, seed=0)``,
  branch-and-price;
* **qaoa**: ``color_graph(graph, sampler="qaoa", time_limit=T, seed=0)``, the BBQ-MIS tree
  with the QAOA sampler on the Aer simulator (branching and pricing). Simulation is slow,
  so by default this mode runs only on graphs of at most ``--qaoa-max-vertices`` (100)
  vertices and is marked ``skip`` on larger ones; a larger value lifts the restriction.

  For the three: proven is ``result.optimal``; colours, lower bound, the ``how`` of each
  entry of ``result.stats["searched"]`` and what shows the samplers' (and so the quantum
  part's) contribution are recorded: ``result.stats["improving_columns"]`` (per pricer,
  the columns that improved a set-cover LP: root LP, node LPs or branch-and-price),
  ``nodes_from_sampler`` (tree nodes created from sampled classes) and ``node_lp``.
* **cpsat**: the plain assignment model. An upper bound ``UB`` comes from networkx's
  greedy DSATUR colouring; one Boolean ``x[v, c]`` per vertex ``v`` and colour ``c < UB``,
  ``sum_c x[v, c] == 1`` per vertex, ``x[u, c] + x[v, c] <= 1`` per edge and colour,
  ``y[c] >= x[v, c]``, minimise ``sum_c y[c]``. Symmetry breaking: a large clique ``K``
  (``max(nx.find_cliques(g), key=len)`` when the enumeration ends within a small budget,
  else the best greedy clique) is fixed to colours ``0..|K|-1`` and ``y[c] >= y[c + 1]``.
  ``num_search_workers=2``; ``max_time_in_seconds`` is ``T`` minus the seconds already
  spent on DSATUR, the clique and the model, so that every solver gets the same wall-clock
  budget from the loaded graph on. Proven when the status is ``OPTIMAL``; colours are
  the colours of the returned solution, bound is ``ceil(best objective bound)`` (at least
  ``|K|``).

Times are wall seconds from the loaded graph to the result (graph reading and
interpreter start-up excluded, for all). Every returned colouring is checked to be
proper in the parent. A proven value that disagrees with the chromatic number of the
literature (``data/graphs/README.md``; "open" entries and ranges count as unknown), a
lower bound above it, fewer colours than it, an improper colouring, or two proven values
that disagree are counted as *wrong optima* and flagged loudly on stderr and in the
table.

Summary per mode: graphs proven, graphs proven by both the mode and CP-SAT, the median
ratio of the mode's time to CP-SAT's on those, wrong optima, the largest overrun of the
time limit, the largest peak memory, and the summed sampler statistics above.

Graphs: ``--graphs`` takes bundled names (``myciel5``), folders and graph files, mixed (an
argument that is a folder, holds a path separator or ends in a graph extension is a path).
A folder gives every file directly in it whose extension ``bbqmis.read_graph`` reads
(``bbqmis.mis.graphio.EXTENSIONS``: ``.col .dimacs`` DIMACS, ``.txt .edges .edgelist .el``
edge lists, ``.graphml``, ``.json``), in name order. All are read first: a missing or
graph-less folder, a file ``read_graph`` refuses or two graphs of one name (the file stem)
end the run with one line and exit status 2. A graph of a folder is checked against the
literature's chi only when its name, n and m are a bundled graph's.

Published times: ``benchmarks/data/gc_cdcl_published.csv`` (graph, n, m, ``gc_cdcl_s``,
paper, table, machine, quoted_in; every row names its source). When a graph's name, n and
m match a row, the ``gc-cdcl:s`` column ("—" otherwise) and the row's ``gc_cdcl_s`` (else
null) and ``gc_cdcl_source`` give it: other machines and runs, context only. ``how``: ours
lists the ``how`` of the searched components (``bounds``, ``sat``, ``search:<stop>``, ...; "-"
when none was searched, e.g. an odd cycle); CP-SAT's is ``clique`` (proven at the fixed
clique's size), ``search`` (proven above it) or its status when not proven.

Usage::

    python benchmarks/coloring_vs_cpsat.py [--time-limit 120] [--graphs myciel5 DIR FILE ...]
        [--modes exact price qaoa cpsat] [--qaoa-max-vertices 100]

(also ``python benchmarks/coloring.py --vs-cpsat [the same arguments]``). Prints the
table, the sampler statistics, a summary, and last one JSON line with every row and the
summary. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
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

from _graphs import (  # benchmarks/_graphs.py; stdlib only, imported before the path change
    PUBLISHED,
    graph_file,
    graph_label,
    literature_chi,
    load_published,
    select_graphs,
)

# benchmarks/cutting.py is named like the `cutting` package bbqmis imports: keep this folder off the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import networkx as nx  # noqa: E402

from backends.utils.progress import ProgressLine  # noqa: E402

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
#: Keyword arguments of ``color_graph`` (besides graph, time limit and seed) per mode of ours.
OUR_MODES: dict[str, dict[str, str]] = {
    "exact": {"sampler": "exact"},
    "price": {"sampler": "exact", "method": "price"},
    "qaoa": {"sampler": "qaoa"},
}
#: Every mode, in table order; CP-SAT is the peer the others are compared with.
MODES = (*OUR_MODES, "cpsat")
#: Default of ``--qaoa-max-vertices``: larger graphs are skipped in the qaoa mode (Aer is slow).
QAOA_MAX_VERTICES = 100
#: ``result.stats`` entries that show what the samplers contributed (kept in the JSON).
SAMPLER_STATS = ("improving_columns", "nodes_from_sampler", "node_lp")


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


def run_ours(graph: nx.Graph, limit: float, mode: str) -> dict[str, Any]:
    """Child side of one of our modes: ``color_graph`` with the keyword arguments of ``OUR_MODES[mode]``."""
    from bbqmis import color_graph

    start = time.perf_counter()
    result = color_graph(graph, time_limit=limit, seed=0, **OUR_MODES[mode])
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
        "sampler_stats": {key: result.stats.get(key) for key in SAMPLER_STATS},
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


def child(mode: str, name: str, limit: float) -> None:
    """Run one mode on one graph and print one JSON line (with this process's peak memory)."""
    from bbqmis import read_graph

    graph = read_graph(graph_file(name))
    out = run_cpsat(graph, limit) if mode == "cpsat" else run_ours(graph, limit, mode)
    out["peak_gb"] = peak_gb()
    print(json.dumps(out), flush=True)


def spawn(mode: str, name: str, limit: float) -> dict[str, Any]:
    """Run :func:`child` in a fresh interpreter; a crash or a hang past 2 T + 120 s is recorded."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, name, "--time-limit", str(limit)]
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
    """Problems with one mode's result: improper colouring, or values contradicting chi."""
    if "error" in out or "skipped" in out or out["colors"] is None:  # no solution to check
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


def disagreements(results: dict[str, dict[str, Any]]) -> list[str]:
    """Problems between modes: two proven values that differ."""
    proven = {mode: out["colors"] for mode, out in results.items() if out.get("proven")}
    if len(set(proven.values())) <= 1:
        return []
    return [f"proven values disagree: {proven}"]


def graph_facts(
    spec: str, graph: nx.Graph, chis: dict[str, int | None], published: dict[str, dict[str, Any]]
) -> tuple[int | None, dict[str, Any] | None]:
    """Literature chi (for a folder's graph only with a bundled graph's name, n and m) and gc-cdcl entry."""
    from bbqmis import read_graph

    name, counts = graph_label(spec), (graph.number_of_nodes(), graph.number_of_edges())
    bundled = GRAPH_DIR / f"{name}.col"
    same = graph_file(spec) == bundled
    if not same and bundled.is_file():
        known = read_graph(bundled)
        same = counts == (known.number_of_nodes(), known.number_of_edges())
    entry = published.get(name)
    return chis.get(name) if same else None, entry if entry and (entry["n"], entry["m"]) == counts else None


def cpsat_how(out: dict[str, Any]) -> list[str]:
    """How CP-SAT's run ended: ``clique`` or ``search`` when proven, else its status in lower case."""
    if "error" in out:
        return []
    if out["proven"]:
        return ["clique" if out["colors"] == out["clique"] else "search"]
    return [str(out["status"]).lower()]


def run_graph(
    spec: str,
    modes: list[str],
    limit: float,
    qaoa_max: int,
    known: tuple[dict[str, int | None], dict[str, dict[str, Any]]],
    progress: ProgressLine,
) -> dict[str, Any]:
    """Every selected mode on one graph, checked; the row of the table and the JSON.

    ``known`` is the literature's chi by name and the published gc-cdcl times (:func:`load_published`).
    """
    from bbqmis import read_graph

    graph, name = read_graph(graph_file(spec)), graph_label(spec)
    chi, published = graph_facts(spec, graph, *known)
    results: dict[str, dict[str, Any]] = {}
    problems: dict[str, list[str]] = {}
    for mode in modes:
        progress({"phase": mode, "graph": name, "n": graph.number_of_nodes()})
        if mode == "qaoa" and graph.number_of_nodes() > qaoa_max:
            results[mode] = {"skipped": f"more than --qaoa-max-vertices {qaoa_max} vertices"}
        else:
            results[mode] = spawn(mode, spec, limit)
        if mode == "cpsat":
            results[mode]["how"] = cpsat_how(results[mode])
        problems[mode] = check(graph, results[mode], chi, mode)
    shared = disagreements(results)
    for problem in shared + [p for found in problems.values() for p in found]:
        print(f"!!! WRONG RESULT on {name}: {problem}", file=sys.stderr, flush=True)
    progress({"phase": "done", "graph": name, **{mode: " ".join(fmt(results[mode])) for mode in modes}})
    return {
        "graph": name,
        "file": str(graph_file(spec)),
        "n": graph.number_of_nodes(),
        "m": graph.number_of_edges(),
        "chi": chi,
        "results": results,
        "problems": problems,
        "disagreements": shared,
        "gc_cdcl_s": published["seconds"] if published else None,
        "gc_cdcl_source": published["source"] if published else None,
    }


def fmt(out: dict[str, Any]) -> list[str]:
    """Table cells of one mode's result: proven, colours, bound, seconds, peak GB, how."""
    if "skipped" in out:
        return ["skip", "-", "-", "-", "-", "-"]
    if "error" in out:
        return ["ERR", "-", "-", f"{out['wall']:.1f}", "-", "-"]
    return [
        "yes" if out["proven"] else "no",
        "none" if out["colors"] is None else str(out["colors"]),
        str(out["bound"]),
        f"{out['seconds']:.2f}",
        f"{out['peak_gb']:.3f}",
        ",".join(sorted(set(out.get("how") or []))) or "-",
    ]


def fmt_sampler(out: dict[str, Any]) -> list[str]:
    """Table cells of one mode's sampler statistics: improving columns, tree nodes, node LPs."""
    stats = out.get("sampler_stats")
    if not stats:
        return ["-", "-", "-"]
    columns = ",".join(f"{k}:{v}" for k, v in stats["improving_columns"].items()) or "0"
    node_lp = stats["node_lp"]
    return [columns, str(stats["nodes_from_sampler"]), f"{node_lp['nodes']}/{node_lp['raised']}"]


def print_table(table: list[list[str]]) -> None:
    """Print rows of cells in aligned columns, the first left-aligned, the others right-aligned."""
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    for line in table:
        print(
            "  ".join(
                cell.rjust(w) if i else cell.ljust(w)
                for i, (cell, w) in enumerate(zip(line, widths, strict=True))
            )
        )


def results_table(rows: list[dict], modes: list[str]) -> list[list[str]]:
    """Per graph: n, m, chi, per mode proven / colours / bound / seconds / peak GB / how, gc-cdcl's time."""
    header = ["graph", "n", "m", "chi"]
    for mode in modes:
        header += [f"{mode}:proven", "colours", "bound", "s", "GB", "how"]
    table = [header + ["gc-cdcl:s", "flag"]]
    for r in rows:
        cells = [r["graph"], str(r["n"]), str(r["m"]), "?" if r["chi"] is None else str(r["chi"])]
        for mode in modes:
            cells += fmt(r["results"][mode])
        wrong = r["disagreements"] or any(r["problems"].values())
        published = "\u2014" if r["gc_cdcl_s"] is None else f"{r['gc_cdcl_s']:g}"
        table.append(cells + [published, "WRONG" if wrong else ""])
    return table


def sampler_table(rows: list[dict], modes: list[str]) -> list[list[str]]:
    """Per graph and mode of ours: improving columns per pricer, nodes from the sampler, node LPs."""
    header = ["graph"]
    for mode in modes:
        header += [f"{mode}:improving columns", "sampler nodes", "node LPs/raised"]
    table = [header]
    for r in rows:
        table.append([r["graph"]] + [cell for mode in modes for cell in fmt_sampler(r["results"][mode])])
    return table


def sum_counts(counts: list[dict[str, Any]]) -> dict[str, Any]:
    """Key-wise sums of a list of counters."""
    total: dict[str, Any] = {}
    for count in counts:
        for key, value in count.items():
            total[key] = total.get(key, 0) + value
    return dict(sorted(total.items()))


def mode_summary(rows: list[dict], mode: str, limit: float, with_cpsat: bool) -> dict[str, Any]:
    """One mode's summary: proven, proven with CP-SAT, time ratio, wrong, overrun, memory, samplers."""
    ran = [r for r in rows if "error" not in r["results"][mode] and "skipped" not in r["results"][mode]]
    outs = [r["results"][mode] for r in ran]
    proven = {r["graph"] for r in ran if r["results"][mode]["proven"]}
    summary: dict[str, Any] = {
        "graphs_run": len(ran),
        "proven": len(proven),
        "wrong_optima": sum(bool(r["problems"][mode]) for r in rows),
        "errors": sorted(r["graph"] for r in rows if "error" in r["results"][mode]),
        "skipped": sorted(r["graph"] for r in rows if "skipped" in r["results"][mode]),
        "no_solution": sorted(r["graph"] for r in ran if r["results"][mode]["colors"] is None),
        "max_overrun_s": max((o["seconds"] - limit for o in outs), default=None),
        "max_peak_gb": max((o["peak_gb"] for o in outs), default=None),
    }
    if with_cpsat and mode != "cpsat":
        cpsat = {r["graph"]: r["results"]["cpsat"] for r in rows}
        by_cpsat = {g for g, o in cpsat.items() if o.get("proven")}
        both = [r for r in ran if r["graph"] in proven & by_cpsat]
        ratios = [r["results"][mode]["seconds"] / max(cpsat[r["graph"]]["seconds"], 1e-3) for r in both]
        summary.update(
            proven_with_cpsat=len(both),
            median_time_ratio_to_cpsat=statistics.median(ratios) if ratios else None,
            proven_only_this=sorted(proven - by_cpsat),
            proven_only_cpsat=sorted(g for g in by_cpsat - proven if g not in summary["skipped"]),
        )
    if mode != "cpsat":
        stats = [o["sampler_stats"] for o in outs]
        summary.update(
            improving_columns=sum_counts([s["improving_columns"] for s in stats]),
            nodes_from_sampler=sum(s["nodes_from_sampler"] for s in stats),
            node_lp=sum_counts([s["node_lp"] for s in stats]),
        )
    return summary


def print_summary(summary: dict[str, Any]) -> None:
    """The summary in words, one paragraph per mode."""
    limit = summary["time_limit"]
    print(f"time limit {limit:g} s per graph and mode; {summary['graphs']} graphs; load {summary['load']}")
    for mode, s in summary["modes"].items():
        ratio, overrun, peak = s.get("median_time_ratio_to_cpsat"), s["max_overrun_s"], s["max_peak_gb"]
        line = f"{mode}: proven {s['proven']} of {s['graphs_run']} run"
        if "proven_with_cpsat" in s:
            line += f", with cp-sat {s['proven_with_cpsat']}"
            line += f", median time ratio to cp-sat {'-' if ratio is None else f'{ratio:.3f}'}"
        line += f", wrong optima {s['wrong_optima']}" + ("  <<<<<< MUST BE 0" if s["wrong_optima"] else "")
        line += f", max overrun {'-' if overrun is None else f'{overrun:+.2f} s'}"
        line += f", max peak {'-' if peak is None else f'{peak:.3f} GB'}"
        print(line)
        for key in ("proven_only_this", "proven_only_cpsat", "errors", "no_solution", "skipped"):
            if s.get(key):
                print(f"  {key}: {s[key]}")
        if "improving_columns" in s:
            print(
                f"  improving columns {s['improving_columns'] or 0}, nodes from the sampler "
                f"{s['nodes_from_sampler']}, node LPs {s['node_lp'].get('nodes', 0)} "
                f"(raised {s['node_lp'].get('raised', 0)})"
            )
    disagreements = summary["disagreements"]
    print(f"disagreements between modes: {disagreements or 'none'}")
    print(
        f"wrong optima, all modes: {summary['wrong_optima']}"
        + ("  <<<<<< MUST BE 0" if summary["wrong_optima"] else "")
    )


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and print the tables, the summary and one JSON line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per graph and mode (120)")
    parser.add_argument(
        "--graphs", nargs="+", metavar="NAME|DIR|FILE", help="data/graphs names, folders, files (families)"
    )
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="modes to run (all)")
    parser.add_argument(
        "--qaoa-max-vertices",
        type=int,
        default=QAOA_MAX_VERTICES,
        help=f"qaoa mode only on graphs of at most this many vertices ({QAOA_MAX_VERTICES}); raise to lift",
    )
    parser.add_argument("--child", nargs=2, metavar=("MODE", "NAME"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.time_limit > 0:
        parser.error(f"--time-limit: expected seconds > 0, got {args.time_limit:g}")
    if args.qaoa_max_vertices < 0:
        parser.error(f"--qaoa-max-vertices: expected a count >= 0, got {args.qaoa_max_vertices}")
    if args.child:
        child(args.child[0], args.child[1], args.time_limit)
        return
    try:
        specs, published = select_graphs(args.graphs, DEFAULT_PATTERNS), load_published()
    except ValueError as error:  # one line, like argparse's own errors but without the usage
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    modes = [mode for mode in MODES if mode in args.modes]
    known, load_before = (literature_chi(), published), os.getloadavg()
    with ProgressLine(label="coloring_vs_cpsat") as progress:
        rows = [run_graph(s, modes, args.time_limit, args.qaoa_max_vertices, known, progress) for s in specs]
    print_table(results_table(rows, modes))
    print(f"gc-cdcl:s: published time to prove chi ({PUBLISHED.relative_to(ROOT)}; sources in the JSON)")
    ours = [mode for mode in modes if mode != "cpsat"]
    if ours:
        print()
        print_table(sampler_table(rows, ours))
    summary: dict[str, Any] = {
        "time_limit": args.time_limit,
        "graphs": len(rows),
        "modes": {mode: mode_summary(rows, mode, args.time_limit, "cpsat" in modes) for mode in modes},
        "wrong_optima": sum(bool(r["disagreements"] or any(r["problems"].values())) for r in rows),
        "disagreements": [f"{r['graph']}: {d}" for r in rows for d in r["disagreements"]],
        "qaoa_max_vertices": args.qaoa_max_vertices,
        "load": {
            "before": [round(x, 2) for x in load_before],
            "after": [round(x, 2) for x in os.getloadavg()],
        },
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "node": platform.node()},
        "gc_cdcl_table": str(PUBLISHED.relative_to(ROOT)),
    }
    print()
    print_summary(summary)
    print(json.dumps({"rows": rows, "summary": summary}))


if __name__ == "__main__":
    main()
