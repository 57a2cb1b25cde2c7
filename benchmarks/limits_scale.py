"""Limits on large graphs: ``python -m bbqmis`` time and memory limits against CP-SAT with the same limit.

Method
------
Three graphs are generated with fixed seeds into a temporary folder (``--keep DIR`` keeps
them), each in a child process so that this process stays small:

* **sparse**: G(n, m) with n = 200,000 and m = 750,000 (uniform distinct edges, seed
  ``--seed``), an edge list (``.txt``; vertices no edge touches are lines of their own),
  the size of the audit case of the large-graph limits;
* **dense**: G(n, 0.5) with n = 2,000 (about 1,000,000 edges, seed + 1), a DIMACS
  ``.col`` file, the size of DIMACS C2000.5;
* **medium**: G(n, 0.5) with n = 1,000 (about 250,000 edges, seed + 2), a DIMACS ``.col``
  file, the size of DSJC1000.5.

``--sizes N M N_DENSE N_MEDIUM`` changes them; ``--quick`` uses 4,000 / 15,000, 300 and 150.

Every run below is a fresh process started under an address-space cap
(``resource.setrlimit(RLIMIT_AS)`` in a ``preexec_fn``, ``--cap-gb``, default 8 GB: the
machine has 2 cores and about 24 GB), with stdout and stderr going to files. Its wall time
is measured from here, from the start of the process to its end, and its peak resident
memory is ``ru_maxrss`` from ``os.wait4``. A child that fails with ``MemoryError``,
``bad_alloc`` or a failed allocation, or dies of SIGABRT/SIGSEGV, is reported as killed
by the cap; one still running after 3 x limit + 600 s is killed and reported as a hang.
A child inherits this process's resident memory at the fork as a floor of its
``ru_maxrss``, so this process never loads a graph; its own resident memory at each start
is in the JSON (``parent_gb``).

Once: **start-up**, ``python -m bbqmis --version`` and a CP-SAT child that stops after its
imports, measured the same way: the seconds before either clock starts, which no limit
counts (in the summary).

Per graph:

* **read**: ``python -c "from bbqmis import read_graph; read_graph(PATH)"``, measured the
  same way: the seconds (``read s``, interpreter start-up and imports included, as in the
  runs) and memory (``read GB``) that reading the graph costs a bbqmis process. The time
  limit of ``python -m bbqmis`` counts from just before reading, so on a large graph
  reading is the first part of any overrun.

Per graph and time limit ``T`` (``--time-limits``, default 5 and 30 s; ``--quick``: 2 s):

* **bbqmis**: ``python -m bbqmis PATH --sampler exact --quiet --seed 0 --json OUT
  --time-limit T`` (its default memory limit: half of the memory available);
* **bbqmis --memory-limit G**: the same with ``--memory-limit G`` (``--memory-limit``,
  default 0.5 GB), to show whether the memory limit holds: the peak is compared with G;
* **cpsat**: the peer. A child reads the graph with the same reader (``read_graph``), and
  colours it with bbqmis's heap DSATUR (:func:`bbqmis.coloring.classical.bounds.dsatur_coloring`;
  networkx's DSATUR takes time quadratic in n, hours at 200,000 vertices) to get ``k``
  colours. If the model of ``coloring_vs_cpsat.py`` would hold more than
  ``--max-model-terms`` (default 6,000,000) vertex-or-edge and colour pairs,
  ``(n + m) * k``, the row is "skipped (model too large)": the Python model took 4.2 GB
  for 4.75 million (about 0.9 KB each), so the default keeps it well under the cap.
  Otherwise ``coloring_vs_cpsat.run_cpsat`` runs unchanged (its clique, the assignment
  model with symmetry breaking, 2 workers) with networkx's DSATUR answered by the colouring
  already computed, and with the limit minus the seconds spent since the start of reading:
  it sets ``max_time_in_seconds`` to what is left after the clique and building the
  model (at least 0.1 s). So both solvers count reading in the same limit. Colours are
  the returned solution's (``none`` when CP-SAT found none), the bound is
  ``coloring_vs_cpsat``'s (the best objective bound, at least the clique), the stop
  reason is CP-SAT's status.

Columns: ``wall`` (s), ``overrun`` = wall - T, ``peak GB``, colours, lower bound, stop
reason (``stopped`` from bbqmis's ``--json``, or ``stats.stop_reason`` when the run
finished: ``bounds_met``, ``exhausted``; CP-SAT's status), ``read s`` and ``read GB``, and
``search s``: the seconds after reading, as the run counted them (bbqmis's
``stats.seconds``; for CP-SAT its DSATUR, clique, model and solve). So wall is about
start-up + reading + search s + writing the result. A second table gives, per graph, limit
and bbqmis variant, the ratio of its overrun to CP-SAT's (when both are over 0.05 s: a run
that stopped early has no overrun) and of its wall time to CP-SAT's. Checked per
bbqmis run: the stop reason is one of the documented ones (``docs/howto/exit-codes.md``),
colours >= bound, and the colouring covers every vertex with the colours it reports;
CP-SAT's colouring is checked to be proper in its child.

Usage::

    python benchmarks/limits_scale.py            # about 6 minutes on 2 cores
    python benchmarks/limits_scale.py --quick    # about a minute
    python benchmarks/limits_scale.py --sizes 50000 190000 1000 500 --time-limits 10 \
        --memory-limit 1 --cap-gb 12 --max-model-terms 8000000 --keep /tmp/graphs

Prints the table, the ratios and a summary, then one JSON line
``{"rows", "ratios", "summary", "settings", "load", "machine"}``. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# Imported while this folder is still on the path; it then takes the folder off (benchmarks/cutting.py
# would shadow the `cutting` package).
import coloring_vs_cpsat

from backends.utils.progress import ProgressLine

ROOT = Path(__file__).resolve().parent.parent
#: Sizes (sparse n, sparse m, dense n, medium n) by default and with ``--quick``.
DEFAULT_SIZES = (200_000, 750_000, 2_000, 1_000)
QUICK_SIZES = (4_000, 15_000, 300, 150)
#: Edge probability of the dense and medium graphs.
DENSITY = 0.5
DEFAULT_LIMITS = (5.0, 30.0)
QUICK_LIMITS = (2.0,)
#: ``--memory-limit`` of the second bbqmis run, in GB.
MEMORY_LIMIT_GB = 0.5
#: Address-space cap of every child, in GB.
CAP_GB = 8.0
#: Largest CP-SAT model built, in (vertex or edge) x colour pairs: 4.75 million took 4.2 GB.
MAX_MODEL_TERMS = 6_000_000
#: Overruns (s) at or below which no overrun ratio is given: a run that ended early has none.
OVERRUN_FLOOR = 0.05
#: Seconds past 3 x the limit after which a child is killed as a hang.
HANG_SECONDS = 600.0
#: ``stopped`` values that ``docs/howto/exit-codes.md`` documents (None: the run finished).
DOCUMENTED_STOPS = (None, "time_limit", "node_limit", "memory_limit", "interrupted", "size_limit")
#: ``stats["stop_reason"]`` of a run that finished.
FINISHED_REASONS = ("bounds_met", "exhausted")
#: What a child's stderr says when an allocation failed (under the address-space cap).
_NO_MEMORY = re.compile(r"MemoryError|bad_alloc|Unable to allocate|Cannot allocate memory|out of memory")
#: The reading child: exactly what a bbqmis process does before its search.
READ_CODE = (
    "import sys; from bbqmis import read_graph; g = read_graph(sys.argv[1]); "
    "print(g.number_of_nodes(), g.number_of_edges())"
)


# ----------------------------------------------------------------------------- graphs
def write_gnm(path: Path, n: int, m: int, seed: int) -> tuple[int, int]:
    """Write G(n, m) (``m`` distinct uniform edges) as an edge list; every vertex appears."""
    if m > n * (n - 1) // 2:
        raise ValueError(f"--sizes: G(n, m) with n={n} has at most {n * (n - 1) // 2} edges, got m={m}")
    rng = random.Random(seed)
    seen: set[int] = set()
    touched = bytearray(n)
    with path.open("w") as file:
        while len(seen) < m:
            u, v = rng.randrange(n), rng.randrange(n)
            key = min(u, v) * n + max(u, v)
            if u == v or key in seen:
                continue
            seen.add(key)
            touched[u] = touched[v] = 1
            file.write(f"{u} {v}\n")
        file.writelines(f"{v}\n" for v in range(n) if not touched[v])
    return n, m


def write_gnp(path: Path, n: int, p: float, seed: int) -> tuple[int, int]:
    """Write G(n, p) as a DIMACS ``.col`` file (vertices 1..n)."""
    rng = random.Random(seed)
    edges = [(u, v) for u in range(1, n + 1) for v in range(u + 1, n + 1) if rng.random() < p]
    with path.open("w") as file:
        file.write(f"c G({n}, {p}) seed {seed}\np edge {n} {len(edges)}\n")
        file.writelines(f"e {u} {v}\n" for u, v in edges)
    return n, len(edges)


def graph_specs(sizes: tuple[int, int, int, int], seed: int) -> list[dict[str, Any]]:
    """The three graphs: kind, name, file name, generator and its arguments."""
    n_sparse, m_sparse, n_dense, n_medium = sizes
    return [
        {
            "kind": "sparse",
            "name": f"G({n_sparse},{m_sparse})",
            "file": f"gnm_{n_sparse}_{m_sparse}_s{seed}.txt",
            "make": ["gnm", n_sparse, m_sparse, seed],
        },
        {
            "kind": "dense",
            "name": f"G({n_dense},{DENSITY})",
            "file": f"gnp_{n_dense}_{DENSITY}_s{seed + 1}.col",
            "make": ["gnp", n_dense, DENSITY, seed + 1],
        },
        {
            "kind": "medium",
            "name": f"G({n_medium},{DENSITY})",
            "file": f"gnp_{n_medium}_{DENSITY}_s{seed + 2}.col",
            "make": ["gnp", n_medium, DENSITY, seed + 2],
        },
    ]


# ----------------------------------------------------------------------------- children
def generate_child(kind: str, path: str, n: str, size: str, seed: str) -> None:
    """Child side of the generation: write one graph, print ``{"n", "m"}``."""
    if kind == "gnm":
        n_out, m_out = write_gnm(Path(path), int(n), int(size), int(seed))
    else:
        n_out, m_out = write_gnp(Path(path), int(n), float(size), int(seed))
    print(json.dumps({"n": n_out, "m": m_out}), flush=True)


def startup_child() -> None:
    """Child side of the start-up measurement: what :func:`cpsat_child` imports before its clock."""
    from bbqmis import read_graph  # noqa: F401
    from bbqmis.coloring.classical.bounds import dsatur_coloring  # noqa: F401


def cpsat_child(path: str, limit: float, max_terms: int) -> None:
    """Child side of the peer: read, DSATUR, then ``coloring_vs_cpsat.run_cpsat`` if the model fits."""
    from unittest import mock

    import networkx as nx

    from bbqmis import read_graph
    from bbqmis.coloring.classical.bounds import dsatur_coloring

    started = time.monotonic()  # as python -m bbqmis: the limit counts from just before reading
    graph = read_graph(path)
    read_s = time.monotonic() - started
    dsatur = dsatur_coloring(graph)
    k = len(set(dsatur.values()))
    terms = (graph.number_of_nodes() + graph.number_of_edges()) * k
    facts = {"child_read_s": read_s, "dsatur_s": time.monotonic() - started - read_s, "k": k, "terms": terms}
    if terms > max_terms:
        print(json.dumps({"skipped": "model too large", **facts}), flush=True)
        return
    networkx_greedy = nx.greedy_color

    def greedy_color(g: nx.Graph, strategy: Any = "largest_first", **kwargs: Any) -> dict:
        if g is graph and strategy == "saturation_largest_first":
            return dsatur  # the same rule as networkx's DSATUR, in O((n + m) log n)
        return networkx_greedy(g, strategy, **kwargs)

    left = limit - (time.monotonic() - started)
    with mock.patch.object(nx, "greedy_color", greedy_color):
        out = coloring_vs_cpsat.run_cpsat(graph, left)
    coloring = out.pop("coloring")
    out["proper"] = (
        coloring_vs_cpsat.is_proper(graph, dict(zip(graph, coloring, strict=True))) if coloring else None
    )
    print(json.dumps({**out, **facts, "limit_left": left}), flush=True)


# ----------------------------------------------------------------------------- measuring
def rss_gb() -> float:
    """This process's resident memory now, in GB (a floor of every child's ``ru_maxrss``)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**30


