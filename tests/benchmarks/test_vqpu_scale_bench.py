"""Smoke test of ``vqpu_multiplexing.py --scale``: the vQPU server beside the do-nothing floor server.

Also over TLS beside plain HTTP (``--compare-tls``).
"""

import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "vqpu_multiplexing.py"


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("pin", [False, True])
def test_scale_measures_the_server_beside_the_floor(tmp_path, pin):
    command = [sys.executable, str(SCRIPT), "--scale", "--clients", "2", "--batches", "10"]
    command += ["--out", str(tmp_path), *["--pin"] * pin]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary["pinned"] is pin and len(summary["points"]) == 1
    assert lines[0] == "2 client processes x 10 batches"
    assert any(line.startswith("| 0 | vQPU, null backend |") for line in lines)
    assert any(line.startswith("| 0 | do-nothing HTTP (floor) |") for line in lines)
    (point,) = summary["points"]
    for row in (point, point["floor"]):
        assert row["clients"] == 2 and row["batches_total"] == 20 and row["batches_per_second"] > 0
        # the window closes when the first client is done: it has all 10 of its batches, or more
        assert 10 <= row["batches"] <= 20 and 0 < row["window_seconds"]
        assert row["think_seconds"] == 0 and 0 <= row["server_cpu_share"] <= os.cpu_count()  # cores used
        # the server's own time is part of the round trip the clients see
        assert 0 <= row["server_median_ms"] <= row["median_ms"]
    # the vQPU server checks, stores and runs every batch (its CPU is counted in 10 ms ticks)
    assert point["server_median_ms"] > 0 and point["server_cpu_share"] > 0


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_clients_that_think_send_fewer_batches_per_second(tmp_path):
    command = [sys.executable, str(SCRIPT), "--scale", "--clients", "2", "--batches", "8"]
    command += ["--think", "0", "0.1", "--out", str(tmp_path)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert result.returncode == 0, result.stderr[-3000:]
    busy, thinking = json.loads(result.stdout.strip().splitlines()[-1])["points"]
    assert (busy["think_seconds"], thinking["think_seconds"]) == (0, 0.1)
    # the clients' seeded pauses (7 each, mean 0.1 s) add up to 0.69 and 0.61 s, so the
    # window (until the first client is done) lasts 0.61 s or more, for at most 16 batches
    assert thinking["batches_total"] == 16 and thinking["window_seconds"] >= 0.61
    assert thinking["batches_per_second"] < 16 / 0.61 < busy["batches_per_second"]
    assert any(line.startswith("| 100 | vQPU, null backend |") for line in result.stdout.splitlines())


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_compare_tls_measures_plain_http_and_tls_side_by_side(tmp_path):
    command = [sys.executable, str(SCRIPT), "--scale", "--clients", "2", "--batches", "6"]
    command += ["--compare-tls", "--out", str(tmp_path)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    assert lines[0] == "2 client processes x 6 batches, plain HTTP and TLS"
    assert summary["pinned"] is False and set(summary) == {"pinned", "plain", "tls", "comparison"}
    (plain,), (tls,) = summary["plain"]["points"], summary["tls"]["points"]
    rows = {}  # (server, transport) -> the table's cells after them
    for line in lines:
        if line.startswith("| 0 |"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows[cells[1], cells[2]] = cells[3:]
    assert len(rows) == 4
    for transport, point in (("plain", plain), ("TLS", tls)):
        for server, row in (("vQPU, null backend", point), ("do-nothing HTTP (floor)", point["floor"])):
            # every batch of both clients was answered done (a client stops at any other status)
            assert row["clients"] == 2 and row["batches_total"] == 12 and 6 <= row["batches"] <= 12
            assert rows[server, transport] == [
                f"{row['server_median_ms']:.2f} / {row['server_p90_ms']:.2f}",
                f"{row['median_ms']:.2f}",
                f"{row['batches_per_second']:.0f}",
                f"{row['server_cpu_ms_per_batch']:.2f}",
            ]
        assert point["connection"]["repeats"] == 20 and point["connection"]["fresh_ms"] > 0
    (comparison,) = summary["comparison"]
    assert comparison["think_seconds"] == 0
    assert comparison["server_median_ratio"] == pytest.approx(
        tls["server_median_ms"] / plain["server_median_ms"]
    )
    assert comparison["median_difference_ms"] == pytest.approx(tls["median_ms"] - plain["median_ms"])
    difference = f"inside the server {comparison['server_median_difference_ms']:+.2f} ms"
    assert any(line.startswith(f"TLS - plain at think 0 ms: {difference}") for line in lines)


@pytest.mark.timeout(60)
def test_tls_without_scale_is_refused():
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--compare-tls"], capture_output=True, text=True, timeout=50
    )
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].endswith("error: --tls and --compare-tls go with --scale")


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("argument", "message"),
    [
        (["--clients", "0"], "argument --clients: must be an integer in [1, 2147483648], got '0'"),
        (["--latency", "-1"], "argument --latency"),
        (["--think", "-0.1"], "argument --think"),
        (["--think", "nan"], "argument --think"),
        (["--batches", "1"], "--scale needs --batches 2 or more (a median and a p90 per run)"),
    ],
)
def test_a_bad_argument_is_one_line_and_exit_2(argument, message):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--scale", *argument], capture_output=True, text=True, timeout=50
    )
    assert result.returncode == 2 and message in result.stderr.splitlines()[-1]
    assert "Traceback" not in result.stderr


BURN = (
    "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5: pass\n"
    "print('burnt', flush=True)\ntime.sleep(60)"
)


@pytest.mark.timeout(60)
def test_cpu_seconds_counts_a_child_started_by_a_thread():
    spec = importlib.util.spec_from_file_location("vqpu_multiplexing", SCRIPT)
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    children, done = [], threading.Event()

    def start_and_stay():  # a child stays listed under its thread while the thread lives
        children.append(subprocess.Popen([sys.executable, "-c", BURN], stdout=subprocess.PIPE, text=True))
        done.wait(50)

    thread = threading.Thread(target=start_and_stay)
    before, own = benchmark.cpu_seconds(os.getpid()), time.process_time()
    thread.start()
    try:
        while not children:
            time.sleep(0.01)
        assert children[0].stdout.readline() == "burnt\n"  # 0.5 CPU seconds used, now it sleeps
        used = benchmark.cpu_seconds(os.getpid()) - before - (time.process_time() - own)
    finally:
        done.set()
        thread.join()
        children[0].kill()
        children[0].communicate()
    assert used >= 0.4  # the child's CPU, listed under the thread that started it
