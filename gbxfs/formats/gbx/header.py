"""GBX header (versions 3 to 6) and reference table (docs/formats/gbx.md, "Header").

`parse_header(data)` reads an in-memory file (or a prefix of one); `read_header(reader)`
reads from a GbxReader positioned at the magic, which is what the pak layer uses for
the header records of its metadata section (`refs=False`: those stop after numNodes).
Header chunks are returned raw here; `gbxfs.formats.gbx.decode_header_chunks` decodes
them with the chunk declarations.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import classdb
from .decl.registry import registry
from .errors import GbxError
from .model import Chunk, ExternalRef
from .reader import GbxReader
from .sources import BufferSource
from .textreader import as_text_reader

MAGIC = b"GBX"
MAX_FOLDER_DEPTH = 32
MAX_FOLDERS = 1 << 16
HEAVY_BIT = 0x80000000


@dataclass(eq=False)
class RefTable:
    ancestor_level: int = 0
    folders: list[str] = field(default_factory=list)     # depth-first; index i+1 in folderIndex terms
    externals: list[ExternalRef] = field(default_factory=list)

    def by_node_index(self) -> dict[int, ExternalRef]:
        return {e.node_index: e for e in self.externals}


@dataclass(eq=False)
class GbxHeader:
    version: int
    format: str                    # "B" binary or "T" text
    ref_compression: str           # "U" / "C"
    body_compression: str          # "U" / "C"
    unknown_byte: str | None       # "R" / "E" from version 4, else None
    class_id: int                  # remapped to the current id
    raw_class_id: int              # as stored
    user_data_size: int | None     # version 6 only
    chunks: list[Chunk]            # header chunks (raw; decode with decode_header_chunks)
    num_nodes: int
    refs: RefTable | None          # None when not read (refs=False)
    body_offset: int | None        # offset of the body in the data (after the ref table)
    header_end: int = 0            # offset just after numNodes

    @property
    def text(self) -> bool:
        return self.format == "T"

    @property
    def format_bytes(self) -> str:
        return self.format + self.ref_compression + self.body_compression + (self.unknown_byte or "")

    @property
    def class_name(self) -> str | None:
        return classdb.class_name(self.class_id)


def parse_header(data: bytes | bytearray | memoryview, *, refs: bool = True, views: bool = False) -> GbxHeader:
    """Parse the header (and by default the reference table) of in-memory GBX data.
    `views`: each header chunk's raw is a memoryview of `data` rather than a copy
    (a look made once, such as a folder's listing: no copy of a thumbnail of
    200 KB; the chunks then keep all of `data` alive)."""
    src = BufferSource(data)
    return _header(GbxReader(src), refs, src.view if views else None)


# a binary version-6 header: "GBX", version, four format bytes, class id, userDataSize
_SIZED_PREFIX = 17


def header_length(prefix: bytes | bytearray | memoryview) -> int | None:
    """The bytes a binary version-6 header takes through numNodes and the reference
    table's external count (what a header without external references takes), from
    its first 17 bytes; None when the prefix does not tell (shorter, not binary
    version 6). Lets a reader fetch a large header in one more read of the right size."""
    if len(prefix) < _SIZED_PREFIX or bytes(prefix[:3]) != MAGIC or prefix[3] != 6 or prefix[4] != 0:
        return None
    if prefix[5] != ord("B"):
        return None
    return _SIZED_PREFIX + int.from_bytes(prefix[13:17], "little") + 8


def _choice(r: GbxReader, allowed: str, what: str) -> str:
    at = r.tell()
    b = chr(r.u8())
    if b not in allowed:
        raise r.error(f"{what} byte is {b!r}, expected one of {', '.join(allowed)}", at)
    return b


def read_header(r: GbxReader, *, refs: bool = True) -> GbxHeader:
    """Read a header from `r` (positioned at "GBX"). For text files the rest is read
    through a TextGbxReader over the same data; the returned offsets are relative to
    the start of `r`."""
    return _header(r, refs, None)


def _header(r: GbxReader, refs: bool, whole: memoryview | None) -> GbxHeader:
    """`whole`: all the bytes `r` reads from its start, to take chunks from as
    views (parse_header's views), else None (chunks copied)."""
    try:
        return _read_header(r, refs, whole)
    except GbxError as e:
        raise e.add_context(where="header") from None


def _read_header(r: GbxReader, refs: bool, whole: memoryview | None) -> GbxHeader:
    magic = r.bytes(3)
    if magic != MAGIC:
        raise r.error(f"not a GBX file (magic {magic!r})", 0)
    version = r.u16()
    if not 3 <= version <= 6:
        raise r.error(f"unsupported header version {version} (3 to 6 are known)", 3)
    fmt = _choice(r, "BT", "format")
    ref_comp = _choice(r, "UC", "reference table compression")
    body_comp = _choice(r, "UC", "body compression")
    unknown = _choice(r, "RE", "fourth format") if version >= 4 else None
    if fmt == "T":
        r = as_text_reader(r)
    raw_class_id = r.hex32()
    user_data_size = None
    chunks: list[Chunk] = []
    if version >= 6:
        user_data_size, chunks = _read_user_data(r, whole)
    num_nodes = r.u32()
    if num_nodes > 1 << 24:
        raise r.error(f"numNodes {num_nodes} out of range", r.tell() - 4)
    header_end = r.tell()
    table = None
    body_offset = None
    if refs:
        if ref_comp == "C":
            raise r.error("compressed reference table is not supported (the games never use it)")
        table = _read_refs(r, version, num_nodes)
        body_offset = r.tell()
    return GbxHeader(version, fmt, ref_comp, body_comp, unknown, classdb.remap(raw_class_id), raw_class_id,
                     user_data_size, chunks, num_nodes, table, body_offset, header_end)


def _read_user_data(r: GbxReader, whole: memoryview | None) -> tuple[int, list[Chunk]]:
    at = r.tell()
    size = r.u32()
    if r.remaining is not None and size > r.remaining:
        raise r.error(f"userDataSize {size} exceeds the {r.remaining} bytes left", at)
    if size == 0:
        return 0, []
    start = r.tell()
    with r.limit(size) as end:
        count = r.u32()
        # binary: 8 bytes per table entry; text: at least two 3-byte lines
        if count > max(0, size // 6 if r.text else (size - 4) // 8):
            raise r.error(f"{count} header chunks cannot fit in userDataSize {size}", start)
        entries = _text_table(r, count) if r.text else _binary_table(r, count, size, start)
        chunks = []
        remap, name = classdb.remap, registry().chunk_name
        base = r.offset_base
        for cid, csize, heavy in entries:
            off = r.tell()
            if off + csize > end:
                raise r.error(f"header chunk {cid:08X} of {csize} bytes overflows userDataSize {size}", off)
            if whole is None:
                raw: bytes | memoryview = r.bytes(csize)
            else:
                r.skip(csize)
                raw = whole[off:off + csize]
            new_id = remap(cid)
            chunks.append(Chunk(new_id, base + off, csize, raw, raw_id=cid if cid != new_id else None,
                                heavy=heavy, header=True, name=name(new_id, True)))
        if r.remaining:
            raise r.error(f"header chunks end {r.remaining} bytes before userDataSize {size}", r.tell())
    return size, chunks


def _binary_table(r: GbxReader, count: int, size: int, start: int) -> list[tuple[int, int, bool]]:
    """The (id, size, heavy) of `count` header chunks: 8 bytes each, read at once
    (the count fits userDataSize); their sizes must add up to userDataSize."""
    words = r.array("I", 2 * count)
    entries = []
    total = 4
    for i in range(0, 2 * count, 2):
        cid, word = words[i], words[i + 1]
        csize = word & ~HEAVY_BIT
        total += 8 + csize
        if total > size:
            raise r.error(f"header chunk {cid:08X} of {csize} bytes overflows userDataSize {size}",
                          start + 4 + 4 * i)
        entries.append((cid, csize, bool(word & HEAVY_BIT)))
    if total != size:
        raise r.error(f"header chunk sizes add up to {total} bytes, userDataSize says {size}", start)
    return entries


def _text_table(r: GbxReader, count: int) -> list[tuple[int, int, bool]]:
    """The (id, size, heavy) of `count` header chunks, one line each (a text
    file's sizes are not checked against userDataSize)."""
    entries = []
    for _ in range(count):
        cid = r.hex32()
        word = r.u32()
        entries.append((cid, word & ~HEAVY_BIT, bool(word & HEAVY_BIT)))
    return entries


def _read_refs(r: GbxReader, version: int, num_nodes: int) -> RefTable:
    try:
        return _read_refs_inner(r, version, num_nodes)
    except GbxError as e:
        raise e.add_context(where="reference table") from None


def _read_refs_inner(r: GbxReader, version: int, num_nodes: int) -> RefTable:
    table = RefTable()
    at = r.tell()
    n_ext = r.u32()
    if n_ext == 0:
        return table
    r.check_count(n_ext, 8, "external node count")
    if n_ext > num_nodes:
        raise r.error(f"{n_ext} external nodes but numNodes is {num_nodes}", at)
    table.ancestor_level = r.u32()
    _read_folders(r, "", 0, table.folders)
    for _ in range(n_ext):
        at = r.tell()
        flags = r.u32()
        name = res = folder = use_file = None
        if flags & 4 == 0:
            name = r.string()
        else:
            res = r.u32()
        node_index = r.u32()
        if node_index >= num_nodes:
            raise r.error(f"external node index {node_index} outside numNodes {num_nodes}", at)
        if version >= 5:
            use_file = r.bool()
        if flags & 4 == 0:
            folder = r.u32()
        path = None
        if name is not None:
            if folder == 0:
                path = name
            elif folder is not None and folder <= len(table.folders):
                path = table.folders[folder - 1] + "/" + name
        table.externals.append(ExternalRef(flags, name, res, node_index, use_file, folder, path))
    return table


def _read_folders(r: GbxReader, prefix: str, depth: int, out: list[str]) -> None:
    if depth >= MAX_FOLDER_DEPTH:
        raise r.error(f"reference folders nested deeper than {MAX_FOLDER_DEPTH}")
    count = r.u32()
    r.check_count(count, 8, "folder count")
    for _ in range(count):
        name = r.string().replace("\\", "/").rstrip("/")
        path = f"{prefix}/{name}" if prefix else name
        out.append(path)
        if len(out) > MAX_FOLDERS:
            raise r.error(f"more than {MAX_FOLDERS} reference folders")
        _read_folders(r, path, depth + 1, out)
