"""The mount's memory loop: the process's RSS sampled a few times a second,
turned by a Governor (tree/governor.py, sans-I/O) into the cache's bound and
the worker threads' limit, and glibc's free pages given back. The Scheduler
(fuse/scheduler.py) runs it and owns the limiter it steers."""
from __future__ import annotations

import os
from collections.abc import Callable

import trio

from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.governor import Governor

# Seconds between two malloc_trim calls.
TRIM_EVERY = 1.0
# Seconds between two looks at the process's RSS (tree/governor.py).
GOVERN_EVERY = 0.2
# What the process may hold beyond the cache's bound (README: cache_mb + 100 MB).
HEADROOM = 100 << 20


def libc():
    """glibc's functions (ctypes), or None off glibc."""
    try:
        import ctypes
        return ctypes.CDLL(None)
    except OSError:
        return None


class MemoryLoop:
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
        self.trim = getattr(libc(), "malloc_trim", None)
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
