"""mesh.glb with the pictures of its materials (tree/gbx/textures.py, nearby.py):
a real corpus mesh placed in a folder tree or a pak beside a small generated
image where its reference points. The glb carries the picture (trimesh reads
it back pixel for pixel, the Khronos validator finds no error); a picture that
is missing, unreadable by everyone or not decodable leaves the material
untextured and mesh/textures.txt says why; the folder's names never change."""
from __future__ import annotations

import io
import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from PIL import Image
from requires import skip_or_fail

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.writer import W, build_gbx, node_body
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree.root import build_tree

trimesh = pytest.importorskip("trimesh")

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = Path(os.environ.get("GBXFS_GLTF_VALIDATOR", ROOT / ".tools/gltf-validator/node_modules/gltf-validator"))
RUNNER = ROOT / "tests/tools/validate_gltf.js"
ROCKET = "maniaplanet+game-modes/Titles/SMStormCombo@nadeolabs/Items/Storm/MeleeUltimate/Meshes/Rocket.Mesh.gbx"
TMF_SOLID = "BigBang1112+gbx-net/Tests/GBX.NET.Tests/Files/Gbx/CPlugSolid/GBX-NET 2 CPlugSolid TMF 001.Solid.Gbx"
C = classdb.class_id


def read_all(f) -> bytes:
    return f.read(0, f.size())


def _picture(seed: int) -> Image.Image:
    im = Image.new("RGBA", (8, 4))
    im.putdata([((seed * 37 + i * 11) % 256, (i * 29) % 256, (seed + i * 5) % 256, 255) for i in range(32)])
    return im


def _dds(im: Image.Image) -> bytes:
    out = io.BytesIO()
    im.save(out, format="DDS")
    return out.getvalue()


def _at(root, path: str):
    e = root
    for name in path.split("/"):
        e = e.child(name)
        assert e is not None, (path, name)
    return e


def _textured(glb: bytes) -> dict[str, Image.Image]:
    """material name -> its base colour picture, as trimesh reads the glb."""
    scene = trimesh.load(io.BytesIO(glb), file_type="glb")
    out = {}
    for geom in scene.geometry.values():
        mat = getattr(geom.visual, "material", None)
        tex = getattr(mat, "baseColorTexture", None)
        if tex is not None:
            assert geom.visual.uv is not None and len(geom.visual.uv) == len(geom.vertices)
            out[mat.name] = tex.convert("RGBA")
    return out


def _json(glb: bytes) -> dict:
    n = struct.unpack_from("<I", glb, 12)[0]
    return json.loads(glb[20:20 + n])


def _rocket_tree(corpus, tmp_path, dds: bytes | None, mode: int = 0o644):
    """Items/Storm/Meshes/Rocket.Mesh.gbx (its baseTexture: ..\\Textures\\Rocket) and,
    when given, Items/Storm/Textures/Rocket_D.dds."""
    meshes = tmp_path / "Items/Storm/Meshes"
    meshes.mkdir(parents=True)
    shutil.copyfile(corpus / ROCKET, meshes / "Rocket.Mesh.gbx")
    (tmp_path / "Items/Storm/Textures").mkdir()
    if dds is not None:
        f = tmp_path / "Items/Storm/Textures/Rocket_D.dds"
        f.write_bytes(dds)
        f.chmod(mode)
    return build_tree(str(tmp_path))


@pytest.mark.corpus
def test_a_texture_beside_the_mesh_is_embedded(corpus, tmp_path):
    im = _picture(1)
    root = _rocket_tree(corpus, tmp_path, _dds(im))
    folder = _at(root, "Items/Storm/Meshes/Rocket.Mesh.gbx")
    glb = read_all(folder.child("mesh.glb"))
    got = _textured(glb)
    assert set(got) == {"Rocket"}
    assert got["Rocket"].size == im.size and got["Rocket"].tobytes() == im.tobytes()
    doc = _json(glb)
    assert doc["images"][0]["mimeType"] == "image/png" and len(doc["textures"]) == 1
    notes = read_all(_at(folder, "mesh/textures.txt")).decode()
    assert notes == "Rocket: texture: Items/Storm/Textures/Rocket_D.dds\n"
    # every level embeds it: the lower level shares the material
    assert set(_textured(read_all(_at(folder, "mesh/mesh.lod1.glb")))) == {"Rocket"}


