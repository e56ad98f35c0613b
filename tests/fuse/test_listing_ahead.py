"""A walk of a folder of many maps lists the folders it enters next in one
worker-thread visit (fuse/ahead.py), and sees the same listings as a walk that
lists each folder when asked."""
from __future__ import annotations

import os
import stat

import pytest
import pyfuse3
import trio
from corpusdata import manifest_rows

from gbxfs.fuse import ahead as ahead_mod
from gbxfs.fuse.attrs import AttrPolicy
from gbxfs.fuse.ops import Operations
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.root import build_tree

pytestmark = pytest.mark.corpus
MAPS = 40


def _folder(corpus, tmp_path):
    maps = [corpus / r["path"] for r in manifest_rows() if r["kind"] == "map"]
    for i in range(MAPS):
        os.link(maps[i % len(maps)], tmp_path / f"m{i:03d}.Map.Gbx")
    return tmp_path


def _walk(folder, monkeypatch, depth: int, ahead: bool):
    """(every folder's readdirplus names and sizes by path, worker-thread visits)
    of a find-like walk down to `depth`."""
    ctx = TreeContext()
    ctx.cache = ByteLRU(64 << 20)
    ops = Operations(build_tree(str(folder), ctx), policy=AttrPolicy())
    if not ahead:
        monkeypatch.setattr(ops.scheduler.ahead, "folders", lambda *a: [])
    visits = []
    work = ops.scheduler.work

    async def counted(fn, *args):
        visits.append(fn)
        return await work(fn, *args)
    monkeypatch.setattr(ops.scheduler, "work", counted)

    def reply(token, name, attrs, offset):
        token.append((name, attrs.st_mode, attrs.st_size, attrs.st_ino))
        return True
    monkeypatch.setattr(pyfuse3, "readdir_reply", reply)
    seen = {}

    async def walk(inode, path, level):
        fh = await ops.opendir(inode, None)
        got = []
        await ops.readdir(fh, 0, got)
        await ops.releasedir(fh)
        seen[path] = [(n, m, s) for n, m, s, _ in got[2:]]
        if level < depth:       # as find does: no lookup, the numbers readdirplus gave
            for name, mode, _, ino in got[2:]:
                if stat.S_ISDIR(mode):
                    await walk(ino, f"{path}/{name.decode()}", level + 1)
    trio.run(walk, pyfuse3.ROOT_INODE, "", 1)
    return seen, len(visits)


def test_a_walk_of_map_folders_lists_them_ahead_and_sees_the_same(corpus, tmp_path, monkeypatch):
    folder = _folder(corpus, tmp_path)
    for depth in (2, 3):
        each, visits_each = _walk(folder, monkeypatch, depth, ahead=False)
        ahead, visits_ahead = _walk(folder, monkeypatch, depth, ahead=True)
        assert ahead == each and len(each) > MAPS
        # listed when asked: the real folder, then a visit per map folder (and per
        # header/; body/ is listed from memory); ahead, a visit lists AHEAD more
        assert visits_each == 1 + (depth - 1) * MAPS, visits_each
        batches = -(-MAPS // (ahead_mod.AHEAD + 1))
        assert visits_ahead == 1 + (depth - 1) * batches, visits_ahead
