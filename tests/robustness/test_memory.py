"""Memory audit: everything the tree computes lives in the byte-bounded cache
(ctx.cache), and the cache's accounting is not below what its entries really
keep alive. Measured with tracemalloc (Python allocations, bytes objects
included), never with timings."""
from __future__ import annotations

import shutil

import pytest
from corpusdata import CORPUS, manifest_rows
from memtrace import MiB, Traced, flush
from robust_gbx import build_gbx, node_body
from robust_walk import walk_tree

from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.root import build_tree
from gbxfs.tree.walk import resolve

pytestmark = pytest.mark.corpus


def _path(needle: str) -> str:
    return next(r["path"] for r in manifest_rows() if needle in r["path"])


@pytest.fixture(scope="module")
def folder(corpus, tmp_path_factory):
    """A large TM2020 map, a replay with ghosts and an embedded map, a ghost,
    a GP2 track and the synthetic pak."""
    d = tmp_path_factory.mktemp("memory")
    for needle in ("Royal/NoTechLogic.Map.Gbx", "Bruno_B13-Obstacle.Replay.gbx", "p00001_19538",
                   "GP2-F1CT07"):
        p = _path(needle)
        shutil.copyfile(CORPUS / p, d / p.rsplit("/", 1)[-1])
    shutil.copytree(CORPUS / "synthetic-pak" / "Packs", d / "Packs")
    walk_tree(build_tree(str(d), TreeContext()))     # warm-up: class data, declarations, imports
    return d


def test_tree_keeps_nothing_once_the_cache_is_emptied(folder):
    """After walking everything, the tree holds names and sizes only: emptying
    the cache frees the chunk dumps, parsed bodies, ghosts and tracks."""
    with Traced() as t:
        ctx = TreeContext()
        root = build_tree(str(folder), ctx)
        report = walk_tree(root)
        assert not report.bugs and report.bytes_read > 5 * MiB
        walked = t.growth()
        flush(ctx.cache)
        kept = t.growth()
        del root
    assert walked > 20 * MiB                 # the walk did keep a lot: in the cache
    assert kept < 2 * MiB, f"the tree alone keeps {kept / MiB:.1f} MiB after the cache was emptied"


def test_cache_accounting_covers_what_it_keeps(folder):
    """The cache's byte count is at least the memory its entries keep alive,
    so its bound is a real bound (parsed maps weigh several times their body)."""
    with Traced() as t:
        ctx = TreeContext(cache=ByteLRU(1 << 40))   # nothing evicted: everything is counted
        root = build_tree(str(folder), ctx)
        walk_tree(root)
        growth = t.growth()
        accounted = ctx.cache.current_bytes
        del root
    assert growth <= accounted + 2 * MiB, f"{growth / MiB:.1f} MiB kept, {accounted / MiB:.1f} MiB accounted"


def test_a_failed_header_does_not_keep_the_file(tmp_path):
    """A header that fails only after the whole file was read (its user data
    is larger than the first read) must not keep the file's bytes alive
    through the error's traceback, at the 1 KiB the cache charges for it."""
    data = bytearray(build_gbx(0x03043000, node_body([]), header_chunks=[(0x03043002, b"\0" * (4 * MiB))]))
    data[17:21] = b"\xff\xff\x00\x00"      # a chunk count that cannot fit: fails on the full read too
    (tmp_path / "big.Map.Gbx").write_bytes(bytes(data))
    walk_tree(build_tree(str(tmp_path), TreeContext()))   # warm-up
    with Traced() as t:
        ctx = TreeContext()
        root = build_tree(str(tmp_path), ctx)
        report = walk_tree(root)
        assert not report.bugs and report.bytes_read >= len(data)
        growth = t.growth()
        del root
    assert growth <= ctx.cache.current_bytes + MiB, f"{growth / MiB:.1f} MiB kept for a failed header"


