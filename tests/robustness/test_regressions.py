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


def test_cached_listing_said_loaded_stays_loaded_until_listed():
    """The FUSE layer lists a folder on the event loop when loaded() is True; an
    eviction by another thread between the two calls must not make that
    listing parse (block the loop)."""
    from gbxfs.tree.cache import ByteLRU
    from gbxfs.tree.gbx_cached import CachedDir
    from gbxfs.tree.model import BytesFile

    loads = []
    cache = ByteLRU(1 << 20)
    d = CachedDir("d", cache, ("k",), lambda: loads.append(1) or [BytesFile("a", b"1")])
    assert not d.loaded()
    d.children()
    assert d.loaded()
    cache.put(("other",), None, 1 << 20)        # evicts the listing (another thread)
    assert set(d.children()) == {"a"} and loads == [1]
    assert not d.loaded()                        # now gone: the next listing is work again
    assert set(d.children()) == {"a"} and loads == [1, 1]
