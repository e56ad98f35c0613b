"""The file table of ManiaPlanet/TM2020 packs (versions 6-18).

After the plain header (packgbx) comes the part the wiki's PAK page calls the
encrypted header. Public facts (GBX.NET.PAK's Pak6 reader):
- header flags bits 1 and 2 (0x1, 0x2) both clear: it is stored in clear;
  otherwise an 8-byte IV then ciphertext (key: cipher6.header_key);
- fields: md5[16], u32 metadata offset, u32 data offset (before version 15;
  from 15 the plain HeaderMaxSize is the data offset), u32 metadata size,
  u32 metadata stored size, [14+: 16 bytes, [16+: u32 total size]], 16
  bytes, [version 6: author info], u32 flags, folders, the folder feed,
  files {i32 folder, string name, u32, u32 size, u32 stored size, u32
  offset, u32 class id, [17+: u32], [14+: 16-byte checksum], u64 flags}.

The MD5 rule of these versions is not public: the md5 is reported (and
compared with the version 3 rule) but never used to refuse a pack.
"""
from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.header import PakFolder, _Fields, read_tables
from gbxfs.formats.pak.records import PakFileRecord
from gbxfs.formats.pak.stream import PageReader
from gbxfs.formats.pak.table import FileTable

_FILE_HEAD = struct.Struct("<5I")


@dataclass
class Pack6Table:
    version: int
    stored_md5: bytes
    md5_v3_rule: bool            # the md5 matches the version 3 rule (informative only)
    meta_offset: int
    data_offset: int | None      # None from version 15 (the plain HeaderMaxSize says it)
    meta_size: int
    meta_stored_size: int
    total_size: int | None       # version 16+
    author: tuple | None         # version 6 only: (version, login, nick, zone, extra)
    flags: int
    folders: list[PakFolder] = field(default_factory=list)
    files: Sequence[PakFileRecord] = field(default_factory=FileTable.empty)   # the archive puts a view of its cached table here
    folder_feed: bytes | None = None
    plain_size: int = 0


def read_table(stream, version: int, size: int) -> Pack6Table:
    """Parse the table from `stream` (fetch/feed: a decrypting stream, or
    PlainStream when the header is in clear), which holds `size` bytes."""
    src = PageReader(stream, size)
    f = _Fields(src)
    md5 = f.take(16)
    meta_offset = f.u32()
    data_offset = f.u32() if version < 15 else None
    meta_size, meta_stored = f.u32(), f.u32()
    total = None
    if version >= 14:
        f.take(16)
        if version >= 16:
            total = f.u32()
    f.take(16)
    author = None
    if version == 6:
        author = (f.u32(), f.string("author"), f.string("author"), f.string("author"), f.string("author"))
    flags = f.u32()
    # as in version 3: folders, the folder feed, then the compact file table (table.py)
    folders, fed, files, digest, size = read_tables(f, stream, version)
    return Pack6Table(version, md5, digest == md5, meta_offset, data_offset, meta_size,
                      meta_stored, total, author, flags, folders, files, fed, size)


def build_table(version: int, *, meta_offset: int, data_offset: int, flags: int,
                folders: list[tuple[int, str]], files: list[tuple], total_size: int = 0,
                author: tuple = (0, "", "", "", "")) -> bytes:
    """The writer's side of read_table (md5 by the version 3 rule). files:
    (folder, name, unknown, size, stored_size, offset, class_id, size2, checksum, flags)."""
    def string(text: str) -> bytes:
        raw = text.encode("utf-8")
        return struct.pack("<I", len(raw)) + raw

    out = bytearray(16)
    out += struct.pack("<I", meta_offset)
    if version < 15:
        out += struct.pack("<I", data_offset)
    out += struct.pack("<II", 0, 0)
    if version >= 14:
        out += bytes(16)
        if version >= 16:
            out += struct.pack("<I", total_size)
    out += bytes(16)
    if version == 6:
        out += struct.pack("<I", author[0]) + b"".join(string(s) for s in author[1:])
    out += struct.pack("<II", flags, len(folders))
    for parent, name in folders:
        out += struct.pack("<i", parent) + string(name)
    out += struct.pack("<I", len(files))
    for folder, name, unknown, size, stored, offset, class_id, size2, checksum, fflags in files:
        out += struct.pack("<i", folder) + string(name) + _FILE_HEAD.pack(unknown, size, stored, offset, class_id)
        if version >= 17:
            out += struct.pack("<I", size2)
        if version >= 14:
            out += checksum
        out += struct.pack("<Q", fflags)
    out[:16] = hashlib.md5(out).digest()
    return bytes(out)


class PlainStream:
    """A stored-in-clear region with the stream interface (fetch/feed) the
    table parser uses; feeds have nothing to act on."""

    def __init__(self, read_at, start: int, length: int):
        self._read_at, self.start, self.length, self.pos = read_at, start, length, 0
        self.folds: dict[int, int] = {}

    def fetch(self, n: int) -> bytes:
        n = max(0, min(n, self.length - self.pos))
        data = self._read_at(self.start + self.pos, n) if n else b""
        if len(data) != n:
            raise PakError(f"pack truncated at {self.start + self.pos:#x}")
        self.pos += n
        return data

    def feed(self, data: bytes) -> None:
        pass
