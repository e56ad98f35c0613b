"""Hostile GP2 track files through the whole tree: truncated (with the offset
table made to agree with the new size, so recognition passes and decoding
must fail cleanly), words of the structured part overwritten, huge counts,
and garbage named like a track. A broken track stays a plain file; a track
that still decodes (a bad checksum is not fatal) is a folder that reads."""
from __future__ import annotations

import struct

import pytest
from corpusdata import CORPUS, manifest_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robust_walk import walk_files

from gbxfs.formats.gp2 import TABLE_AT

pytestmark = pytest.mark.corpus

BASE = TABLE_AT + 0x20
SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
TRACKS = [(CORPUS / r["path"]).read_bytes() for r in manifest_rows()
          if r["format"].startswith("GP2 track file")][:3] if CORPUS.exists() else []


def _walk(data: bytes):
    return walk_files({"F1CT01.DAT": data})


def _shown_as(report) -> str:
    return "folder" if "/F1CT01.DAT/original.dat" in report.contents else "file"


def _keep(path: str) -> bool:
    return path in ("/F1CT01.DAT", "/F1CT01.DAT/original.dat")


def test_tracks_present(corpus):
    assert len(TRACKS) == 3
    for t in TRACKS:
        assert _shown_as(walk_files({"F1CT01.DAT": t}, keep=_keep)) == "folder"


@pytest.mark.parametrize("which", range(3))
def test_truncated_with_agreeing_offset_table(corpus, which):
    data = TRACKS[which]
    (track_at,) = struct.unpack_from("<I", data, TABLE_AT + 0x10)
    for cut in (BASE + 4, BASE + track_at + 40, len(data) // 2, len(data) - 300, len(data) - 5):
        b = bytearray(data[:cut])
        if len(b) >= BASE:
            struct.pack_into("<I", b, TABLE_AT + 8, len(b) - 4 - BASE)   # the checksum sits at the end
        report = walk_files({"F1CT01.DAT": bytes(b)}, keep=_keep)
        assert report.bytes_read >= len(b)


@pytest.mark.parametrize("which", range(3))
def test_huge_counts(corpus, which):
    data = TRACKS[which]
    for at in (BASE - 4, TABLE_AT + 0x10, TABLE_AT + 0x14):     # object count, track and setup offsets
        for value in (0xFFFFFFFF, 0x7FFFFFFF, 0x10000):
            b = bytearray(data)
            struct.pack_into("<I", b, at, value)
            _walk(bytes(b))


@SETTINGS
@given(which=st.integers(0, 2), writes=st.lists(
    st.tuples(st.integers(0, 1 << 20), st.sampled_from((0, 1, 0xFF, 0x7FFF, 0x8000, 0xFFFF))),
    min_size=1, max_size=6))
def test_words_overwritten_after_the_table(corpus, which, writes):
    b = bytearray(TRACKS[which])
    for at, word in writes:
        struct.pack_into("<H", b, BASE + at % (len(b) - BASE - 6), word)
    _walk(bytes(b))


def test_garbage_named_like_a_track():
    import random
    rnd = random.Random(7)
    for size in (0, 31, 0x1000, 0x1024, 0x2000, 40_000):
        junk = bytearray(rnd.getrandbits(8) for _ in range(size))
        if size > BASE + 0x100:   # a table that fits the size: recognised, then the sections are junk
            struct.pack_into("<8I", junk, TABLE_AT, 0, 0, size - 4 - BASE, 0x40, 0x80, 0x400, 0x400 + 38, 0)
        _walk(bytes(junk))
