"""vQPU multiplexing: N concurrent jobs share one (emulated) QPU through the vQPU server.

By default, the multiplexing experiment of "Three ways to share a QPU" (Cipollini et al.,
arXiv:2604.14955, Section 4.3.1, Figures 7 and 8): N concurrent
``python -m bbqmis`` jobs colouring the same graph, submitted through the single-node
Slurm of ``examples/slurm`` (each holding one licence, ``--gres``: one GRES), alpha in
{0, 1, 2, 4}, 10 repeats; see :mod:`vqpu_paper` (``--short``: N in {1, 2}, alpha in
{0, 2}, one repeat, 0.1 s per circuit, for CI).

``--synthetic`` runs the earlier synthetic grid instead
(the same experiment with emulated jobs) on one machine: for N
in {1, 2, 4, 8} concurrent identical jobs and sleep factor alpha in {0, 1, 2, 4} (each
job sleeps alpha x quantum time after every circuit, emulating classical work), measure

- occupancy: device busy time / span of the point (from the server's accounting DB);
- total time: first job start to last job end;
- quantum time: device seconds spent on the point's batches;
- mean queue time: mean wait of a batch behind other jobs' batches;
- job runtimes (violin plot), and the co-scheduling baseline N x T1 (jobs one after
  another, T1 = runtime of a lone job at the same alpha).

The default workload is a loop of K small QAOA-like circuits per job through the vQPU
client; the server's ``--latency`` emulates the device time, so runs are fast and
repeatable. ``--workload "python -m bbqmis GRAPH ..."`` runs a command instead (the
backend argument ``--backend vqpu:URL`` is appended). ``--slurm`` submits the jobs
through ``examples/slurm/submit.sh`` to a Slurm started with ``examples/slurm/start.sh``.

``--soak`` runs the robustness check instead: C clients submit B batches in total, one
client is killed and the server is restarted mid-run; every accepted batch must be
answered exactly once and the other clients must finish undisturbed.

``--policy`` compares the scheduling policies (one heavy job, several light ones);
``--scale`` measures the server's overhead per batch (seen by the clients, and inside the
server from its ``Server-Timing`` answers) and its throughput with many client processes
on the ``null`` backend, beside the same clients against a do-nothing HTTP server
(``_null_http_server.py``), the floor set by the clients and the machine; ``--pin`` puts
the server on CPU 0 and the clients on the other CPUs; ``--think`` gives the clients a
mean think time between batches (one run per value: overhead against load); ``--tls``
serves HTTPS instead, with a throw-away CA made in a temporary folder by
``examples/slurm/make_tls.sh`` (the clients reach ``https://localhost:PORT`` and trust
the CA through ``VQPU_CA``), and ``--compare-tls`` runs plain HTTP and TLS one after the
other for every think time and prints them side by side.

Examples
--------
    python benchmarks/vqpu_multiplexing.py --short          # the paper's experiment, small
    python benchmarks/vqpu_multiplexing.py                  # the paper's grid, 10 repeats (85 min)
    python benchmarks/vqpu_multiplexing.py --synthetic --full  # synthetic grid, R=3, K=20
    python benchmarks/vqpu_multiplexing.py --policy
    python benchmarks/vqpu_multiplexing.py --scale --clients 64 --batches 20 [--pin]
    python benchmarks/vqpu_multiplexing.py --scale --clients 64 --pin --think 0 0.1 0.2 0.4
    python benchmarks/vqpu_multiplexing.py --scale --clients 64 --batches 20 --pin --compare-tls
    python benchmarks/vqpu_multiplexing.py --soak --clients 16 --batches 1000

Prints a table and one final JSON line; writes CSV and figures to ``--out``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import itertools
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
# _vqpu_common and vqpu_paper, also when this file is imported by path; appended, so that the
# packages of src are never shadowed by a script of the same name (benchmarks/cutting.py)
sys.path.append(str(ROOT / "benchmarks"))

from _vqpu_common import (  # noqa: E402
    GRAPH,
    Server,
    ServerCommand,
    TLSFiles,
    default_server_command,
    make_tls,
    subprocess_env,
)

from backends.utils.arguments import integer, real  # noqa: E402
from backends.vqpu.server.report import sharing_slowdowns, summarize  # noqa: E402
from backends.vqpu.server.store import read_batches  # noqa: E402


# ----------------------------------------------------------------------------- workers (subprocesses)
def qaoa_like(num_qubits: int, gamma: float, beta: float):
    """A p=1 QAOA-shaped circuit on a ring: H, RZZ(gamma) per edge, RX(2 beta), measure."""
    from qiskit import QuantumCircuit

    circuit = QuantumCircuit(num_qubits, num_qubits)
    circuit.h(range(num_qubits))
    for q in range(num_qubits):
        circuit.rzz(gamma, q, (q + 1) % num_qubits)
    circuit.rx(2 * beta, range(num_qubits))
    circuit.measure(range(num_qubits), range(num_qubits))
    return circuit


def worker(args: argparse.Namespace) -> None:
    """One job: K circuits through ``vqpu:URL`` with sleep factor alpha; prints start/end as JSON."""
    import numpy as np

    from backends import get_backend

    backend = get_backend(f"vqpu:{args.url}", job=args.job, sleep_factor=args.sleep_factor, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    circuits = [qaoa_like(args.qubits, *rng.uniform(0, np.pi, 2)) for _ in range(args.circuits)]
    if args.barrier:
        print("ready", flush=True)
        sys.stdin.readline()
    start = time.time()
    for circuit in circuits:
        backend.run(circuit, args.shots)
    print(json.dumps({"job": args.job, "start": start, "end": time.time()}), flush=True)


def soak_worker(args: argparse.Namespace) -> None:
    """Submit B batches one after another; print one JSON line per answered batch."""
    from backends.vqpu.api import VQPUSession
    from backends.vqpu.wire import encode_circuits

    payload = encode_circuits([qaoa_like(3, 0.4, 0.3)])
    with VQPUSession(args.url, job=args.job, deadline=120) as session:
        for _ in range(args.batches):
            batch = session.execute(payload, 16)
            print(
                json.dumps(
                    {"id": batch["id"], "key": batch["key"], "shots": sum(batch["counts"][0].values())}
                ),
                flush=True,
            )


# ----------------------------------------------------------------------------- one point of the grid
def _worker_command(url, job, alpha, args, barrier=True) -> list[str]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        "--url",
        url,
        "--job",
        job,
        "--sleep-factor",
        str(alpha),
        "--circuits",
        str(args.circuits),
        "--qubits",
        str(args.qubits),
        "--shots",
        str(args.shots),
        "--seed",
        str(args.seed),
    ]
    return command + (["--barrier"] if barrier else [])


def run_local(url: str, jobs: list[str], alpha: float, args) -> list[dict]:
    """Start one worker process per job, release them together, return their start/end records."""
    if args.workload:
        tic = time.time()
        processes = [
            subprocess.Popen(
                shlex.split(args.workload) + ["--backend", f"vqpu:{url}", "--sleep-factor", str(alpha)],
                env={**subprocess_env(), "SLURM_JOB_ID": job},
                stdout=subprocess.DEVNULL,
            )
            for job in jobs
        ]
        records = []
        for job, process in zip(jobs, processes, strict=True):
            process.wait()
            records.append({"job": job, "start": tic, "end": time.time()})
        return records
    processes = [
        subprocess.Popen(
            _worker_command(url, job, alpha, args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=subprocess_env(),
        )
        for job in jobs
    ]
    for process in processes:
        assert process.stdout.readline().strip() == "ready"
    for process in processes:
        process.stdin.write("go\n")
        process.stdin.flush()
    records = [json.loads(process.stdout.readline()) for process in processes]
    for process in processes:
        process.wait(timeout=60)
    return records


def run_slurm(url: str, jobs: list[str], alpha: float, args) -> list[dict]:
    """Submit the jobs with examples/slurm/submit.sh (needs SLURM_CONF); wait; read their records."""
    out = Path(args.out) / "slurm"
    out.mkdir(parents=True, exist_ok=True)
    records = []
    ids = []
    for job in jobs:
        command = shlex.join(_worker_command(url, job, alpha, args, barrier=False))
        result = subprocess.run(
            ["bash", str(ROOT / "examples/slurm/submit.sh"), "1", url],
            env={**subprocess_env(), "VQPU_COMMAND": command, "OUTPUT_DIR": str(out)},
            capture_output=True,
            text=True,
            check=True,
        )
        ids.append(result.stdout.split()[-1])
    deadline = time.monotonic() + 600
    while subprocess.run(
        ["squeue", "-h", "-j", ",".join(ids)], capture_output=True, text=True
    ).stdout.strip():
        if time.monotonic() > deadline:
            raise RuntimeError(f"Slurm jobs {ids} not finished within 600 s")
        time.sleep(0.5)
    for job_id in ids:
        lines = (out / f"vqpu-{job_id}.out").read_text().splitlines()
        records.append(json.loads(next(line for line in reversed(lines) if line.startswith("{"))))
    return records


def measure_point(server: Server, n: int, alpha: float, repeat: int, args) -> dict:
    """Run N jobs at sleep factor alpha; return the metrics of the point."""
    jobs = [f"n{n}-a{alpha:g}-r{repeat}-j{i}" for i in range(n)]
    records = (run_slurm if args.slurm else run_local)(server.url, jobs, alpha, args)
    batches = [b for b in read_batches(server.db) if b.job in set(jobs)]
    summary = summarize(batches)
    runtimes = [r["end"] - r["start"] for r in records]
    return {
        "n": n,
        "alpha": alpha,
        "repeat": repeat,
        "total_seconds": max(r["end"] for r in records) - min(r["start"] for r in records),
        "occupancy": summary.occupancy,
        "quantum_seconds": summary.quantum_seconds,
        "mean_queue_seconds": summary.mean_queue_seconds,
        "runtimes": runtimes,
        "batches": summary.batches,
    }


def _overhead_client(task: tuple[str, int, int]) -> list[float]:
    """One client process: round trip minus execution and queue wait, per batch (s)."""
    from backends.vqpu.api import VQPUSession
    from backends.vqpu.wire import encode_circuits

    url, index, batches = task
    payload = encode_circuits([qaoa_like(3, 0.4, 0.3)])
    out = []
    with VQPUSession(url, job=f"overhead-{index}") as session:
        session.execute(payload, 16)  # warm the connection
        for _ in range(batches):
            tic = time.time()
            batch = session.execute(payload, 16)
            # round trip minus this batch's execution and its wait behind other batches
            out.append(time.time() - tic - batch["quantum_seconds"] - batch["queue_seconds"])
    return out


def overhead(server: Server, clients: int = 8, batches: int = 25) -> dict:
    """Server overhead per batch with ``clients`` client processes submitting concurrently.

    Clients are separate processes, as jobs are; threads of one process would measure
    their own contention for the interpreter lock as server overhead.
    """
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(clients) as pool:
        results = pool.map(_overhead_client, [(server.url, i, batches) for i in range(clients)])
    samples = [x for xs in results for x in xs]
    return {
        "clients": clients,
        "batches": len(samples),
        "median_ms": 1e3 * statistics.median(samples),
        "p90_ms": 1e3 * statistics.quantiles(samples, n=10)[-1],
    }


def _scale_client(
    url: str,
    index: int,
    batches: int,
    think: float,
    cpus: set[int] | None,
    barrier,
    results,
    ca: str | None = None,
) -> None:
    """One of many client processes (on ``cpus`` if given): warm up, wait for all, time its batches.

    Between two batches the client thinks (sleeps) for an exponentially distributed time
    of mean ``think`` seconds (none when 0), seeded by its ``index``. ``ca``: the CA of an
    ``https://`` server, given to the client as a job gets it, in ``VQPU_CA``.
    """
    import random

    from backends.vqpu.api import VQPUSession
    from backends.vqpu.wire import encode_circuits

    if cpus is not None:
        os.sched_setaffinity(0, cpus)
    if ca is not None:
        os.environ["VQPU_CA"] = ca
    thinking = random.Random(index)
    payload = encode_circuits([qaoa_like(3, 0.4, 0.3)])
    with VQPUSession(url, job=f"scale-{index}") as session:
        session.execute(payload, 16)
        barrier.wait()
        start, out = time.time(), []
        for number in range(batches):
            body = {"key": f"{index}-{number}", "circuits": payload, "shots": 16, "seed": None}
            tic = time.time()
            # one request per batch, as VQPUSession.execute sends it: submit and wait for the result
            batch = session.request("POST", "/batches", json=body, params={"wait": session.poll})
            toc = time.time()
            if batch["status"] != "done":
                raise RuntimeError(f"batch {batch['id']} is {batch['status']} after one request")
            executed = batch["quantum_seconds"] + batch["queue_seconds"]
            # end, and (seen by the client, inside the server): round trip and server time minus execution
            out.append((toc, toc - tic - executed, session.server_seconds - executed))
            if think > 0 and number + 1 < batches:
                time.sleep(thinking.expovariate(1 / think))
        results.put((start, time.time(), out))


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` and its live child processes (Linux).

    Children are looked up under every thread of ``pid``: a child started by a thread
    (the server's decoder process) is listed under that thread only.
    """
    total = sum(map(_cpu_ticks, [pid, *_children(pid)]))
    return total / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid``, under whichever of its threads started them."""
    children = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError):  # a thread that just ended
            children.extend(map(int, (task / "children").read_text().split()))
    return children


def _cpu_ticks(pid: int) -> int:
    """Clock ticks of CPU (user + system) used by the live process ``pid``; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime, stime


