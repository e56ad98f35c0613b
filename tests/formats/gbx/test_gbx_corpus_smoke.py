"""Every GBX of the corpus: header parses with a known class name, no error."""
from __future__ import annotations

import pytest

from gbxfs.formats import gbx
from conftest import manifest_rows

GBX_KINDS = {"map", "replay", "ghost", "item", "other"}
ROWS = [r for r in manifest_rows() if r["kind"] in GBX_KINDS]


@pytest.mark.corpus
@pytest.mark.parametrize("row", ROWS, ids=[r["path"] for r in ROWS])
def test_header_parses(corpus, row):
    data = (corpus / row["path"]).read_bytes()
    h = gbx.parse_header(data)
    assert h.class_name, f"class {h.class_id:08X} has no name"
