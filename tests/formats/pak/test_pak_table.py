"""A large file table: compact in memory, accounted in the cache, read again
(identical, once however many threads ask) after eviction."""
from __future__ import annotations

import gc
import threading
import tracemalloc

import pytest

from gbxfs.formats.pak.archive import PakArchive
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.writer import many_files, build_pak
from gbxfs.tree.cache import ByteLRU

KS = b"0123456789ABCDEF0123456789ABCDEF"
FILES = 100_000
# what the table keeps per file, at most (44 bytes plus the stored name,
# 4-12 characters in many_files); README.md states it
BYTES_PER_FILE = 60


@pytest.fixture(scope="module")
def big():
    files = many_files(FILES, seed=3)
    data = build_pak(files, KS)
    return files, data


def _open(data, cache):
    return PakArchive(lambda o, n: data[o:o + n], len(data), derive_key(KS), cache=cache)


def _parts(f) -> tuple[str, ...]:
    return tuple(f.path.split("/"))


def test_records_are_what_was_written(big):
    files, data = big
    arc = _open(data, ByteLRU(256 << 20))
    table = arc.files
    assert len(table) == FILES
    for i in (0, 1, 96, 97, FILES // 2, FILES - 1):
        rec = table[i]
        assert (rec.index, rec.parts, rec.size) == (i, _parts(files[i]), len(files[i].data))
        assert rec.compressed == files[i].compress
    assert list(table.column("size")) == [len(f.data) for f in files]
    assert [r.parts for r in table] == [_parts(f) for f in files]


def test_the_table_is_compact_and_its_cost_is_what_it_keeps(big):
    _, data = big
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        cache = ByteLRU(256 << 20)
        arc = _open(data, cache)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    accounted = arc.files.nbytes
    assert cache.current_bytes == accounted
    # the accounting covers what the archive and its table keep (the rest is a few objects)
    assert kept <= accounted + 64 * 1024
    assert accounted <= BYTES_PER_FILE * FILES


def test_an_evicted_table_is_read_again_once_for_many_threads_and_is_identical(big):
    _, data = big
    cache = ByteLRU(64 << 20)
    arc = _open(data, cache)
    first = [(r.parts, r.size, r.offset, r.flags, r.class_id) for r in arc.files]
    assert arc.table_loads == 1
    cache.put("filler", b"", cache.max_bytes - 1024, costly=True)   # evicts the table
    assert arc.table_in_memory() is None
    barrier = threading.Barrier(8)
    got = []

    def ask():
        barrier.wait()
        got.append(len(arc.files))
    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [FILES] * 8
    assert arc.table_loads == 2
    assert cache.current_bytes == arc.files.nbytes      # accounted again, the filler evicted
    assert [(r.parts, r.size, r.offset, r.flags, r.class_id) for r in arc.files] == first


def test_a_table_larger_than_the_cache_still_works():
    files = many_files(2000, seed=4)
    data = build_pak(files, KS)
    arc = _open(data, ByteLRU(16 * 1024))
    assert [r.parts for r in arc.files] == [_parts(f) for f in files]
    e = arc.entry(arc.files[0])
    assert e.read(0, e.size) == files[0].data


def test_a_pak_without_files_has_an_empty_table():
    data = build_pak([], KS, folders=["Empty"])
    arc = _open(data, ByteLRU(1 << 20))
    assert len(arc.files) == 0 and list(arc.files) == [] and list(arc.files.fixed_fields()) == []
    assert [f.parts for f in arc.folders] == [("Empty",)]
