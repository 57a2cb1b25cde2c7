"""Tests of backends.utils.progress: plain periodic lines in a pipe, a live line on a terminal, heartbeats."""

import io
import time

import pytest

from backends.utils.errors import InvalidParameterError
from backends.utils.progress import ProgressLine, format_snapshot


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_format_shows_phase_fields_and_elapsed_in_order():
    line = format_snapshot("bbqmis", {"phase": "lp", "nodes": 3, "gap": 0.123456, "bound": None}, 2.25)
    assert line == "bbqmis lp | nodes 3 | gap 0.1235 | bound - | 2.2 s"


def test_format_ignores_an_elapsed_field_of_the_snapshot():
    assert format_snapshot("", {"elapsed": 99.0, "x": 1}, 1.0) == " | x 1 | 1.0 s"


def test_a_pipe_gets_a_line_per_phase_and_at_most_one_per_interval():
    out, clock = io.StringIO(), FakeClock()
    with ProgressLine(out, label="t", interval=2.0, heartbeat=False, clock=clock) as progress:
        for step in range(10):
            clock.now = step * 0.5
            progress({"phase": "a", "step": step})
        clock.now = 5.0
        progress({"phase": "b", "step": 10})
    lines = out.getvalue().splitlines()
    assert [line.split(" | ")[1] for line in lines] == ["step 0", "step 4", "step 8", "step 10"]
    assert lines[-1].startswith("t b |")


def test_disabled_writes_nothing():
    out = io.StringIO()
    with ProgressLine(out, enabled=False) as progress:
        progress({"phase": "a"})
    assert out.getvalue() == ""


@pytest.mark.timeout(10)
def test_heartbeat_repeats_the_last_snapshot_while_work_is_silent():
    out = io.StringIO()
    with ProgressLine(out, label="t", interval=0.1) as progress:
        progress({"phase": "solve", "k": 4})
        time.sleep(0.65)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 4 and all(line.startswith("t solve | k 4 |") for line in lines)
    elapsed = [float(line.rsplit("| ", 1)[1].split()[0]) for line in lines]
    assert elapsed == sorted(elapsed) and elapsed[-1] >= 0.4


def test_a_terminal_gets_a_live_line_and_keeps_the_last_snapshot():
    out = FakeTerminal()
    with ProgressLine(out, label="t", heartbeat=False) as progress:
        progress({"phase": "a", "n": 1})
        progress({"phase": "a", "n": 2})
    assert out.getvalue().rstrip().endswith("s") and "t a | n 2 |" in out.getvalue().splitlines()[-1]


def test_close_twice_and_calls_after_close_are_harmless():
    out = io.StringIO()
    progress = ProgressLine(out, heartbeat=False)
    progress.close()
    progress.close()
    progress({"phase": "late"})
    assert out.getvalue() == ""


def test_a_negative_interval_names_the_parameter():
    with pytest.raises(InvalidParameterError, match="interval"):
        ProgressLine(io.StringIO(), interval=-1)
