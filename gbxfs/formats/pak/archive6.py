"""Opening a ManiaPlanet/TM2020 pack (.Pack.Gbx, "NadeoPak" versions 6-18) as
far as the keys at hand allow: its plain header, then its file table.

    pack = read_pack_header(read_at, size)              # packgbx.PackHeader, always
    table = read_pack_table(read_at, size, version, pack, key_or_None)
    table.table, table.error, table.data_offset

Without any key: the plain header always; the file table when the header
is stored in clear or under the public default header key; the files
flagged PublicFile/ForceNoCrypt. With the pack's key (packlist.dat entry or
key file): everything else too. The tree's PackArchive (tree/pak/archive6.py)
keeps an open pack.
"""
from __future__ import annotations

from dataclasses import dataclass

from gbxfs.formats.pak import packgbx
from gbxfs.formats.pak.cipher import BLOCK
from gbxfs.formats.pak.cipher6 import header_encrypted, header_key, pack_key
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.header6 import Pack6Table, PlainStream, read_table
from gbxfs.formats.pak.stream import EncryptedStream, ReadAt

FIRST_VERSION, LAST_VERSION = 6, 18
HEADER_READS = (64 << 10, 1 << 20, 16 << 20)   # plain header: small, big, huge (seed: HeaderMaxSize)


def check_pack(version: int) -> None:
    """PakError unless a pack of `version` can be opened here."""
    if not FIRST_VERSION <= version <= LAST_VERSION:
        raise PakError(f"unsupported pack version {version} (known: {FIRST_VERSION}-{LAST_VERSION})", 8)


def read_pack_header(read_at: ReadAt, size: int) -> packgbx.PackHeader:
    """The plain header, reading more of the file only when it is longer."""
    err = None
    for n in HEADER_READS:
        try:
            return packgbx.parse(read_at(0, min(n, size)))
        except PakError as e:
            err = e
            if n >= size:
                break
    raise err  # type: ignore[misc]


@dataclass(frozen=True)
class PackTable:
    table: Pack6Table | None    # None: not shown (`error` says why)
    error: str | None
    data_offset: int            # where the files' data offsets count from


def read_pack_table(read_at: ReadAt, size: int, version: int, pack: packgbx.PackHeader,
                    key: bytes | None) -> PackTable:
    """The pack's file table, decrypted when its header flags say so (PakError:
    it does not decode)."""
    start = pack.header_size
    flags = pack.decrypt_flags
    if header_encrypted(flags):
        hkey = header_key(flags, key)
        if hkey is None:
            return PackTable(None, "the file table is encrypted with the pack's own key (header flags "
                             f"{flags:#x}), which is not public: give it with --packlist", 0)
        length = (size - start - BLOCK) & ~(BLOCK - 1)
        if length <= 0:
            raise PakError("pack truncated: no room for its encrypted header")
        stream: EncryptedStream | PlainStream = EncryptedStream(read_at, pack_key(version, hkey), start, length)
    else:
        length = size - start
        stream = PlainStream(read_at, start, length)
    try:
        table = read_table(stream, version, length)
    except PakError as e:
        raise PakError(f"file table does not decode (wrong key or corrupt pack): {e.reason}") from None
    if version >= 15:
        if pack.header_max_size is None:
            raise PakError("version 15+ pack without HeaderMaxSize")
        return PackTable(table, None, pack.header_max_size)
    return PackTable(table, None, table.data_offset or 0)
