"""Work in flight outside the cache stays inside its bound (tree/cache.py,
tree/gbx/digest.py): body walks run one at a time, each with room the cache
evicts for (digests too, when nothing else is left), and a chunk text read in
pieces never holds the whole text."""
from __future__ import annotations

import threading
import zlib

import pytest

from gbxfs.tree.cache import DURABLE, ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx import digest
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.source import FileSource
from corpusdata import CORPUS, corpus_path


def test_concurrent_walks_never_hold_more_than_the_bound_as_counted():
    """16 threads each 'walk' (making) with a small first room grown in steps to
    most of the bound, while other values are stored: at every step, the values
    in the cache plus all room in flight fit in the bound, and one walk at a time
    is inside making()."""
    bound = 1000
    cache = ByteLRU(bound)
    cache.get_or_make("digest", lambda: ("D", 300), rank=DURABLE)
    inside, worst, start = [0], [0], threading.Barrier(16)
    lock = threading.Lock()
    errors = []

    def walker(n: int) -> None:
        try:
            start.wait()
            with cache.making(50) as grow:
                with lock:
                    inside[0] += 1
                    worst[0] = max(worst[0], inside[0])
                for step in range(8):
                    grow(100)                       # room: 50 .. 850
                    cache.put(("rendered", n, step), "x", 60)
                    with lock:
                        total = cache.current_bytes + cache.held_bytes
                        assert total <= bound, f"{total} counted in a bound of {bound}"
                with lock:
                    inside[0] -= 1
        except BaseException as e:               # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=walker, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert worst[0] == 1
    assert cache.held_bytes == 0


def test_room_for_a_walk_evicts_digests_when_nothing_else_is_left():
    cache = ByteLRU(100)
    cache.get_or_make("old", lambda: ("O", 30), rank=DURABLE)
    cache.get_or_make("new", lambda: ("N", 30), rank=DURABLE)     # within their share together
    cache.get("old")                                               # "new" is now the least recent
    with cache.making(50) as grow:
        assert [k for k in ("old", "new") if cache.get(k) is not None] == ["old"]
        grow(20)                                                   # 70 + 30 still fits
        assert cache.get("old") == "O"
        grow(10)                                                   # 80: the last digest goes too
        assert cache.get("old") is None and cache.current_bytes == 0
    assert cache.held_bytes == 0


@pytest.mark.corpus
def test_a_large_chunk_text_is_read_in_pieces_without_the_whole_text(corpus, monkeypatch):
    """The largest chunk dump of TestMap.Gbx, read in 128 KiB pieces once its text
    is in the digest: the same bytes as the whole text, decompressed one block at
    a time (a piece spans two at most), and no copy of the text enters the cache."""
    path = corpus_path("TestMap.Gbx")
    ctx = TreeContext(cache=ByteLRU(1 << 40))
    d = open_gbx("TestMap.Gbx", FileSource(str(CORPUS / path)), ctx)
    nodes = d.children()["body"].child("nodes")
    texts = [f for sub in nodes.children().values() for n, f in sub.children().items() if n.endswith(".txt")]
    big = max(texts, key=lambda f: f.size())
    whole = big.read(0, big.size())
    assert len(whole) > 4 * digest.TEXT_BLOCK, "no text spans several blocks: the test would prove nothing"
    cached = ctx.cache.current_bytes
    largest = [0]
    real = zlib.decompress

    def counting(data, *a):
        out = real(data, *a)
        largest[0] = max(largest[0], len(out))
        return out
    monkeypatch.setattr(digest.zlib, "decompress", counting)
    got = b"".join(big.read(at, 128 * 1024) for at in range(0, len(whole), 128 * 1024))
    assert got == whole
    assert 0 < largest[0] <= digest.TEXT_BLOCK
    assert ctx.cache.current_bytes == cached
