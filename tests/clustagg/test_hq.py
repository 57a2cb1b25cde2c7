"""The workflow's quantum step through a HyperQueue server (a LocalCluster with one worker)."""

import json
import signal
import subprocess
import sys
import time

import pytest
from hyperqueue import LocalCluster
from hyperqueue.cluster import WorkerConfig

from clustagg import run
from clustagg.data import make_reference_points
from clustagg.errors import InvalidParameterError
from clustagg.hq import HyperQueueStep, hq_server_dir

N = 600


@pytest.fixture(scope="module")
def hq_server(tmp_path_factory):
    """A HyperQueue server with one single-core worker; its server directory."""
    server_dir = tmp_path_factory.mktemp("hq")
    with LocalCluster(str(server_dir)) as cluster:
        cluster.start_worker(WorkerConfig(cores=1))
        yield server_dir


def workflow(tmp_path, env, *extra):
    """``python -m clustagg workflow`` on N reference points, 2 rounds, in ``tmp_path / "wf"``."""
    command = [sys.executable, "-m", "clustagg", "workflow", "--n-samples", str(N), "--max-iter", "2"]
    command += ["--threshold", "0.99", "--solver", "exact", "--seed", "4", "--cluster-processes", "1"]
    command += ["--workdir", str(tmp_path / "wf"), "--json", str(tmp_path / "out.json"), *extra]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_quantum_steps_run_as_hyperqueue_jobs_and_give_the_same_rounds(hq_server, tmp_path, monkeypatch):
    monkeypatch.setenv("CLUSTAGG_HQ_SERVER_DIR", str(hq_server))
    done = workflow(tmp_path, None)
    assert done.returncode == 0, done.stderr
    expected = run(make_reference_points(N), solver="exact", max_iter=2, threshold=0.99, seed=4)
    result = json.loads((tmp_path / "out.json").read_text())
    assert result["iterations"] == pytest.approx(expected.iterations, abs=1e-12)
    assert result["labels"] == list(expected.labels)
    assert result["quantum_step_on"] == "hyperqueue"
    # HyperQueue's worker wrote each quantum task's output files; no other step went there
    for i in range(len(expected.iterations)):
        folder = tmp_path / "wf" / f"round-{i:03d}"
        assert sorted(p.name for p in folder.glob("*.hq.*")) == ["selection.hq.err", "selection.hq.out"]


@pytest.mark.timeout(120)
def test_a_failing_task_reports_its_job_and_stderr(hq_server, tmp_path):
    step = HyperQueueStep(hq_server)
    fails = [sys.executable, "-c", "import sys; sys.exit('no clusters in the file')"]
    reason = step(fails, None, tmp_path / "quantum.json")
    assert reason is not None
    assert reason.startswith("HyperQueue job ") and reason.endswith("\nno clusters in the file")
    assert step([sys.executable, "-c", "pass"], None, tmp_path / "ok.json") is None


@pytest.mark.timeout(120)
def test_a_task_past_the_step_timeout_is_killed(hq_server, tmp_path):
    reason = HyperQueueStep(hq_server)(
        [sys.executable, "-c", "import time; time.sleep(60)"], 1, tmp_path / "q"
    )
    assert reason is not None and reason.startswith("HyperQueue job ")
    assert reason.endswith("timed out after 1 s")


def test_no_server_is_one_line_and_exit_status_2(tmp_path, monkeypatch):
    monkeypatch.setenv("CLUSTAGG_HQ_SERVER_DIR", str(tmp_path))
    with pytest.raises(InvalidParameterError, match="no HyperQueue server answers there"):
        HyperQueueStep(hq_server_dir())
    done = workflow(tmp_path, None)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith(f"python -m clustagg workflow: error: CLUSTAGG_HQ_SERVER_DIR={tmp_path}: ")
    assert "Stack backtrace" not in done.stderr


def test_a_missing_server_directory_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("CLUSTAGG_HQ_SERVER_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(InvalidParameterError, match=r"CLUSTAGG_HQ_SERVER_DIR=.*nowhere: no such directory"):
        hq_server_dir()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (["/no/such/hq-dir"], "error: server_dir /no/such/hq-dir: no such directory"),
        (["{tmp}", "--cores", "0"], "error: --cores must be >= 1, got 0"),
    ],
)
def test_hq_server_refuses_bad_input_in_one_line(tmp_path, arguments, error):
    arguments = [a.format(tmp=tmp_path) for a in arguments]
    done = subprocess.run(
        [sys.executable, "-m", "clustagg.hq_server", *arguments], capture_output=True, text=True, timeout=50
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == f"python -m clustagg.hq_server: {error}"


@pytest.mark.timeout(120)
def test_hq_server_runs_tasks_until_sigterm_and_removes_its_ready_file(tmp_path):
    server, ready = tmp_path / "hq", tmp_path / "ready"
    server.mkdir()
    ready.write_text("stale\n")  # from an earlier server: removed at the start
    process = subprocess.Popen(
        [sys.executable, "-m", "clustagg.hq_server", str(server), "--ready", str(ready)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (ready.exists() and ready.read_text().strip().isdigit()):
            assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        assert int(ready.read_text()) == process.pid
        step = HyperQueueStep(server)
        assert step([sys.executable, "-c", "print(6 * 7)"], None, tmp_path / "task.json") is None
        assert (tmp_path / "task.hq.out").read_text() == "42\n"
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert not ready.exists()
