"""The files of one chunk: <CHUNKID>[.<name>].txt, .bin, and .xml for XML chunks.

Names are a contract (docs/formats/mount.md): the 8-digit upper-case chunk id, then the
chunk's short name when one is known, made safe for a file name.

The files keep no chunk: they get it again from the cached parse through
`get()` when read (see gbxfs/tree/cached.py), so a listed folder of thousands of chunks
costs a few hundred bytes per file, not the chunks' bytes and values.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from gbxfs.formats.gbx.decl import registry
from gbxfs.formats.gbx.dump import F32Texts, dump_bytes
from gbxfs.formats.gbx.model import Chunk
from gbxfs.tree.cached import ParsedBytesFile
from gbxfs.tree.model import Entry

_UNSAFE = re.compile(r"[^A-Za-z0-9_+-]+")


def safe_name(name: str) -> str:
    return _UNSAFE.sub("_", name).strip("_")[:48]


def chunk_base(chunk: Chunk, taken: set[str]) -> str:
    """<CHUNKID>[.<name>], with -2, -3... when a node has the same chunk twice."""
    base = f"{chunk.chunk_id:08X}"
    name = chunk.name
    if name and safe_name(name):
        base += "." + safe_name(name)
    stem, n = base, 2
    while base in taken:
        base = f"{stem}-{n}"
        n += 1
    taken.add(base)
    return base


class ChunkPlace(Protocol):
    """What a chunk file's xattrs say: a Chunk, or the facts kept of one (headerfiles)."""
    @property
    def chunk_id(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def error(self) -> Any: ...


def chunk_xattrs(chunk: ChunkPlace) -> dict[str, bytes]:
    x = {"user.gbx.chunk_id": f"{chunk.chunk_id:08X}".encode(),
         "user.gbx.offset": str(chunk.offset).encode()}
    if chunk.error is not None:
        x["user.gbxfs.error"] = str(chunk.error).encode("utf-8", "replace")
    return x


def xml_text(chunk: Chunk) -> str | None:
    """The XML document a chunk carries: the field its declaration flags `xml=`."""
    decl = registry().get(chunk.chunk_id, header=chunk.header)
    if decl is None or decl.xml is None or not chunk.values:
        return None
    v = chunk.values.get(decl.xml)
    return v if isinstance(v, str) and v.strip() else None


def render_chunk_txt(chunk: Chunk, texts: F32Texts | None = None) -> bytes:
    """A chunk's .txt; `texts`: the tree's remembered float texts (TreeContext.f32_texts)."""
    if chunk.values is not None:
        text = dump_bytes(chunk.values, texts)
        if chunk.error is not None:   # decoded in part: say where it stopped
            text += f"# decoding stopped: {chunk.error}\n".encode("utf-8", "replace")
        return text
    if chunk.error is not None:
        return f"# not decoded: {chunk.error}\n".encode("utf-8", "replace")
    return b"# not decoded: no declaration for this chunk (raw bytes in the .bin file)\n"


def xml_bytes(chunk: Chunk) -> bytes:
    return (xml_text(chunk) or "").encode("utf-8", "replace")


def chunk_entries(chunk, taken: set[str], text_file: Callable[[str, str, dict], Entry],
                  raw: Callable[[], bytes | memoryview], raw_size: int, has_xml: bool) -> list[Entry]:
    """The files of a chunk (a Chunk, or a record with its chunk_id, name,
    offset and error): its .txt (and .xml) made by text_file(name, kind, xattrs),
    its .bin read through raw()."""
    base = chunk_base(chunk, taken)
    x = chunk_xattrs(chunk)
    files: list[Entry] = [text_file(base + ".txt", "txt", x), ParsedBytesFile(base + ".bin", raw, size=raw_size, xattrs=x)]
    if has_xml:
        files.append(text_file(base + ".xml", "xml", x))
    return files
