"""A large file table: compact in memory, accounted in the cache, read again
(identical, once however many threads ask) after eviction. For version 3 paks
and version 6+ packs (their records carry a checksum from 14, a second size
from 17: version 18 has both, 13 neither)."""
from __future__ import annotations

import gc
import hashlib
import threading
import tracemalloc

import pytest

from gbxfs.formats.pak import archive, archive6
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.tree.pak.archive6 import PackArchive
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.records import NO_FEED_FLAG
from gbxfs.formats.pak.tablesum import roots, sums
from gbxfs.formats.pak.writer import many_files, build_pak
from gbxfs.formats.pak.writer6 import build_pack, many_pack_files
from gbxfs.tree.cache import ByteLRU

KS = b"0123456789ABCDEF0123456789ABCDEF"
# what the table keeps per file, at most (36 bytes plus the stored name,
# 4-12 characters and an extension in many_files: 47 on average); README.md
# states it. Version 6+ records keep what they add: a 16-byte checksum (14+)
# and a u32 (17+)
BYTES_PER_FILE = 52
MORE_PER_FILE = {3: 0, 13: 0, 18: 20}
KINDS = (3, 13, 18)      # the pak or pack version
# files in the large tables, per version: enough that a few fixed objects do not count
FILES = {3: 100_000, 18: 30_000}


def _build(version: int, files_or_count, seed: int = 3, header_flags: int = 2, **kw):
    """(files, bytes) of a pak (version 3) or a pack of public files (6+;
    header_flags 2: the table under the public key, 0: in clear)."""
    if version < 6:
        files = many_files(files_or_count, seed=seed) if isinstance(files_or_count, int) else files_or_count
        return files, build_pak(files, KS, **kw)
    files = many_pack_files(files_or_count, seed=seed) if isinstance(files_or_count, int) else files_or_count
    return files, build_pack(files, version=version, header_flags=header_flags, **kw)


@pytest.fixture(scope="module", params=sorted(FILES), ids=lambda v: f"v{v}")
def big(request):
    # the large pack's table in clear: version 18's 8-round Blowfish is pure Python (the
    # encrypted table is read in the tree tests and the small ones here)
    version = request.param
    return (version, FILES[version]) + _build(version, FILES[version], header_flags=0)


def _open(version: int, data, cache):
    if version < 6:
        return PakArchive(lambda o, n: data[o:o + n], len(data), derive_key(KS), cache=cache)
    return PackArchive(lambda o, n: data[o:o + n], len(data), None, cache=cache)


def _parts(f) -> tuple[str, ...]:
    return tuple(f.path.split("/"))


def test_records_are_what_was_written(big):
    version, n, files, data = big
    arc = _open(version, data, ByteLRU(256 << 20))
    table = arc.files
    assert len(table) == n
    recs = list(table)
    for i in (0, 1, 96, 97, n // 2, n - 1):
        rec = recs[i]
        assert rec == table[i]
        assert (rec.index, rec.parts, rec.size) == (i, _parts(files[i]), len(files[i].data))
        assert rec.compressed == files[i].compress
        if version >= 6:
            assert rec.version == version and not rec.encrypted
            assert rec.checksum == (hashlib.md5(files[i].data).digest() if version >= 14 else None)
            assert rec.size2 == (len(files[i].data) if version >= 17 else None)
    assert list(table.column("size")) == [len(f.data) for f in files]
    assert [r.parts for r in recs] == [_parts(f) for f in files]
    # the one-pass sums are what the records say
    s = sums(table)
    assert (s.files, s.compressed, s.size) == (n, sum(r.compressed for r in recs), sum(r.size for r in recs))
    assert (s.encrypted, s.no_feed) == (sum(r.encrypted for r in recs), sum(bool(r.flags & NO_FEED_FLAG) for r in recs))
    assert s.stored_size == sum(r.stored_size for r in recs)
    assert roots(table) == sorted({r.parts[0] for r in recs})


def test_rows_give_what_row_gives_in_any_order(big):
    """rows(indices) (a folder's listing, in one pass) is row(i) for each i asked."""
    version, n, _, data = big
    table = _open(version, data, ByteLRU(256 << 20)).files
    picked = [n - 1, 0, 97, 96, n // 2, 1, n // 2]      # any order, a repeat
    assert list(table.rows(picked)) == [(i, *table.row(i)) for i in picked]
    assert list(table.rows(iter(range(n)))) == [(i, *table.row(i)) for i in range(n)]
    assert list(table.rows([])) == []


def test_rows_decode_a_name_that_is_not_utf8_as_row_does():
    import struct
    from gbxfs.formats.pak.records import PakFolder
    from gbxfs.formats.pak.table import FIXED, read_files

    names = (b"caf\xe9.txt", "naïve.txt".encode(), b"plain")
    raw = b"".join(struct.pack("<iI", 0, len(n)) + n + FIXED.pack(0, i, i, 8 * i, 7, 1) for i, n in enumerate(names))
    pieces = [raw]
    table, _ = read_files(lambda k: pieces.pop() if pieces else b"", 3, [PakFolder(0, -1, "", ())], hashlib.md5())
    assert [r[1] for r in table.rows(range(3))] == ["café.txt", "naïve.txt", "plain"]
    assert list(table.rows(range(3))) == [(i, *table.row(i)) for i in range(3)]


def test_the_table_is_compact_and_its_cost_is_what_it_keeps(big):
    version, n, _, data = big
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        cache = ByteLRU(256 << 20)
        arc = _open(version, data, cache)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    accounted = arc.files.nbytes
    assert cache.current_bytes == accounted
    # the accounting covers what the archive and its table keep (the rest is a few objects)
    assert kept <= accounted + 64 * 1024
    assert accounted <= (BYTES_PER_FILE + MORE_PER_FILE[version]) * n


def test_an_evicted_table_is_read_again_once_for_many_threads_and_is_identical(big, monkeypatch):
    version, n, _, data = big
    cache = ByteLRU(64 << 20)
    arc = _open(version, data, cache)
    first = [(r.parts, r.size, r.offset, r.flags, r.class_id, r.checksum, r.size2) for r in arc.files]
    assert arc.table_loads == 1
    # the reads themselves are counted too, not only what the archive says
    reads = []
    module, name = (archive, "read_header") if version < 6 else (archive6, "read_table")
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **kw: reads.append(1) or real(*a, **kw))
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
    assert got == [n] * 8
    assert arc.table_loads == 2 and len(reads) == 1
    assert cache.current_bytes == arc.files.nbytes      # accounted again, the filler evicted
    assert [(r.parts, r.size, r.offset, r.flags, r.class_id, r.checksum, r.size2) for r in arc.files] == first


@pytest.mark.parametrize("version", KINDS)
def test_a_table_larger_than_the_cache_still_works(version, monkeypatch):
    """...and is read once: held beside the cache and counted in its bound, not
    decrypted again for each question asked of it (a listing per folder)."""
    files, data = _build(version, 2000, seed=4)
    reads = []
    module, name = (archive, "read_header") if version < 6 else (archive6, "read_table")
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **kw: reads.append(1) or real(*a, **kw))
    cache = ByteLRU(16 * 1024)
    arc = _open(version, data, cache)
    assert [r.parts for r in arc.files] == [_parts(f) for f in files]
    e = arc.entry(arc.files[0])
    assert e.read(0, e.size) == files[0].data
    for i in range(0, 2000, 20):
        assert arc.files[i].parts == _parts(files[i])
        assert arc.table_in_memory() is not None
    assert len(reads) == 1 and arc.table_loads == 1
    assert cache.held_bytes >= arc.files.nbytes > cache.max_bytes >= cache.current_bytes


