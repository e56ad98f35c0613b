"""What a body walk builds is counted as it is built (tree/gbx/cost.py): the
count is close to the memory really held (tracemalloc), the walk stops at its
limit instead of building the whole parse, and counting during the walk gives
the same nodes and cost as counting afterwards."""
from __future__ import annotations

import gc
import shutil
import tracemalloc

import pytest
from corpusdata import CORPUS, corpus_body, corpus_path

from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.cost import TooLarge, WalkBudget, scan_nodes
from gbxfs.tree.root import build_tree

pytestmark = pytest.mark.corpus
MiB = 1 << 20
# maps with many small records (blocks, free blocks), a crystal item (geometry),
# a replay (ghost samples, nested nodes)
FILES = ("TestMap.Gbx", "Cpexport#1.Crystal.Gbx", "TMS_Dirt_4.Replay.Gbx")


@pytest.mark.parametrize("needle", FILES)
def test_the_count_of_a_walk_is_the_memory_it_holds(corpus, needle):
    """Neither below what the parse keeps alive (the cache's bound would not be
    one) nor far above it (the cache would drop parses it could keep): within
    1.0-1.35 times tracemalloc's count."""
    body, kw = corpus_body(needle)
    walk_body(body, **kw)                       # declarations compiled, classes looked up
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        grown = []
        budget = WalkBudget(1 << 40, MiB, grown.append)
        result = walk_body(body, on_chunk=budget.on_chunk, **kw)
        nodes, cost = scan_nodes(result.nodes, budget)
        gc.collect()
        real = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert result.status == "complete"
    assert budget.total <= budget.room == MiB + sum(grown)      # the room grew as the walk went
    assert real <= cost <= 1.35 * real, f"{cost / MiB:.1f} MiB counted, {real / MiB:.1f} MiB held"


@pytest.mark.parametrize("needle", FILES)
def test_counting_during_the_walk_is_counting_afterwards(corpus, needle):
    body, kw = corpus_body(needle)
    budget = WalkBudget(1 << 40)
    result = walk_body(body, on_chunk=budget.on_chunk, **kw)
    during = scan_nodes(result.nodes, budget)
    after = scan_nodes(result.nodes)
    assert [id(n) for n in during[0]] == [id(n) for n in after[0]]
    assert during[1] == after[1]


def test_a_walk_stops_at_its_limit(corpus):
    """goth.Map.Gbx builds about 95 MiB of objects from a 4 MiB body: with a
    20 MiB limit the walk stops at the first chunk that takes its count past
    it, having held no more than it counted (the count is per chunk: one chunk
    of goth's blocks is about 30 MiB), and what it built is freed."""
    body, kw = corpus_body("goth.Map.Gbx")
    walk_body(body, **kw)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        budget = WalkBudget(20 * MiB, 4 * MiB)
        with pytest.raises(TooLarge) as stopped:
            walk_body(body, on_chunk=budget.on_chunk, **kw)
        counted = stopped.value.cost
        del stopped
        gc.collect()
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert 20 * MiB < counted < 60 * MiB
    assert peak - base < counted + MiB, f"peak {(peak - base) / MiB:.1f} MiB, {counted / MiB:.1f} counted"
    assert now - base < MiB


@pytest.mark.parametrize("needle, cache_mb", [("goth.Map.Gbx", 48), ("Cpexport#1.Crystal.Gbx", 24)])
def test_a_tree_holds_its_bound_over_a_file_it_cannot_keep(corpus, tmp_path, needle, cache_mb):
    """The tree over goth.Map.Gbx with a 48 MiB cache, and over a crystal with a
    24 MiB one: the parse cannot be kept (info.txt says so), and the whole listing
    and read of its folder holds less than the cache's bound plus the file's bytes
    and its body. Before the walk stopped at the bound, goth's folder's first read
    held about 100 MiB; before the walk counted inside a chunk (the generated
    decoders' charges), the crystal's geometry layers (about 37 MiB) were built
    before they were counted: 39.6 MiB at the peak."""
    from robust_walk import walk_tree
    shutil.copyfile(CORPUS / corpus_path(needle), tmp_path / needle)
    walk_tree(build_tree(str(tmp_path), TreeContext(cache=ByteLRU(cache_mb * MiB))))   # warm-up
    body, _ = corpus_body(needle)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        root = build_tree(str(tmp_path), TreeContext(cache=ByteLRU(cache_mb * MiB)))
        report = walk_tree(root, keep=lambda p: p.endswith("info.txt"))
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert not report.bugs
    assert "body_status = unavailable" in report.contents[f"/{needle}/info.txt"].decode()
    assert peak < cache_mb * MiB + 3 * len(body), f"peak {peak / MiB:.1f} MiB"
