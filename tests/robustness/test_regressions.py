"""Bugs found by the robustness walks and benchmarks, pinned where they live."""
from __future__ import annotations

import struct

import pytest

from gbxfs.formats.gbx.dump import f32_repr

FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


@pytest.mark.parametrize("x", [FLT_MAX, -FLT_MAX, struct.unpack("<f", b"\xfe\xff\x7f\x7f")[0],
                               struct.unpack("<f", b"\x01\x00\x00\x00")[0], 0.1, -0.0])
def test_f32_repr_round_trips_extremes(x):
    """Near the largest float32 a shorter decimal rounds past it: struct.pack('<f')
    then raised OverflowError, and every .txt dump holding such a value (games
    use -FLT_MAX as "unset") answered EIO. The text must read back as the same float32."""
    s = f32_repr(x)
    assert struct.pack("<f", float(s)) == struct.pack("<f", x)


def test_a_listing_answered_without_work_is_the_one_used():
    """The FUSE layer lists a folder on the event loop when children(wait=False)
    answers: the listing it gets is the one it uses, so an eviction by another
    thread right after cannot turn that listing into a parse on the loop."""
    from gbxfs.tree.cache import ByteLRU
    from gbxfs.tree.cached import CachedDir
    from gbxfs.tree.model import BytesFile

    loads = []
    cache = ByteLRU(1 << 20)
    d = CachedDir("d", cache, ("k",), lambda: loads.append(1) or [BytesFile("a", b"1")])
    assert d.children(wait=False) is None
    d.children()
    kids = d.children(wait=False)
    assert kids is not None
    cache.put(("other",), None, 1 << 20)        # evicts the listing (another thread)
    assert set(kids) == {"a"} and loads == [1]
    assert d.children(wait=False) is None                        # now gone: the next listing is work again
    assert set(d.children()) == {"a"} and loads == [1, 1]


def test_gbx_folder_listing_never_parses_once_loaded(corpus, monkeypatch):
    """A listed GBX folder is listed again on the FUSE event loop (children(wait=False)
    answers). Its error.txt check must not parse the header again when the cache
    dropped it: that would read and parse a file on the loop."""
    from corpusdata import CORPUS, manifest_rows
    from gbxfs.tree.cache import DURABLE
    from gbxfs.tree.gbx import parse as gbx_parse
    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.gbx.view import open_gbx
    from gbxfs.tree.source import FileSource

    path = next(r["path"] for r in manifest_rows() if "Bruno_B13" in r["path"])
    src = FileSource(str(CORPUS / path))
    ctx = TreeContext()
    d = open_gbx("r.Replay.Gbx", src, ctx)
    d.children()
    d.children()["info.txt"].size()             # parses the body too
    assert d.children(wait=False) is not None
    ctx.cache.put(("flush",), None, ctx.cache.max_bytes, rank=DURABLE)   # everything evicted
    calls = []
    monkeypatch.setattr(gbx_parse, "parse_header", lambda *a, **k: calls.append(1))
    monkeypatch.setattr(gbx_parse, "read_body", lambda *a, **k: calls.append(1))
    assert "original.gbx" in d.children() and calls == []
