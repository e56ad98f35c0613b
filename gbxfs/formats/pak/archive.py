"""Opening a TrackMania pak (version 3): its version and its decrypted header.

    version = peek_version(read_at, size)       # PakError if not a pak
    header = read_pak_header(read_at, size, PakKey(key), version)

`read_at(offset, size)` returns up to `size` bytes of the pak (the caller's
I/O). Bad input raises PakError. The tree's PakArchive (tree/pak/archive.py)
keeps an open pak: its file table in the cache, its entries, its metadata.
"""
from __future__ import annotations

import struct

from gbxfs.formats.pak.cipher import BLOCK, PakKey
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.header import CIPHER_OFFSET, IV_OFFSET, KNOWN_VERSIONS, MAGIC, PakHeader, read_header
from gbxfs.formats.pak.stream import HEADER_AHEAD, EncryptedStream, ReadAt, read_exact


def peek_version(read_at: ReadAt, size: int) -> int:
    """The pak version after the "NadeoPak" magic (PakError if not a pak)."""
    if size < 12:
        raise PakError(f"not a pak: {size} bytes is shorter than its magic and version")
    head = read_exact(read_at, 0, 12, "magic")
    if head[:8] != MAGIC:
        raise PakError("not a pak (no NadeoPak magic)", 0)
    return struct.unpack_from("<I", head, 8)[0]


def check_pak(version: int, size: int) -> None:
    """PakError unless a pak of `version` and `size` bytes can be opened here."""
    if version not in KNOWN_VERSIONS:
        more = " (6+ is a ManiaPlanet pack: see packgbx)" if version >= 6 else ""
        raise PakError(f"unsupported pak version {version}{more}", 8)
    if size < CIPHER_OFFSET + BLOCK:
        raise PakError(f"pak truncated: {size} bytes cannot hold a header")


def read_pak_header(read_at: ReadAt, size: int, key: PakKey, version: int) -> PakHeader:
    """The pak's header, decrypted with `key` (its file table included)."""
    cipher_size = (size - CIPHER_OFFSET) & ~(BLOCK - 1)
    stream = EncryptedStream(read_at, key, IV_OFFSET, cipher_size, ahead=HEADER_AHEAD)
    try:
        return read_header(stream, version, cipher_size)
    except PakError as e:
        raise PakError(f"header does not decode (wrong key or corrupt pak): {e.reason}") from None
