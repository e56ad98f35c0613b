"""A CPlugVisualIndexedTriangles node's geometry from its decoded chunks
(chunks/plug.chunks, chunks/mesh.chunks): vertex positions (inline vertices of
0902C003/0902C004, or the position array of its CPlugVertexStream), the first
texture coordinates, and triangles from the index buffer (0906A000/0906A001,
CPlugIndexBuffer 09057000 or the delta-coded 09057001)."""
from __future__ import annotations

import struct
from dataclasses import dataclass

from .. import classdb
from ..errors import GbxError
from ..model import Node, NodeRef
from .model import Tri, Vec3

VISUAL = classdb.class_id("CPlugVisual")
VISUAL3D = classdb.class_id("CPlugVisual3D")
INDEXED = classdb.class_id("CPlugVisualIndexed")
INDEX_BUFFER = classdb.class_id("CPlugIndexBuffer")
VERTEX_STREAM = classdb.class_id("CPlugVertexStream")
# the vertex chunks of CPlugVisual, each with count, streams and texture coordinates
VERTEX_CHUNKS = tuple(VISUAL | i for i in (0x008, 0x00A, 0x00C, 0x00D, 0x00E, 0x00F))
USAGE_POSITION, USAGE_TEXCOORD0 = 0, 10
TYPE_FLOAT2, TYPE_FLOAT3 = 1, 2


@dataclass(eq=False)
class Geometry:
    positions: list[Vec3]
    triangles: list[Tri]
    uvs: list[tuple[float, float]] | None
    box: tuple[float, ...] | None      # the visual's stored bounding box, as decoded


def _vertex_chunk(node: Node) -> dict:
    for c in node.chunks:
        if c.chunk_id in VERTEX_CHUNKS and c.values is not None:
            return c.values
    raise GbxError(f"visual {node.class_name or hex(node.class_id)}: no decoded vertex chunk")


def _decl_array(decl: dict, count: int, width: int) -> list[tuple[float, ...]]:
    data = decl["data"]
    stride = (decl["flags1"] >> 18) & 0x3FF
    if stride < 4 * width or len(data) < stride * count:
        raise GbxError(f"vertex stream: {len(data)} bytes for {count} vertices of stride {stride}")
    return [struct.unpack_from(f"<{width}f", data, i * stride) for i in range(count)]


def _stream_arrays(stream: Node) -> dict[int, list]:
    """usage -> values of one vertex stream (positions, texture coordinates)."""
    c = stream.chunk(VERTEX_STREAM)
    if c is None or c.values is None:
        raise GbxError("vertex stream without a decoded 09056000 chunk")
    v = c.values
    count, decls = v["count"], v.get("dataDecls") or []
    out: dict[int, list] = {}
    streams = v.get("streams")
    for i, d in enumerate(decls):
        want = {USAGE_POSITION: (TYPE_FLOAT3, 3), USAGE_TEXCOORD0: (TYPE_FLOAT2, 2)}.get(d["usage"])
        if want is None or d["dataType"] != want[0]:
            continue
        if "data" in d:
            out[d["usage"]] = _decl_array(d, count, want[1])
        elif streams is not None and i < len(streams) and "values" in streams[i]:
            out[d["usage"]] = [tuple(x) for x in streams[i]["values"]]
    return out


def _positions_and_uvs(node: Node, vc: dict) -> tuple[list[Vec3], list | None]:
    count = vc.get("count", 0)
    uvs = None
    sets = vc.get("texCoordSets") or []
    if sets and len(sets[0].get("texCoords") or ()) == count:
        uvs = [tuple(t["uv"]) for t in sets[0]["texCoords"]]
    for ref in vc.get("vertexStreams") or ():
        if isinstance(ref, NodeRef) and ref.node is not None:
            arrays = _stream_arrays(ref.node)
            if USAGE_POSITION in arrays:
                pos = arrays[USAGE_POSITION]
                if uvs is None and len(arrays.get(USAGE_TEXCOORD0, ())) == len(pos):
                    uvs = arrays[USAGE_TEXCOORD0]
                return pos, uvs
    for cid in (VISUAL3D | 0x004, VISUAL3D | 0x003):
        c = node.chunk(cid)
        if c is not None and c.values is not None and c.values.get("vertices"):
            return [tuple(x["position"]) for x in c.values["vertices"]], uvs
    if count:
        raise GbxError(f"visual: {count} vertices but no positions decoded")
    return [], uvs


def _indices(node: Node) -> list[int]:
    c = node.chunk(INDEXED | 0x001)
    if c is not None and c.values is not None:
        ref = c.values.get("indexBuffer")
        if not c.values.get("hasIndexBuffer") or ref is None:
            return []
        buf = ref.node if isinstance(ref, NodeRef) else None
        if buf is None:
            raise GbxError("visual: its index buffer was not read")
        plain = buf.chunk(INDEX_BUFFER)
        if plain is not None and plain.values is not None:
            return list(plain.values["indices"])
        delta = buf.chunk(INDEX_BUFFER | 0x001)
        if delta is not None and delta.values is not None:
            out, last = [], 0
            for d in delta.values["indexDeltas"]:
                last += d
                out.append(last)
            return out
        raise GbxError("visual: index buffer without decoded indices")
    c = node.chunk(INDEXED)
    if c is not None and c.values is not None:
        return list(c.values["indices"])
    raise GbxError("visual: no decoded index chunk")


def visual_geometry(node: Node) -> Geometry:
    """The geometry of an indexed-triangles visual (GbxError when a part is missing)."""
    try:
        vc = _vertex_chunk(node)
        positions, uvs = _positions_and_uvs(node, vc)
        idx = _indices(node)
    except (KeyError, TypeError) as e:
        raise GbxError(f"visual {node.class_name}: decoded values lack {e}") from None
    if len(idx) % 3:
        raise GbxError(f"visual: {len(idx)} indices is not a whole number of triangles")
    tris = [(idx[i], idx[i + 1], idx[i + 2]) for i in range(0, len(idx), 3)]
    box = vc.get("boundingBox")
    return Geometry(positions, tris, uvs, tuple(box) if box is not None else None)
