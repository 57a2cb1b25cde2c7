"""Periodic: the servers' background passes run every interval until stopped, never after."""

import threading

import pytest

from backends.utils.errors import InvalidParameterError
from backends.vqpu.server.periodic import Periodic

pytestmark = pytest.mark.timeout(30)


def test_passes_repeat_until_stopped_and_none_runs_after():
    calls = []
    periodic = Periodic(lambda: calls.append(threading.current_thread().name), 0.01, "vqpu-test").start()
    assert periodic.wait_passes(5, timeout=20)
    periodic.stop()
    after = len(calls)
    assert after >= 5 and set(calls) == {"vqpu-test"}  # on its own named thread
    assert not periodic.wait_passes(after + 1, timeout=0.2)  # stopped: no pass comes
    assert len(calls) == after


def test_stop_waits_for_the_pass_in_progress():
    started, release, finished = threading.Event(), threading.Event(), []

    def slow_pass():
        started.set()
        release.wait(10)
        finished.append(True)

    periodic = Periodic(slow_pass, 0.01, "vqpu-test").start()
    assert started.wait(10)
    seen_at_return = []
    stopper = threading.Thread(target=lambda: (periodic.stop(), seen_at_return.append(list(finished))))
    stopper.start()
    release.set()
    stopper.join(10)
    assert seen_at_return == [[True]]  # stop returned only once the pass in progress had ended


def test_an_interval_out_of_range_is_refused():
    with pytest.raises(InvalidParameterError, match="interval"):
        Periodic(lambda: None, 0, "vqpu-test")
