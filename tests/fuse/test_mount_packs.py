"""Paks and ManiaPlanet/TM2020 packs through a real mount: typed hashed names
with their stored name in an xattr, no-feed GBX entries as folders, public
pack files readable without keys, locked ones EIO with error.txt, and a key
file given with -o packlist= opening the rest."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from pack6_kit import FOLDERS, KEY, RAW, needs_lz4

from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.formats.pak.writer6 import PackFile, build_pack

pytestmark = [pytest.mark.mount]

HASHED = "0A1B2C3D4E5F60718293A4B5C6D7E8F901"
DDS = 0x09024000


def _gbx() -> bytes:
    # a GBX the shipped declarations need not parse: entries without feeds are verified
    # by their bytes alone (zlib Adler-32, or nothing to verify for stored ones)
    from pack6_kit import GBX
    return GBX


def _source(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    gbx = _gbx()
    write_packs(src, {"Game": [PakFile("Game/Media/NoFeed.Clip.Gbx", gbx, feeds=False),
                               PakFile(f"Game/Media/{HASHED}", RAW, class_id=DDS)]})
    files = [PackFile("Data/Open/public.bin", RAW, public=True),
             PackFile("Data/Open/nocrypt.bin", RAW, no_crypt=True, compress=True),
             PackFile("Data/Open/locked.bin", RAW),
             PackFile("Data/Open/Clip.Clip.Gbx", gbx, public=True),
             PackFile(f"Data/Open/{HASHED}", RAW, class_id=DDS, public=True)]
    (src / "Open.Pack.Gbx").write_bytes(build_pack(files, version=18, key=KEY, header_flags=2, folders=FOLDERS))
    (src / "Private.Title.Pack.Gbx").write_bytes(build_pack(files, version=12, key=KEY, header_flags=1))
    (tmp_path / "keys.txt").write_text(f"Open.Pack.Gbx {KEY.hex()}\nPrivate.Title.Pack.Gbx {KEY.hex()}\n")
    return src


def test_packs_and_hashed_names_through_a_real_mount(mounter, tmp_path):
    needs_lz4(18)
    src = _source(tmp_path)
    mp = Path(mounter.mount(src))
    media = mp / "Game.pak/Game/Media"
    assert sorted(os.listdir(media)) == sorted(["NoFeed.Clip.Gbx", f"{HASHED}.dds"])
    assert (media / f"{HASHED}.dds").read_bytes() == RAW
    assert os.getxattr(media / f"{HASHED}.dds", "user.pak.stored_name") == HASHED.encode()
    assert (media / "NoFeed.Clip.Gbx").is_dir()
    assert (media / "NoFeed.Clip.Gbx/original.gbx").read_bytes() == _gbx()

    opened = mp / "Open.Pack.Gbx/Data/Open"
    assert (opened / "public.bin").read_bytes() == RAW and (opened / "nocrypt.bin").read_bytes() == RAW
    assert (opened / f"{HASHED}.dds").read_bytes() == RAW
    assert (opened / "Clip.Clip.Gbx/original.gbx").read_bytes() == _gbx()
    assert (opened / "locked.bin").stat().st_size == len(RAW)
    with pytest.raises(OSError) as e:
        (opened / "locked.bin").read_bytes()
    assert e.value.errno == errno.EIO
    assert "locked.bin" in (opened / "error.txt").read_text()
    private = mp / "Private.Title.Pack.Gbx"
    assert "not public" in (private / "error.txt").read_text()
    assert "table.storage = private key" in (private / "pack-info.txt").read_text()

    mp2 = Path(mounter.mount(src, f"packlist={tmp_path / 'keys.txt'}"))
    assert (mp2 / "Open.Pack.Gbx/Data/Open/locked.bin").read_bytes() == RAW
    assert not (mp2 / "Open.Pack.Gbx/Data/Open/error.txt").exists()
    for name in ("public.bin", "nocrypt.bin", "locked.bin", f"{HASHED}.dds"):
        assert (mp2 / "Private.Title.Pack.Gbx/Data/Open" / name).read_bytes() == RAW


def _sample_clip(corpus) -> bytes:
    """A GBX the shipped declarations parse completely (so its encrypted copies
    are written with real feeds): a clip of the synthetic sample pak."""
    from gbxfs.tree.root import build_tree
    from gbxfs.tree.walk import resolve
    f = resolve(build_tree(str(corpus / "synthetic-pak/Packs")),
                "Sample.pak/Sample/Media/Clips/Clip3.Clip.Gbx/original.gbx")
    return f.read(0, f.size())


@pytest.mark.corpus
def test_every_version_and_flag_combination_through_a_real_mount(mounter, tmp_path, corpus):
    from pack6_kit import combo_files
    needs_lz4(18)
    clip = _sample_clip(corpus)
    src = tmp_path / "packs"
    src.mkdir()
    want: dict[str, tuple[bytes, bool]] = {}      # path in the mount -> (bytes, needs the key)
    keys = []
    for version in (6, 9, 12, 15, 18):
        for flags in (0, 1, 2, 3):
            name = f"V{version}F{flags}.Pack.Gbx"
            files = combo_files(PackFile)
            files = [f for f in files if not (f.path.endswith(".Gbx") and f.feeds and f.encrypted)]
            files += [PackFile("Data/Clip.Clip.Gbx", clip), PackFile("Data/ClipZ.Clip.Gbx", clip, compress=True)]
            (src / name).write_bytes(build_pack(files, version=version, key=KEY, header_flags=flags,
                                                folders=FOLDERS))
            keys.append(f"{name} {KEY.hex()}")
            for f in files:
                shown = f"{name}/{f.path}" + ("/original.gbx" if f.path.endswith(".Gbx") else "")
                want[shown] = (f.data, f.encrypted or bool(flags & 1))
    (tmp_path / "keys.txt").write_text("\n".join(keys) + "\n")
    plain = Path(mounter.mount(src))
    keyed = Path(mounter.mount(src, f"packlist={tmp_path / 'keys.txt'}"))
    locked = 0
    for rel, (data, needs_key) in want.items():
        assert (keyed / rel).read_bytes() == data, rel
        if not needs_key:
            assert (plain / rel).read_bytes() == data, rel
        elif (plain / rel).parent.exists():      # a private table shows no tree at all
            locked += 1
            with pytest.raises(OSError) as e:
                (plain / rel).read_bytes()
            assert e.value.errno == errno.EIO, rel
    assert locked == 5 * 2 * (4 + 2 + 2)    # versions x public tables x (locked raw, no-feed GBX, clips)