def test_pak_gbx_entry_keeps_no_copy_outside_the_cache():
    """A verified GBX entry's bytes go to the cache; the entry itself must not
    keep a second copy (it would outlive any cache bound)."""
    from gbxfs.formats.pak import packlist
    from gbxfs.tree.pak.archive import PakArchive
    from gbxfs.formats.pak.writer import PakFile, build_pak, make_key_string

    payload = bytes(range(256)) * (12 * 1024)       # 3 MiB in one skippable chunk of a clip
    gbx = build_gbx(0x03079000, node_body([(0x03079FF0, payload, True)]))
    ks = make_key_string("memory")
    pak = build_pak([PakFile("Memory/Big.Clip.Gbx", gbx, compress=False)], ks)
    key = packlist.derive_key(ks)
    with Traced() as t:
        cache = ByteLRU(256 * MiB)
        arc = PakArchive(lambda o, n: pak[o:o + n], len(pak), key, cache=cache)
        entry = arc.entry(arc.files[0])
        assert entry.read(0, len(gbx)) == gbx
        flush(cache)
        kept = t.growth()
        assert entry.read(0, 16) == gbx[:16]          # still readable after the cache lost it
        del arc, entry
    assert kept < MiB, f"a {len(gbx) / MiB:.0f} MiB entry keeps {kept / MiB:.1f} MiB outside the cache"


def test_body_larger_than_the_cache_is_parsed_once_and_explained(tmp_path, monkeypatch):
    """A body whose parse outweighs the whole cache cannot be kept: it must be
    reported (info.txt, error.txt), not parsed again for every file read; its
    bytes (body.bin) need no parse and are still shown."""
    from gbxfs.tree.gbx import parse as gbx_parse
    calls = []
    real = gbx_parse.walk_body
    monkeypatch.setattr(gbx_parse, "walk_body", lambda *a, **k: calls.append(1) or real(*a, **k))
    # 1 MB of 20,000 small chunks: the parse outweighs the bytes many times. The
    # bytes fit half the cache (a larger body is not even decompressed: tree/gbx/parse.py)
    chunks = [(0x03079FF0 + i % 8, bytes([i % 251]) * 40, True) for i in range(20_000)]
    body = node_body(chunks)
    (tmp_path / "big.Clip.Gbx").write_bytes(build_gbx(0x03079000, body, compress=True))
    ctx = TreeContext(cache=ByteLRU(3 * MiB))
    root = build_tree(str(tmp_path), ctx)
    report = walk_tree(root, keep=lambda p: p.endswith(("info.txt", "body.bin")))
    assert not report.bugs
    assert len(calls) == 1
    assert report.contents["/big.Clip.Gbx/body/body.bin"] == body
    info = report.contents["/big.Clip.Gbx/info.txt"].decode()
    assert "body_status = unavailable" in info and "cache_mb" in info
    error = resolve(root, "big.Clip.Gbx/body/nodes/error.txt")    # where the body parse's problems are
    assert "cache_mb" in error.read(0, 4096).decode()


def test_reserve_makes_room_by_evicting_the_least_recent():
    cache = ByteLRU(100)
    for k in "abcd":
        cache.put(k, k, 25)
    cache.get("a")                                   # a is now the most recent
    cache.reserve(40)                                # room for 40: b and c go
    assert [k for k in "abcd" if cache.get(k) is not None] == ["a", "d"]
    assert cache.current_bytes == 50
    cache.reserve(1000)                              # more than the cache: empties it, no loop
    assert cache.current_bytes == 0


def test_peek_answers_without_counting_as_a_use():
    cache = ByteLRU(100)
    for k in "abcd":
        cache.put(k, k, 25)
    assert cache.peek("a") == "a" and cache.peek("z") is None
    cache.reserve(25)                                # a is still the least recent: it goes
    assert [k for k in "abcd" if cache.peek(k) is not None] == ["b", "c", "d"]
