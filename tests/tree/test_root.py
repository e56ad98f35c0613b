"""The root tree over a real folder: passthrough, laziness, symlink policy,
re-listing, and error containment of views. No FUSE here."""
from __future__ import annotations

import errno
import os
import threading

import pytest

from gbxfs.tree import root as root_mod
from gbxfs.tree import source as source_mod
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import LATER, BytesFile, Dir, SourceFile
from gbxfs.tree.openers import Opener, ViewDir
from gbxfs.tree.root import RealDir, build_tree
from gbxfs.tree.walk import resolve


class CountingView:
    """A fake pak view that records every call, to prove what was (not) opened."""

    def __init__(self):
        self.opened: list[str] = []
        self.listed: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, name, source, ctx):
        with self.lock:
            self.opened.append(name)

        def load():
            with self.lock:
                self.listed.append(name)
            head = source.read_at(0, 4)
            return [BytesFile("head.bin", head), Dir("inner", children=[BytesFile("x.txt", b"x")])]

        return Dir(name, load=load, xattrs={"user.test.kind": b"fake"})


def _write(path, data=b""):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def test_plain_files_and_folders_pass_through(tmp_path):
    _write(tmp_path / "b.txt", b"hello")
    _write(tmp_path / "a" / "deep" / "c.bin", bytes(range(256)) * 10)
    tree = build_tree(str(tmp_path), openers=[])
    assert isinstance(tree, RealDir)
    assert list(tree.children()) == ["a", "b.txt"]          # sorted
    f = resolve(tree, "a/deep/c.bin")
    assert isinstance(f, SourceFile)
    assert f.size() == 2560
    assert f.read(0, 10_000) == bytes(range(256)) * 10
    assert f.read(2550, 100) == bytes(range(246, 256))
    assert f.mtime_ns == os.stat(tmp_path / "a" / "deep" / "c.bin").st_mtime_ns
    assert resolve(tree, "b.txt").read(1, 3) == b"ell"


def test_listing_a_folder_of_paks_opens_none(tmp_path):
    for i in range(50):
        _write(tmp_path / f"P{i:02}.pak", b"NadeoPak" + bytes([i]))
    _write(tmp_path / "packlist.dat", b"\1\0")
    view = CountingView()
    tree = build_tree(str(tmp_path), openers=[Opener("pak", view, suffixes=(".pak",))])
    kids = tree.children()
    assert len(kids) == 51
    assert all(isinstance(kids[f"P{i:02}.pak"], ViewDir) for i in range(50))
    assert isinstance(kids["packlist.dat"], SourceFile)
    assert view.opened == [] and view.listed == []
    # entering one pak opens exactly that one
    assert resolve(tree, "P07.pak/head.bin").read(0, 9) == b"Nade"
    assert view.opened == ["P07.pak"] and view.listed == ["P07.pak"]
    # and the view's root attributes now belong to the folder
    assert kids["P07.pak"].xattrs["user.test.kind"] == b"fake"


def test_suffix_matching_ignores_case_and_gbx_mode_file_shows_plain_files(tmp_path):
    _write(tmp_path / "A.Challenge.GBX", b"GBX")
    _write(tmp_path / "b.Replay.gbx", b"GBX")
    view = CountingView()
    gbx = Opener("gbx", view, suffixes=(".gbx",), when=lambda ctx: ctx.gbx_mode == "folder")
    folder = build_tree(str(tmp_path), TreeContext(gbx_mode="folder"), openers=[gbx]).children()
    assert all(isinstance(e, ViewDir) for n, e in folder.items() if n.lower().endswith(".gbx"))
    # GBX folders come with their folder's index (gbxfs/tree/gbx/index.py); plain files do not
    assert set(folder) == {"A.Challenge.GBX", "b.Replay.gbx", "maps.csv", "replays.csv"}
    files = build_tree(str(tmp_path), TreeContext(gbx_mode="file"), openers=[gbx]).children()
    assert all(isinstance(e, SourceFile) for e in files.values())


def test_open_child_recurses_into_containers(tmp_path):
    # a container view hands its members to ctx.open_child, which applies the registry again
    inner = CountingView()

    def container(name, source, ctx):
        from gbxfs.tree.source import BytesSource
        return Dir(name, load=lambda: [ctx.open_child("Nested.pak", BytesSource(b"PAK2", 7)),
                                       ctx.open_child("readme.txt", BytesSource(b"hi", 7))])

    _write(tmp_path / "Outer.zip", b"zip")
    tree = build_tree(str(tmp_path), openers=[Opener("zip", container, suffixes=(".zip",)),
                                              Opener("pak", inner, suffixes=(".pak",))])
    nested = resolve(tree, "Outer.zip/Nested.pak")
    assert isinstance(nested, ViewDir) and inner.opened == []
    assert resolve(tree, "Outer.zip/Nested.pak/head.bin").read(0, 4) == b"PAK2"
    assert isinstance(resolve(tree, "Outer.zip/readme.txt"), SourceFile)