@pytest.mark.corpus
@pytest.mark.parametrize("case", ["missing", "private", "undecodable"])
def test_a_texture_that_cannot_be_used_leaves_the_material_untextured_and_says_why(corpus, tmp_path, case):
    dds = {"missing": None, "private": _dds(_picture(2)),
           # a DDS header naming a pixel format no decoder knows
           "undecodable": b"DDS " + struct.pack("<7I", 124, 0x1007, 4, 8, 0, 0, 0) + bytes(44)
           + struct.pack("<2I", 32, 4) + b"ZZZZ" + bytes(40)}[case]
    root = _rocket_tree(corpus, tmp_path, dds, mode=0o600 if case == "private" else 0o644)
    folder = _at(root, "Items/Storm/Meshes/Rocket.Mesh.gbx")
    names = sorted(folder.children())
    glb = read_all(folder.child("mesh.glb"))
    assert _textured(glb) == {}
    doc = _json(glb)
    assert "images" not in doc and "textures" not in doc
    note = doc["materials"][0]["extras"]["texture"]
    why = {"missing": "Items/Storm/Textures/Rocket_D.dds: not found in the mount",
           "private": "Items/Storm/Textures/Rocket_D.dds: not readable by everyone",
           "undecodable": "Items/Storm/Textures/Rocket_D.dds: cannot decode the DDS pixel format ZZZZ: "}[case]
    assert note.startswith(f"no texture: {why}") and (case == "undecodable" or note == f"no texture: {why}")
    assert read_all(_at(folder, "mesh/textures.txt")).decode() == f"Rocket: {note}\n"
    assert sorted(folder.children()) == names          # the names never depend on what is found
    assert sorted(_at(folder, "mesh").children()) == sorted(
        _at(_rocket_tree(corpus, tmp_path / "again", _dds(_picture(3))), "Items/Storm/Meshes/Rocket.Mesh.gbx/mesh")
        .children())


@pytest.mark.corpus
def test_a_texture_in_the_same_pak_is_embedded(corpus, tmp_path):
    im = _picture(4)
    mesh = (corpus / ROCKET).read_bytes()
    write_packs(tmp_path, {"Items": [PakFile("Storm/Meshes/Rocket.Mesh.gbx", mesh),
                                     PakFile("Storm/Textures/Rocket_D.dds", _dds(im))]})
    root = build_tree(str(tmp_path))
    folder = _at(root, "Items.pak/Storm/Meshes/Rocket.Mesh.gbx")
    got = _textured(read_all(folder.child("mesh.glb")))
    assert got["Rocket"].tobytes() == im.tobytes()
    assert read_all(_at(folder, "mesh/textures.txt")).decode() == "Rocket: texture: Storm/Textures/Rocket_D.dds\n"


def _material_gbx() -> bytes:
    """A CPlugMaterial whose custom material's one slot, "Diffuse", names an external
    ../Texture/IslandHighway.Texture.Gbx (the layouts of chunks 09079007 and 0903A006)."""
    body = W()
    body.u32(C("CPlugMaterial") | 0x007).i32(1).u32(C("CPlugMaterialCustom"))
    body.u32(C("CPlugMaterialCustom") | 0x006).u32(1).id("Diffuse").i32(0).i32(2)
    body.u32(0xFACADE01).u32(0xFACADE01)
    return build_gbx(class_id=C("CPlugMaterial"), num_nodes=3, ancestor=1, folders=[("Texture", [])],
                     externals=[{"flags": 1, "file": "IslandHighway.Texture.Gbx", "node": 2, "folder": 1}],
                     body=body.bytes())


def _bitmap_gbx(image_name: str) -> bytes:
    """A CPlugBitmap whose image (chunk 09011015) is the external file `image_name` beside it."""
    data = W().i32(1).raw(struct.pack("<Q", 0)).f32(0.0, 1.0, 0.0).i32(0).bytes()
    return build_gbx(class_id=C("CPlugBitmap"), num_nodes=2,
                     externals=[{"flags": 1, "file": image_name, "node": 1, "folder": 0}],
                     body=node_body([(C("CPlugBitmap") | 0x015, data, False)]))


