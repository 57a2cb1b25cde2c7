import argparse
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bbqmis import read_graph
from bbqmis.coloring import cli
from bbqmis.coloring.cli import main
from bbqmis.coloring.result import ColoringResult

MYCIEL3 = "data/graphs/myciel3.col"
MYCIEL4 = "data/graphs/myciel4.col"


def run_module(*args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "bbqmis", *args], capture_output=True, text=True, timeout=300, **kwargs
    )


def test_default_qaoa_run_proves_myciel3(tmp_path, capsys, backwards):
    out, graph = tmp_path / "result.json", backwards("myciel3")  # numbered so that the root bounds stay at 3
    assert main([graph, "--exact-share", "0", "--seed", "1", "--json", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "optimal      yes" in printed and "qaoa on aer" in printed
    data = json.loads(out.read_text())
    assert set(data) == {"coloring", "num_colors", "lower_bound", "optimal", "stopped", "stats"}
    assert data["num_colors"] == 4 and data["optimal"] is True
    assert data["stats"]["sampler"]["circuits"] >= 1
    assert sorted(map(int, data["coloring"])) == list(range(1, 12))
    edges = [tuple(map(int, line.split()[1:])) for line in open(graph) if line.startswith("e ")]
    assert all(data["coloring"][str(u)] != data["coloring"][str(v)] for u, v in edges)


def test_progress_line_is_printed(capsys, backwards):
    assert main([backwards("myciel4"), "--sampler", "exact", "--exact-share", "0"]) == 0
    err = capsys.readouterr().err
    assert "nodes" in err and "colours" in err and "bound" in err


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_long_run_in_a_pipe_shows_progress_every_two_seconds_from_its_first():
    command = [sys.executable, "-m", "bbqmis", "data/graphs/DSJC125.5.col", "--sampler", "exact"]
    run = subprocess.run([*command, "--time-limit", "6"], capture_output=True, text=True, timeout=50)
    assert run.returncode == 0, run.stderr
    stamps = [float(line.rsplit("| ", 1)[1].removesuffix(" s")) for line in run.stderr.splitlines()]
    assert stamps[0] <= 1.0 and stamps[-1] >= 5.5
    assert max(later - earlier for earlier, later in itertools.pairwise(stamps)) <= 2.0


def test_quiet_silences_progress(capsys):
    assert main([MYCIEL3, "--sampler", "exact", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([MYCIEL3, "--backend", "nowhere"], "bbqmis: error: unknown backend spec 'nowhere'"),
        ([MYCIEL3, "--resume"], "bbqmis: error: --resume needs --checkpoint FILE"),
        (
            [MYCIEL3, "--shots", "0"],
            "bbqmis: error: argument --shots: must be an integer in [1, 1000000], got '0'",
        ),
        ([MYCIEL3, "--bogus"], "bbqmis: error: unrecognized arguments: --bogus"),
        ([], "bbqmis: error: the following arguments are required: graph"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(message) and "\n" not in err


def test_a_missing_graph_file_is_one_line_naming_it(capsys):
    assert main(["missing.col"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bbqmis: error: ") and "missing.col" in err and err.count("\n") == 1


def test_graph_format_error_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.col"
    bad.write_text("p edge 3 1\ne 1 4\n")
    assert main([str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"bbqmis: error: {bad}:2:")


def test_format_overrides_the_extension(tmp_path, capsys):
    edges = tmp_path / "triangle.dat"
    edges.write_text("1,2\n2,3\n3,1\n")
    assert main([str(edges), "--sampler", "exact", "--quiet"]) == 2
    assert "--format" in capsys.readouterr().err
    out = tmp_path / "out.json"
    args = [str(edges), "--format", "edgelist", "--sampler", "exact", "--quiet", "--json", str(out)]
    assert main(args) == 0
    result = json.loads(out.read_text())
    assert result["num_colors"] == 3 and result["optimal"]


def test_empty_and_isolated_graphs_need_their_flags(tmp_path, capsys):
    empty = tmp_path / "empty.col"
    empty.write_text("p edge 0 0\n")
    assert main([str(empty), "--quiet"]) == 2
    assert main([str(empty), "--quiet", "--allow-empty"]) == 0
    sparse = tmp_path / "sparse.col"
    sparse.write_text("p edge 5000 1\ne 1 2\n")
    assert main([str(sparse), "--quiet"]) == 2
    assert "--allow-isolated" in capsys.readouterr().err
    out = tmp_path / "out.json"
    assert main([str(sparse), "--quiet", "--allow-isolated", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["num_colors"] == 2 and len(result["coloring"]) == 5000


def test_version_and_the_name_the_user_ran(monkeypatch, capsys):
    import importlib.metadata

    version = importlib.metadata.version("bbqmis")
    for argv0, prog in (("/usr/local/bin/bbqmis", "bbqmis"), ("/x/bbqmis/__main__.py", "python -m bbqmis")):
        monkeypatch.setattr(sys, "argv", [argv0])
        assert main(["--version"]) == 0
        assert capsys.readouterr().out == f"{prog} {version}\n"


def test_help_has_examples():
    result = run_module("--help")
    assert result.returncode == 0 and "examples:" in result.stdout and "mpiexec -n 3" in result.stdout


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.requires("mpiexec")
def test_mpi_run_matches_the_serial_run(tmp_path):
    serial, parallel = tmp_path / "serial.json", tmp_path / "mpi.json"
    assert run_module(MYCIEL4, "--sampler", "exact", "--json", str(serial), "--quiet").returncode == 0
    result = subprocess.run(
        [
            "mpiexec",
            "-n",
            "3",
            sys.executable,
            "-m",
            "bbqmis",
            MYCIEL4,
            "--sampler",
            "exact",
            "--json",
            str(parallel),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    a, b = json.loads(serial.read_text()), json.loads(parallel.read_text())
    assert a["num_colors"] == b["num_colors"] == 5 and b["optimal"]


@pytest.mark.timeout(120)
def test_an_mpi_library_that_does_not_load_is_one_line_and_exit_2(tmp_path):
    broken = tmp_path / "mpi4py"
    broken.mkdir()
    (broken / "__init__.py").write_text('raise ImportError("libmpi.so.12: cannot open shared object file")\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    result = run_module(MYCIEL4, "--executor", "mpi", "--quiet", env=env)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "bbqmis: error: --executor mpi: MPI is not available here "
        "(libmpi.so.12: cannot open shared object file)"
    ]


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.requires("mpiexec")
@pytest.mark.timeout(300)
def test_mpi_run_with_a_bad_graph_says_so_once_and_exits_2(tmp_path):
    bad = tmp_path / "bad.col"
    bad.write_text("p edge 3 1\ne 1 4\n")
    command = ["mpiexec", "-n", "3", sys.executable, "-m", "bbqmis", str(bad), "--quiet"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert result.returncode == 2
    # rank 0 alone read the graph and reports it; the worker ranks stop with it, silently
    line = f"bbqmis: error: {bad}:2: expected a vertex between 1 and n=3, found 4"
    assert result.stderr.splitlines() == [line]


@pytest.mark.slow
def test_killed_run_resumes_without_losing_the_incumbent(tmp_path, backwards):
    checkpoint, out = tmp_path / "run.ckpt", tmp_path / "result.json"
    # Sleeping 20 x the quantum time after each circuit makes the tree slow enough to kill (about
    # 0.4 s a node); without LP pricing (whose circuits would sleep a quarter of a minute at the
    # root), the tree starts at once.
    args = [
        backwards("myciel4"),
        "--exact-share",
        "0",
        "--lp-share",
        "0",
        "--seed",
        "2",
        "--sleep-factor",
        "20",
        "--checkpoint",
        str(checkpoint),
        "--checkpoint-interval",
        "0.2",
        "--quiet",
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "bbqmis", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 240
    state = None
    while time.monotonic() < deadline:
        if checkpoint.exists():
            search = json.loads(checkpoint.read_text())["search"]
            state = search and search["tree"]
            if state and state["stats"].get("nodes_explored", 0) >= 3:
                break
        assert process.poll() is None, "the run finished before it could be killed; slow it down"
        time.sleep(0.1)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert state is not None and state["open"], "no checkpoint with open nodes was written"
    # The sleep only slowed the first run down (it is no setting a checkpoint checks): none now.
    resumed = run_module(*args, "--sleep-factor", "0", "--resume", "--json", str(out))
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(out.read_text())
    assert data["num_colors"] == 5 and data["optimal"]
    assert data["stats"]["nodes_explored"] > state["stats"]["nodes_explored"]
    assert data["stats"]["incumbents"][: len(state["incumbents"])] == state["incumbents"]


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["aer:noisy-adonis", "iqm-fake:adonis"])
def test_noisy_and_fake_device_backends_run_unchanged(backend, tmp_path, capsys, backwards):
    out = tmp_path / "result.json"
    assert (
        main(
            [
                backwards("myciel3"),  # the root bounds stay below chi: the device samples
                "--exact-share",
                "0",
                "--backend",
                backend,
                "--shots",
                "256",
                "--seed",
                "3",
                "--json",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    assert f"qaoa on {backend}" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["num_colors"] == 4 and data["optimal"] is True
    assert data["stats"]["sampler"]["circuits"] >= 1 and data["stats"]["sampler"]["quantum_seconds"] > 0


def test_an_unwritable_output_is_refused_before_any_search(tmp_path, capsys):
    out = tmp_path / "missing" / "out.json"
    assert main([MYCIEL3, "--json", str(out)]) == 2
    assert capsys.readouterr().err == f"bbqmis: error: --json {out}: folder {out.parent} does not exist\n"


def test_a_closed_stdout_pipe_keeps_the_json_result(tmp_path):
    out = tmp_path / "result.json"
    command = f"{sys.executable} -m bbqmis {MYCIEL3} --quiet --json {out} | head -1"
    completed = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    assert "Traceback" not in completed.stderr
    assert json.loads(out.read_text())["optimal"] is True


# -- numeric options: every bad value is one line naming the option, status 2 ----------------------
INTEGER_OPTIONS = {
    "--shots": (1, 1_000_000),
    "--max-qubits": (1, 1000),
    "--node-limit": (1, 10**12),
    "--seed": (0, 2**63 - 1),
    "--workers": (1, 256),
    "--training-evaluations": (1, 10_000),
    "--training-shots": (1, 1_000_000),
}
REAL_OPTIONS = {
    "--sleep-factor": (0, 1000),
    "--time-limit": (0, 10_000_000),
    "--memory-limit": (0, 100_000),
    "--exact-share": (0, 1),
    "--lp-share": (0, 1),
    "--checkpoint-interval": (0, 10_000_000),
}


def test_every_numeric_option_is_checked():
    numeric = {
        action.option_strings[0]
        for action in cli.build_parser()._actions
        if action.type not in (None, Path) and action.option_strings
    }
    assert numeric == set(INTEGER_OPTIONS) | set(REAL_OPTIONS)


@pytest.mark.parametrize("option", sorted(INTEGER_OPTIONS))
@pytest.mark.parametrize("value", ["1.5", "1e12", "-1", "nan", "inf", "99999999999999999999999", "ten", ""])
def test_a_bad_integer_option_is_one_line_naming_it(option, value, capsys):
    low, high = INTEGER_OPTIONS[option]
    assert main([MYCIEL3, f"{option}={value}"]) == 2
    err = capsys.readouterr().err
    assert err == f"bbqmis: error: argument {option}: must be an integer in [{low}, {high}], got {value!r}\n"


@pytest.mark.parametrize("option", sorted(REAL_OPTIONS))
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "1e308", "0x10", "ten", ""])
def test_a_bad_real_option_is_one_line_naming_it(option, value, capsys):
    low, high = REAL_OPTIONS[option]
    assert main([MYCIEL3, f"{option}={value}"]) == 2
    err = capsys.readouterr().err
    assert err == f"bbqmis: error: argument {option}: must be a number in [{low}, {high}], got {value!r}\n"


def test_the_largest_values_are_accepted():
    parser = cli.build_parser()
    args = parser.parse_args(
        [MYCIEL3, "--shots", "1000000", "--seed", str(2**63 - 1), "--exact-share", "1", "--time-limit", "0"]
    )
    assert (args.shots, args.seed, args.exact_share, args.time_limit) == (1_000_000, 2**63 - 1, 1.0, 0.0)


# -- checkpoints through the command line -----------------------------------------------------------
def run_with_checkpoint(checkpoint, *extra):
    args = [MYCIEL4, "--sampler", "exact", "--exact-share", "0", "--checkpoint", str(checkpoint), "--quiet"]
    return main([*args, *extra])


def test_a_heuristic_checkpoint_is_not_resumed_as_an_exact_run(tmp_path, capsys):
    checkpoint = tmp_path / "run.ckpt"
    assert run_with_checkpoint(checkpoint, "--heuristic", "--node-limit", "2") == 0
    capsys.readouterr()
    assert run_with_checkpoint(checkpoint, "--resume") == 2
    assert capsys.readouterr().err == (
        f"bbqmis: error: {checkpoint}: checkpoint was written with exhaustive=False, this run has "
        "exhaustive=True; resume with the same settings or remove it\n"
    )


def test_a_truncated_checkpoint_is_refused_in_one_line(tmp_path, capsys):
    checkpoint = tmp_path / "run.ckpt"
    assert run_with_checkpoint(checkpoint, "--node-limit", "2") == 0
    checkpoint.write_bytes(checkpoint.read_bytes()[:-100])
    capsys.readouterr()
    assert run_with_checkpoint(checkpoint, "--resume") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bbqmis: error: {checkpoint}: cannot read checkpoint: ") and err.count("\n") == 1


# -- internal failures: status 1, the traceback, one summary line, nothing lost ---------------------
def boom(*args, **kwargs):
    raise RuntimeError("boom")


def test_an_internal_failure_exits_1_and_keeps_the_checkpoint(tmp_path, capsys, monkeypatch, backwards):
    checkpoint, out = tmp_path / "run.ckpt", tmp_path / "result.json"
    graph = backwards("myciel4")  # a tree to run: the root bounds stay below chi

    def run_with_checkpoint(checkpoint, *extra):
        args = [graph, "--sampler", "exact", "--exact-share", "0", "--checkpoint", str(checkpoint), "--quiet"]
        return main([*args, *extra])

    assert run_with_checkpoint(checkpoint, "--node-limit", "2") == 0
    before = checkpoint.read_bytes()
    capsys.readouterr()
    monkeypatch.setattr("bbqmis.coloring.phases.run_tree", boom)  # deep in the pipeline
    assert run_with_checkpoint(checkpoint, "--resume", "--json", str(out)) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and 'raise RuntimeError("boom")' in err
    assert err.splitlines()[-1] == (
        f"bbqmis: internal error: RuntimeError: boom; the last checkpoint {checkpoint} is kept (add --resume)"
    )
    assert checkpoint.read_bytes() == before and not out.exists()
    monkeypatch.undo()
    assert run_with_checkpoint(checkpoint, "--resume", "--json", str(out)) == 0
    assert json.loads(out.read_text())["optimal"] is True


def test_an_internal_failure_writes_the_result_it_carries(tmp_path, capsys, monkeypatch):
    out = tmp_path / "result.json"
    graph = read_graph(MYCIEL3)
    partial = ColoringResult(
        coloring={graph.nodes[v]["label"]: i for i, v in enumerate(graph)},
        num_colors=11,
        lower_bound=2,
        optimal=False,
        stopped="error",
        stats={
            "stop_reason": "error",
            "root_lower_bound": 2,
            "initial_colors": 11,
            "nodes_explored": 0,
            "nodes_pruned": 0,
            "duplicates": 0,
            "open_nodes": 0,
            "sampler": {},
            "seconds": 0.1,
        },
    )

    def fail_with_a_result(*args, **kwargs):
        error = RuntimeError("worker lost")
        error.partial = partial
        raise error

    monkeypatch.setattr(cli, "color_graph", fail_with_a_result)
    assert main([MYCIEL3, "--sampler", "greedy", "--quiet", "--json", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == (
        f"bbqmis: internal error: RuntimeError: worker lost; the best result so far was written to {out}"
    )
    assert json.loads(out.read_text())["stopped"] == "error"
    assert "colours      11" in captured.out


# -- SIGINT and SIGTERM ---------------------------------------------------------------------------
def descendants(pid):
    """Process ids of every descendant of ``pid`` (psutil if installed, else /proc by parent id)."""
    try:
        import psutil
    except ImportError:
        parents = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                parents.setdefault(int(fields[1]), []).append(int(entry.name))
        found, todo = [], [pid]
        while todo:
            children = parents.get(todo.pop(), [])
            found += children
            todo += children
        return found
    return [child.pid for child in psutil.Process(pid).children(recursive=True)]


def alive(pid):
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def pool_workers(pid):
    """Process ids of the pool workers that ``pid`` spawned (not its resource tracker)."""
    workers = []
    for child in descendants(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in command:
            workers.append(child)
    return workers


def wait_for_line(log, process, wanted, seconds):
    """The first line of file ``log`` that ``wanted`` accepts, within ``seconds``, while ``process`` runs."""
    deadline = time.monotonic() + seconds
    while True:
        ended = process.poll() is not None  # looked at before the read: its last lines count
        text = log.read_text()
        found = next((line for line in text.splitlines() if wanted(line)), None)
        if found is not None:
            return found
        assert not ended, f"the run ended (status {process.returncode}) first:\n{text}"
        assert time.monotonic() < deadline, f"no such line in {seconds} s:\n{text}"
        time.sleep(0.1)


def explored(line):
    """The nodes explored that a progress line of the tree search reports, or 0."""
    found = re.match(r"bbqmis search \|.* \| nodes (\d+) \|", line)
    return int(found[1]) if found else 0


def start_long_run(tmp_path, graph):
    """myciel6 on two workers: its tree runs for the whole minute; returns once the workers expand nodes.

    Returns the process, its arguments, checkpoint, JSON output and the file that takes its
    stderr (a file, not a pipe: the test reads it as it grows, with a deadline).
    """
    checkpoint, out, log = tmp_path / "run.ckpt", tmp_path / "result.json", tmp_path / "stderr.txt"
    args = [graph, "--sampler", "greedy", "--exact-share", "0", "--workers", "2", "--time-limit", "60"]
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "bbqmis", *args, "--checkpoint", str(checkpoint), "--json", str(out)],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    # A progress line every 1.5 s (stderr is not a terminal); the nodes count only what workers expanded.
    wait_for_line(log, process, lambda line: explored(line) >= 1, seconds=50)
    deadline = time.monotonic() + 30
    while len(pool_workers(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(pool_workers(process.pid)) == 2 and process.poll() is None, log.read_text()
    return process, args, checkpoint, out, log


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_run_with_its_result_checkpoint_and_workers(tmp_path, signum, backwards):
    process, args, checkpoint, out, log = start_long_run(tmp_path, backwards("myciel6"))
    workers = descendants(process.pid)
    assert len(workers) >= 2, workers
    sent = time.monotonic()
    process.send_signal(signum)
    stdout, _ = process.communicate(timeout=30)
    assert time.monotonic() - sent < 10
    stderr = log.read_text()
    assert process.returncode == 0, stderr
    assert f"bbqmis: {signum.name} received: stopping with the best colouring so far" in stderr
    assert "Traceback" not in stderr and "(interrupted)" in stdout
    data = json.loads(out.read_text())
    assert data["stopped"] == "interrupted" == data["stats"]["stop_reason"] and not data["optimal"]
    graph = read_graph(args[0])
    coloring = {v: data["coloring"][str(graph.nodes[v]["label"])] for v in graph}
    assert all(coloring[u] != coloring[v] for u, v in graph.edges)
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if alive(pid)], "a worker outlived the run"
    # The checkpoint resumes: two more seconds of the same search (the time limit counts the first run).
    more = ["--checkpoint", str(checkpoint), "--resume", "--json", str(out)]
    limit = str(round(data["stats"]["seconds"] + 2, 1))
    resumed = run_module(*args[:-1], limit, *more)
    assert resumed.returncode == 0, resumed.stderr
    again = json.loads(out.read_text())
    assert again["stopped"] == "time_limit" and again["stats"]["seconds"] > data["stats"]["seconds"]
    assert again["stats"]["incumbents"][: len(data["stats"]["incumbents"])] == data["stats"]["incumbents"]


@pytest.mark.slow
def test_a_second_signal_stops_at_once(tmp_path, backwards):
    process, _, checkpoint, out, log = start_long_run(tmp_path, backwards("myciel6"))
    workers = descendants(process.pid)
    process.send_signal(signal.SIGTERM)
    # Signals of one kind do not queue: wait for the first to be taken.
    wait_for_line(log, process, lambda line: "received" in line, seconds=30)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=30)
    stderr = log.read_text()
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert stderr.splitlines()[-1] == (
        "bbqmis: stopped at once by a second SIGTERM, without a result; "
        f"the last checkpoint {checkpoint} is kept"
    )
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if alive(pid)], "a worker outlived the run"


def test_plot_draws_the_colouring_and_the_search_into_a_png(tmp_path, capsys):
    from matplotlib.image import imread

    out = tmp_path / "run.png"
    assert main([MYCIEL4, "--sampler", "exact", "--quiet", "--plot", str(out)]) == 0
    image = imread(out)
    assert image.shape[0] > 300 and image.shape[1] > image.shape[0]  # two panels side by side
    assert [p.name for p in tmp_path.iterdir()] == ["run.png"]  # no temporary file left


def test_an_unwritable_plot_path_is_refused_before_the_search(tmp_path, capsys):
    assert main([MYCIEL4, "--plot", str(tmp_path / "missing" / "run.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bbqmis: error: --plot ") and err.count("\n") == 1


def test_help_shows_the_default_of_every_option_that_has_one():
    parser = cli.build_parser()
    for action in parser._actions:
        if action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
            assert "default" in (action.help or ""), action.option_strings
    assert "examples:" in parser.format_help()


# -- a backend that does not answer: the time limit counts from the start --------------------------
UNREACHABLE = "vqpu:http://127.0.0.1:1"  # nothing listens on port 1: every connection is refused


def catches(pid, signum):
    """Whether process ``pid`` has a handler installed for ``signum`` (SigCgt in /proc/PID/status)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(mask, 16) >> (signum - 1) & 1)


@pytest.mark.timeout(60)
def test_a_backend_that_does_not_answer_is_left_out_at_the_time_limit(tmp_path):
    out = tmp_path / "result.json"
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "bbqmis", MYCIEL3, "--backend", UNREACHABLE, "--time-limit", "2"]
        + ["--json", str(out)],
        capture_output=True,
        text=True,
        timeout=40,
    )
    elapsed = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    assert 2.0 <= elapsed < 20.0, elapsed  # it waited for the backend, but not beyond the limit
    assert "Traceback" not in run.stderr
    said = [line for line in run.stderr.splitlines() if "did not answer within the time limit" in line]
    assert len(said) == 1 and said[0].startswith(f"bbqmis: the backend {UNREACHABLE} "), run.stderr
    assert_coloured_without_the_backend(out, run.stdout, stopped="time_limit")


@pytest.mark.timeout(60)
def test_a_signal_while_waiting_for_the_backend_ends_with_the_greedy_colouring(tmp_path):
    out = tmp_path / "result.json"
    # A backend that takes the connection and never answers: its accept shows the run waiting for it.
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(40)
        silent = f"vqpu:http://127.0.0.1:{server.getsockname()[1]}"
        process = subprocess.Popen(
            [sys.executable, "-m", "bbqmis", MYCIEL3, "--backend", silent, "--json", str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            connection, _ = server.accept()
        except TimeoutError:
            process.kill()
            pytest.fail(f"the run never asked the backend:\n{process.communicate()[1]}")
        with connection:  # open and silent until the run ends
            # The handler comes before the backend: the signal is the run's to handle, not a plain kill.
            assert process.poll() is None and catches(process.pid, signal.SIGTERM)
            sent = time.monotonic()
            process.send_signal(signal.SIGTERM)
            stdout, stderr = process.communicate(timeout=30)
    assert time.monotonic() - sent < 10
    assert process.returncode == 0, stderr  # a first signal: the best result so far, as in the search
    lines = [line for line in stderr.splitlines() if line]
    handler = "bbqmis: SIGTERM received: stopping with the best colouring so far (again: stop at once)"
    assert lines[0] == handler, stderr
    assert f"bbqmis: the backend {silent} did not answer before SIGTERM; colouring without it" in lines
    assert_coloured_without_the_backend(out, stdout, stopped="interrupted")


def assert_coloured_without_the_backend(out, stdout, *, stopped):
    """The run wrote a proper colouring of myciel3 to ``out``, stopped for ``stopped``, sending no circuit."""
    data = json.loads(out.read_text())
    graph = read_graph(MYCIEL3)
    coloring = {v: data["coloring"][str(graph.nodes[v]["label"])] for v in graph}
    assert len(data["coloring"]) == graph.number_of_nodes()
    assert all(coloring[u] != coloring[v] for u, v in graph.edges)
    assert data["num_colors"] == len(set(coloring.values()))
    assert data["stopped"] == stopped and data["optimal"] is False
    assert data["stats"]["sampler"].get("circuits", 0) == 0  # nothing reached the backend
    assert f"colours      {data['num_colors']}" in stdout
