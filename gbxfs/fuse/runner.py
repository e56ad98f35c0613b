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

from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.governor import Governor

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
# Seconds between two malloc_trim calls.
TRIM_EVERY = 1.0
# Seconds between two looks at the process's RSS (tree/governor.py).
GOVERN_EVERY = 0.2
# What the process may hold beyond the cache's bound (README: cache_mb + 100 MB).
HEADROOM = 100 << 20


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


class _Memory:
    """The mount's memory loop: every GOVERN_EVERY, the process's RSS (from
    /proc/self/statm) goes to a Governor, whose bound the cache evicts to and
    whose worker count the requests' thread limiter takes. malloc_trim gives
    the free pages inside glibc's heaps back to the system once per TRIM_EVERY,
    and at once after the bound was lowered (what a body walk or an evicted
    parse freed between live blocks stays in the process otherwise: glibc only
    trims the top of a heap). Each step runs in a thread of its own (not the
    requests' limiter): an eviction frees a parse's objects, and trim walks the
    free lists."""

    def __init__(self, cache: ByteLRU | None, outside: Callable[[], int] | None,
                 workers: trio.CapacityLimiter | None):
        self.trim = getattr(_libc(), "malloc_trim", None)
        self.cache, self.outside, self.workers = cache, outside, workers
        self.governor = None if cache is None else Governor(
            cache.max_bytes, cache.max_bytes + HEADROOM,
            int(workers.total_tokens) if workers is not None else 1)
        self._statm = None
        self._page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
        self._trimmed = 0.0
        try:
            self._statm = os.open("/proc/self/statm", os.O_RDONLY)
        except OSError:
            self.governor = None          # not Linux: trim only

    def rss(self) -> int:
        assert self._statm is not None      # asked with a governor, which needs it
        return int(os.pread(self._statm, 128, 0).split()[1]) * self._page

    def step(self, now: float) -> None:
        """One look at RSS, `now` in seconds on the loop's clock (trio.current_time)."""
        lowered = False
        if self.governor is not None:
            assert self.cache is not None   # a governor is made for a cache
            before = self.cache.bound
            bound = self.governor.sample(self.rss(), now, self.cache.current_bytes,
                                         self.outside() if self.outside else 0)
            if bound != before:
                self.cache.set_bound(bound)
                lowered = bound < before
        if self.trim is not None and (lowered or now - self._trimmed >= TRIM_EVERY):
            self._trimmed = now
            self.trim(0)

    async def tick(self) -> None:
        """A step in a thread, then the workers' tokens set from the governor."""
        await trio.to_thread.run_sync(self.step, trio.current_time())
        if self.workers is not None and self.governor is not None:
            # set here, on the loop: a trio limiter is not thread-safe
            if self.workers.total_tokens != self.governor.workers:
                self.workers.total_tokens = self.governor.workers

    async def run(self) -> None:
        if self.governor is None and self.trim is None:
            return
        every = GOVERN_EVERY if self.governor is not None else TRIM_EVERY
        try:
            while True:
                await trio.sleep(every)
                await self.tick()
        finally:
            if self._statm is not None:
                os.close(self._statm)
                self._statm = None


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
          cache: ByteLRU | None = None, outside: Callable[[], int] | None = None,
          workers: trio.CapacityLimiter | None = None) -> None:
    """Answer requests until unmounted or signalled, then make sure the mount is gone.
    With `cache`, its bound and the `workers` limiter's tokens follow the
    process's memory (_Memory), and `outside()` bytes kept outside the cache
    (the kernel's inodes) are charged to it."""
    _tune_malloc()
    _rare_young_collections()
    try:
        trio.run(_serve, mountpoint, on_ready, _Memory(cache, outside, workers))
    finally:
        pyfuse3.close(unmount=True)


async def _serve(mountpoint: str, on_ready: Callable[[], None] | None, memory: _Memory) -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_stop_on_signal)
        nursery.start_soon(memory.run)
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
