"""What a real file or folder lets through the mount: its mode, owner and POSIX
ACL carried as its access; links that would jump over a folder closed to
someone are not followed; maps.csv / replays.csv list only what everyone may
read and are never executable. No FUSE here: the rules are the tree's."""
from __future__ import annotations

import os
import struct

import pytest

from gbxfs.formats.gbx.writer import END, W, build_gbx
from gbxfs.tree.acl import acl, map_permissions, open_to_all, without_x
from gbxfs.tree.context import TreeContext
from gbxfs.tree.root import build_tree
from gbxfs.tree.source import FileSource
from gbxfs.tree.walk import resolve

OWNER, USER, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x10, 0x20
ANY = 0xFFFFFFFF


def _acl(*entries) -> bytes:
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


DENY_4242 = _acl((OWNER, 6, ANY), (USER, 0, 4242), (GROUP, 4, ANY), (MASK, 4, ANY), (OTHER, 4, ANY))


def _map() -> bytes:
    return build_gbx(class_id=0x03043000, header_chunks=[], body=W().u32(END).bytes())


def test_a_file_with_an_acl_carries_it(tmp_path):
    p = tmp_path / "f.txt"
    p.write_bytes(b"x")
    os.chmod(p, 0o644)
    assert FileSource(str(p)).access[:1] == (0o644,) and acl(FileSource(str(p)).access) is None
    try:
        os.setxattr(p, "system.posix_acl_access", DENY_4242)
    except OSError as e:
        pytest.skip(f"no POSIX ACLs here: {e}")
    access = FileSource(str(p)).access
    assert acl(access) == DENY_4242 and not open_to_all(access, 0o4)
    tree = build_tree(str(tmp_path), TreeContext())
    assert acl(tree.child("f.txt").access) == DENY_4242


def test_acl_permissions_are_mapped_entry_by_entry():
    folder = map_permissions(DENY_4242, lambda p: p | (p & 0o4) >> 2)     # a folder made from the file
    assert folder == _acl((OWNER, 7, ANY), (USER, 0, 4242), (GROUP, 5, ANY), (MASK, 5, ANY), (OTHER, 5, ANY))
    assert map_permissions(folder, lambda p: p & 0o6) == _acl((OWNER, 6, ANY), (USER, 0, 4242), (GROUP, 4, ANY),
                                                              (MASK, 4, ANY), (OTHER, 4, ANY))


def test_open_to_all_needs_owner_group_and_others():
    assert open_to_all((0o755, 0, 0), 0o1) and open_to_all((0o444, 0, 0), 0o4)
    assert not open_to_all((0o701, 0, 0), 0o1)       # the group is refused what others get
    assert not open_to_all((0o640, 0, 0), 0o4) and not open_to_all(None, 0o4)
    assert not open_to_all((0o755, 0, 0, DENY_4242), 0o1)


def test_links_are_not_followed_past_a_folder_closed_to_someone(tmp_path):
    src = tmp_path / "src"
    (src / "alice").mkdir(parents=True, mode=0o700)
    (src / "alice" / "diary.txt").write_bytes(b"dear diary")
    (src / "alice" / "inner").mkdir(mode=0o755)
    (src / "public").mkdir(mode=0o755)
    (src / "public" / "notice.txt").write_bytes(b"notice")
    (src / "tmp").mkdir(mode=0o777)
    os.symlink("../alice/diary.txt", src / "tmp" / "peek.txt")
    os.symlink("../alice", src / "tmp" / "peekdir")
    os.symlink("../alice/inner", src / "tmp" / "peekinner")
    os.symlink("../public/notice.txt", src / "tmp" / "notice.txt")
    os.symlink("diary.txt", src / "alice" / "same.txt")        # inside the closed folder itself: nothing jumped
    os.symlink("../alice/diary.txt", src / "public" / "via.txt")
    tree = build_tree(str(src), TreeContext())
    # the link's own folder (the closed one) is checked by the kernel: only what it jumps over counts
    assert sorted(resolve(tree, "tmp").children()) == ["notice.txt", "peekdir"]
    assert sorted(resolve(tree, "alice").children()) == ["diary.txt", "inner", "same.txt"]
    assert "via.txt" not in resolve(tree, "public").children()
    assert resolve(tree, "tmp/notice.txt").read(0, 10) == b"notice"
    # a link to the closed folder itself shows it with its own mode (0700): the kernel refuses others
    assert resolve(tree, "tmp/peekdir").access[0] == 0o700


