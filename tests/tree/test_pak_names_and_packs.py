"""Paks as a game install holds them: every GBX entry a folder (no-feed ones
too), hashed names typed by class, ManiaPlanet/TM2020 packs as trees with and
without keys, and extract's stored/typed names."""
from __future__ import annotations

import errno
import sys
from pathlib import Path

import pytest
from pack6_kit import FOLDERS, GBX, KEY, RAW, combo_files, needs_lz4
from pak_testkit import make_test_decls

from gbxfs.cli import extract
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.formats.pak.writer6 import PackFile, build_pack
from gbxfs.tree.context import TreeContext
from gbxfs.tree.pak.entries import PakEntryFile, PakGbxDir
from gbxfs.tree.root import build_tree
from gbxfs.tree.walk import resolve

DECLS = make_test_decls()
HASH_GBX = "0A1B2C3D4E5F60718293A4B5C6D7E8F901"     # 34 hex digits, like the game's hashed names
HASH_DDS = "77665544332211000FFEEDDCCBBAA99887"
HASH_UNKNOWN = "1234567890ABCDEF1234567890ABCDEF12"
DDS = 0x09024000          # CPlugFileDds
UNKNOWN_CLASS = 0x7FFFF000


def read_all(f) -> bytes:
    return f.read(0, f.size())


def _v3_folder(tmp_path) -> Path:
    """A version 3 pak: a no-feed GBX, hashed GBX/DDS/unknown entries."""
    files = [
        PakFile("Game/Media/NoFeed.Clip.Gbx", GBX, feeds=False),
        PakFile(f"Game/Media/{HASH_GBX}", GBX),
        PakFile(f"Game/Media/{HASH_DDS}", RAW, class_id=DDS),
        PakFile(f"Game/Media/{HASH_UNKNOWN}", RAW, class_id=UNKNOWN_CLASS),
    ]
    write_packs(tmp_path, {"Game": files}, decls=DECLS)
    return tmp_path


@pytest.fixture(autouse=True)
def _test_decls(monkeypatch):
    # embedded test GBX files use test chunks: the tree must parse them with these declarations
    from gbxfs.tree.pak import archive, archive6
    for mod, cls in ((archive, "PakArchive"), (archive6, "PackArchive")):
        orig = getattr(mod, cls).__init__

        def init(self, *a, _orig=orig, **kw):
            kw.setdefault("decls", DECLS)
            kw["decls"] = kw["decls"] or DECLS
            _orig(self, *a, **kw)
        monkeypatch.setattr(getattr(mod, cls), "__init__", init)


def test_no_feed_gbx_entry_is_a_gbx_folder(tmp_path):
    root = build_tree(str(_v3_folder(tmp_path)))
    d = resolve(root, "Game.pak/Game/Media/NoFeed.Clip.Gbx")
    assert isinstance(d, PakGbxDir) and d.is_dir
    kids = d.children()
    assert read_all(kids["original.gbx"]) == GBX
    assert {"info.txt", "header"} <= set(kids)
    assert int(d.xattrs["user.pak.flags"], 16) & 0x100000000


def test_hashed_names_typed_by_class(tmp_path):
    root = build_tree(str(_v3_folder(tmp_path)))
    media = resolve(root, "Game.pak/Game/Media").children()
    gbx, dds = media[f"{HASH_GBX}.Clip.Gbx"], media[f"{HASH_DDS}.dds"]
    assert gbx.is_dir and read_all(gbx.children()["original.gbx"]) == GBX
    assert gbx.xattrs["user.pak.stored_name"] == HASH_GBX.encode()
    assert isinstance(dds, PakEntryFile) and read_all(dds) == RAW
    assert dds.xattrs["user.pak.stored_name"] == HASH_DDS.encode()
    assert dds.xattrs["user.pak.class_id"] == b"09024000"
    # a class that implies nothing keeps its stored name; so do names with an extension
    assert HASH_UNKNOWN in media and "user.pak.stored_name" not in media[HASH_UNKNOWN].xattrs
    assert "user.pak.stored_name" not in media["NoFeed.Clip.Gbx"].xattrs
    info = read_all(resolve(root, "Game.pak/.pak-info.txt")).decode()
    assert "typed_names = 2" in info
    assert f"Game/Media/{HASH_DDS}.dds <- {HASH_DDS}" in info


def test_stored_names_when_typing_is_off(tmp_path):
    root = build_tree(str(_v3_folder(tmp_path)), TreeContext(typed_names=False))
    media = resolve(root, "Game.pak/Game/Media").children()
    assert HASH_GBX in media and HASH_DDS in media and not media[HASH_GBX].is_dir


def _packs(tmp_path, version: int, header_flags: int) -> Path:
    needs_lz4(version)
    files = combo_files(PackFile) + [PackFile(f"Data/{HASH_DDS}", RAW, class_id=DDS, public=True)]
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "Data.Pack.Gbx").write_bytes(build_pack(files, version=version, key=KEY, header_flags=header_flags,
                                                        folders=FOLDERS, decls=DECLS, title_id="TMStadium"))
    (tmp_path / "keys.txt").write_text(f"# test keys\nData.Pack.Gbx {KEY.hex()}\n")
    return tmp_path


