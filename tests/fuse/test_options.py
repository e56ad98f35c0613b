from __future__ import annotations

import os
import socket

import pytest

from gbxfs.fuse.notify import sd_notify
from gbxfs.fuse.options import OptionError, parse_options, server_pid, split_options


def test_split_honours_escaped_commas():
    assert split_options("a,b=c\\,d,,e ") == ["a", "b=c,d", "e"]


def test_our_options_fuse_options_and_fstab_noise():
    m = parse_options(["rw,noauto,user,_netdev,nofail,x-systemd.automount,x-systemd.idle-timeout=60",
                       "gbx=file,packlist=/k/packlist.dat,cache_mb=64,threads=3,timeout=2.5",
                       "allow_other,fsname=Packs,max_read=131072,comment=x"])
    assert (m.gbx_mode, m.packlist, m.cache_mb, m.threads, m.timeout) == ("file", "/k/packlist.dat", 64, 3, 2.5)
    assert m.fuse == {"allow_other": None, "fsname": "Packs", "max_read": "131072"}
    assert "x-systemd.automount" in m.ignored and "rw" in m.ignored
    opts = m.fuse_options("/srv/Packs", pid=42)
    assert {"ro", "default_permissions", "allow_other", "fsname=gbxfs[42]:Packs", "subtype=gbxfs",
            "max_read=131072"} == opts


def test_defaults_name_the_server_and_the_source_safely():
    assert parse_options([]).fuse_options("/srv/a,b", pid=7) == {"ro", "default_permissions", "subtype=gbxfs",
                                                                 "fsname=gbxfs[7]:/srv/a\\,b"}
    assert "fsname=gbxfs[7]" in parse_options([]).fuse_options("/srv/Pâcks", pid=7)
    assert f"fsname=gbxfs[{os.getpid()}]:/srv" in parse_options([]).fuse_options("/srv")


def test_the_name_tells_the_server():
    assert server_pid("gbxfs[123]:/srv/Packs") == 123 and server_pid("gbxfs[9]") == 9
    assert server_pid("/srv/Packs") is None and server_pid("gbxfs[12]x") is None and server_pid("gbxfs") is None


@pytest.mark.parametrize("bad", ["gbx=tree", "cache_mb=0", "threads=x", "timeout=-1", "packlist=",
                                 "bogus", "fsname", "allow_other=1",
                                 # kernel cache lifetimes must be finite
                                 "timeout=nan", "timeout=inf", "timeout=-inf", "timeout=NaN",
                                 # another type name would hide the mount from gbxfs umount
                                 "subtype=x", "subtype=", "subtype"])
def test_bad_options_are_refused(bad):
    with pytest.raises(OptionError):
        parse_options([bad])


def test_sd_notify_sends_one_datagram(tmp_path):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.bind(path)
        assert sd_notify("READY=1", {"NOTIFY_SOCKET": path}) is True
        assert s.recv(100) == b"READY=1"
    assert sd_notify("READY=1", {}) is False
    assert sd_notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "absent")}) is False


def test_sd_notify_abstract_socket():
    name = f"gbxfs-test-{id(object())}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.bind("\0" + name)
        assert sd_notify("READY=1", {"NOTIFY_SOCKET": "@" + name})
        assert s.recv(100) == b"READY=1"


def test_subtype_of_the_type_itself_is_tolerated():
    # mount.fuse3 may pass the fstab type's name; it changes nothing
    assert "subtype=gbxfs" in parse_options(["subtype=gbxfs"]).fuse_options("/srv", pid=1)
