"""Running a mounted tree: the FUSE session on a trio loop, readiness, and a
clean unmount on SIGTERM / SIGINT / SIGHUP."""
from __future__ import annotations

import gc
import logging
import os
import signal
import types
import weakref
from typing import Callable

import pyfuse3
import trio

from gbxfs.fuse import readable

log = logging.getLogger("gbxfs.fuse")

_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def mount(ops: pyfuse3.Operations, mountpoint: str, options: set[str]) -> None:
    """Mount (the kernel side exists when this returns; requests wait for serve()).
    Raises RuntimeError when libfuse refuses (bad option, not permitted, ...)."""
    pyfuse3.init(ops, mountpoint, options)


# glibc mallopt parameters
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
# Blocks from this size up get their own mapping, given back when freed. Above a
# FUSE read's 128 KiB buffers and a stored entry's 1 MiB pieces: mapped one by one,
# those paid a page fault per page on every read (benchmarks/big_entry.py: the
# 64 MiB entry read 1.7x slower with a 128 KiB threshold).
MMAP_THRESHOLD = 4 << 20
# Free bytes at the top of a heap that glibc gives back at once.
TRIM_THRESHOLD = 512 * 1024
# Seconds between two malloc_trim calls.
TRIM_EVERY = 1.0


def _libc():
    try:
        import ctypes
        return ctypes.CDLL(None)
    except OSError:
        return None


def _tune_malloc() -> None:
    """glibc's heap, set for a process whose large values come and go.

    - glibc gives each worker thread its own malloc arena (up to 8 per core):
      bodies parsed in turn by different workers then left freed memory in
      several arenas. Two arenas.
    - Large blocks (bodies, rendered dumps) are mapped on their own and given
      back when freed: glibc's default raises that threshold (up to 32 MiB)
      each time such a block is freed, after which they were carved from the
      heap, and the heap kept tens of MB free between live blocks
      (benchmarks/mount_memory.py). A fixed threshold also fixes the trim one.

    Must run before the worker threads start; no-op off glibc."""
    libc = _libc()
    try:
        libc.mallopt(_M_ARENA_MAX, 2)
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    except AttributeError:
        pass


async def _trim_malloc() -> None:
    """Give the free pages inside glibc's heaps back to the system, once per
    TRIM_EVERY: what a body walk or an evicted parse freed between live blocks
    stays in the process otherwise (glibc only trims the top of a heap). It
    walks the free lists (well under a millisecond at the cache's sizes), in
    a thread so the loop keeps answering."""
    libc = _libc()
    trim = getattr(libc, "malloc_trim", None)
    if trim is None:
        return
    while True:
        await trio.sleep(TRIM_EVERY)
        await trio.to_thread.run_sync(trim, 0)


# allocations between young-generation collections (CPython's default: 700)
GC_YOUNG_THRESHOLD = 20_000


def _rare_young_collections() -> None:
    """A first listing makes a handful of long-lived objects per entry (tree
    entries, inode nodes, attributes): with CPython's default threshold the
    cyclic collector ran every 700 of them and re-scanned the growing older
    generations, about 40% of the CPU a `find` of a large pak folder cost
    (benchmarks/README.md). The tree holds few reference cycles, so collecting
    less often keeps memory where it was."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)


# seconds a task waiting for _ReadLock sleeps before it looks again by itself
WAITER_PATIENCE = 0.1


class _ReadLock:
    """What pyfuse3 takes around waiting for the next request (one task at a time
    may wait on /dev/fuse), made for that use:

    - taken without trio.Lock's pass through the scheduler when it is free
      (trio.Lock.acquire yields once even then);
    - released without waking a waiter. pyfuse3 releases it when a request
      arrives; the releasing task answers the request and comes back for the lock
      unless the answer has to wait. So a waiter is woken only by hand_over()
      (Operations._work calls it before every wait of a request for a worker
      thread, the only way a request handler waits), by an exception leaving the
      lock (the session is closing), when a task ends (ReaderExit: pyfuse3's task
      that saw the session end leaves without coming back), or after
      WAITER_PATIENCE by itself (should a request ever wait some other way).

    trio.Lock woke the other of pyfuse3's two reading tasks on every request, only
    for it to wait again: two scheduler passes per request where one is needed
    (benchmarks/README.md, find_floor.py)."""

    def __init__(self):
        self._held = False
        self._lot = trio.lowlevel.ParkingLot()
        _LOCKS.add(self)

    async def __aenter__(self) -> None:
        while self._held:
            with trio.move_on_after(WAITER_PATIENCE):
                await self._lot.park()
        self._held = True

    async def __aexit__(self, exc_type, *exc) -> None:
        self._held = False
        if exc_type is not None:
            self._lot.unpark_all()

    def wake_if_free(self) -> None:
        if not self._held and self._lot:
            self._lot.unpark()


_LOCKS: "weakref.WeakSet[_ReadLock]" = weakref.WeakSet()


class ReaderExit(trio.abc.Instrument):
    """Wakes a task waiting for a free read lock whenever a task ends (a reader
    that saw the session end, so that the others see it too). Defines no
    per-step hook: trio calls it only when a task exits."""

    def task_exited(self, task) -> None:
        hand_over()


def hand_over() -> None:
    """A request is about to wait (for a worker thread): wake a task waiting for
    pyfuse3's read lock, if it is free, so that the next requests are read meanwhile."""
    for lock in _LOCKS:
        lock.wake_if_free()


def quick_request_wait() -> None:
    """Hand pyfuse3 a trio whose Lock is _ReadLock and whose lowlevel.wait_readable
    takes a queued request at once (fuse/readable.py). pyfuse3 reaches trio through
    its module attribute `trio` (the way its own asyncio mode swaps it), and uses
    trio.Lock and wait_readable only for that wait; left alone if a pyfuse3 does
    not look so."""
    if getattr(pyfuse3, "trio", None) is not trio:
        return
    shim = types.ModuleType("trio")
    shim.__dict__.update(vars(trio))
    shim.Lock = _ReadLock
    shim.lowlevel = readable.lowlevel()
    pyfuse3.trio = shim


def serve(mountpoint: str, on_ready: Callable[[], None] | None = None) -> None:
    """Answer requests until unmounted or signalled, then make sure the mount is gone."""
    _tune_malloc()
    _rare_young_collections()
    quick_request_wait()
    try:
        trio.run(_serve, mountpoint, on_ready, instruments=[ReaderExit()])
    finally:
        pyfuse3.close(unmount=True)


async def _serve(mountpoint: str, on_ready: Callable[[], None] | None) -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_stop_on_signal)
        nursery.start_soon(_trim_malloc)
        nursery.start_soon(_announce_when_usable, mountpoint, on_ready)
        await pyfuse3.main()
        nursery.cancel_scope.cancel()


async def _stop_on_signal() -> None:
    with trio.open_signal_receiver(*_SIGNALS) as signals:
        async for signum in signals:
            log.info("signal %d: unmounting", signum)
            pyfuse3.terminate()
            return


async def _announce_when_usable(mountpoint: str, on_ready: Callable[[], None] | None) -> None:
    # A stat through the mount proves the kernel handshake is done and requests
    # are answered. It has to come from another thread: this loop answers it.
    await trio.to_thread.run_sync(os.stat, mountpoint, abandon_on_cancel=True)
    log.info("mounted on %s", mountpoint)
    if on_ready is not None:
        on_ready()
