"""The two chunks that feed a pak entry's ivXor in the middle of their data
(classdb/README.md): 0900F004 (CPlugSurfaceGeom) feeds f32(x - x2) right after its
box, 090EB000 (CPlugVehiclePhyTuning) the first 4 ASCII characters of its name after
its float. Hand-built bodies, read through a pull source (as in paks) that records how
many bytes had been consumed at each feed."""
from __future__ import annotations

import struct

import pytest
from pullsource import Pull
from gbxfs.formats.gbx.writer import END, W

from gbxfs.formats.gbx.nodes import walk_body


def walk(class_id: int, body: bytes):
    src, feeds = Pull(body), []
    res = walk_body(src, class_id=class_id, num_nodes=2, size=len(body),
                    feed=lambda b: feeds.append((src.consumed, bytes(b))))
    return res, feeds


def surface_geom(shape: bytes) -> tuple[bytes, int]:
    """A CPlugSurfaceGeom main node with one 0900F004 chunk; returns the body and the
    offset right after the box."""
    w = W()
    w.u32(0x0900F004).id("Geom")
    for v in (1.0, 2.0, 3.0, 5.5, 6.0, 7.0):
        w.f32(v)
    after_box = len(w.buf)
    w.raw(shape).raw(struct.pack("<H", 4)).u32(END)
    return w.bytes(), after_box


@pytest.mark.parametrize("shape, key, expected", [
    (struct.pack("<If", 0, 2.5), "radius", 2.5),
    (struct.pack("<I3f", 1, 1.0, 2.0, 3.0), "radii", (1.0, 2.0, 3.0)),
    (struct.pack("<I6f", 6, 0, 0, 0, 1, 1, 1), "shapeBox", (0.0, 0.0, 0.0, 1.0, 1.0, 1.0)),
])
def test_surface_geom_feeds_x_minus_x2_right_after_its_box(shape, key, expected):
    body, after_box = surface_geom(shape)
    res, feeds = walk(0x0900F000, body)
    assert res.status == "complete", res.error
    v = res.main.chunks[0].values
    assert v[key] == expected and v["materialId"] == 4
    assert feeds == [(after_box, struct.pack("<f", 1.0 - 5.5))]


def test_surface_geom_mesh_layout_reaches_the_material_id():
    mesh = struct.pack("<III", 7, 3, 2) + struct.pack("<6f", 0, 0, 0, 1, 1, 1)
    mesh += struct.pack("<I", 1) + bytes(range(32))
    mesh += struct.pack("<II", 3, 1) + struct.pack("<i6fi", -1, 0, 0, 0, 1, 1, 1, 0)
    body, after_box = surface_geom(mesh)
    res, feeds = walk(0x0900F000, body)
    assert res.status == "complete", res.error
    v = res.main.chunks[0].values
    assert v["vertices"] == [(0.0, 0.0, 0.0), (1.0, 1.0, 1.0)] and v["triangles"] == bytes(range(32))
    assert len(v["cells"]) == 1 and v["materialId"] == 4
    assert feeds == [(after_box, struct.pack("<f", -4.5))]


def test_surface_geom_unknown_shape_is_an_error_not_a_guess():
    body, _ = surface_geom(struct.pack("<I", 3))
    res, feeds = walk(0x0900F000, body)
    assert res.status == "partial" and "type in (0, 1, 6, 7)" in str(res.error)
    assert len(feeds) == 1          # the box was read, so its feed happened


def tuning(name: str) -> tuple[bytes, int]:
    w = W()
    w.u32(0x090EB000).id(name).i32(-1).f32(1.5)
    after_float = len(w.buf)
    return w.u32(END).bytes(), after_float


def test_vehicle_tuning_feeds_the_first_four_name_characters_after_its_float():
    body, after_float = tuning("CarSport")
    res, feeds = walk(0x090EB000, body)
    assert res.status == "complete", res.error
    assert res.main.chunks[0].values["name"] == "CarSport"
    assert feeds == [(after_float, b"CarS")]


def test_vehicle_tuning_with_a_short_name_feeds_nothing():
    body, _ = tuning("Car")
    res, feeds = walk(0x090EB000, body)
    assert res.status == "partial" and "len(name) >= 4" in str(res.error)
    assert feeds == []
