"""A source file rewritten in place (cp over it: same inode, the folder's mtime
unchanged) is served anew through a mount, also when it is shown as a folder."""
from __future__ import annotations

import os

import pytest

from gbxfs.formats.gbx.writer import END, W, build_gbx
from gbxfs.formats.pak.writer import PakFile, write_packs

pytestmark = pytest.mark.mount


def _map_gbx(marker: int) -> bytes:
    return build_gbx(class_id=0x03043000, header_chunks=[], body=W().u32(marker).u32(END).bytes())


def _overwrite(path, data: bytes) -> None:
    with open(path, "r+b") as f:      # what cp does to an existing file
        f.truncate(0)
        f.write(data)


def test_files_shown_as_folders_are_revalidated(mounter, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    write_packs(src, {"X": [PakFile("A/raw.bin", b"old", compress=False)]})
    (src / "M.Map.Gbx").write_bytes(_map_gbx(0x11111111))
    mp = mounter.mount(src, "timeout=0")
    assert open(f"{mp}/X.pak/A/raw.bin", "rb").read() == b"old"
    old_gbx = open(f"{mp}/M.Map.Gbx/original.gbx", "rb").read()
    assert old_gbx == _map_gbx(0x11111111)

    newer = tmp_path / "newer"
    newer.mkdir()
    write_packs(newer, {"X": [PakFile("A/raw.bin", b"new bytes", compress=False)]})
    _overwrite(src / "X.pak", (newer / "X.pak").read_bytes())
    _overwrite(src / "M.Map.Gbx", _map_gbx(0x22222222) + b"\0" * 7)   # another size too
    assert open(f"{mp}/X.pak/A/raw.bin", "rb").read() == b"new bytes"
    assert open(f"{mp}/M.Map.Gbx/original.gbx", "rb").read() == _map_gbx(0x22222222) + b"\0" * 7
    assert os.stat(f"{mp}/M.Map.Gbx/original.gbx").st_size == len(old_gbx) + 7
