"""The pyfuse3 handlers, called directly (no kernel): attributes, lookups,
readdir offsets, reads in worker threads, error mapping, read-only answers."""
from __future__ import annotations

import errno
import logging
import os
import stat
import struct
import threading

import pyfuse3
import pytest
import trio
import trio.testing

from gbxfs.fuse.attrs import AttrPolicy
from gbxfs.fuse.ops import Operations
from gbxfs.tree.model import BytesFile, Dir, File, RenderedFile
from gbxfs.tree.openers import Opener
from gbxfs.tree.root import build_tree

ROOT = pyfuse3.ROOT_INODE


class Gauge:
    """How many reads run at the same moment, across files."""

    def __init__(self):
        self.active = self.peak = 0
        self.changed = threading.Condition()

    def __enter__(self):
        with self.changed:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.changed.notify_all()

    def __exit__(self, *exc):
        with self.changed:
            self.active -= 1
            self.changed.notify_all()

    def wait_for_active(self, n: int) -> None:
        """Block (a worker thread of the test's) until `n` reads run at once."""
        with self.changed:
            assert self.changed.wait_for(lambda: self.active >= n, timeout=30), \
                f"only {self.active} of {n} reads ever ran at once"


class ProbeFile(File):
    """Records which threads size() and read() run on and, in its `gauge`, how
    many read at once; with a `gate`, every read waits for the gate to open."""

    def __init__(self, name, data, gauge=None, gate=None, fail=None):
        super().__init__(name)
        self.data, self.gate, self.fail = data, gate, fail
        self.gauge = Gauge() if gauge is None else gauge
        self.threads: set[str] = set()

    def _exact_size(self):
        self.threads.add(threading.current_thread().name)
        return len(self.data)

    def _read(self, offset, size):
        with self.gauge:
            self.threads.add(threading.current_thread().name)
            if self.gate is not None:
                assert self.gate.wait(timeout=30), "the gate never opened"
            if self.fail:
                raise self.fail
            return self.data[offset: offset + size]


def run(coro_fn, *args):
    return trio.run(coro_fn, *args)


async def _lookup_path(ops, path):
    inode = ROOT
    attrs = None
    for part in path.split("/"):
        attrs = await ops.lookup(inode, part.encode(), None)
        if attrs.st_ino == 0:
            raise FileNotFoundError(path)
        inode = attrs.st_ino
    return attrs


async def _errno(coro):
    with pytest.raises(pyfuse3.FUSEError) as e:
        await coro
    return e.value.errno


def _ops(tree, **kw):
    return Operations(tree, policy=AttrPolicy(uid=1234, gid=99), **kw)


