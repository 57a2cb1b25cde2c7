import concurrent.futures
import contextlib
import math
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from bbqmis import InvalidParameterError
from bbqmis.coloring.limits import STOP
from bbqmis.coloring.tree.executors import KINDS, SerialExecutor, executor_workers, make_executor, under_mpi

MPI_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS")


@pytest.fixture
def no_mpi(monkeypatch):
    for variable in MPI_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def fail(message):
    raise RuntimeError(message)


# -- SerialExecutor -------------------------------------------------------------------
def test_serial_executor_returns_completed_futures():
    executor = SerialExecutor()
    calls = []
    future = executor.submit(lambda a, b=0: calls.append((a, b)) or a + b, 2, b=3)
    assert calls == [(2, 3)]  # ran at submission
    assert future.done()
    assert future.result(timeout=0) == 5
    assert future.exception(timeout=0) is None


def test_serial_executor_passes_exceptions_through_the_future():
    future = SerialExecutor().submit(fail, "boom")
    assert future.done()
    assert isinstance(future.exception(timeout=0), RuntimeError)
    with pytest.raises(RuntimeError, match="^boom$"):
        future.result(timeout=0)


def test_serial_executor_map_and_context_manager():
    with SerialExecutor() as executor:
        assert isinstance(executor, Executor)
        assert list(executor.map(math.comb, [5, 6, 7], [2, 3, 0])) == [10, 20, 1]


# -- executor_workers -----------------------------------------------------------------
def test_executor_workers_of_a_serial_executor():
    assert executor_workers(SerialExecutor()) == 1


def test_executor_workers_of_process_and_thread_pools():
    pool = ProcessPoolExecutor(max_workers=2)  # no worker starts before the first submit
    try:
        assert executor_workers(pool) == 2
    finally:
        pool.shutdown()
    with ThreadPoolExecutor(max_workers=3) as threads:
        assert executor_workers(threads) == 3


def test_executor_workers_reads_num_workers():
    class Pool(SerialExecutor):
        num_workers = 5

    assert executor_workers(Pool()) == 5


def test_executor_workers_is_one_when_unknown():
    class Pool(SerialExecutor):
        num_workers = 0
        _max_workers = None

    assert executor_workers(Pool()) == 1


# -- make_executor --------------------------------------------------------------------
def test_kinds():
    assert KINDS == ("auto", "serial", "process", "mpi")


def test_make_executor_serial():
    with make_executor("serial") as executor:
        assert isinstance(executor, SerialExecutor)
        assert executor.submit(math.comb, 6, 3).result() == 20


def test_make_executor_process_runs_tasks_in_two_workers():
    with make_executor("process", workers=2) as executor:
        assert isinstance(executor, ProcessPoolExecutor)
        assert executor_workers(executor) == 2
        assert list(executor.map(math.comb, [4, 10, 8], [2, 5, 8])) == [6, 252, 1]
        future = executor.submit(math.factorial, -1)
        with pytest.raises(ValueError):
            future.result(timeout=60)


def test_make_executor_auto_without_mpi(no_mpi):
    with make_executor() as executor:
        assert isinstance(executor, SerialExecutor)
    with make_executor("auto", workers=1) as executor:
        assert isinstance(executor, SerialExecutor)
    with make_executor("auto", workers=2) as executor:  # the pool starts no process until a submit
        assert isinstance(executor, ProcessPoolExecutor)
        assert executor_workers(executor) == 2


def test_make_executor_rejects_an_unknown_kind():
    with pytest.raises(InvalidParameterError) as excinfo:
        with make_executor("threads"):
            pass
    # The message names the parameter, `kind`.
    assert str(excinfo.value) == "kind must be one of 'auto', 'serial', 'process', 'mpi'; got 'threads'"
    assert isinstance(excinfo.value, ValueError)


@pytest.mark.parametrize("workers", [0, -2, 1.5, True, "2"])
def test_make_executor_rejects_bad_workers(workers):
    with pytest.raises(InvalidParameterError) as excinfo:
        with make_executor("serial", workers=workers):
            pass
    assert str(excinfo.value) == f"workers must be a positive integer, got {workers!r}"


# -- under_mpi ------------------------------------------------------------------------
def test_under_mpi_false_without_launcher_variables(no_mpi):
    assert under_mpi() is False


@pytest.mark.parametrize("variable", MPI_VARIABLES)
def test_under_mpi_true_with_several_ranks(no_mpi, monkeypatch, variable):
    monkeypatch.setenv(variable, "3")
    assert under_mpi() is True


@pytest.mark.parametrize("value", ["1", ""])
def test_under_mpi_false_with_one_rank(no_mpi, monkeypatch, value):
    monkeypatch.setenv("PMI_SIZE", value)
    assert under_mpi() is False


