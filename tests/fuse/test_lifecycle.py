"""Mounting and unmounting for real: readiness, signals, dead mounts, fstab
syntax through mount(8) and mount.fuse3, systemd readiness notification."""
from __future__ import annotations

import errno
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mountkit import GBXFS, TIMEOUT, gbxfs, server_pids, wait_until
from gbxfs.fuse.mountinfo import find_mount

pytestmark = pytest.mark.mount


@pytest.fixture
def source(tmp_path) -> Path:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "hello.txt").write_bytes(b"hello\n")
    (src / "sub" / "A.Challenge.Gbx").write_bytes(b"GBX not really")
    return src


def test_mount_returns_when_usable_and_umount_stops_the_server(mounter, source):
    mp = mounter.mount(source)
    assert open(os.path.join(mp, "hello.txt"), "rb").read() == b"hello\n"   # at once, no waiting
    rec = find_mount(mp)
    pids = server_pids(mp)
    assert len(pids) == 1
    assert rec.fstype == "fuse.gbxfs" and rec.source == f"gbxfs[{pids[0]}]:{source}"   # the server, named
    assert "ro" in rec.options.split(",")
    res = gbxfs("umount", mp)
    assert res.returncode == 0, res.stderr
    assert find_mount(mp) is None
    wait_until(lambda: not server_pids(mp), what="the server to exit")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_unmount_cleanly(mounter, source, sig):
    mp, proc = mounter.foreground(source)
    assert os.listdir(mp) == ["hello.txt", "sub"]
    proc.send_signal(sig)
    assert proc.wait(timeout=TIMEOUT) == 0, proc.stderr.read().decode()
    assert find_mount(mp) is None


def test_sigterm_to_the_background_server_unmounts(mounter, source):
    mp = mounter.mount(source)
    [pid] = server_pids(mp)
    os.kill(pid, signal.SIGTERM)
    wait_until(lambda: find_mount(mp) is None, what="the unmount")
    wait_until(lambda: not server_pids(mp), what="the server to exit")


def test_signal_while_a_file_is_open_still_unmounts(mounter, source):
    mp, proc = mounter.foreground(source)
    busy = os.open(os.path.join(mp, "hello.txt"), os.O_RDONLY)
    try:
        assert os.read(busy, 2) == b"he"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=TIMEOUT) == 0
        assert find_mount(mp) is None      # detached at once, even though busy
    finally:
        try:
            os.close(busy)
        except OSError as e:               # its server is gone: the close cannot be flushed
            assert e.errno == errno.ENOTCONN


def test_umount_clears_a_dead_mount(mounter, source):
    mp, proc = mounter.foreground(source)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    with pytest.raises(OSError) as e:
        os.listdir(mp)            # (a stat could be answered from the kernel's attribute cache)
    assert e.value.errno == errno.ENOTCONN
    res = gbxfs("umount", mp)
    assert res.returncode == 0, res.stderr
    assert find_mount(mp) is None
    assert os.listdir(mp) == []


def test_umount_of_something_not_mounted(tmp_path):
    res = gbxfs("umount", str(tmp_path))
    assert res.returncode == 3 and "not mounted" in res.stderr


def test_foreground_sends_ready_to_systemd_once_usable(mounter, source, tmp_path):
    sock_path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(sock_path)
        sock.settimeout(TIMEOUT)
        env = dict(os.environ, NOTIFY_SOCKET=sock_path)
        mp = mounter.new_mountpoint()
        proc = subprocess.Popen([*GBXFS, "mount", str(source), mp, "-f"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        mounter.procs.append(proc)
        message = sock.recv(4096).decode()
        assert "READY=1" in message.splitlines()
        assert os.listdir(mp) == ["hello.txt", "sub"]     # usable when READY arrives
        proc.terminate()
        assert proc.wait(timeout=TIMEOUT) == 0


def test_fstab_style_mount_through_mount_fuse3(mounter, source):
    if os.geteuid() != 0 or shutil.which("mount") is None or not os.path.exists("/sbin/mount.fuse3") \
            and shutil.which("mount.fuse3") is None:
        pytest.skip("needs root, mount(8) and mount.fuse3")
    program = Path(sys.executable).parent / "gbxfs"
    if not program.exists():
        pytest.skip(f"{program} is not installed (pip install -e .)")
    mp = mounter.new_mountpoint()
    # what an fstab line "PROG#SOURCE MP fuse ro,noauto,... 0 0" makes mount(8) run
    res = subprocess.run(["mount", "-t", "fuse", f"{program}#{source}", mp, "-o",
                          "ro,noauto,nofail,_netdev,x-systemd.automount,gbx=file,cache_mb=64"],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert res.returncode == 0, res.stderr
    assert find_mount(mp).fstype == "fuse.gbxfs"
    assert os.path.isfile(os.path.join(mp, "sub", "A.Challenge.Gbx"))     # gbx=file was applied
    assert gbxfs("umount", mp).returncode == 0


def test_mount_t_fuse_gbxfs_when_installed(mounter, source):
    if os.geteuid() != 0 or shutil.which("gbxfs", path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin") is None:
        pytest.skip("gbxfs is not installed in the system PATH (see README: fstab)")
    mp = mounter.new_mountpoint()
    res = subprocess.run(["mount", "-t", "fuse.gbxfs", str(source), mp, "-o", "ro,noauto"],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert res.returncode == 0, res.stderr
    assert os.listdir(mp) == ["hello.txt", "sub"]
