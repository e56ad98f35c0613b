"""GBX body bytes: stored as is ('U') or LZO1X-compressed ('C') with declared sizes.

Both sizes are checked before anything is allocated: the compressed size against the
bytes present, the uncompressed size against an absolute cap and LZO's best possible
ratio, and the decompressed result against the declared size.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import lzo

from .errors import GbxError, Truncated

MAX_BODY = 256 << 20          # 256 MiB: far above any real GBX body
LZO_MAX_RATIO = 255           # LZO1X cannot expand data more than this (long runs)


@dataclass(frozen=True)
class BodyData:
    data: bytes                   # the (decompressed) body
    compressed: bool
    compressed_size: int | None   # declared, compressed bodies only
    uncompressed_size: int        # declared (compressed) or actual (stored)
    trailing: int = 0             # bytes after the compressed data (not part of the body)


def read_body(data: bytes | bytearray | memoryview, body_offset: int, compression: str) -> BodyData:
    """Body bytes of a file whose body starts at `body_offset`."""
    view = memoryview(data)
    if body_offset > len(view):
        raise Truncated(f"body offset {body_offset} beyond the {len(view)} bytes of data", where="body")
    if compression == "U":
        body = bytes(view[body_offset:])
        return BodyData(body, False, None, len(body))
    if compression != "C":
        raise GbxError(f"unknown body compression {compression!r}", where="body")
    if len(view) - body_offset < 8:
        raise Truncated("compressed body sizes missing", offset=body_offset, where="body")
    usize, csize = struct.unpack_from("<II", view, body_offset)
    start = body_offset + 8
    avail = len(view) - start
    if csize > avail:
        raise Truncated(f"compressed body size {csize} exceeds the {avail} bytes present",
                        offset=body_offset + 4, where="body")
    body = decompress(view[start:start + csize], usize, offset=start)
    return BodyData(body, True, csize, usize, trailing=avail - csize)


def decompress(payload: bytes | memoryview, usize: int, *, offset: int | None = None) -> bytes:
    """LZO1X-decompress `payload` to exactly `usize` bytes (GbxError otherwise)."""
    csize = len(payload)
    if usize > MAX_BODY:
        raise GbxError(f"declared body size {usize} exceeds the {MAX_BODY} byte limit", offset=offset, where="body")
    if usize > csize * LZO_MAX_RATIO + 64:
        raise GbxError(f"declared body size {usize} is impossible for {csize} compressed bytes",
                       offset=offset, where="body")
    if usize == 0:
        if csize:
            raise GbxError("empty body declared with compressed data", offset=offset, where="body")
        return b""
    try:
        out = lzo.decompress(bytes(payload), False, usize)
    except lzo.error as e:
        raise GbxError(f"LZO decompression failed: {e}", offset=offset, where="body") from None
    if len(out) != usize:
        raise GbxError(f"body decompressed to {len(out)} bytes, header says {usize}", offset=offset, where="body")
    return out
