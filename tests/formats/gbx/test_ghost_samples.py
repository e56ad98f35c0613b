"""Ghost samples: every corpus ghost decodes, and the decoded quantities agree
with each other (positions, packed velocities and packed rotations are stored
independently in each sample)."""
from __future__ import annotations

import math
import struct
import zlib

import pytest

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.ghost.codec import quat3, quat6, vec3_4
from gbxfs.formats.gbx.ghost.csvfile import render_csv
from gbxfs.formats.gbx.ghost.entrecord import parse_record_chunk
from gbxfs.formats.gbx.ghost.samples import decode_ghost_chunk
from tests.formats.gbx.ghost_corpus import generation_of, parsed


def _rotate(q, v):
    x, y, z, w = q
    tx, ty, tz = 2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx))


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


# ---- packed quantities -------------------------------------------------------------------
def test_codec_known_values():
    assert quat6(struct.pack("<Hhh", 0, 0, 0), 0) == (0.0, 0.0, 0.0, 1.0)
    # angle pi/2 (a half turn) about heading pi/2, pitch 0: the y axis
    x, y, z, w = quat6(struct.pack("<Hhh", 0x7FFF, 0x3FFF, 0), 0)
    assert abs(y - 1) < 1e-3 and abs(x) < 1e-3 and abs(z) < 1e-9 and abs(w) < 1e-4
    x, y, z, w = quat3(struct.pack("<Bbb", 0xFF, 0, 0x7F), 0)   # angle pi about +z
    assert abs(z) < 1e-6 and abs(w + 1) < 1e-6
    assert vec3_4(struct.pack("<hbb", -0x8000, 5, 5), 0) == (0.0, (0.0, 0.0, 0.0))
    speed, v = vec3_4(struct.pack("<hbb", 0, 0, 0), 0)           # exp(0) = 1 along +x
    assert speed == 1.0 and v == (1.0, 0.0, 0.0)
    speed, v = vec3_4(struct.pack("<hbb", 1000, 0, 0x7F), 0)     # e along +z (pitch pi/2)
    assert abs(speed - math.e) < 1e-9 and abs(v[2] - math.e) < 1e-9


# ---- the corpus ----------------------------------------------------------------------------
@pytest.mark.corpus
def test_every_corpus_ghost_has_samples(corpus):
    seen = 0
    for row, g, ghosts in parsed():
        assert ghosts, f"{row['path']}: no CGameCtnGhost node"
        for gh in ghosts:
            assert not gh.errors, (row["path"], gh.errors)
            assert gh.track is not None and gh.track.samples, row["path"]
            times = [s.time_ms for s in gh.track.samples]
            assert times == sorted(times), row["path"]
            seen += 1
    assert seen >= 40


@pytest.mark.corpus
def test_velocity_matches_position_differences(corpus):
    """The packed velocity of sample k equals (pos[k+1] - pos[k-1]) / dt within
    a few per cent (median), for every ghost of every generation."""
    gens = set()
    for row, g, ghosts in parsed():
        for gh in ghosts:
            s = gh.track.samples
            errs = []
            for k in range(1, len(s) - 1):
                dt = (s[k + 1].time_ms - s[k - 1].time_ms) / 1000
                if dt <= 0:
                    continue
                fd = [(s[k + 1].position[j] - s[k - 1].position[j]) / dt for j in range(3)]
                errs.append(math.dist(fd, s[k].velocity) / (1 + s[k].speed))
            assert _median(errs) < 0.05, (row["path"], _median(errs))
            gens.add(generation_of(row, g))
    assert {"TM1.0", "TM Sunrise", "TM Forever", "TM2020"} <= gens


@pytest.mark.corpus
def test_rotation_faces_the_direction_of_travel(corpus):
    """The car's forward axis (local +z turned by the decoded quaternion) points
    along the decoded velocity when the car moves fast (median cosine)."""
    for row, _, ghosts in parsed():
        for gh in ghosts:
            cos = [sum(a * b for a, b in zip(_rotate(s.rotation, (0, 0, 1)), s.velocity)) / s.speed
                   for s in gh.track.samples if s.speed > 10]
            if len(cos) >= 10:
                assert _median(cos) > 0.75, (row["path"], _median(cos))


