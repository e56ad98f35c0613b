"""Memory audit of the pak layer: what an opened archive and its entries keep
must live in the byte-bounded cache they are given, so that emptying the cache
frees it. Synthetic paks (no corpus); measured with tracemalloc."""
from __future__ import annotations

import functools
import random

from memtrace import MiB, Traced, flush
from robust_gbx import build_gbx, node_body

from gbxfs.formats.pak import packlist
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.seekinflate import CHECKPOINT
from gbxfs.formats.pak.writer import PakFile, build_pak, make_key_string
from gbxfs.tree.cache import ByteLRU

KS = make_key_string("memory-pak")
KEY = packlist.derive_key(KS)


def _open(pak: bytes, cache) -> PakArchive:
    return PakArchive(lambda o, n: pak[o:o + n], len(pak), KEY, cache=cache)


@functools.lru_cache(maxsize=1)
def _metadata_pak() -> bytes:
    """16 GBX files whose headers carry 1 MiB of user data each: a 16 MiB
    metadata section (random bytes, so the pak itself stays the same size).
    Built once for the two tests that read it (bytes: nothing can change it)."""
    files = [PakFile(f"Meta/F{i}.Clip.Gbx",
                     build_gbx(0x03079000, node_body([]), header_chunks=[(0x03079002, random.Random(21).randbytes(MiB))]))
             for i in range(16)]
    return build_pak(files, KS)


def test_metadata_section_lives_in_the_cache():
    """The inflated metadata section is the cache's to keep: once evicted the
    archive holds none of it, and the next call reads it again."""
    pak = _metadata_pak()
    with Traced() as t:
        cache = ByteLRU(256 * MiB)
        arc = _open(pak, cache)
        meta = arc.metadata()
        assert len(meta.headers) == 16 and meta.error is None
        held = t.growth()
        assert held <= cache.current_bytes + MiB, "the cache is charged less than the metadata keeps"
        del meta
        flush(cache)
        kept = t.growth()
        assert len(arc.gbx_header(3)) > MiB          # re-derived on a miss
        del arc
    assert held > 16 * MiB
    assert kept < MiB, f"an archive keeps {kept / MiB:.1f} MiB of metadata outside the cache"


def test_metadata_cost_counts_the_headers():
    from gbxfs.tree.pak.archive import metadata_cost
    pak = _metadata_pak()
    arc = _open(pak, None)
    meta = arc.metadata()
    assert metadata_cost(meta) >= sum(len(h) for h in meta.headers.values())
    assert arc.metadata() is not meta             # no cache given: nothing kept


def _compressed_pak(n: int, size: int) -> tuple[bytes, bytes]:
    """`n` compressed entries of `size` bytes (text-like: ~3x smaller)."""
    rnd = random.Random(7)
    words = [rnd.randbytes(rnd.randint(3, 12)) for _ in range(2000)]
    data = b"".join(rnd.choices(words, k=size // 6))[:size]
    return build_pak([PakFile(f"Z/f{i}.bin", data, level=1) for i in range(n)], KS), data


def test_seek_checkpoints_live_in_the_cache():
    """Every entry read makes decompressor checkpoints (with the compressed
    input they still reference); they must be the cache's, so that the total
    kept is bounded by the cache and emptying it frees them."""
    pak, data = _compressed_pak(6, 4 * CHECKPOINT + 5)
    with Traced() as t:
        cache = ByteLRU(1 << 40)
        arc = _open(pak, cache)
        entries = [arc.entry(rec) for rec in arc.files]
        for e in entries:
            assert e.read(len(data) - 3, 3) == data[-3:]
        held = t.growth()
        assert held <= cache.current_bytes + MiB, f"{held / MiB:.1f} MiB kept, {cache.current_bytes / MiB:.1f} MiB accounted"
        flush(cache)
        kept = t.growth()
        for e in entries:                     # still readable: from the stream start, rebuilding them
            assert e.read(3 * CHECKPOINT + 1, 4) == data[3 * CHECKPOINT + 1:3 * CHECKPOINT + 5]
        del arc, entries
    assert kept < MiB, f"{len(pak) // MiB} MiB pak: its entries keep {kept / MiB:.1f} MiB of checkpoints outside the cache"
