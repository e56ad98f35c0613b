"""A body larger than half the cache is never decompressed (tree/gbx/parse.py): a
small file whose LZO body inflates to far more than the cache could hold shows its
header, says why its body is not shown, and every read of the tree stays small."""
from __future__ import annotations

import gc
import tracemalloc

from robust_walk import walk_tree

from gbxfs.formats.gbx.writer import build_gbx, node_body
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.root import build_tree

MiB = 1 << 20


def _bomb(tmp_path, body_mib: int) -> str:
    body = node_body([(0x03043011, bytes(body_mib * MiB), False)])
    data = build_gbx(body_comp="C", body=body)
    assert len(data) < body_mib * MiB // 100          # LZO packs zeros about 250 to 1
    (tmp_path / "bomb.Map.Gbx").write_bytes(data)
    return "bomb.Map.Gbx"


def test_a_body_past_half_the_cache_is_refused_before_it_is_decompressed(tmp_path):
    name = _bomb(tmp_path, 24)
    gc.collect()
    tracemalloc.start()
    try:
        root = build_tree(str(tmp_path), TreeContext(cache=ByteLRU(32 * MiB)))
        report = walk_tree(root, keep=lambda p: p.endswith((".txt",)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not report.bugs
    info = report.contents[f"/{name}/info.txt"].decode()
    assert "body_status = unavailable" in info
    assert "more than half the cache (32 MiB)" in info
    assert peak < 8 * MiB, f"{peak / MiB:.1f} MiB at the peak"


def test_a_body_within_half_the_cache_is_still_shown(tmp_path):
    name = _bomb(tmp_path, 12)
    root = build_tree(str(tmp_path), TreeContext(cache=ByteLRU(32 * MiB)))
    report = walk_tree(root, keep=lambda p: p.endswith("info.txt"))
    assert not report.bugs
    assert "more than half the cache" not in report.contents[f"/{name}/info.txt"].decode()
