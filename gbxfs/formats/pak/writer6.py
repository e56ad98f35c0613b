"""Builds ManiaPlanet/TM2020 packs (versions 6-18) for tests and the demo.

    build_pack([PackFile("Media/a.dds", data, public=True), ...], version=18,
               key=bytes(16), header_flags=2)

Every branch the reader knows is reachable: header in clear (flags 0),
under the public default key (2), the pack key (1) or both (3); files
encrypted or PublicFile/ForceNoCrypt; stored, zlib (6-17) or LZ4 (18);
GBX entries with or without ivXor feeds. As in the version 3 writer,
encrypted GBX entries are written by running the reader's own parse over
the encrypting stream, so feeds land where the reader expects them.
"""
from __future__ import annotations

import hashlib
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from gbxfs.formats.pak.cipher6 import header_encrypted, header_key, pack_key
from gbxfs.formats.pak.entry6 import LZ4_VERSION, Lz4Source
from gbxfs.formats.pak.gbxentry import GBX_MAGIC, run_gbx_pass
from gbxfs.formats.pak.header import FORCE_NO_CRYPT_FLAG, MAGIC, NO_FEED_FLAG, PUBLIC_FILE_FLAG
from gbxfs.formats.pak.header6 import PlainStream, build_table, read_table
from gbxfs.formats.pak.lz4blocks import deflate
from gbxfs.formats.pak.stream import EncryptingStream
from gbxfs.formats.pak.writer import COMPRESSED_FLAG, PakFile, _class_id, _folder_table, _iv, _split, many_files

HEADER_SIZES = (0x4000, 0x100000, 0x1000000)   # HeaderMaxSize values of version 15+


@dataclass
class PackFile(PakFile):
    public: bool = False          # PublicFile flag: stored in clear
    no_crypt: bool = False        # ForceNoCrypt flag: stored in clear

    @property
    def encrypted(self) -> bool:
        return not (self.public or self.no_crypt)


def _string(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack("<I", len(raw)) + raw


def _author(login: str) -> bytes:
    return struct.pack("<I", 0) + _string(login) + _string(login.title()) + _string("World") + _string("")


def build_plain_header(version: int, header_flags: int, header_max_size: int, *, checksum: bytes = bytes(32),
                       login: str = "writer", comment: str = "", xml: str = "", title_id: str = "") -> bytes:
    """The plain header (packgbx.parse reads it back), from the magic on."""
    out = bytearray(MAGIC + struct.pack("<I", version) + checksum + struct.pack("<I", header_flags))
    if version < 9:
        if version >= 7:
            out += _author(login) + _string(comment) + bytes(16)
        if version >= 8:
            out += _string("gbxfs writer") + _string("")
        return bytes(out)
    if version >= 15:
        out += struct.pack("<I", header_max_size)
    out += _author(login) + _string("")
    if version >= 13:
        out += _string("")
    out += struct.pack("<Q", 0) + _string(comment)
    if version >= 12:
        out += _string(xml) + _string(title_id)
    out += _string("Skins") + _string("gbxfs writer") + bytes(16)
    if version >= 10:
        out += struct.pack("<I", 0)
    return bytes(out)


def _flags(f: PackFile) -> int:
    if f.flags is not None:
        return f.flags
    fl = COMPRESSED_FLAG if f.compress else 0
    if not f.feeds:
        fl |= NO_FEED_FLAG
    if f.public:
        fl |= PUBLIC_FILE_FLAG
    if f.no_crypt:
        fl |= FORCE_NO_CRYPT_FLAG
    return fl


def _blob(f: PackFile, version: int, cipher, iv: bytes, decls) -> tuple[bytes, int]:
    """The stored bytes of a file (IV + ciphertext when encrypted) and its stored size."""
    lz4 = version >= LZ4_VERSION
    payload = (deflate(f.data) if lz4 else zlib.compress(f.data, f.level)) if f.compress else f.data
    if not f.encrypted:
        return payload, len(payload)
    if cipher is None:
        raise ValueError(f"{f.path}: an encrypted file needs the pack key")
    stream = EncryptingStream(cipher, iv, payload)
    if f.feeds and f.data[:3] == GBX_MAGIC:
        source = Lz4Source(stream, len(f.data)) if lz4 and f.compress else None
        res = run_gbx_pass(stream, len(f.data), f.compress and not lz4, decls=decls, source=source)
        if not res.verified:
            raise ValueError(f"{f.path}: the reader could not verify this GBX entry: {res.error}")
    return stream.finish(), len(payload)


def build_pack(files: list[PackFile], *, version: int, key: bytes | None = None, header_flags: int = 0,
               folders: Sequence[str] = (), seed: bytes = b"", comment: str = "", title_id: str = "",
               decls=None) -> bytes:
    """The bytes of a version `version` pack holding `files` (in that order).
    `key`: the pack's 16-byte Blowfish key (needed by encrypted files and a
    private header); `header_flags` bits 1/2 choose how the table is stored."""
    if not 6 <= version <= 18:
        raise ValueError("pack versions are 6..18")
    cipher = pack_key(version, key) if key is not None else None
    table, index = _folder_table(files, list(folders))
    blobs, records, offset = [], [], 0
    for i, f in enumerate(files):
        folder_path, name = _split(f)
        blob, stored = _blob(f, version, cipher, _iv(seed, f"file:{i}:{f.path}"), decls)
        records.append((index[folder_path], name, f.unknown, len(f.data), stored, offset, _class_id(f),
                        len(f.data), hashlib.md5(f.data).digest(), _flags(f)))
        blobs.append(blob)
        offset += len(blob)

    def table_bytes(data_offset: int) -> bytes:
        return build_table(version, meta_offset=data_offset + offset, data_offset=data_offset, flags=0,
                           folders=table, files=records)

    def plain(max_size: int) -> bytes:
        return build_plain_header(version, header_flags, max_size, comment=comment, title_id=title_id)

    enc = header_encrypted(header_flags)
    head_len = len(plain(0)) + (8 if enc else 0) + len(table_bytes(0)) + 8
    if version >= 15:
        data_offset = next((s for s in HEADER_SIZES if s >= head_len), None)
        if data_offset is None:
            raise ValueError("pack header exceeds 16 MiB")
    else:
        data_offset = (head_len + 0xFF) & ~0xFF
    head = plain(data_offset)
    tbl = table_bytes(data_offset)
    if enc:
        hkey = header_key(header_flags, key)
        if hkey is None:
            raise ValueError("a private header needs the pack key")
        stream = EncryptingStream(pack_key(version, hkey), _iv(seed, "header"), tbl)
        read_table(stream, version, stream.length)   # the reader's parse places the folder feed
        tbl = stream.finish()
    else:
        read_table(PlainStream(lambda o, n: tbl[o:o + n], 0, len(tbl)), version, len(tbl))  # self-check
    out = bytearray(head + tbl)
    if len(out) > data_offset:
        raise ValueError("pack header overflows its data offset")
    out += bytes(data_offset - len(out))
    out += b"".join(blobs)
    out[12:44] = hashlib.sha256(bytes(out[44:])).digest()   # contents checksum: every byte after it
    return bytes(out)


def many_pack_files(count: int, *, seed: int = 1, per_folder: int = 1000) -> list[PackFile]:
    """writer.many_files as public pack files (readable without any key): a
    pack whose file table is its bulk, for measuring and testing large tables."""
    return [PackFile(**vars(f), public=True) for f in many_files(count, seed=seed, per_folder=per_folder)]
