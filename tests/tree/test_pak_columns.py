"""A pak's files decoded a block at a time (tree/pak/columns.py): listings sliced from
blocks show what the file-by-file listing shows wherever the block edges fall, one
folder's listing decodes only the blocks holding its files, and a block costs the
cache at least what it keeps."""
from __future__ import annotations

import random
import sys

import pytest

from gbxfs.formats.pak.writer import PakFile, many_files, write_packs
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.pak import columns, listed
from gbxfs.tree.pak.entries import PakFolder
from gbxfs.tree.root import build_tree


def _files(shuffled: bool) -> list[PakFile]:
    files = many_files(700, seed=4, per_folder=23)
    files += [PakFile("Typed/5f3a9c", b"h", class_id=0x03043000), PakFile("Typed/other.txt", b"i"),
              PakFile("Gbx/Map.Challenge.Gbx", b"GBX", class_id=0x03043000), PakFile("Gbx/Other.txt", b"g"),
              PakFile("Odd/clash", b"a"), PakFile("Odd/clash", b"b"),
              # stored in Hid, shown in Hid/a/b (a folder of the table): Hid lists by blocks, this file hidden
              PakFile("Hid/a\\b\\c.txt", b"e", folder_depth=1), PakFile("Hid/y.txt", b"y"),
              PakFile("Hid/a/b/x.txt", b"x")]
    if shuffled:    # the table then lists files of many folders mixed (PakIndex.order)
        random.Random(5).shuffle(files)
    return files


def _pak(tmp_path, shuffled: bool, gbx_mode: str = "file", cache_bytes: int = 256 << 20):
    root = tmp_path / ("mixed" if shuffled else "grouped")
    if not root.exists():
        write_packs(root, {"X": _files(shuffled)})
    ctx = TreeContext(gbx_mode=gbx_mode, cache=ByteLRU(cache_bytes))
    return build_tree(str(root), ctx).children()["X.pak"].view(), ctx


def _walk(pak) -> list[tuple]:
    """Every folder's listing: names, row sizes, whether each row is made and what it is."""
    out, todo = [], [pak]
    while todo:
        folder = todo.pop()
        rows = folder._listed()
        made = [c.__class__ is not int for c in rows.cells]
        shown = [(type(e).__name__, getattr(e, "_index", None), getattr(e, "_node", None)) for e in rows.values()]
        out.append((folder._node, list(rows.names), list(rows.sizes), made, shown))
        todo += [e for e in rows.values() if isinstance(e, PakFolder)]
    return out


@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("gbx_mode", ["file", "folder"])
def test_every_block_size_lists_what_the_file_by_file_listing_shows(tmp_path, monkeypatch, shuffled, gbx_mode):
    pak, _ = _pak(tmp_path, shuffled, gbx_mode)
    assert pak._tree.arc.files.grouped != shuffled
    with monkeypatch.context() as m:    # every entry made there: which rows are made is not compared
        m.setattr(listed, "_plain_rows", lambda *a: None)
        want = [(node, names, sizes, shown) for node, names, sizes, _, shown in _walk(_pak(tmp_path, shuffled,
                                                                                           gbx_mode)[0])]
    made = None
    for block in (columns.BLOCK, 1, 7, 23, 64):      # folders of 23 files: edges inside and between them
        monkeypatch.setattr(columns, "BLOCK", block)
        got = _walk(_pak(tmp_path, shuffled, gbx_mode)[0])
        assert [(node, names, sizes, shown) for node, names, sizes, _, shown in got] == want, block
        made = made or [m for *_, m, _ in got]
        assert [m for *_, m, _ in got] == made, block


def _blocks(ctx) -> dict:
    return {k[2]: v for k, (v, _, _) in ctx.cache._items.items() if k[0] == "pak.cols"}


@pytest.mark.parametrize("shuffled", [False, True])
def test_one_folder_listed_decodes_only_the_blocks_holding_its_files(tmp_path, monkeypatch, shuffled):
    monkeypatch.setattr(columns, "BLOCK", 50)
    pak, ctx = _pak(tmp_path, shuffled)
    leaf = pak.children()["Data"].children()["G000"].children()["F05"]
    assert len(leaf.children()) == 23
    index = pak._tree.index()
    (a, b), = index.spans(leaf._node)[1]
    assert sorted(_blocks(ctx)) == sorted({a // 50, (b - 1) // 50})
    assert len(pak._tree.arc.files) > 10 * 50


def test_a_block_costs_the_cache_at_least_what_it_keeps(tmp_path):
    pak, ctx = _pak(tmp_path, True)
    for f in pak.children()["Data"].children()["G000"].children().values():
        f.children()
    blocks = _blocks(ctx)
    assert blocks
    for k, blk in blocks.items():
        kept = (sys.getsizeof(blk) + sys.getsizeof(blk.names) + sum(map(sys.getsizeof, blk.names))
                + sys.getsizeof(blk.sizes) + sys.getsizeof(blk.marked) + sys.getsizeof(blk.bits))
        assert ctx.cache._items[("pak.cols", pak._tree.arc, k)][1] == blk.nbytes >= kept


def test_an_evicted_block_is_made_again_and_lists_the_same(tmp_path):
    pak, ctx = _pak(tmp_path, True)
    g = pak.children()["Data"].children()["G000"]
    first = {name: list(f.children()) for name, f in g.children().items()}
    for k in list(_blocks(ctx)):
        ctx.cache.discard(("pak.cols", pak._tree.arc, k))
    for f in g.children().values():
        ctx.cache.discard(f._key)         # the listings too: made again from the blocks
    assert not _blocks(ctx)
    assert {name: list(f.children()) for name, f in g.children().items()} == first
    assert _blocks(ctx)
