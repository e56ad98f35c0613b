"""Attributes kept per inode node (fuse/ops.py, fuse/attrs.py `stable`): answered
again without recomputing while they cannot change, made anew when they can."""
from __future__ import annotations

import pyfuse3
import trio

from gbxfs.fuse.attrs import AttrPolicy
from gbxfs.fuse.ops import Operations
from gbxfs.tree.model import Dir, File
from gbxfs.tree.root import build_tree

ROOT = pyfuse3.ROOT_INODE


class CountingFile(File):
    """A file whose size needs work (size(wait=False) is None): counts the sizes made."""

    def __init__(self, name: str, data: bytes):
        super().__init__(name)
        self.data = data
        self.sizes = 0

    def _exact_size(self) -> int:
        self.sizes += 1
        return len(self.data)

    def _read(self, offset: int, size: int) -> bytes:
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


def test_listed_entries_answer_getattr_like_the_listing(tmp_path, monkeypatch):
    (tmp_path / "d").mkdir()
    for i in range(5):
        (tmp_path / "d" / f"f{i}").write_bytes(b"x" * i)
    ops = _ops(build_tree(str(tmp_path)))
    got: dict[bytes, pyfuse3.EntryAttributes] = {}
    monkeypatch.setattr(pyfuse3, "readdir_reply", lambda token, name, attrs, off: got.setdefault(name, attrs) or True)

    async def go():
        d = await ops.lookup(ROOT, b"d", None)
        for _ in range(2):                   # listed twice: each listing counts a reference
            got.clear()
            fh = await ops.opendir(d.st_ino, None)
            await ops.readdir(fh, 0, None)
            await ops.releasedir(fh)
        answered = {n: (await ops.getattr(a.st_ino, None)) for n, a in got.items() if n not in (b".", b"..")}
        # the first readdirplus and the second each counted one kernel reference
        assert all(ops.inodes.get(a.st_ino).lookups == 2 for a in answered.values())
        # a lookup finds the number the listing gave
        return answered, {n: (await ops.lookup(d.st_ino, n, None)).st_ino for n in answered}

    answered, looked_up = trio.run(go)
    assert sorted(answered) == [f"f{i}".encode() for i in range(5)]
    for name, a in answered.items():
        assert a.st_size == got[name].st_size == int(name[1:])
        assert a.st_ino == got[name].st_ino == looked_up[name]


