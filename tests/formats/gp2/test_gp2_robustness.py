"""Hostile input: truncated, mutated and forged files give None (not GP2) or
Gp2Error - never another exception, a hang, or a partial result that fails
to render. Anything accepted is still split losslessly."""
from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gbxfs.formats.gp2 import Gp2Error, folder_files, parse
from gbxfs.formats.gp2.offsets import BASE, TABLE_AT
from gp2_oracle import gp2_rows, read_corpus

TRACKS = [read_corpus(r) for r in gp2_rows()]
needs_tracks = pytest.mark.usefixtures("corpus")   # the corpus fixture skips, or fails on CI
FAST = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.large_base_example])


def _check(data: bytes) -> None:
    """The property every input must satisfy."""
    try:
        track = parse(data)
    except Gp2Error as e:
        assert str(e)
        return
    if track is None:
        return
    assert track.rebuild() == data
    for _, render in folder_files(track, data):
        assert isinstance(render(), bytes)


def _fix_checksum_offset(data: bytearray) -> None:
    """Keep the offset table consistent with a new size, so parsing goes deep."""
    struct.pack_into("<I", data, TABLE_AT + 8, len(data) - 4 - BASE)


@st.composite
def mutated(draw):
    data = bytearray(draw(st.sampled_from(TRACKS)))
    for _ in range(draw(st.integers(1, 8))):
        # half the writes land in the structured part after the leading block
        lo = draw(st.sampled_from([0, TABLE_AT]))
        pos = draw(st.integers(lo, len(data) - 1))
        data[pos] = draw(st.integers(0, 255))
    return bytes(data)


@needs_tracks
@FAST
@given(mutated())
def test_mutated_tracks(data):
    _check(data)


# Where the streams are: from the track data to the checksum (FORMAT.md §1 7-15),
# found from the offset table alone, so the strategy does not rely on the parser.
STREAM_SPANS = [(struct.unpack_from("<I", t, TABLE_AT + 0x10)[0] + BASE, len(t)) for t in TRACKS]
WORDS = st.one_of(st.sampled_from([0xFFFF, 0x0000, 0x0001, 0x00FF, 0x0100, 0x7FFF, 0xAE00,
                                   0xC500, 0xB800, 0x5000, 0x7000]),
                  st.integers(0x8000, 0xFFFF), st.integers(0, 0xFFFF))


@st.composite
def stream_mutated(draw):
    """Word-sized writes inside the sector streams, CC line and tail: terminators
    moved, commands changed, lengths broken."""
    i = draw(st.integers(0, len(TRACKS) - 1))
    data = bytearray(TRACKS[i])
    lo, hi = STREAM_SPANS[i]
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(lo, hi - 2))
        struct.pack_into("<H", data, pos, draw(WORDS))
    return bytes(data)


@needs_tracks
@FAST
@given(stream_mutated())
def test_stream_mutations(data):
    _check(data)


@needs_tracks
@FAST
@given(st.sampled_from(TRACKS), st.floats(0.0, 1.0))
def test_truncated_tracks_with_consistent_table(track, fraction):
    data = bytearray(track[: max(BASE + 4, int(len(track) * fraction))])
    _fix_checksum_offset(data)
    _check(bytes(data))


@needs_tracks
@FAST
@given(st.sampled_from(TRACKS), st.integers(TABLE_AT, TABLE_AT + 31), st.binary(min_size=1, max_size=4))
def test_offset_table_overwritten(track, pos, patch):
    data = bytearray(track)
    data[pos : pos + len(patch)] = patch
    _check(bytes(data))


@st.composite
def forged(draw):
    """Random bytes behind an offset table that passes the recognition check,
    with valid object offsets and a plausible track header, so that the
    random part reaches the sector streams and the tail."""
    body = draw(st.binary(min_size=200, max_size=1500))   # everything after the table
    data = bytearray(BASE) + body
    size = len(data)
    count = draw(st.integers(0, 4))
    objdefs = BASE + 4 * count + 4 * draw(st.integers(count > 0, 4))
    track = objdefs + 16 * draw(st.integers(0, 2))
    setup = draw(st.integers(track + 29, size - 4 - 39))
    struct.pack_into("<8I", data, TABLE_AT, 0, 0, size - 4 - BASE, objdefs - BASE,
                     track - BASE, setup - BASE, setup + 38 - BASE, count)
    for i in range(count):
        target = draw(st.integers(BASE + 4 * count, objdefs - 1))
        struct.pack_into("<I", data, BASE + 4 * i, target - BASE)
    flags = draw(st.sampled_from([0, 0x200]))
    struct.pack_into("<H6hHBBH4HH", data, track, 0, 0, 0, 0, 0, 0, 0, flags, 1, 1, 3,
                     1, 2, 3, 4, draw(st.integers(0x8000, 0xFFFF)))
    return bytes(data)


@FAST
@given(forged())
def test_forged_tables_over_garbage(data):
    _check(data)


@FAST
@given(st.binary(max_size=5000))
def test_random_bytes(data):
    _check(data)
