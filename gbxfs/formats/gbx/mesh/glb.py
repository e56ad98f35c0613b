"""glTF 2.0 binary (.glb) of a Mesh.

One glTF mesh and node per geometry; a primitive (triangles) per material group,
all of a geometry's primitives sharing its POSITION (and TEXCOORD_0) accessors.
Materials carry the game's names and a neutral grey, or, when given a PNG for a
material whose every primitive has texture coordinates, that picture as their
base colour (an image in the binary chunk, a texture, a repeating sampler); a
material's note (why it has no picture) is kept in its extras. Axes are the game's: Y up,
metres, as glTF has them; triangles keep the game's index order. Texture
coordinates keep the game's top-left origin, which is glTF's too.
"""
from __future__ import annotations

import json
import struct
from array import array

from .model import Mesh

GLB_MAGIC, GLB_VERSION = 0x46546C67, 2
CHUNK_JSON, CHUNK_BIN = 0x4E4F534A, 0x004E4942
FLOAT, UINT16, UINT32 = 5126, 5123, 5125
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
TRIANGLES = 4
LINEAR, LINEAR_MIPMAP_LINEAR, REPEAT = 9729, 9987, 10497


class _Bin:
    """The binary chunk being built, with its buffer views and accessors."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def view(self, payload: bytes, target: int | None = None) -> int:
        while len(self.data) % 4:
            self.data.append(0)
        v = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(payload)}
        if target is not None:
            v["target"] = target
        self.views.append(v)
        self.data += payload
        return len(self.views) - 1

    def add(self, payload: bytes, target: int, accessor: dict) -> int:
        accessor["bufferView"] = self.view(payload, target)
        self.accessors.append(accessor)
        return len(self.accessors) - 1


def _floats(rows, width: int) -> tuple[bytes, list[float], list[float]]:
    flat = array("f", (c for r in rows for c in r))
    vals = flat.tolist()       # the values as float32 rounds them: the bounds must match exactly
    lo = [min(vals[i::width]) for i in range(width)]
    hi = [max(vals[i::width]) for i in range(width)]
    return flat.tobytes(), lo, hi


def _materials(names: list[str], b: _Bin, pictures: dict[str, bytes], notes: dict[str, str],
               untextured: set[str]) -> tuple[list[dict], dict]:
    """The materials and the image/texture/sampler arrays of the document."""
    out, images = [], []
    for name in names:
        m: dict = {"name": name, "pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.8, 0.8, 1.0],
                                                          "metallicFactor": 0.0, "roughnessFactor": 1.0},
                   "doubleSided": True}
        note = notes.get(name)
        png = pictures.get(name)
        if png is not None and name in untextured:
            png, note = None, "its picture was found, but a geometry using it has no texture coordinates"
        if png is not None:
            images.append({"bufferView": b.view(png), "mimeType": "image/png"})
            m["pbrMetallicRoughness"]["baseColorFactor"] = [1.0, 1.0, 1.0, 1.0]
            m["pbrMetallicRoughness"]["baseColorTexture"] = {"index": len(images) - 1}
        if note:
            m["extras"] = {"texture": note}
        out.append(m)
    if not images:
        return out, {}
    return out, {"images": images, "samplers": [{"magFilter": LINEAR, "minFilter": LINEAR_MIPMAP_LINEAR,
                                                 "wrapS": REPEAT, "wrapT": REPEAT}],
                 "textures": [{"sampler": 0, "source": i} for i in range(len(images))]}


def render_glb(mesh: Mesh, pictures: dict[str, bytes] | None = None, notes: dict[str, str] | None = None) -> bytes:
    """The .glb of a mesh; `pictures`: material name -> PNG of its base colour;
    `notes`: material name -> what to say of its picture (kept in its extras)."""
    b = _Bin()
    materials = mesh.materials()
    mat_index = {name: i for i, name in enumerate(materials)}
    untextured = {gr.material for g in mesh.geoms if g.uvs is None for gr in g.groups}
    meshes, nodes = [], []
    for g in mesh.geoms:
        if not g.positions or not any(gr.triangles for gr in g.groups):
            continue
        data, lo, hi = _floats(g.positions, 3)
        attrs = {"POSITION": b.add(data, ARRAY_BUFFER, {"componentType": FLOAT, "count": len(g.positions),
                                                        "type": "VEC3", "min": lo, "max": hi})}
        if g.uvs is not None:
            data, _, _ = _floats(g.uvs, 2)
            attrs["TEXCOORD_0"] = b.add(data, ARRAY_BUFFER, {"componentType": FLOAT, "count": len(g.uvs),
                                                             "type": "VEC2"})
        prims = []
        small = len(g.positions) <= 0xFFFF
        for gr in g.groups:
            if not gr.triangles:
                continue
            idx = array("H" if small else "I", (i for t in gr.triangles for i in t))
            acc = b.add(idx.tobytes(), ELEMENT_ARRAY_BUFFER,
                        {"componentType": UINT16 if small else UINT32, "count": len(idx), "type": "SCALAR"})
            prims.append({"attributes": attrs, "indices": acc, "material": mat_index[gr.material], "mode": TRIANGLES})
        meshes.append({"name": g.name, "primitives": prims})
        nodes.append({"name": g.name, "mesh": len(meshes) - 1})
    mats, textures = _materials(materials, b, pictures or {}, notes or {}, untextured) if meshes else ([], {})
    while len(b.data) % 4:
        b.data.append(0)
    doc: dict = {
        "asset": {"version": "2.0", "generator": "gbxfs"},
        "extras": {"source": mesh.source, "lod": mesh.lod, "up": "+Y", "units": "metres"},
        "scene": 0,
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "nodes": nodes,
    }
    if meshes:
        doc["meshes"] = meshes
        doc["materials"] = mats
        doc.update(textures)
        doc["accessors"] = b.accessors
        doc["bufferViews"] = b.views
        doc["buffers"] = [{"byteLength": len(b.data)}]
    js = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    js += b" " * (-len(js) % 4)
    chunks = struct.pack("<II", len(js), CHUNK_JSON) + js
    if meshes:
        chunks += struct.pack("<II", len(b.data), CHUNK_BIN) + bytes(b.data)
    return struct.pack("<III", GLB_MAGIC, GLB_VERSION, 12 + len(chunks)) + chunks
