"""Builds version 3 paks and their packlist.dat (tests, the demo).

    write_packs(folder, {"Sample": [PakFile("Sample/Media/a.dds", data), ...]}, salt=1234)

Embedded GBX entries get correct feeds by running the reader's own parse
over an EncryptingStream: each page is encrypted at the moment the reader
would fetch it, with the ivXor the parse has built by then. So an entry the
reader cannot parse cannot be written either (ValueError): the writer never
produces a pak its reader would refuse.
"""
from __future__ import annotations

import hashlib
import os
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.header import parse_header
from gbxfs.formats.pak import packlist
from gbxfs.formats.pak.cipher import PAGE, PakKey, align8
from gbxfs.formats.pak.gbxentry import GBX_MAGIC, run_gbx_pass
from gbxfs.formats.pak.header import MAGIC, NO_FEED_FLAG, build_plain, read_header
from gbxfs.formats.pak.stream import EncryptingStream

COMPRESSED_FLAG = 0x4     # any bit of 0x7C marks a compressed entry


@dataclass
class PakFile:
    path: str                        # "Folder/Sub/name.ext" ("/" or "\\" separators)
    data: bytes
    compress: bool = True
    feeds: bool = True               # False sets the "no dummy write" flag
    class_id: int | None = None      # default: the GBX's class id, else 0
    flags: int | None = None         # override the computed flags entirely
    folder_depth: int | None = None  # leading components stored as folders; the rest stays in the
                                     # file name as a backslash sub-path (default: all but the last)
    metadata: bool = True            # GBX only: put its header in the metadata section
    unknown: int = 0
    level: int = 9                   # zlib compression level


def make_key_string(seed: str) -> bytes:
    """A 32-character key string like the game's (upper-case hex)."""
    return hashlib.md5(seed.encode("utf-8")).hexdigest().upper().encode("ascii")


def _iv(seed: bytes, what: str) -> bytes:
    return hashlib.md5(seed + what.encode("utf-8")).digest()[:8]


def _split(f: PakFile) -> tuple[tuple[str, ...], str]:
    parts = [p for p in f.path.replace("\\", "/").split("/") if p]
    depth = len(parts) - 1 if f.folder_depth is None else f.folder_depth
    if not 1 <= depth < len(parts):
        raise ValueError(f"{f.path!r}: a pak file needs at least one folder and a name")
    return tuple(parts[:depth]), "\\".join(parts[depth:])


def _folder_table(files: Sequence[PakFile], order: list[str]) -> tuple[list[tuple[int, str]], dict]:
    index: dict[tuple[str, ...], int] = {}
    table: list[tuple[int, str]] = []

    def add(path: tuple[str, ...]) -> int:
        if path not in index:
            parent = add(path[:-1]) if len(path) > 1 else -1
            index[path] = len(table)
            table.append((parent, path[-1] + "\\"))
        return index[path]

    for p in order:
        add(tuple(x for x in p.replace("\\", "/").split("/") if x))
    for f in files:
        add(_split(f)[0])
    return table, index


def _entry_blob(key: PakKey, f: PakFile, iv: bytes, decls) -> tuple[bytes, int, bool]:
    """IV + ciphertext, the stored size, and whether it is a feeding GBX."""
    plain = zlib.compress(f.data, f.level) if f.compress else f.data
    stream = EncryptingStream(key, iv, plain)
    gbx = f.feeds and f.data[:3] == GBX_MAGIC
    if gbx:
        res = run_gbx_pass(stream, len(f.data), f.compress, decls=decls)
        if not res.verified:
            raise ValueError(f"{f.path}: the reader could not verify this GBX entry: {res.error}")
    return stream.finish(), len(plain), gbx


def _class_id(f: PakFile) -> int:
    if f.class_id is not None:
        return f.class_id
    if f.data[:3] == GBX_MAGIC:
        try:
            return parse_header(f.data, refs=False).raw_class_id
        except GbxError:
            return 0
    return 0


