"""Real-file byte sources: bounded descriptors, cached reads without waiting,
and refusal of files changed since they were listed."""
from __future__ import annotations

import errno
import gc
import os
import random

import pytest

from gbxfs.tree import source as source_mod
from gbxfs.tree.source import FileSource


def test_nowait_reads_need_an_open_file_and_give_exact_bytes(tmp_path):
    path = tmp_path / "f.bin"
    data = random.Random(31).randbytes(300_000)
    path.write_bytes(data)
    src = FileSource(str(path), files=source_mod.OpenFiles())
    if source_mod._NOWAIT is None:
        assert src.read_at_nowait(0, 10) is None
        pytest.skip("no RWF_NOWAIT on this platform")
    assert src.read_at_nowait(0, 10) is None          # not open yet: a worker opens it
    assert src.read_at(0, 10) == data[:10]            # (and the file is in the page cache now)
    got = src.read_at_nowait(1000, 131072)
    if got is None:
        pytest.skip(f"{tmp_path} does not support RWF_NOWAIT reads")
    assert got == data[1000:1000 + 131072]
    assert src.read_at_nowait(299_990, 100) == data[299_990:]
    assert src.read_at_nowait(300_000, 10) == b""


def test_a_file_replaced_since_listing_is_refused(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"first version")
    src = FileSource(str(path))
    path.unlink()
    path.write_bytes(b"a different, longer version")
    with pytest.raises(OSError) as e:
        src.read_at(0, 100)
    assert e.value.errno == errno.EIO
    assert FileSource(str(path)).read_at(0, 100) == b"a different, longer version"


def test_descriptors_in_use_are_not_closed(tmp_path, monkeypatch):
    pool = source_mod.OpenFiles(limit=1)
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"A" * 10)
    b.write_bytes(b"B" * 10)
    sa, sb = FileSource(str(a), files=pool), FileSource(str(b), files=pool)
    fd = pool.acquire(sa)                 # a read of `a` in progress
    assert sb.read_at(0, 3) == b"BBB"     # opening b exceeds the limit, but a stays open
    assert os.pread(fd, 3, 0) == b"AAA"
    pool.release(sa)
    assert sb.read_at(0, 1) == b"B"
    assert pool.open_count() <= 2


def test_a_slow_open_does_not_hold_up_reads_of_open_files(tmp_path, monkeypatch):
    # the FUSE loop answers cached reads itself (acquire without opening); a
    # worker stuck opening another file must not make it wait on the pool's lock
    import threading

    pool = source_mod.OpenFiles()
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"A" * 10)
    b.write_bytes(b"B" * 10)
    sa, sb = FileSource(str(a), files=pool), FileSource(str(b), files=pool)
    assert sa.read_at(0, 1) == b"A"       # a is open
    entered, release = threading.Event(), threading.Event()
    real_open = os.open

    def slow_open(path, *args):
        if path == str(b):
            entered.set()
            release.wait(10)
        return real_open(path, *args)

    monkeypatch.setattr(source_mod.os, "open", slow_open)
    worker = threading.Thread(target=sb.read_at, args=(0, 1))
    worker.start()
    try:
        assert entered.wait(10)
        got: list = []
        probe = threading.Thread(target=lambda: got.append(pool.acquire(sa, may_open=False)))
        probe.start()
        probe.join(5)
        assert got and got[0] is not None   # answered while b's open is still stuck
        pool.release(sa)
    finally:
        release.set()
        worker.join(10)


def test_a_source_without_a_pool_keeps_no_descriptor(tmp_path):
    p = tmp_path / "a"
    p.write_bytes(b"A" * 10)
    gc.collect()        # earlier tests' garbage may hold descriptors: closed now, not during the count
    before = len(os.listdir("/proc/self/fd"))
    src = FileSource(str(p))
    assert src.read_at(2, 3) == b"AAA"
    assert len(os.listdir("/proc/self/fd")) <= before
    assert src.read_at_nowait(0, 1) is None      # nothing open to answer from


def test_each_tree_has_its_own_pool(tmp_path):
    from gbxfs.tree.context import TreeContext
    a, b = TreeContext(), TreeContext()
    assert a.open_files is not b.open_files


def test_trees_dropped_leave_no_descriptor_open(tmp_path):
    # each tree has its own pool (TreeContext.open_files): a command or a test that
    # builds many trees must not keep their descriptors
    from gbxfs.tree.root import build_tree
    from gbxfs.tree.walk import resolve
    for i in range(3):
        (tmp_path / f"f{i}").write_bytes(b"x" * 10)
    gc.collect()        # earlier tests' garbage may hold descriptors: closed now, not during the count
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        tree = build_tree(str(tmp_path), openers=[])
        for i in range(3):
            assert resolve(tree, f"f{i}").read(0, 3) == b"xxx"
        del tree
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) <= before
