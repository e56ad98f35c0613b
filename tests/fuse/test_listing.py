"""readdirplus of pak folders (fuse/listing.py, tree/pak/files.py): a listing
makes no file record or PakEntry per file, its short way gives the attributes a
lookup gives, `ls -l`'s security.* questions make nothing, and a file whose
table fields are wrong still shows in error.txt at the first listing."""
from __future__ import annotations

import os
import random
import stat

import pyfuse3
import trio

from gbxfs.fuse.attrs import AttrPolicy
from gbxfs.fuse.ops import Operations
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.pak.files import PakEntryFile
from gbxfs.tree.root import build_tree

ROOT = pyfuse3.ROOT_INODE


def _ops(folder) -> tuple[Operations, TreeContext]:
    ctx = TreeContext(gbx_mode="file")
    ctx.cache = ByteLRU(64 << 20)
    return Operations(build_tree(str(folder), ctx), policy=AttrPolicy(uid=7, gid=8)), ctx


def _files(n: int, seed: int) -> list[PakFile]:
    rnd = random.Random(seed)
    return [PakFile(f"Data/Sub/f{i:03d}.bin", rnd.randbytes(rnd.randrange(0, 3000))) for i in range(n)]


async def _walk(ops: Operations, path: str) -> int:
    inode = ROOT
    for part in path.split("/"):
        inode = (await ops.lookup(inode, part.encode(), None)).st_ino
    return inode


async def _list(ops: Operations, inode: int, monkeypatch) -> list[tuple[bytes, dict]]:
    """The folder's readdirplus entries, their attributes copied as the kernel does."""
    got = []

    def reply(token, name, attrs, offset):
        got.append((name, {k: getattr(attrs, k) for k in ("st_ino", "st_size", "st_mode", "st_uid", "st_gid",
                                                           "st_mtime_ns", "st_blocks", "st_nlink")}))
        return True
    monkeypatch.setattr(pyfuse3, "readdir_reply", reply)
    fh = await ops.opendir(inode, None)
    await ops.readdir(fh, 0, None)
    await ops.releasedir(fh)
    return got[2:]


def test_a_listing_makes_no_entry_per_file_and_ls_l_makes_none(tmp_path, monkeypatch):
    files = _files(300, seed=3)
    write_packs(tmp_path / "p", {"X": files})
    ops, _ = _ops(tmp_path / "p")

    async def main():
        sub = await _walk(ops, "X.pak/Data/Sub")
        listed = await _list(ops, sub, monkeypatch)
        folder = ops.inodes.get(sub).entry
        kids = folder.peek()
        assert sorted(n.decode() for n, _ in listed) == sorted(kids) and len(kids) == 300
        assert all(isinstance(e, PakEntryFile) and e.made is None for e in kids.values())
        for _, a in listed:      # ls -l: a stat and a security.* question per file
            assert (await ops.getattr(a["st_ino"], None)).st_size == a["st_size"]
            try:
                await ops.getxattr(a["st_ino"], b"security.selinux", None)
            except pyfuse3.FUSEError as e:
                assert e.errno == pyfuse3.ENOATTR
            else:
                raise AssertionError("security.selinux answered")
        assert all(e.made is None for e in kids.values())
        name, a = listed[17]
        index = await ops.getxattr(a["st_ino"], b"user.pak.index", None)
        assert int(index) == [f.path.rsplit("/", 1)[1] for f in files].index(name.decode())
        assert kids[name.decode()].made is not None
    trio.run(main)


def test_listed_attributes_are_what_a_lookup_answers(tmp_path, monkeypatch):
    files = _files(120, seed=4)
    write_packs(tmp_path / "p", {"X": files})
    ops, _ = _ops(tmp_path / "p")
    sizes = {f.path.rsplit("/", 1)[1]: len(f.data) for f in files}

    async def main():
        sub = await _walk(ops, "X.pak/Data/Sub")
        listed = await _list(ops, sub, monkeypatch)
        for name, a in listed:
            looked = await ops.lookup(sub, name, None)
            assert a == {k: getattr(looked, k) for k in a}
            assert a["st_size"] == sizes[name.decode()]
    trio.run(main)


