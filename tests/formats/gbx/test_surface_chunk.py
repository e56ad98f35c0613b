"""CPlugSurface 0900C003 on hand-built bodies, GBX.NET's facts: in chunk version 1 an
empty compound has no joint list (a ShootMania shape of one NotCollidable material is
such a surface); a compound with surfaces, or any compound from version 2 on (with
surface version 1), has one. After the materials, version 2 and below keep a data block,
version 3 the surface ids only when there is no material, version 4 an int32 (when there
are materials) and the surface ids."""
from __future__ import annotations

import struct

from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.formats.gbx.writer import END, W

NOT_COLLIDABLE = 0x1C


def surface(version: int, compound: bytes, surf_version: int | None = None) -> bytes:
    """A CPlugSurface main node: one 0900C003 chunk (given compound, one material by
    surface id, its data byte, a CPlugSkel node of no chunks from version 1 on)."""
    w = W().u32(0x0900C003).u32(version)
    if surf_version is not None:
        w.u32(surf_version)
    w.u32(13).raw(compound)
    w.u32(1).u32(0).raw(struct.pack("<h", NOT_COLLIDABLE))      # one material: a surface id
    if version < 3:
        w.u32(1).raw(bytes([NOT_COLLIDABLE]))                   # its data byte
    if version >= 4:
        w.i32(7).u32(1).raw(struct.pack("<H", NOT_COLLIDABLE))  # an int32, then its surface id
    if version >= 1:
        w.u32(1).u32(0x090BA000).u32(END)                       # skel: new node #1, no chunks
    return w.u32(END).bytes()


def walk(body: bytes):
    return walk_body(body, class_id=0x0900C000, num_nodes=2)


def test_version_1_empty_compound_has_no_joints():
    res = walk(surface(1, struct.pack("<I", 0)))
    assert res.status == "complete", res.error
    v = res.main.chunks[0].values
    assert v["surf"]["numSurfs"] == 0 and "numSurfJoints" not in v["surf"]
    assert v["numMaterials"] == 1 and v["materials"][0]["surfaceId"] == NOT_COLLIDABLE
    assert v["data"] == bytes([NOT_COLLIDABLE])


def test_version_1_compound_with_surfaces_has_joints():
    sphere = struct.pack("<Ifh", 0, 0.5, 3)                      # type, radius, surface index
    loc = struct.pack("<12f", 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)
    res = walk(surface(1, struct.pack("<I", 1) + sphere + loc + struct.pack("<Ih", 1, 0)))
    assert res.status == "complete", res.error
    assert res.main.chunks[0].values["surf"]["surfJoints"] == [0]


def test_version_2_empty_compound_has_a_joint_list():
    res = walk(surface(2, struct.pack("<II", 0, 0), surf_version=1))
    assert res.status == "complete", res.error
    assert res.main.chunks[0].values["surf"]["numSurfJoints"] == 0


def test_version_3_with_materials_ends_with_the_skel():
    res = walk(surface(3, struct.pack("<II", 0, 0), surf_version=1))
    assert res.status == "complete", res.error
    v = res.main.chunks[0].values
    assert "data" not in v and "surfaceIds" not in v and v["skel"] is not None


def test_version_4_reads_an_int32_then_the_surface_ids():
    res = walk(surface(4, struct.pack("<II", 0, 0), surf_version=1))
    assert res.status == "complete", res.error
    v = res.main.chunks[0].values
    assert v["_u1"] == 7 and v["surfaceIds"] == [NOT_COLLIDABLE]
