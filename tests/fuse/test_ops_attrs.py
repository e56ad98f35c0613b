"""Attributes kept per inode (fuse/ops.py, fuse/attrs.py `stable`): answered again
without recomputing while they cannot change, made anew when they can."""
from __future__ import annotations

import hashlib
import os

import pyfuse3
import pytest
import trio

from gbxfs.fuse.attrs import AttrPolicy
from gbxfs.fuse.inodes import path_inode
from gbxfs.fuse.ops import Operations
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree.model import Dir, File
from gbxfs.tree import root
from gbxfs.tree.root import build_tree

ROOT = pyfuse3.ROOT_INODE


class CountingFile(File):
    """A file whose size needs work (size_hint None): counts size() calls."""

    def __init__(self, name: str, data: bytes):
        super().__init__(name)
        self.data = data
        self.sizes = 0

    def size(self) -> int:
        self.sizes += 1
        return len(self.data)

    def read(self, offset: int, size: int) -> bytes:
        return self.data[offset:offset + size]


def _ops(tree) -> Operations:
    return Operations(tree, policy=AttrPolicy(uid=1234, gid=99))


def test_a_files_attributes_are_made_once_then_answered_again():
    f = CountingFile("a.txt", b"hello")
    ops = _ops(Dir("root", children=[f]))

    async def go():
        first = await ops.lookup(ROOT, b"a.txt", None)
        again = [await ops.getattr(first.st_ino, None) for _ in range(3)]
        looked = await ops.lookup(ROOT, b"a.txt", None)
        return first, again, looked

    first, again, looked = trio.run(go)
    assert first.st_size == 5 and all(a.st_size == 5 for a in again) and looked.st_size == 5
    assert f.sizes == 1


def test_a_folder_counts_its_subfolders_once_it_is_listed(monkeypatch):
    sub = Dir("sub", load=lambda: [Dir("x", children=[]), Dir("y", children=[]), CountingFile("f", b"1")])
    ops = _ops(Dir("root", children=[sub]))
    monkeypatch.setattr(pyfuse3, "readdir_reply", lambda token, name, attrs, off: True)

    async def go():
        before = await ops.lookup(ROOT, b"sub", None)
        unlisted = await ops.getattr(before.st_ino, None)
        fh = await ops.opendir(before.st_ino, None)
        await ops.readdir(fh, 0, None)
        await ops.releasedir(fh)
        return before, unlisted, await ops.getattr(before.st_ino, None)

    before, unlisted, listed = trio.run(go)
    assert before.st_nlink == unlisted.st_nlink == 1      # unknown: not kept
    assert listed.st_nlink == 4                            # 2 + x and y


def test_a_changed_real_file_gets_new_attributes(tmp_path):
    (tmp_path / "data.bin").write_bytes(b"abc")
    ops = _ops(build_tree(str(tmp_path)))

    async def go():
        a = await ops.lookup(ROOT, b"data.bin", None)
        kept = await ops.getattr(a.st_ino, None)
        (tmp_path / "data.bin").write_bytes(b"0123456789")
        b = await ops.lookup(ROOT, b"data.bin", None)      # a lookup re-checks the file on disk
        return a, kept, b, await ops.getattr(b.st_ino, None)

    a, kept, b, after = trio.run(go)
    assert a.st_size == kept.st_size == 3
    assert b.st_ino == a.st_ino and b.st_size == after.st_size == 10


def test_listing_entries_answer_getattr_with_the_listed_attributes(tmp_path, monkeypatch):
    (tmp_path / "d").mkdir()
    for i in range(5):
        (tmp_path / "d" / f"f{i}").write_bytes(b"x" * i)
    ops = _ops(build_tree(str(tmp_path)))
    got: dict[bytes, pyfuse3.EntryAttributes] = {}
    monkeypatch.setattr(pyfuse3, "readdir_reply", lambda token, name, attrs, off: got.setdefault(name, attrs) or True)

    async def go():
        d = await ops.lookup(ROOT, b"d", None)
        for _ in range(2):                   # listed twice: the second answers the kept attributes
            got.clear()
            fh = await ops.opendir(d.st_ino, None)
            await ops.readdir(fh, 0, None)
            await ops.releasedir(fh)
        return {n: (await ops.getattr(a.st_ino, None)) for n, a in got.items() if n not in (b".", b"..")}

    answered = trio.run(go)
    assert sorted(answered) == [f"f{i}".encode() for i in range(5)]
    for name, a in answered.items():
        assert a.st_size == int(name[1:]) and a is got[name]
        assert a.st_ino == path_inode("d/" + name.decode())
    # the first readdirplus and the second each counted one kernel reference
    assert all(ops.inodes.get(a.st_ino).lookups == 2 for a in answered.values())


