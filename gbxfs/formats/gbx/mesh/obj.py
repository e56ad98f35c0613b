"""Wavefront OBJ + MTL text of a Mesh.

One `o` object per geometry, its vertices (`v`, and `vt` when the geometry has
texture coordinates), then a `usemtl` and its faces per material group. Axes are
the game's (Y up, metres) and faces keep the game's index order. OBJ's texture
origin is the bottom left, the game's the top left: v is written as 1 - v.
"""
from __future__ import annotations

from .model import Mesh


def _f(x: float) -> str:
    s = f"{x:.6f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def render_obj(mesh: Mesh, mtl_name: str = "mesh.mtl") -> bytes:
    out = [f"# {mesh.source}, level of detail {mesh.lod}: {mesh.num_vertices} vertices, "
           f"{mesh.num_triangles} triangles; Y up, metres",
           f"mtllib {mtl_name}"]
    base = 1
    for g in mesh.geoms:
        out.append(f"o {g.name}")
        out += [f"v {_f(x)} {_f(y)} {_f(z)}" for x, y, z in g.positions]
        if g.uvs is not None:
            out += [f"vt {_f(u)} {_f(1.0 - v)}" for u, v in g.uvs]
        for gr in g.groups:
            out.append(f"usemtl {gr.material}")
            if g.uvs is not None:
                out += [f"f {a + base}/{a + base} {b + base}/{b + base} {c + base}/{c + base}" for a, b, c in gr.triangles]
            else:
                out += [f"f {a + base} {b + base} {c + base}" for a, b, c in gr.triangles]
        base += len(g.positions)
    return ("\n".join(out) + "\n").encode("utf-8")


def render_mtl(mesh: Mesh) -> bytes:
    out = [f"# materials of {mesh.source} (names as the game refers to them)"]
    for name in mesh.materials():
        out += [f"newmtl {name}", "Kd 0.8 0.8 0.8", "Ka 0 0 0", "Ks 0 0 0", "d 1", "illum 1", ""]
    return ("\n".join(out) + "\n").encode("utf-8")