def test_a_failing_view_becomes_error_txt_and_the_original(tmp_path, caplog):
    _write(tmp_path / "Bad.pak", b"garbage bytes")
    _write(tmp_path / "Good.pak", b"NadeoPak")

    def picky(name, source, ctx):
        if name == "Bad.pak":
            raise ValueError("header checksum mismatch")
        return CountingView()(name, source, ctx)

    tree = build_tree(str(tmp_path), openers=[Opener("pak", picky, suffixes=(".pak",))])
    bad = resolve(tree, "Bad.pak")
    assert sorted(bad.children()) == ["error.txt", "original.pak"]
    text = resolve(tree, "Bad.pak/error.txt").read(0, 1000).decode()
    assert "header checksum mismatch" in text and "pak" in text
    assert resolve(tree, "Bad.pak/original.pak").read(0, 100) == b"garbage bytes"
    assert b"header checksum mismatch" in bad.xattrs["user.gbxfs.error"]
    assert resolve(tree, "Good.pak/head.bin").read(0, 4) == b"Nade"
    assert "could not open Bad.pak as pak" in caplog.text


def test_a_crashing_probe_leaves_a_plain_file(tmp_path, caplog):
    _write(tmp_path / "t.dat", b"data")

    def probe(name, source):
        raise RuntimeError("probe bug")

    opener = Opener("gp2", CountingView(), suffixes=(".dat",), probe=probe)
    assert isinstance(build_tree(str(tmp_path), openers=[opener]).children()["t.dat"], SourceFile)
    assert "probe failed" in caplog.text


def test_probe_decides_by_content(tmp_path):
    _write(tmp_path / "yes.dat", b"GP2!")
    _write(tmp_path / "no.dat", b"nope")
    opener = Opener("gp2", CountingView(), suffixes=(".dat",),
                    probe=lambda name, src: src.read_at(0, 4) == b"GP2!")
    kids = build_tree(str(tmp_path), openers=[opener]).children()
    assert isinstance(kids["yes.dat"], ViewDir) and isinstance(kids["no.dat"], SourceFile)


def test_symlinks_are_followed_only_inside_the_source(tmp_path):
    src, outside = tmp_path / "src", tmp_path / "outside"
    _write(src / "real" / "f.txt", b"inside")
    _write(outside / "secret.txt", b"secret")
    os.symlink("real/f.txt", src / "link_file")
    os.symlink("real", src / "link_dir")
    os.symlink(str(outside / "secret.txt"), src / "escape_file")
    os.symlink(str(outside), src / "escape_dir")
    os.symlink("nowhere", src / "dangling")
    os.symlink("..", src / "real" / "up")          # loop back to the source root
    os.symlink(".", src / "real" / "self")         # loop onto itself
    tree = build_tree(str(src), openers=[])
    assert sorted(tree.children()) == ["link_dir", "link_file", "real"]
    assert resolve(tree, "link_file").read(0, 100) == b"inside"
    assert sorted(resolve(tree, "link_dir").children()) == ["f.txt"]
    assert sorted(resolve(tree, "real").children()) == ["f.txt"]


def test_sibling_directory_links_cannot_loop(tmp_path):
    _write(tmp_path / "a" / "fa", b"a")
    _write(tmp_path / "b" / "fb", b"b")
    os.symlink("../b", tmp_path / "a" / "to_b")
    os.symlink("../a", tmp_path / "b" / "to_a")
    tree = build_tree(str(tmp_path), openers=[])
    assert sorted(resolve(tree, "a/to_b").children()) == ["fb"]   # followed once
    assert sorted(resolve(tree, "a/to_b").children()) == ["fb"]
    assert "to_a" not in resolve(tree, "a/to_b").children()       # b -> a would be a loop