def build_pak(files: list[PakFile], key_string: bytes, *, folders: Sequence[str] = (), seed: bytes = b"",
              extra: bytes = bytes(range(16)), flags: int = 0, version: int = 3, decls=None) -> bytes:
    """The bytes of a pak holding `files` (in that order), encrypted with the
    key derived from `key_string`. `folders` fixes the order of some folders
    (the third one decides the header folder feed); `seed` varies the IVs;
    `decls`: GBX chunk declarations the reader will use (None: the shipped ones)."""
    if version != 3:
        raise ValueError("only version 3 paks are written")
    key = PakKey(packlist.derive_key(key_string))
    table, index = _folder_table(files, list(folders))
    blobs, records, meta = [], [], bytearray()
    offset = 0
    for i, f in enumerate(files):
        folder_path, name = _split(f)
        blob, stored, gbx = _entry_blob(key, f, _iv(seed, f"file:{i}:{f.path}"), decls)
        fl = f.flags if f.flags is not None else (COMPRESSED_FLAG if f.compress else 0) | (
            0 if f.feeds else NO_FEED_FLAG)
        records.append((index[folder_path], name, f.unknown, len(f.data), stored, offset, _class_id(f), fl))
        blobs.append(blob)
        offset += len(blob)
        if f.metadata and f.data[:3] == GBX_MAGIC:
            try:
                end = parse_header(f.data, refs=False).header_end
            except GbxError:
                continue
            meta += struct.pack("<i", i) + f.data[:end]
    meta += struct.pack("<i", -1)
    meta_z = zlib.compress(bytes(meta), 9)
    meta_plain = meta_z + bytes(-len(meta_z) % PAGE)

    def plain_header(data_offset: int) -> bytes:
        return build_plain(version, meta_offset=data_offset + offset, data_offset=data_offset,
                           meta_size=len(meta), meta_stored=len(meta_z), extra=extra, flags=flags,
                           folders=table, files=records)

    size = len(plain_header(0))
    plain = plain_header(20 + align8(size))
    stream = EncryptingStream(key, _iv(seed, "header"), plain)
    read_header(stream, version, stream.length)  # the reader's parse decides where the feed lands
    head = MAGIC + struct.pack("<I", version) + stream.finish()
    meta_stream = EncryptingStream(key, _iv(seed, "metadata"), meta_plain)
    return head + b"".join(blobs) + meta_stream.finish()


def write_packs(folder: str | os.PathLike, paks: dict[str, list[PakFile]], *, salt: int = 1234,
                key_strings: dict[str, bytes] | None = None, **build_kw) -> dict[str, Path]:
    """Write <name>.pak for each pak and a packlist.dat holding their keys.
    Returns {name: path}, plus "packlist.dat"."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    keys = dict(key_strings or {})
    written: dict[str, Path] = {}
    entries = []
    for name, files in paks.items():
        ks = keys.get(name) or make_key_string(f"{name}:{salt}")
        entries.append((name, ks))
        path = out / f"{name}.pak"
        path.write_bytes(build_pak(files, ks, **build_kw))
        written[name] = path
    written["packlist.dat"] = out / "packlist.dat"
    written["packlist.dat"].write_bytes(packlist.build(entries, salt))
    return written


def many_files(count: int, *, seed: int = 1, per_folder: int = 1000) -> list[PakFile]:
    """`count` small entries with seeded names, `per_folder` to a folder
    (two folder levels): a pak whose file table is its bulk, for measuring and
    testing large tables. Every 97th entry holds a few bytes, the rest are empty."""
    import random
    rnd = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    exts = (".txt", ".dds", ".ogg", ".png", "")
    out = []
    for i in range(count):
        folder = i // per_folder
        name = "".join(rnd.choices(alphabet, k=rnd.randint(4, 12))) + rnd.choice(exts)
        data = rnd.randbytes(rnd.randint(1, 200)) if i % 97 == 0 else b""
        out.append(PakFile(f"Data/G{folder // 32:03d}/F{folder % 32:02d}/{name}", data, compress=i % 2 == 0))
    return out
