"""Search limits and the periodic clock (bbqmis.coloring.limits)."""

import dataclasses
import math
import os
import re
import signal
import threading
import time

import numpy as np
import pytest

from bbqmis.coloring.limits import (
    STOP,
    STOP_MEMORY_SHARE,
    STOP_REASONS,
    Clock,
    Every,
    Limits,
    StopRequest,
    available_memory_gb,
    resident_memory_gb,
    stop_on_signals,
)
from bbqmis.mis.errors import InvalidParameterError


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"time_limit": -1}, "time_limit must be a finite number >= 0, got -1"),
        ({"time_limit": math.inf}, "time_limit must be a finite number >= 0, got inf"),
        ({"time_limit": "10"}, "time_limit must be a finite number >= 0, got '10'"),
        ({"node_limit": 0}, "node_limit must be a positive integer, got 0"),
        ({"node_limit": 2.5}, "node_limit must be a positive integer, got 2.5"),
        ({"node_limit": True}, "node_limit must be a positive integer, got True"),
        ({"memory_limit": -0.5}, "memory_limit must be a finite number >= 0, got -0.5"),
        ({"memory_limit": math.nan}, "memory_limit must be a finite number >= 0, got nan"),
    ],
)
def test_bad_limits_are_rejected_with_the_reason(kwargs, message):
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(message)}$"):
        Limits(**kwargs)


def test_limits_are_normalised_and_frozen():
    limits = Limits(time_limit=2, node_limit=np.int64(5))
    assert limits == Limits(2.0, 5)
    assert type(limits.time_limit) is float and type(limits.node_limit) is int
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.node_limit = 6


def test_no_limits_never_stop():
    limits = Limits()
    assert limits.time_left(1e9) == math.inf
    assert not limits.time_reached(1e9)
    assert not limits.nodes_reached(10**9)


def test_time_limit():
    limits = Limits(time_limit=2.0)
    assert limits.time_left(0.5) == 1.5
    assert limits.time_left(5.0) == 0.0  # never negative
    assert not limits.time_reached(1.999)
    assert limits.time_reached(2.0) and limits.time_reached(3.0)
    assert not limits.nodes_reached(10**9)


def test_zero_time_limit_is_reached_at_once():
    assert Limits(time_limit=0).time_reached(0.0)


def test_node_limit():
    limits = Limits(node_limit=3)
    assert not limits.nodes_reached(2)
    assert limits.nodes_reached(3) and limits.nodes_reached(4)
    assert limits.time_left(1e6) == math.inf and not limits.time_reached(1e6)


def test_every_is_due_only_after_its_period_and_then_restarts():
    clock = Every(60.0, last=time.perf_counter() - 61.0)
    assert clock.due()  # more than a period has passed
    assert not clock.due()  # restarted just now
    assert clock.last == pytest.approx(time.perf_counter(), abs=5.0)


def test_every_starts_counting_when_created():
    assert not Every(3600.0).due()
    zero = Every(0.0)
    assert zero.due() and zero.due()  # a zero period is always due


# -- memory -------------------------------------------------------------------------------
def test_memory_readings_are_positive_and_consistent():
    available, resident = available_memory_gb(), resident_memory_gb()
    assert 0 < resident < available


def test_with_defaults_fills_in_half_the_available_memory_only_when_missing():
    limits = Limits.with_defaults(5.0, 7, None)
    assert (limits.time_limit, limits.node_limit) == (5.0, 7)
    assert limits.memory_limit == pytest.approx(0.5 * available_memory_gb(), abs=1e-3)
    assert Limits.with_defaults(None, None, 3.0) == Limits(None, None, 3.0)


def test_memory_used_is_the_resident_share_of_the_limit():
    assert Limits().memory_used() == 0.0 and Limits(memory_limit=0).memory_used() == 0.0
    resident = resident_memory_gb()
    used = Limits(memory_limit=2 * resident).memory_used()
    assert used == pytest.approx(0.5, rel=0.2)  # the process may grow a little in between


def test_memory_full_at_the_stop_share_of_the_limit():
    resident = resident_memory_gb()
    assert not Limits().memory_full()
    assert not Limits(memory_limit=resident / (0.8 * STOP_MEMORY_SHARE)).memory_full()
    assert Limits(memory_limit=resident / (1.2 * STOP_MEMORY_SHARE)).memory_full()


