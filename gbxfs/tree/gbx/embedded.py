"""embedded/: what a GBX carries inside itself.

- A replay's map (body chunk 03093002: u32 size + a whole GBX file) becomes a
  nested GBX folder, opened through ctx.open_child like any other file. Its
  source reads the chunk from the cached parse (no copy kept in the tree).
- A map's embedded items (chunk 03043054, decoded by the map declarations)
  become items.zip (the stored ZIP, byte for byte) and items.txt (the item
  list the chunk declares, then the ZIP's member names), and items/, the ZIP
  opened (gbxfs/tree/gbx/zipdir.py).
"""
from __future__ import annotations

import io
import struct
import zipfile
from typing import Any, Callable

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.model import Node
from gbxfs.tree.context import TreeContext
from gbxfs.formats.gbx.dump import dump_lines
from gbxfs.tree.cached import CachedFile, LazySliceSource, ParsedBytesFile
from gbxfs.tree.gbx.zipdir import zip_folder
from gbxfs.tree.model import Entry

REPLAY_MAP = 0x03093002
EMBEDDED_ITEMS = 0x03043054
MAX_ZIP_MEMBERS = 100_000


def replay_map(node: Node) -> memoryview | None:
    """The embedded map's bytes, a view into the chunk (no copy)."""
    c = node.chunk(REPLAY_MAP)
    if c is None or len(c.raw) < 4:
        return None
    size = struct.unpack_from("<I", c.raw)[0]
    if size == 0:
        return None
    if size > len(c.raw) - 4:
        raise GbxError(f"embedded map of {size} bytes exceeds its {len(c.raw) - 4}-byte chunk",
                       chunk_id=REPLAY_MAP, offset=c.offset)
    return memoryview(c.raw)[4:4 + size]


def _find_zip(value: Any) -> bytes | None:
    if isinstance(value, (bytes, bytearray)) and bytes(value[:4]) == b"PK\x03\x04":
        return bytes(value)
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for v in value:
            z = _find_zip(v)
            if z is not None:
                return z
    return None


def zip_listing(data: bytes) -> list[str]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()[:MAX_ZIP_MEMBERS]
            return [f"{i.filename} ({i.file_size} bytes)" for i in infos]
    except (zipfile.BadZipFile, ValueError, OSError) as e:
        raise GbxError(f"embedded items ZIP cannot be listed: {e}", chunk_id=EMBEDDED_ITEMS) from None


def items_text(c) -> bytes:
    z = _find_zip(c.values) or b""
    listing = dump_lines({k: v for k, v in c.values.items() if not isinstance(v, (bytes, bytearray))})
    text = "\n".join(["# chunk 03043054", *listing, "# items.zip members", *zip_listing(z)]) + "\n"
    return text.encode("utf-8", "replace")


def embedded_entries(main: Node, ctx: TreeContext, mtime_ns: int, open_nested, key: Any,
                     get_main: Callable[[], Node]) -> list[Entry]:
    """`main` is the main node; `get_main()` gets it again from the cached parse
    when an entry is read later; `key` is a cache key unique to this file."""
    out: list[Entry] = []
    data = replay_map(main)
    if data is not None:
        out.append(open_nested("map.Gbx", LazySliceSource(lambda: replay_map(get_main()), len(data), mtime_ns)))
    c = main.chunk(EMBEDDED_ITEMS)
    if c is not None and c.values:
        z = _find_zip(c.values)
        if z is not None:
            text = items_text(c)      # made now as well: a ZIP that cannot be listed is an error now

            def chunk() -> Node:
                return get_main().chunk(EMBEDDED_ITEMS)
            out.append(ParsedBytesFile("items.zip", lambda: _find_zip(chunk().values), size=len(z)))
            out.append(CachedFile("items.txt", ctx.cache, (key, "items.txt"), lambda: items_text(chunk()),
                                  size=len(text)))
            # the same ZIP opened: items/<...>.Item.Gbx folders
            out.append(zip_folder("items", z, lambda: _find_zip(chunk().values) or b"", open_nested,
                                  ctx.cache, (key, "items/"), mtime_ns))
    return out
