"""The lock pyfuse3 waits for requests under (fuse/runner.py `_ReadLock`): one
holder at a time, every waiter gets its turn, no pass through the scheduler when
free, and a release wakes a waiter only when a request is about to wait
(hand_over, from Operations._work), on an exception, or after its patience."""
from __future__ import annotations

import pyfuse3
import trio
import trio.testing

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


def test_a_release_wakes_no_waiter_until_hand_over():
    """pyfuse3's releasing task answers the request and comes back: the waiter
    is left parked (no scheduler pass for nothing) until a request is about to
    wait (hand_over), which lets it take the free lock."""
    lock = runner._ReadLock()
    got = []

    async def wait_for_it() -> None:
        async with lock:
            got.append("waiter")

    async def go() -> None:
        async with trio.open_nursery() as n:
            async with lock:
                n.start_soon(wait_for_it)
                await trio.testing.wait_all_tasks_blocked()
            await trio.testing.wait_all_tasks_blocked()
            assert got == [] and len(lock._lot) == 1
            runner.hand_over()
            await trio.testing.wait_all_tasks_blocked()
            assert got == ["waiter"] and not lock._held

    trio.run(go, clock=trio.testing.MockClock())


def test_a_waiter_looks_again_by_itself_after_its_patience():
    """The session ended without waking it: it takes the free lock on its own."""
    lock = runner._ReadLock()
    got = []

    async def wait_for_it() -> None:
        async with lock:
            got.append(trio.current_time())

    async def go() -> None:
        async with trio.open_nursery() as n:
            async with lock:
                n.start_soon(wait_for_it)
                await trio.testing.wait_all_tasks_blocked()
            await trio.sleep(runner.WAITER_PATIENCE / 2)
            assert got == []

    trio.run(go, clock=trio.testing.MockClock(autojump_threshold=0))
    assert got == [runner.WAITER_PATIENCE]


def test_an_exception_leaving_the_lock_wakes_every_waiter():
    lock = runner._ReadLock()
    got = []

    async def wait_for_it(i: int) -> None:
        async with lock:
            got.append(i)

    async def go() -> None:
        async with trio.open_nursery() as n:
            try:
                async with lock:
                    for i in range(3):
                        n.start_soon(wait_for_it, i)
                    await trio.testing.wait_all_tasks_blocked()
                    raise trio.ClosedResourceError
            except trio.ClosedResourceError:
                pass
            await trio.testing.wait_all_tasks_blocked()
            assert sorted(got) == [0, 1, 2]

    trio.run(go, clock=trio.testing.MockClock())


def test_a_request_about_to_wait_for_a_worker_hands_the_lock_over():
    """Operations._work (every wait of a request handler) lets a parked reader in."""
    from gbxfs.fuse.ops import Operations
    from gbxfs.tree.model import Dir

    ops = Operations(Dir("root", children=[]))
    lock = runner._ReadLock()
    got = []

    async def reader() -> None:
        async with lock:
            got.append("reader")

    async def go() -> None:
        async with trio.open_nursery() as n:
            async with lock:
                n.start_soon(reader)
                await trio.testing.wait_all_tasks_blocked()
            # woken before the wait: the lot is empty while the worker thread runs
            assert await ops._work(lambda: len(lock._lot)) == 0
            await trio.testing.wait_all_tasks_blocked()
            assert got == ["reader"]

    trio.run(go, clock=trio.testing.MockClock())


def test_a_reader_that_ends_wakes_the_waiting_one():
    """pyfuse3's task that sees the session end leaves without coming back for
    the lock: ReaderExit lets the waiting task take it (and see the end) at once,
    not after its patience (virtual time stays 0)."""
    lock = runner._ReadLock()
    got = []

    async def waiting_reader() -> None:
        async with lock:
            got.append(trio.current_time())

    async def go() -> None:
        release = trio.Event()

        async def ending_reader(task_status=trio.TASK_STATUS_IGNORED) -> None:
            async with lock:
                task_status.started()
                await release.wait()
            # leaves pyfuse3's loop here: the task ends with the lock free

        async with trio.open_nursery() as n:
            await n.start(ending_reader)
            n.start_soon(waiting_reader)
            await trio.testing.wait_all_tasks_blocked()
            assert len(lock._lot) == 1
            release.set()

    # the clock jumps only after a real second of everything waiting: the patience's way
    trio.run(go, clock=trio.testing.MockClock(autojump_threshold=1.0), instruments=[runner.ReaderExit()])
    assert got == [0.0]