def test_attributes_are_exact(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f.bin").write_bytes(b"x" * 1000)
    os.utime(tmp_path / "d" / "f.bin", ns=(7_000_000_000, 8_000_000_123))
    rendered = RenderedFile("r.txt", lambda: b"abc" * 700)
    view = lambda name, src, ctx: Dir(name, children=[rendered, Dir("sub", children=[])])
    (tmp_path / "v.pak").write_bytes(b"pak")
    os.utime(tmp_path / "v.pak", ns=(5, 6_000_000_000))
    os.chmod(tmp_path / "d" / "f.bin", 0o640)
    os.chmod(tmp_path / "v.pak", 0o604)
    os.chmod(tmp_path / "d", 0o710)
    ops = _ops(build_tree(str(tmp_path), openers=[Opener("pak", view, suffixes=(".pak",))]))

    async def main():
        f = await _lookup_path(ops, "d/f.bin")
        # modes and owners follow the source: a loose file its own, a real folder its own
        assert stat.S_ISREG(f.st_mode) and stat.S_IMODE(f.st_mode) == 0o640
        assert f.st_size == 1000 and f.st_blocks == 2 and f.st_blksize == 128 * 1024
        assert f.st_nlink == 1 and (f.st_uid, f.st_gid) == (os.getuid(), os.getgid())
        assert stat.S_IMODE((await _lookup_path(ops, "d")).st_mode) == 0o710
        assert f.st_mtime_ns == 8_000_000_123
        assert (await ops.getattr(f.st_ino, None)).st_size == 1000
        d = await _lookup_path(ops, "v.pak")
        # a file shown as a folder: the file's mode, x added where r is set
        assert stat.S_ISDIR(d.st_mode) and stat.S_IMODE(d.st_mode) == 0o705
        assert d.st_nlink == 1                      # not listed yet: "unknown", and the pak stays closed
        r = await _lookup_path(ops, "v.pak/r.txt")  # rendered before the answer: exact size
        assert r.st_size == 2100 and r.st_mtime_ns == 6_000_000_000   # inherited from the pak file
        assert stat.S_IMODE(r.st_mode) == 0o604                       # so is the mode
        assert stat.S_IMODE((await _lookup_path(ops, "v.pak/sub")).st_mode) == 0o705
        assert (await ops.getattr(d.st_ino, None)).st_nlink == 3      # now known: 2 + 1 subdir
        root = await ops.getattr(ROOT, None)
        assert stat.S_ISDIR(root.st_mode)

    run(main)


def test_negative_lookups_are_cacheable_and_dots_resolve(tmp_path):
    (tmp_path / "a").mkdir()
    ops = Operations(build_tree(str(tmp_path), openers=[]), policy=AttrPolicy(negative_timeout=42))

    async def main():
        neg = await ops.lookup(ROOT, b"missing", None)
        assert neg.st_ino == 0 and neg.entry_timeout == 42
        a = await ops.lookup(ROOT, b"a", None)
        assert (await ops.lookup(a.st_ino, b".", None)).st_ino == a.st_ino
        assert (await ops.lookup(a.st_ino, b"..", None)).st_ino == ROOT
        assert await _errno(ops.lookup(a.st_ino + 1 if a.st_ino + 1 != ROOT else 3, b"x", None)) == errno.ESTALE

    run(main)


def test_lookup_under_a_file_is_enotdir(tmp_path):
    (tmp_path / "f").write_bytes(b"1")
    ops = _ops(build_tree(str(tmp_path), openers=[]))

    async def main():
        f = await ops.lookup(ROOT, b"f", None)
        assert await _errno(ops.lookup(f.st_ino, b"x", None)) == errno.ENOTDIR
        assert await _errno(ops.opendir(f.st_ino, None)) == errno.ENOTDIR

    run(main)


def _collect(ops, fh, per_call, monkeypatch):
    """Read a whole directory the way the kernel does: buffers of `per_call`
    entries, each call resuming from the last offset handed out."""
    names, offsets = [], []

    async def main():
        start = 0
        for _ in range(100_000):  # a handler that never finishes fails instead of hanging
            got = []

            def reply(token, name, attrs, next_id):
                if len(got) == per_call:
                    return False
                got.append((name, attrs, next_id))
                return True

            monkeypatch.setattr(pyfuse3, "readdir_reply", reply)
            await ops.readdir(fh, start, None)
            if not got:
                return
            for name, attrs, next_id in got:
                names.append(name)
                offsets.append(next_id)
            start = got[-1][2]
        raise AssertionError("readdir never reached the end of the directory")

    run(main)
    return names, offsets


def test_readdir_resumes_from_the_kernels_offset_with_thousands_of_entries(tmp_path, monkeypatch):
    n = 5000
    ops = _ops(Dir("root", children=[BytesFile(f"file{i:05}", b"") for i in range(n)]))
    fh = run(ops.opendir, ROOT, None)
    names, offsets = _collect(ops, fh, 37, monkeypatch)
    assert names[:2] == [b".", b".."]
    assert names[2:] == [f"file{i:05}".encode() for i in range(n)]   # each once, in order
    assert offsets == list(range(1, n + 3))
    # every reported entry holds one kernel reference; dots hold none
    assert len(ops.inodes) == n + 1
    assert all(ops.inodes.get(run(ops.lookup, ROOT, f"file{i:05}".encode(), None).st_ino).lookups == 2
               for i in range(0, n, 499))
    assert ops.inodes.root.lookups == 0
    # a rewind (offset 0) on the same handle lists the same snapshot again
    again, _ = _collect(ops, fh, 1000, monkeypatch)
    assert again == names
    run(ops.releasedir, fh)


def test_readdir_skips_invalid_names_and_keeps_offsets_in_order(monkeypatch, caplog):
    bad = ["", ".", "..", "a/b", "x\0y", "n" * 256, "é" * 128]    # the last two: over NAME_MAX bytes
    good = ["f0", "f1", "f2", "f3"]
    ops = _ops(Dir("root", children=[BytesFile(n, b"") for n in ["f0", bad[0], "f1", *bad[1:3], "f2", *bad[3:], "f3"]]))
    fh = run(ops.opendir, ROOT, None)
    with caplog.at_level(logging.WARNING, logger="gbxfs.fuse"):
        names, offsets = _collect(ops, fh, 2, monkeypatch)
    assert names == [b".", b"..", *(n.encode() for n in good)]
    assert offsets == list(range(1, len(good) + 3))
    assert sorted(r.getMessage().rsplit(" ", 1)[1] for r in caplog.records) == sorted(map(repr, bad))
    ok = _ops(Dir("root", children=[BytesFile(n, b"") for n in good]))      # nothing to skip: no warning
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="gbxfs.fuse"):
        assert _collect(ok, run(ok.opendir, ROOT, None), 3, monkeypatch)[0][2:] == [n.encode() for n in good]
    assert not caplog.records


