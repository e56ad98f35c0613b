"""embedded/: what a GBX carries inside itself.

- A replay's map (body chunk 03093002: u32 size + a whole GBX file) becomes a
  nested GBX folder, opened through ctx.open_child like any other file. Its
  source reads the chunk from the cached parse (no copy kept in the tree).
- A map's embedded items (chunk 03043054, decoded by the map declarations)
  become items.zip (the stored ZIP, byte for byte) and items.txt (the item
  list the chunk declares, then the ZIP's member names), and items/, the ZIP
  opened (gbxfs/tree/gbx/zipdir.py). Where the ZIP lies and items.txt are
  found once from the parse and kept in the body's digest; the ZIP's bytes are
  read from the body again when needed.
"""
from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Callable
from typing import Any

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.dump import dump_lines
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.model import Node
from gbxfs.tree.cached import LazySliceSource, ParsedBytesFile
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.zipdir import zip_folder
from gbxfs.tree.model import Entry

REPLAY_MAP = classdb.class_id("CGameCtnReplayRecord") | 0x002      # 03093002
EMBEDDED_ITEMS = classdb.class_id("CGameCtnChallenge") | 0x054     # 03043054
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


def items_record(main: Node) -> tuple[int, int, bytes] | None:
    """Where a map's items.zip lies in the body (offset, size) and its items.txt,
    found once from the decoded main node, so that embedded/ needs no parse later
    (kept in the body's digest, see digest.py). None: no ZIP. Raises GbxError
    for a ZIP that cannot be listed."""
    c = main.chunk(EMBEDDED_ITEMS)
    if c is None or not c.values:
        return None
    z = _find_zip(c.values)
    if z is None:
        return None
    at = bytes(c.raw).find(z)
    if at < 0:          # not stored verbatim in the chunk: cannot happen for a byte buffer field
        raise GbxError("embedded items ZIP not found in its chunk's bytes", chunk_id=EMBEDDED_ITEMS)
    return c.offset + at, len(z), items_text(c)


def embedded_entries(main: Node, ctx: TreeContext, mtime_ns: int, open_nested, key: Any,
                     get_main: Callable[[], Node], get_items: Callable[[], tuple[int, int, bytes] | None],
                     get_slice: Callable[[int, int], bytes]) -> list[Entry]:
    """`main` is the main node with its chunks' raw bytes; `get_main()` gets it
    again when an entry is read later; `get_items()` gives its items_record (from
    the cached digest); `get_slice(offset, size)` reads the body; `key` is a
    cache key unique to this file. The entries keep none of these bytes."""
    items = get_items()
    out: list[Entry] = []
    data = replay_map(main)
    if data is not None:
        def map_again() -> memoryview:
            again = replay_map(get_main())
            assert again is not None        # the same node: the same map
            return again
        out.append(open_nested("map.Gbx", LazySliceSource(map_again, len(data), mtime_ns)))
    if items is not None:
        at, size, text = items
        zip_bytes = get_slice(at, size)
        out.append(ParsedBytesFile("items.zip", lambda: get_slice(at, size), size=size))
        out.append(ParsedBytesFile("items.txt", lambda: get_items()[2], size=len(text)))  # type: ignore[index]  # found above
        # the same ZIP opened: items/<...>.Item.Gbx folders
        out.append(zip_folder("items", zip_bytes, lambda: get_slice(at, size), open_nested,
                              ctx.cache, (key, "items/"), mtime_ns))
    return out
