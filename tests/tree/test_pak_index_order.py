"""PakIndex on file tables that list files folder by folder and on ones that
mix folders: each folder lists its sub-folders, then its files in table order."""
from __future__ import annotations

import hashlib
import random
import struct

import pytest

from gbxfs.formats.pak.records import PakFolder
from gbxfs.formats.pak.table import FIXED, read_files
from gbxfs.tree.pak.index import PakIndex

FOLDERS = [PakFolder(0, -1, "", ()), PakFolder(1, 0, "a\\", ("a",)), PakFolder(2, 0, "b\\", ("b",)),
           PakFolder(3, 2, "c\\", ("b", "c")), PakFolder(4, 0, "empty\\", ("empty",))]


def _table(folder_of: list[int]):
    raw = b"".join(struct.pack("<iI", f, len(name := f"f{i}".encode())) + name + FIXED.pack(0, i, i, 0, 0, 0)
                   for i, f in enumerate(folder_of))
    pieces = [raw]
    table, _ = read_files(lambda k: pieces.pop() if pieces else b"", len(folder_of), FOLDERS, hashlib.md5())
    return table


def _listing(index: PakIndex, table, node: int) -> list[str]:
    out = index.listing(node, table, frozenset(), lambda name, cid: None,
                        lambda name, i, fixed: ("file", i, fixed[1]), lambda name, sub: ("dir", sub), {})
    return [f"{name}:{what[0]}" for name, what in out.items()]


@pytest.mark.parametrize("seed", (None, 1, 2, 3))
def test_listing_is_folder_order_then_table_order(seed):
    folder_of = [0, 0, 1, 1, 1, 2, 3, 3]        # grouped
    if seed is not None:
        random.Random(seed).shuffle(folder_of)
    table = _table(folder_of)
    assert table.grouped == (folder_of == sorted(folder_of))
    index = PakIndex(table)
    want = {f: [f"f{i}:file" for i, g in enumerate(folder_of) if g == f] for f in range(len(FOLDERS))}
    assert _listing(index, table, 0) == ["a:dir", "b:dir", "empty:dir"] + want[0]
    subs = dict(index.listing(0, table, frozenset(), lambda n, c: None, lambda n, i, f: None,
                              lambda n, sub: sub, {}))
    assert _listing(index, table, subs["a"]) == want[1]
    b = subs["b"]
    assert _listing(index, table, b) == ["c:dir"] + want[2]
    c = dict(index.listing(b, table, frozenset(), lambda n, c: None, lambda n, i, f: None, lambda n, s: s, {}))["c"]
    assert _listing(index, table, c) == want[3]
    assert _listing(index, table, subs["empty"]) == []
    assert [index.size(n) for n in (0, subs["a"], b, c, subs["empty"])] == [3 + len(want[0]), len(want[1]),
                                                                        1 + len(want[2]), len(want[3]), 0]


def test_a_listed_file_is_what_its_initialiser_makes(tmp_path):
    """PakTree.listing sets a PakEntryFile's slots itself (one file per call):
    each slot holds what PakEntryFile.__init__ would put there."""
    from gbxfs.formats.pak.writer import PakFile, write_packs
    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.pak.files import PakEntryFile
    from gbxfs.tree.root import build_tree

    write_packs(tmp_path, {"Small": [PakFile("Data/a.txt", b"hello"), PakFile("Data/b.bin", bytes(300))]})
    pak = build_tree(str(tmp_path), TreeContext()).children()["Small.pak"]
    listed = pak.children()["Data"].children()
    assert sorted(listed) == ["a.txt", "b.bin"]
    # the slots it stores (a base class's slot that PakEntryFile shows through a property is not one)
    slots = {s for cls in PakEntryFile.__mro__ for s in getattr(cls, "__slots__", ())
             if s != "__weakref__" and not isinstance(getattr(PakEntryFile, s, None), property)}
    assert {"name", "mtime_ns", "access", "_tree", "_index", "_size", "_src"} <= slots
    for name, e in listed.items():
        assert type(e) is PakEntryFile
        made = PakEntryFile(name, e._tree, e._index, e._size, mtime_ns=e.mtime_ns)
        for s in slots:
            assert hasattr(made, s) == hasattr(e, s), s
            if hasattr(made, s):
                assert getattr(made, s) == getattr(e, s), s
    assert listed["a.txt"].size() == 5 and listed["b.bin"].size() == 300


@pytest.mark.parametrize("seed", range(5))
def test_folders_placed_from_their_parents_are_where_a_walk_from_the_root_puts_them(seed):
    """PakIndex places a folder whose parent came first from the parent's node: the
    nodes (names, order, ids) and each folder's files are those of a walk of every
    folder's path from the root, and of a stable sort of the files by folder."""
    from gbxfs.formats.pak.errors import PakError
    from gbxfs.formats.pak.header import _resolve_folders
    from gbxfs.tree.pak.index import _Node

    rng = random.Random(seed)
    for _ in range(30):
        n = rng.randint(1, 25)
        parents = [-1 if i == 0 or rng.random() < 0.2 else rng.randrange(n) for i in range(n)]
        names = [rng.choice(("a\\", "b\\", "a\\b\\", "", "\\", "c")) for _ in range(n)]
        try:
            folders = _resolve_folders(list(zip(parents, names)))
        except PakError:
            continue        # a cyclic parent chain: refused before any index
        folder_of = [rng.randrange(n) for _ in range(rng.randint(0, 40))]
        if rng.random() < 0.5:
            folder_of.sort()
        raw = b"".join(struct.pack("<iI", f, len(nm := f"f{i}".encode())) + nm + FIXED.pack(0, i, i, 0, 0, 0)
                       for i, f in enumerate(folder_of))
        pieces = [raw]
        table, _ = read_files(lambda k: pieces.pop() if pieces else b"", len(folder_of), folders, hashlib.md5())
        index = PakIndex(table)
        walk = PakIndex.__new__(PakIndex)
        walk.nodes = [_Node()]
        for f in folders:
            walk.nodes[walk._node(f.parts, -1)].folders.append(f.index)
        assert [(x.subs, x.by_name, x.folders) for x in index.nodes] == \
            [(x.subs, x.by_name, x.folders) for x in walk.nodes]
        by_folder = sorted(range(len(folder_of)), key=folder_of.__getitem__)
        assert [i for f in range(n) for i in index._files(f)] == by_folder
        assert [index.starts[f + 1] - index.starts[f] for f in range(n)] == [folder_of.count(f) for f in range(n)]