def test_a_file_with_wrong_table_fields_shows_in_error_txt_at_once(tmp_path):
    files = _files(20, seed=5) + [PakFile("Data/Sub/last.bin", bytes(range(256)) * 40, compress=False)]
    paths = write_packs(tmp_path / "p", {"X": files})
    pak = paths["X"]
    os.truncate(pak, os.path.getsize(pak) - 2000)      # the last entry's data now ends past the end
    ops, _ = _ops(tmp_path / "p")

    async def main():
        sub = await _walk(ops, "X.pak/Data/Sub")
        kids = ops.inodes.get(sub).entry.children()
        assert "error.txt" in kids
        text = kids["error.txt"].read(0, 1 << 16).decode()
        assert "last.bin: pak truncated" in text
        assert kids["last.bin"].error.startswith("pak truncated")
        assert kids["f000.bin"].made is None
    trio.run(main)


def test_files_of_paks_listed_in_turn_get_their_own_pak_s_time_and_owner(tmp_path, monkeypatch):
    """The short way's attributes are shared between folders only where mtime,
    owner and policy are the same: listing another pak's folder in between changes them."""
    write_packs(tmp_path / "p", {"A": _files(30, seed=6), "B": _files(30, seed=7)})
    os.utime(tmp_path / "p" / "A.pak", ns=(10**18, 10**18))
    os.utime(tmp_path / "p" / "B.pak", ns=(2 * 10**18, 2 * 10**18))
    os.chmod(tmp_path / "p" / "B.pak", 0o600)
    ops, _ = _ops(tmp_path / "p")

    async def main():
        got = {}
        for pak in ("A", "B", "A"):
            sub = await _walk(ops, f"{pak}.pak/Data/Sub")
            got.setdefault(pak, []).append(await _list(ops, sub, monkeypatch))
        return got
    got = trio.run(main)
    assert got["A"][0] == got["A"][1]
    shown = set()
    for pak in ("A", "B"):
        st = os.stat(tmp_path / "p" / f"{pak}.pak")     # a pak's files show its mtime and access
        listed = got[pak][0]
        assert len(listed) == 30 and len({a["st_ino"] for _, a in listed}) == 30
        owner = {(a["st_mtime_ns"], a["st_mode"] & 0o777, a["st_uid"], a["st_gid"]) for _, a in listed}
        assert owner == {(st.st_mtime_ns, st.st_mode & 0o777, st.st_uid, st.st_gid)}
        shown |= owner
    assert len(shown) == 2


def test_a_folder_listed_in_a_worker_thread_gets_its_sizes_in_the_same_visit(tmp_path, monkeypatch):
    """A pak's root is listed in a worker thread (its table is read), and its
    .pak-info.txt needs rendering for its size: one visit does both."""
    write_packs(tmp_path / "p", {"X": _files(10, seed=8)})
    ops, _ = _ops(tmp_path / "p")
    visits = []
    work = ops.scheduler.work

    async def counted(fn, *args):
        visits.append(getattr(fn, "__name__", fn))
        return await work(fn, *args)
    monkeypatch.setattr(ops.scheduler, "work", counted)

    async def main():
        pak = await _walk(ops, "X.pak")
        visits.clear()
        listed = dict(await _list(ops, pak, monkeypatch))
        info = await ops.lookup(pak, b".pak-info.txt", None)
        return listed, info
    listed, info = trio.run(main)
    assert visits == ["listed_with_sizes"]
    assert listed[b".pak-info.txt"]["st_size"] == info.st_size > 0


