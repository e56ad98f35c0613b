"""The memory governor's policy (tree/governor.py) on its own, and the cache's
effective bound it drives (ByteLRU.set_bound)."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from gbxfs.tree.cache import CHEAP, COSTLY, DURABLE, ByteLRU
from gbxfs.tree.governor import MIB, Governor


def gov(cache_mb: int = 48, **kw) -> Governor:
    # limit cache_mb + 100 MiB: high water (workers) 36 MiB below it, the cache's
    # cut 22 MiB below it, low water 12 MiB below high water (at 48: 112, 126, 100)
    return Governor(cache_mb * MIB, (cache_mb + 100) * MIB, 8, **kw)


def test_starts_at_the_nominal_limits_and_keeps_them_while_memory_is_low():
    g = gov()
    assert (g.bound, g.workers) == (48 * MIB, 8)
    for t in range(50):
        assert g.sample(60 * MIB, t * 0.2, cached=40 * MIB) == 48 * MIB
    assert g.workers == 8 and not g.pressed


def test_over_high_water_halves_the_workers_first_and_leaves_the_cache():
    g = gov()
    seen = []
    for t in range(5):
        assert g.sample(120 * MIB, t * 0.2, cached=46 * MIB) == 48 * MIB    # above high (112), below the cut (126)
        seen.append(g.workers)
    assert seen == [4, 2, 1, 1, 1]
    assert g.pressed


def test_past_the_cut_with_one_worker_the_bound_drops_by_the_excess_then_steps():
    g = gov(floor=8 * MIB)
    for t in range(3):
        g.sample(130 * MIB, t * 0.2, cached=46 * MIB)     # workers 8 -> 1
    assert g.workers == 1 and g.bound == 48 * MIB
    # 24 MiB past the cut with 46 MiB cached: to 22 MiB at once
    assert g.sample(150 * MIB, 1.0, cached=46 * MIB) == 22 * MIB
    # still 9 MiB past it: what is cached less that, then a step (1.5 MiB) per sample
    bounds = [g.sample(135 * MIB, 1.0 + t * 0.2, cached=20 * MIB) for t in range(1, 40)]
    assert bounds[:2] == [11 * MIB, 9.5 * MIB]
    assert all(b == 8 * MIB for b in bounds[2:])          # the floor


def test_default_floor_keeps_most_of_the_cache():
    g = gov()
    for t in range(100):
        g.sample(200 * MIB, t * 0.2, cached=48 * MIB)
    assert g.bound == g.floor == int(48 * MIB * 0.8) and g.workers == 1


def test_holds_between_the_marks_and_grows_back_below_low_water_cache_first():
    g = gov(floor=8 * MIB)
    for t in range(3):
        g.sample(130 * MIB, t * 0.2, cached=46 * MIB)
    g.sample(150 * MIB, 1.0, cached=46 * MIB)              # bound 22 MiB, one worker
    assert g.sample(105 * MIB, 10.0, cached=20 * MIB) == 22 * MIB and g.workers == 1   # between 100 and 112
    # below low water: the bound first, 3 MiB a second (48/16) from the last sample
    assert g.sample(90 * MIB, 11.0, cached=20 * MIB) == 25 * MIB
    assert g.sample(90 * MIB, 13.0, cached=20 * MIB) == 31 * MIB
    assert g.sample(90 * MIB, 19.0, cached=20 * MIB) == 48 * MIB and g.workers == 1
    # then a worker per 2 s below low water
    workers = []
    for t in range(1, 31):
        g.sample(90 * MIB, 19.0 + t * 0.5, cached=20 * MIB)
        workers.append(g.workers)
    assert workers[3] == 2 and workers[7] == 3 and workers[-1] == 8
    assert not g.pressed


def test_outside_bytes_past_the_allowance_are_charged_to_the_cache():
    g = gov(floor=8 * MIB)
    assert g.sample(60 * MIB, 0.0, cached=0, other=14 * MIB) == 48 * MIB       # within the 16 MiB allowance
    assert g.sample(60 * MIB, 0.2, cached=0, other=30 * MIB) == 34 * MIB       # 14 MiB past it
    assert g.sample(60 * MIB, 0.4, cached=0, other=100 * MIB) == 8 * MIB       # never below the floor
    assert g.sample(60 * MIB, 10.4, cached=0, other=0) == 38 * MIB             # given back, 3 MiB a second


@settings(max_examples=200, deadline=None)
@given(cache_mb=st.integers(1, 4096), workers=st.integers(1, 64), seed=st.integers(0, 2**32 - 1))
def test_limits_stay_in_range_and_fall_while_rss_is_high(cache_mb, workers, seed):
    rnd = random.Random(seed)
    g = Governor(cache_mb * MIB, (cache_mb + 100) * MIB, workers)
    t = 0.0
    for _ in range(200):
        t += rnd.choice((0.0, 0.2, 0.2, 1.0, 7.5))
        rss = rnd.randrange(0, (cache_mb + 200) * MIB)
        other = rnd.choice((0, rnd.randrange(0, (cache_mb + 32) * MIB)))
        before, before_workers = g.bound, g.workers
        bound = g.sample(rss, t, cached=rnd.randrange(0, cache_mb * MIB + 1), other=other)
        assert g.floor <= bound <= max(g.floor, cache_mb * MIB - max(0, other - g.allowance))
        assert 1 <= g.workers <= workers
        if rss > g.high:
            assert g.workers < before_workers or g.workers == 1
            assert bound <= before
        if rss > g.cut and before_workers == 1:
            assert bound < before or bound == g.floor
        if rss >= g.low:
            assert g.workers <= before_workers


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
