from __future__ import annotations

import errno
import os

import pyfuse3
import pytest
import trio

from gbxfs.fuse import inodes
from gbxfs.fuse.attrs import AttrPolicy
from gbxfs.fuse.inodes import NAMED, SLOT_BITS, InodeTable
from gbxfs.fuse.ops import Operations
from gbxfs.tree.model import BytesFile, Dir
from gbxfs.tree.root import build_tree

ROOT = pyfuse3.ROOT_INODE


def _number(t: InodeTable, folder: int, k: int) -> int:
    return t.folder_id(folder) << SLOT_BITS | k


def test_folders_get_dense_ids_and_entries_their_positions():
    t = InodeTable(Dir("r", children=[]), 0)
    assert t.folder_id(ROOT) == 1 and t.folder_id(ROOT) == 1
    a = _number(t, ROOT, 0)
    assert a == 1 << SLOT_BITS and a > ROOT
    assert t.folder_id(a) == 2 and t.folder_id(_number(t, ROOT, 7)) == 3
    assert t.parent_number(_number(t, a, 5)) == a and t.parent_number(a) == ROOT
    assert t.parent_number(ROOT) is None
    assert all(0 < n < 2**63 for n in (a, _number(t, a, NAMED - 1)))


class _RealLike(Dir):
    revalidates = True


def test_names_are_logged_once_and_keep_their_numbers():
    t = InodeTable(Dir("r", children=[]), 0)
    fid = t.folder_id(ROOT)
    x, y = t.named(fid, "x", Dir("x", mtime_ns=5)), t.named(fid, "y", BytesFile("y", b"", mtime_ns=5))
    assert x != y and t.named(fid, "x", Dir("x", mtime_ns=5)) == x and x & NAMED and y == x + 1
    assert (t.logged(x), t.logged(y), t.logged(1 << SLOT_BITS | 3)) == (("x", 5), ("y", None), None)
    assert t.logged(x + 10) is None            # never given
    # a file shown as a folder changed on disk (a new mtime) is a new folder; a file
    # and a real folder keep their numbers while they change
    assert t.named(fid, "x", Dir("x", mtime_ns=6)) == y + 1
    assert t.named(fid, "y", BytesFile("y", b"changed", mtime_ns=6)) == y
    real = _RealLike("r2", mtime_ns=1)
    z = t.named(fid, "r2", real)
    real.mtime_ns = 2               # a file added in it
    assert t.named(fid, "r2", real) == z and t.logged(z) == ("r2", None)


def test_past_the_last_folder_id_a_new_folder_fails(monkeypatch):
    monkeypatch.setattr(inodes, "FOLDERS_MAX", 2)
    t = InodeTable(Dir("r", children=[]), 0)
    t.folder_id(ROOT)
    t.folder_id(5 << SLOT_BITS)
    with pytest.raises(OSError) as e:
        t.folder_id(6 << SLOT_BITS)
    assert e.value.errno == errno.ENOSPC
    assert t.folder_id(ROOT) == 1               # the folders that have one keep it


def test_lookup_counts_and_forget():
    t = InodeTable(Dir("r", children=[]), 0)
    f = BytesFile("f", b"")
    ino = _number(t, ROOT, 0)
    n = t.remember(ino, "f", f, 0)
    t.remember(ino, "f", f, 0)
    assert n.lookups == 2 and len(t) == 2
    t.forget(n.inode, 1)
    assert t.get(n.inode) is n
    t.forget(n.inode, 1)
    assert t.get(n.inode) is None and len(t) == 1
    t.forget(ROOT, 100)       # the root stays
    assert t.get(ROOT) is t.root
    t.forget(123456, 1)                      # unknown inodes are ignored
    t.forget(9 << SLOT_BITS, 1)