def scale(
    server: Server,
    clients: int = 64,
    batches: int = 20,
    client_cpus: set[int] | None = None,
    think: float = 0.0,
) -> dict:
    """Server overhead per batch and throughput with ``clients`` client processes at once.

    Every client warms its connection, then all start together (a barrier) and each
    runs ``batches`` batches one after another, thinking ``think`` seconds on average
    between two (exponentially distributed; 0: none, as fast as the server answers).

    Everything is measured over the window in which every client is running, from the
    common start to the moment the first client is done, so that the load is the one
    all ``clients`` offer (the tail in which fewer clients remain is left out): the
    ``batches`` answered in the window (of ``batches_total``), their throughput, and the
    server's CPU over the window (its decoder process included), per batch and as
    ``server_cpu_share``, the cores' worth of CPU it used (1.0: one core busy all the
    time). The overhead of a batch is its round trip minus its queue wait and execution,
    as the client sees it (``median_ms``) and inside the server, from its
    ``Server-Timing`` answer (``server_median_ms``): the difference is the clients' own
    time and the network's, which includes waiting for a core when the clients
    outnumber the cores. ``client_cpus``: the CPUs the clients run on.
    """
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(clients + 1), context.Queue()  # the clients and this process
    ca = None if server.tls is None else str(server.tls.ca)
    processes = [
        context.Process(
            target=_scale_client, args=(server.url, i, batches, think, client_cpus, barrier, results, ca)
        )
        for i in range(clients)
    ]
    for process in processes:
        process.start()
    barrier.wait(timeout=600)  # every client warmed up: the timed batches start now
    timeout = 600 + 10 * think * batches  # the clients' thinking included
    cpu_before = cpu_seconds(server.process.pid)
    records = [results.get(timeout=timeout)]  # the first client is done: the window closes
    cpu = cpu_seconds(server.process.pid) - cpu_before
    records += [results.get(timeout=timeout) for _ in processes[1:]]
    for process in processes:
        process.join(timeout=60)
    start, end = min(start for start, _, _ in records), min(end for _, end, _ in records)
    window = [(seen, inside) for _, _, xs in records for toc, seen, inside in xs if toc <= end]
    samples, inside = [seen for seen, _ in window], [inside for _, inside in window]
    span = end - start
    return {
        "clients": clients,
        "think_seconds": think,
        "batches_total": sum(len(xs) for _, _, xs in records),
        "batches": len(samples),
        "median_ms": 1e3 * statistics.median(samples),
        "p90_ms": 1e3 * statistics.quantiles(samples, n=10)[-1],
        "server_median_ms": 1e3 * statistics.median(inside),
        "server_p90_ms": 1e3 * statistics.quantiles(inside, n=10)[-1],
        "batches_per_second": len(samples) / span,
        # the server's CPU (decoder process included) per batch answered in the window
        "server_cpu_ms_per_batch": 1e3 * cpu / len(samples),
        "server_cpu_share": cpu / span,
        "window_seconds": span,
    }


