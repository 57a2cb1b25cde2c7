"""IdleGate: the event loop counts the requests in hand; another thread waits until there are none."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from vqpu_helpers import blocked_in

from backends.vqpu.server.gate import IdleGate


async def until(condition, timeout=10.0):
    """Yield to the loop until ``condition()`` holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        await asyncio.sleep(0.005)


def run_on_loop(body):
    """Run ``body(gate, loop)`` as a coroutine on a fresh loop with a gate bound to it."""
    gate = IdleGate()

    async def main():
        gate.bind(asyncio.get_running_loop())
        return await body(gate, asyncio.get_running_loop())

    return gate, asyncio.run(main())


def test_without_a_loop_there_is_nothing_to_wait_for():
    gate = IdleGate()
    gate.enter()  # counted, but no loop serves requests
    assert gate.wait_idle(5.0) is True


def test_a_request_in_hand_holds_the_waiter_until_its_timeout():
    async def body(gate, loop):
        with gate.working():
            tic = time.perf_counter()
            idle = await asyncio.to_thread(gate.wait_idle, 0.2)
            return idle, time.perf_counter() - tic

    _, (idle, waited) = run_on_loop(body)
    assert idle is False and waited >= 0.2


def test_the_last_request_to_leave_wakes_the_waiter():
    async def body(gate, loop):
        woken = []
        gate.enter(2)
        thread = threading.Thread(target=lambda: woken.append((gate.wait_idle(30.0), time.perf_counter())))
        thread.start()
        await until(lambda: blocked_in(thread, "wait_idle"))
        gate.leave()
        await until(lambda: gate.busy == 1)
        one_left = list(woken)  # the waiter wakes only when the count reaches 0, and it is 1
        left = time.perf_counter()
        gate.leave()
        await asyncio.to_thread(thread.join, 30.0)
        return one_left, woken, left

    gate, (one_left, woken, left) = run_on_loop(body)
    assert one_left == []  # one request still in hand
    [(idle, at)] = woken
    assert idle is True and left <= at < left + 5.0
    assert gate.busy == 0


def test_a_waiter_replaced_after_its_timeout_does_not_block_the_next():
    async def body(gate, loop):
        with gate.working():
            first = await asyncio.to_thread(gate.wait_idle, 0.05)
            thread_result = []
            thread = threading.Thread(target=lambda: thread_result.append(gate.wait_idle(30.0)))
            thread.start()
            await until(lambda: blocked_in(thread, "wait_idle"))
        await asyncio.to_thread(thread.join, 30.0)
        return first, thread_result

    _, (first, second) = run_on_loop(body)
    assert first is False and second == [True]


def test_a_closed_loop_lets_the_waiter_go():
    gate = IdleGate()
    loop = asyncio.new_event_loop()
    gate.bind(loop)
    gate.enter()
    loop.close()
    assert gate.wait_idle(5.0) is True


def test_leave_without_enter_is_an_error():
    gate = IdleGate()
    with pytest.raises(RuntimeError, match="without a request in hand"):
        gate.leave()
    with pytest.raises(ValueError, match="count >= 0, got -1"):
        gate.enter(-1)
    with gate.working():
        pass
    assert gate.busy == 0


def test_working_leaves_when_its_block_raises():
    gate = IdleGate()
    with pytest.raises(KeyError), gate.working():
        raise KeyError("boom")
    assert gate.busy == 0
