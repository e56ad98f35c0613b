"""GBX bytes for the robustness tests (written with gbxfs/formats/gbx/writer.py,
which shares no code with the reader):

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

from gbxfs.formats.gbx import writer
from gbxfs.formats.gbx.writer import END, node_body  # noqa: F401 (used by the tests)

PIKS = struct.pack("<I", writer.SKIP)   # the skippable-chunk marker as it sits in a body
HUGE = (0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x40000000, 0x10000000, 0x01000000, 0x00FFFFFF)


def build_gbx(class_id: int, body: bytes, *, header_chunks: list[tuple[int, bytes]] = (),
              num_nodes: int = 1, compress: bool = False) -> bytes:
    """Version 6, binary, no reference table entries."""
    return writer.build_gbx(class_id=class_id, body=body, num_nodes=num_nodes, body_comp="C" if compress else "U",
                            header_chunks=[(cid, d, False) for cid, d in header_chunks], empty_user_data=True)


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
    out, at = [], body.find(PIKS)
    while at != -1 and at + 8 <= len(body):
        out.append(at + 4)
        at = body.find(PIKS, at + 4)
    return out