def test_special_files_are_left_out(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    _write(tmp_path / "f", b"1")
    assert list(build_tree(str(tmp_path), openers=[]).children()) == ["f"]


def test_relisting_keeps_unchanged_entries_and_sees_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(root_mod, "RECHECK_SECONDS", 0.0)
    _write(tmp_path / "keep.pak", b"NadeoPak")
    _write(tmp_path / "change.txt", b"old")
    view = CountingView()
    tree = build_tree(str(tmp_path), openers=[Opener("pak", view, suffixes=(".pak",))])
    first = dict(tree.children())
    first["keep.pak"].children()
    old_txt = first["change.txt"]
    _write(tmp_path / "new.txt", b"new")
    _write(tmp_path / "change.txt", b"changed!")
    os.utime(tmp_path, ns=(1, 1))  # make sure the directory mtime moves even on coarse clocks
    second = tree.children()
    assert sorted(second) == ["change.txt", "keep.pak", "new.txt"]
    assert second["keep.pak"] is first["keep.pak"] and view.opened == ["keep.pak"]
    assert second["change.txt"] is not old_txt
    assert second["change.txt"].read(0, 100) == b"changed!"
    # the stale entry refuses to serve bytes that no longer match its size
    with pytest.raises(OSError) as exc:
        old_txt.read(0, 100)
    assert exc.value.errno == errno.EIO


def test_single_file_source(tmp_path):
    _write(tmp_path / "One.pak", b"NadeoPak")
    view = CountingView()
    tree = build_tree(str(tmp_path / "One.pak"), openers=[Opener("pak", view, suffixes=(".pak",))])
    assert isinstance(tree, ViewDir) and tree.name == "One.pak"
    assert sorted(tree.children()) == ["head.bin", "inner"]


def test_file_descriptors_stay_bounded(tmp_path, monkeypatch):
    from gbxfs.tree.context import TreeContext
    ctx = TreeContext(open_files=source_mod.OpenFiles(limit=8))
    pool = ctx.open_files
    for i in range(40):
        _write(tmp_path / f"f{i}", bytes([i]) * 3)
    tree = build_tree(str(tmp_path), openers=[], ctx=ctx)
    for i in range(40):
        assert resolve(tree, f"f{i}").read(0, 3) == bytes([i]) * 3
        assert pool.open_count() <= 8
    # a re-read after eviction reopens transparently
    assert resolve(tree, "f0").read(1, 5) == b"\0\0"


def test_real_pak_view_listing_fifty_paks_reads_no_pak_byte(tmp_path, monkeypatch):
    """With the default registry (the real pak view): listing reads nothing of
    any pak; entering one reads only that one."""
    from gbxfs.formats.pak.writer import PakFile, write_packs
    write_packs(tmp_path, {f"P{i:02}": [PakFile(f"P{i:02}/Media/t.dds", bytes([i]) * 1000)] for i in range(50)})
    reads: list[str] = []
    real_read = source_mod.FileSource.read_at

    def counting(self, offset, size):
        reads.append(os.path.basename(self.path))
        return real_read(self, offset, size)

    monkeypatch.setattr(source_mod.FileSource, "read_at", counting)
    tree = build_tree(str(tmp_path))
    kids = tree.children()
    assert len(kids) == 51 and all(kids[f"P{i:02}.pak"].is_dir for i in range(50))
    # (packlist.dat may be probed: .dat files could be GP2 tracks)
    assert [r for r in reads if r.endswith(".pak")] == []
    assert resolve(tree, "P17.pak/P17/Media/t.dds").read(0, 3) == b"\x11\x11\x11"
    assert {r for r in reads if r.endswith(".pak")} == {"P17.pak"}


def test_a_lookup_before_the_first_listing_checks_that_file_alone(tmp_path, monkeypatch):
    """`ls` of one map right after mounting a folder of thousands: the lookup
    scans nothing, and the listing made later keeps the entry it found (one view,
    one parse), unless the file changed in between."""
    for i in range(5):
        _write(tmp_path / f"f{i}.pak", b"NadeoPak")
    _write(tmp_path / "plain.txt", b"old")
    view = CountingView()
    tree = build_tree(str(tmp_path), openers=[Opener("pak", view, suffixes=(".pak",))])
    scans = []
    real_scandir = os.scandir
    monkeypatch.setattr(root_mod.os, "scandir", lambda p: scans.append(p) or real_scandir(p))
    pak = tree.child("f2.pak")
    assert isinstance(pak, ViewDir) and tree.child("f2.pak") is pak
    assert tree.child("missing.pak") is None
    txt = tree.child("plain.txt")
    assert scans == [] and tree.peek() is None and tree.children(wait=False) is None
    _write(tmp_path / "plain.txt", b"changed!")     # another size: a new entry
    kids = tree.children()
    assert len(scans) == 1 and sorted(kids) == [*(f"f{i}.pak" for i in range(5)), "plain.txt"]
    assert kids["f2.pak"] is pak and kids["plain.txt"] is not txt
    assert kids["plain.txt"].read(0, 100) == b"changed!"


def test_an_index_name_is_looked_up_in_the_listing(tmp_path):
    """maps.csv exists only as part of a listing: its lookup lists the folder."""
    _write(tmp_path / "a.txt", b"x")
    tree = build_tree(str(tmp_path))
    assert tree.child("maps.csv") is None and tree.peek() is not None


def test_a_lookup_checks_the_next_files_for_their_own_lookups(tmp_path, monkeypatch):
    # `find` entering thousands of maps after the kernel's entries expired: one
    # lookup checks the next files on disk, whose lookups then need no check
    for n in "abcd":
        (tmp_path / f"{n}.bin").write_bytes(n.encode())
    (tmp_path / "sub").mkdir()
    tree = build_tree(str(tmp_path), TreeContext())
    kids = tree.children()
    old_c = kids["c.bin"]
    with open(tmp_path / "c.bin", "ab") as f:       # changed since the listing: not marked
        f.write(b"more")
    assert tree.child("a.bin") is kids["a.bin"]
    assert tree.child("a.bin", wait=False) is LATER        # the name looked up is not marked
    assert tree.child("b.bin", wait=False) is kids["b.bin"]
    assert tree.child("b.bin", wait=False) is LATER        # once: the next lookup checks the file
    assert tree.child("c.bin", wait=False) is LATER and tree.child("sub", wait=False) is LATER
    assert tree.child("c.bin") is not old_c           # its own lookup sees the change
    monkeypatch.setattr("gbxfs.tree.root.RECHECK_SECONDS", 0.0)
    tree.child("a.bin")
    assert tree.child("b.bin", wait=False) is LATER        # a mark older than RECHECK_SECONDS counts for nothing