def pinned(command: ServerCommand, cpus: set[int]) -> ServerCommand:
    """``command`` run on ``cpus`` only (``taskset``; its threads and child processes too)."""

    def on_cpus(db: Path, port: int, *args: str) -> list[str]:
        return ["taskset", "--cpu-list", ",".join(map(str, sorted(cpus))), *command(db, port, *args)]

    return on_cpus


def null_http_command(db: Path, port: int, *args: str) -> list[str]:
    """The do-nothing server of ``_null_http_server.py`` (``db`` only names its log).

    With ``--tls-cert FILE --tls-key FILE`` (as :class:`Server` passes them): the same
    application and HTTP stack (httptools, uvicorn's default loop) under uvicorn's command
    line, which takes the certificate (``_null_http_server.py`` has no TLS options).
    """
    if not args:
        return [sys.executable, str(ROOT / "benchmarks" / "_null_http_server.py"), "--port", str(port)]
    tls = dict(zip(args[::2], args[1::2], strict=True))
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "_null_http_server:app",
        "--app-dir",
        str(ROOT / "benchmarks"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--http",
        "httptools",
        "--lifespan",
        "off",
        "--no-access-log",
        "--log-level",
        "warning",
        "--ssl-certfile",
        tls["--tls-cert"],
        "--ssl-keyfile",
        tls["--tls-key"],
    ]


