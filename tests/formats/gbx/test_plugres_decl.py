"""Pack resource declarations no corpus file exercises yet (bitmap, material, particle,
beam chunks; all `unverified`): hand-built bodies for the places where a layout depends
on something other than a plain version number - whether a node reference is null, a
value of another chunk of the node, an archive version the chunk implies, a shape kind.
Each body is walked with the shipped declarations and must end exactly on the node's
end marker; the bodies are written from GBX.NET's layouts with gbxfs/formats/gbx/writer.py."""
from __future__ import annotations

import struct

from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.formats.gbx.writer import W, node_body

NULL = 0xFFFFFFFF


def u32(*vs: int) -> bytes:
    return struct.pack(f"<{len(vs)}I", *vs)


def f32(*vs: float) -> bytes:
    return struct.pack(f"<{len(vs)}f", *vs)


def new_node(index: int, class_id: int) -> bytes:
    """A node reference to a new node of `class_id` that has no chunks."""
    return u32(index, class_id, 0xFACADE01)


def walk(class_id: int, chunks: list[tuple[int, bytes]], num_nodes: int = 1):
    res = walk_body(node_body([(cid, data, False) for cid, data in chunks]), class_id=class_id,
                    num_nodes=num_nodes)
    assert res.status == "complete", res.error
    return res.main


def test_bitmap_image_chunk_reads_its_trailing_reference_only_after_an_image():
    # 09011018: image ref, u64 flags, 3 floats, border colour, then a node ref iff an image
    tail = struct.pack("<Q", 0x1234) + f32(0.5, 1.0, 0.0) + u32(0xFF00FF)
    without = walk(0x09011000, [(0x09011018, u32(NULL) + tail)])
    values = without.chunk(0x09011018).values
    assert values["image"] is None and values["flags"] == 0x1234 and values["borderRGB"] == 0xFF00FF
    assert "_u1" not in values
    with_image = walk(0x09011000, [(0x09011018, new_node(1, 0x09025000) + tail + u32(NULL))], num_nodes=2)
    values = with_image.chunk(0x09011018).values
    assert values["image"].node.class_id == 0x09025000 and values["_u1"] is None
    # without its trailing reference the chunk runs into the end marker: the node is cut
    cut = walk_body(node_body([(0x09011018, new_node(1, 0x09025000) + tail, False)]),
                    class_id=0x09011000, num_nodes=2)
    assert cut.status != "complete"


def test_material_device_materials_follow_only_a_null_shader():
    # 09079015 version 7: null shader -> device materials (archive version 21: bool and
    # three shaders each), ints, an int; a shader -> colour target tables and one node
    device = struct.pack("<hh", 1, 2) + u32(1) + u32(NULL, NULL, NULL)
    body = u32(7, NULL) + u32(2) + device + device + u32(3, 10, 11, 12) + u32(5)
    values = walk(0x09079000, [(0x09079015, body)]).chunk(0x09079015).values
    assert len(values["deviceMaterials"]) == 2 and values["ints"] == [10, 11, 12]
    body = u32(7) + new_node(1, 0x09002000) + u32(1, NULL) + u32(NULL)
    values = walk(0x09079000, [(0x09079015, body)], num_nodes=2).chunk(0x09079015).values
    assert values["colorTargetTables"] == [None] and "deviceMaterials" not in values
    # 09079004 reads the same structure as archive version 4: one shader each
    values = walk(0x09079000, [(0x09079004, u32(1) + device[:8] + u32(NULL))]).chunk(0x09079004).values
    assert set(values["deviceMaterials"][0]) == {"_u1", "_u2", "_u3", "shader1"}


def test_custom_material_gpu_parameters_are_rows_of_floats():
    # 0903A00A: two arrays of (id, count1, count2, bool, count2 rows of count1 floats)
    w = W()
    w.u32(1)
    w.id("Color")
    first = w.bytes() + u32(3, 2, 1) + f32(*range(6))
    w.buf = bytearray()
    w.u32(0)
    values = walk(0x0903A000, [(0x0903A00A, first + w.bytes())]).chunk(0x0903A00A).values
    fx = values["gpuFxs1"][0]
    assert fx["name"] == "Color" and [row["values"] for row in fx["rows"]] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert values["gpuFxs2"] == []


def test_beam_material_is_a_path_or_a_reference_as_the_geometry_chunk_says():
    def geometry(version: int, as_strings: bool) -> bytes:
        out = u32(version) + f32(1.0) + u32(6, 100) + f32(0.1, 0.2) + u32(0)
        out += u32(8) + f32(1, 2, 3, 4, 5) + u32(3)                  # helix (v5, v6)
        if version <= 9:
            out += u32(0)                                             # no materials (v7..9)
        out += f32(0.5, 0.25, 0.1) + u32(2) + f32(9.0) + f32(0.0, 1.0)  # lightning (v8), fade (v9)
        if version >= 10:
            out += u32(1 if as_strings else 0) + u32(0)
        return out

    material_v1 = u32(1)
    as_path = walk(0x09105000, [(0x09105001, geometry(10, True)),
                                (0x09105002, material_v1 + W().string("Beam.Mat.Gbx").bytes() + f32(0.5) + u32(1) + u32(3, NULL))])
    assert as_path.chunk(0x09105002).values["materialPath"] == "Beam.Mat.Gbx"
    # before version 10 there is no flag: the material is a node reference
    as_ref = walk(0x09105000, [(0x09105001, geometry(9, False)),
                               (0x09105002, material_v1 + u32(NULL) + f32(0.5) + u32(1) + u32(3, NULL))])
    values = as_ref.chunk(0x09105002).values
    assert values["material"] is None and "materialPath" not in values


