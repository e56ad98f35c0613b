"""The pak directory view: the synthetic sample through the tree, laziness,
.pak-info.txt, keys, and every failure staying inside its pak or file."""
from __future__ import annotations

import csv
import errno
import hashlib
import shutil
from pathlib import Path

import pytest

from pak_testkit import GbxBuilder, leaf_track, make_test_decls

from gbxfs.formats.pak.writer import PakFile, build_pak, write_packs
from gbxfs.tree.context import TreeContext
from gbxfs.tree.model import Dir
from gbxfs.tree.pak.entries import PakEntryFile, PakGbxDir
from gbxfs.tree.pak.pack import open_pack_gbx, probe_pack_gbx
from gbxfs.tree.pak.view import open_pak
from gbxfs.tree.root import build_tree
from gbxfs.tree.source import BytesSource, FileSource
from gbxfs.tree.walk import resolve


def read_all(f) -> bytes:
    return f.read(0, f.size())


def expected_rows(corpus):
    with open(corpus / "synthetic-pak/expected.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.mark.parametrize("mode", ["folder", "file"])
def test_sample_bytes_through_the_tree(corpus, mode):
    root = build_tree(str(corpus / "synthetic-pak/Packs"), TreeContext(gbx_mode=mode))
    for row in expected_rows(corpus):
        path = f"{row['pak']}/{row['path']}"
        entry = resolve(root, path)
        if row["kind"] == "gbx" and mode == "folder":
            assert entry.is_dir
            entry = entry.children()["original.gbx"]
        assert not entry.is_dir
        assert entry.size() == int(row["size"])
        assert hashlib.sha256(read_all(entry)).hexdigest() == row["sha256"], path
        assert entry.error is None


def test_gbx_entries_are_gbx_folders(corpus):
    root = build_tree(str(corpus / "synthetic-pak/Packs"))
    clip = resolve(root, "Sample.pak/Sample/Media/Clips/Clip3.Clip.Gbx")
    kids = clip.children()
    assert {"original.gbx", "info.txt", "header", "body"} <= set(kids)
    assert "error.txt" not in kids
    nodes = resolve(clip, "body/nodes").children()
    assert len(nodes) == 60 and "000.CGameCtnMediaClip" in nodes
    assert clip.xattrs.get("user.gbx.class_id") is not None


def test_a_gbx_entry_is_walked_once(corpus, monkeypatch):
    """The pass that decrypts and verifies a GBX entry walks its body; the
    folder's node listing and chunk files use that walk, not a second one."""
    from gbxfs.formats.pak import gbxentry
    from gbxfs.tree.gbx import parse as gbx_parse
    walks = []
    for module, label in ((gbxentry, "pak pass"), (gbx_parse, "view")):
        real = module.walk_body
        monkeypatch.setattr(module, "walk_body", lambda *a, real=real, where=label, **k: walks.append(where) or real(*a, **k))
    root = build_tree(str(corpus / "synthetic-pak/Packs"))
    clip = resolve(root, "Sample.pak/Sample/Media/Clips/Clip3.Clip.Gbx")
    nodes = resolve(clip, "body/nodes").children()
    assert "000.CGameCtnMediaClip" in nodes
    assert resolve(clip, "info.txt").size() > 0
    assert walks == ["pak pass"]


def test_entering_a_pak_decrypts_only_its_header(corpus):
    root = build_tree(str(corpus / "synthetic-pak/Packs"))
    pak = root.children()["Sample.pak"]
    entries = []

    def visit(d):
        for e in d.children().values():
            if isinstance(e, PakEntryFile):
                entries.append(e.entry)
            elif isinstance(e, PakGbxDir):
                entries.append(e._entry)
                assert e.children(wait=False) is None
            elif isinstance(e, Dir):
                visit(e)
    visit(pak)
    assert len(entries) == 11
    assert not any(e.checked for e in entries)
    # sizes are known without decrypting anything
    tex = resolve(root, "Sample.pak/Sample/Media/Textures/Tex1.dds")
    assert tex.size() == 32591 and not tex.entry.checked


def test_pak_info(corpus):
    root = build_tree(str(corpus / "synthetic-pak/Packs"))
    text = read_all(resolve(root, "Sample.pak/.pak-info.txt")).decode()
    for line in ("version = 3", "header.md5 = ok", "key.entry = Sample", "key.packlist_signature = ok",
                 "folders = 4", "files = 11", "files.compressed = 10", "metadata.gbx_headers = 6",
                 "status = ok"):
        assert line + "\n" in text
    assert "header.folder_feed = applied" in text


KS = b"0F1E2D3C4B5A69788796A5B4C3D2E1F0"


def _packs(tmp_path, files, **kw) -> Path:
    write_packs(tmp_path, {"Test": files}, key_strings={"Test": KS}, **kw)
    return tmp_path


def _error_only(d) -> str:
    kids = d.children()
    assert set(kids) == {".pak-info.txt", "error.txt"}
    assert d.xattrs["user.gbxfs.error"]
    return read_all(kids["error.txt"]).decode()


def test_missing_packlist_gives_an_error_folder(tmp_path):
    _packs(tmp_path, [PakFile("R/a.bin", b"a")])
    (tmp_path / "packlist.dat").unlink()
    root = build_tree(str(tmp_path))
    assert "no packlist.dat" in _error_only(root.children()["Test.pak"])


def test_packlist_without_the_pak_and_override(tmp_path):
    _packs(tmp_path, [PakFile("R/a.bin", b"abc")])
    (tmp_path / "Other.pak").write_bytes((tmp_path / "Test.pak").read_bytes())
    root = build_tree(str(tmp_path))
    assert "no entry for Other.pak" in _error_only(root.children()["Other.pak"])
    # --packlist elsewhere: the key comes from it, case-insensitively
    elsewhere = tmp_path / "keys"
    elsewhere.mkdir()
    shutil.move(str(tmp_path / "packlist.dat"), elsewhere / "PackList.dat")
    root = build_tree(str(tmp_path), TreeContext(packlist_path=str(elsewhere / "PackList.dat")))
    assert read_all(resolve(root, "Test.pak/R/a.bin")) == b"abc"


def test_wrong_key_gives_an_error_folder(tmp_path):
    _packs(tmp_path, [PakFile(f"R/f{i}.bin", b"x") for i in range(30)])
    write_packs(tmp_path / "k", {"Test": []}, key_strings={"Test": b"F" * 32})
    shutil.copy(tmp_path / "k/packlist.dat", tmp_path / "packlist.dat")
    root = build_tree(str(tmp_path))
    err = _error_only(root.children()["Test.pak"])
    # a wrong key turns the folder count into garbage long before the MD5 is checked
    assert err.startswith("header does not decode (wrong key or corrupt pak): ")


def test_corrupt_header_reported(tmp_path):
    _packs(tmp_path, [PakFile(f"R/f{i}.bin", b"x" * i) for i in range(10)])
    p = tmp_path / "Test.pak"
    data = bytearray(p.read_bytes())
    from gbxfs.tree.pak.archive import PakArchive
    from gbxfs.formats.pak.packlist import derive_key
    arc = PakArchive(lambda o, n: bytes(data[o:o + n]), len(data), derive_key(KS))
    data[arc.header.data_offset - 8] ^= 1
    p.write_bytes(bytes(data))
    root = build_tree(str(tmp_path))
    pak = root.children()["Test.pak"]
    assert "MD5 mismatch" in _error_only(pak)
    assert "header.md5 = MISMATCH" in read_all(pak.children()[".pak-info.txt"]).decode()


def test_truncated_pak_is_an_error_folder_not_a_crash(tmp_path):
    _packs(tmp_path, [PakFile("R/a.bin", b"a" * 1000)])
    p = tmp_path / "Test.pak"
    p.write_bytes(p.read_bytes()[:60])
    assert _error_only(build_tree(str(tmp_path)).children()["Test.pak"])


def test_unverifiable_raw_entry_answers_eio_and_folder_explains(tmp_path, monkeypatch):
    # a fresh tree: no entry of the pak was ever bad, so listings skip looking at each entry's error
    files = [PakFile("R/good.bin", b"good" * 100), PakFile("R/bad.bin", bytes(range(256)) * 8)]
    _packs(tmp_path, files)
    p = tmp_path / "Test.pak"
    data = bytearray(p.read_bytes())
    from gbxfs.tree.pak.archive import PakArchive
    from gbxfs.formats.pak.packlist import derive_key
    arc = PakArchive(lambda o, n: bytes(data[o:o + n]), len(data), derive_key(KS))
    data[arc.header.data_offset + arc.files[1].offset + 8 + 9] ^= 0x10
    p.write_bytes(bytes(data))
    root = build_tree(str(tmp_path))
    folder = resolve(root, "Test.pak/R")
    bad = folder.children()["bad.bin"]
    assert bad.size() == 2048 and bad.error is None and "error.txt" not in folder.children()
    with pytest.raises(OSError) as ei:
        bad.read(0, 10)
    assert ei.value.errno == errno.EIO
    assert bad.error                                   # known now: FUSE refuses at once
    assert folder._tree.arc.entries.any_error          # and listings look for it again
    assert "bad.bin" in read_all(folder.children()["error.txt"]).decode()
    assert folder.xattrs["user.gbxfs.error"]
    assert read_all(folder.children()["good.bin"]) == b"good" * 100


def test_unverifiable_gbx_entry_keeps_its_header_browsable(tmp_path):
    # chunk 03079F01 is known to the test registry only: the shipped one
    # cannot parse the body, so the stored entry cannot be verified
    g = GbxBuilder(header_pad=20)
    g.chunk(0x03079F01).pad(300).u32(1)
    leaf_track(g, 1)
    g.u32(0).end()
    decls = make_test_decls()
    data = build_pak([PakFile("R/x.Clip.Gbx", g.bytes(), compress=False)], KS, decls=decls)
    (tmp_path / "Test.pak").write_bytes(data)
    write_packs(tmp_path / "k", {"Test": []}, key_strings={"Test": KS})
    shutil.copy(tmp_path / "k/packlist.dat", tmp_path / "packlist.dat")
    clip = resolve(build_tree(str(tmp_path)), "Test.pak/R/x.Clip.Gbx")
    kids = clip.children()
    assert "error.txt" in kids and "header" in kids and "info.txt" in kids
    assert "cannot be verified" in read_all(kids["error.txt"]).decode()
    assert kids["original.gbx"].error
    assert clip.xattrs["user.gbxfs.error"]


def test_name_collision_keeps_both(tmp_path):
    files = [PakFile("R/Thing", b"file"), PakFile("R/Thing/inner.bin", b"inner")]
    _packs(tmp_path, files)
    r = resolve(build_tree(str(tmp_path)), "Test.pak/R")
    kids = r.children()
    assert kids["Thing"].is_dir and read_all(kids["Thing"].children()["inner.bin"]) == b"inner"
    assert read_all(kids["Thing~2"]) == b"file"


def test_pack_gbx_header_view(tmp_path):
    from test_pak_packgbx import build
    data = build(13)
    src = BytesSource(data)
    assert probe_pack_gbx("X.Pack.Gbx", src) and not probe_pack_gbx("x", BytesSource(b"GBX\x06\x00"))
    d = open_pack_gbx("X.Pack.Gbx", src, TreeContext())
    kids = d.children()
    assert "title_id = TMCanyon" in read_all(kids["pack-info.txt"]).decode()
    assert read_all(kids["pack.xml"]) == b"<pack type='title'/>"
    # a .pak whose version says ManiaPlanet is shown the same way
    p = tmp_path / "Old.pak"
    p.write_bytes(data)
    assert "pack-info.txt" in open_pak("Old.pak", FileSource(str(p)), TreeContext()).children()
