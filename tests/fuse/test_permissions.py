"""Through a mount made by root with allow_other, another (unprivileged) user
gets exactly the access the source files give: modes follow the source and
the kernel checks them (default_permissions)."""
from __future__ import annotations

import os
import pwd
import shutil
import stat
import struct
import subprocess
import tempfile

import pytest

from mountkit import TIMEOUT, force_unmount
from gbxfs.formats.gbx.writer import END, W, build_gbx
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.fuse.mountinfo import find_mount

pytestmark = pytest.mark.mount
USER = "gbxfs-test"


def _unprivileged_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("needs root: to mount with allow_other and to act as another user")
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is missing (util-linux)")
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        pass
    res = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
                         capture_output=True, text=True, timeout=TIMEOUT)
    if res.returncode != 0:
        pytest.skip(f"cannot create a user: {res.stderr.strip()}")
    return pwd.getpwnam(USER)


def _as_user(user, *cmd) -> subprocess.CompletedProcess:
    return subprocess.run(["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
                           *cmd], capture_output=True, text=True, timeout=TIMEOUT)


@pytest.fixture
def source(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "public.txt").write_text("public\n")
    (src / "secret.txt").write_text("secret\n")
    os.chmod(src / "secret.txt", 0o600)
    (src / "private").mkdir()
    (src / "private" / "inside.txt").write_text("inside\n")
    os.chmod(src / "private", 0o700)
    write_packs(src, {"Open": [PakFile("A/open.txt", b"open\n")], "Closed": [PakFile("A/closed.txt", b"closed\n")]})
    os.chmod(src / "Open.pak", 0o644)
    os.chmod(src / "Closed.pak", 0o600)
    return src


@pytest.fixture
def shared_mountpoint():
    # under /tmp itself: the other user must be able to reach the mount point
    mp = tempfile.mkdtemp(prefix="gbxfs-perm-", dir="/tmp")
    os.chmod(mp, 0o755)
    yield mp
    force_unmount(mp)        # (this teardown runs before the mounter's)
    if find_mount(mp) is None:
        os.rmdir(mp)


def test_another_user_gets_only_what_the_source_allows(mounter, source, shared_mountpoint):
    user = _unprivileged_user()
    mp = mounter.mount(source, "allow_other", mountpoint=shared_mountpoint)
    assert "default_permissions" in find_mount(mp).options.split(",")
    ok = _as_user(user, "cat", f"{mp}/public.txt", f"{mp}/Open.pak/A/open.txt")
    assert ok.returncode == 0 and ok.stdout == "public\nopen\n", ok.stderr
    for path in ("secret.txt", "private/inside.txt", "Closed.pak/A/closed.txt"):
        res = _as_user(user, "cat", f"{mp}/{path}")
        assert res.returncode != 0 and "Permission denied" in res.stderr, path
    res = _as_user(user, "ls", f"{mp}/Closed.pak")
    assert res.returncode != 0 and "Permission denied" in res.stderr
    # the owner (root here) still reads everything
    assert open(f"{mp}/Closed.pak/A/closed.txt").read() == "closed\n"


def test_modes_follow_the_source(mounter, source):
    mp = mounter.mount(source)
    mode = lambda p: stat.S_IMODE(os.stat(os.path.join(mp, p)).st_mode)
    assert mode("public.txt") == 0o644 and mode("secret.txt") == 0o600 and mode("private") == 0o700
    assert mode("Open.pak") == 0o755 and mode("Open.pak/A") == 0o755 and mode("Open.pak/A/open.txt") == 0o644
    assert mode("Closed.pak") == 0o700 and mode("Closed.pak/A/closed.txt") == 0o600
    assert os.stat(os.path.join(mp, "public.txt")).st_uid == os.stat(source / "public.txt").st_uid
    with pytest.raises(OSError) as e:          # write bits shown, writes still refused
        open(os.path.join(mp, "public.txt"), "w")
    assert e.value.errno == 30   # EROFS


