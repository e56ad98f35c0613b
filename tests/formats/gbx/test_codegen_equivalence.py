"""The generated decoders (decl/codegen.py, binary data in memory) decode exactly like
the reference closures (decl/compile.py), which a pull source runs: every corpus GBX
body walked both ways gives the same nodes, chunks, values and errors."""
from __future__ import annotations

import pytest
from corpusdata import manifest_rows, parsed_gbx

from gbxfs.formats.gbx import walk_body
from gbxfs.formats.gbx.dump import dump_values

# the pull path is slow: files up to 100 kB (most of the corpus GBX files) keep the run short
GBX_ROWS = [r["path"] for r in manifest_rows()
            if r["kind"] in ("map", "replay", "ghost", "item", "other") and int(r["size"]) <= 100_000]


class Pull:
    """A pull source over bytes: the reader cannot see a buffer, so the closures run."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    @property
    def remaining(self) -> int:
        return len(self.data) - self.pos

    def read(self, n: int) -> bytes:
        out = self.data[self.pos:self.pos + n]
        self.pos += len(out)
        return out


def _summary(result) -> list:
    out = [result.status, str(result.error), result.read]
    for n in result.nodes:
        out.append((n.index, n.class_id, n.complete, str(n.error)))
        for c in n.chunks:
            out.append((c.chunk_id, c.offset, c.size, c.raw, str(c.error),
                         None if c.values is None else dump_values(c.values), repr(c.values)))
    return out


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
    assert _summary(fast) == _summary(slow)