def test_readdir_snapshot_survives_changes_during_listing(tmp_path, monkeypatch):
    from gbxfs.tree import root as root_mod
    monkeypatch.setattr(root_mod, "RECHECK_SECONDS", 0.0)
    for i in range(100):
        (tmp_path / f"f{i:03}").write_bytes(b"")
    ops = _ops(build_tree(str(tmp_path), openers=[]))
    fh = run(ops.opendir, ROOT, None)
    seen = []

    async def first_half():
        def reply(token, name, attrs, next_id):
            if len(seen) == 50:
                return False
            seen.append((name, next_id))
            return True
        monkeypatch.setattr(pyfuse3, "readdir_reply", reply)
        await ops.readdir(fh, 0, None)

    run(first_half)
    for i in range(0, 100, 3):
        os.unlink(tmp_path / f"f{i:03}")
    (tmp_path / "aaa").write_bytes(b"")
    rest = []

    async def second_half():
        def reply(token, name, attrs, next_id):
            rest.append(name)
            return True
        monkeypatch.setattr(pyfuse3, "readdir_reply", reply)
        await ops.readdir(fh, seen[-1][1], None)

    run(second_half)
    listed = [n for n, _ in seen] + rest
    assert len(listed) == len(set(listed)) == 102       # no entry skipped or repeated


async def _held_reads(ops, fhs, gauge, gate, limit):
    """Starts a read of each handle, each held at `gate`; once `limit` of them run
    and every other task waits, checks that exactly `limit` run and the rest wait
    for the limiter, then opens the gate. Returns each read's bytes."""
    results = {}

    async def one(i, fh):
        results[i] = await ops.read(fh, 10, 20)

    async with trio.open_nursery() as n:
        for i, fh in enumerate(fhs):
            n.start_soon(one, i, fh)
        try:
            await trio.to_thread.run_sync(gauge.wait_for_active, limit)
            await trio.testing.wait_all_tasks_blocked()
            held = ops.scheduler.limiter.statistics()
            assert (gauge.active, held.borrowed_tokens, held.tasks_waiting) == \
                (limit, limit, len(fhs) - limit)
        finally:
            gate.set()
    return results


async def _open_all(ops, files):
    fhs = []
    for f in files:
        a = await ops.lookup(ROOT, f.name.encode(), None)
        fhs.append((await ops.open(a.st_ino, os.O_RDONLY, None)).fh)
    return fhs


