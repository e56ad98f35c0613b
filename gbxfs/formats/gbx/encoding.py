"""How GameBox files store numbers and text: the hard limits on counts and
string lengths, little-endian unpackers, and stored text. Imports nothing."""
from __future__ import annotations

import struct
from typing import Any, Protocol

# Hard limits: hostile counts must fail before anything big is allocated.
MAX_COUNT = 1 << 24          # elements in one array / list
MAX_STRING = 1 << 26         # bytes in one string (64 MiB)

SKIP_MARKER = 0x534B4950     # "SKIP" (reads as "PIKS" in the file)

unpack_i8 = struct.Struct("<b").unpack_from
unpack_u16 = struct.Struct("<H").unpack_from
unpack_i16 = struct.Struct("<h").unpack_from
unpack_u32 = struct.Struct("<I").unpack_from
unpack_i32 = struct.Struct("<i").unpack_from
unpack_u64 = struct.Struct("<Q").unpack_from
unpack_i64 = struct.Struct("<q").unpack_from
unpack_f32 = struct.Struct("<f").unpack_from
unpack_2f = struct.Struct("<2f").unpack_from
unpack_3f = struct.Struct("<3f").unpack_from
unpack_4f = struct.Struct("<4f").unpack_from

# element format and size for fast numeric arrays
ARRAY_FORMATS = {"B": 1, "b": 1, "H": 2, "h": 2, "I": 4, "i": 4, "Q": 8, "q": 8, "f": 4}


_BOM = b"\xef\xbb\xbf"


def stored_text(data: bytes | memoryview) -> str:
    """A stored string as text. A leading byte order mark is dropped (some tools write
    one before nicknames; the `.bin` files keep it): "utf-8-sig" decoding without
    that codec's Python wrapper, which cost more than the decoding itself."""
    if data and data[0] == 0xEF and data[:3] == _BOM:
        data = data[3:]
    return str(data, "utf-8", "replace")


def text_at(buf: bytes | memoryview, p: int, end: int) -> str | None:
    """The string stored at p in `buf` (u32 length, bytes) when all of it is there
    before `end` and it has no byte order mark; None otherwise (the reader then takes
    its general path, whose errors and BOM handling are its own)."""
    if p + 4 > end:
        return None
    n = unpack_u32(buf, p)[0]
    if n > MAX_STRING or p + 4 + n > end or (n > 2 and buf[p + 4] == 0xEF):
        return None
    return str(buf[p + 4:p + 4 + n], "utf-8", "replace") if n else ""


def fileref_at(buf: bytes | memoryview, p: int, end: int) -> tuple[dict, int] | None:
    """A file reference without checksum (version below 3) at p, and the position
    after it, when all of it is there before `end`; None otherwise (nothing consumed:
    the reader then reads it field by field)."""
    if p + 5 > end or buf[p] >= 3:
        return None
    version = buf[p]
    path = text_at(buf, p + 1, end)
    if path is None:
        return None
    q = p + 5 + unpack_u32(buf, p + 1)[0]
    if not (path and version >= 1):
        return {"version": version, "file": path}, q
    url = text_at(buf, q, end)
    if url is None:
        return None
    return {"version": version, "file": path, "locator_url": url}, q + 4 + unpack_u32(buf, q)[0]


class _Fields(Protocol):
    def u8(self) -> int: ...
    def bytes(self, n: int) -> bytes: ...
    def string(self) -> str: ...


def read_fileref(r: _Fields) -> dict[str, Any]:
    """A file reference read field by field (any version; fileref_at is the quick
    path for the usual ones in memory)."""
    version = r.u8()
    checksum = r.bytes(32) if version >= 3 else None
    path = r.string()
    # GBX.NET reads the locator for version >= 3 even with an empty path
    url = r.string() if (path and version >= 1) or version >= 3 else None
    out: dict[str, Any] = {"version": version, "file": path}
    if checksum is not None:
        out["checksum"] = checksum
    if url is not None:
        out["locator_url"] = url
    return out
