"""The "world" classes of the packs (collections and their zones, block infos and their
scene mobils, macroblocks) in the corpus: facts a file stores twice or that must agree
across its nodes, read through the declarations of collection/zone/scene/macroblock."""
from __future__ import annotations

import pytest
from corpusdata import manifest_rows, parsed_gbx

from gbxfs.formats import gbx

pytestmark = pytest.mark.corpus


def parsed(suffix: str) -> list[tuple[str, gbx.Gbx]]:
    return [(row["path"], parsed_gbx(row["path"])[1]) for row in manifest_rows()
            if row["path"].lower().endswith(suffix.lower())]


def values(node, chunk_id: int) -> dict:
    c = node.chunk(chunk_id)
    assert c is not None and c.error is None, (f"{chunk_id:08X}", c and c.error)
    return c.values


def test_embedded_zones_link_their_block_infos_and_each_other(corpus):
    """TM 1.0 collections embed their zones: flat zones point at .TMEDFlat files, and a
    frontier zone joins two zones of the same collection through a .TMEDFrontier file."""
    checked = 0
    for path, g in parsed(".TMCollection.Gbx"):
        zones = [ref.node for ref in values(g.body.main, 0x03033009)["completeZoneList"] if ref.node]
        if not zones:
            continue
        ids = {values(z, 0x0305C003)["zoneId"] for z in zones}
        flats = [z for z in zones if z.class_name == "CGameCtnZoneFlat"]
        frontiers = [z for z in zones if z.class_name == "CGameCtnZoneFrontier"]
        assert flats and frontiers and len(flats) + len(frontiers) == len(zones), path
        for z in flats:
            flat = values(z, 0x0305D001)["blockInfoFlat"]
            assert flat.kind == "external" and flat.external.file_name.endswith(".TMEDFlat.Gbx"), path
        for z in frontiers:
            v = values(z, 0x0305E001)
            assert v["blockInfoFrontier"].external.file_name.endswith(".TMEDFrontier.Gbx"), path
            assert v["parentZoneId"] in ids and v["childZoneId"] in ids, (path, v)
            assert v["parentZoneId"] != v["childZoneId"], path
        checked += 1
    assert checked >= 1


def test_block_info_mobils_carry_solids(corpus):
    """0304E005's mobils are mobil files or scene mobils read to their end markers; each
    mobil's inline item (0A011005) holds a solid: a CPlugSolid node or a .Solid.Gbx file."""
    mobils = 0
    for path, g in parsed(".TMEDClassic.Gbx"):
        assert g.body.status == "complete", (path, g.body.error)
        v = values(g.body.main, 0x0304E005)
        for lst in v["groundMobilLists"] + v["airMobilLists"]:
            for ref in lst["mobils"]:
                if ref.kind == "external":
                    assert ref.external.file_name.endswith(".Mobil.Gbx"), path
                    continue
                assert ref.node.class_name == "CSceneMobil" and ref.node.complete, path
                item = values(ref.node, 0x0A011005)["item"].node
                assert item.complete and item.class_name == "CHmsItem", path
                solid = values(item, 0x06003001)["solid"]
                if solid.kind == "external":
                    assert solid.external.file_name.endswith(".Solid.Gbx"), path
                else:
                    assert solid.node.class_name == "CPlugSolid", path
                mobils += 1
    assert mobils >= 2          # the Sunrise bridge: one ground and one air mobil


def test_macroblock_script_metadata_and_clips_fill_their_sizes(corpus):
    """0310D00B and 0310D011 store the size of their encapsulated part: the metadata node
    and the MediaTracker spawns fill it exactly (the chunks are skippable: a wrong layout
    leaves them raw with an error)."""
    seen = set()
    for path, g in parsed(".Macroblock.Gbx"):
        for cid in (0x0310D00B, 0x0310D011):
            c = g.body.main.chunk(cid)
            if c is None:
                continue
            assert c.error is None and c.values is not None, (path, c.error)
            assert c.values["size"] == c.size - (8 if cid == 0x0310D00B else 12), path
            seen.add(cid)
        if g.body.main.chunk(0x0310D00B):
            assert values(g.body.main, 0x0310D00B)["scriptMetadata"]["chunkID"] == 0x11002000
    assert seen == {0x0310D00B, 0x0310D011}
