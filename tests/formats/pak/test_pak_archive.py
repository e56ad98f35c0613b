"""Pak archives built by the project's writer: header, folder feed, layouts,
entries of every kind and size, and bad input."""
from __future__ import annotations

import random
import struct
import zlib

import pytest
from pak_testkit import calc_ivxor_seed, reference_encrypt

from gbxfs.formats.pak import header as pak_header
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.cipher import align8
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.seekinflate import CHECKPOINT, CHUNK
from gbxfs.formats.pak.writer import PakFile, build_pak
from gbxfs.tree.cache import ByteLRU

KS = b"A1B2C3D4E5F60718293A4B5C6D7E8F90"
KEY = derive_key(KS)


def open_arc(data: bytes, key: bytes = KEY, **kw) -> PakArchive:
    return PakArchive(lambda o, n: data[o:o + n], len(data), key, **kw)


def simple(n_files: int = 3) -> list[PakFile]:
    return [PakFile(f"Root/Media/f{i}.bin", bytes([i]) * (100 + i), compress=bool(i % 2)) for i in range(n_files)]


# -- header and folder feed ----------------------------------------------------------------
@pytest.mark.parametrize("third,fed", [("Clips", True), ("Abcd", True), ("Abc", False), (None, False)])
def test_header_folder_feed_on_and_off(third, fed):
    folders = ["Root", "Root/A"] + ([f"Root/{third}"] if third else [])
    files = [PakFile(f"Root/A/file{i:03}.dat", b"x" * i) for i in range(40)]
    data = build_pak(files, KS, folders=folders)
    arc = open_arc(data)
    h = arc.header
    assert h.md5_ok
    assert [f.name for f in h.folders][:len(folders)] == [p.split("/")[-1] + "\\" for p in folders]
    want = f"{third}\\".encode("utf-16-le")[4:8] if fed else None
    assert h.folder_feed == want
    assert [f.path for f in arc.files] == [f.path for f in files]
    # independent check of the header ciphertext: the fold lands on the first
    # page fetched after the folder list (docs/formats/pak.md: counted from after the IV)
    plain = pak_header.build_plain(3, meta_offset=h.meta_offset, data_offset=h.data_offset,
                                   meta_size=h.meta_size, meta_stored=h.meta_stored_size, extra=h.extra,
                                   flags=h.flags, folders=[(f.parent, f.name) for f in h.folders],
                                   files=[(r.folder, r.name, r.unknown, r.size, r.stored_size, r.offset,
                                           r.class_id, r.flags) for r in h.files])
    folders_end = 56 + sum(8 + len(f.name) for f in h.folders)
    folds = {}
    if fed:
        folds[-(-folders_end // 256) * 256] = calc_ivxor_seed(0, want)
        assert max(folds) < len(plain)   # the fold falls inside the file table
    assert data[20:20 + align8(len(plain))] == reference_encrypt(KEY, data[12:20], plain, folds)


def test_folder_feed_matters(monkeypatch):
    files = [PakFile(f"Root/A/file{i:03}.dat", b"x") for i in range(40)]
    data = build_pak(files, KS, folders=["Root", "Root/A", "Root/Clips"])
    monkeypatch.setattr(pak_header, "folder_feed_bytes", lambda names: None)
    try:
        arc = open_arc(data)
    except PakError:
        return
    assert not arc.header.md5_ok


def test_folder_layout_and_sub_paths():
    files = [PakFile("Root/Sub/Deeper/a.txt", b"a", folder_depth=1),
             PakFile("Root/Other/b.txt", b"bb"),
             PakFile("Second/c.txt", b"ccc", compress=False),
             PakFile("Root/../evil.txt", b"e", folder_depth=1)]
    arc = open_arc(build_pak(files, KS, folders=["Empty/Folder"]))
    recs = arc.files
    assert recs[0].name == "Sub\\Deeper\\a.txt" and recs[0].parts == ("Root", "Sub", "Deeper", "a.txt")
    assert recs[1].parts == ("Root", "Other", "b.txt")
    assert recs[2].parts == ("Second", "c.txt")
    assert recs[3].parts == ("Root", "_..", "evil.txt")
    assert ("Empty", "Folder") in [f.parts for f in arc.folders]
    assert all(f.name.endswith("\\") for f in arc.folders)
    for rec, f in zip(recs, files):
        assert arc.entry(rec).read(0, 100) == f.data


# -- entries ------------------------------------------------------------------------------------
@pytest.mark.parametrize("compress", [False, True])
def test_empty_entries(compress):
    arc = open_arc(build_pak([PakFile("R/empty", b"", compress=compress), PakFile("R/x", b"x")], KS))
    e = arc.entry(arc.files[0])
    assert e.size == 0 and e.check() is None
    assert e.read(0, 10) == b"" and list(e.pieces()) == []


def test_multi_megabyte_entries_random_access():
    rnd = random.Random(3)
    words = [rnd.randbytes(rnd.randint(3, 12)) for _ in range(500)]
    big = b"".join(rnd.choice(words) for _ in range(1_300_000))[: 9 * CHUNK + 12345]
    stored = rnd.randbytes(3 * CHUNK + 77)
    files = [PakFile("R/big.bin", big, level=1), PakFile("R/stored.bin", stored, compress=False)]
    for cache in (None, ByteLRU(64 << 20)):    # from the stream start; from checkpoints
        arc = open_arc(build_pak(files, KS), cache=cache)
        e, s = arc.entry(arc.files[0]), arc.entry(arc.files[1])
        assert e.size == len(big) and s.size == len(stored)
        assert e.check() is None
        assert e._inflater().checkpoints() == (len(big) // CHECKPOINT if cache else 0)   # the start needs none
        if cache:
            _drop_pieces(cache, e)             # reads must inflate, from the checkpoints
        for off, n in [(0, 10), (CHUNK - 5, 10), (5 * CHUNK + 3, 2 * CHUNK), (len(big) - 7, 100),
                       (CHECKPOINT * 2 - 1, 2), (len(big) + 1, 5)]:
            assert e.read(off, n) == big[off:off + n]
            assert s.read(off, n) == stored[off:off + n]
        assert b"".join(s.pieces()) == stored


def _drop_pieces(cache, e):
    for at in range(0, e.size, CHUNK):
        cache.put((e._token, at), None, 0)    # a None value reads as a miss


def test_evicted_checkpoint_resumes_from_the_previous_one_and_is_rebuilt():
    data = random.Random(5).randbytes(3 * CHECKPOINT + 99)
    cache = ByteLRU(64 << 20)
    arc = open_arc(build_pak([PakFile("R/a", data, level=1)], KS), cache=cache)
    e = arc.entry(arc.files[0])
    assert e.check() is None
    inf = e._inflater()
    assert inf.checkpoints() == 3
    _drop_pieces(cache, e)
    cache.put(inf._key(2 * CHECKPOINT), None, 0)      # evicted
    starts = []
    run = inf._run
    inf._run = lambda cp, *a, **k: (starts.append(cp.out_pos), run(cp, *a, **k))[1]
    assert e.read(2 * CHECKPOINT + 5, 10) == data[2 * CHECKPOINT + 5:2 * CHECKPOINT + 15]
    assert starts == [CHECKPOINT] and inf.checkpoints() == 3    # resumed at 1, rebuilt 2


def test_compressed_entry_with_cache_reuses_pieces():
    data = bytes(range(256)) * (3 * CHUNK // 256)
    cache = ByteLRU(64 << 20)
    arc = open_arc(build_pak([PakFile("R/a", data, level=1)], KS), cache=cache)
    e = arc.entry(arc.files[0])
    assert e.read(CHUNK + 10, 20) == data[CHUNK + 10:CHUNK + 30]
    used = cache.current_bytes
    assert used >= len(data)           # the verifying pass cached every piece
    e._inflater().pieces = None        # reads must now come from the cache alone
    assert e.read(2 * CHUNK, CHUNK) == data[2 * CHUNK:3 * CHUNK]


def test_corrupt_compressed_entry_is_unverifiable_siblings_fine():
    files = simple(4)
    data = bytearray(build_pak(files, KS))
    arc = open_arc(bytes(data))
    rec = arc.files[1]                  # compressed
    data[arc.header.data_offset + rec.offset + 8 + 4] ^= 0x40
    arc = open_arc(bytes(data))
    e = arc.entry(arc.files[1])
    assert e.check() is not None
    with pytest.raises(PakError):
        e.read(0, 1)
    with pytest.raises(PakError):
        b"".join(e.pieces())
    for i in (0, 2, 3):
        assert arc.entry(arc.files[i]).read(0, 1000) == files[i].data


def test_overlong_and_short_streams_are_unverifiable():
    # declared size disagrees with what the zlib stream holds
    for declared, actual in ((50, 60), (60, 50)):
        f = PakFile("R/a", b"q" * actual)
        data = build_pak([f], KS)
        arc = open_arc(data)
        rec = arc.files[0]
        import dataclasses
        bad = dataclasses.replace(rec, size=declared)
        from gbxfs.tree.pak.entry import PakEntry
        e = PakEntry(lambda o, n, d=data: d[o:o + n], len(data), arc.key, arc.header.data_offset, bad)
        assert e.check() is not None and str(declared) in e.error


# -- bad paks ---------------------------------------------------------------------------------
def test_wrong_key():
    data = build_pak(simple(), KS)
    try:
        arc = open_arc(data, derive_key(b"X" * 32))
    except PakError as e:
        assert "wrong key" in str(e)
        return
    assert not arc.header.md5_ok


def test_corrupted_header_md5_mismatch_reported():
    data = bytearray(build_pak(simple(), KS))
    good = open_arc(bytes(data))
    end = good.header.data_offset
    data[end - 8] ^= 0x01     # last header block: a size field of the last file
    arc = open_arc(bytes(data))
    assert not arc.header.md5_ok
    assert good.header.md5_ok


@pytest.mark.parametrize("where", ["magic", "header", "data", "metadata"])
def test_truncated_pak(where):
    files = simple()
    data = build_pak(files, KS)
    arc = open_arc(data)
    h = arc.header
    if where in ("magic", "header"):
        cut = 10 if where == "magic" else h.data_offset - 40
        with pytest.raises(PakError):
            open_arc(data[:cut])
        return
    if where == "data":
        last = arc.files[-1]
        cut = h.data_offset + last.offset + 10
        t = open_arc(data[:cut])
        assert "truncated" in t.entry(t.files[-1]).check()
        assert t.entry(t.files[0]).read(0, 1000) == files[0].data
        return
    t = open_arc(data[: h.meta_offset + 20])
    assert t.metadata().error and "truncated" in t.metadata().error


def test_not_a_pak_and_unknown_version():
    with pytest.raises(PakError, match="magic"):
        open_arc(b"GBX" + bytes(100))
    data = bytearray(build_pak(simple(), KS))
    data[8] = 9
    with pytest.raises(PakError, match="version 9"):
        open_arc(bytes(data))


def _hostile(plain_fields: bytes) -> bytes:
    """A pak whose plain header is md5 + fields (no feed: <= 2 folders)."""
    plain = bytes(16) + plain_fields
    iv = b"12345678"
    return b"NadeoPak" + struct.pack("<I", 3) + iv + reference_encrypt(KEY, iv, plain, {}) + bytes(64)


FIXED = struct.pack("<IIII", 0, 0, 0, 0) + bytes(16) + struct.pack("<I", 0)


@pytest.mark.parametrize("fields,match", [
    (FIXED + struct.pack("<I", 0xFFFFFFFF), "folders need"),
    (FIXED + struct.pack("<IiI", 1, -1, 0x7FFFFFFF), "too long"),
    (FIXED + struct.pack("<IiIsiIs", 2, 1, 1, b"a", 0, 1, b"b"), "cyclic"),
    (FIXED + struct.pack("<IiIs", 1, 5, 1, b"a"), "parent 5"),
    (FIXED + struct.pack("<IiIsI", 1, -1, 1, b"a", 0x10000000), "files need"),
    (FIXED + struct.pack("<IiIsIiIs5IQ", 1, -1, 1, b"a", 1, 3, 1, b"f", 0, 0, 0, 0, 0, 0), "folder 3"),
])
def test_hostile_headers_fail_cleanly(fields, match):
    with pytest.raises(PakError, match=match):
        open_arc(_hostile(fields))


def test_metadata_records_and_feedless_section():
    from pak_testkit import GbxBuilder, leaf_track, make_test_decls
    g = GbxBuilder(header_pad=30)
    g.chunk(0x03079F01).pad(10).u32(1)
    leaf_track(g, 1)
    g.u32(0).end()
    decls = make_test_decls()
    files = [PakFile("R/a.Clip.Gbx", g.bytes()), PakFile("R/b.bin", b"raw"),
             PakFile("R/c.Clip.Gbx", g.bytes(), compress=False), PakFile("R/d.Clip.Gbx", g.bytes(), metadata=False)]
    arc = open_arc(build_pak(files, KS, decls=decls), decls=decls)
    meta = arc.metadata()
    assert meta.error is None
    assert sorted(meta.headers) == [0, 2]
    assert meta.headers[0] == g.bytes()[:g.body_offset - 4]
    assert arc.header.meta_stored_size < 256 and arc.size == arc.header.meta_offset + 8 + 256