def test_reads_run_in_worker_threads_in_parallel_within_the_limit():
    gauge, gate = Gauge(), threading.Event()
    files = [ProbeFile(f"f{i}", bytes(range(i, i + 100)), gauge, gate) for i in range(12)]
    ops = _ops(Dir("root", children=files), threads=4)

    async def main():
        return await _held_reads(ops, await _open_all(ops, files), gauge, gate, 4)

    results = run(main)
    assert results == {i: bytes(range(i + 10, i + 30)) for i in range(12)}
    main_thread = threading.main_thread().name
    assert all(f.threads and main_thread not in f.threads for f in files)
    assert gauge.peak == 4        # in parallel, never more than the limiter allows


def test_the_limiter_bounds_concurrency():
    gate = threading.Event()
    shared = ProbeFile("f", bytes(range(40)), gate=gate)
    ops = _ops(Dir("root", children=[shared]), threads=3)

    async def main():
        fh, = await _open_all(ops, [shared])
        return await _held_reads(ops, [fh] * 20, shared.gauge, gate, 3)

    assert run(main) == {i: bytes(range(10, 30)) for i in range(20)}
    assert shared.gauge.peak == 3


def test_unreadable_and_broken_files_answer_eio_and_the_rest_still_works(caplog):
    bad = BytesFile("bad.gbx", b"wrong bytes")
    bad.error = "MD5 mismatch"
    crash = ProbeFile("crash", b"data", fail=ZeroDivisionError("view bug"))
    denied = ProbeFile("denied", b"data", fail=PermissionError(errno.EACCES, "nope"))
    good = BytesFile("good", b"fine")
    ops = _ops(Dir("root", children=[bad, crash, denied, good]))

    async def main():
        async def fh(name):
            a = await ops.lookup(ROOT, name.encode(), None)
            return (await ops.open(a.st_ino, os.O_RDONLY, None)).fh

        assert await _errno(ops.read(await fh("bad.gbx"), 0, 10)) == errno.EIO
        with caplog.at_level(logging.ERROR, logger="gbxfs.fuse"):
            assert await _errno(ops.read(await fh("crash"), 0, 10)) == errno.EIO
        assert "view bug" in caplog.text
        assert await _errno(ops.read(await fh("denied"), 0, 10)) == errno.EACCES
        assert await ops.read(await fh("good"), 0, 10) == b"fine"
        a = await ops.lookup(ROOT, b"bad.gbx", None)
        assert await ops.getxattr(a.st_ino, b"user.gbxfs.error", None) == b"MD5 mismatch"

    run(main)


def test_a_broken_directory_answers_eio_not_a_crash(caplog):
    def explode():
        raise KeyError("chunk 0x03043005")

    ops = _ops(Dir("root", children=[Dir("body", load=explode), BytesFile("ok", b"1")]))

    async def main():
        a = await ops.lookup(ROOT, b"body", None)
        fh = await ops.opendir(a.st_ino, None)
        assert await _errno(ops.readdir(fh, 0, None)) == errno.EIO
        assert await _errno(ops.lookup(a.st_ino, b"x", None)) == errno.EIO
        assert (await ops.lookup(ROOT, b"ok", None)).st_size == 1

    run(main)
    assert "chunk 0x03043005" in caplog.text


def test_writes_are_refused_with_erofs():
    ops = _ops(Dir("root", children=[BytesFile("f", b"1")]))

    async def main():
        a = await ops.lookup(ROOT, b"f", None)
        for flags in (os.O_WRONLY, os.O_RDWR, os.O_WRONLY | os.O_APPEND):
            assert await _errno(ops.open(a.st_ino, flags, None)) == errno.EROFS
        calls = [
            ops.setattr(a.st_ino, None, None, None, None),
            ops.mknod(ROOT, b"n", 0o644, 0, None),
            ops.mkdir(ROOT, b"d", 0o755, None),
            ops.unlink(ROOT, b"f", None),
            ops.rmdir(ROOT, b"f", None),
            ops.symlink(ROOT, b"s", b"f", None),
            ops.rename(ROOT, b"f", ROOT, b"g", 0, None),
            ops.link(a.st_ino, ROOT, b"h", None),
            ops.create(ROOT, b"c", 0o644, os.O_WRONLY, None),
            ops.write(1, 0, b"x"),
            ops.setxattr(a.st_ino, b"user.x", b"1", None),
            ops.removexattr(a.st_ino, b"user.x", None),
        ]
        for call in calls:
            assert await _errno(call) == errno.EROFS
        assert await ops.access(a.st_ino, os.R_OK, None) is True
        assert await ops.access(a.st_ino, os.W_OK, None) is False

    run(main)


