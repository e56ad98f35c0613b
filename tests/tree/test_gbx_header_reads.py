"""What a GBX folder's header costs in reads and parses (tree/gbx/parse.py): a
header within the first read is parsed once; a larger one is read again at the
length its first bytes declare and parsed once, not first tried on the probe."""
from __future__ import annotations

import struct

import pytest

from gbxfs.formats.gbx.header import parse_header
from gbxfs.formats.gbx.writer import build_gbx
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx import parse as gbx_parse
from gbxfs.tree.gbx.parse import HEADER_PROBE, HEADER_SLACK, GbxParse
from gbxfs.tree.source import BytesSource


class CountingSource(BytesSource):
    def __init__(self, data: bytes):
        super().__init__(data)
        self.reads: list[int] = []

    def read_at(self, offset: int, size: int) -> bytes:
        self.reads.append(size)
        return super().read_at(offset, size)


def _map(thumbnail: int, externals: int = 0) -> bytes:
    ext = [{"flags": 0, "file": f"Texture{i:04}.dds", "node": i, "use_file": True, "folder": 0}
           for i in range(externals)]
    chunks = [(0x03043004, struct.pack("<I", 6), False), (0x03043007, bytes(thumbnail), True)]
    return build_gbx(header_chunks=chunks, num_nodes=max(1, externals), externals=ext, body=bytes(100_000))


@pytest.mark.parametrize("thumbnail, externals, reads", [
    (1_000, 0, 1),           # within the probe
    (40_000, 0, 2),          # the probe, then the declared length
    (40_000, 200, 3),        # then four times that: the references outgrow the slack
])
def test_a_header_is_parsed_once_it_is_all_read(monkeypatch, thumbnail, externals, reads):
    parses = []
    real = gbx_parse.parse_header
    monkeypatch.setattr(gbx_parse, "parse_header", lambda *a, **k: parses.append(len(a[0])) or real(*a, **k))
    data = _map(thumbnail, externals)
    src = CountingSource(data)
    ph = GbxParse(src, TreeContext()).header_once()
    assert ph.header is not None and len(src.reads) == reads
    assert src.reads[0] == HEADER_PROBE
    if reads > 1:
        assert src.reads[1] == 17 + ph.header.user_data_size + 8 + HEADER_SLACK
    assert len(parses) == reads - (reads > 1)        # the probe of a larger header is not parsed
    whole = parse_header(data)
    assert [bytes(c.raw) for c in ph.header.chunks] == [c.raw for c in whole.chunks]
    assert ph.header.body_offset == whole.body_offset and ph.body_head == data[whole.body_offset:whole.body_offset + 8]
