"""error.txt names each node as the parser's own messages do ("#3 CClass", or the class
alone for a node without an index, such as an inline node): never a Python repr."""
from __future__ import annotations

import struct

from gbxfs.formats.gbx.writer import W, build_gbx, node_body
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.source import BytesSource
from gbxfs.tree.walk import resolve


def _error_txt(data: bytes) -> str:
    d = open_gbx("x.SystemConfig.Gbx", BytesSource(data), TreeContext())
    # the body walk's problems are in body/nodes/error.txt (a GBX folder is listed from its header)
    return resolve(d, "body/nodes/error.txt").read(0, 1 << 16).decode()


def test_a_chunk_error_in_an_inline_node_names_its_class():
    # 0B005020: safe mode, then the display settings (CSystemConfigDisplay) inline, whose
    # 0B013005 holds a bool that is not 0 or 1 (the chunk stays raw, the walk goes on)
    display = node_body([(0x0B013005, struct.pack("<I", 0x19F32C), True)])
    body = node_body([(0x0B005020, W().bool(False).raw(display).bytes(), True),
                      (0x0B005FFF, b"", False)])             # unknown, not skippable: ends the node
    text = _error_txt(build_gbx(class_id=0x0B005000, body=body, empty_user_data=True))
    assert "chunk 0B013005 of node CSystemConfigDisplay" in text, text
    assert "bool is 0x19f32c" in text
    assert "node #0 CSystemConfig" in text, text
    assert "None" not in text, text
