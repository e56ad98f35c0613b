"""TrackMania paks (version 3), packlist.dat and the Nadeo Blowfish; ManiaPlanet/TM2020
packs (.Pack.Gbx, versions 6-18).

Sans-I/O: a `read_at(offset, size)` (or bytes) in, plain values out; no threads,
locks or caches (the tree keeps an open pak: tree/pak/archive.py, entry.py). Pieces:

    version = peek_version(read_at, size); check_pak(version, size)
    header = read_pak_header(read_at, size, PakKey(key), version)   # PakHeader; .files: FileTable
    read_metadata(...)                  # every GBX entry's header (Metadata)
    static_error(...), static_check, static_rows   # what the table fields alone say of an entry
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
from typing import Any

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
    "static_error": "tablecheck", "static_check": "tablecheck", "static_rows": "tablecheck",
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

__all__ = [*_HOME, *_MODULES]


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)
