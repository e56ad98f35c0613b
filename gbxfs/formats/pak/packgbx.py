"""ManiaPlanet packs (.Pack.Gbx, "NadeoPak" version 6 and later): the plain
header fields the wiki's PAK page lists (docs/formats/pak.md). What follows them (file table, files) is
read by archive6.
"""
from __future__ import annotations

import datetime
import struct
from dataclasses import dataclass, field

from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.header import MAGIC

MAX_STRING = 1 << 20
INCLUDED_MIN = 32 + 4 + 4 * 5 + 4 + 8 + 4   # smallest included-pack record
_FILETIME_EPOCH = datetime.datetime(1601, 1, 1, tzinfo=datetime.UTC)


@dataclass
class AuthorInfo:
    version: int
    login: str
    nick: str
    zone: str
    extra_info: str


@dataclass
class IncludedPack:
    checksum: bytes
    name: str
    author: AuthorInfo
    info_manialink_url: str
    creation_date: int
    name2: str
    include_depth: int | None


@dataclass
class PackHeader:
    version: int
    checksum: bytes                  # SHA-256 of the contents after the header
    decrypt_flags: int
    header_max_size: int | None = None
    author: AuthorInfo | None = None
    manialink_url: str | None = None
    download_url: str | None = None
    creation_date: int | None = None  # as stored (u64; Windows FILETIME in practice)
    comment: str | None = None
    xml: str | None = None
    title_id: str | None = None
    usage_subdir: str | None = None
    creation_build_info: str | None = None
    author_url: str | None = None
    unused: bytes | None = None
    included: list[IncludedPack] = field(default_factory=list)
    header_size: int = 0


class _R:
    def __init__(self, data: bytes):
        self.d = data
        self.p = 0

    def take(self, n: int) -> bytes:
        if self.p + n > len(self.d):
            raise PakError(f"pack header truncated: need {n} bytes, {len(self.d) - self.p} left", self.p)
        b = self.d[self.p : self.p + n]
        self.p += n
        return b

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack("<Q", self.take(8))[0]

    def string(self) -> str:
        n = self.u32()
        if n > MAX_STRING:
            raise PakError(f"pack header string of {n} bytes (limit {MAX_STRING})", self.p - 4)
        raw = self.take(n)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.decode("latin-1")

    def author(self) -> AuthorInfo:
        return AuthorInfo(self.u32(), self.string(), self.string(), self.string(), self.string())


def parse(data: bytes) -> PackHeader:
    """Parse the plain header of a version 6+ pack from its first bytes."""
    r = _R(data)
    if r.take(8) != MAGIC:
        raise PakError("not a pack (no NadeoPak magic)", 0)
    version = r.u32()
    if version < 6:
        raise PakError(f"pak version {version} is not a ManiaPlanet pack (6 and later)", 8)
    h = PackHeader(version, r.take(32), r.u32())
    if version < 9:
        if version >= 7:
            h.author, h.comment, h.unused = r.author(), r.string(), r.take(16)
        if version >= 8:
            h.creation_build_info, h.author_url = r.string(), r.string()
    else:
        if version >= 15:
            h.header_max_size = r.u32()
        h.author = r.author()
        h.manialink_url = r.string()
        if version >= 13:
            h.download_url = r.string()
        h.creation_date = r.u64()
        h.comment = r.string()
        if version >= 12:
            h.xml, h.title_id = r.string(), r.string()
        h.usage_subdir = r.string()
        h.creation_build_info = r.string()
        h.unused = r.take(16)
        if version >= 10:
            n = r.u32()
            if n * INCLUDED_MIN > len(data) - r.p:
                raise PakError(f"{n} included packs cannot fit in the {len(data) - r.p} bytes left", r.p - 4)
            for _ in range(n):
                h.included.append(IncludedPack(r.take(32), r.string(), r.author(), r.string(), r.u64(),
                                               r.string(), r.u32() if version >= 11 else None))
    h.header_size = r.p
    return h


def filetime_text(value: int | None) -> str:
    """A FILETIME as ISO 8601 UTC when plausible, else the raw number."""
    if value is None:
        return ""
    try:
        when = _FILETIME_EPOCH + datetime.timedelta(microseconds=value // 10)
    except OverflowError:
        return str(value)
    if not 1990 <= when.year <= 2100:
        return str(value)
    return f"{when.isoformat()} ({value})"


def render(h: PackHeader) -> str:
    """`name = value` lines (the style of the other info files) for the pack's info file."""
    lines = [f"version = {h.version}", f"checksum = {h.checksum.hex()}",
             f"decrypt_flags = {h.decrypt_flags:#x}"]

    def add(name: str, value) -> None:
        if value is not None:
            lines.append(f"{name} = {value}")

    def author(prefix: str, a: AuthorInfo) -> None:
        for k in ("version", "login", "nick", "zone", "extra_info"):
            lines.append(f"{prefix}{k} = {getattr(a, k)}")

    add("header_max_size", h.header_max_size)
    if h.author:
        author("author.", h.author)
    add("manialink_url", h.manialink_url)
    add("download_url", h.download_url)
    if h.creation_date is not None:
        add("creation_date", filetime_text(h.creation_date))
    add("comment", h.comment)
    add("title_id", h.title_id)
    add("usage_subdir", h.usage_subdir)
    add("creation_build_info", h.creation_build_info)
    add("author_url", h.author_url)
    if h.version >= 10:
        lines.append(f"included_packs = {len(h.included)}")
    for i, p in enumerate(h.included):
        lines.append(f"  [{i}]")
        lines += [f"    checksum = {p.checksum.hex()}", f"    name = {p.name}"]
        lines += [f"    author.{k} = {getattr(p.author, k)}" for k in ("login", "nick", "zone")]
        lines += [f"    info_manialink_url = {p.info_manialink_url}",
                  f"    creation_date = {filetime_text(p.creation_date)}", f"    name2 = {p.name2}"]
        if p.include_depth is not None:
            lines.append(f"    include_depth = {p.include_depth}")
    lines.append(f"header_size = {h.header_size}")
    return "\n".join(lines) + "\n"
