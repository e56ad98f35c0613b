"""body.declared_size (the size body/body.bin shows before any decompression)
agrees with read_body over the corpus, and over its bodies cut short."""
from __future__ import annotations

import pytest

from corpusdata import manifest_rows
from gbxfs.formats.gbx.body import declared_size, read_body
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.header import parse_header

pytestmark = pytest.mark.corpus


def _outcome(fn):
    try:
        return fn()
    except GbxError:
        return "error"


def test_declared_size_is_read_bodys_size(corpus):
    checked = cut = 0
    for row in manifest_rows():
        data = (corpus / row["path"]).read_bytes()
        if data[:3] != b"GBX":
            continue
        try:
            h = parse_header(data)
        except GbxError:
            continue
        for n in (len(data), h.body_offset + 6, (h.body_offset + len(data)) // 2):
            part = data[:n]
            body = _outcome(lambda: len(read_body(part, h.body_offset, h.body_compression).data))
            size = _outcome(lambda: declared_size(part[h.body_offset:h.body_offset + 8], h.body_offset,
                                                  h.body_compression, len(part)))
            if body != "error":
                assert size == body, row["path"]        # a body that reads has the declared size
            elif n < len(data) and h.body_compression == "C":
                assert size == "error", row["path"]     # a compressed body cut short is known at once
                cut += 1
            checked += 1
    assert checked > 500 and cut > 100