def connection_cost(server: Server, repeats: int = 20) -> dict:
    """``GET /health`` on a fresh connection and again on the same one, ``repeats`` times in a row.

    The difference of the medians is what opening a connection costs the client and the
    server together (TCP, and with TLS the handshake), paid once per connection; the
    kept connection's request pays only the per-request cost (with TLS, its records'
    encryption). Run with no other load on the server.
    """
    verify = server.verify()  # made once: loading the CA is not part of a connection
    fresh, kept = [], []
    for _ in range(repeats):
        with httpx.Client(base_url=server.url, verify=verify, timeout=30) as client:
            tic = time.perf_counter()
            client.get("/health").raise_for_status()
            toc = time.perf_counter()
            client.get("/health").raise_for_status()
            fresh.append(toc - tic)
            kept.append(time.perf_counter() - toc)
    return {
        "repeats": repeats,
        "fresh_ms": 1e3 * statistics.median(fresh),
        "kept_ms": 1e3 * statistics.median(kept),
        "setup_ms": 1e3 * (statistics.median(fresh) - statistics.median(kept)),
    }


def scale_experiment(args: argparse.Namespace, out: Path) -> int:
    """``--scale``: the vQPU server on the ``null`` backend, then the do-nothing server, same clients.

    Over plain HTTP, TLS (``--tls``) or both, one after the other per think time
    (``--compare-tls``); the JSON of a plain run alone keeps its keys (``pinned``,
    ``points``).
    """
    vqpu, floor, client_cpus = default_server_command("null"), null_http_command, None
    if args.batches < 2:  # the window holds all batches of the first client done, at least two
        print("--scale needs --batches 2 or more (a median and a p90 per run)", file=sys.stderr)
        return 2
    if args.pin:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2 or shutil.which("taskset") is None:
            print("--pin needs two CPUs or more and taskset (util-linux)", file=sys.stderr)
            return 2
        vqpu, floor, client_cpus = pinned(vqpu, {cpus[0]}), pinned(floor, {cpus[0]}), set(cpus[1:])
    transports = ("plain", "tls") if args.compare_tls else ("tls",) if args.tls else ("plain",)
    runs: dict[str, list[dict]] = {transport: [] for transport in transports}
    with tempfile.TemporaryDirectory(prefix="vqpu-tls-") as folder:
        try:
            tls = make_tls(Path(folder)) if "tls" in transports else None
        except RuntimeError as exc:  # no openssl, or it failed: one line, not a traceback
            print(f"vqpu_multiplexing.py: error: --tls: {exc}", file=sys.stderr)
            return 1
        for think in args.think:
            for transport in transports:  # plain and TLS alternate, so that both meet the same load
                files = tls if transport == "tls" else None
                point = scale_point(vqpu, floor, out, files, args, client_cpus, think)
                runs[transport].append(point)
    if args.compare_tls:
        comparison = compare_transports(runs["plain"], runs["tls"])
        print_transports(runs["plain"], runs["tls"], comparison)
        print(
            json.dumps(
                {"pinned": args.pin, **{t: {"points": p} for t, p in runs.items()}, "comparison": comparison}
            )
        )
        return 0
    print_scale(runs[transports[0]])
    summary = {"pinned": args.pin, "points": runs[transports[0]]}
    print(json.dumps(summary if not args.tls else {**summary, "transport": "tls"}))
    return 0


def scale_point(
    vqpu: ServerCommand,
    floor: ServerCommand,
    out: Path,
    tls: TLSFiles | None,
    args: argparse.Namespace,
    client_cpus: set[int] | None,
    think: float,
) -> dict:
    """One ``--scale`` run: the vQPU server, then the do-nothing server, over one transport.

    With ``--compare-tls`` the vQPU server's :func:`connection_cost` is measured too, after
    the clients are done (``connection``).
    """
    suffix = "" if tls is None else "-tls"
    db = out / f"scale{suffix}.sqlite"
    db.unlink(missing_ok=True)
    with Server(vqpu, db, "--max-queue", "100000", tls=tls).running() as server:
        result = scale(server, args.clients, args.batches, client_cpus, think)
        connection = connection_cost(server) if args.compare_tls else None
    with Server(floor, out / f"floor{suffix}", tls=tls).running() as server:
        result["floor"] = scale(server, args.clients, args.batches, client_cpus, think)
    return result if connection is None else {**result, "connection": connection}


def compare_transports(plain: list[dict], tls: list[dict]) -> list[dict]:
    """Per think time, TLS against plain HTTP: ratio (TLS / plain) and difference (TLS - plain)."""
    rows = []
    for p, t in zip(plain, tls, strict=True):
        rows.append(
            {
                "think_seconds": p["think_seconds"],
                "server_median_ratio": t["server_median_ms"] / p["server_median_ms"],
                "server_median_difference_ms": t["server_median_ms"] - p["server_median_ms"],
                "median_ratio": t["median_ms"] / p["median_ms"],
                "median_difference_ms": t["median_ms"] - p["median_ms"],
                "floor_median_difference_ms": t["floor"]["median_ms"] - p["floor"]["median_ms"],
                "server_cpu_ms_per_batch_difference": t["server_cpu_ms_per_batch"]
                - p["server_cpu_ms_per_batch"],
                "batches_per_second_ratio": t["batches_per_second"] / p["batches_per_second"],
                "connection_setup_difference_ms": t["connection"]["setup_ms"] - p["connection"]["setup_ms"],
            }
        )
    return rows


