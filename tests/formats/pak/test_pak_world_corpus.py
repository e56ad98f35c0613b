"""Real pack files of the "world" classes (collections, decorations, block infos) go
through the project's pak writer and reader byte-exactly: the reader must walk every
node of a GBX entry while it decrypts, so this needs their chunks declared."""
from __future__ import annotations

import pytest
from corpusdata import CORPUS, manifest_rows

from gbxfs.formats import gbx
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.writer import PakFile, build_pak

pytestmark = pytest.mark.corpus

KS = b"A1B2C3D4E5F60718293A4B5C6D7E8F90"
KEY = derive_key(KS)
WORLD = ("CGameCtnCollection", "CGameCtnDecoration", "CGameCtnBlockInfo")
DAMAGED = "IslandSeaWaySupport.TMEDRoad.Gbx"     # see test_other_corpus.py


def world_files() -> list[tuple[str, bytes]]:
    out = []
    for row in manifest_rows():
        if row["kind"] != "other":
            continue
        data = (CORPUS / row["path"]).read_bytes()
        name = gbx.parse(data, body=False).class_name or ""
        if name.startswith(WORLD):
            out.append((row["path"], data))
    return out


@pytest.mark.parametrize("compress", [False, True])
def test_world_pack_files_round_trip_through_a_pak(corpus, compress):
    files = [(p, d) for p, d in world_files() if not p.endswith(DAMAGED)]
    names = {gbx.parse(d, body=False).class_name for _, d in files}
    assert {"CGameCtnCollection", "CGameCtnDecoration", "CGameCtnBlockInfoClassic"} <= names
    paks = [PakFile(f"Game/{i}/{p.rsplit('/', 1)[-1]}", d, compress=compress) for i, (p, d) in enumerate(files)]
    data = build_pak(paks, KS)
    arc = PakArchive(lambda o, n: data[o:o + n], len(data), KEY)
    assert len(arc.files) == len(files)
    for rec, (path, original) in zip(arc.files, files):
        e = arc.entry(rec)
        assert e.kind == "gbx" and e.check() is None, (path, e.error)
        assert e.read(0, e.size) == original, path


def test_damaged_block_info_is_refused_stored_and_checked_by_adler_when_compressed(corpus):
    """A stored entry is only verified by its walk, which stops in the damaged mobil: the
    writer refuses it. A compressed one is verified by zlib's Adler-32 (writer and
    reader stop feeding at the same place), so its bytes still come back exactly."""
    (path, data), = [(p, d) for p, d in world_files() if p.endswith(DAMAGED)]
    with pytest.raises(ValueError, match=r"unknown chunk 606F8B0A .* node #5 CSceneMobil"):
        build_pak([PakFile("Game/Road/" + DAMAGED, data, compress=False)], KS)
    pak = build_pak([PakFile("Game/Road/" + DAMAGED, data, compress=True)], KS)
    arc = PakArchive(lambda o, n: pak[o:o + n], len(pak), KEY)
    e = arc.entry(arc.files[0])
    assert e.check() is None and e.read(0, e.size) == data, e.error