@pytest.mark.corpus
def test_a_reference_table_chain_material_bitmap_image_is_followed(corpus, tmp_path):
    """A TMF solid (ancestor level 2, Material/IslandHighway.Material.Gbx) -> a
    material file -> a bitmap file -> the image: each path from its own file's table."""
    im = _picture(5)
    solid = tmp_path / "Island/Media/Solid/Road/Highway.Solid.Gbx"
    solid.parent.mkdir(parents=True)
    shutil.copyfile(corpus / TMF_SOLID, solid)
    for folder, name, data in (("Material", "IslandHighway.Material.Gbx", _material_gbx()),
                               ("Texture", "IslandHighway.Texture.Gbx", _bitmap_gbx("IslandHighway.dds")),
                               ("Texture", "IslandHighway.dds", _dds(im))):
        (tmp_path / "Island/Media" / folder).mkdir(exist_ok=True)
        (tmp_path / "Island/Media" / folder / name).write_bytes(data)
    folder = _at(build_tree(str(tmp_path)), "Island/Media/Solid/Road/Highway.Solid.Gbx")
    glb = read_all(folder.child("mesh.glb"))
    got = _textured(glb)
    assert set(got) == {"IslandHighway"} and got["IslandHighway"].tobytes() == im.tobytes()
    notes = read_all(_at(folder, "mesh/textures.txt")).decode().splitlines()
    assert "IslandHighway: texture: Island/Media/Texture/IslandHighway.dds" in notes
    assert ("IslandRoadSigns: no texture: Island/Media/Material/IslandRoadSigns.Material.Gbx: not found in the mount"
            in notes)
    _validate(tmp_path, glb)


def _validate(tmp_path: Path, glb: bytes) -> None:
    node_bin = shutil.which("node")
    if node_bin is None or not (VALIDATOR / "package.json").exists():
        skip_or_fail(f"node or the glTF validator is missing ({VALIDATOR}; scripts/setup installs it where npm is)",
                     "GBXFS_REQUIRE_GLTF_VALIDATOR")
    f = tmp_path / "textured.glb"
    f.write_bytes(glb)
    out = subprocess.run([node_bin, str(RUNNER), str(VALIDATOR), str(f)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)[str(f)]
    assert report["errors"] == 0, report


@pytest.mark.corpus
def test_the_textured_glb_passes_the_gltf_validator(corpus, tmp_path):
    root = _rocket_tree(corpus, tmp_path, _dds(_picture(6)))
    glb = read_all(_at(root, "Items/Storm/Meshes/Rocket.Mesh.gbx/mesh.glb"))
    assert _json(glb).get("images")
    _validate(tmp_path, glb)


OFFZONE = "SM-Obstacle+Titlepack/Items/Offzone/Visible/Offzone#01.Mesh.gbx"


@pytest.mark.corpus
def test_a_base_texture_from_the_data_folder_is_found_above_the_mesh(corpus, tmp_path):
    """A baseTexture with a leading backslash (\\Items\\Offzone\\Visible\\Textures\\Offzone,
    model TDOBSN) starts at the data folder: the folder above Items/ here."""
    im = _picture(7)
    title = tmp_path / "Title"
    (title / "Items/Offzone/Visible/Textures").mkdir(parents=True)
    shutil.copyfile(corpus / OFFZONE, title / "Items/Offzone/Visible/Offzone#01.Mesh.Gbx")
    (title / "Items/Offzone/Visible/Textures/OFFZONE_d.dds").write_bytes(_dds(im))     # case ignored
    folder = _at(build_tree(str(tmp_path)), "Title/Items/Offzone/Visible/Offzone#01.Mesh.Gbx")
    got = _textured(read_all(folder.child("mesh.glb")))
    assert set(got) == {"OffzoneVisual"} and got["OffzoneVisual"].tobytes() == im.tobytes()
    notes = read_all(_at(folder, "mesh/textures.txt")).decode().splitlines()
    assert notes == ["OffzoneGlass: no texture: a game material (Glass): its pictures are the game's",
                     "OffzoneVisual: texture: Title/Items/Offzone/Visible/Textures/OFFZONE_d.dds"]


@pytest.mark.corpus
def test_references_stay_inside_the_mount_and_its_searchable_folders(corpus, tmp_path):
    top = tmp_path / "top"
    (top / "Meshes").mkdir(parents=True)
    shutil.copyfile(corpus / ROCKET, top / "Rocket.Mesh.Gbx")
    (tmp_path / "Textures").mkdir()          # where ..\Textures points, but outside the mount
    (tmp_path / "Textures/Rocket_D.dds").write_bytes(_dds(_picture(8)))
    notes = read_all(_at(build_tree(str(top)), "Rocket.Mesh.Gbx/mesh/textures.txt")).decode()
    assert notes == "Rocket: no texture: ../Textures/Rocket_D.dds: climbs above the top folder of the mount (or pak)\n"
    shutil.copyfile(corpus / ROCKET, top / "Meshes/Rocket.Mesh.Gbx")
    (top / "Textures").mkdir()
    (top / "Textures/Rocket_D.dds").write_bytes(_dds(_picture(8)))
    (top / "Textures").chmod(0o700)
    notes = read_all(_at(build_tree(str(tmp_path / "top")), "Meshes/Rocket.Mesh.Gbx/mesh/textures.txt")).decode()
    assert notes == "Rocket: no texture: Textures/Rocket_D.dds: folder Textures is not searchable by everyone\n"
