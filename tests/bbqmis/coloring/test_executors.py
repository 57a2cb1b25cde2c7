import math
import os
import subprocess
import sys
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from bbqmis import InvalidParameterError
from bbqmis.coloring.executors import KINDS, SerialExecutor, executor_workers, make_executor, under_mpi

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
        "from bbqmis.coloring.executors import make_executor\n"
        "with make_executor() as executor:\n"
        "    print(type(executor).__name__, executor.submit(pow, 2, 5).result(timeout=60))\n"
    )
    env = {**os.environ, "PMI_SIZE": "3"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["MPIPoolExecutor", "32"]