def print_transports(plain: list[dict], tls: list[dict], comparison: list[dict]) -> None:
    """The ``--compare-tls`` table: per think time, plain HTTP and TLS, the vQPU server and the floor."""
    first = plain[0]
    print(
        f"{first['clients']} client processes x {first['batches_total'] // first['clients']} batches, "
        "plain HTTP and TLS"
    )
    print(
        "| think, mean (ms) | server | transport | inside the server, median / p90 (ms) "
        "| seen by the clients, median (ms) | batches/s | server CPU (ms/batch) |"
    )
    print("|---|---|---|---|---|---|---|")
    for p, t, c in zip(plain, tls, comparison, strict=True):
        think = f"{1e3 * p['think_seconds']:g}"
        for name, key in (("vQPU, null backend", None), ("do-nothing HTTP (floor)", "floor")):
            for transport, point in (("plain", p), ("TLS", t)):
                row = point if key is None else point[key]
                print(
                    f"| {think} | {name} | {transport} "
                    f"| {row['server_median_ms']:.2f} / {row['server_p90_ms']:.2f} "
                    f"| {row['median_ms']:.2f} | {row['batches_per_second']:.0f} "
                    f"| {row['server_cpu_ms_per_batch']:.2f} |"
                )
        print(
            f"TLS - plain at think {think} ms: inside the server {c['server_median_difference_ms']:+.2f} ms "
            f"(x{c['server_median_ratio']:.2f}), seen by the clients {c['median_difference_ms']:+.2f} ms "
            f"(x{c['median_ratio']:.2f}), server CPU {c['server_cpu_ms_per_batch_difference']:+.2f} ms/batch"
        )
        print(
            f"new connection, GET /health, median of {p['connection']['repeats']}: plain "
            f"{p['connection']['fresh_ms']:.2f} ms (kept {p['connection']['kept_ms']:.2f}), TLS "
            f"{t['connection']['fresh_ms']:.2f} ms (kept {t['connection']['kept_ms']:.2f}): TLS adds "
            f"{c['connection_setup_difference_ms']:+.2f} ms per connection"
        )


def print_scale(points: list[dict]) -> None:
    """The ``--scale`` table: per think time, the vQPU server on ``null`` beside the do-nothing server."""
    first = points[0]
    print(f"{first['clients']} client processes x {first['batches_total'] // first['clients']} batches")
    print(
        "| think, mean (ms) | server | overhead seen by the clients, median / p90 (ms) "
        "| inside the server, median / p90 (ms) | batches/s | server CPU (ms/batch) | server CPU share |"
    )
    print("|---|---|---|---|---|---|---|")
    for point in points:
        for name, row in (("vQPU, null backend", point), ("do-nothing HTTP (floor)", point["floor"])):
            print(
                f"| {1e3 * point['think_seconds']:g} | {name} | {row['median_ms']:.2f} / {row['p90_ms']:.2f} "
                f"| {row['server_median_ms']:.2f} / {row['server_p90_ms']:.2f} "
                f"| {row['batches_per_second']:.0f} | {row['server_cpu_ms_per_batch']:.2f} "
                f"| {row['server_cpu_share']:.2f} |"
            )
        ratio = point["batches_per_second"] / point["floor"]["batches_per_second"]
        print(f"throughput ratio vQPU / floor at think {1e3 * point['think_seconds']:g} ms: {ratio:.2f}")


def _policy_client(task: tuple[str, str, str, int, float]) -> None:
    """A heavy job queues all its batches at once; a light job runs one, then thinks ``think`` s."""
    from backends.vqpu.api import VQPUSession
    from backends.vqpu.wire import encode_circuits

    url, job, kind, batches, think = task
    payload = encode_circuits([qaoa_like(3, 0.4, 0.3)])
    with VQPUSession(url, job=job) as session:
        if kind == "heavy":
            for batch_id in [session.submit(payload, 16)["id"] for _ in range(batches)]:
                session.result(batch_id)
        else:
            for _ in range(batches):
                session.execute(payload, 16)
                time.sleep(think)