def test_xattrs(tmp_path):
    opened = []

    def view(name, src, ctx):
        opened.append(name)
        return Dir(name, children=[BytesFile("h.txt", b"", xattrs={"user.gbx.chunk_id": b"03043002"})],
                   xattrs={"user.gbx.class_id": b"03043000"})

    (tmp_path / "M.Map.Gbx").write_bytes(b"GBX")
    ops = _ops(build_tree(str(tmp_path), openers=[Opener("gbx", view, suffixes=(".gbx",))]))

    async def main():
        d = await ops.lookup(ROOT, b"M.Map.Gbx", None)
        # what ls -l asks for on every entry must not open the view
        assert await _errno(ops.getxattr(d.st_ino, b"security.selinux", None)) == pyfuse3.ENOATTR
        assert opened == []
        assert await ops.listxattr(d.st_ino, None) == [b"user.gbx.class_id"]
        assert await ops.getxattr(d.st_ino, b"user.gbx.class_id", None) == b"03043000"
        h = await ops.lookup(d.st_ino, b"h.txt", None)
        assert await ops.getxattr(h.st_ino, b"user.gbx.chunk_id", None) == b"03043002"
        assert await _errno(ops.getxattr(h.st_ino, b"user.gbx.offset", None)) == errno.ENODATA

    run(main)
    assert opened == ["M.Map.Gbx"]


class _Tagged(Dir):
    """A folder whose listing sets its attributes, as a GBX file inside a pak does."""

    def _list(self):
        kids = super()._list()
        self.xattrs["user.gbx.class_id"] = b"03043000"
        return kids


def test_a_folder_never_listed_is_listed_for_its_user_xattrs():
    inner = _Tagged("M.Map.Gbx", load=lambda: [BytesFile("h.txt", b"")])
    ops = _ops(Dir("root", children=[Dir("pak", children=[inner])]))

    async def main():
        d = await _lookup_path(ops, "pak/M.Map.Gbx")
        assert await _errno(ops.getxattr(d.st_ino, b"security.selinux", None)) == pyfuse3.ENOATTR
        assert inner.peek() is None         # ls -l's questions list nothing
        assert await ops.getxattr(d.st_ino, b"user.gbx.class_id", None) == b"03043000"

    run(main)


def test_forget_releases_inodes(tmp_path):
    (tmp_path / "f").write_bytes(b"1")
    ops = _ops(build_tree(str(tmp_path), openers=[]))

    async def main():
        a = await ops.lookup(ROOT, b"f", None)
        await ops.lookup(ROOT, b"f", None)
        await ops.forget([(a.st_ino, 2)])
        assert ops.inodes.get(a.st_ino) is None
        assert await _errno(ops.getattr(a.st_ino, None)) == errno.ESTALE
        b = await ops.lookup(ROOT, b"f", None)      # looked up again: same number
        assert b.st_ino == a.st_ino
        await ops.forget([(999, 1), ("garbage", None)])   # never raises

    run(main)


def test_statfs_reports_the_source_size_and_nothing_free(tmp_path):
    ops = Operations(build_tree(str(tmp_path), openers=[]), statfs_path=str(tmp_path))
    s = run(ops.statfs, None)
    real = os.statvfs(tmp_path)
    assert s.f_blocks == real.f_blocks * real.f_frsize // 512
    assert s.f_bfree == s.f_bavail == 0 and s.f_namemax == 255


async def _listed_modes(ops, paths, monkeypatch) -> dict[str, int]:
    """path -> mode of every entry readdirplus lists in the folders `paths`."""
    modes = {}
    for path in paths:
        inode = ROOT if not path else (await _lookup_path(ops, path)).st_ino
        fh = await ops.opendir(inode, None)
        got = []
        monkeypatch.setattr(pyfuse3, "readdir_reply", lambda t, n, a, i: got.append((n, a)) or True)
        await ops.readdir(fh, 0, None)
        modes.update({f"{path}/{n.decode()}".lstrip("/"): stat.S_IMODE(a.st_mode) for n, a in got
                      if n not in (b".", b"..")})
    return modes