def test_leaves_count_like_a_dict_through_adds_and_removals():
    import random
    from gbxfs.fuse.leaves import Leaves
    rnd = random.Random(11)
    leaves, model = Leaves(), {}
    sizes = {fid: rnd.randrange(1, 300) for fid in range(1, 20)}
    for step in range(20000):
        fid = rnd.randrange(1, 20)
        k = rnd.randrange(sizes[fid])
        op = rnd.random()
        if op < 0.6:
            ks = {k, rnd.randrange(sizes[fid])}
            new = leaves.add_many(fid, ks, sizes[fid])
            assert new == sum((fid, j) not in model for j in ks)
            for j in ks:
                model[fid, j] = model.get((fid, j), 0) + 1
        elif op < 0.9:
            got = leaves.forget(fid, k, 1)
            c = model.get((fid, k))
            assert got == (None if c is None else c - 1)
            if c == 1:
                del model[fid, k]
            elif c:
                model[fid, k] = c - 1
        else:
            assert leaves.pop(fid, k) == model.pop((fid, k), 0)
        assert len(leaves) == len(model)
    assert sorted(leaves.items()) == sorted((f, k, c) for (f, k), c in model.items())
    assert all(leaves.count(f, k) == model.get((f, k), 0) for f in sizes for k in range(sizes[f]))