def jain(values: list[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all equal, 1/n when one takes all."""
    squares = sum(x * x for x in values)
    return sum(values) ** 2 / (len(values) * squares) if squares else 1.0


#: The policies compared by ``--policy``: name and extra ``serve`` arguments (the bound in batch times).
POLICY_RUNS = (
    ("fifo", ()),
    ("round-robin", ()),
    ("round-robin + max-wait", ("--max-wait", "{bound}")),
    ("fifo + max-wait", ("--max-wait", "{bound}")),
)


def policy_comparison(args: argparse.Namespace, out: Path) -> list[dict]:
    """One heavy job (``--heavy`` batches queued at once) and ``--light`` light jobs, under each policy.

    The device is the null backend with ``--latency`` seconds per circuit, so every
    policy runs the same batches on the same device time (equal occupancy is checked
    in the table). Per job: mean queue time per batch and the slowdown by sharing
    (:func:`backends.vqpu.server.report.sharing_slowdowns`); over all batches: the worst queue
    time. Jain's index over each: over queue times it also counts a job's wait behind its
    own backlog; over slowdowns it measures how evenly the jobs gave way to each other
    (share-aware).
    """
    import multiprocessing

    tasks = [("heavy", "heavy", args.heavy, 0.0)] + [
        (f"light-{i}", "light", args.light_batches, args.latency) for i in range(args.light)
    ]
    rows = []
    for name, extra in POLICY_RUNS:
        db = out / f"policy-{name.replace(' ', '').replace('+', '-')}.sqlite"
        db.unlink(missing_ok=True)
        policy = name.split(" + ")[0]
        serve_args = [a.format(bound=4 * args.latency) for a in extra]
        server = Server(
            default_server_command("null"),
            db,
            "--latency",
            str(args.latency),
            "--policy",
            policy,
            *serve_args,
        )
        with server.running(), multiprocessing.get_context("spawn").Pool(len(tasks)) as pool:
            pool.map(_policy_client, [(server.url, *task) for task in tasks])
        batches = read_batches(db)
        summary = summarize(batches)
        per_job = {j.job: j.mean_queue_seconds for j in summary.jobs}
        light = [v for job, v in per_job.items() if job != "heavy"]
        rows.append(
            {
                "policy": name,
                "occupancy": summary.occupancy,
                "mean_job_queue_seconds": statistics.fmean(per_job.values()),
                "worst_batch_queue_seconds": max(b.queue_seconds or 0.0 for b in batches),
                "heavy_queue_seconds": per_job["heavy"],
                "light_queue_seconds": statistics.fmean(light),
                "jain": jain(list(per_job.values())),
                "slowdowns": (slowdowns := sharing_slowdowns(batches)),
                "jain_slowdown": jain(list(slowdowns.values())),
            }
        )
    return rows


def print_policies(rows: list[dict]) -> None:
    """Print the policy table and its JSON line."""

    def slowdown(row: dict) -> str:
        light = [v for job, v in row["slowdowns"].items() if job != "heavy"]
        return f"{row['slowdowns']['heavy']:.2f} / {statistics.fmean(light):.2f}"

    print(
        f"{'policy':<24} {'occupancy':>9} {'mean job queue s':>16} {'worst batch queue s':>19} "
        f"{'heavy s':>8} {'light s':>8} {'Jain':>6} {'slowdown heavy/light':>20} {'Jain slowdown':>13}"
    )
    for r in rows:
        print(
            f"{r['policy']:<24} {r['occupancy']:>9.3f} {r['mean_job_queue_seconds']:>16.3f} "
            f"{r['worst_batch_queue_seconds']:>19.3f} {r['heavy_queue_seconds']:>8.3f} "
            f"{r['light_queue_seconds']:>8.3f} {r['jain']:>6.3f} {slowdown(r):>20} "
            f"{r['jain_slowdown']:>13.3f}"
        )
    print(json.dumps({"policies": rows}))


# ----------------------------------------------------------------------------- soak
def soak(
    clients: int,
    batches: int,
    workdir: Path,
    command: ServerCommand,
    latency: float = 0.002,
    timeout: float = 300.0,
) -> dict:
    """C clients, B batches in total; kill one client at 1/3 and restart the server at 2/3 of the run.

    Returns
    -------
    dict
        ``accepted``, ``answered``, ``lost``, ``duplicates``, ``rerun``, ``survivors_complete``,
        ``seconds``; raises ``AssertionError`` if anything was lost or answered twice.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "soak.sqlite"
    db.unlink(missing_ok=True)
    per_client = max(1, batches // clients)
    server = Server(command, db, "--latency", str(latency), "--max-queue", str(10 * clients))
    tic = time.monotonic()
    with server.running():
        outs = [open(workdir / f"client-{i}.jsonl", "w") for i in range(clients)]
        processes = [
            subprocess.Popen(
                [
                    sys.executable,
                    str(Path(__file__).resolve()),
                    "--soak-worker",
                    "--url",
                    server.url,
                    "--job",
                    f"soak-{i}",
                    "--batches",
                    str(per_client),
                ],
                stdout=outs[i],
                env=subprocess_env(),
            )
            for i in range(clients)
        ]
        total = per_client * clients

        def done() -> int:
            with contextlib.suppress(httpx.TransportError, ValueError, KeyError):
                return httpx.get(f"{server.url}/status", timeout=5).json()["batches_done"]
            return 0

        def wait_for(fraction: float) -> None:
            while done() < fraction * total:
                if time.monotonic() - tic > timeout:
                    raise AssertionError(
                        f"soak: fewer than {fraction:.0%} of {total} batches done in {timeout} s"
                    )
                time.sleep(0.05)

        wait_for(1 / 3)
        processes[0].send_signal(signal.SIGKILL)  # a client dies mid-run
        wait_for(2 / 3)
        server.kill()  # the server dies with accepted batches ...
        server.start()  # ... and comes back on the same database and port
        for process in processes[1:]:
            process.wait(timeout=max(1.0, timeout - (time.monotonic() - tic)))
        processes[0].wait()
        for out in outs:
            out.close()
        while any(
            b.status in ("queued", "running") for b in read_batches(db)
        ):  # the killed client's leftovers
            if time.monotonic() - tic > timeout:
                raise AssertionError("soak: accepted batches still unfinished")
            time.sleep(0.05)

    rows = read_batches(db)
    answers = [
        [json.loads(line) for line in (workdir / f"client-{i}.jsonl").read_text().splitlines()]
        for i in range(clients)
    ]
    answered_ids = [a["id"] for client in answers for a in client]
    by_id = {b.id: b for b in rows}
    result = {
        "clients": clients,
        "batches": total,
        "accepted": len(rows),
        "answered": len(answered_ids),
        "lost": sum(b.status != "done" for b in rows),
        "duplicates": len(answered_ids) - len(set(answered_ids)),
        "keys_reused": len(rows) - len({(b.job, b.key) for b in rows}),
        "rerun": sum(b.runs > 1 for b in rows),
        "survivors_complete": all(len(client) == per_client for client in answers[1:]),
        "survivor_exit_codes": [p.returncode for p in processes[1:]],
        "answers_match_db": all(
            by_id[a["id"]].key == a["key"] and by_id[a["id"]].job == f"soak-{i}"
            for i, client in enumerate(answers)
            for a in client
        ),
        "seconds": time.monotonic() - tic,
    }
    assert result["lost"] == result["duplicates"] == result["keys_reused"] == 0, result
    assert result["survivors_complete"] and result["answers_match_db"], result
    assert set(result["survivor_exit_codes"]) == {0}, result
    assert result["rerun"] <= 1, result  # only a batch running when the server died runs again
    return result


# ----------------------------------------------------------------------------- output
def figures(points: list[dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    alphas = sorted({p["alpha"] for p in points})
    ns = sorted({p["n"] for p in points})

    def mean(metric, n, alpha):
        return statistics.fmean(p[metric] for p in points if p["n"] == n and p["alpha"] == alpha)

    fig, axes = plt.subplots(1, 4, figsize=(17, 4))
    for alpha in alphas:
        axes[0].plot(ns, [mean("occupancy", n, alpha) for n in ns], "o-", label=f"alpha={alpha:g}")
        (line,) = axes[1].plot(
            ns, [mean("total_seconds", n, alpha) for n in ns], "o-", label=f"alpha={alpha:g}"
        )
        axes[1].plot(ns, [mean("baseline_seconds", n, alpha) for n in ns], "--", color=line.get_color())
        axes[2].plot(ns, [mean("mean_queue_seconds", n, alpha) for n in ns], "o-", label=f"alpha={alpha:g}")
    axes[0].set(xlabel="concurrent jobs N", ylabel="QPU occupancy", ylim=(0, 1.05), xticks=ns)
    axes[1].set(
        xlabel="concurrent jobs N",
        ylabel="total time (s), dashed: co-scheduling N x T1",
        yscale="log",
        xticks=ns,
    )
    axes[2].set(xlabel="concurrent jobs N", ylabel="mean queue time (s)", xticks=ns)
    alpha = max(alphas)
    data = [[r for p in points if p["n"] == n and p["alpha"] == alpha for r in p["runtimes"]] for n in ns]
    axes[3].violinplot(data, positions=range(len(ns)), showmedians=True)
    axes[3].set(
        xticks=range(len(ns)),
        xticklabels=ns,
        xlabel="concurrent jobs N",
        ylabel=f"job runtime (s), alpha={alpha:g}",
    )
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(out / "vqpu_multiplexing.png", dpi=120)
    plt.close(fig)


def paper_experiment(args: argparse.Namespace, out: Path) -> int:
    """The paper's experiment with BBQ-MIS jobs under Slurm: table, CSV, figures, one JSON line."""
    from vqpu_paper import experiment, figures, table, write_csv

    from backends.utils.progress import ProgressLine

    try:
        with ProgressLine(sys.stderr, label="vqpu paper") as progress:
            points = experiment(args, out, progress)
    except RuntimeError as exc:  # Slurm, the server or a job failed: one line, not a traceback
        print(f"vqpu_multiplexing.py: error: {exc}", file=sys.stderr)
        return 1
    write_csv(points, out / "vqpu_paper.csv")
    paths = figures(points, Path(args.figures or out))
    print("\n".join(table(points)))

    def mean(metric: str, n: int, alpha: float) -> float:
        return statistics.fmean(p[metric] for p in points if p["n"] == n and p["alpha"] == alpha)

    ns = sorted(args.n)
    print(
        json.dumps(
            {
                "points": len(points),
                "repeats": args.repeats,
                "occupancy": {f"{a:g}": [mean("occupancy", n, a) for n in ns] for a in args.alpha},
                "ratio_at_max_n": {f"{a:g}": mean("ratio", ns[-1], a) for a in args.alpha},
                "queue_per_job": {
                    f"{a:g}": [mean("mean_cumulative_queue_seconds", n, a) for n in ns] for a in args.alpha
                },
                "n": ns,
                "csv": str(out / "vqpu_paper.csv"),
                "figures": [str(p) for p in paths],
            }
        )
    )
    return 0


#: argparse types of the options: a count >= 1, a number >= 0, seconds > 0.
COUNT, NONNEGATIVE, SECONDS = integer(1, 2**31), real(0, 1e9), real(1e-3, 1e9)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=COUNT, nargs="+", help="concurrent jobs (default 1 2 4 8)")
    parser.add_argument("--alpha", type=NONNEGATIVE, nargs="+", help="sleep factors (default 0 1 2 4)")
    parser.add_argument("--repeats", type=COUNT, help="repeats (default 10; synthetic 1)")
    parser.add_argument(
        "--short", action="store_true", help="N 1 2, alpha 0 2, one repeat, latency 0.1 (for CI)"
    )
    parser.add_argument("--gres", action="store_true", help="each job holds one GRES instead of a licence")
    parser.add_argument(
        "--graph", default=str(GRAPH), help="graph of the colouring jobs (default %(default)s)"
    )
    parser.add_argument("--figures", help="directory of the figures (default: --out)")
    parser.add_argument("--job-timeout", type=SECONDS, default=900, help="seconds one point may take")
    parser.add_argument("--synthetic", action="store_true", help="the synthetic grid instead of BBQ-MIS jobs")
    parser.add_argument("--circuits", type=COUNT, default=8, help="K circuits per job")
    parser.add_argument("--qubits", type=COUNT, default=4)
    parser.add_argument("--shots", type=COUNT, help="shots per circuit (default 256; synthetic 100)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--latency",
        type=NONNEGATIVE,
        help="emulated device seconds per circuit (default 0.2; --short 0.1; synthetic 0.05)",
    )
    parser.add_argument("--backend", help="physical backend of the server (default null; synthetic aer)")
    parser.add_argument("--full", action="store_true", help="synthetic: R=3 repeats and K=20 circuits")
    parser.add_argument("--slurm", action="store_true", help="submit jobs to Slurm (needs SLURM_CONF)")
    parser.add_argument("--workload", help='command run per job, e.g. "python -m bbqmis graph.col"')
    parser.add_argument("--out", default="results/vqpu_multiplexing")
    parser.add_argument("--soak", action="store_true", help="robustness run instead of the grid")
    parser.add_argument("--policy", action="store_true", help="compare the scheduling policies")
    parser.add_argument(
        "--heavy", type=COUNT, default=40, help="batches the heavy job queues at once (--policy)"
    )
    parser.add_argument("--light", type=COUNT, default=3, help="light jobs (--policy)")
    parser.add_argument("--light-batches", type=COUNT, default=10, help="batches per light job (--policy)")
    parser.add_argument("--scale", action="store_true", help="server overhead and throughput, null backend")
    parser.add_argument("--clients", type=COUNT, default=16, help="client processes of --soak and --scale")
    parser.add_argument(
        "--pin",
        action="store_true",
        help="--scale: the server on CPU 0, the clients on the others, as on a dedicated service node",
    )
    parser.add_argument(
        "--think",
        type=NONNEGATIVE,
        nargs="+",
        default=[0.0],
        metavar="SECONDS",
        help="--scale: mean think time of a client between two batches (exponential; one run per value)",
    )
    parser.add_argument(
        "--tls",
        action="store_true",
        help="--scale: serve HTTPS with a throw-away CA (clients at https://localhost:PORT, VQPU_CA)",
    )
    parser.add_argument(
        "--compare-tls",
        action="store_true",
        help="--scale: plain HTTP and TLS one after the other per think time, side by side",
    )
    parser.add_argument(
        "--batches",
        type=COUNT,
        default=1000,
        help="batches in all (--soak), per client (--scale)",
    )
    # worker modes (internal)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--soak-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--barrier", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--job", help=argparse.SUPPRESS)
    parser.add_argument("--sleep-factor", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if (args.tls or args.compare_tls) and not args.scale:
        parser.error("--tls and --compare-tls go with --scale")
    if args.worker:
        worker(args)
        return 0
    if args.soak_worker:
        soak_worker(args)
        return 0
    if args.full:
        args.repeats, args.circuits = 3, 20
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paper = not (args.synthetic or args.soak or args.policy or args.scale)
    if args.repeats is None:
        args.repeats = 10 if paper and not args.short else 1
    args.shots = args.shots or (256 if paper else 100)
    if args.latency is None:
        args.latency = (0.1 if args.short else 0.2) if paper else 0.05
    args.backend = args.backend or ("null" if paper else "aer")
    args.n = args.n or ([1, 2] if args.short else [1, 2, 4, 8])
    args.alpha = args.alpha if args.alpha is not None else ([0, 2] if args.short else [0, 1, 2, 4])
    if paper:
        return paper_experiment(args, out)
    if args.soak:
        result = soak(args.clients, args.batches, out / "soak", default_server_command(args.backend))
        print(json.dumps(result))
        return 0
    if args.policy:
        print_policies(policy_comparison(args, out))
        return 0
    if args.scale:
        return scale_experiment(args, out)

    db = out / "vqpu.sqlite"
    db.unlink(missing_ok=True)
    server = Server(default_server_command(args.backend), db, "--latency", str(args.latency))
    with server.running():
        from backends.vqpu.api import VQPUSession
        from backends.vqpu.wire import encode_circuits

        with VQPUSession(server.url, job="warmup") as session:  # the first execution pays Aer's start-up
            session.execute(encode_circuits([qaoa_like(args.qubits, 0.1, 0.2)]), args.shots)
        over = overhead(server)
        points = [
            measure_point(server, n, alpha, r, args)
            for r in range(args.repeats)
            for alpha in args.alpha
            for n in sorted(args.n)
        ]
    t1 = {(p["alpha"], p["repeat"]): statistics.fmean(p["runtimes"]) for p in points if p["n"] == 1}
    for p in points:
        p["baseline_seconds"] = p["n"] * t1.get((p["alpha"], p["repeat"]), float("nan"))
        p["ratio"] = p["total_seconds"] / p["baseline_seconds"]

    with open(out / "vqpu_multiplexing.csv", "w", newline="") as file:
        fields = [
            "n",
            "alpha",
            "repeat",
            "total_seconds",
            "baseline_seconds",
            "ratio",
            "occupancy",
            "quantum_seconds",
            "mean_queue_seconds",
            "batches",
            "runtimes",
        ]
        writer = csv.DictWriter(file, fields)
        writer.writeheader()
        for p in points:
            writer.writerow({**p, "runtimes": " ".join(f"{r:.4f}" for r in p["runtimes"])})
    figures(points, out)

    print(
        f"{'N':>3} {'alpha':>5} {'total s':>8} {'N x T1 s':>9} {'ratio':>6} {'occupancy':>9} "
        f"{'quantum s':>9} {'queue s':>8} {'job s (mean)':>12}"
    )
    for p in points:
        print(
            f"{p['n']:>3} {p['alpha']:>5g} {p['total_seconds']:>8.2f} {p['baseline_seconds']:>9.2f} "
            f"{p['ratio']:>6.2f} {p['occupancy']:>9.3f} {p['quantum_seconds']:>9.2f} "
            f"{p['mean_queue_seconds']:>8.3f} {statistics.fmean(p['runtimes']):>12.2f}"
        )
    print(f"server overhead (8 clients): median {over['median_ms']:.2f} ms, p90 {over['p90_ms']:.2f} ms")
    a2n4 = [p["ratio"] for p in points if p["alpha"] == 2 and p["n"] == 4]
    occupancy_by_n = {
        n: statistics.fmean(p["occupancy"] for p in points if p["n"] == n) for n in sorted(args.n)
    }
    print(
        json.dumps(
            {
                "overhead_median_ms": over["median_ms"],
                "overhead_p90_ms": over["p90_ms"],
                "ratio_alpha2_n4": statistics.fmean(a2n4) if a2n4 else None,
                "occupancy_by_n": occupancy_by_n,
                "occupancy_rises_with_n": all(
                    a <= b + 0.02 for a, b in itertools.pairwise(occupancy_by_n.values())
                ),
                "csv": str(out / "vqpu_multiplexing.csv"),
                "figure": str(out / "vqpu_multiplexing.png"),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
