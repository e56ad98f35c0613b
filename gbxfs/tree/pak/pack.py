"""A ManiaPlanet pack (.Pack.Gbx, NadeoPak version 6+) as a folder: its plain
header in pack-info.txt (and pack.xml when present); the content stays closed.

    open_pack_gbx(name, source, ctx) -> Dir
"""
from __future__ import annotations

from gbxfs.formats.pak import packgbx
from gbxfs.formats.pak.archive import peek_version
from gbxfs.formats.pak.errors import PakError
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import BytesFile, Dir, Entry
from gbxfs.tree.pak.info import error_dir
from gbxfs.tree.source import ByteSource

PACK_INFO_NAME = "pack-info.txt"
HEADER_READS = (64 << 10, 1 << 20, 16 << 20)   # pack headers: small, big, huge (seed: HeaderMaxSize)


def open_pack_gbx(name: str, source: ByteSource, ctx: TreeContext) -> Dir:
    """A ManiaPlanet pack: its plain header as text; the content stays closed."""
    mtime = source.mtime_ns
    header, err = None, None
    for n in HEADER_READS:
        try:
            header = packgbx.parse(source.read_at(0, min(n, source.size)))
            break
        except PakError as e:
            err = e.reason
            if n >= source.size:
                break
    if header is None:
        return error_dir(name, f"pack = {name}\nstatus = unreadable\n", err or "unreadable", mtime)
    kids: list[Entry] = [BytesFile(PACK_INFO_NAME, packgbx.render(header).encode("utf-8", "replace"),
                                   mtime_ns=mtime)]
    if header.xml:
        kids.append(BytesFile("pack.xml", header.xml.encode("utf-8"), mtime_ns=mtime))
    d = Dir(name, children=kids, mtime_ns=mtime)
    d.xattrs["user.pak.version"] = str(header.version).encode()
    return d


def probe_pack_gbx(name: str, source: ByteSource) -> bool:
    """A *.Pack.Gbx that really is a NadeoPak (version 6+)."""
    try:
        return peek_version(source.read_at, source.size) >= 6
    except (PakError, OSError):
        return False