def test_listed_files_cost_four_bytes_each_and_release_their_folders():
    """A file held from a listing costs one count in its folder's array, measured,
    not only counted; a folder whose files are all forgotten leaves nothing behind."""
    import tracemalloc

    from gbxfs.fuse.leaves import CELL_BYTES, Leaves
    n, per_folder = 100_000, 500
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        leaves = Leaves()
        for fid in range(n // per_folder):
            assert leaves.add_many(fid, range(per_folder), per_folder) == per_folder
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(leaves) == n
    assert kept <= leaves.nbytes() and leaves.nbytes() <= CELL_BYTES * n + 64 * 1024
    assert leaves.count(7, 499) == 1
    for fid in range(n // per_folder):
        for k in range(per_folder):
            assert leaves.forget(fid, k, 1) == 0
    assert len(leaves) == 0 and leaves.nbytes() == 0 and not leaves._counts


def test_listed_files_are_held_by_position_under_their_folder():
    t = InodeTable(Dir("r", children=[]), 0)
    files = [BytesFile(f"f{i}", b"x") for i in range(100)]
    folder_entry = Dir("d", children=files)
    d = _number(t, ROOT, 0)
    folder = t.remember(d, "d", folder_entry, 5)
    for k, f in enumerate(files):
        t.remember_listed(folder, 100, _number(t, d, k), f.name, f, 5)
    assert len(t) == 102 and len(t._nodes) == 2 and folder.leaves == 100
    leaf = t.get(_number(t, d, 7))
    assert (leaf.name, leaf.lookups, leaf.entry, leaf.mtime_ns) == (None, 1, None, 5)
    assert t.full(leaf.inode) is None and t.parent_of(leaf) is folder
    t.forget(folder.inode, 1)                   # the kernel forgot the folder: its files keep it
    assert t.get(folder.inode) is folder
    # a lookup of its own makes a full node, with the count it had
    full = t.remember(_number(t, d, 7), "f7", files[7], 5)
    assert full.lookups == 2 and full.entry is files[7] and folder.leaves == 99
    for k in range(100):
        t.forget(_number(t, d, k), 1)
    assert t.get(folder.inode) is None          # its last file forgotten: the folder goes too
    assert t.get(full.inode) is full and len(t) == 2
    assert t.folder_id(d) == 2                  # its id stays for the mount's life


def test_parent_of_is_the_node_of_the_folder_number():
    t = InodeTable(Dir("root"), 1)
    a_ino = _number(t, ROOT, 0)
    a = t.remember(a_ino, "a", Dir("a"), 5)
    b_entry = Dir("b")
    t.remember_listed(a, 1, _number(t, a_ino, 0), "b", b_entry, 5)
    b = t.get(_number(t, a_ino, 0))
    assert t.parent_of(b) is a and t.parent_of(t.root) is None and t.parent_of(a) is t.root
    # the folder forgotten: a node not held, with its number, its entry to be found again
    t.forget(a.inode, 1)
    assert t.get(a.inode) is None
    bare = t.parent_of(b)
    assert bare.inode == a.inode and bare.entry is None and t.full(a.inode) is None


def _ops(tree) -> Operations:
    return Operations(tree, policy=AttrPolicy(uid=1, gid=1))


async def _listing(ops: Operations, inode: int, monkeypatch) -> dict[bytes, int]:
    got: dict[bytes, int] = {}
    monkeypatch.setattr(pyfuse3, "readdir_reply", lambda token, name, attrs, off: got.setdefault(name, attrs.st_ino)
                        or True)
    fh = await ops.opendir(inode, None)
    await ops.readdir(fh, 0, None)
    await ops.releasedir(fh)
    return {n: i for n, i in got.items() if n not in (b".", b"..")}


def test_a_real_folder_keeps_its_numbers_while_files_come_and_go(tmp_path, monkeypatch):
    """A real folder's entries are numbered from its name log: a file added gets a
    new number, the others keep theirs (their positions moved), a removed file is
    gone (ESTALE once its entry is asked again) and comes back with its number."""
    from gbxfs.tree import root as root_mod
    monkeypatch.setattr(root_mod, "RECHECK_SECONDS", 0.0)
    (tmp_path / "d").mkdir()
    for n in ("b", "d", "f"):
        (tmp_path / "d" / n).write_bytes(n.encode())
    ops = _ops(build_tree(str(tmp_path), openers=[]))

    async def main():
        d = (await ops.lookup(ROOT, b"d", None)).st_ino
        first = await _listing(ops, d, monkeypatch)
        (tmp_path / "d" / "a").write_bytes(b"new")          # sorts first: every position moves
        os.unlink(tmp_path / "d" / "d")
        second = await _listing(ops, d, monkeypatch)
        assert sorted(second) == [b"a", b"b", b"f"]
        assert second[b"b"] == first[b"b"] and second[b"f"] == first[b"f"]
        assert second[b"a"] not in first.values()
        assert (await ops.lookup(ROOT, b"d", None)).st_ino == d     # the folder keeps its number
        # each number still opens its own file, looked up or not
        for name, ino in second.items():
            fh = (await ops.open(ino, os.O_RDONLY, None)).fh
            assert await ops.read(fh, 0, 10) == (b"new" if name == b"a" else name)
            await ops.release(fh)
            assert (await ops.lookup(d, name, None)).st_ino == ino
        gone = ops.inodes.get(first[b"d"])
        gone.entry = None       # as when the tree dropped it: found again from the number
        with pytest.raises(pyfuse3.FUSEError) as e:
            await ops.getattr(first[b"d"], None)
        assert e.value.errno == errno.ESTALE
        (tmp_path / "d" / "d").write_bytes(b"back")
        assert (await _listing(ops, d, monkeypatch))[b"d"] == first[b"d"]
        fh = (await ops.open(first[b"d"], os.O_RDONLY, None)).fh
        assert await ops.read(fh, 0, 10) == b"back"
    trio.run(main)


def test_a_pak_changed_on_disk_is_a_new_folder_and_its_old_files_are_stale(tmp_path, monkeypatch):
    """A file shown as a folder whose file changed (a new mtime) gets a new number:
    the numbers the kernel held below the old one answer ESTALE, never the bytes
    of whatever file now sits at their positions."""
    from gbxfs.formats.pak.writer import PakFile, write_packs
    from gbxfs.tree import root as root_mod
    monkeypatch.setattr(root_mod, "RECHECK_SECONDS", 0.0)
    write_packs(tmp_path, {"X": [PakFile("A/b.txt", b"bee"), PakFile("A/c.txt", b"sea")]})
    ops = _ops(build_tree(str(tmp_path)))

    async def main():
        x = (await ops.lookup(ROOT, b"X.pak", None)).st_ino
        a = (await ops.lookup(x, b"A", None)).st_ino
        old = await _listing(ops, a, monkeypatch)
        write_packs(tmp_path / "new", {"X": [PakFile("A/a.txt", b"ay"), PakFile("A/b.txt", b"bee"),
                                             PakFile("A/c.txt", b"sea")]})
        os.replace(tmp_path / "new" / "X.pak", tmp_path / "X.pak")
        os.utime(tmp_path / "X.pak", ns=(10**18, 10**18))   # surely another mtime
        x2 = (await ops.lookup(ROOT, b"X.pak", None)).st_ino
        assert x2 != x
        new = await _listing(ops, (await ops.lookup(x2, b"A", None)).st_ino, monkeypatch)
        assert set(old) < set(new) and not set(old.values()) & set(new.values())
        node = ops.inodes.get(old[b"b.txt"])
        for folder in (x, a):
            ops.inodes.get(folder).entry = None     # as when the tree dropped the old folders
        with pytest.raises(pyfuse3.FUSEError) as e:
            await ops.open(node.inode, os.O_RDONLY, None)
        assert e.value.errno == errno.ESTALE
        fh = (await ops.open(new[b"b.txt"], os.O_RDONLY, None)).fh
        assert await ops.read(fh, 0, 10) == b"bee"
    trio.run(main)