@pytest.mark.corpus
def test_speed_forward_matches_speed(corpus):
    """State versions with a forward-speed word: it is the speed (m/s) when driving straight."""
    checked = 0
    for row, _, ghosts in parsed():
        for gh in ghosts:
            t = gh.track
            if "speed_forward_mps" not in t.extra_columns:
                continue
            i = t.extra_columns.index("speed_forward_mps")
            d = [abs(abs(s.extra[i]) - s.speed) / (1 + s.speed) for s in t.samples if s.speed > 10]
            assert _median(d) < 0.1, row["path"]
            checked += 1
    assert checked >= 20


@pytest.mark.corpus
def test_csv_has_a_header_and_one_row_per_sample(corpus):
    _, _, ghosts = next(p for p in parsed() if p[0]["kind"] == "ghost")
    track = ghosts[0].track
    lines = render_csv(track).decode().splitlines()
    assert lines[0].split(",")[:12] == ["time_ms", "x_m", "y_m", "z_m", "qx", "qy", "qz", "qw",
                                        "speed_mps", "vx_mps", "vy_mps", "vz_mps"]
    assert len(lines) == len(track.samples) + 1
    assert all(len(l.split(",")) == len(track.columns) for l in lines)
    assert float(lines[-1].split(",")[1]) == pytest.approx(track.samples[-1].position[0], abs=1e-5)


# ---- bad input ----------------------------------------------------------------------------
def _corpus_chunks():
    out = {}
    for _, g, ghosts in parsed():
        for gh in ghosts:
            for c in gh.node.chunks:
                if c.chunk_id in (0x0303F005, 0x0303F006, 0x0303F003) and c.chunk_id not in out:
                    out[c.chunk_id] = c.raw
        for n in g.body.nodes:
            c = n.chunk(0x0911F000)
            if c is not None:
                out.setdefault(0x0911F000, c.raw)
    return out


def _decode(cid, raw):
    if cid == 0x0911F000:
        return parse_record_chunk(raw)
    return decode_ghost_chunk(cid, raw)


@pytest.mark.corpus
def test_truncated_and_corrupted_chunks_raise_gbx_errors_only(corpus):
    import random
    rnd = random.Random(5)
    chunks = _corpus_chunks()
    assert set(chunks) == {0x0303F003, 0x0303F005, 0x0303F006, 0x0911F000}
    for cid, raw in chunks.items():
        for cut in sorted({0, 1, 4, 8, 12, len(raw) // 2, len(raw) - 1}):
            with pytest.raises(GbxError):
                _decode(cid, raw[:cut])
        for _ in range(30):
            bad = bytearray(raw)
            for _ in range(3):
                bad[rnd.randrange(len(bad))] ^= 1 << rnd.randrange(8)
            try:
                _decode(cid, bytes(bad))
            except GbxError:
                pass


def test_hostile_sizes_are_refused_before_allocating():
    # declared inflated size of 4 GiB - 1 over a tiny zlib stream
    raw = struct.pack("<II", 0xFFFFFFFF, 10) + zlib.compress(b"x")[:10].ljust(10, b"\0")
    with pytest.raises(GbxError):
        decode_ghost_chunk(0x0303F005, raw)
    # a sample count far beyond the state buffer
    inner = struct.pack("<IIIiiI", 0x0A02B000, 1, 0, 100, 9, 0) + struct.pack("<i", 1 << 30)
    raw = struct.pack("<II", len(inner), 0) + b""
    blob = zlib.compress(inner)
    raw = struct.pack("<II", len(inner), len(blob)) + blob
    with pytest.raises(GbxError):
        decode_ghost_chunk(0x0303F005, raw)
