"""A missing mount point is made for the mount and removed again once it is
unmounted (as ratarmount does); a folder that was there before stays. And
`gbxfs mount -f` prints one ready line once the mount answers."""
from __future__ import annotations

import os
import subprocess

import pytest

from mountkit import GBXFS, TIMEOUT, gbxfs, wait_until
from gbxfs.cli.mount import ready_line
from gbxfs.fuse.mountinfo import find_mount

pytestmark = pytest.mark.mount


@pytest.fixture
def source(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "hello.txt").write_text("hello\n")
    return src


def test_a_missing_mount_point_is_made_and_removed_on_unmount(mounter, source, tmp_path):
    mp = str(tmp_path / "made")
    mounter.mount(source, mountpoint=mp)
    assert os.listdir(mp) == ["hello.txt"]
    assert gbxfs("umount", mp).returncode == 0
    # the server removes it once it has left the mount
    wait_until(lambda: not os.path.lexists(mp), what="the mount point to go")


def test_an_existing_mount_point_stays_after_unmount(mounter, source):
    mp = mounter.mount(source)
    assert gbxfs("umount", mp).returncode == 0
    wait_until(lambda: find_mount(mp) is None, what="the unmount")
    assert os.path.isdir(mp) and os.listdir(mp) == []


def test_foreground_prints_one_ready_line_and_removes_what_it_made(mounter, source, tmp_path):
    mp = str(tmp_path / "fg")
    mounter.mountpoints.append(mp)
    proc = subprocess.Popen([*GBXFS, "mount", str(source), mp, "-f"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    mounter.procs.append(proc)
    line = proc.stdout.readline()
    assert line == ready_line(str(source), mp) + "\n"
    assert os.listdir(mp) == ["hello.txt"]          # ready means usable
    proc.terminate()
    assert proc.wait(timeout=TIMEOUT) == 0
    assert proc.stdout.read() == ""                 # one line only
    assert not os.path.lexists(mp)
