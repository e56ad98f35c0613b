"""The mount's memory loop (fuse/runner.py _Memory): RSS samples in, the cache's
bound and the worker limiter's tokens out."""
from __future__ import annotations

import trio

from gbxfs.fuse import runner
from gbxfs.tree.cache import COSTLY, ByteLRU

MIB = 1 << 20


def memory(rss: list[int], outside: int = 0, tokens: int = 8):
    cache = ByteLRU(48 * MIB)
    for i in range(46):
        cache.put(("v", i), object(), MIB, rank=COSTLY)
    limiter = trio.CapacityLimiter(tokens)
    m = runner._Memory(cache, lambda: outside, limiter)
    m.rss = lambda: rss[0]
    return m, cache, limiter


def test_reads_its_own_rss():
    m, _, _ = memory([0])
    assert 10 * MIB < runner._Memory.rss(m) < 10_000 * MIB


def test_high_rss_takes_workers_then_cache_and_low_rss_gives_them_back():
    rss = [200 * MIB]
    m, cache, limiter = memory(rss)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(m.run)
            await trio.sleep(runner.GOVERN_EVERY * 8)
            assert limiter.total_tokens == 1
            assert cache.bound == m.governor.floor and cache.current_bytes <= cache.bound
            rss[0] = 50 * MIB
            await trio.sleep(runner.GOVERN_EVERY * 10 + 2.5 * m.governor.worker_every)
            assert cache.bound == cache.max_bytes
            assert limiter.total_tokens > 1
            nursery.cancel_scope.cancel()
    trio.run(run)


def test_inodes_past_the_allowance_are_charged():
    m, cache, _ = memory([50 * MIB], outside=20 * MIB)
    m.step()
    assert cache.bound == 44 * MIB and cache.current_bytes <= 44 * MIB     # 4 MiB past 16