def test_make_executor_auto_under_mpi_gives_rank_0_an_mpi_executor(no_mpi):
    # A separate interpreter, so MPI is never initialised in the test process. With a
    # one-rank COMM_WORLD, mpi4py's executor serves tasks from a thread of rank 0.
    script = (
        "from bbqmis.coloring.tree.executors import make_executor\n"
        "with make_executor() as executor:\n"
        "    print(type(executor).__name__, executor.submit(pow, 2, 5).result(timeout=60))\n"
    )
    env = {**os.environ, "PMI_SIZE": "3"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["MPIPoolExecutor", "32"]


# -- pool workers end with the run -----------------------------------------------------------------
def pids_of(executor, count):
    """Process ids of the pool's workers, after one task has run on each."""
    pids = set()
    deadline = time.monotonic() + 120
    while len(pids) < count and time.monotonic() < deadline:
        pids |= set(executor.map(slow_pid, [0.2] * count))
    assert len(pids) == count
    return pids


def slow_pid(seconds):
    time.sleep(seconds)
    return os.getpid()


def running(pid):
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_gone(pids, seconds=10.0):
    deadline = time.monotonic() + seconds
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if running(pid)]


def busy_for(folder, seconds):
    """A task that records its worker (a file named by its pid in ``folder``), then sleeps ``seconds``."""
    (folder / str(os.getpid())).touch()
    time.sleep(seconds)


def wait_busy(folder, workers, seconds=60.0):
    """Wait until every worker in ``workers`` has started a :func:`busy_for` task in ``folder``."""
    deadline = time.monotonic() + seconds
    while {int(path.name) for path in folder.iterdir()} != workers and time.monotonic() < deadline:
        time.sleep(0.05)
    assert {int(path.name) for path in folder.iterdir()} == workers, "the workers did not start their tasks"


@pytest.mark.parametrize("how", ["exception", "finish_tasks=False", "stop request"])
def test_leaving_early_ends_busy_workers_instead_of_waiting(how, tmp_path):
    start = time.monotonic()
    with pytest.raises(RuntimeError) if how == "exception" else contextlib.nullcontext():
        with make_executor("process", 2, finish_tasks=how != "finish_tasks=False") as executor:
            workers = pids_of(executor, 2)
            busy = [executor.submit(busy_for, tmp_path, 120) for _ in range(4)]
            wait_busy(tmp_path, workers)  # both workers are inside a two-minute task now
            if how == "stop request":
                STOP.set("test")
            if how == "exception":
                raise RuntimeError("the search failed")
    STOP.clear()
    assert time.monotonic() - start < 60
    assert not wait_gone(workers)
    concurrent.futures.wait(busy, timeout=10)  # the pool's own thread marks them after the kill
    assert all(future.cancelled() or future.done() for future in busy)


def test_workers_leave_sigint_and_sigterm_to_the_manager():
    with make_executor("process", 2) as executor:
        workers = pids_of(executor, 2)
        for pid in workers:
            os.kill(pid, signal.SIGINT)  # a Ctrl-C reaches the whole process group
            os.kill(pid, signal.SIGTERM)  # so does `kill -TERM -<group>`
        # A process acts on a signal before it runs anything more (a default action ends it,
        # a Python handler runs before the next bytecode): each worker running a task
        # submitted after the signals shows that both reached it and did nothing.
        assert pids_of(executor, 2) == workers
        assert all(running(pid) for pid in workers)
        assert executor.submit(math.comb, 5, 2).result(timeout=60) == 10


@pytest.mark.timeout(120)
def test_workers_exit_when_their_manager_is_killed(tmp_path):
    # A task prints its worker's pid as it starts: two lines, two workers inside their tasks.
    script = tmp_path / "manager.py"
    script.write_text(
        "import os, time\n"
        "from bbqmis.coloring.tree.executors import make_executor\n"
        "def busy():\n"
        "    print(os.getpid(), flush=True)\n"
        "    time.sleep(300)\n"
        "if __name__ == '__main__':\n"
        "    with make_executor('process', 2) as executor:\n"
        "        tasks = [executor.submit(busy) for _ in range(2)]\n"
        "        time.sleep(300)  # only keeps the manager alive until the test kills it\n"
    )
    manager = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(manager.stdout.readline()) for _ in range(2)]
        assert len(set(workers)) == 2 and all(running(pid) for pid in workers)
    finally:
        manager.kill()  # SIGKILL: no handler, no clean-up runs in the manager
        manager.wait()
    assert not wait_gone(workers), "a worker outlived its manager"


def test_a_worker_whose_manager_is_gone_exits():
    script = (
        "from bbqmis.coloring.tree.executors import serve_manager\n"
        "import time\nserve_manager(1)\ntime.sleep(60)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], timeout=60)  # its parent is not process 1
    assert done.returncode == 1
