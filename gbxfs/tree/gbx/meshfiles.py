"""mesh.obj, mesh.mtl, mesh.glb and mesh/: the mesh of a mesh-bearing GBX file.

Which files appear comes from the header's class id alone:
- a .Solid/.Solid2/.Mesh/.Crystal/.Prefab file (MESH_CLASSES: the main node is
  the mesh) shows the three files of level of detail 0 in its folder, on every
  listing. Their content and size are made when read (lazy_size): the body is
  parsed, the mesh of level 0 built (formats/gbx/mesh) and written, and the
  bytes kept in the cache like every generated file;
- these and items and blocks (CGameItemModel, whose mesh may be inside or in
  another file: the header cannot tell) find `mesh/` by name, not listed
  (like ghosts/): its listing parses the body and builds every level, and
  shows `mesh.obj`, `.mtl`, `.glb` for level 0 and `mesh.lodN.*` for each
  further level that builds. Its error.txt says why a level could not be
  built: an item whose mesh lives in another file, data cut short or past
  the mesh limits. It also lists textures.txt: for each material of the
  levels built, the picture mesh.glb embeds (the path of its image in the
  mount) or why it embeds none (textures.py; worked out when read).
Reading a mesh file that cannot be built answers EIO with that reason, never
a partial mesh. mesh.glb embeds a material's base colour picture when the
files its references name are in the same mount (textures.py, nearby.py):
looked up when mesh.glb is read, never when a folder is listed.
"""
from __future__ import annotations

import errno
from collections.abc import Callable, Hashable

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.mesh.extract import build_mesh, lod_count, mesh_node
from gbxfs.formats.gbx.mesh.glb import render_glb
from gbxfs.formats.gbx.mesh.model import Mesh
from gbxfs.formats.gbx.mesh.obj import render_mtl, render_obj
from gbxfs.tree.cached import CachedDir, CachedFile
from gbxfs.tree.gbx.errors import with_errors
from gbxfs.tree.gbx.nearby import place_of
from gbxfs.tree.gbx.parse import GbxParse
from gbxfs.tree.gbx.textures import material_picture, render_notes
from gbxfs.tree.model import Entry

# header classes whose main node is a mesh: mesh.* in their folder
MESH_CLASSES = frozenset(map(classdb.class_id, ("CPlugSolid", "CPlugSolid2Model", "CPlugCrystal", "CPlugPrefab")))
# and those that may hold one (items, blocks): mesh/ found by name
HOLDER_CLASSES = MESH_CLASSES | {classdb.class_id("CGameItemModel")}
MESH_FOLDER = "mesh"
KINDS = ("obj", "mtl", "glb")
TEXTURES_NAME = "textures.txt"
# what a built mesh keeps alive per vertex and per triangle (tuples of floats/ints), rounded up
VERTEX_COST, TRIANGLE_COST = 200, 120


def bears_mesh(class_id: int) -> bool:
    """mesh.obj, .mtl, .glb are listed (the main node is the mesh)."""
    return class_id in MESH_CLASSES


def may_hold_mesh(class_id: int) -> bool:
    """mesh/ is found by name."""
    return class_id in HOLDER_CLASSES


def file_name(lod: int, kind: str) -> str:
    return f"mesh.{kind}" if lod == 0 else f"mesh.lod{lod}.{kind}"


def _what(lod: int) -> str:
    """How error.txt names the files of a level."""
    return f"mesh level of detail {lod} ({file_name(lod, 'obj')}, .mtl, .glb)"


