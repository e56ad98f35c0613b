"""The shipped declarations (chunks/*.chunks) all load, and the MediaTracker ones
decode real clips completely."""
from __future__ import annotations

import pytest

from gbxfs.formats import gbx
from gbxfs.formats.gbx.dump import dump_values
from gbxfs.formats.gbx.decl import registry

SEED_MEDIA_CHUNKS = [
    0x0307A003, 0x03079002, 0x03079003, 0x03079004, 0x03079005, 0x03079007, 0x0307900A, 0x0307900D,
    0x03078001, 0x03078004, 0x07010003, 0x07010004, 0x07010005, 0x030A1002, 0x030A2005, 0x030A4000,
    0x030A5000, 0x030A6001, 0x030A7001, 0x030A7002, 0x030A7003, 0x030A7004, 0x030A8001, 0x030A8002,
    0x030A9000, 0x030AB000, 0x03080003, 0x03081001, 0x03082000, 0x03083001, 0x03084003, 0x03085000,
    0x03024000, 0x03029001, 0x030E5001, 0x030E5002, 0x01001000,
]


def test_all_declaration_files_load_without_errors():
    reg = registry()
    assert reg.errors == [], "\n".join(str(e) for e in reg.errors)


@pytest.mark.parametrize("chunk_id", SEED_MEDIA_CHUNKS, ids=[f"{c:08X}" for c in SEED_MEDIA_CHUNKS])
def test_every_seed_media_chunk_is_declared(chunk_id):
    assert registry().get(chunk_id) is not None


@pytest.mark.corpus
def test_tmf_clip_decodes_completely(corpus):
    path = corpus / "BigBang1112+gbx-net/Tests/GBX.NET.Tests/Files/Gbx/CGameCtnMediaClip/GBX-NET 2 CGameCtnMediaClip TMF 001.Clip.Gbx"
    g = gbx.parse(path.read_bytes())
    assert g.body.status == "complete", g.body.error
    assert all(c.values is not None for n in g.body.nodes for c in n.chunks)
    names = {n.class_name for n in g.body.nodes}
    assert {"CGameCtnMediaTrack", "CGameCtnMediaBlockSound", "CControlEffectSimi"} <= names
    clip = g.body.main.chunk(0x03079005).values
    tracks = clip["tracks"]
    assert len(tracks) == 14 and all(t["mediaTrack"].kind == "new" for t in tracks)
    text = dump_values(clip)
    assert text.startswith("ignored = 10\nnumTracks = 14\ntracks: 14 items\n  [0]\n    mediaTrack = node #1 CGameCtnMediaTrack (new)\n")