@pytest.mark.parametrize("version", KINDS)
def test_a_pak_without_files_has_an_empty_table(version):
    _, data = _build(version, [], folders=["Empty"])
    arc = _open(version, data, ByteLRU(1 << 20))
    assert len(arc.files) == 0 and list(arc.files) == [] and list(arc.files.fixed_fields()) == []
    assert [f.parts for f in arc.folders] == [("Empty",)]


def test_roots_of_files_in_a_folder_without_a_name():
    """A folder whose stored name is only separators has no path part: its
    files' first part is their own name's."""
    import struct
    from array import array
    from gbxfs.formats.pak.records import PakFolder
    from gbxfs.formats.pak.table import FIXED, read_files

    folders = [PakFolder(0, -1, "\\", ()), PakFolder(1, -1, "Media\\", ("Media",))]
    raw = b"".join(struct.pack("<iI", f, len(n)) + n + FIXED.pack(0, 1, 1, 0, 0, 0)
                   for f, n in ((0, b"top.txt"), (1, b"a.dds"), (0, b"Sub\\b.txt"), (0, b"\\")))
    pieces = [raw]
    table, size = read_files(lambda n: pieces.pop() if pieces else b"", 4, folders, hashlib.md5())
    assert size == len(raw)
    assert roots(table) == ["Media", "Sub", "top.txt"] == sorted({r.parts[0] for r in table if r.parts})


def test_columns_are_the_fixed_fields_transposed(big):
    """columns() (the sums' and the typed names' one pass) holds, field by field,
    what fixed_fields() gives record by record."""
    version, n, _, data = big
    table = _open(version, data, ByteLRU(256 << 20)).files
    cols = table.columns()
    assert [list(c) for c in cols] == [list(c) for c in zip(*table.fixed_fields())]
    assert len(cols[0]) == n
    whole = [list(c) for c in cols]
    for a, b in ((0, 1), (5, 70), (n - 3, n), (n - 3, n + 9), (n, n + 1)):
        assert [list(c) for c in table.columns(a, b)] == [c[a:b] for c in whole]


def test_passes_over_the_table_in_chunks_add_up_to_one_pass(big, monkeypatch):
    """sums and scan take a large table COLUMN_CHUNK files at a time."""
    import struct
    from gbxfs.formats.pak import table as table_module, tablesum
    from gbxfs.formats.pak.records import PakFolder
    from gbxfs.formats.pak.table import FIXED, read_files

    version, _, _, data = big
    big_table = _open(version, data, ByteLRU(256 << 20)).files
    names = [(f"n{i}" + (".x" if i % 5 == 0 else "") + ("\\sub.y\\z" if i % 7 == 0 else "")).encode()
             for i in range(50)]
    raw = b"".join(struct.pack("<iI", 0, len(n)) + n + FIXED.pack(0, i, i, 0, i % 4, i % 3) for i, n in enumerate(names))
    pieces = [raw]
    table, _ = read_files(lambda k: pieces.pop() if pieces else b"", len(names), [PakFolder(0, -1, "", ())],
                          hashlib.md5())
    asked = []

    def wanted(c):
        asked.append(c)
        return c != 2
    whole, picked = (sums(big_table), sums(table)), tablesum.scan(table, wanted)[1]
    assert sorted(asked) == [0, 1, 2, 3]        # once per class id
    assert picked == [i for i in range(50) if i % 4 != 2 and "." not in names[i].decode().rpartition("\\")[2]]
    assert 0 < len(picked) < 50
    monkeypatch.setattr(tablesum, "COLUMN_CHUNK", 7)
    monkeypatch.setattr(table_module, "COLUMN_CHUNK", 7)
    asked.clear()
    assert (sums(big_table), sums(table)) == whole
    assert tablesum.scan(table, wanted)[1] == picked and sorted(asked) == [0, 1, 2, 3]
