"""GameBox (.Gbx) files: header, reference table, body, chunk engine.

Sans-I/O: bytes in, plain objects out. The one-call API:

    from gbxfs.formats import gbx
    g = gbx.parse(data)                 # GbxError if the header itself is unusable
    g.header.class_name, g.header.version, g.header.format_bytes
    for c in g.header.chunks:           # header chunks: raw + decoded values (or error)
        c.chunk_id, c.name, c.raw, c.values, c.error
    g.refs                              # RefTable (externals, folders) or None
    g.body.status                       # complete | partial | failed | absent
    g.body.nodes[0].chunks              # main node's chunks (Chunk records); g.body.error
    g.body_bytes                        # decompressed body (None if absent/unreadable)

Pieces, for other layers: `header.parse_header/read_header`, `body.read_body`,
`nodes.walk_body` (accepts a pull source and the pak hooks `on_node`/`feed`),
`decl.registry()` (chunk declarations), `dump.dump_values` (.txt dumps),
`classdb` (names, remapping, feed ids). Errors: `errors.GbxError`, `errors.Truncated`.
"""
from __future__ import annotations

from dataclasses import dataclass

from .body import BodyData, read_body
from .errors import GbxError, Truncated
from .header import GbxHeader, RefTable, parse_header, read_header
from .model import Chunk, ExternalRef, Node, NodeRef
from .nodes import BodyResult, decode_header_chunk, walk_body

__all__ = [
    "Gbx", "parse", "GbxError", "Truncated", "GbxHeader", "RefTable", "Chunk", "Node", "NodeRef",
    "ExternalRef", "BodyResult", "parse_header", "read_header", "read_body", "walk_body",
    "decode_header_chunks",
]


@dataclass(eq=False)
class Gbx:
    header: GbxHeader
    body: BodyResult
    body_data: BodyData | None = None

    @property
    def refs(self) -> RefTable | None:
        return self.header.refs

    @property
    def body_bytes(self) -> bytes | None:
        return None if self.body_data is None else self.body_data.data

    @property
    def class_name(self) -> str | None:
        return self.header.class_name


def decode_header_chunks(header: GbxHeader) -> None:
    """Decode every declared header chunk in place (fresh lookback state for each)."""
    for chunk in header.chunks:
        decode_header_chunk(chunk, text=header.text)


def parse(data: bytes | bytearray | memoryview, *, body: bool = True, decode_header: bool = True,
          walk: bool = True) -> Gbx:
    """Parse a whole in-memory GBX file. Header problems raise GbxError; body
    problems are reported in `.body.status` / `.body.error`."""
    header = parse_header(data)
    if decode_header:
        decode_header_chunks(header)
    if not body:
        return Gbx(header, BodyResult("absent"))
    assert header.body_offset is not None       # parse_header read the reference table
    try:
        body_data = read_body(data, header.body_offset, header.body_compression)
    except GbxError as e:
        return Gbx(header, BodyResult("failed", error=e))
    if not body_data.data:
        return Gbx(header, BodyResult("absent", size=0), body_data)
    if not walk:
        return Gbx(header, BodyResult("absent", size=len(body_data.data)), body_data)
    result = walk_body(body_data.data, class_id=header.raw_class_id, text=header.text,
                       num_nodes=header.num_nodes, externals=header.refs.by_node_index() if header.refs else None)
    return Gbx(header, result, body_data)