def test_listed_folders_get_the_attributes_a_lookup_answers(tmp_path, monkeypatch):
    """Folders not listed yet share their attributes but for the inode number,
    per pak (time, access); a folder listed before counts its subfolders."""
    def tree(seed):
        return [PakFile(f"Data/{d}/{s}/f{i}.bin", bytes([seed, i])) for d in ("a", "b", "c")
                for s in ("x", "y") for i in range(2)]
    write_packs(tmp_path / "p", {"A": tree(1), "B": tree(2)})
    os.utime(tmp_path / "p" / "A.pak", ns=(10**18, 10**18))
    os.chmod(tmp_path / "p" / "B.pak", 0o640)
    ops, _ = _ops(tmp_path / "p")

    async def main():
        got = []
        for pak in ("A", "B"):
            data = await _walk(ops, f"{pak}.pak/Data")
            await _list(ops, await _walk(ops, f"{pak}.pak/Data/b"), monkeypatch)   # listed: nlink 4
            listed = await _list(ops, data, monkeypatch)
            for name, a in listed:
                looked = await ops.lookup(data, name, None)
                assert a == {k: getattr(looked, k) for k in a}, (pak, name)
                assert stat.S_ISDIR(a["st_mode"])
            got.append(listed)
        return got
    got = trio.run(main)
    for listed in got:
        assert [(n, a["st_nlink"]) for n, a in listed] == [(b"a", 1), (b"b", 4), (b"c", 1)]
        assert len({a["st_ino"] for _, a in listed}) == 3
    assert {a["st_mtime_ns"] for _, a in got[0]} == {10**18}
    assert {a["st_mode"] & 0o777 for _, a in got[1]} == {0o750}     # x added where r is set


def test_dots_carry_their_folders_numbers_and_type(tmp_path, monkeypatch):
    """"." and ".." of a readdirplus: the folder's and its parent's inode numbers,
    as folders (the kernel keeps nothing else of them)."""
    write_packs(tmp_path / "p", {"X": _files(5, seed=9)})
    ops, _ = _ops(tmp_path / "p")
    got = []

    def reply(token, name, attrs, offset):
        got.append((name, attrs.st_ino, stat.S_ISDIR(attrs.st_mode)))
        return True
    monkeypatch.setattr(pyfuse3, "readdir_reply", reply)

    async def main():
        pak = await _walk(ops, "X.pak")
        data = await _walk(ops, "X.pak/Data")
        sub = await _walk(ops, "X.pak/Data/Sub")
        for inode, parent in ((sub, data), (data, pak), (sub, data)):
            got.clear()
            fh = await ops.opendir(inode, None)
            await ops.readdir(fh, 0, None)
            await ops.releasedir(fh)
            assert got[:2] == [(b".", inode, True), (b"..", parent, True)]
            await ops.getattr(inode, None)      # listed: its attributes are kept from now on
            assert ops.inodes.get(inode).attrs is not None
    trio.run(main)


def test_a_listed_pak_folders_link_count_makes_none_of_its_files(tmp_path, monkeypatch):
    """A second walk shows a listed folder's link count (2 + its sub-folders):
    counted from its rows, whose files' entries stay unmade."""
    write_packs(tmp_path / "p", {"A": [PakFile(f"Data/b/{s}/f.bin", b"1") for s in ("x", "y")]
                                 + [PakFile(f"Data/b/f{i}.bin", bytes([i])) for i in range(5)]})
    ops, _ = _ops(tmp_path / "p")

    async def main():
        data = await _walk(ops, "A.pak/Data")
        b = await _walk(ops, "A.pak/Data/b")
        await _list(ops, b, monkeypatch)
        return await _list(ops, data, monkeypatch), ops.inodes.get(b).entry.peek()

    listed, rows = trio.run(main)
    assert [(n, a["st_nlink"]) for n, a in listed] == [(b"b", 4)]
    assert len(rows) == 7 and sorted(e.name for e in rows.made()) == ["x", "y"]