def test_gpu_spawn_shape_decides_the_zone_values():
    def spawn(shape: int, zone: bytes) -> bytes:
        return u32(1) + u32(4, 7, 8, 9) + f32(1.0, 2.0) + u32(1) + f32(0, 0, 0) + f32(*range(5)) + u32(shape) + zone

    box = walk(0x090C5000, [(0x090C5000, spawn(3, f32(-1, -1, -1, 1, 1, 1)))]).chunk(0x090C5000).values
    assert box["shape"] == 3 and box["zoneBox"] == (-1.0, -1.0, -1.0, 1.0, 1.0, 1.0)
    # shape 2 has four more values from spawn version 1 on
    cone = walk(0x090C5000, [(0x090C5000, spawn(2, f32(*range(8))))]).chunk(0x090C5000).values
    assert cone["shape"] == 2 and cone["_u27"] == 7.0
    # version 0 holds a single int and no spawn at all
    old = walk(0x090C5000, [(0x090C5000, u32(0, 5))]).chunk(0x090C5000).values
    assert "spawnVersion" not in old


def test_tuning_curves_are_nodes_before_the_inline_key_version():
    # 090ED089: its curves are a CFuncKeysReal node below version 10
    # and inline keys (version, count, a per-version value, count vec2) from version 10 on
    def floats(n: int) -> bytes:
        return f32(*range(n))

    old = u32(9) + u32(NULL) + floats(4) + floats(11) + floats(1) + u32(1) + u32(NULL, NULL, NULL)
    values = walk(0x090ED000, [(0x090ED089, old)]).chunk(0x090ED089).values
    assert values["keysArchive"] == -1 and values["_u1"] == {"curve": None}
    keys = u32(2, 2) + u32(77) + f32(0.0, 1.0, 10.0, 2.0)
    new = u32(10) + keys + floats(4) + floats(11) + floats(1) + u32(0) + keys + keys + keys
    values = walk(0x090ED000, [(0x090ED089, new)]).chunk(0x090ED089).values
    first = values["_u1"]
    assert first["keysVersion"] == 2 and first["keys"] == [(0.0, 1.0), (10.0, 2.0)]


def test_vehicle_visual_lists_repeat_once_per_vehicle_counted_earlier():
    # 090E8006 counts the visual vehicles; 090E800A then holds one light list per vehicle
    w = W()
    w.u32(1)
    w.id("Light1")
    w.bool(True).bool(False)
    w.u32(0)
    values = walk(0x090E8000, [(0x090E8006, u32(2)), (0x090E800A, w.bytes())]).chunk(0x090E800A).values
    assert [len(v["lights"]) for v in values["vehicles"]] == [1, 0]
    assert values["vehicles"][0]["lights"][0]["_u1"]["name"] == "Light1"
    # with a count of 3 the same bytes are one list short
    res = walk_body(node_body([(0x090E8006, u32(3), False), (0x090E800A, w.bytes(), False)]),
                    class_id=0x090E8000, num_nodes=1)
    assert res.status != "complete"


def test_decal_sets_nest_one_level_deeper_from_version_3():
    def decal(w: W, version: int) -> None:
        w.i32(1)
        w.id("Dirt")
        for i in range(15):
            w.f32(float(i))
        if version >= 2:
            w.bool(True)

    def body(version: int, groups: list[int]) -> bytes:
        w = W()
        w.u32(version).u32(10).u32(0)          # no decal models (deprecated list)
        w.u32(1).u32(len(groups))              # one set
        if version < 3:
            for _ in groups:
                decal(w, version)
        else:
            for n in groups:
                w.u32(n)
                for _ in range(n):
                    decal(w, version)
        return w.bytes()

    old = walk(0x09078000, [(0x09078000, body(1, [1, 1]))]).chunk(0x09078000).values
    assert len(old["decalSets"][0]["decals"]) == 2
    new = walk(0x09078000, [(0x09078000, body(3, [2, 0]))]).chunk(0x09078000).values
    assert [len(g["decals"]) for g in new["decalSets"][0]["groups"]] == [2, 0]


def test_one_tuning_chunk_mixes_curve_nodes_and_inline_keys():
    # 090ED09E version 7: its first curve follows the chunk version (7 - 8 < 0: a node),
    # the one added in version 7 is always inline keys (version 0, no value, no keys)
    body = u32(7) + f32(1, 2, 3) + f32(4) + u32(5) + f32(6) + f32(7) + f32(8) + u32(NULL) + u32(0, 0) + f32(9) + f32(10, 11)
    values = walk(0x090ED000, [(0x090ED09E, body)]).chunk(0x090ED09E).values
    curves = [v for k, v in values.items() if isinstance(v, dict)]
    assert curves == [{"curve": None}, {"keysVersion": 0, "count": 0, "keys": []}]
