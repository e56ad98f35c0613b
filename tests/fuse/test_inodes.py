from __future__ import annotations

import pyfuse3

from gbxfs.fuse import inodes
from gbxfs.fuse.inodes import InodeTable, path_inode
from gbxfs.tree.model import BytesFile, Dir


def test_numbers_depend_only_on_the_path():
    a = InodeTable(Dir("r", children=[]), 0)
    b = InodeTable(Dir("other root object", children=[]), 0)   # a "remount"
    for p in ("x", "Packs/Sample.pak/Sample/Media/Clips/Clip0.Clip.Gbx/header", "é/ü"):
        assert a.number(p) == b.number(p) == path_inode(p)
        assert a.remember(p, BytesFile("f", b""), 0).inode == path_inode(p)
    assert len({path_inode(f"d/{i}") for i in range(10_000)}) == 10_000
    assert all(1 < path_inode(f"d/{i}") < 2**63 for i in range(1000))


def test_collisions_get_a_salted_number(monkeypatch):
    real = inodes.path_inode

    def colliding(path, salt=0):
        return 42 if salt == 0 else real(path, salt)

    monkeypatch.setattr(inodes, "path_inode", colliding)
    t = InodeTable(Dir("r", children=[]), 0)
    first = t.remember("a", BytesFile("a", b""), 0)
    second = t.remember("b", BytesFile("b", b""), 0)
    assert first.inode == 42 and second.inode != 42
    assert t.get(42).path == "a" and t.get(second.inode).path == "b"
    assert t.find_path("b") is second and t.find_path("a") is first


def test_lookup_counts_and_forget():
    t = InodeTable(Dir("r", children=[]), 0)
    f = BytesFile("f", b"")
    n = t.remember("f", f, 0)
    t.remember("f", f, 0)
    assert n.lookups == 2 and len(t) == 2
    t.forget(n.inode, 1)
    assert t.get(n.inode) is n
    t.forget(n.inode, 1)
    assert t.get(n.inode) is None and len(t) == 1
    t.forget(pyfuse3.ROOT_INODE, 100)       # the root stays
    assert t.get(pyfuse3.ROOT_INODE) is t.root
    t.forget(123456, 1)                      # unknown inodes are ignored