def test_index_files_leave_out_what_not_everyone_may_read(tmp_path):
    (tmp_path / "Open.Map.Gbx").write_bytes(_map())
    (tmp_path / "Mine.Map.Gbx").write_bytes(_map())
    (tmp_path / "Group.Replay.Gbx").write_bytes(_map())
    os.chmod(tmp_path / "Open.Map.Gbx", 0o644)
    os.chmod(tmp_path / "Mine.Map.Gbx", 0o600)
    os.chmod(tmp_path / "Group.Replay.Gbx", 0o640)
    os.chmod(tmp_path, 0o755)
    tree = build_tree(str(tmp_path), TreeContext())
    kids = tree.children()
    maps = kids["maps.csv"]
    text = maps.read(0, maps.size()).decode()
    assert "Open.Map.Gbx" in text and "Mine.Map.Gbx" not in text
    assert "replays.csv" not in kids                      # its one replay is not for everyone
    assert maps.access[0] == 0o644                        # the folder's 0755 without x


def test_a_linked_folder_keeps_its_check(tmp_path):
    # a link to a folder that is open everywhere on the way is followed as before
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.txt").write_bytes(b"f")
    os.chmod(tmp_path / "a", 0o711)                        # search for everyone, listing for the owner
    os.symlink("a/b", tmp_path / "lb")
    tree = build_tree(str(tmp_path), TreeContext())
    assert resolve(tree, "lb/f.txt").read(0, 1) == b"f"


def test_a_real_folder_s_new_mode_and_acl_count_at_the_next_lookup(tmp_path):
    (tmp_path / "d").mkdir(mode=0o755)
    (tmp_path / "d" / "f.txt").write_bytes(b"f")
    tree = build_tree(str(tmp_path), TreeContext())
    d = tree.child("d")
    assert d.access[0] == 0o755 and sorted(d.children()) == ["f.txt"]
    os.chmod(tmp_path / "d", 0o700)                  # the parent's mtime does not change
    assert tree.child("d") is d and d.access[0] == 0o700       # the same folder, listing kept
    try:
        os.setxattr(tmp_path / "d", "system.posix_acl_access",
                    _acl((OWNER, 7, ANY), (USER, 0, 4242), (GROUP, 5, ANY), (MASK, 5, ANY), (OTHER, 5, ANY)))
    except OSError as e:
        pytest.skip(f"no POSIX ACLs here: {e}")
    assert acl(tree.child("d").access) is not None and tree.child("d").access[0] == 0o755


def test_files_made_from_a_source_keep_no_x_real_files_keep_theirs(tmp_path):
    assert without_x((0o755, 1, 2)) == (0o644, 1, 2) and without_x(None) is None
    folder_acl = _acl((OWNER, 7, ANY), (USER, 7, 4242), (GROUP, 5, ANY), (MASK, 7, ANY), (OTHER, 5, ANY))
    assert without_x((0o775, 1, 2, folder_acl)) == (0o664, 1, 2, _acl(
        (OWNER, 6, ANY), (USER, 6, 4242), (GROUP, 4, ANY), (MASK, 6, ANY), (OTHER, 4, ANY)))
    (tmp_path / "run.sh").write_bytes(b"#!/bin/sh\n")
    (tmp_path / "A.Map.Gbx").write_bytes(_map())
    for name in ("run.sh", "A.Map.Gbx", "."):
        os.chmod(tmp_path / name, 0o755)
    tree = build_tree(str(tmp_path), TreeContext())
    script = tree.child("run.sh")
    assert script.exact_mode and script.access[0] == 0o755       # a real file shows its mode as it is
    original = resolve(tree, "A.Map.Gbx/original.gbx")
    # its folder's access, inherited (no node of its own in a readdirplus); the fuse layer drops its x
    assert not original.exact_mode and original.access is None and tree.child("A.Map.Gbx").access[0] == 0o755
    assert not resolve(tree, "A.Map.Gbx/info.txt").exact_mode
    assert tree.child("maps.csv").access[0] == 0o644
