"""glTF 2.0 binary (.glb) of a Mesh.

One glTF mesh and node per geometry; a primitive (triangles) per material group,
all of a geometry's primitives sharing its POSITION (and TEXCOORD_0) accessors.
Materials carry the game's names and a neutral grey. Axes are the game's: Y up,
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


class _Bin:
    """The binary chunk being built, with its buffer views and accessors."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def add(self, payload: bytes, target: int, accessor: dict) -> int:
        while len(self.data) % 4:
            self.data.append(0)
        self.views.append({"buffer": 0, "byteOffset": len(self.data), "byteLength": len(payload), "target": target})
        self.data += payload
        accessor["bufferView"] = len(self.views) - 1
        self.accessors.append(accessor)
        return len(self.accessors) - 1


def _floats(rows, width: int) -> tuple[bytes, list[float], list[float]]:
    flat = array("f", (c for r in rows for c in r))
    vals = flat.tolist()       # the values as float32 rounds them: the bounds must match exactly
    lo = [min(vals[i::width]) for i in range(width)]
    hi = [max(vals[i::width]) for i in range(width)]
    return flat.tobytes(), lo, hi


def render_glb(mesh: Mesh) -> bytes:
    b = _Bin()
    materials = mesh.materials()
    mat_index = {name: i for i, name in enumerate(materials)}
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
        doc["materials"] = [{"name": m, "pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.8, 0.8, 1.0],
                                                                 "metallicFactor": 0.0, "roughnessFactor": 1.0},
                             "doubleSided": True} for m in materials]
        doc["accessors"] = b.accessors
        doc["bufferViews"] = b.views
        doc["buffers"] = [{"byteLength": len(b.data)}]
    js = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    js += b" " * (-len(js) % 4)
    chunks = struct.pack("<II", len(js), CHUNK_JSON) + js
    if meshes:
        chunks += struct.pack("<II", len(b.data), CHUNK_BIN) + bytes(b.data)
    return struct.pack("<III", GLB_MAGIC, GLB_VERSION, 12 + len(chunks)) + chunks