@pytest.mark.parametrize("version", [8, 12, 18])
def test_pack_without_key_shows_public_files_and_explains_the_rest(tmp_path, version):
    root = build_tree(str(_packs(tmp_path, version, 2)))
    pack = resolve(root, "Data.Pack.Gbx")
    kids = pack.children()
    info = read_all(kids["pack-info.txt"]).decode()
    assert "table.storage = default key (public)" in info
    assert ("title_id = TMStadium" in info) == (version >= 12)    # the plain header has a title id from 12
    assert "files.need_key = 8" in info and f"{HASH_DDS}.dds <- {HASH_DDS}" in info
    sub = resolve(root, "Data.Pack.Gbx/Data/Sub").children()
    assert read_all(sub["raw0100.bin"]) == RAW and read_all(sub["raw1011.bin"]) == RAW   # PublicFile, ForceNoCrypt
    locked = sub["raw0000.bin"]
    assert locked.size() == len(RAW)
    with pytest.raises(OSError) as e:
        locked.read(0, 10)
    assert e.value.errno == errno.EIO
    err = read_all(sub["error.txt"]).decode()
    assert "raw0000.bin" in err and "--packlist" in err and "raw0100.bin" not in err
    data = resolve(root, "Data.Pack.Gbx/Data").children()
    assert read_all(data[f"{HASH_DDS}.dds"]) == RAW
    assert read_all(data["Gbx0100.Clip.Gbx"].children()["original.gbx"]) == GBX   # public GBX: a folder


@pytest.mark.parametrize("version,header_flags", [(8, 1), (12, 3), (18, 1), (18, 0)])
def test_pack_with_a_key_file_reads_everything(tmp_path, version, header_flags):
    folder = _packs(tmp_path, version, header_flags)
    nokey = build_tree(str(folder)).children()["Data.Pack.Gbx"].children()
    if header_flags & 1:
        assert "error.txt" in nokey and "not public" in read_all(nokey["error.txt"]).decode()
    root = build_tree(str(folder), TreeContext(packlist_path=str(folder / "keys.txt")))
    for tag in ("0000", "1001", "0100", "1011"):
        assert read_all(resolve(root, f"Data.Pack.Gbx/Data/Sub/raw{tag}.bin")) == RAW
        gbx = resolve(root, f"Data.Pack.Gbx/Data/Gbx{tag}.Clip.Gbx")
        assert read_all(gbx.children()["original.gbx"]) == GBX and "error.txt" not in gbx.children()
    assert "error.txt" not in resolve(root, "Data.Pack.Gbx/Data/Sub").children()


def test_extract_keeps_stored_names_unless_asked(tmp_path, capsys):
    src = _v3_folder(tmp_path / "src")
    assert extract.main([str(src), str(tmp_path / "plain"), "-q"]) == 0
    media = tmp_path / "plain/Game.pak/Game/Media"
    assert (media / HASH_GBX).read_bytes() == GBX and (media / HASH_DDS).read_bytes() == RAW
    assert (media / "NoFeed.Clip.Gbx").read_bytes() == GBX
    assert extract.main([str(src), str(tmp_path / "typed"), "-q", "--typed-names"]) == 0
    media = tmp_path / "typed/Game.pak/Game/Media"
    assert (media / f"{HASH_GBX}.Clip.Gbx").read_bytes() == GBX
    assert (media / f"{HASH_DDS}.dds").read_bytes() == RAW and (media / HASH_UNKNOWN).read_bytes() == RAW


def test_extract_a_pack_without_key_writes_public_files_and_reports_the_rest(tmp_path, capsys):
    src = _packs(tmp_path / "src", 18, 2)
    assert extract.main([str(src), str(tmp_path / "out"), "-q"]) == extract.EXIT_PARTIAL
    out = tmp_path / "out/Data.Pack.Gbx/Data"
    assert (out / "Sub/raw0100.bin").read_bytes() == RAW and not (out / "Sub/raw0000.bin").exists()
    assert "not public" in capsys.readouterr().err
    assert extract.main([str(src), str(tmp_path / "all"), "-q", "--packlist", str(src / "keys.txt")]) == 0
    assert (tmp_path / "all/Data.Pack.Gbx/Data/Sub/raw0000.bin").read_bytes() == RAW


def test_gbxfs_ls_shows_typed_names_and_gbx_folders(tmp_path):
    import subprocess
    folder = _v3_folder(tmp_path)
    res = subprocess.run([sys.executable, "-m", "gbxfs", "ls", str(folder / "Game.pak/Game/Media")],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    shown = res.stdout.split()
    assert f"{HASH_GBX}.Clip.Gbx/" in shown and "NoFeed.Clip.Gbx/" in shown     # folders end in /
    assert f"{HASH_DDS}.dds" in shown and HASH_UNKNOWN in shown
    res = subprocess.run([sys.executable, "-m", "gbxfs", "ls", str(folder / "Game.pak/Game/Media/NoFeed.Clip.Gbx")],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and "original.gbx" in res.stdout.split()
