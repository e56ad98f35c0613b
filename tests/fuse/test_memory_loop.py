"""The mount's memory loop (fuse/memory.py MemoryLoop): RSS samples in, the cache's
bound and the worker limiter's tokens out."""
from __future__ import annotations

import trio
import trio.testing

from gbxfs.fuse import memory as memory_loop
from gbxfs.tree.cache import COSTLY, ByteLRU

MIB = 1 << 20


def memory(rss: list[int] | None, outside: int = 0, tokens: int = 8):
    """A memory loop over a cache of 46 of 48 MiB; its RSS is rss[0] when given."""
    cache = ByteLRU(48 * MIB)
    for i in range(46):
        cache.put(("v", i), object(), MIB, rank=COSTLY)
    limiter = trio.CapacityLimiter(tokens)
    m = memory_loop.MemoryLoop(cache, lambda: outside, limiter)
    if rss is not None:
        m.rss = lambda: rss[0]
    return m, cache, limiter


def test_reads_its_own_rss():
    m, _, _ = memory(None)
    assert 10 * MIB < m.rss() < 10_000 * MIB


async def looks(m, ticks: int) -> None:
    """What MemoryLoop.run does for `ticks` periods of the loop's clock. The ticks
    are driven here, not by run(): a mock clock that jumps whenever every task
    is blocked would also jump while a tick's step runs in its thread."""
    for _ in range(ticks):
        await trio.sleep(memory_loop.GOVERN_EVERY)
        await m.tick()


def test_high_rss_takes_workers_then_cache_and_low_rss_gives_them_back():
    rss = [200 * MIB]
    m, cache, limiter = memory(rss)

    async def run() -> None:
        await looks(m, 2)
        assert limiter.total_tokens == 2 and cache.bound == cache.max_bytes   # workers go first
        await looks(m, 2)
        assert limiter.total_tokens == 1
        assert cache.bound == m.governor.floor and cache.current_bytes <= cache.bound
        rss[0] = 50 * MIB
        bounds = []
        while cache.bound < cache.max_bytes:                # the cache grows back first
            await looks(m, 1)
            assert limiter.total_tokens == 1 and len(bounds) < 100
            bounds.append(cache.bound)
        assert bounds == sorted(set(bounds)) and len(bounds) > 1
        calm = trio.current_time()
        while limiter.total_tokens == 1:                    # then a worker per worker_every
            await looks(m, 1)
            assert trio.current_time() - calm < 2 * m.governor.worker_every
        assert trio.current_time() - calm >= m.governor.worker_every - 1e-9
        assert limiter.total_tokens == 2 and cache.bound == cache.max_bytes
    trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))


def test_inodes_past_the_allowance_are_charged():
    m, cache, _ = memory([50 * MIB], outside=20 * MIB)
    m.step(0.0)
    assert cache.bound == 44 * MIB and cache.current_bytes <= 44 * MIB     # 4 MiB past 16
