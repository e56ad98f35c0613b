"""GBX bytes for the robustness tests, written from the seed's layout
(seeds/000), independently of gbxfs.formats.gbx:

- build_gbx / node_body: minimal version 6 binary files;
- layout(): where the size and count fields of a real file are, so hostile
  variants can set exactly those to huge values;
- with_body(): the same file around a changed (decompressed) body, LZO
  compressed again when the original was.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

import lzo

END = 0xFACADE01
SKIP = b"PIKS"
HUGE = (0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x40000000, 0x10000000, 0x01000000, 0x00FFFFFF)


def node_body(chunks: list[tuple[int, bytes, bool]]) -> bytes:
    """A node: (chunk id, data, skippable) ..., then the end marker."""
    out = bytearray()
    for cid, data, skippable in chunks:
        out += struct.pack("<I", cid)
        if skippable:
            out += SKIP + struct.pack("<I", len(data))
        out += data
    return bytes(out + struct.pack("<I", END))


def build_gbx(class_id: int, body: bytes, *, header_chunks: list[tuple[int, bytes]] = (),
              num_nodes: int = 1, compress: bool = False) -> bytes:
    """Version 6, binary, no reference table entries."""
    table = b"".join(struct.pack("<II", cid, len(d)) for cid, d in header_chunks)
    user = struct.pack("<I", len(header_chunks)) + table + b"".join(d for _, d in header_chunks)
    out = bytearray(b"GBX" + struct.pack("<H", 6) + b"BU" + (b"C" if compress else b"U") + b"R")
    out += struct.pack("<II", class_id, len(user) if header_chunks else 0)
    if header_chunks:
        out += user
    out += struct.pack("<II", num_nodes, 0)         # numNodes, no external nodes
    if compress:
        packed = lzo.compress(body, 1, False)
        out += struct.pack("<II", len(body), len(packed)) + packed
    else:
        out += body
    return bytes(out)


@dataclass
class Layout:
    """Offsets of u32 fields of a version 6 binary GBX (no external nodes)."""
    fields: dict[str, int] = field(default_factory=dict)
    header_chunks: list[tuple[int, int]] = field(default_factory=list)   # (data offset, size)
    body_offset: int = 0
    compressed: bool = False
    body: bytes = b""             # the decompressed body


def layout(data: bytes) -> Layout:
    if data[:3] != b"GBX" or struct.unpack_from("<H", data, 3)[0] != 6 or data[5:6] != b"B":
        raise ValueError("only version 6 binary files are laid out here")
    out = Layout(compressed=data[7:8] == b"C")
    f = out.fields
    f["class_id"], f["user_data_size"] = 9, 13
    (user_size,) = struct.unpack_from("<I", data, 13)
    pos = 17
    if user_size:
        f["num_header_chunks"] = pos
        (count,) = struct.unpack_from("<I", data, pos)
        pos += 4
        sizes = []
        for i in range(count):
            f[f"header_chunk[{i}].size"] = pos + 4
            sizes.append(struct.unpack_from("<I", data, pos + 4)[0] & 0x7FFFFFFF)
            pos += 8
        for size in sizes:
            out.header_chunks.append((pos, size))
            pos += size
    f["num_nodes"] = pos
    f["num_external_nodes"] = pos + 4
    if struct.unpack_from("<I", data, pos + 4)[0]:
        raise ValueError("files with external nodes are not laid out here")
    out.body_offset = pos + 8
    if out.compressed:
        f["body_size"], f["body_compressed_size"] = out.body_offset, out.body_offset + 4
        usize, csize = struct.unpack_from("<II", data, out.body_offset)
        out.body = lzo.decompress(data[out.body_offset + 8: out.body_offset + 8 + csize], False, usize)
    else:
        out.body = data[out.body_offset:]
    return out


def with_body(data: bytes, lay: Layout, body: bytes) -> bytes:
    head = data[:lay.body_offset]
    if not lay.compressed:
        return head + body
    packed = lzo.compress(body, 1, False)
    return head + struct.pack("<II", len(body), len(packed)) + packed


def put_u32(data: bytes, offset: int, value: int) -> bytes:
    b = bytearray(data)
    struct.pack_into("<I", b, offset, value)
    return bytes(b)


def skippable_sizes(body: bytes) -> list[int]:
    """Offsets (in the body) of the size fields after "PIKS" markers."""
    out, at = [], body.find(SKIP)
    while at != -1 and at + 8 <= len(body):
        out.append(at + 4)
        at = body.find(SKIP, at + 4)
    return out