def test_an_executable_pak_shows_no_executable_file(mounter, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    write_packs(src, {"Open": [PakFile("A/open.txt", b"open\n")]})
    (src / "run.sh").write_text("#!/bin/sh\n")
    for name in ("Open.pak", "run.sh"):
        os.chmod(src / name, 0o755)
    mp = mounter.mount(src)
    mode = lambda p: stat.S_IMODE(os.stat(os.path.join(mp, p)).st_mode)
    assert mode("run.sh") == 0o755 and mode("Open.pak") == mode("Open.pak/A") == 0o755
    assert mode("Open.pak/A/open.txt") == mode("Open.pak/.pak-info.txt") == 0o644


def test_cp_r_copies_are_ordinary_writable_files(mounter, source, tmp_path):
    mp = mounter.mount(source)
    dest = tmp_path / "copy"
    subprocess.run(["cp", "-r", f"{mp}/Open.pak", str(dest)], check=True, timeout=TIMEOUT)
    copied = dest / "A" / "open.txt"
    assert copied.read_text() == "open\n" and os.stat(copied).st_mode & stat.S_IWUSR
    shutil.rmtree(dest)


def _acl_denying(uid: int) -> bytes:
    """A POSIX access ACL (the kernel's xattr value): owner rw, `uid` nothing,
    group, mask and others r."""
    entries = [(0x01, 6, 0xFFFFFFFF), (0x02, 0, uid), (0x04, 4, 0xFFFFFFFF), (0x10, 4, 0xFFFFFFFF),
               (0x20, 4, 0xFFFFFFFF)]
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


def _map() -> bytes:
    return build_gbx(class_id=0x03043000, header_chunks=[], body=W().u32(END).bytes())


@pytest.fixture
def hostile_source(tmp_path):
    """Another user's 0700 folder, links into it from a folder everyone may
    write, maps of which one is private, and files with an ACL."""
    src = tmp_path / "hsrc"
    src.mkdir()
    (src / "alice").mkdir(mode=0o700)
    (src / "alice" / "diary.txt").write_text("dear diary\n")
    os.chmod(src / "alice" / "diary.txt", 0o644)
    (src / "public").mkdir(mode=0o755)
    (src / "public" / "notice.txt").write_text("notice\n")
    (src / "tmp").mkdir()
    os.chmod(src / "tmp", 0o1777)
    os.symlink("../alice/diary.txt", src / "tmp" / "peek.txt")
    os.symlink("../alice", src / "tmp" / "peekdir")
    os.symlink("../public/notice.txt", src / "tmp" / "notice.txt")    # nothing jumped over is closed
    (src / "maps").mkdir(mode=0o755)
    (src / "maps" / "Open.Map.Gbx").write_bytes(_map())
    (src / "maps" / "Hidden.Map.Gbx").write_bytes(_map())
    os.chmod(src / "maps" / "Open.Map.Gbx", 0o644)
    os.chmod(src / "maps" / "Hidden.Map.Gbx", 0o600)
    return src


def test_links_never_reach_past_a_closed_folder(mounter, hostile_source, shared_mountpoint):
    user = _unprivileged_user()
    mp = mounter.mount(hostile_source, "allow_other", mountpoint=shared_mountpoint)
    res = _as_user(user, "cat", f"{mp}/alice/diary.txt")
    assert res.returncode != 0 and "Permission denied" in res.stderr
    for path in ("tmp/peek.txt", "tmp/peekdir/diary.txt"):
        res = _as_user(user, "cat", f"{mp}/{path}")
        assert res.returncode != 0 and "dear diary" not in res.stdout, (path, res.stdout)
    ok = _as_user(user, "cat", f"{mp}/tmp/notice.txt")
    assert ok.returncode == 0 and ok.stdout == "notice\n", ok.stderr


def test_index_files_list_only_what_everyone_may_read(mounter, hostile_source, shared_mountpoint):
    user = _unprivileged_user()
    mp = mounter.mount(hostile_source, "allow_other", mountpoint=shared_mountpoint)
    res = _as_user(user, "cat", f"{mp}/maps/maps.csv")
    assert res.returncode == 0, res.stderr
    assert "Open.Map.Gbx" in res.stdout and "Hidden.Map.Gbx" not in res.stdout
    res = _as_user(user, "cat", f"{mp}/maps/Hidden.Map.Gbx/info.txt")
    assert res.returncode != 0 and "Permission denied" in res.stderr
    assert stat.S_IMODE(os.stat(f"{mp}/maps/maps.csv").st_mode) & 0o111 == 0     # never executable


def test_posix_acls_of_the_source_are_honoured(mounter, tmp_path, shared_mountpoint):
    user = _unprivileged_user()
    src = tmp_path / "asrc"
    src.mkdir()
    for name, data in (("denied.txt", b"not for you\n"), ("Denied.Replay.Gbx", _map()),
                       ("allowed.txt", b"for everyone\n")):
        (src / name).write_bytes(data)
        os.chmod(src / name, 0o644)
    try:
        for name in ("denied.txt", "Denied.Replay.Gbx"):
            os.setxattr(src / name, "system.posix_acl_access", _acl_denying(user.pw_uid))
    except OSError as e:
        pytest.skip(f"the file system under {tmp_path} keeps no POSIX ACLs: {e}")
    probe = _as_user(user, "true")          # the user exists and runs
    assert probe.returncode == 0, probe.stderr
    mp = mounter.mount(src, "allow_other", mountpoint=shared_mountpoint)
    for path in ("denied.txt", "Denied.Replay.Gbx/info.txt", "Denied.Replay.Gbx/original.gbx"):
        res = _as_user(user, "cat", f"{mp}/{path}")
        assert res.returncode != 0 and "Permission denied" in res.stderr, (path, res.stdout)
    ok = _as_user(user, "cat", f"{mp}/allowed.txt")
    assert ok.returncode == 0 and ok.stdout == "for everyone\n", ok.stderr
    other = _as_user(pwd.getpwnam("nobody"), "cat", f"{mp}/denied.txt")    # the ACL names only one user
    assert other.returncode == 0 and other.stdout == "not for you\n", other.stderr
    assert open(f"{mp}/Denied.Replay.Gbx/original.gbx", "rb").read()[:3] == b"GBX"    # the owner still reads


def test_a_folder_closed_after_the_mount_is_closed_through_it(mounter, tmp_path, shared_mountpoint):
    user = _unprivileged_user()
    src = tmp_path / "csrc"
    (src / "d").mkdir(parents=True, mode=0o755)
    (src / "d" / "f.txt").write_text("f\n")
    os.chmod(src / "d" / "f.txt", 0o644)
    mp = mounter.mount(src, "allow_other", "timeout=0", mountpoint=shared_mountpoint)
    assert _as_user(user, "cat", f"{mp}/d/f.txt").stdout == "f\n"
    os.chmod(src / "d", 0o700)                 # the source folder's own mtime does not change
    res = _as_user(user, "cat", f"{mp}/d/f.txt")
    assert res.returncode != 0 and "Permission denied" in res.stderr
