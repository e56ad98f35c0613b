"""TrackMania paks (version 3), packlist.dat and the Nadeo Blowfish; ManiaPlanet/TM2020
packs (.Pack.Gbx, versions 6-18).

Sans-I/O: a `read_at(offset, size)` (or bytes) in, plain values out; no threads,
locks or caches (the tree keeps an open pak: tree/pak/archive.py, entry.py). Pieces:

    version = peek_version(read_at, size); check_pak(version, size)
    header = read_pak_header(read_at, size, PakKey(key), version)   # PakHeader; .files: FileTable
    read_metadata(...)                  # every GBX entry's header (Metadata)
    static_error(...), rows_of   # what the table fields alone say of an entry
    kind_of, inflate_whole, gbx_pass    # an entry's bytes: its kind, one-call inflation, the GBX pass
    SeekableInflate                     # random access into a zlib entry
    plain_range, decrypt_streams        # decrypting a range of a stream, many small streams at once
    read_pack_header, read_pack_table   # versions 6-18; their entries: static_error6, decrypt_from_start, lz4_*
    sums, scan, roots                   # counts and sizes of a table in one pass
    packlist, keyfile, packgbx          # packlist.dat, plain-text key files, a pack's plain header
Errors: `PakError`.

The names below are loaded from their modules on first use, so importing one
module of the package (the CLI checks a file's magic first) loads no other.
"""
from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:     # what type checkers see: the same names, imported at once
    from gbxfs.formats.pak import keyfile, packgbx, packlist
    from gbxfs.formats.pak.archive import check_pak, peek_version, read_pak_header
    from gbxfs.formats.pak.archive6 import check_pack, read_pack_header, read_pack_table
    from gbxfs.formats.pak.batch import decrypt_streams
    from gbxfs.formats.pak.cipher import BLOCK, PAGE, PakKey, align8
    from gbxfs.formats.pak.cipher6 import pack_key
    from gbxfs.formats.pak.entry import SMALL_ENTRY, STORED_PIECE, gbx_pass, inflate_whole, kind_of
    from gbxfs.formats.pak.entry6 import (
        LZ4_HEAD,
        PREFIX,
        Lz4Source,
        decrypt_from_start,
        lz4_starts_gbx,
        lz4_whole,
        static_error6,
    )
    from gbxfs.formats.pak.errors import PakError
    from gbxfs.formats.pak.gbxentry import GBX_MAGIC, GbxPass, GbxWalk
    from gbxfs.formats.pak.header import KNOWN_VERSIONS, PakHeader
    from gbxfs.formats.pak.header6 import Pack6Table
    from gbxfs.formats.pak.metadata import Metadata, read_metadata
    from gbxfs.formats.pak.records import COMPRESSED_FLAGS, PakFileRecord, plain_component
    from gbxfs.formats.pak.seekinflate import CHUNK, IN_PIECE, SeekableInflate
    from gbxfs.formats.pak.stream import plain_range, read_exact
    from gbxfs.formats.pak.table import FileTable
    from gbxfs.formats.pak.tablecheck import rows_of, static_error
    from gbxfs.formats.pak.tablesum import TableSums, roots, scan, sums
    from gbxfs.formats.pak.verification import ADLER32, LZ4_VERSION, RECOVERED, by_storage, no_checksum, refusal

# name -> the module of this package that defines it
_HOME = MappingProxyType({
    "PakError": "errors",
    "BLOCK": "cipher", "PAGE": "cipher", "PakKey": "cipher", "align8": "cipher",
    "pack_key": "cipher6",
    "KNOWN_VERSIONS": "header", "PakHeader": "header",
    "COMPRESSED_FLAGS": "records", "PakFileRecord": "records", "plain_component": "records",
    "FileTable": "table",
    "Pack6Table": "header6",
    "peek_version": "archive", "check_pak": "archive", "read_pak_header": "archive",
    "check_pack": "archive6", "read_pack_header": "archive6", "read_pack_table": "archive6",
    "Metadata": "metadata", "read_metadata": "metadata",
    "static_error": "tablecheck",
    "rows_of": "tablecheck",
    "TableSums": "tablesum", "sums": "tablesum", "scan": "tablesum", "roots": "tablesum",
    "ADLER32": "verification", "RECOVERED": "verification", "LZ4_VERSION": "verification",
    "no_checksum": "verification", "refusal": "verification", "by_storage": "verification",
    "plain_range": "stream", "read_exact": "stream",
    "decrypt_streams": "batch",
    "CHUNK": "seekinflate", "IN_PIECE": "seekinflate", "SeekableInflate": "seekinflate",
    "GBX_MAGIC": "gbxentry", "GbxPass": "gbxentry", "GbxWalk": "gbxentry",
    "SMALL_ENTRY": "entry", "STORED_PIECE": "entry", "kind_of": "entry", "inflate_whole": "entry",
    "gbx_pass": "entry",
    "PREFIX": "entry6", "LZ4_HEAD": "entry6", "Lz4Source": "entry6", "static_error6": "entry6",
    "decrypt_from_start": "entry6", "lz4_starts_gbx": "entry6", "lz4_whole": "entry6",
})
_MODULES = ("packlist", "keyfile", "packgbx")

__all__ = [
    "PakError", "BLOCK", "PAGE", "PakKey", "align8", "pack_key", "KNOWN_VERSIONS", "PakHeader", "COMPRESSED_FLAGS",
    "PakFileRecord", "plain_component", "FileTable", "Pack6Table", "peek_version", "check_pak", "read_pak_header",
    "check_pack", "read_pack_header", "read_pack_table", "Metadata", "read_metadata", "static_error",
    "rows_of", "TableSums", "sums", "scan", "roots", "ADLER32", "RECOVERED", "LZ4_VERSION",
    "no_checksum", "refusal", "by_storage", "plain_range", "read_exact", "decrypt_streams", "CHUNK", "IN_PIECE",
    "SeekableInflate", "GBX_MAGIC", "GbxPass", "GbxWalk", "SMALL_ENTRY", "STORED_PIECE", "kind_of", "inflate_whole",
    "gbx_pass", "PREFIX", "LZ4_HEAD", "Lz4Source", "static_error6", "decrypt_from_start", "lz4_starts_gbx",
    "lz4_whole", "packlist", "keyfile", "packgbx",
]


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)
