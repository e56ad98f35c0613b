"""A pak's folder tree: no entry is ever lost to a name clash (with another
entry or a generated file), and deep nesting costs linear memory, no
recursion, and is capped with a clear error."""
from __future__ import annotations

import sys
import tracemalloc

import pytest

from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.header import MAX_DEPTH, _resolve_folders
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree.context import TreeContext
from gbxfs.tree.root import build_tree
from gbxfs.tree.walk import resolve


def _pak_tree(tmp_path, files, **kw):
    write_packs(tmp_path / "p", {"X": files}, **kw)
    return build_tree(str(tmp_path / "p/X.pak"), TreeContext(gbx_mode="file"))


def _all_bytes(d, prefix=""):
    out = {}
    for name, e in d.children().items():
        if e.is_dir:
            out.update(_all_bytes(e, f"{prefix}{name}/"))
        else:
            out[prefix + name] = e.read(0, e.size())
    return out


def test_a_file_and_a_folder_of_the_same_name_both_stay(tmp_path):
    tree = _pak_tree(tmp_path, [PakFile("A/clash", b"file"), PakFile("A/clash/hidden.txt", b"hidden")])
    got = _all_bytes(tree)
    assert got["A/clash/hidden.txt"] == b"hidden"
    assert got["A/clash~2"] == b"file"


def test_archive_names_never_hide_generated_files(tmp_path):
    files = [PakFile(".pak-info.txt/inside.txt", b"in a folder named like the info file"),
             PakFile("A/error.txt", b"an archive file named error.txt"),
             PakFile("A/error.txt~2", b"and its would-be new name")]
    tree = _pak_tree(tmp_path, files)
    kids = tree.children()
    assert not kids[".pak-info.txt"].is_dir and b"version" in kids[".pak-info.txt"].read(0, 1 << 16)
    assert resolve(tree, ".pak-info.txt~2/inside.txt").read(0, 100) == files[0].data
    a = resolve(tree, "A").children()
    assert "error.txt" not in a and len(a) == 2
    assert sorted(e.read(0, 100) for e in a.values()) == sorted([files[1].data, files[2].data])


def test_pack_names_never_hide_its_generated_files(tmp_path):
    """A pack's root shows pack-info.txt and pack.xml: folders of those names get "~2"."""
    from gbxfs.formats.pak.writer6 import PackFile, build_pack
    from gbxfs.tree.pak.pack import open_pack_gbx
    from gbxfs.tree.source import BytesSource
    files = [PackFile("pack-info.txt/a.txt", b"a", public=True), PackFile("pack.xml/b.txt", b"b", public=True)]
    tree = open_pack_gbx("X.Pack.Gbx", BytesSource(build_pack(files, version=18, header_flags=2)),
                         TreeContext(gbx_mode="file"))
    kids = tree.children()
    assert not kids["pack-info.txt"].is_dir and b"files = 2" in kids["pack-info.txt"].read(0, 1 << 16)
    assert resolve(tree, "pack-info.txt~2/a.txt").read(0, 10) == b"a"
    assert resolve(tree, "pack.xml/b.txt").read(0, 10) == b"b"       # the header has no XML: no pack.xml file


def test_deep_folder_chain_is_refused_early_in_bounded_memory():
    # 20k folders, each the parent of the next: a path tuple per folder would be 20k x 20k
    raw = [(i - 1, f"d{i}\\") for i in range(20_000)]
    tracemalloc.start()
    try:
        with pytest.raises(PakError, match="nested"):
            _resolve_folders(raw)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 << 20, peak


def test_folders_up_to_the_cap_resolve_without_recursion():
    raw = [(i - 1, "d\\") for i in range(MAX_DEPTH)]
    folders = _resolve_folders(raw)
    assert len(folders[-1].parts) == MAX_DEPTH
    with pytest.raises(PakError, match="nested"):
        _resolve_folders(raw + [(MAX_DEPTH - 1, "one-too-many\\")])
    with pytest.raises(PakError, match="cyclic"):
        _resolve_folders([(1, "a\\"), (0, "b\\")])


def test_deep_sub_path_in_a_file_name_is_refused_with_a_clear_error(tmp_path, monkeypatch):
    # the writer refuses what its reader refuses: write under the cap, then read with a lower one
    tree = _pak_tree(tmp_path, [PakFile("A/" + "d/" * 12 + "f.txt", b"x", folder_depth=1)])
    monkeypatch.setattr("gbxfs.formats.pak.table.MAX_DEPTH", 10)   # where file paths are checked
    kids = tree.children()
    assert set(kids) == {".pak-info.txt", "error.txt"}
    assert b"nested" in kids["error.txt"].read(0, 1000)


def test_a_deep_tree_under_the_cap_builds_without_recursion(tmp_path):
    deep = "A/" + "d/" * (MAX_DEPTH - 3) + "f.txt"
    old = sys.getrecursionlimit()
    tree = _pak_tree(tmp_path, [PakFile(deep, b"deep", folder_depth=1)])
    sys.setrecursionlimit(150)       # far below the depth: any recursion over the depth fails
    try:
        kids = tree.children()
    finally:
        sys.setrecursionlimit(old)
    d = kids["A"]
    for _ in range(MAX_DEPTH - 3):
        d = d.children()["d"]
    assert d.children()["f.txt"].read(0, 10) == b"deep"


def test_a_folders_entries_are_made_on_its_first_listing(tmp_path):
    files = [PakFile(f"A/f{i}.txt", b"a") for i in range(50)] + [PakFile(f"B/g{i}.txt", b"b") for i in range(50)]
    tree = _pak_tree(tmp_path, files)
    kids = tree.children()
    a, b = kids["A"], kids["B"]
    assert a.peek() is None and b.peek() is None
    assert len(a.children()) == 50 and a.peek() is not None and b.peek() is None
    f = a.children()["f7.txt"]
    assert f.xattrs["user.pak.index"] == b"7" and f.read(0, 1) == b"a"


def test_concurrent_first_listings_of_a_pak_share_one_load(tmp_path, monkeypatch):
    import threading
    from gbxfs.tree.pak import view
    write_packs(tmp_path / "p", {"X": [PakFile(f"A/f{i}.txt", b"a") for i in range(200)]})
    tree = build_tree(str(tmp_path / "p/X.pak"), TreeContext(gbx_mode="file"))
    made = []
    real = view.PakArchive

    def counting(*a, **kw):
        made.append(1)
        return real(*a, **kw)
    monkeypatch.setattr(view, "PakArchive", counting)
    start = threading.Barrier(8)
    results = []

    def first_ls():
        start.wait()
        results.append(sorted(resolve(tree, "A").children()))
    threads = [threading.Thread(target=first_ls) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and len(results) == 8 and all(r == results[0] for r in results)
