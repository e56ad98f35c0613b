"""Hostile GBX files through the whole tree: truncated, bit-flipped, and with
size/count fields set to huge values (userDataSize, header chunk sizes,
numNodes, LZO sizes, skippable chunk sizes, counts and string lengths in
the body). Every entry must list/read or fail in a documented way, within a
deadline and a memory bound (robust_walk.walk_files)."""
from __future__ import annotations

import struct

import pytest
from corpusdata import CORPUS, manifest_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robust_gbx import HUGE, build_gbx, layout, node_body, put_u32, skippable_sizes, with_body
from robust_walk import walk_files

pytestmark = pytest.mark.corpus

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _samples() -> list[tuple[str, bytes]]:
    """The smallest laid-out file of each kind and body compression (at most 60 KB)."""
    best: dict[tuple[str, str], tuple[int, str]] = {}
    for r in manifest_rows():
        if r["kind"] in ("map", "replay", "ghost", "item", "other") and int(r["size"]) <= 60_000:
            fmt = r["format"].split()[2] if r["format"].startswith("Gbx v6") else ""
            key = (r["kind"], fmt)
            if fmt and (key not in best or int(r["size"]) < best[key][0]):
                best[key] = (int(r["size"]), r["path"])
    out = []
    for _, path in sorted(best.values()):
        data = (CORPUS / path).read_bytes()
        try:
            layout(data)
        except ValueError:       # external nodes: not laid out by the test helper
            continue
        out.append((path.rsplit("/", 1)[-1], data))
    return out


SAMPLES = _samples() if CORPUS.exists() else []
IDS = [name for name, _ in SAMPLES]


def _walk(name: str, data: bytes):
    return walk_files({name: data})


def test_samples_cover_the_kinds(corpus):
    names = " ".join(IDS).lower()
    assert len(SAMPLES) >= 5
    for kind in ("map", "replay", "ghost"):
        assert kind in names or (kind == "map" and "challenge" in names), names
    assert any(layout(d).compressed for _, d in SAMPLES) and any(not layout(d).compressed for _, d in SAMPLES)


@pytest.mark.parametrize("name,data", SAMPLES, ids=IDS)
def test_truncated_everywhere_that_matters(corpus, name, data):
    lay = layout(data)
    cuts = {0, 3, 5, 9, 13, 17, 21, lay.body_offset - 5, lay.body_offset - 1, lay.body_offset,
            lay.body_offset + 4, lay.body_offset + 8, lay.body_offset + 9, (lay.body_offset + len(data)) // 2,
            len(data) - 5, len(data) - 1}
    cuts |= {at + size // 2 for at, size in lay.header_chunks}
    for cut in sorted(c for c in cuts if 0 <= c < len(data)):
        report = _walk(name, data[:cut])
        # a cut file still shows its bytes: as a plain file or as original.gbx
        assert report.bytes_read >= cut


@pytest.mark.parametrize("name,data", SAMPLES, ids=IDS)
def test_huge_header_and_body_sizes(corpus, name, data):
    lay = layout(data)
    for field, at in lay.fields.items():
        if field == "class_id":
            continue
        for value in (0xFFFFFFFF, 0x7FFFFFFF, 0x10000000, struct.unpack_from("<I", data, at)[0] + 1):
            _walk(name, put_u32(data, at, value))
    if lay.compressed:   # LZO sizes: the largest ratio the reader allows, and one byte off either way
        usize, csize = struct.unpack_from("<II", data, lay.body_offset)
        for value in (csize * 255 + 64, usize - 1, usize + 1):
            _walk(name, put_u32(data, lay.body_offset, value))
        _walk(name, put_u32(data, lay.body_offset + 4, csize - 1))


@pytest.mark.parametrize("name,data", SAMPLES, ids=IDS)
def test_huge_skippable_chunk_sizes(corpus, name, data):
    lay = layout(data)
    for at in skippable_sizes(lay.body)[:6]:
        for value in (0xFFFFFFFF, 0):
            _walk(name, with_body(data, lay, put_u32(lay.body, at, value)))


@SETTINGS
@given(which=st.sampled_from(range(max(1, len(SAMPLES)))), at=st.integers(0, 1 << 30),
       value=st.sampled_from(HUGE + (0, 1, 2, 0xFFFF)), in_body=st.booleans())
def test_huge_values_anywhere(corpus, which, at, value, in_body):
    """Counts, string lengths, node indexes...: any aligned or unaligned u32 of
    the decompressed body, or of the header's user data, set to a large value."""
    name, data = SAMPLES[which]
    lay = layout(data)
    if in_body and len(lay.body) > 4:
        changed = with_body(data, lay, put_u32(lay.body, at % (len(lay.body) - 3), value))
    else:
        changed = put_u32(data, 17 + at % max(1, lay.body_offset - 21), value)
    _walk(name, changed)


@SETTINGS
@given(which=st.sampled_from(range(max(1, len(SAMPLES)))),
       flips=st.lists(st.tuples(st.integers(0, 1 << 30), st.integers(0, 7)), min_size=1, max_size=8),
       in_body=st.booleans())
def test_bit_flips(corpus, which, flips, in_body):
    """Bit flips in the stored file (LZO data included) or in the decompressed body."""
    name, data = SAMPLES[which]
    lay = layout(data)
    target = bytearray(lay.body if in_body and lay.body else data)
    for at, bit in flips:
        target[at % len(target)] ^= 1 << bit
    _walk(name, with_body(data, lay, bytes(target)) if in_body and lay.body else bytes(target))


def test_built_files_with_hostile_counts():
    """Files built from scratch: a skippable chunk claiming more than the body,
    an unknown non-skippable chunk, nodes nested past any sane depth, and a
    body of nothing but end markers."""
    clip = 0x03079000
    cases = {
        "skip.Clip.Gbx": build_gbx(clip, struct.pack("<I", 0x03079FFF) + b"PIKS" + struct.pack("<I", 0x7FFFFFF0)),
        "unknown.Clip.Gbx": build_gbx(clip, node_body([(0x03079FFE, b"\xff" * 64, False)])),
        "ends.Clip.Gbx": build_gbx(clip, struct.pack("<I", 0xFACADE01) * 1000, num_nodes=0xFFFFFF),
        "deep.Clip.Gbx": build_gbx(clip, b"\x02\x00\x00\x00" * 5000, compress=True),
        "empty-body.Clip.Gbx": build_gbx(clip, b"", compress=True),
        "headers.Clip.Gbx": build_gbx(clip, node_body([]), header_chunks=[(0x03079000 + i, b"\xff" * 4)
                                                                          for i in range(2000)]),
    }
    for name, data in cases.items():
        _walk(name, data)


def test_garbage_named_gbx():
    import random
    rnd = random.Random(1234)
    for size in (0, 1, 3, 8, 29, 512, 70_000):
        junk = bytes(rnd.getrandbits(8) for _ in range(size))
        _walk("junk.Map.Gbx", junk)
        _walk("magic.Replay.GBX", b"GBX\x06\x00BUCR" + junk)
        _walk("old.Challenge.gbx", b"GBX\x03\x00BUU" + junk)
