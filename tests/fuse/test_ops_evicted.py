"""The inode table holds tree entries weakly: after `find` over a pak of a
million files the kernel knows a million inodes, and their entries must
leave memory with the cached listings that made them. An inode whose entry
was dropped is found again from its number (its folder's id and its position:
fuse/inodes.py), with the same attributes and bytes."""
from __future__ import annotations

import gc
import types

import pyfuse3
import trio

from gbxfs.fuse.attrs import AttrPolicy
from gbxfs.fuse.ops import Operations
from gbxfs.formats.pak.writer import PakFile, many_files, write_packs
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.root import build_tree

PATH = "X.pak/Data/G000/F01/deep.txt"


def test_an_evicted_entry_is_found_again_from_its_number(tmp_path):
    files = many_files(2000, seed=8)
    files.insert(1500, PakFile("Data/G000/F01/deep.txt", b"the same bytes"))
    write_packs(tmp_path / "p", {"X": files})
    ctx = TreeContext(gbx_mode="file")
    ctx.cache = ByteLRU(64 << 20)
    ops = Operations(build_tree(str(tmp_path / "p"), ctx), policy=AttrPolicy(uid=1, gid=1))

    async def lookup():
        inode = pyfuse3.ROOT_INODE
        for part in PATH.split("/"):
            attrs = await ops.lookup(inode, part.encode(), None)
            inode = attrs.st_ino
        return inode, attrs

    async def main():
        inode, attrs = await lookup()
        node = ops.inodes.get(inode)
        assert node.entry is not None
        await trio.sleep(0)      # (trio keeps a worker thread's last result until the task moves on)
        ctx.cache.put("filler", b"", ctx.cache.max_bytes - 64, costly=True)   # evicts every listing
        gc.collect()
        assert node.entry is None           # nothing but the evicted listing held it
        again = await ops.getattr(inode, None)
        assert (again.st_ino, again.st_size) == (attrs.st_ino, attrs.st_size) == (inode, 14)
        fh = (await ops.open(inode, 0, None)).fh
        assert await ops.read(fh, 0, 100) == b"the same bytes"
        await ops.release(fh)
        assert ops.inodes.get(inode) is node and node.entry is not None
    trio.run(main)


def _pak_ops(tmp_path, monkeypatch, files):
    """(ops over a pak of `files`, its context, what readdir replies get: (name, attrs))."""
    write_packs(tmp_path / "p", {"X": files})
    ctx = TreeContext(gbx_mode="file")
    ctx.cache = ByteLRU(64 << 20)
    ops = Operations(build_tree(str(tmp_path / "p"), ctx), policy=AttrPolicy(uid=1, gid=1))
    listed = []
    # the values are copied at once, as pyfuse3 copies them into the reply (a listing
    # may hand the same EntryAttributes again, changed, for its next entry)
    monkeypatch.setattr(pyfuse3, "readdir_reply", lambda token, name, attrs, next_id: listed.append(
        (name, types.SimpleNamespace(st_ino=attrs.st_ino, st_size=attrs.st_size))) or True)
    return ops, ctx, listed


async def _list(ops, path: str) -> int:
    """Look up `path` part by part and list it once (its files held compactly); its inode."""
    inode = pyfuse3.ROOT_INODE
    for part in path.split("/"):
        inode = (await ops.lookup(inode, part.encode(), None)).st_ino
    fh = await ops.opendir(inode, None)
    await ops.readdir(fh, 0, None)
    await ops.releasedir(fh)
    return inode


def test_a_listed_file_is_found_by_its_folder_listing(tmp_path, monkeypatch):
    files = many_files(1200, seed=9)
    ops, ctx, listed = _pak_ops(tmp_path, monkeypatch, files)

    async def main():
        await _list(ops, "X.pak/Data/G000/F00")
        await trio.sleep(0)
        ctx.cache.put("filler", b"", ctx.cache.max_bytes - 64, costly=True)   # evicts every listing
        gc.collect()
        by_name = {f.path.rsplit("/", 1)[1]: f.data for f in files[:1000]}
        for name, attrs in listed[2:][::97]:
            node = ops.inodes.get(attrs.st_ino)
            assert ops.inodes.full(attrs.st_ino) is None and node.lookups == 1      # held by position
            again = await ops.getattr(attrs.st_ino, None)
            assert (again.st_ino, again.st_size) == (attrs.st_ino, attrs.st_size)
            fh = (await ops.open(attrs.st_ino, 0, None)).fh
            assert await ops.read(fh, 0, 1000) == by_name[name.decode()]
            await ops.release(fh)
    trio.run(main)


def test_a_folders_next_listed_files_open_from_its_listing_at_hand(tmp_path, monkeypatch):
    ops, _, listed = _pak_ops(tmp_path, monkeypatch, many_files(300, seed=4))

    async def main():
        inode = await _list(ops, "X.pak/Data/G000/F00")
        folder = ops.inodes.get(inode).entry
        # the files are found at their positions in the listing at hand: no listing call
        monkeypatch.setattr(type(folder), "children", lambda self: 1 / 0)
        for name, attrs in listed[2:][::50]:
            assert ops.inodes.full(attrs.st_ino) is None                    # held by position
            ops_fh = (await ops.open(attrs.st_ino, 0, None)).fh
            assert ops._files[ops_fh] is folder.peek()[name.decode()]
            await ops.release(ops_fh)
    trio.run(main)
