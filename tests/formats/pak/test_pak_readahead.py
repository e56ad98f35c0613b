"""Small entries read whole, read ahead, or read in parts: the same bytes
every way, and what the cache keeps."""
from __future__ import annotations

import random

import pytest

from gbxfs.formats.gbx import writer as gbx_writer
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.writer import PakFile, build_pak
from gbxfs.tree.cache import ByteLRU

KS = b"0123456789ABCDEF0123456789ABCDEF"


def _files() -> list[PakFile]:
    rnd = random.Random(7)
    out = []
    for i in range(6):
        data = rnd.randbytes(3000 + 1000 * i).translate(bytes(0x41 + (b & 7) for b in range(256)))
        out.append(PakFile(f"R/f{i}.bin", data, compress=i % 3 != 0))
    body = gbx_writer.node_body([(0x03079FF0, rnd.randbytes(5000), True)])
    gbx = gbx_writer.build_gbx(class_id=0x03079000, body=body, empty_user_data=True)
    out += [PakFile("R/c.Clip.Gbx", gbx), PakFile("R/d.Clip.Gbx", gbx, compress=False)]
    return out


def _arc(cache):
    data = build_pak(_files(), KS)
    return PakArchive(lambda o, n: data[o:o + n], len(data), derive_key(KS), cache=cache)


@pytest.mark.parametrize("way", ["whole", "parts", "ahead"])
def test_every_way_gives_the_written_bytes(way):
    cache = ByteLRU(64 << 20)
    arc = _arc(cache)
    for f, rec in zip(_files(), arc.files):
        e = arc.entry(rec)
        if way == "whole":
            got = e.read(0, 1 << 20)
        elif way == "parts":
            got = b"".join(e.read(o, 1000) for o in range(0, e.size, 1000))
        else:
            assert e.read_ahead() == e.size and e.checked and e.error is None
            got = e.read_cached(0, 1000) + e.read_cached(1000, e.size)
            assert e.read_cached(0, 10) is None       # served to its end: left the cache
            assert e.read(0, e.size) == got
        assert got == f.data, f.path


def test_a_whole_first_read_keeps_nothing_a_partial_one_keeps_the_entry():
    cache = ByteLRU(64 << 20)
    arc = _arc(cache)
    whole, part = arc.entry(arc.files[1]), arc.entry(arc.files[2])   # both compressed
    table = cache.current_bytes        # the archive's file table lives in the cache too
    assert table == arc.files.nbytes
    whole.read(0, whole.size)
    assert cache.current_bytes == table
    part.read(0, 10)
    assert cache.current_bytes == table + part.size and part.read_cached(10, 20) is not None


def test_a_corrupt_small_entry_is_refused_by_every_way():
    data = bytearray(build_pak(_files(), KS))
    arc = PakArchive(lambda o, n: bytes(data[o:o + n]), len(data), derive_key(KS))
    rec = arc.files[1]
    at = arc.entry(rec).start + 8 + rec.stored_size // 2
    data[at] ^= 0xFF
    for reading in ("read", "ahead"):
        fresh = PakArchive(lambda o, n: bytes(data[o:o + n]), len(data), derive_key(KS), cache=ByteLRU(1 << 20))
        e = fresh.entry(fresh.files[1])
        if reading == "read":
            with pytest.raises(Exception):
                e.read(0, e.size)
        else:
            e.read_ahead()
            assert e.read_cached(0, 10) is None
        assert e.error is not None


def test_a_large_stored_entry_reads_by_pieces_and_prefetches_the_next_ones():
    from concurrent.futures import ThreadPoolExecutor

    from gbxfs.formats.pak.seekinflate import CHUNK

    rnd = random.Random(9)
    big = rnd.randbytes(3 * CHUNK + 12345)
    data = build_pak([PakFile("B/big.bin", big, compress=False)], KS)
    cache = ByteLRU(64 << 20)
    arc = PakArchive(lambda o, n: data[o:o + n], len(data), derive_key(KS), cache=cache)
    e = arc.entry(arc.files[0])
    assert e.prefetch_pieces(0) == []            # nothing verified yet: nothing to prefetch
    step, got, claimed = 128 << 10, [], []
    with ThreadPoolExecutor(2) as pool:
        for off in range(0, e.size, step):
            piece = e.read_cached(off, step)
            got.append(piece if piece is not None else e.read(off, step))
            todo = e.prefetch_pieces(off + len(got[-1]))
            claimed += todo
            assert e.prefetch_pieces(off + len(got[-1])) == []    # claimed once
            for at in todo:
                pool.submit(e.prefetch, at)
    assert b"".join(got) == big
    # every piece after the first was prepared in the background, ahead of its reader
    assert claimed == [CHUNK * i for i in range(1, 4)]
    assert all(cache.get((e._token, at)) is not None for at in claimed)
