"""The dynamic vQPU count: the rule's bounds and steps, and the controller against a simulated Slurm."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backends.vqpu.server.accounting import Ledger, Usage
from backends.vqpu.server.tokens import Caller
from backends.vqpu.server.vqpu_count import CountController, CountRule, SlurmLicence, Window, next_count

pytestmark = pytest.mark.timeout(60)


class SimulatedSlurm:
    """``scontrol show license`` and ``sacctmgr modify resource`` of one remote licence, in memory."""

    def __init__(self, total: int, used: int, *, up: bool = True) -> None:
        self.total, self.used, self.up = total, used, up
        self.commands: list[list[str]] = []

    def __call__(self, command: list[str]) -> subprocess.CompletedProcess:
        self.commands.append(command)
        if not self.up:
            return subprocess.CompletedProcess(command, 1, "", "Unable to contact slurm controller")
        if command[0] == "sacctmgr":
            self.total = int(command[-1].removeprefix("count="))
            return subprocess.CompletedProcess(command, 0, "", "")
        shown = f"LicenseName=vqpu@q Total={self.total} Used={self.used} Free=0 Reserved=0 Remote=yes\n"
        return subprocess.CompletedProcess(command, 0, shown, "")

    @property
    def changes(self) -> list[int]:
        return [int(c[-1].removeprefix("count=")) for c in self.commands if c[0] == "sacctmgr"]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


windows = st.builds(
    Window,
    seconds=st.floats(0.0, 1e4),
    busy_seconds=st.floats(0.0, 1e4),
    queue_seconds=st.floats(0.0, 1e5),
    in_use=st.integers(0, 20),
)


@st.composite
def rules(draw):
    minimum = draw(st.integers(1, 10))
    return CountRule(
        minimum, draw(st.integers(minimum, 12)), draw(st.floats(0.05, 1.0)), draw(st.floats(0.05, 5.0))
    )


@given(count=st.integers(1, 12), window=windows, rule=rules())
def test_a_step_stays_within_the_bounds_and_moves_by_at_most_one(count, window, rule):
    wanted = next_count(count, window, rule)
    assert rule.minimum <= wanted <= rule.maximum
    inside = min(rule.maximum, max(rule.minimum, count))
    assert abs(wanted - inside) <= 1


@given(count=st.integers(1, 12), window=windows, rule=rules())
def test_it_shrinks_exactly_when_batches_wait_too_long_and_grows_only_for_jobs_that_could_use_more(
    count, window, rule
):
    count = min(rule.maximum, max(rule.minimum, count))
    wanted = next_count(count, window, rule)
    if window.wait_ratio > rule.wait_limit:
        assert wanted == max(rule.minimum, count - 1)  # count already within the bounds here
    if wanted > count:
        assert window.in_use >= count and window.occupancy < rule.occupancy_target
        assert window.wait_ratio <= rule.wait_limit / 2


def charge(ledger: Ledger, *, busy: float, queued: float) -> None:
    ledger.charge(
        Caller("7", "ann"), Usage(batches=1, circuits=1, shots=8, quantum_seconds=busy, queue_seconds=queued)
    )


def controller(slurm: SimulatedSlurm, ledger: Ledger, clock: Clock, paused=lambda: False) -> CountController:
    licence = SlurmLicence("vqpu", "q", runner=slurm)
    return CountController(ledger, licence, CountRule(1, 4), interval=10.0, paused=paused, clock=clock)


def test_an_idle_device_with_every_licence_in_use_grows_to_the_maximum_and_stops():
    slurm, ledger, clock = SimulatedSlurm(total=1, used=1), Ledger(), Clock()
    control = controller(slurm, ledger, clock)
    for _ in range(6):
        clock.now += 10
        slurm.used = slurm.total  # every licence taken by a pending job at once
        charge(ledger, busy=2.0, queued=0.1)  # 20 % occupancy, little waiting
        control.step()
    assert slurm.changes == [2, 3, 4]
    assert [round(step["occupancy"], 6) for step in control.history] == [0.2] * 6


def test_batches_waiting_several_executions_shrink_the_count_to_the_minimum():
    slurm, ledger, clock = SimulatedSlurm(total=4, used=4), Ledger(), Clock()
    control = controller(slurm, ledger, clock)
    for _ in range(5):
        clock.now += 10
        charge(ledger, busy=9.5, queued=30.0)  # a batch waits about three executions
        control.step()
    assert slurm.changes == [3, 2, 1]
    assert control.history[0]["wait_ratio"] == pytest.approx(30.0 / 9.5)


def test_a_free_licence_or_a_busy_device_holds_the_count():
    slurm, ledger, clock = SimulatedSlurm(total=2, used=1), Ledger(), Clock()
    control = controller(slurm, ledger, clock)
    clock.now += 10
    assert control.step() == 2  # a licence is free: nobody is waiting for one
    slurm.used = 2
    clock.now += 10
    charge(ledger, busy=9.5, queued=4.0)  # busy, batches wait less than one execution
    assert control.step() == 2
    assert slurm.changes == []


def test_maintenance_pauses_the_count_and_restarts_the_window():
    paused = [True]
    slurm, ledger, clock = SimulatedSlurm(total=2, used=2), Ledger(), Clock()
    control = controller(slurm, ledger, clock, paused=lambda: paused[0])
    clock.now += 10
    charge(ledger, busy=9.9, queued=100.0)
    assert control.step() is None
    assert slurm.commands == []  # Slurm not even read
    paused[0] = False
    clock.now += 10  # the waits before maintenance ended do not count
    assert control.step() == 3


def test_an_unreachable_slurm_fails_the_step_and_keeps_the_window():
    slurm, ledger, clock = SimulatedSlurm(total=2, used=2, up=False), Ledger(), Clock()
    control = controller(slurm, ledger, clock)
    clock.now += 10
    charge(ledger, busy=9.9, queued=100.0)
    with pytest.raises(RuntimeError, match="Unable to contact slurm controller"):
        control.step()
    slurm.up = True
    clock.now += 10
    assert control.step() == 1  # the waits of the failed step's window still count
    assert control.history[-1]["wait_ratio"] == pytest.approx(100.0 / 9.9)


def test_start_brings_the_count_within_the_bounds_and_the_thread_steps():
    slurm, ledger = SimulatedSlurm(total=9, used=0), Ledger()
    licence = SlurmLicence("vqpu", "q", runner=slurm)
    control = CountController(ledger, licence, CountRule(1, 4), interval=0.01).start()
    try:
        assert control._periodic.wait_passes(3, timeout=30)
    finally:
        control.stop()
    assert slurm.changes[0] == 4  # brought down to the maximum at the start
    assert slurm.total == 4  # then held: a licence is free
