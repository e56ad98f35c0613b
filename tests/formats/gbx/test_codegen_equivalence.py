"""The generated decoders (decl/codegen.py, binary data in memory) decode exactly like
the reference closures (decl/compile.py), which a pull source runs: every corpus GBX
body walked both ways gives the same nodes, chunks, values and errors."""
from __future__ import annotations

import pytest
from corpusdata import manifest_rows, parsed_gbx
from pullsource import Pull
from walksummary import summary

from gbxfs.formats.gbx import walk_body

# the pull path is slow: files up to 100 kB (most of the corpus GBX files) keep the run short
GBX_ROWS = [r["path"] for r in manifest_rows()
            if r["kind"] in ("map", "replay", "ghost", "item", "other") and int(r["size"]) <= 100_000]


@pytest.mark.corpus
@pytest.mark.parametrize("path", GBX_ROWS)
def test_generated_decoders_match_closures(corpus, path):
    _, g = parsed_gbx(path)
    body = g.body_bytes
    if not body or g.header.text:
        pytest.skip("no binary body")
    h = g.header
    args = dict(class_id=h.raw_class_id, num_nodes=h.num_nodes,
                externals=h.refs.by_node_index() if h.refs else None)
    fast = walk_body(body, **args)
    slow = walk_body(Pull(body), size=len(body), **args)
    assert summary(fast) == summary(slow)
