"""The walker's on_chunk hook sees every chunk it reads, once, after decoding
(nested nodes' chunks included), in memory and from a pull source; what the
hook raises ends the walk and leaves walk_body."""
from __future__ import annotations

import pytest
from corpusdata import corpus_body
from pullsource import Pull

from gbxfs.formats.gbx.nodes import walk_body

pytestmark = pytest.mark.corpus


@pytest.mark.parametrize("pull", [False, True])
def test_every_chunk_once_after_decoding(corpus, pull):
    body, kw = corpus_body("TMS_Dirt_4.Replay.Gbx")  # a replay: ghosts are nested nodes
    seen = []
    result = walk_body(Pull(body) if pull else body, on_chunk=lambda c: seen.append((c, c.values)), **kw)
    assert result.status == "complete"
    chunks = [c for n in result.nodes for c in n.chunks]
    assert len(result.nodes) > 1                    # nodes read through references inside chunks
    assert sorted(map(id, chunks)) == sorted(id(c) for c, _ in seen)
    assert len(seen) == len(chunks) and all(c.values is v for c, v in seen)
    assert any(c.skippable for c, _ in seen) and any(not c.skippable for c, _ in seen)


def test_what_the_hook_raises_ends_the_walk(corpus):
    body, kw = corpus_body("TMS_Dirt_4.Replay.Gbx")

    class Stop(Exception):
        pass

    def stop_at_five(c, n=[0]):
        n[0] += 1
        if n[0] == 5:
            raise Stop

    with pytest.raises(Stop):
        walk_body(body, on_chunk=stop_at_five, **kw)
