"""Waiting for the FUSE device (fuse/readable.py): a queued request is taken at
once, without a checkpoint, at most MAX_STREAK times in a row; an empty device
is waited for through trio."""
from __future__ import annotations

import errno
import socket
import sys
import threading

import pytest
import trio

from gbxfs.fuse import idle, readable
from gbxfs.fuse.attrs import AttrPolicy
from gbxfs.fuse.ops import Operations
from gbxfs.tree.model import Dir


def _first(**kw) -> readable.ReadableFirst:
    """A wait with nothing to list between requests (the daemon's IDLE is filled
    by the readdirplus answers of other tests)."""
    return readable.ReadableFirst(idle=idle.IdleListings(), **kw)


def _taken_without_checkpoint(wait, fd: int) -> bool:
    """True when wait_readable(fd) returned in a cancelled scope (no checkpoint)."""
    done = []

    async def go() -> None:
        with trio.CancelScope() as scope:
            scope.cancel()
            await wait(fd)
            done.append(True)

    trio.run(go)
    return done == [True]


@pytest.mark.parametrize("poll", [readable._POLL, None], ids=["libc", "select"])
def test_a_queued_request_is_taken_at_once_then_a_checkpoint_every_max_streak(poll):
    a, b = socket.socketpair()
    with a, b:
        b.send(b"request")
        r = _first(poll=poll)
        got = [_taken_without_checkpoint(r.wait_readable, a.fileno()) for _ in range(2 * readable.MAX_STREAK + 3)]
        m = readable.MAX_STREAK
        # each run of MAX_STREAK at once is followed by a real wait (a checkpoint: cancelled here)
        assert got == ([True] * m + [False]) * 2 + [True]


@pytest.mark.parametrize("poll", [readable._POLL, None], ids=["libc", "select"])
def test_an_empty_device_is_waited_for_through_trio(poll):
    a, b = socket.socketpair()
    with a, b:
        r = _first(poll=poll)
        assert not _taken_without_checkpoint(r.wait_readable, a.fileno())
        woke = []

        async def go() -> None:
            async with trio.open_nursery() as n:
                n.start_soon(lambda: trio.to_thread.run_sync(lambda: (trio.from_thread.run_sync(lambda: None),
                                                                      b.send(b"x"))))
                with trio.fail_after(5):
                    await r.wait_readable(a.fileno())
                woke.append(True)

        trio.run(go)
        assert woke == [True]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="libc's poll through ctypes: Linux")
def test_the_libc_poll_is_there_on_linux():
    assert readable._POLL is not None


def test_another_descriptor_goes_to_trio():
    a, b = socket.socketpair()
    c, d = socket.socketpair()
    with a, b, c, d:
        b.send(b"x")
        d.send(b"x")
        r = _first()
        assert _taken_without_checkpoint(r.wait_readable, a.fileno())
        assert not _taken_without_checkpoint(r.wait_readable, c.fileno())


def test_a_started_task_makes_the_next_wait_a_real_one():
    a, b = socket.socketpair()
    with a, b:
        b.send(b"request")
        r = _first()
        assert _taken_without_checkpoint(r.wait_readable, a.fileno())
        readable.pass_soon()
        assert not _taken_without_checkpoint(r.wait_readable, a.fileno())   # through the scheduler
        assert _taken_without_checkpoint(r.wait_readable, a.fileno())       # once


def test_a_request_arriving_while_the_wait_lingers_is_taken_without_trio():
    a, b = socket.socketpair()
    with a, b:
        r = _first(linger_ns=5_000_000_000)
        later = threading.Timer(0.02, b.send, (b"request",))
        later.start()
        try:
            assert _taken_without_checkpoint(r.wait_readable, a.fileno())
        finally:
            later.join()


def test_nothing_arriving_within_the_linger_goes_to_trio():
    a, b = socket.socketpair()
    with a, b:
        r = _first(linger_ns=1_000_000)
        assert not _taken_without_checkpoint(r.wait_readable, a.fileno())


def test_no_linger_while_a_worker_thread_is_out(monkeypatch):
    lingered = []

    def ppoll(fds, n, span, sigmask) -> int:
        lingered.append(n)
        return 0

    a, b = socket.socketpair()
    with a, b:
        r = _first(ppoll=ppoll)
        monkeypatch.setattr(readable.Threads, "out", 1)
        assert not _taken_without_checkpoint(r.wait_readable, a.fileno())
        assert lingered == []
        monkeypatch.setattr(readable.Threads, "out", 0)
        assert not _taken_without_checkpoint(r.wait_readable, a.fileno())
        assert lingered == [1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="libc's ppoll through ctypes: Linux")
def test_the_libc_ppoll_is_there_on_linux():
    assert readable._PPOLL is not None


def test_worker_threads_out_are_counted_for_the_request_wait():
    """A wait for the next request lingers only while no worker thread is out
    (fuse/readable.py): every _work counts itself, a failing one too."""
    ops = Operations(Dir("root", children=[]), policy=AttrPolicy(uid=1, gid=1))
    seen = []
    both = threading.Barrier(2, timeout=10)

    def look():
        both.wait()         # both threads out at once
        seen.append(readable.Threads.out)
        both.wait()         # neither back (and uncounted) before both looked

    def broken():
        seen.append(readable.Threads.out)
        raise OSError(errno.EIO, "broken")

    async def main():
        async with trio.open_nursery() as n:
            n.start_soon(ops._work, look)
            n.start_soon(ops._work, look)
        with pytest.raises(OSError):
            await ops._work(broken)

    assert readable.Threads.out == 0
    trio.run(main)
    assert seen[:2] == [2, 2] and seen[2] == 1     # both out at once, then the failing one alone
    assert readable.Threads.out == 0
