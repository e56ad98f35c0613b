"""The memory governor's policy (tree/governor.py) on its own, and the cache's
effective bound it drives (ByteLRU.set_bound)."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from gbxfs.tree.cache import CHEAP, COSTLY, DURABLE, ByteLRU
from gbxfs.tree.governor import MIB, Governor


def gov(cache_mb: int = 48, **kw) -> Governor:
    return Governor(cache_mb * MIB, (cache_mb + 100) * MIB, **kw)


def test_starts_at_the_nominal_bound_and_keeps_it_while_memory_is_low():
    g = gov()
    assert g.bound == 48 * MIB
    for t in range(50):
        assert g.sample(60 * MIB, t * 0.2, cached=40 * MIB) == 48 * MIB
    assert not g.pressed


def test_over_high_water_cuts_by_the_excess_at_once():
    g = gov()
    # high water = 148 - 16 = 132 MiB; 20 MiB over it with 46 MiB cached
    bound = g.sample(152 * MIB, 0.0, cached=46 * MIB)
    assert bound == 26 * MIB
    assert g.pressed


def test_keeps_stepping_down_while_rss_stays_high_but_never_below_the_floor():
    g = gov()
    bounds = [g.sample(140 * MIB, t * 0.2, cached=48 * MIB) for t in range(100)]
    assert all(b2 < b1 for b1, b2 in zip(bounds, bounds[1:]) if b1 > g.floor)
    assert bounds[-1] == g.floor == 12 * MIB


def test_holds_between_the_marks_and_grows_back_slowly_below_low_water():
    g = gov()
    g.sample(152 * MIB, 0.0, cached=46 * MIB)            # cut to 26 MiB
    assert g.sample(125 * MIB, 10.0, cached=20 * MIB) == 26 * MIB   # between low (116) and high (132)
    # below low water: 3 MiB a second (48/16), from the last sample
    assert g.sample(100 * MIB, 11.0, cached=20 * MIB) == 29 * MIB
    assert g.sample(100 * MIB, 13.0, cached=20 * MIB) == 35 * MIB
    assert g.sample(100 * MIB, 100.0, cached=20 * MIB) == 48 * MIB     # up to the ceiling, no further


def test_outside_bytes_are_charged_to_the_cache():
    g = gov()
    assert g.sample(60 * MIB, 0.0, cached=0, other=14 * MIB) == 34 * MIB
    # ... never below the floor, and given back when they go
    assert g.sample(60 * MIB, 0.2, cached=0, other=100 * MIB) == 12 * MIB
    assert g.sample(60 * MIB, 10.2, cached=0, other=0) == 42 * MIB    # 3 MiB a second


@settings(max_examples=200, deadline=None)
@given(cache_mb=st.integers(1, 4096), seed=st.integers(0, 2**32 - 1))
def test_bound_stays_between_floor_and_ceiling_and_falls_when_rss_is_high(cache_mb, seed):
    rnd = random.Random(seed)
    g = gov(cache_mb)
    t = 0.0
    for _ in range(200):
        t += rnd.choice((0.0, 0.2, 0.2, 1.0, 7.5))
        rss = rnd.randrange(0, (cache_mb + 200) * MIB)
        other = rnd.choice((0, rnd.randrange(0, (cache_mb + 1) * MIB)))
        before = g.bound
        bound = g.sample(rss, t, cached=rnd.randrange(0, cache_mb * MIB + 1), other=other)
        assert g.floor <= bound <= max(g.floor, cache_mb * MIB - other)
        assert bound <= cache_mb * MIB
        if rss > g.high:
            assert bound < before or bound == g.floor


def fill(cache: ByteLRU, n: int, size: int) -> None:
    for i in range(n):
        cache.put(("v", i), object(), size, rank=(CHEAP, COSTLY, DURABLE)[i % 3])


def test_set_bound_evicts_down_by_the_cache_order_and_bound_governs_later_puts():
    c = ByteLRU(64 * 1024)
    fill(c, 12, 4096)                       # 48 KiB: 4 of each rank, in turn
    c.set_bound(32 * 1024)
    assert c.current_bytes == 32 * 1024
    # durable values last; before them the least recently used cheap or costly one
    # while made values pass COSTLY_SHARE (0, 1, 3), then cheap ones first (6)
    assert c.rank_bytes(DURABLE) == 4 * 4096
    assert [i for i in range(12) if c.get(("v", i)) is None] == [0, 1, 3, 6]
    # later values keep to the lowered bound, and a value above it is not kept
    c.put("big", object(), 40 * 1024, costly=True)
    assert c.get("big") is None
    c.put("small", object(), 4096)
    assert c.current_bytes <= 32 * 1024 and c.get("small") is not None
    # the bound never exceeds the nominal one, and max_bytes never moves
    c.set_bound(10 ** 9)
    assert c.bound == c.max_bytes == 64 * 1024
    c.put("big", object(), 40 * 1024, costly=True)
    assert c.get("big") is not None


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_set_bound_always_leaves_the_cache_within_it(seed):
    rnd = random.Random(seed)
    c = ByteLRU(1 << 20)
    for step in range(300):
        if rnd.random() < 0.1:
            c.set_bound(rnd.randrange(0, 1 << 20))
            assert c.current_bytes <= c.bound
        else:
            c.put(("k", rnd.randrange(100)), object(), rnd.randrange(1, 1 << 17),
                  rank=rnd.choice((CHEAP, COSTLY, DURABLE)))
            assert c.current_bytes <= c.bound <= c.max_bytes
