"""Plain mesh records: what the OBJ and glTF writers take.

A Mesh is one level of detail of a model: geometries, each a vertex array (the
decoded one, in order) and one or more triangle groups, a group per material
(indices into its geometry's vertices). Positions are in the game's axes: Y up,
metres; a geometry placed by a tree or a prefab is already moved to where the
model shows it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import GbxError

Vec3 = tuple[float, float, float]
Tri = tuple[int, int, int]

# what a derived mesh may hold at most: beyond, the file is refused, not written
MAX_VERTICES = 4_000_000
MAX_TRIANGLES = 8_000_000


@dataclass(eq=False)
class Group:
    material: str
    triangles: list[Tri]


@dataclass(eq=False)
class Geom:
    name: str
    positions: list[Vec3]
    groups: list[Group]
    uvs: list[tuple[float, float]] | None = None   # one per vertex, when the source has them


@dataclass(eq=False)
class Mesh:
    source: str                      # the class the geometry came from (CPlugSolid2Model, ...)
    lod: int = 0
    geoms: list[Geom] = field(default_factory=list)

    @property
    def num_vertices(self) -> int:
        return sum(len(g.positions) for g in self.geoms)

    @property
    def num_triangles(self) -> int:
        return sum(len(gr.triangles) for g in self.geoms for gr in g.groups)

    def bounds(self) -> tuple[Vec3, Vec3] | None:
        """(min, max) over every vertex, None when the mesh has none."""
        pts = [v for g in self.geoms for v in g.positions]
        if not pts:
            return None
        lo = (min(v[0] for v in pts), min(v[1] for v in pts), min(v[2] for v in pts))
        hi = (max(v[0] for v in pts), max(v[1] for v in pts), max(v[2] for v in pts))
        return lo, hi

    def materials(self) -> list[str]:
        seen: dict[str, None] = {}
        for g in self.geoms:
            for gr in g.groups:
                seen.setdefault(gr.material, None)
        return list(seen)


class Budget:
    """Counts what a mesh being built holds; GbxError past MAX_VERTICES / MAX_TRIANGLES."""

    def __init__(self) -> None:
        self.vertices = self.triangles = 0

    def charge(self, vertices: int, triangles: int) -> None:
        self.vertices += vertices
        self.triangles += triangles
        if self.vertices > MAX_VERTICES or self.triangles > MAX_TRIANGLES:
            raise GbxError(f"mesh: more than {MAX_VERTICES} vertices or {MAX_TRIANGLES} triangles")


def check_geom(geom: Geom) -> None:
    """GbxError when a triangle names a missing vertex or the UVs do not match."""
    n = len(geom.positions)
    for gr in geom.groups:
        for t in gr.triangles:
            if not (0 <= t[0] < n and 0 <= t[1] < n and 0 <= t[2] < n):
                raise GbxError(f"mesh {geom.name!r}: triangle {t} names a vertex outside 0..{n - 1}")
    if geom.uvs is not None and len(geom.uvs) != n:
        raise GbxError(f"mesh {geom.name!r}: {len(geom.uvs)} texture coordinates for {n} vertices")
