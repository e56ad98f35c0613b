"""Hostile paks through the whole tree: the synthetic sample truncated and
bit-flipped, garbage named .pak, broken packlist.dat, and (robust_pak)
headers with a correct MD5 whose counts, sizes, offsets and names are huge,
plus metadata sections holding hostile GBX headers."""
from __future__ import annotations

import struct

import pytest
from corpusdata import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robust_gbx import HUGE
from robust_pak import pak_key, put_together, take_apart
from robust_walk import walk_files

pytestmark = pytest.mark.corpus

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
PACKS = CORPUS / "synthetic-pak" / "Packs"


@pytest.fixture(scope="module")
def sample(corpus):
    pak = (PACKS / "Sample.pak").read_bytes()
    plist = (PACKS / "packlist.dat").read_bytes()
    return pak, plist, take_apart(pak, pak_key(plist, "Sample"))


def _walk(pak: bytes, plist: bytes):
    return walk_files({"Sample.pak": pak, "packlist.dat": plist})


def test_sample_reads_completely(sample):
    pak, plist, _ = sample
    report = _walk(pak, plist)
    assert not report.unreadable and report.files > 30


def test_truncated(sample):
    pak, plist, parts = sample
    cuts = {0, 11, 19, 27, 100, parts.data_offset - 1, parts.data_offset + 8,
            (parts.data_offset + parts.meta_offset) // 2, parts.meta_offset + 8, len(pak) - 1}
    for cut in sorted(cuts):
        _walk(pak[:cut], plist)


def _representative(parts) -> list[int]:
    """File indexes to change one by one: the first GBX entry and the first raw
    one (every field of every entry would take minutes: each case walks the
    whole pak)."""
    gbx = next(i for i, r in enumerate(parts.records_files) if r.lower().endswith(".gbx"))
    raw = next(i for i, r in enumerate(parts.records_files) if not r.lower().endswith(".gbx"))
    return sorted({gbx, raw})


def _fields(parts) -> list[str]:
    keep = {f"file[{i}]" for i in _representative(parts)} | {"folder[0]", "folder[2]"}
    return [k for k in parts.fields if "[" not in k or k.split(".")[0] in keep]


def test_every_header_field_huge(sample):
    """Each u32 of the header, of some folders and of representative file
    records, set to values a sane pak never has."""
    pak, plist, parts = sample
    for field in _fields(parts):
        at = parts.fields[field]
        # -1 / the largest u32 everywhere; the largest positive i32 where a signed
        # reading or an addition could turn it into something else
        for value in (0xFFFFFFFF,) + ((0x7FFFFFF0,) if field.startswith(("num_", "meta_")) else ()):
            def change(plain, fields, at=at, value=value):
                struct.pack_into("<I", plain, at, value)
            _walk(put_together(parts, change=change), plist)


def test_entry_sizes_lie(sample):
    """The file table disagrees with the data: an entry one byte larger or
    smaller, compressed flag flipped, swapped offsets."""
    pak, plist, parts = sample
    f = parts.fields
    for i in _representative(parts):
        size, stored, offset, flags = (struct.unpack_from("<I", parts.plain, f[f"file[{i}].{k}"])[0]
                                       for k in ("size", "stored_size", "offset", "flags"))
        for name, value in (("size", size + 1), ("size", max(0, size - 1)), ("stored_size", stored + 8),
                            ("flags", flags ^ 0x4), ("offset", offset + 8), ("size", 0)):
            def change(plain, fields, i=i, name=name, value=value):
                struct.pack_into("<I", plain, fields[f"file[{i}].{name}"], value)
            report = _walk(put_together(parts, change=change), plist)
            assert report.files >= 2    # the other entries and .pak-info.txt stay


def test_hostile_metadata_records(sample):
    """GBX headers in the metadata section with huge userDataSize, chunk
    counts, chunk sizes and numNodes; records that never end; indexes out of
    range."""
    pak, plist, parts = sample
    rec = parts.records
    (first,) = struct.unpack_from("<i", rec, 0)
    assert rec[4:7] == b"GBX"
    variants = [rec[:4], rec[:20], struct.pack("<i", 0x7FFFFFFF) + rec[4:], b"", b"\xff" * 64]
    for off in (4 + 13, 4 + 17, 4 + 21, 4 + 25):      # userDataSize, chunk count, first table entry...
        for value in (0xFFFFFFFF, 0x00FFFFFF):
            b = bytearray(rec)
            if off + 4 <= len(b):
                struct.pack_into("<I", b, off, value)
                variants.append(bytes(b))
    for records in variants:
        _walk(put_together(parts, records=records), plist)


@SETTINGS
@given(at=st.integers(16, 1 << 20), value=st.sampled_from(HUGE + (0, 1, 3)))
def test_random_header_word(sample, at, value):
    pak, plist, parts = sample

    def change(plain, fields):
        struct.pack_into("<I", plain, 16 + (at - 16) % (len(plain) - 19), value)
    _walk(put_together(parts, change=change), plist)


@SETTINGS
@given(flips=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 7)), min_size=1, max_size=6))
def test_bit_flips_anywhere(sample, flips):
    """Flips in the header fail its MD5, in an entry its verification, in the
    metadata its inflate: the rest of the pak stays readable."""
    pak, plist, _ = sample
    b = bytearray(pak)
    for at, bit in flips:
        b[at % len(b)] ^= 1 << bit
    _walk(bytes(b), plist)


def test_packlist_broken(sample):
    pak, plist, _ = sample
    for bad in (b"", plist[:1], plist[:10], plist[:-1], plist[:-17], b"\x01\xff" + plist[2:],
                plist[:2] + b"\xff" * (len(plist) - 2), plist + b"\0" * 100):
        report = _walk(pak, bad)
        assert report.files >= 1


def test_garbage_named_pak():
    import random
    rnd = random.Random(99)
    for size in (0, 5, 12, 20, 28, 300, 70_000):
        junk = bytes(rnd.getrandbits(8) for _ in range(size))
        for head in (b"", b"NadeoPak\x03\x00\x00\x00", b"NadeoPak\x06\x00\x00\x00", b"NadeoPak\xff\xff\xff\xff"):
            walk_files({"Junk.pak": head + junk, "Junk.Pack.Gbx": head + junk, "packlist.dat": junk[:200]})
