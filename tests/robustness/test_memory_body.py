"""Memory audit of LZO bodies: the allocation follows what the compressed data
really produces, not the size a (hostile) header declares. Measured with
tracemalloc's peak (python-lzo allocates its output buffer as a bytes object)."""
from __future__ import annotations

import random
import struct
import tracemalloc

import lzo
import pytest

from gbxfs.formats.gbx.body import LZO_MAX_RATIO, MAX_BODY, decompress, read_body
from gbxfs.formats.gbx.errors import GbxError

MiB = 1 << 20


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _body_file(packed: bytes, usize: int) -> bytes:
    return struct.pack("<II", usize, len(packed)) + packed


def test_huge_declared_size_allocates_in_proportion_to_the_data():
    """1 MB of LZO that produces 1 MB, declaring the largest size LZO could
    produce from it (~255 MB): rejected without a 255 MB buffer."""
    packed = lzo.compress(random.Random(11).randbytes(MiB), 1, False)
    data = _body_file(packed, min(MAX_BODY, (len(packed) - 3) * LZO_MAX_RATIO))

    def read():
        with pytest.raises(GbxError, match="decompressed to"):
            read_body(data, 0, "C")
    peak = _peak(read)
    assert peak < 24 * MiB, f"a {len(data) / MiB:.0f} MB file made a {peak / MiB:.0f} MiB allocation"


def test_corrupt_data_with_a_huge_declared_size_does_not_grow_the_buffer():
    packed = bytearray(lzo.compress(random.Random(12).randbytes(MiB), 1, False))
    packed[len(packed) // 2:] = b"\xff" * (len(packed) - len(packed) // 2)

    def read():
        with pytest.raises(GbxError):
            decompress(bytes(packed), min(MAX_BODY, (len(packed) - 3) * LZO_MAX_RATIO))
    assert _peak(read) < 24 * MiB


def test_really_compressible_body_still_decompresses_with_bounded_buffers():
    """Long runs really reach LZO's high ratios: the buffer grows to what the
    data produces (not beyond twice that) and the result is exact."""
    body = b"\0" * (40 * MiB) + random.Random(13).randbytes(1000)
    packed = lzo.compress(body, 1, False)
    assert len(body) > 100 * len(packed)
    out = []
    peak = _peak(lambda: out.append(decompress(packed, len(body))))
    assert out[0] == body
    assert peak < 2 * len(body) + 2 * MiB


def test_declared_size_beyond_lzo_bound_is_rejected():
    packed = lzo.compress(b"\0" * 5000, 1, False)
    with pytest.raises(GbxError, match="impossible"):
        decompress(packed, (len(packed) - 3) * LZO_MAX_RATIO + 1)
    with pytest.raises(GbxError, match="impossible"):
        decompress(b"\x11\0", 10)
