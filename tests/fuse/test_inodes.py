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


def test_leaves_count_like_a_dict_through_growth_and_removals():
    import random
    from gbxfs.fuse.leaves import Leaves
    rnd = random.Random(11)
    leaves, model = Leaves(8), {}
    keys = [rnd.getrandbits(63) | 2 for _ in range(3000)]
    for step in range(20000):
        k = rnd.choice(keys)
        op = rnd.random()
        if op < 0.6:
            leaves.add(k, k % 7)
            d, c = model.get(k, (k % 7, 0))
            model[k] = (d, c + 1)
        elif op < 0.9:
            got = leaves.forget(k, 1)
            if k not in model:
                assert got is None
            else:
                d, c = model[k]
                assert got == (d, c - 1)
                if c == 1:
                    del model[k]
                else:
                    model[k] = (d, c - 1)
        else:
            assert leaves.pop(k) == model.pop(k, None)
        assert len(leaves) == len(model)
    assert all(leaves.get(k) == model.get(k) for k in keys)


def test_listed_files_cost_a_few_slots_each_and_release_their_folders():
    """A file held from a listing costs SLOT_BYTES per slot, at most four slots (a
    shard is at most half full after it grows), measured, not only counted; a folder
    whose files are all forgotten leaves nothing behind."""
    import random
    import tracemalloc

    from gbxfs.fuse.leaves import SLOT_BYTES, Leaves
    rnd = random.Random(5)
    n, per_folder = 100_000, 500
    keys = [rnd.getrandbits(63) | 2 for _ in range(n)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        leaves = Leaves()
        for f in range(0, n, per_folder):
            assert leaves.add_many(keys[f:f + per_folder], 1000 + f) == per_folder
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(leaves) == n
    assert kept <= leaves.nbytes() + 64 * 1024
    assert leaves.nbytes() <= 4 * SLOT_BYTES * n
    assert leaves.get(keys[777]) == (1000 + 500, 1)
    for k in keys:
        assert leaves.forget(k, 1)[1] == 0
    assert len(leaves) == 0 and not leaves._folder_ids
    leaves.add(keys[0], 7)              # a freed folder number is used again
    assert leaves.get(keys[0]) == (7, 1) and len(leaves._folders) == n // per_folder


def test_listed_files_are_held_compactly_under_their_folder():
    t = InodeTable(Dir("r", children=[]), 0)
    folder_entry = Dir("d", children=[])
    folder = t.remember("d", folder_entry, 5)
    files = [BytesFile(f"f{i}", b"x") for i in range(100)]
    for f in files:
        t.remember_listed(folder, f"d/{f.name}", f, 5, path_inode(f"d/{f.name}"))
    assert len(t) == 102 and len(t._nodes) == 2 and folder.leaves == 100
    leaf = t.get(path_inode("d/f7"))
    assert (leaf.path, leaf.folder, leaf.lookups, leaf.entry) == (None, folder, 1, None)
    t.forget(folder.inode, 1)                   # the kernel forgot the folder: its files keep it
    assert t.get(folder.inode) is folder
    # a lookup of its own makes a full node, with the count it had
    full = t.remember("d/f7", files[7], 5)
    assert full.lookups == 2 and full.entry is files[7] and folder.leaves == 99
    for f in files:
        t.forget(path_inode(f"d/{f.name}"), 1)
    assert t.get(folder.inode) is None          # its last file forgotten: the folder goes too
    assert t.get(full.inode) is full and len(t) == 2


def _held(t: InodeTable) -> dict[int, tuple[int, int]]:
    """Every inode the table holds: (lookups, leaves) of nodes, (count, -1) of listed files."""
    t._flush()
    out = {n.inode: (n.lookups, n.leaves) for n in t._nodes.values()}
    out.update({k: (c, -1) for k, _, c in t._leaves.items()})
    return out


def test_listed_files_counted_later_hold_what_counting_at_once_holds():
    """add_leaves leaves a listing's files pending until a question needs them
    (InodeTable._flush): replayed with lookups, re-listings, forgets and a file
    whose path became a folder between the listing and the count, the table holds
    the same references as one flushed after every call."""
    import random
    rnd = random.Random(5)
    names = [f"f{i}" for i in range(40)]
    for seed in range(20):
        rnd.seed(seed)
        lazy, eager = (InodeTable(Dir("r", children=[]), 0) for _ in range(2))
        folder_entry = Dir("d", children=[])
        for t in (lazy, eager):
            t.remember("d", folder_entry, 5)
        entries = {n: BytesFile(n, b"x") for n in names}
        for step in range(60):
            op = rnd.random()
            picked = rnd.sample(names, rnd.randrange(1, 12))
            counts = [rnd.randrange(1, 3) for _ in picked]
            for t in (lazy, eager):
                folder = t.get(t.number("d")) or t.remember("d", folder_entry, 5)
                if op < 0.5:        # a listing's files (fuse/listing.py: those without a node)
                    keys = [path_inode(f"d/{n}") for n in picked]
                    t.add_leaves(folder, [k for k in keys if t.full(k) is None])
                elif op < 0.7:      # a lookup of one of them: a full node
                    t.remember(f"d/{picked[0]}", entries[picked[0]], 5)
                elif op < 0.75:     # the path is a folder now (a real folder changed)
                    t.remember(f"d/{picked[0]}", Dir(picked[0], children=[]), 5)
                else:               # the kernel forgets some
                    for n, c in zip(picked, counts):
                        t.forget(path_inode(f"d/{n}"), c)
                if t is eager:
                    t._flush()
            if step % 20 == 19:     # compared (so counted) now and then only: pending meanwhile
                assert _held(lazy) == _held(eager), (seed, step)
        assert len(lazy) == len(eager)


def test_pending_listed_files_are_bounded(monkeypatch):
    monkeypatch.setattr(inodes, "PENDING_MAX", 50)
    t = InodeTable(Dir("r", children=[]), 0)
    folder = t.remember("d", Dir("d", children=[]), 5)
    for _ in range(10):         # the same folder listed again and again
        t.add_leaves(folder, [path_inode(f"d/f{i}") for i in range(20)])
        assert t._pending_count <= 50
    assert len(t) == 22 and folder.leaves == 20      # len counts the pending ones first


def test_parent_of_is_the_node_of_the_parent_path():
    """parent_of (a listing's ".."): the folder a sub-folder was listed in while
    that is its path's node, else what find_path finds; None for the root."""
    t = InodeTable(Dir("root"), 1)
    a = t.remember("a", Dir("a"), 5)
    b_entry = Dir("b")
    t.remember_listed(a, "a/b", b_entry, 5, t.number("a/b"))
    b = t.get(t.number("a/b"))
    assert t.parent_of(b) is a and b.up == a.inode
    assert t.parent_of(t.root) is None and t.parent_of(a) is t.root
    # the folder forgotten and its path remembered again: a new node, found by the path
    t.forget(a.inode, 1)
    assert t.get(a.inode) is None
    again = t.remember("a", Dir("a"), 6)
    assert again is not a and t.parent_of(b) is again
    # a hint naming a node of another path is not taken
    c = t.remember("c", Dir("c"), 5)
    b.up = c.inode
    assert t.parent_of(b) is again
    t.forget(again.inode, 1)
    assert t.parent_of(b) is None
