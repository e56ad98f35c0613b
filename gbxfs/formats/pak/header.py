"""The encrypted pak header (version 3): fields, folders, file table, MD5.

Read through a PageReader so that the folder feed (docs/formats/pak.md) lands on the
page the game would fetch next. The same function runs over the writer's
EncryptingStream to produce the ciphertext.
"""
from __future__ import annotations

import hashlib
import operator
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.records import (  # noqa: F401
    COMPRESSED_FLAGS,
    FORCE_NO_CRYPT_FLAG,
    MAX_DEPTH,
    MAX_NAME,
    NO_FEED_FLAG,
    PACK_COMPRESSED_FLAGS,
    PUBLIC_FILE_FLAG,
    PakFileRecord,
    PakFolder,
    decode_name,
    make_folders,
    plain_component,
    split_name,
)
from gbxfs.formats.pak.stream import READ_AHEAD, PageReader
from gbxfs.formats.pak.table import FileTable, read_files

MAGIC = b"NadeoPak"
IV_OFFSET = 12          # u64 header IV after magic + u32 version
CIPHER_OFFSET = 20
KNOWN_VERSIONS = (1, 2, 3)
FOLDER_MIN = 8           # i32 parent + u32 name length
FILE_MIN = 4 + 4 + 28    # i32 folder + u32 name length + fixed fields
_FILE_FIXED = struct.Struct("<5IQ")
_FOLDER_HEAD = struct.Struct("<iI")   # parent, name length


@dataclass
class PakHeader:
    version: int
    stored_md5: bytes
    md5_ok: bool
    meta_offset: int
    data_offset: int
    meta_size: int            # uncompressed size of the metadata records
    meta_stored_size: int     # compressed size
    extra: bytes              # the 16 unnamed bytes (version >= 3)
    flags: int
    folders: list[PakFolder] = field(default_factory=list)
    # a FileTable as read; once its archive is open, a view of the table it caches; a list as written
    files: Sequence[PakFileRecord] = field(default_factory=list)
    folder_feed: bytes | None = None   # what the folder feed fed, None when it did not apply
    plain_size: int = 0       # plain header bytes from the md5 field to the end of the file table


def folder_feed_bytes(folder_names: list[str]) -> bytes | None:
    """docs/formats/pak.md: with more than 2 folders and a third stored name longer than 4
    characters, the game feeds UTF-16LE bytes 4..7 (its 3rd and 4th chars)."""
    if len(folder_names) > 2 and len(folder_names[2]) > 4:
        return folder_names[2].encode("utf-16-le")[4:8]
    return None


class _Fields:
    def __init__(self, src: PageReader):
        self.src = src

    def take(self, n: int) -> bytes:
        try:
            return self.src.read(n)
        except GbxError as e:
            raise PakError(f"pak header truncated: {e.reason}") from None

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def i32(self) -> int:
        return struct.unpack("<i", self.take(4))[0]

    def string(self, what: str) -> str:
        n = self.u32()
        if n > MAX_NAME:
            raise PakError(f"{what} name of {n} bytes is too long (limit {MAX_NAME})")
        return decode_name(self.take(n))

    def count(self, what: str, min_size: int) -> int:
        n = self.u32()
        left = self.src.remaining
        if n * min_size > left:
            raise PakError(f"{n} {what} need at least {n * min_size} bytes, the pak has {left} left")
        return n


def read_header(stream, version: int, cipher_size: int) -> PakHeader:
    """Parse the plain header from `stream` (page fetch + feed), which holds
    `cipher_size` bytes of ciphertext."""
    src = PageReader(stream, cipher_size)
    f = _Fields(src)
    md5 = f.take(16)
    meta_offset, data_offset = f.u32(), f.u32()
    meta_size = meta_stored = 0
    if version >= 2:
        meta_size, meta_stored = f.u32(), f.u32()
    extra = f.take(16) if version >= 3 else b""
    flags = f.u32()
    folders, fed, files, digest, size = read_tables(f, stream, version)
    return PakHeader(version, md5, digest == md5, meta_offset, data_offset,
                     meta_size, meta_stored, extra, flags, folders, files, fed, size)


def read_tables(f: _Fields, stream, version: int) -> tuple[list[PakFolder], bytes | None, FileTable, bytes, int]:
    """The folder table, the folder feed and the file table, which end the
    header in every version (header6.py: 6-18 too). Returns (folders, what
    the feed fed, files, the md5 of the header by the version 3 rule, the
    header's plain size from the md5 field on)."""
    src = f.src
    n_folders = f.count("folders", FOLDER_MIN)
    try:
        raw_folders = _read_folders(src, n_folders)
    except GbxError as e:
        raise PakError(f"pak header truncated: {e.reason}") from None
    fed = folder_feed_bytes([name for _, name in raw_folders])
    if fed is not None:
        stream.feed(fed)
    folders = _resolve_folders(raw_folders)
    n_files = f.count("files", FILE_MIN)
    # no feed comes after the folder feed: the rest is decrypted in large pieces
    before = src.consumed
    digest = hashlib.md5(bytes(16) + src.taken[16:])
    files, size = read_files(src.read_upto, n_files, folders, digest, version)
    return folders, fed, files, digest.digest(), before + size


