"""The metadata section: the header of every GBX entry, without its data.

At metaDataOffset: an 8-byte IV, then the ciphertext of zlib(records),
padded with zeros to a multiple of 0x100 compressed bytes. A record is an
i32 file index and that file's GBX header up to and including numNodes; an
index outside the file table (-1) ends the list. No feeds are involved, so
the whole section decrypts in bulk.
"""
from __future__ import annotations

import functools
import struct
import zlib
from dataclasses import dataclass, field

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.header import read_header
from gbxfs.formats.gbx.reader import GbxReader
from gbxfs.formats.gbx.sources import BufferSource
from gbxfs.formats.pak.cipher import PAGE, PakKey, align8
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.stream import plain_range

MAX_META = 64 << 20     # refuse a declared metadata size beyond this before inflating

# a binary version 6 GBX header's first 9 bytes: magic, version, the four format bytes
# (gbx/header.py reads them one by one); class id and userDataSize follow
_BINARY6 = frozenset(b"GBX\x06\x00B" + bytes((a, b, c)) for a in b"UC" for b in b"UC" for c in b"RE")
_HEAVY = 0x80000000
_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")


@functools.lru_cache(maxsize=64)   # bounded: n comes from the file (real headers have a few chunks)
def _table(n: int) -> struct.Struct:
    """A header chunk table of n entries (ids and sizes)."""
    return struct.Struct(f"<{2 * n}I")


@dataclass
class Metadata:
    headers: dict[int, bytes] = field(default_factory=dict)   # file index -> GBX header bytes
    error: str | None = None     # why (part of) the section could not be read


def stored_length(stored_size: int) -> int:
    """Ciphertext bytes of the section: compressed size rounded up to a page."""
    return -(-stored_size // PAGE) * PAGE


def read_metadata(read_at, file_size: int, key: PakKey, offset: int, size: int, stored_size: int,
                  num_files: int) -> Metadata:
    out = Metadata()
    if size == 0 and stored_size == 0:
        return out
    if size > MAX_META:
        out.error = f"metadata size {size} exceeds the {MAX_META}-byte limit"
        return out
    length = min(stored_length(stored_size), max(0, (file_size - offset - 8)) & ~7)
    if length < align8(stored_size) or offset + 8 > file_size:
        out.error = f"metadata section truncated ({stored_size} compressed bytes declared)"
        return out
    try:
        plain = plain_range(read_at, key, offset, length, 0, stored_size)
        z = zlib.decompressobj()
        records = z.decompress(plain, size + 1)
        if not z.eof:
            raise PakError("metadata zlib stream does not end (or exceeds its declared size)")
    except (PakError, zlib.error) as e:
        out.error = f"metadata section unreadable: {e}"
        return out
    if len(records) != size:
        out.error = f"metadata inflates to {len(records)} bytes, the header says {size}"
    _parse_records(records, num_files, out)
    return out


def _parse_records(records: bytes, num_files: int, out: Metadata) -> None:
    pos = 0
    i32, headers = _I32.unpack_from, out.headers
    while True:
        if pos + 4 > len(records):
            out.error = out.error or "metadata records end without a terminating index"
            return
        (index,) = i32(records, pos)
        pos += 4
        if not 0 <= index < num_files:
            return
        end = header_end(records, pos)
        if end is None:
            try:
                end = pos + read_header(GbxReader(BufferSource(records, pos)), refs=False).header_end
            except GbxError as e:
                out.error = f"metadata record for file {index} is not a GBX header: {e}"
                return
        headers[index] = records[pos:end]
        pos = end


def header_end(records: bytes, pos: int) -> int | None:
    """Where the binary version 6 GBX header at `pos` ends (after numNodes), as
    read_header(refs=False) would find it, from its sizes alone: a pak's metadata
    holds one header per GBX entry and only their lengths are needed when the pak
    opens. None for anything else or anything read_header would refuse: then
    read_header decides (other versions, text headers, errors and their messages)."""
    if records[pos:pos + 9] not in _BINARY6 or pos + 21 > len(records):
        return None
    (size,) = _U32.unpack_from(records, pos + 13)
    end = pos + 21 + size           # the user data, then numNodes
    if end > len(records):
        return None
    if size:
        if size < 4:
            return None
        count = _U32.unpack_from(records, pos + 17)[0]
        if count > (size - 4) // 8:
            return None
        sizes = _table(count).unpack_from(records, pos + 21)[1::2]
        # the chunk sizes (heavy bit cleared) fill the user data exactly (so each chunk fits in it)
        if 4 + 8 * count + sum(sizes) - sum(map(_HEAVY.__and__, sizes)) != size:
            return None
    if _U32.unpack_from(records, end - 4)[0] > 1 << 24:
        return None
    return end