class MeshFiles:
    """The mesh files of one GBX folder; `key(*what)` makes its cache keys."""

    __slots__ = ("p", "key")

    def __init__(self, p: GbxParse, key: Callable[..., Hashable]):
        self.p, self.key = p, key

    def root_entries(self, class_id: int) -> list[Entry]:
        """mesh.obj, mesh.mtl, mesh.glb (level 0, made when read) where the class is
        a mesh, and mesh/ (found by name) where it may hold one."""
        out: list[Entry] = [self._file(0, kind) for kind in KINDS] if bears_mesh(class_id) else []
        if may_hold_mesh(class_id):
            out.append(CachedDir(MESH_FOLDER, self.p.ctx.cache, self.key("mesh/"), self._folder))
        return out

    def _file(self, lod: int, kind: str) -> CachedFile:
        name = file_name(lod, kind)
        return CachedFile(name, self.p.ctx.cache, self.key("mesh", lod, kind),
                          lambda: self._render(lod, kind), lazy=True)

    def _folder(self) -> list[Entry]:
        out: list[Entry] = []
        problems: list[tuple[str, BaseException]] = []
        try:
            count = self._lod_count()
        except GbxError as e:
            return with_errors([], [(_what(0), e)])
        built = []
        for lod in range(count):
            m = self._mesh(lod)
            if isinstance(m, GbxError):
                problems.append((_what(lod), m))
            else:
                out += [self._file(lod, kind) for kind in KINDS]
                built.append(lod)
        if built:
            out.append(CachedFile(TEXTURES_NAME, self.p.ctx.cache, self.key("mesh", TEXTURES_NAME),
                                  lambda: self._texture_notes(built), lazy=True))
        return with_errors(out, problems)

    def _picture(self, material: str) -> tuple[bytes | None, str]:
        """(PNG or None, note) of a material's base colour picture (kept in the cache)."""
        def make():
            h = self.p.header().header
            level = h.refs.ancestor_level if h is not None and h.refs is not None else 0
            png, note = material_picture(self.p.body().nodes, level, place_of(self.p.source, self.p.ctx), material)
            return (png, note), 256 + len(note) + (len(png) if png else 0)
        return self.p.ctx.cache.get_or_make(self.key("mesh.picture", material), make)

    def _pictures(self, m: Mesh) -> tuple[dict[str, bytes], dict[str, str]]:
        pictures, notes = {}, {}
        for name in m.materials():
            png, notes[name] = self._picture(name)
            if png is not None:
                pictures[name] = png
        return pictures, notes

    def _texture_notes(self, levels: list[int]) -> bytes:
        notes: dict[str, str] = {}
        for lod in levels:
            m = self._mesh(lod)
            if isinstance(m, GbxError):
                raise OSError(errno.EIO, f"{TEXTURES_NAME}: {m} (see {MESH_FOLDER}/error.txt)")
            for name in m.materials():
                if name not in notes:
                    notes[name] = self._picture(name)[1]
        return render_notes(notes)

    def _node(self):
        pb = self.p.body()
        n = mesh_node(pb.nodes)
        if n is None:
            why = "; ".join(str(e) for e in pb.errors[:2])
            raise GbxError("no mesh in this file's body" + (f" (body {pb.status}: {why})" if why else
                                                             " (it may refer to a mesh in another file)"))
        return n

    def _lod_count(self) -> int:
        return self.p.ctx.cache.get_or_make(self.key("mesh.lods"), lambda: (lod_count(self._node()), 256))

    def _mesh(self, lod: int) -> Mesh | GbxError:
        """Level `lod` built (kept in the cache by what it holds), or why it cannot be."""
        def make():
            try:
                m = build_mesh(self._node(), lod)
            except GbxError as e:
                return e.with_traceback(None), 1024
            return m, 1024 + VERTEX_COST * m.num_vertices + TRIANGLE_COST * m.num_triangles
        return self.p.ctx.cache.get_or_make(self.key("mesh.built", lod), make)

    def _render(self, lod: int, kind: str) -> bytes:
        m = self._mesh(lod)
        if isinstance(m, GbxError):
            raise OSError(errno.EIO, f"{file_name(lod, kind)}: {m} (see {MESH_FOLDER}/error.txt)")
        if kind == "obj":
            return render_obj(m, file_name(lod, "mtl"))
        if kind == "mtl":
            return render_mtl(m)
        try:
            return render_glb(m, *self._pictures(m))
        except GbxError as e:
            raise OSError(errno.EIO, f"{file_name(lod, kind)}: {e}") from None