def _read_folders(src: PageReader, count: int) -> list[tuple[int, str]]:
    """(parent, name) of `count` folder records: the bytes read() would hand out
    for f.i32() and f.string("folder") per folder, in the same order, and every
    page fetched before the folder feed, as it was. Records are parsed from
    the buffer at hand with no call per field (a pak may hold thousands of
    folders). When it runs out, the pages holding 8 more bytes per folder left
    (what each takes at least), up to READ_AHEAD, are fetched at once: they are
    all read before the feed in any case. A record that still runs past them
    (or whose name is too long) is read field by field, as before."""
    out: list[tuple[int, str]] = []
    add, head, read, from_bytes = out.append, _FOLDER_HEAD.unpack_from, src.read, int.from_bytes
    buf = src.take_buffered()
    at, end = 0, len(buf)
    j = 0
    fetched_for = -1
    while j < count:
        if at + 8 <= end:
            parent, n = head(buf, at)
            if at + 8 + n <= end and n <= MAX_NAME:
                add((parent, decode_name(buf[at + 8:at + 8 + n])))
                at += 8 + n
                j += 1
                continue
            if n > MAX_NAME:
                fetched_for = j     # refused field by field below, with nothing fetched for it
        src.give_back(end - at)
        if fetched_for != j:
            # capped: a hostile count (up to the rest of the file / 8) and a bad name
            # after it must not decrypt the whole file before the refusal
            src.fetch_through(min(8 * (count - j), READ_AHEAD))
            fetched_for = j
        else:
            parent = from_bytes(read(4), "little", signed=True)
            n = from_bytes(read(4), "little")
            if n > MAX_NAME:
                raise PakError(f"folder name of {n} bytes is too long (limit {MAX_NAME})")
            add((parent, decode_name(read(n))))
            j += 1
        buf = src.take_buffered()
        at, end = 0, len(buf)
    src.give_back(end - at)
    return out


def _resolve_folders(raw: list[tuple[int, str]]) -> list[PakFolder]:
    """Full paths of folders; a parent must exist and the chain must end at -1.

    The nesting depth is checked before a path longer than MAX_DEPTH is built:
    a path tuple per folder costs depth x folders, so a hostile parent chain
    could otherwise take memory quadratic in the header size."""
    n = len(raw)
    parents = [parent for parent, _ in raw]
    for j, parent in enumerate(parents):
        if parent != -1 and not 0 <= parent < n:
            raise PakError(f"folder {j} has parent {parent}, the pak has {n} folders")
    names = [name for _, name in raw]
    # folder names repeat ("Media\\", "Textures\\"...): each distinct one split once
    split = {name: split_name(name) for name in set(names)}
    own = list(map(split.__getitem__, names))
    if all(map(operator.lt, parents, range(n))):
        # every parent listed before its folders (the writers' order): one pass, and the
        # first folder too deep is the one the general way below names
        paths: list[tuple[str, ...]] = []
        for i, (parent, mine) in enumerate(zip(parents, own)):
            path = paths[parent] + mine if parent >= 0 else mine
            if len(path) > MAX_DEPTH:
                raise PakError(f"folder {i} is nested {len(path)} levels deep (more than {MAX_DEPTH}): "
                               "refusing the folder table")
            paths.append(path)
    else:
        paths = _paths_any_order(parents, own)
    return make_folders(parents, names, paths)


def _paths_any_order(parents: list[int], own: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """_resolve_folders' paths when a parent may come after its folder: iterative,
    every depth known (and checked) before any path is built."""
    n = len(parents)
    depth = [-1] * n           # path components from the root, once known
    for i in range(n):
        chain: list[int] = []
        j = i
        while j != -1 and depth[j] < 0:
            if len(chain) > n:
                raise PakError(f"folder {i} has a cyclic parent chain")
            chain.append(j)
            j = parents[j]
        d = 0 if j == -1 else depth[j]
        for k in reversed(chain):
            d += len(own[k])
            depth[k] = d
        if d > MAX_DEPTH:
            raise PakError(f"folder {i} is nested {d} levels deep (more than {MAX_DEPTH}): refusing the folder table")
    out: list[tuple[str, ...] | None] = [None] * n
    for i in range(n):
        chain = []
        j = i
        while j != -1 and out[j] is None:
            chain.append(j)
            j = parents[j]
        base = () if j == -1 else out[j] or ()     # out[j] is set (the loop above stopped at it)
        for k in reversed(chain):
            base = base + own[k]
            out[k] = base
    return out  # type: ignore[return-value]  # every folder's path set above


def build_plain(version: int, *, meta_offset: int, data_offset: int, meta_size: int, meta_stored: int,
                extra: bytes, flags: int, folders: list[tuple[int, str]],
                files: list[tuple[int, str, int, int, int, int, int, int]]) -> bytes:
    """Plain header bytes with a correct MD5 (the writer's side of read_header).
    files: (folder, name, unknown, size, stored_size, offset, class_id, flags)."""
    out = bytearray(16)
    out += struct.pack("<II", meta_offset, data_offset)
    if version >= 2:
        out += struct.pack("<II", meta_size, meta_stored)
    if version >= 3:
        out += extra
    out += struct.pack("<II", flags, len(folders))
    for parent, name in folders:
        raw = name.encode("utf-8")
        out += struct.pack("<iI", parent, len(raw)) + raw
    out += struct.pack("<I", len(files))
    for folder, name, *fixed in files:
        raw = name.encode("utf-8")
        out += struct.pack("<iI", folder, len(raw)) + raw + _FILE_FIXED.pack(*fixed)
    out[:16] = hashlib.md5(out).digest()
    return bytes(out)
