"""GBX body bytes: stored as is ('U') or LZO1X-compressed ('C') with declared sizes.

Both sizes are checked before anything is allocated: the compressed size against the
bytes present, the uncompressed size against an absolute cap and LZO's best possible
ratio, and the decompressed result against the declared size.

The declared size is not trusted for allocation either: python-lzo allocates the
whole output buffer before decompressing, and LZO's best ratio is so high (255,
below) that a 1 MB file may declare 255 MB and make that allocation however little
its data really produces. The buffer starts at a typical ratio and grows only while
the data proves it produces more (LZO reports an output overrun), so what is
allocated stays within twice what the data really decompresses to.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import lzo

from .errors import GbxError, Truncated

MAX_BODY = 256 << 20          # 256 MiB: far above any real GBX body
# LZO1X's worst-case expansion, from its decoder (lzo1x_d.ch). Per instruction of n input
# bytes: a literal run emits fewer than n bytes; M1 2 bytes -> at most 3; M2 2 -> 8; a
# short M3/M4 3 -> 33; a long M3/M4 (length extended by k zero bytes, 255 each, and a
# final byte of at most 255) n = 4 + k bytes -> at most 288 + 255k < 255n. So no input
# byte yields more than 255 output bytes, and every stream ends with the 3-byte end
# marker (0x11 0 0) that yields none: usize <= 255 * (csize - 3). The bound is reached
# asymptotically by long runs, so it cannot be tightened: a declared size may really
# be 255 times the input. The allocation is kept proportional another way (below).
LZO_MAX_RATIO = 255
LZO_END_MARKER = 3
LZO_FIRST_RATIO = 16          # first buffer: 16x the input (corpus bodies: at most 9.3x) ...
LZO_FIRST_MIN = 1 << 20       # ... or 1 MiB; doubled on every output overrun up to the declared size
LZO_E_OUTPUT_OVERRUN = -5     # lzoconf.h; python-lzo reports it as "... violation -5"


@dataclass(frozen=True)
class BodyData:
    data: bytes                   # the (decompressed) body
    compressed: bool
    compressed_size: int | None   # declared, compressed bodies only
    uncompressed_size: int        # declared (compressed) or actual (stored)
    trailing: int = 0             # bytes after the compressed data (not part of the body)


def declared_size(data: bytes | bytearray | memoryview, body_offset: int, compression: str) -> int:
    """The body's size once decompressed, as the file declares it (a stored body: the
    bytes after `body_offset`), read without decompressing anything."""
    if compression == "C":
        if len(data) - body_offset < 4:
            raise Truncated("compressed body sizes missing", offset=body_offset, where="body")
        return int(struct.unpack_from("<I", data, body_offset)[0])
    return max(0, len(data) - body_offset)


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
    if usize > max(0, csize - LZO_END_MARKER) * LZO_MAX_RATIO:
        raise GbxError(f"declared body size {usize} is impossible for {csize} compressed bytes",
                       offset=offset, where="body")
    if usize == 0:
        if csize:
            raise GbxError("empty body declared with compressed data", offset=offset, where="body")
        return b""
    data = bytes(payload)
    buflen = min(usize, max(LZO_FIRST_MIN, csize * LZO_FIRST_RATIO))
    while True:
        try:
            out = lzo.decompress(data, False, buflen)
            break
        except lzo.error as e:
            if buflen < usize and _lzo_code(e) == LZO_E_OUTPUT_OVERRUN:
                buflen = min(usize, 2 * buflen)   # the data produces more: it earned a bigger buffer
                continue
            raise GbxError(f"LZO decompression failed: {e}", offset=offset, where="body") from None
    if len(out) != usize:
        raise GbxError(f"body decompressed to {len(out)} bytes, header says {usize}", offset=offset, where="body")
    return out


def _lzo_code(e: Exception) -> int | None:
    """The LZO error code at the end of python-lzo's message ("... violation -5")."""
    try:
        return int(str(e).rsplit(None, 1)[-1])
    except (ValueError, IndexError):
        return None
