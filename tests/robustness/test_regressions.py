"""Bugs found by the robustness walks and benchmarks, pinned where they live."""
from __future__ import annotations

import struct

import pytest

from gbxfs.formats.gbx.dump import f32_repr

FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


@pytest.mark.parametrize("x", [FLT_MAX, -FLT_MAX, struct.unpack("<f", b"\xfe\xff\x7f\x7f")[0],
                               struct.unpack("<f", b"\x01\x00\x00\x00")[0], 0.1, -0.0])
def test_f32_repr_round_trips_extremes(x):
    """Near the largest float32 a shorter decimal rounds past it: struct.pack('<f')
    then raised OverflowError, and every .txt dump holding such a value (games
    use -FLT_MAX as "unset") answered EIO. The text must read back as the same float32."""
    s = f32_repr(x)
    assert struct.pack("<f", float(s)) == struct.pack("<f", x)