def test_listing_attributes_follow_the_source_modes(tmp_path, monkeypatch):
    (tmp_path / "secret.txt").write_bytes(b"s")
    os.chmod(tmp_path / "secret.txt", 0o600)
    (tmp_path / "x.pak").write_bytes(b"pak")
    os.chmod(tmp_path / "x.pak", 0o640)
    view = lambda name, src, ctx: Dir(name, children=[Dir("inner", children=[BytesFile("f", b"1")])])
    ops = _ops(build_tree(str(tmp_path), openers=[Opener("pak", view, suffixes=(".pak",))]))

    async def main():
        return await _listed_modes(ops, ("", "x.pak", "x.pak/inner"), monkeypatch)

    modes = run(main)
    assert modes == {"secret.txt": 0o600, "x.pak": 0o750, "x.pak/inner": 0o750, "x.pak/inner/f": 0o640}


def test_files_made_from_an_executable_source_are_not_executable(tmp_path, monkeypatch):
    # a pak of mode 0755: its folders 0755, its files (a GBX folder's parts, the
    # indexes...) the pak's read and write bits alone; a real script keeps its x
    (tmp_path / "run.sh").write_bytes(b"#!/bin/sh\n")
    (tmp_path / "x.pak").write_bytes(b"pak")
    os.chmod(tmp_path / "run.sh", 0o755)
    os.chmod(tmp_path / "x.pak", 0o755)
    view = lambda name, src, ctx: Dir(name, children=[Dir("inner", children=[BytesFile("f", b"1")]),
                                                      BytesFile("maps.csv", b"file\n")])
    ops = _ops(build_tree(str(tmp_path), openers=[Opener("pak", view, suffixes=(".pak",))]))
    listed = {}

    async def main():
        listed.update(await _listed_modes(ops, ("", "x.pak", "x.pak/inner"), monkeypatch))
        return {p: stat.S_IMODE((await _lookup_path(ops, p)).st_mode) for p in listed}

    looked = run(main)
    want = {"run.sh": 0o755, "x.pak": 0o755, "x.pak/inner": 0o755, "x.pak/inner/f": 0o644, "x.pak/maps.csv": 0o644}
    assert listed == looked == want


ANY = 0xFFFFFFFF


def test_an_acl_gives_no_x_to_files_made_from_its_file(tmp_path):
    from gbxfs.tree.acl import ACL_XATTR
    from gbxfs.tree.source import FileSource
    # owner rwx, user 4242 rwx, group r-x, mask rwx, other r-x
    value = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, perm, ident) for tag, perm, ident in (
        (0x01, 7, ANY), (0x02, 7, 4242), (0x04, 5, ANY), (0x10, 7, ANY), (0x20, 5, ANY)))
    (tmp_path / "x.pak").write_bytes(b"pak")
    try:
        os.setxattr(tmp_path / "x.pak", ACL_XATTR, value)
    except OSError as e:
        pytest.skip(f"no POSIX ACLs here: {e}")
    assert FileSource(str(tmp_path / "x.pak")).access[3] == value
    view = lambda name, src, ctx: Dir(name, children=[BytesFile("f", b"1")])
    ops = _ops(build_tree(str(tmp_path), openers=[Opener("pak", view, suffixes=(".pak",))]))

    async def main():
        d = await _lookup_path(ops, "x.pak")
        f = await _lookup_path(ops, "x.pak/f")
        return (await ops.getxattr(d.st_ino, ACL_XATTR.encode(), None),
                await ops.getxattr(f.st_ino, ACL_XATTR.encode(), None), f.st_mode)

    folder, file, mode = run(main)
    perms = lambda v: [int.from_bytes(v[at + 2:at + 4], "little") for at in range(4, len(v), 8)]
    assert perms(folder) == [7, 7, 5, 7, 5]
    assert perms(file) == [6, 6, 4, 6, 4] and stat.S_IMODE(mode) & 0o111 == 0