def _cap_address_space(cap_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))


def measure(argv: list[str], folder: Path, name: str, cap_gb: float, timeout: float) -> dict[str, Any]:
    """Run ``argv`` in a fresh process under the cap; wall seconds, peak GB and outcome, from outside.

    ``outcome`` is ``ok`` (exit 0), ``cap`` (an allocation failed or the process died of
    SIGABRT/SIGSEGV under the address-space cap), ``hang`` (killed after ``timeout`` s) or
    ``error``; ``stdout`` holds the output's last line, ``stderr`` the last 500 characters.
    """
    out_path, err_path = folder / f"{name}.out", folder / f"{name}.err"
    parent_gb = rss_gb()
    killed = threading.Event()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            cwd=ROOT,
            preexec_fn=functools.partial(_cap_address_space, int(cap_gb * 2**30)),
        )

        def kill() -> None:  # os.kill, not proc.kill: Popen must not reap the child before wait4
            killed.set()
            try:
                os.kill(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        timer.cancel()
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    stderr, stdout = _tail(err_path), _tail(out_path)
    lines = stdout.strip().splitlines()
    if killed.is_set():
        outcome = "hang"
    elif code == 0:
        outcome = "ok"
    elif _NO_MEMORY.search(stderr) or code in (-signal.SIGABRT, -signal.SIGSEGV):
        outcome = "cap"
    else:
        outcome = "error"
    return {
        "outcome": outcome,
        "exit": code,
        "wall": wall,
        "peak_gb": usage.ru_maxrss / 2**20,
        "parent_gb": parent_gb,
        "stdout": lines[-1] if lines else "",
        "stderr": stderr.strip()[-500:],
    }


def _tail(path: Path, size: int = 1 << 16) -> str:
    """The last ``size`` bytes of a file as text (a bbqmis table lists every vertex)."""
    with path.open("rb") as file:
        file.seek(max(0, path.stat().st_size - size))
        return file.read().decode(errors="replace")


def failure(run: dict[str, Any], cap_gb: float) -> str:
    """The stop cell of a run that did not end normally."""
    if run["outcome"] == "cap":
        return f"killed by the {cap_gb:g} GB address-space cap"
    if run["outcome"] == "hang":
        return "hang: killed"
    last = run["stderr"].splitlines()[-1] if run["stderr"] else ""
    return f"error (exit {run['exit']}): {last[:80]}"


def startup_commands() -> dict[str, list[str]]:
    """Per solver, a command that starts like its runs and stops before reading the graph."""
    return {
        "bbqmis": [sys.executable, "-m", "bbqmis", "--version"],
        "cpsat": [sys.executable, str(Path(__file__).resolve()), "--child", "startup"],
    }


def bbqmis_run(
    spec: dict[str, Any], path: Path, limit: float, memory_limit: float | None, folder: Path, cap_gb: float
) -> dict[str, Any]:
    """One ``python -m bbqmis`` run: the measurement and what its ``--json`` says."""
    tag = f"{spec['kind']}_T{limit:g}" + ("" if memory_limit is None else f"_M{memory_limit:g}")
    out_json = folder / f"bbqmis_{tag}.json"
    argv = [sys.executable, "-m", "bbqmis", str(path), "--sampler", "exact", "--quiet", "--seed", "0"]
    argv += ["--json", str(out_json), "--time-limit", f"{limit:g}"]
    if memory_limit is not None:
        argv += ["--memory-limit", f"{memory_limit:g}"]
    run = measure(argv, folder, f"bbqmis_{tag}", cap_gb, 3 * limit + HANG_SECONDS)
    row: dict[str, Any] = {
        "solver": "bbqmis" if memory_limit is None else f"bbqmis --memory-limit {memory_limit:g}",
        "memory_limit_gb": memory_limit,
        **run,
    }
    if run["outcome"] == "ok" and out_json.is_file():
        result = json.loads(out_json.read_text())
        stats = result["stats"]
        coloring = result.pop("coloring")
        row.update(
            colors=result["num_colors"],
            bound=result["lower_bound"],
            optimal=result["optimal"],
            stopped=result["stopped"],
            stop=result["stopped"] or stats["stop_reason"],
            search_s=stats["seconds"],
            how=[entry["how"] for entry in stats["searched"]],
            settled_without_search=stats["settled_without_search"],
            vertices_coloured=len(coloring),
            colours_used=len(set(coloring.values())),
        )
        del coloring, result
    elif run["outcome"] == "ok":
        row["outcome"] = "error"
        row["stop"] = "error: no --json written"
    else:
        row["stop"] = failure(run, cap_gb)
    if memory_limit is not None:
        row["memory_held"] = row["peak_gb"] <= memory_limit
    return row


def cpsat_run(
    spec: dict[str, Any], path: Path, limit: float, folder: Path, cap_gb: float, max_terms: int
) -> dict[str, Any]:
    """One CP-SAT child (:func:`cpsat_child`): the measurement and the child's JSON line."""
    tag = f"{spec['kind']}_T{limit:g}"
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", "cpsat", str(path), f"{limit:g}"]
    argv += [str(max_terms)]
    run = measure(argv, folder, f"cpsat_{tag}", cap_gb, 3 * limit + HANG_SECONDS)
    row: dict[str, Any] = {"solver": "cpsat", **run}
    if run["outcome"] != "ok" or not run["stdout"].startswith("{"):
        row["outcome"] = "error" if run["outcome"] == "ok" else run["outcome"]
        row["stop"] = failure(row, cap_gb)
        return row
    out = json.loads(run["stdout"])
    if "skipped" in out:  # the child only read and coloured the graph: no run of the peer to measure
        row.update(out, outcome="skipped", stop=f"skipped ({out['skipped']})")
        row["probe_wall"], row["probe_peak_gb"] = row.pop("wall"), row.pop("peak_gb")
        return row
    row.update(out, stop=out["status"], search_s=out["dsatur_s"] + out["seconds"])
    return row


# ----------------------------------------------------------------------------- the benchmark
def run_graph(
    spec: dict[str, Any],
    folder: Path,
    limits: list[float],
    memory_limit: float,
    cap_gb: float,
    max_terms: int,
    progress: ProgressLine,
) -> list[dict[str, Any]]:
    """Generate one graph, read it once, then every solver and limit on it: its rows."""
    path = folder / spec["file"]
    progress({"phase": "generate", "graph": spec["name"]})
    made = measure(
        [sys.executable, str(Path(__file__).resolve()), "--child", "generate", spec["make"][0], str(path)]
        + [str(arg) for arg in spec["make"][1:]],
        folder,
        f"generate_{spec['kind']}",
        cap_gb,
        HANG_SECONDS,
    )
    if made["outcome"] != "ok":
        raise RuntimeError(f"generating {spec['name']} failed: {made['stderr']}")
    sizes = json.loads(made["stdout"])
    progress({"phase": "read", "graph": spec["name"], **sizes})
    read = measure([sys.executable, "-c", READ_CODE, str(path)], folder, f"read_{spec['kind']}", cap_gb, 3600)
    common = {
        "graph": spec["name"],
        "kind": spec["kind"],
        "file": spec["file"],
        "n": sizes["n"],
        "m": sizes["m"],
        "read_s": read["wall"],
        "read_gb": read["peak_gb"],
        "read_outcome": read["outcome"],
        "read_as": read["stdout"],
    }
    rows: list[dict[str, Any]] = []
    skipped: dict[str, Any] | None = None
    for limit in limits:
        for memory in (None, memory_limit):
            progress({"phase": "bbqmis", "graph": spec["name"], "limit": limit, "memory_limit": memory})
            row = bbqmis_run(spec, path, limit, memory, folder, cap_gb)
            rows.append({**common, "limit": limit, **row})
            progress({"phase": "done", "graph": spec["name"], "solver": row["solver"], **cells_of(rows[-1])})
        progress({"phase": "cpsat", "graph": spec["name"], "limit": limit})
        if skipped is None:
            row = cpsat_run(spec, path, limit, folder, cap_gb, max_terms)
            if row["outcome"] == "skipped":  # k does not depend on the limit: skip the others at once
                skipped = {key: row[key] for key in ("solver", "outcome", "stop", "skipped", "k", "terms")}
        else:
            row = dict(skipped)
        rows.append({**common, "limit": limit, **row})
        progress({"phase": "done", "graph": spec["name"], "solver": "cpsat", **cells_of(rows[-1])})
    return rows


def cells_of(row: dict[str, Any]) -> dict[str, Any]:
    """The numbers of a row for the progress line."""
    wall = row.get("wall")
    return {
        "wall": None if wall is None else round(wall, 2),
        "peak_gb": None if row.get("peak_gb") is None else round(row["peak_gb"], 3),
        "colours": row.get("colors"),
        "bound": row.get("bound"),
        "stop": row.get("stop"),
    }


def finish(rows: list[dict[str, Any]]) -> None:
    """Add overrun (wall - limit) to every measured row."""
    for row in rows:
        row["overrun"] = None if row.get("wall") is None else row["wall"] - row["limit"]


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per graph, limit and bbqmis variant: its overrun and wall time over CP-SAT's."""
    out = []
    for row in rows:
        if not row["solver"].startswith("bbqmis"):
            continue
        peer = next(
            r
            for r in rows
            if r["solver"] == "cpsat" and (r["graph"], r["limit"]) == (row["graph"], row["limit"])
        )
        measured = peer["outcome"] in ("ok", "cap", "hang") and row.get("wall") is not None
        out.append(
            {
                "graph": row["graph"],
                "limit": row["limit"],
                "solver": row["solver"],
                "overrun": row.get("overrun"),
                "cpsat_overrun": peer.get("overrun") if measured else None,
                "cpsat": peer["stop"],
                "overrun_ratio": (
                    row["overrun"] / peer["overrun"]
                    if measured and min(row["overrun"], peer["overrun"]) > OVERRUN_FLOOR
                    else None
                ),
                "wall_ratio": row["wall"] / peer["wall"] if measured else None,
            }
        )
    return out


def check(row: dict[str, Any]) -> list[str]:
    """Problems with one bbqmis row: an undocumented stop, colours below the bound, a partial colouring."""
    if not row["solver"].startswith("bbqmis"):
        return []
    if row["outcome"] != "ok":
        return [f"{row['outcome']}: {row['stop']}"]
    problems = []
    if row["stopped"] not in DOCUMENTED_STOPS:
        problems.append(f"stopped {row['stopped']!r} is not documented")
    if row["stopped"] is None and row["stop"] not in FINISHED_REASONS:
        problems.append(f"stop_reason {row['stop']!r} of a finished run is not documented")
    if not 0 <= row["bound"] <= row["colors"]:
        problems.append(f"bound {row['bound']} > colours {row['colors']}")
    if row["vertices_coloured"] != row["n"] or row["colours_used"] != row["colors"]:
        problems.append(
            f"colouring covers {row['vertices_coloured']} of {row['n']} vertices "
            f"with {row['colours_used']} colours, reported {row['colors']}"
        )
    return problems


def fmt(value: Any, spec: str = "") -> str:
    """A table cell: ``-`` for None."""
    return "-" if value is None else format(value, spec)


def results_table(rows: list[dict[str, Any]]) -> list[list[str]]:
    """The main table, one line per run."""
    header = ["graph", "n", "m", "solver", "limit", "wall", "overrun", "peak GB", "colours", "bound"]
    table = [header + ["stop reason", "read s", "read GB", "search s"]]
    for r in rows:
        colors = r.get("colors")
        table.append(
            [
                r["graph"],
                str(r["n"]),
                str(r["m"]),
                r["solver"],
                f"{r['limit']:g}",
                fmt(r.get("wall"), ".2f"),
                fmt(r.get("overrun"), "+.2f"),
                fmt(r.get("peak_gb"), ".3f"),
                "none" if colors is None and r["outcome"] == "ok" else fmt(colors),
                fmt(r.get("bound")),
                str(r["stop"]),
                f"{r['read_s']:.2f}",
                f"{r['read_gb']:.3f}",
                fmt(r.get("search_s"), ".2f"),
            ]
        )
    return table


def ratio_table(found: list[dict[str, Any]]) -> list[list[str]]:
    """Overrun and wall ratios to CP-SAT, one line per bbqmis run."""
    table = [["graph", "limit", "solver", "overrun", "cp-sat overrun", "overrun ratio", "wall ratio"]]
    for r in found:
        table.append(
            [
                r["graph"],
                f"{r['limit']:g}",
                r["solver"],
                fmt(r["overrun"], "+.2f"),
                fmt(r["cpsat_overrun"], "+.2f") if r["cpsat_overrun"] is not None else r["cpsat"],
                fmt(r["overrun_ratio"], ".2f"),
                fmt(r["wall_ratio"], ".2f"),
            ]
        )
    return table


def summarise(rows: list[dict[str, Any]], memory_limit: float) -> dict[str, Any]:
    """Largest overrun and peak per solver, the memory limit held or not, and the problems."""
    summary: dict[str, Any] = {"solvers": {}}
    for solver in dict.fromkeys(r["solver"] for r in rows):
        mine = [r for r in rows if r["solver"] == solver]
        measured = [r for r in mine if r["outcome"] == "ok"]
        summary["solvers"][solver] = {
            "runs": len(mine),
            "ok": len(measured),
            "skipped": sum(r["outcome"] == "skipped" for r in mine),
            "killed_by_cap": sum(r["outcome"] == "cap" for r in mine),
            "hangs": sum(r["outcome"] == "hang" for r in mine),
            "errors": sum(r["outcome"] == "error" for r in mine),
            "max_overrun_s": max((r["overrun"] for r in measured), default=None),
            "max_peak_gb": max((r["peak_gb"] for r in measured), default=None),
        }
    limited = [r for r in rows if r.get("memory_limit_gb") is not None and r["outcome"] == "ok"]
    summary["memory_limit_gb"] = memory_limit
    summary["memory_limit_held"] = sum(r["memory_held"] for r in limited)
    summary["memory_limit_runs"] = len(limited)
    summary["problems"] = {f"{r['graph']} {r['solver']} T={r['limit']:g}": p for r in rows if (p := check(r))}
    summary["parent_gb"] = max(r.get("parent_gb") or 0.0 for r in rows)
    return summary


def print_summary(summary: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """The summary in words."""
    for solver, s in summary["solvers"].items():
        overrun, peak = s["max_overrun_s"], s["max_peak_gb"]
        line = f"{solver}: {s['ok']} of {s['runs']} runs ended normally"
        line += f", max overrun {fmt(overrun, '+.2f')} s, max peak {fmt(peak, '.3f')} GB"
        extra = [f"{key} {s[key]}" for key in ("skipped", "killed_by_cap", "hangs", "errors") if s[key]]
        print(line + ("; " + ", ".join(extra) if extra else ""))
    reads = {r["graph"]: (r["read_s"], r["read_gb"]) for r in rows}
    print(
        f"--memory-limit {summary['memory_limit_gb']:g}: peak within it in {summary['memory_limit_held']} "
        f"of {summary['memory_limit_runs']} runs; reading alone (python -c, start-up included): "
        + ", ".join(f"{graph} {s:.2f} s {gb:.3f} GB" for graph, (s, gb) in reads.items())
    )
    print(
        "start-up before the clock (interpreter and imports; the limits do not count it): "
        + ", ".join(f"{solver} {seconds:.2f} s" for solver, seconds in summary["startup_s"].items())
    )
    print(f"problems: {summary['problems'] or 'none'}")


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print the tables, the summary and one JSON line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small graphs and a 2 s limit (about a minute)")
    parser.add_argument(
        "--sizes",
        nargs=4,
        type=int,
        metavar=("N", "M", "N_DENSE", "N_MEDIUM"),
        help=f"sparse G(N, M), dense G(N_DENSE, {DENSITY}), medium G(N_MEDIUM, {DENSITY}) "
        f"(default {' '.join(map(str, DEFAULT_SIZES))}; --quick {' '.join(map(str, QUICK_SIZES))})",
    )
    parser.add_argument(
        "--time-limits",
        nargs="+",
        type=float,
        metavar="S",
        help="seconds per run (default 5 30; --quick 2)",
    )
    parser.add_argument(
        "--memory-limit",
        type=float,
        default=MEMORY_LIMIT_GB,
        metavar="GB",
        help=f"--memory-limit of the second bbqmis run ({MEMORY_LIMIT_GB:g})",
    )
    parser.add_argument(
        "--cap-gb", type=float, default=CAP_GB, help=f"address-space cap of every child ({CAP_GB:g})"
    )
    parser.add_argument(
        "--max-model-terms",
        type=int,
        default=MAX_MODEL_TERMS,
        metavar="T",
        help=f"largest CP-SAT model, (n + m) x colours ({MAX_MODEL_TERMS})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the sparse graph; +1, +2 the others (0)")
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="write graphs and outputs to DIR and keep them"
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        if kind == "generate":
            generate_child(*rest)
        elif kind == "startup":
            startup_child()
        else:
            cpsat_child(rest[0], float(rest[1]), int(rest[2]))
        return
    sizes = tuple(args.sizes) if args.sizes else QUICK_SIZES if args.quick else DEFAULT_SIZES
    limits = list(args.time_limits or (QUICK_LIMITS if args.quick else DEFAULT_LIMITS))
    n_sparse, m_sparse, n_dense, n_medium = sizes
    if min(sizes[0], n_dense, n_medium) < 2 or m_sparse < 1:
        parser.error(
            f"--sizes: expected N, N_DENSE, N_MEDIUM >= 2 and M >= 1, got {' '.join(map(str, sizes))}"
        )
    if m_sparse > n_sparse * (n_sparse - 1) // 2:
        most = n_sparse * (n_sparse - 1) // 2
        parser.error(f"--sizes: G(N, M) with N={n_sparse} has at most {most} edges, got M={m_sparse}")
    if not all(limit > 0 for limit in limits):
        parser.error(f"--time-limits: expected seconds > 0, got {' '.join(f'{x:g}' for x in limits)}")
    if not args.memory_limit > 0:
        parser.error(f"--memory-limit: expected GB > 0, got {args.memory_limit:g}")
    if not args.cap_gb >= 1:
        parser.error(f"--cap-gb: expected GB >= 1, got {args.cap_gb:g}")
    if args.max_model_terms < 0:
        parser.error(f"--max-model-terms: expected a count >= 0, got {args.max_model_terms}")
    if args.keep is not None and args.keep.exists() and not args.keep.is_dir():
        parser.error(f"--keep: {args.keep} is not a folder")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="limits_scale_") as temp:
        folder = Path(temp) if args.keep is None else args.keep
        folder.mkdir(parents=True, exist_ok=True)
        with ProgressLine(label="limits_scale") as progress:
            progress({"phase": "start-up"})
            startup = {
                solver: measure(argv, folder, f"startup_{solver}", args.cap_gb, HANG_SECONDS)["wall"]
                for solver, argv in startup_commands().items()
            }
            rows = [
                row
                for spec in graph_specs(sizes, args.seed)
                for row in run_graph(
                    spec, folder, limits, args.memory_limit, args.cap_gb, args.max_model_terms, progress
                )
            ]
    finish(rows)
    found = ratios(rows)
    summary = summarise(rows, args.memory_limit)
    summary["startup_s"] = startup
    coloring_vs_cpsat.print_table(results_table(rows))
    print()
    coloring_vs_cpsat.print_table(ratio_table(found))
    print()
    print_summary(summary, rows)
    settings = {
        "sizes": list(sizes),
        "density": DENSITY,
        "time_limits": limits,
        "memory_limit_gb": args.memory_limit,
        "cap_gb": args.cap_gb,
        "max_model_terms": args.max_model_terms,
        "seed": args.seed,
        "quick": args.quick,
    }
    for row in rows:
        row.pop("stdout", None)
    load = {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]}
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "node": platform.node()}
    print(
        json.dumps(
            {
                "rows": rows,
                "ratios": found,
                "summary": summary,
                "settings": settings,
                "load": load,
                "machine": machine,
            }
        )
    )


if __name__ == "__main__":
    main()