def test_inode_numbers_are_the_keyed_path_hash():
    # remounts and other versions must give the same numbers: the hash is fixed
    for path in ("a", "Pack00.pak/Media/F00001.dat", "été/ö"):
        want = int.from_bytes(hashlib.blake2b(os.fsencode(path), digest_size=8,
                                              person=b"gbxfs-inode").digest(), "little") & ((1 << 63) - 1)
        assert path_inode(path) == want


def _replace_pak(folder, files) -> None:
    """A new Stuff.pak put in place the way updates do (written aside, renamed over)."""
    write_packs(folder / "new", {"Stuff": files})
    os.replace(folder / "new" / "Stuff.pak", folder / "Stuff.pak")


def test_inside_a_pak_names_last_longer_and_are_dropped_when_the_pak_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(root, "RECHECK_SECONDS", 0.0)      # the real folder is checked on every lookup
    write_packs(tmp_path, {"Stuff": [PakFile("Stuff/a.dat", b"aaa")]})
    ops = Operations(build_tree(str(tmp_path)), policy=AttrPolicy(entry_timeout=2, attr_timeout=2, view_timeout=77))
    told: list[tuple] = []
    monkeypatch.setattr(pyfuse3, "trio_token", object())       # as while serving
    monkeypatch.setattr(pyfuse3, "invalidate_entry_async", lambda *a, **kw: told.append((a, kw)))

    async def go():
        pak = await ops.lookup(ROOT, b"Stuff.pak", None)
        inner = await ops.lookup(pak.st_ino, b"Stuff", None)
        a = await ops.lookup(inner.st_ino, b"a.dat", None)
        unchanged = await ops.lookup(ROOT, b"Stuff.pak", None)
        nothing_yet = list(told)
        _replace_pak(tmp_path, [PakFile("Stuff/a.dat", b"bbbbbb"), PakFile("Stuff/b.dat", b"c")])
        changed = await ops.lookup(ROOT, b"Stuff.pak", None)
        again = await ops.lookup(pak.st_ino, b"Stuff", None)
        new_a = await ops.lookup(again.st_ino, b"a.dat", None)
        return pak, inner, a, unchanged, nothing_yet, changed, new_a

    pak, inner, a, unchanged, nothing_yet, changed, new_a = trio.run(go)
    assert (pak.entry_timeout, pak.attr_timeout) == (2, 2)              # the real folder's entry
    assert (inner.entry_timeout, inner.attr_timeout, a.attr_timeout) == (77, 77, 77)
    assert unchanged.st_ino == pak.st_ino and nothing_yet == []
    assert changed.st_ino == pak.st_ino
    # the pak's known names, then (its folder found anew by the next lookup) that folder's
    assert told == [((pak.st_ino, b"Stuff"), {"ignore_enoent": True}),
                    ((inner.st_ino, b"a.dat"), {"ignore_enoent": True})]
    assert (a.st_size, new_a.st_size) == (3, 6)


def test_not_serving_nothing_is_sent_to_the_kernel(tmp_path, monkeypatch):
    monkeypatch.setattr(root, "RECHECK_SECONDS", 0.0)
    write_packs(tmp_path, {"Stuff": [PakFile("Stuff/a.dat", b"aaa")]})
    ops = _ops(build_tree(str(tmp_path)))
    monkeypatch.setattr(pyfuse3, "invalidate_entry_async", lambda *a, **kw: pytest.fail("sent while not serving"))

    async def go():
        pak = await ops.lookup(ROOT, b"Stuff.pak", None)
        await ops.lookup(pak.st_ino, b"Stuff", None)
        _replace_pak(tmp_path, [PakFile("Stuff/a.dat", b"bbbbbb")])
        return await ops.lookup(ROOT, b"Stuff.pak", None)

    assert trio.run(go).st_ino
