"""Collections, macroblocks, block infos, spawn models and materials of the corpus
(kind "other"): declarations from GBX.NET facts, checked by the node end markers and by
facts the files store twice (header vs body, references vs the reference table,
positions vs block coordinates)."""
from __future__ import annotations

import functools
import math

import pytest
from corpusdata import CORPUS, manifest_rows

from gbxfs.formats import gbx

pytestmark = pytest.mark.corpus


@functools.lru_cache(maxsize=None)
def parsed(suffix: str) -> tuple:
    """(path, Gbx) of the corpus files whose path ends with `suffix` (case-insensitive)."""
    return tuple((row["path"], gbx.parse((CORPUS / row["path"]).read_bytes())) for row in manifest_rows()
                 if row["path"].lower().endswith(suffix.lower()))


def values(node, chunk_id: int) -> dict:
    c = node.chunk(chunk_id)
    assert c is not None and c.error is None, (f"{chunk_id:08X}", c and c.error)
    return c.values


def header(g, chunk_id: int) -> dict:
    return next(c.values for c in g.header.chunks if c.chunk_id == chunk_id)


def test_collection_body_repeats_the_header_and_points_at_its_files(corpus):
    files = parsed(".TMCollection.Gbx")
    assert files
    for path, g in files:
        assert g.body.status == "complete", (path, g.body.error)
        desc, body = header(g, 0x03033001), values(g.body.main, 0x03033009)
        assert body["collection"] == desc["collection"], path
        if desc["version"] >= 4:
            assert body["vehicle"] == desc["vehicle"], path
        assert body["numZones"] == len(body["completeZoneList"]) > 0
        kinds = {".TMZone": body["completeZoneList"] + [body["defaultZone"]],
                 ".Texture.": [values(g.body.main, 0x0303300D)[k] for k in ("iconFid", "iconSmallFid")],
                 ".TMDecoration.": [values(g.body.main, 0x03033011)["defaultDecoration"]]}
        for part, refs in kinds.items():
            for ref in refs:
                assert ref.kind == "external" and part in ref.external.file_name, (path, ref)


def test_macroblock_object_spawns_lie_in_their_block_coordinates(corpus):
    """0310D00E: each item's absolute position lies in the block cell it names (blocks
    are 32 x 8 x 32 m in ManiaPlanet and TM2020)."""
    files = parsed(".Macroblock.Gbx")
    assert len(files) == 2
    spawns = 0
    for path, g in files:
        assert g.body.status == "complete", (path, g.body.error)
        blocks = values(g.body.main, 0x0310D000)["blockSpawns"]
        assert blocks and all(isinstance(b["blockModel"]["id"], str) and b["blockModel"]["id"] for b in blocks)
        for s in values(g.body.main, 0x0310D00E)["objectSpawns"]:
            x, y, z = s["absolutePositionInMap"]
            assert s["blockCoord"] == (math.floor(x / 32), math.floor(y / 8), math.floor(z / 32)), (path, s)
            assert s["itemModel"]["id"], path
            spawns += 1
    assert spawns >= 10


def test_block_info_names_itself_like_its_header(corpus):
    """0304E005 (body) names the block as the collector header 2E001003 does; its unit
    infos are read to their end markers and their clips are clip files."""
    checked = 0
    for path, g in parsed(".TMEDClassic.Gbx") + parsed(".TMEDRoad.Gbx"):
        units = g.body.main.chunk(0x0304E005)
        if units.values is None:      # the Road block stops inside a nested scene mobil
            assert "CSceneMobil" in str(g.body.error), path
            continue
        v = units.values
        assert v["blockName"] == header(g, 0x2E001003)["name"], path
        for ref in v["groundUnits"] + v["airUnits"]:
            assert ref.kind == "new" and ref.node.complete, path
            for clip in values(ref.node, 0x03036000)["clips"]:
                assert clip is None or ".TMEDClip." in clip.external.file_name, path
        checked += 1
    assert checked >= 1


def test_spawn_model_and_material_files_parse_completely(corpus):
    files = parsed(".Spawn.Gbx") + parsed(".Mat.Gbx")
    assert len(files) == 2
    for path, g in files:
        assert g.body.status == "complete", (path, g.body.error)
    (_, spawn), = parsed(".Spawn.Gbx")
    loc = values(spawn.body.main, 0x2E00E000)["loc"]
    rows = [loc[0:3], loc[3:6], loc[6:9]]       # the rotation part of an iso4 is orthonormal
    for i, a in enumerate(rows):
        for j, b in enumerate(rows):
            assert math.isclose(sum(p * q for p, q in zip(a, b)), float(i == j), abs_tol=1e-5)
