"""header/ of a GBX folder: the header chunks' files, listed as rows (tree/rows.py).

A walk of a folder of thousands of maps lists every map's header/, and each
listing stays in the byte-bounded cache. As entries (a file object per file,
with its key, its chunk's xattrs and the closures that make it again) one
cost about 6 KB per map; as rows it is the files' names (shared: every map
has the same few header chunks, so the names are interned), their sizes (a
.txt's is getattr's: LAZY) and one small record per chunk. A file's entry is
made when a request names it, the same every time (same name, key, size and
xattrs), so a listing made again after eviction shows the same files.
"""
from __future__ import annotations

import errno
import sys
from array import array
from typing import Any, NamedTuple, Protocol

from gbxfs.tree.cached import ENTRY_COST, CachedDir, CachedFile, ParsedBytesFile
from gbxfs.tree.gbx.chunkfiles import chunk_base, chunk_xattrs, render_chunk_txt, xml_bytes
from gbxfs.tree.gbx.errors import error_file
from gbxfs.tree.gbx.parse import GbxParse, _bare
from gbxfs.tree.gbx.pictures import icon_problem
from gbxfs.tree.gbx.summary import decode_header
from gbxfs.tree.model import Entry
from gbxfs.tree.rows import LAZY, Rows

TXT, BIN, XML = range(3)      # a row's token: chunk index * 4 + one of these
LISTING = "header/"           # the listing's cache key: GbxFolder._key(LISTING)


class HeaderFolder(CachedDir):
    """header/: its listing a header read and decode, which a walk may make ahead
    (model.Dir.list_ahead)."""

    __slots__ = ()
    list_ahead = True


class GbxFolder(Protocol):
    """What the rows ask of their GBX folder (tree/gbx/view.py)."""
    name: str
    mtime_ns: int | None
    p: GbxParse

    def _key(self, *what: Any) -> tuple: ...
    def _header(self) -> Any: ...


class ChunkFacts(NamedTuple):
    """What a header chunk's files carry in their xattrs (chunkfiles.chunk_xattrs)."""
    chunk_id: int
    offset: int
    error: BaseException | None


class HeaderRows(Rows):
    """The rows of one header/: its GBX folder and its chunks' facts, for making
    entries: their ids and offsets in arrays, the errors of those that have one."""

    __slots__ = ("folder", "ids", "offsets", "errors")
    folder: GbxFolder
    ids: array
    offsets: array
    errors: dict[int, BaseException] | None

    def facts(self, j: int) -> ChunkFacts:
        return ChunkFacts(self.ids[j], self.offsets[j], self.errors.get(j) if self.errors else None)


def header_rows(folder: GbxFolder) -> Rows:
    """header/'s listing: per chunk <ID>[.<name>].txt (LAZY), .bin and, for an XML
    chunk, .xml, then error.txt for the chunks that did not decode (and an icon
    that cannot be made). Nothing of the header is kept but the facts."""
    h = folder.p.header_once().header    # a walk of thousands of header/ folders keeps no header
    if h is None:
        raise OSError(errno.EIO, f"{folder.name}: header no longer parses")
    decode_header(h)
    taken: set[str] = set()
    names: list[str] = []
    cells: list = []
    sizes: list[int] = []
    intern = sys.intern
    for j, c in enumerate(h.chunks):
        base = chunk_base(c, taken)
        xml = xml_bytes(c)
        for kind, ext, size in ((TXT, ".txt", LAZY), (BIN, ".bin", len(c.raw)), (XML, ".xml", len(xml))):
            if kind == XML and not xml:
                continue
            names.append(intern(base + ext))
            cells.append(4 * j + kind)
            sizes.append(size)
    icon = icon_problem(h, folder.p.ctx.cache, folder._key)
    errors = error_file([(f"header chunk {c.chunk_id:08X}", _bare(c.error)) for c in h.chunks
                         if c.error is not None] + ([icon] if icon else []))
    if errors is not None:
        names.append(errors.name)
        cells.append(errors)
        sizes.append(-1)
    rows = HeaderRows(names, cells, sizes, folder.mtime_ns, _make)  # type: ignore[arg-type]  # it makes the rows it is given
    rows.folder = folder
    rows.ids, rows.offsets = array("Q", [c.chunk_id for c in h.chunks]), array("q", [c.offset for c in h.chunks])
    rows.errors = {j: c.error for j, c in enumerate(h.chunks) if c.error is not None} or None
    return rows


def _make(rows: HeaderRows, i: int, token: int) -> Entry:
    """The entry of row i: a chunk's file, made as the listing of entries made it."""
    j, kind = divmod(token, 4)
    folder, name = rows.folder, rows.names[i]
    x = chunk_xattrs(rows.facts(j))
    key = folder._key("header", j)

    def chunk():
        return folder._header().chunks[j]

    cache = folder.p.ctx.cache
    entry: Entry
    if kind == BIN:
        entry = ParsedBytesFile(name, lambda: chunk().raw, size=rows.sizes[i], xattrs=x)
    elif kind == TXT:
        entry = CachedFile(name, cache, (key, "txt"), lambda: render_chunk_txt(chunk()), xattrs=x, lazy=True)
    else:
        entry = CachedFile(name, cache, (key, "xml"), lambda: xml_bytes(chunk()), size=rows.sizes[i], xattrs=x)
    cache.grow(folder._key(LISTING), ENTRY_COST)     # it stays with the rows: counted from now on
    return entry

