"""A ManiaPlanet/TM2020 pack (.Pack.Gbx, "NadeoPak" versions 6-18) as a folder.

    open_pack_gbx(name, source, ctx) -> Dir

The folder holds pack-info.txt (the plain header, how the file table is
stored, the key used, what is readable), pack.xml when the header has XML,
and, wherever no secret key is missing, the pack's tree built exactly like a
version 3 pak's (typed names, GBX folders). Files that need the pack's key
are listed with their exact size and answer EIO; the error.txt of their
folder says why. A pack whose table needs the key shows its header and an
error.txt saying so. Nothing here ever fails the mount.
"""
from __future__ import annotations

from gbxfs.formats.pak import PakError, TableSums, packgbx, peek_version, read_pack_header, sums
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import BytesFile, Dir, Entry, RenderedFile
from gbxfs.tree.pak.archive6 import PackArchive
from gbxfs.tree.pak.entries import build_tree
from gbxfs.tree.pak.info import ERROR_NAME, ERROR_XATTR, error_dir, key_lines, typed_lines, verification_lines
from gbxfs.tree.pak.keys import lookup_key
from gbxfs.tree.pak.names import long_name_lines, typed_renames_and_sums
from gbxfs.tree.source import ByteSource

PACK_INFO_NAME = "pack-info.txt"
XML_NAME = "pack.xml"


def render_pack_info(header: packgbx.PackHeader, arc: PackArchive | None, ks, error: str | None,
                     typed: list | None = None, table_sums: TableSums | None = None) -> str:
    """The text of pack-info.txt; `table_sums`: sums(arc.files) if at hand."""
    lines = [packgbx.render(header).rstrip("\n")]
    lines += key_lines(ks)
    if arc is not None:
        lines.append(f"table.storage = {arc.header_mode}")
        t = arc.table
        if t is not None:
            # one pass over its fields: a table may list a million files
            s = table_sums if table_sums is not None else sums(arc.files)
            lines += [
                f"table.md5 = {t.stored_md5.hex()} ({'matches' if t.md5_v3_rule else 'differs from'}"
                " the version 3 rule; not checked)",
                f"table.flags = {t.flags:#x}",
                "table.folder_feed = " + (f"applied ({t.folder_feed.hex()})" if t.folder_feed else "not applied"),
                f"data_offset = {arc.data_offset}",
                f"folders = {len(t.folders)}",
                f"files = {s.files}",
                f"files.public = {s.files - s.encrypted}",
                f"files.encrypted = {s.encrypted}",
                f"files.compressed = {s.compressed}",
                f"files.no_feed_flag = {s.no_feed}",
                f"files.need_key = {s.encrypted if arc.key is None else 0}",
                f"files.total_size = {s.size}",
            ]
            lines += verification_lines(s, arc.version)
    lines.append("status = " + ("ok" if error is None else f"error: {error}"))
    lines += typed_lines(typed)
    if arc is not None and arc.table is not None:
        lines += long_name_lines(arc.files)
    return "\n".join(lines) + "\n"


def open_pack_gbx(name: str, source: ByteSource, ctx: TreeContext) -> Dir:
    mtime = source.mtime_ns
    try:
        header = read_pack_header(source.read_at, source.size)
    except PakError as e:
        return error_dir(name, f"pack = {name}\nstatus = unreadable\n", e.reason, mtime)
    key, ks = lookup_key(name, source, ctx)
    arc, error = None, None
    try:
        arc = PackArchive(source.read_at, source.size, key, cache=ctx.cache, verified_only=ctx.verified_only)
        error = arc.table_error
    except PakError as e:
        error = e.reason

    def render() -> bytes:
        typed, s = typed_renames_and_sums(arc, ctx.typed_names) if arc and arc.table else (None, None)
        return render_pack_info(header, arc, ks, error, typed, s).encode("utf-8", "replace")
    kids: list[Entry] = [RenderedFile(PACK_INFO_NAME, render, mtime_ns=mtime)]
    if header.xml:
        kids.append(BytesFile(XML_NAME, header.xml.encode("utf-8"), mtime_ns=mtime))
    if arc is None or arc.table is None:
        assert error is not None        # no archive or no table: the reason was kept
        kids.append(BytesFile(ERROR_NAME, (error + "\n").encode("utf-8", "replace"), mtime_ns=mtime))
        d = Dir(name, children=kids, mtime_ns=mtime)
        d.xattrs[ERROR_XATTR] = error.encode("utf-8", "replace")
    else:
        d = build_tree(arc, ctx, mtime, name, kids)
    d.xattrs["user.pak.version"] = str(header.version).encode()
    return d


def probe_pack_gbx(name: str, source: ByteSource) -> bool:
    """A *.Pack.Gbx that really is a NadeoPak (version 6+)."""
    try:
        return peek_version(source.read_at, source.size) >= 6
    except (PakError, OSError):
        return False
