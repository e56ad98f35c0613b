"""A pak folder's listing as rows (tree/pak/listed.py, tree/rows.py): read from the
table's columns, it shows what the file-by-file listing (PakIndex.listing) shows,
and makes a file's entry only when asked for it, the same object every time."""
from __future__ import annotations

import pytest

from gbxfs.formats.pak.writer import PakFile, many_files, write_packs
from gbxfs.formats.pak.writer6 import PackFile, build_pack
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.pak import listed
from gbxfs.tree.pak.entries import PakFolder
from gbxfs.tree.pak.files import PakEntryFile
from gbxfs.tree.root import build_tree
from gbxfs.tree.rows import Rows, plain_names


def _files() -> list[PakFile]:
    files = many_files(1500, seed=9, per_folder=60)
    # folders whose names need fixing one by one, beside plain ones
    files += [PakFile("Odd/clash", b"a"), PakFile("Odd/clash", b"b"),          # made unique
              PakFile("Odd/error.txt", b"c"),                                 # a reserved name
              PakFile("Odd/noext", b"d", class_id=0x03043000),                 # typed from its class
              PakFile("Sub/a\\b\\c.txt", b"e", folder_depth=1),                # a sub-path
              PakFile("Sub/plain.txt", b"f"),
              PakFile("Gbx/Map.Challenge.Gbx", b"GBX", class_id=0x03043000),
              PakFile("Gbx/Other.txt", b"g"),
              PakFile("Typed/5f3a9c", b"h", class_id=0x03043000), PakFile("Typed/other.txt", b"i")]
    return files


def _tree(tmp_path, version: int, gbx_mode: str):
    root = tmp_path / f"p{version}"
    if not root.exists():
        if version < 6:
            write_packs(root, {"X": _files()})
        else:
            root.mkdir()
            files = [PackFile(**vars(f), public=True) for f in _files()]
            (root / "X.Pack.Gbx").write_bytes(build_pack(files, version=version, header_flags=2))
    ctx = TreeContext(gbx_mode=gbx_mode)
    ctx.cache = ByteLRU(256 << 20)
    top = build_tree(str(root), ctx).children()["X.pak" if version < 6 else "X.Pack.Gbx"]
    top.children()
    return top.view() if hasattr(top, "view") else top


def _shown(e) -> tuple:
    return (type(e).__name__, e.is_dir, None if e.is_dir else e.size(wait=False), e.mtime_ns, e.access)


@pytest.mark.parametrize("version", [3, 18])
@pytest.mark.parametrize("gbx_mode", ["file", "folder"])
def test_rows_show_what_the_file_by_file_listing_shows(tmp_path, monkeypatch, version, gbx_mode):
    pak = _tree(tmp_path, version, gbx_mode)
    tree = pak._tree
    table, index = tree.arc.files, tree.index()
    ways = {"plain": 0, "file by file": 0}
    todo = [pak]
    while todo:
        folder = todo.pop()
        node = folder._node
        with monkeypatch.context() as m:     # which way the listing went
            m.setattr(listed, "_plain_rows", lambda *a, real=listed._plain_rows: taken.append(real(*a)) or taken[-1])
            taken: list = []
            rows = tree.listing(node, (table, index), folder)
        ways["plain" if taken[0] is not None else "file by file"] += 1
        with monkeypatch.context() as m:     # the same listing, every name through PakIndex.listing
            m.setattr(listed, "_plain_rows", lambda *a: None)
            ref = tree.listing(node, (table, index), folder)
        assert isinstance(rows, Rows) and rows.valid == plain_names(rows.names)
        assert rows.names == ref.names, folder.name
        assert [_shown(rows.at(i)) for i in range(len(rows))] == [_shown(ref.at(i)) for i in range(len(ref))]
        for i, e in enumerate(ref.values()):
            if isinstance(e, PakEntryFile):
                assert rows.sizes[i] == e.size() and rows.at(i)._index == e._index
                assert (rows.at(i).made is None) == (e.made is None)      # unreadable ones made in both
            if isinstance(e, PakFolder):
                assert rows.at(i)._node == e._node
        todo += [e for e in rows.values() if isinstance(e, PakFolder)]
    assert ways["plain"] > 20 and ways["file by file"] >= 3, ways


def test_a_row_is_made_an_entry_when_asked_once(tmp_path):
    pak = _tree(tmp_path, 3, "file")
    rows = pak.children()["Data"].children()["G000"].children()["F00"].children()     # files only
    assert isinstance(rows, Rows) and len(rows) > 10
    assert all(c.__class__ is int for c in rows.cells) and rows.made() == []
    name = rows.names[3]
    e = rows[name]
    assert isinstance(e, PakEntryFile) and e.name == name and e.size() == rows.sizes[3]
    assert rows.get(name) is e and rows.at(3) is e and rows.made() == [e]
    assert name in rows and "no such name" not in rows and rows.get("no such name", 7) == 7
    with pytest.raises(KeyError):
        rows["no such name"]
    assert list(rows) == rows.names and [n for n, _ in rows.items()] == rows.names
    assert all(isinstance(v, PakEntryFile) for v in rows.values()) and len(rows.made()) == len(rows)
    assert rows.values()[3] is e


@pytest.mark.parametrize("plain", [True, False])
def test_a_file_whose_table_fields_say_unreadable_is_made_at_listing(tmp_path, monkeypatch, plain):
    """The pak ends before the last file's data: its folder shows error.txt at the
    first listing, whichever way the listing is made, and only that file's entry is made."""
    import random

    from gbxfs.tree.walk import resolve

    if not plain:
        monkeypatch.setattr(listed, "_plain_rows", lambda *a: None)
    write_packs(tmp_path, {"T": [PakFile("R/a.bin", b"a" * 100),
                                 PakFile("R/z.bin", random.Random(3).randbytes(10000))]})
    p = tmp_path / "T.pak"
    p.write_bytes(p.read_bytes()[:-1000])
    folder = resolve(build_tree(str(tmp_path)), "T.pak/R")
    rows = folder._listed()
    assert isinstance(rows, Rows) and rows.names == ["a.bin", "z.bin"]
    made = {n for n, e in zip(rows.names, rows.cells) if e.__class__ is not int}
    assert made == ({"z.bin"} if plain else {"a.bin", "z.bin"})
    kids = folder.children()
    assert sorted(kids) == ["a.bin", "error.txt", "z.bin"]
    assert kids["z.bin"].error and not kids["a.bin"].error


def test_a_row_named_by_two_requests_at_once_makes_one_entry():
    import threading

    from gbxfs.tree.model import File
    from gbxfs.tree.rows import Rows

    inside, second_maker = threading.Event(), threading.Event()
    made: list[int] = []

    def make(rows, i, token):
        made.append(i)
        if len(made) == 1:
            inside.set()
            second_maker.wait(1.0)     # a second maker (no lock) would end this at once
        else:
            second_maker.set()
        return File(rows.names[i])

    rows = Rows(["a", "b"], [0, 1], [1, 1], 0, make)
    got: list = []
    first = threading.Thread(target=lambda: got.append(rows.at(0)))
    first.start()
    assert inside.wait(10)
    second = threading.Thread(target=lambda: got.append(rows.at(0)))
    second.start()
    first.join(10)
    second.join(10)
    assert made == [0] and len(got) == 2 and got[0] is got[1]
