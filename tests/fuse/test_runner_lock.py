"""The lock pyfuse3 waits for requests under (fuse/runner.py `_ReadLock`): one
holder at a time, waiters woken in turn, and no pass through the scheduler when free."""
from __future__ import annotations

import pyfuse3
import trio

from gbxfs.fuse import runner


def test_one_holder_at_a_time_and_every_waiter_gets_its_turn():
    lock = runner._ReadLock()
    inside, most, order = 0, 0, []

    async def hold(i: int) -> None:
        nonlocal inside, most
        async with lock:
            inside += 1
            most = max(most, inside)
            await trio.sleep(0.01)      # others ask meanwhile
            order.append(i)
            inside -= 1

    async def go() -> None:
        async with trio.open_nursery() as n:
            for i in range(5):
                n.start_soon(hold, i)

    trio.run(go)
    assert most == 1 and sorted(order) == list(range(5))


def test_a_free_lock_is_taken_without_a_checkpoint():
    """No checkpoint: even a cancelled scope takes it (trio.Lock raises Cancelled)."""
    lock = runner._ReadLock()
    taken = []

    async def go() -> None:
        with trio.CancelScope() as scope:
            scope.cancel()
            async with lock:
                taken.append(True)

    trio.run(go)
    assert taken == [True] and not lock._held


def test_pyfuse3_gets_the_lock_through_its_trio(monkeypatch):
    monkeypatch.setattr(pyfuse3, "trio", trio)
    runner.quick_request_wait()
    assert pyfuse3.trio is not trio
    assert pyfuse3.trio.Lock is runner._ReadLock
    assert pyfuse3.trio.open_nursery is trio.open_nursery
    low = pyfuse3.trio.lowlevel        # trio's, but for the wait (fuse/readable.py)
    assert low.wait_readable is not trio.lowlevel.wait_readable
    assert low.current_task is trio.lowlevel.current_task and low.checkpoint is trio.lowlevel.checkpoint
