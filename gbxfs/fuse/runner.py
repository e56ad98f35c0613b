"""Running a mounted tree: the FUSE session on a trio loop, readiness, and a
clean unmount on SIGTERM / SIGINT / SIGHUP."""
from __future__ import annotations

import gc
import logging
import os
import signal
from collections.abc import Callable

import pyfuse3
import trio

from gbxfs.fuse.memory import libc
from gbxfs.fuse.scheduler import Scheduler

log = logging.getLogger("gbxfs.fuse")

_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


# The one pyfuse3 release gbxfs is tested with (pyproject.toml pins it). gbxfs
# leans on how it behaves, not only on its documented API: readdir_reply copies
# an EntryAttributes into the reply at once (fuse/listing.py changes one shared
# object per file), and a handler runs on pyfuse3's own trio tasks.
PYFUSE3_VERSION = "3.5.0"


def require_tested_pyfuse3() -> None:
    """Raise RuntimeError, saying why, unless the pyfuse3 imported is the tested one."""
    found = getattr(pyfuse3, "__version__", "unknown")
    if found != PYFUSE3_VERSION:
        raise RuntimeError(f"pyfuse3 {found} is installed, but this gbxfs is tested with "
                           f"pyfuse3 {PYFUSE3_VERSION} only: install pyfuse3=={PYFUSE3_VERSION}")


def mount(ops: pyfuse3.Operations, mountpoint: str, options: set[str]) -> None:
    """Mount (the kernel side exists when this returns; requests wait for serve()).
    Raises RuntimeError when libfuse refuses (bad option, not permitted, ...) or
    the pyfuse3 installed is not the tested one."""
    require_tested_pyfuse3()
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
    lib = libc()
    try:
        lib.mallopt(_M_ARENA_MAX, 2)
        lib.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        lib.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    except AttributeError:
        pass


# allocations between young-generation collections (CPython's default: 700)
GC_YOUNG_THRESHOLD = 20_000


def _rare_young_collections() -> None:
    """A first listing makes a handful of long-lived objects per entry (tree
    entries, inode nodes, attributes): with CPython's default threshold the
    cyclic collector ran every 700 of them and re-scanned the growing older
    generations, about 40% of the CPU a `find` of a large pak folder cost
    (docs/benchmarks-history.md). The tree holds few reference cycles, so collecting
    less often keeps memory where it was."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)


def serve(mountpoint: str, on_ready: Callable[[], None] | None = None, *,
          scheduler: Scheduler | None = None, outside: Callable[[], int] | None = None) -> None:
    """Answer requests until unmounted or signalled, then make sure the mount is gone.
    With `scheduler`, its memory loop runs beside the requests (fuse/scheduler.py),
    `outside()` being the bytes kept outside the cache (the kernel's inodes)."""
    _tune_malloc()
    _rare_young_collections()
    try:
        trio.run(_serve, mountpoint, on_ready, scheduler, outside)
    finally:
        pyfuse3.close(unmount=True)


async def _serve(mountpoint: str, on_ready: Callable[[], None] | None, scheduler: Scheduler | None,
                 outside: Callable[[], int] | None) -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_stop_on_signal)
        if scheduler is not None:
            nursery.start_soon(scheduler.run, outside)
        nursery.start_soon(_announce_when_usable, mountpoint, on_ready)
        # pyfuse3 as it comes: its wait for each request (a trio.Lock handed from
        # task to task, an epoll round) is about 15 us of the loop's CPU per request
        # that a patched wait saved (benchmarks/find_floor.py, a `find` of the peers'
        # Packs folder, ~17,000 requests: daemon CPU 0.35 s patched, 0.60 s as is)
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
