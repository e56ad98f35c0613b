"""A body whose parse the cache can hold, but not beside what reading its folder
stores, is walked at most twice (tree/gbx/digest.py): the second walk renders every
chunk text into the body's digest, and that digest stays cached even when the
walk's room evicted the one before it."""
from __future__ import annotations

import pytest
from robust_walk import walk_tree

from gbxfs.formats.gbx.writer import build_gbx, node_body
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx import parse as gbx_parse
from gbxfs.tree.root import build_tree

MiB = 1 << 20


@pytest.mark.parametrize("cache_mib", [6, 8])
def test_a_body_is_walked_at_most_twice_for_a_whole_read_of_its_folder(tmp_path, monkeypatch, cache_mib):
    walks = []
    real = gbx_parse.walk_body
    monkeypatch.setattr(gbx_parse, "walk_body", lambda *a, **k: walks.append(1) or real(*a, **k))
    chunks = [(0x03079FF0 + i % 8, bytes([i % 251]) * 50_000, True) for i in range(60)]    # 3 MB
    (tmp_path / "big.Clip.Gbx").write_bytes(build_gbx(class_id=0x03079000, body_comp="C",
                                                      body=node_body(chunks)))
    root = build_tree(str(tmp_path), TreeContext(cache=ByteLRU(cache_mib * MiB)))
    report = walk_tree(root)
    assert not report.bugs
    assert report.files > 120          # every chunk's .txt and .bin was read
    assert 1 <= len(walks) <= 2, f"{len(walks)} walks"