def test_stop_reasons():
    assert STOP_REASONS == ("time_limit", "node_limit", "memory_limit", "interrupted")


# -- Clock -------------------------------------------------------------------------------
def test_clock_reports_earlier_runs_but_limits_this_run():
    clock = Clock(Limits(time_limit=10.0), before=4.0)
    assert 4.0 <= clock.elapsed() < 5.0
    assert not clock.expired()
    resumed = Clock(Limits(time_limit=10.0), before=10.0)  # a resumed run gets its own 10 s
    assert not resumed.expired()
    late = Clock(Limits(time_limit=10.0), start=time.perf_counter() - 10.0)
    assert late.expired()
    assert late.deadline() <= time.perf_counter() and late.wall_deadline() <= time.time()


def test_clock_deadlines_share_the_time_left():
    clock = Clock(Limits(time_limit=100.0), before=5.0, start=time.perf_counter() - 20.0)
    now, wall = time.perf_counter(), time.time()
    assert clock.deadline() == pytest.approx(now + 80.0, abs=1.0)
    assert clock.deadline(share=0.25) == pytest.approx(now + 20.0, abs=1.0)
    assert clock.wall_deadline() == pytest.approx(wall + 80.0, abs=1.0)


def test_clock_without_a_time_limit_has_no_deadline():
    clock = Clock(Limits())
    assert clock.deadline() == math.inf and clock.wall_deadline() == math.inf
    assert not clock.expired()


# -- stop requests and signals ----------------------------------------------------------------------
def test_a_stop_request_spends_the_time_of_every_limit():
    stop = StopRequest()
    limits = Limits(time_limit=100.0, stop=stop)
    unlimited = Limits(stop=stop)
    clock = Clock(limits)
    assert not limits.interrupted and limits.time_left(1.0) == 99.0 and not clock.expired()
    assert Clock(unlimited).deadline() == math.inf
    stop.set("SIGTERM")
    assert limits.interrupted and stop.reason == "SIGTERM"
    assert limits.time_left(1.0) == 0.0 and limits.time_reached(0.0) and clock.expired()
    assert unlimited.time_left(0.0) == 0.0 and unlimited.time_reached(0.0)
    assert Clock(unlimited).deadline() <= time.perf_counter() and clock.wall_deadline() <= time.time()
    stop.clear()
    assert not limits.time_reached(1.0) and stop.reason is None


def test_limits_read_the_process_stop_request_by_default():
    assert Limits().stop is STOP and Limits.with_defaults(None, None, 1.0).stop is STOP
    assert Limits(stop=StopRequest()) == Limits()  # the request is not part of the value


def test_the_first_signal_sets_the_request_and_the_second_stops_at_once():
    stop, told = StopRequest(), []
    before = signal.getsignal(signal.SIGTERM)
    with stop_on_signals(stop, notify=told.append) as request:
        assert request is stop and not stop.is_set()
        os.kill(os.getpid(), signal.SIGTERM)
        deadline = time.monotonic() + 5
        while not stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert stop.reason == "SIGTERM" and told == ["SIGTERM"]
        with pytest.raises(KeyboardInterrupt, match="SIGINT"):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
    assert not stop.is_set()  # cleared for the next run in this process
    assert signal.getsignal(signal.SIGTERM) is before


def test_signals_are_left_alone_outside_the_main_thread():
    stop, seen = StopRequest(), []
    stop.set()

    def run():
        with stop_on_signals(stop):
            seen.append((stop.is_set(), signal.getsignal(signal.SIGTERM)))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == [(False, signal.getsignal(signal.SIGTERM))]


def test_the_stop_reason_is_the_request_then_the_time_then_the_memory():
    stop = StopRequest()
    resident = resident_memory_gb()
    assert Clock(Limits(time_limit=60, memory_limit=100 * resident, stop=stop)).stop_reason() is None
    full = Limits(time_limit=60, memory_limit=resident / STOP_MEMORY_SHARE * 0.99, stop=stop)
    assert Clock(full).stop_reason() == "memory_limit"
    assert Clock(Limits(time_limit=0, memory_limit=resident / 2, stop=stop)).stop_reason() == "time_limit"
    stop.set("SIGTERM")
    assert Clock(Limits(time_limit=0, memory_limit=resident / 2, stop=stop)).stop_reason() == "interrupted"
