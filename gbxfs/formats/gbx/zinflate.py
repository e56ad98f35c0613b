"""Bounded, exact zlib inflation for data stored inside chunks (ghost samples,
lightmaps, `inflate` blocks of declarations)."""
from __future__ import annotations

import zlib

from .errors import GbxError


def inflate_exact(data: bytes | bytearray, expected_size: int, what: str, limit: int) -> bytes:
    """`data` inflated to exactly `expected_size` bytes. The declared size is
    checked against `limit` before anything is allocated, and zlib is asked for
    one byte more than declared so an overlong stream is caught, not truncated."""
    if not 0 <= expected_size <= limit:
        raise GbxError(f"{what}: declared inflated size {expected_size} is out of range")
    d = zlib.decompressobj()
    try:
        out = d.decompress(data, expected_size + 1)
    except zlib.error as e:
        raise GbxError(f"{what}: zlib data is corrupt: {e}") from None
    if len(out) != expected_size or not d.eof:
        raise GbxError(f"{what}: zlib data inflates to {len(out)}{'' if d.eof else '+'} bytes, "
                       f"{expected_size} declared")
    return out
