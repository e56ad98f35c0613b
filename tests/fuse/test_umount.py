"""gbxfs umount touches only gbxfs mounts, refuses busy ones without -z,
removes one layer at a time; mounting over a live mount needs -o nonempty."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mountkit import TIMEOUT, force_unmount, gbxfs, server_pids, wait_until
from gbxfs.cli.umount import refusal
from gbxfs.fuse.mountinfo import MountRecord, find_mount, is_ours, mounts_at

pytestmark = pytest.mark.mount


@pytest.fixture
def source(tmp_path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "hello.txt").write_bytes(b"hello\n")
    return src


def _rec(mp, fstype, mid, parent, source="gbxfs[1]:x"):
    return MountRecord(mp, fstype, source, "rw", mid, parent)


def test_refusal_decides_on_the_top_layer():
    ours = lambda rec: rec.is_gbxfs      # a stand-in for is_ours: every claim believed
    assert refusal("/proc", [_rec("/proc", "proc", 22, 27)], ours) is not None
    assert "not a gbxfs mount" in refusal("/proc", [_rec("/proc", "proc", 22, 27)], ours)
    assert "not mounted" in refusal("/x", [], ours)
    assert refusal("/m", [_rec("/m", "fuse.gbxfs", 40, 27)], ours) is None
    # a tmpfs on top of a gbxfs mount: the top is what would be unmounted
    assert refusal("/m", [_rec("/m", "fuse.gbxfs", 40, 27), _rec("/m", "tmpfs", 41, 40)], ours) is not None
    assert refusal("/m", [_rec("/m", "tmpfs", 40, 27), _rec("/m", "fuse.gbxfs", 41, 40)], ours) is None
    assert refusal("/m", [_rec("/m", "fuse.sshfs", 40, 27)], ours) is not None


def test_the_type_name_alone_is_not_a_gbxfs_mount():
    # any FUSE server may mount with subtype=gbxfs: without a "gbxfs[PID]" name it is not ours
    assert not _rec("/m", "fuse.gbxfs", 40, 27, source="/srv/Packs").is_gbxfs
    assert not is_ours(_rec("/m", "fuse.gbxfs", 40, 27, source="/srv/Packs"))
    assert "not a gbxfs mount" in refusal("/m", [_rec("/m", "fuse.gbxfs", 40, 27, source="/srv/Packs")])


@contextlib.contextmanager
def _foreign_mount(mp: str, *options: str):
    """A FUSE file system that is not gbxfs, mounted at mp with `options`."""
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("foreign_fs.py")), mp, *options],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: find_mount(mp) is not None or proc.poll() is not None, what="the foreign mount")
        assert proc.poll() is None, proc.stderr.read().decode()
        yield
    finally:
        force_unmount(mp)
        proc.kill()
        proc.wait(timeout=TIMEOUT)
        proc.stderr.close()


def test_umount_refuses_a_foreign_fuse_mount_that_calls_itself_gbxfs(mounter, source, tmp_path):
    live = mounter.mount(source)
    (pid,) = server_pids(live)
    # a plain name; one naming a live gbxfs server (of another mount); one naming no process
    for name in (str(source), f"gbxfs[{pid}]:{source}", "gbxfs[4194304]:x"):
        mp = tmp_path / f"foreign{len(name)}"
        mp.mkdir()
        with _foreign_mount(str(mp), "subtype=gbxfs", f"fsname={name}"):
            assert find_mount(str(mp)).fstype == "fuse.gbxfs"
            res = gbxfs("umount", str(mp))
            assert res.returncode == 3 and "not a gbxfs mount" in res.stderr, (name, res.stderr)
            res = gbxfs("umount", "-z", str(mp))
            assert res.returncode == 3 and find_mount(str(mp)).source == name
    assert gbxfs("umount", live).returncode == 0 and find_mount(live) is None


def test_mount_refuses_another_type_name(mounter, source):
    mp = mounter.new_mountpoint()
    res = gbxfs(str(source), mp, "-o", "subtype=x")
    assert res.returncode == 2 and "subtype" in res.stderr and find_mount(mp) is None


def test_mounts_at_orders_a_stack_by_parent(tmp_path):
    mp = str(tmp_path)
    recs = [_rec(mp, "fuse.gbxfs", 90, 80), _rec(mp, "tmpfs", 80, 27), _rec("/other", "tmpfs", 27, 1)]
    assert [r.mount_id for r in mounts_at(mp, recs)] == [80, 90]


def test_umount_refuses_a_tmpfs(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mp = tmp_path / "t"
    mp.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(mp)], check=True, timeout=TIMEOUT)
    try:
        res = gbxfs("umount", str(mp))
        assert res.returncode == 3, res.stderr
        assert "not a gbxfs mount" in res.stderr and "tmpfs" in res.stderr
        assert find_mount(str(mp)).fstype == "tmpfs"
        res = gbxfs("umount", "-z", str(mp))       # not even lazily
        assert res.returncode == 3 and find_mount(str(mp)).fstype == "tmpfs"
    finally:
        subprocess.run(["umount", str(mp)], timeout=TIMEOUT)


def test_umount_of_a_non_mount_folder(tmp_path):
    res = gbxfs("umount", str(tmp_path))
    assert res.returncode == 3 and "not mounted" in res.stderr
    res = gbxfs("umount", str(tmp_path / "missing"))
    assert res.returncode == 3 and "not mounted" in res.stderr


def test_umount_refuses_a_busy_mount_unless_lazy(mounter, source):
    mp = mounter.mount(source)
    busy = os.open(os.path.join(mp, "hello.txt"), os.O_RDONLY)
    try:
        res = gbxfs("umount", mp)
        assert res.returncode == 5, res.stderr
        assert "busy" in res.stderr and "-z" in res.stderr
        assert find_mount(mp) is not None and os.read(busy, 5) == b"hello"   # untouched
        res = gbxfs("umount", "--lazy", mp)
        assert res.returncode == 0, res.stderr
        assert find_mount(mp) is None
    finally:
        os.close(busy)
    wait_until(lambda: not server_pids(mp), what="the server to exit")


def test_mounting_over_a_live_mount_needs_consent(mounter, source, tmp_path):
    mp = mounter.mount(source)
    other = tmp_path / "other"
    other.mkdir()
    (other / "second.txt").write_text("2")
    res = gbxfs(str(other), mp)
    assert res.returncode == 5 and "already a mount point" in res.stderr and "nonempty" in res.stderr
    assert len(mounts_at(mp)) == 1 and os.listdir(mp) == ["hello.txt"]


def test_stacked_mounts_come_off_one_layer_at_a_time(mounter, source, tmp_path):
    mp = mounter.mount(source)
    other = tmp_path / "other"
    other.mkdir()
    (other / "second.txt").write_text("2")
    mounter.mount(other, "nonempty", mountpoint=mp)
    assert len(mounts_at(mp)) == 2 and os.listdir(mp) == ["second.txt"]
    assert gbxfs("umount", mp).returncode == 0
    assert len(mounts_at(mp)) == 1 and os.listdir(mp) == ["hello.txt"]
    assert gbxfs("umount", mp).returncode == 0
    assert mounts_at(mp) == []
    assert gbxfs("umount", mp).returncode == 3
