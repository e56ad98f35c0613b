"""The pictures of a mesh's materials (mesh.glb, mesh/textures.txt) and of a
bitmap file (a .Texture.Gbx's image.png).

For each material the mesh names, the chain of references that leads to its
base colour picture (formats/gbx/mesh/texture.py) is followed through the
files of the same mount (nearby.py): a material file, a bitmap file, then the
image, decoded by Pillow into a PNG. Each material gets either its picture or
a note that says why it has none (a game material, a file not in the mount, a
DDS layout Pillow cannot decode, ...). This runs when mesh.glb or
mesh/textures.txt is read, never when a folder is listed: the folder shows the
same names whatever is found.
"""
from __future__ import annotations

from gbxfs.formats import gbx
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.header import RefTable
from gbxfs.formats.gbx.mesh.texture import FileLink, Step, external_link, follow_ref, material_refs, next_step
from gbxfs.formats.gbx.model import Node
from gbxfs.formats.image import ImageError, to_png
from gbxfs.tree.gbx.nearby import NotReachable, Place

MAX_STEPS = 8                      # material -> custom material -> bitmap -> image is 4
MAX_LINKED_GBX = 1024 * 1024       # a material or bitmap file: a few KB in the games
MAX_IMAGE = 96 * 1024 * 1024       # an image file: a 4096x4096 RGBA DDS with its mip maps fits


def _read(src, path: str, limit: int) -> bytes:
    if src.size > limit:
        raise NotReachable(f"{path}: {src.size} bytes, more than the {limit}-byte limit for a linked file")
    try:
        return bytes(src.read_at(0, src.size))
    except OSError as e:
        raise NotReachable(f"{path}: cannot be read: {e.strerror or e}") from None


def follow(step: Step, ancestor_level: int, place: Place) -> tuple[bytes, str]:
    """(PNG, path of the image from the top) of the picture a step leads to
    (NotReachable: why there is none)."""
    for _ in range(MAX_STEPS):
        if isinstance(step, str):
            raise NotReachable(step)
        if isinstance(step, Node):
            step = next_step(step, ancestor_level)
            continue
        assert isinstance(step, FileLink)
        src, parts = place.find(step.path, step.from_data_root)
        path = "/".join(parts)
        if step.is_image:
            try:
                return to_png(_read(src, path, MAX_IMAGE)), path
            except ImageError as e:
                raise NotReachable(f"{path}: {e}") from None
        if not path.lower().endswith(".gbx"):
            raise NotReachable(f"{path}: neither an image nor a GBX file")
        try:
            g = gbx.parse(_read(src, path, MAX_LINKED_GBX), decode_header=False)
        except GbxError as e:
            raise NotReachable(f"{path}: does not parse: {e}") from None
        if not g.body.nodes:
            raise NotReachable(f"{path}: no body node read ({g.body.status}: {g.body.error})")
        place = place.moved(parts)
        ancestor_level = g.refs.ancestor_level if g.refs is not None else 0
        step = g.body.nodes[0]
    raise NotReachable(f"more than {MAX_STEPS} links without reaching an image")


def material_picture(nodes: list[Node], ancestor_level: int, place: Place | None,
                     material: str) -> tuple[bytes | None, str]:
    """(PNG or None, note) of one material of the mesh the body's nodes hold."""
    ref = material_refs(nodes).get(material)
    if ref is None:
        return None, "no texture: the mesh names this material without a reference to follow"
    if place is None:
        return None, "no texture: this file is in no folder or pak of the mount, its references are not followed"
    try:
        png, path = follow(follow_ref(ref, ancestor_level), ancestor_level, place)
    except NotReachable as e:
        return None, f"no texture: {e}"
    return png, f"texture: {path}"


def render_notes(notes: dict[str, str]) -> bytes:
    """mesh/textures.txt: one line per material, its picture or why it has none."""
    return "".join(f"{name}: {note}\n" for name, note in notes.items()).encode("utf-8", "replace")


def image_externals(refs: RefTable | None) -> list:
    """The external references of a reference table that name an image file."""
    if refs is None:
        return []
    return [e for e in refs.externals if FileLink(e.path or e.file_name or "").is_image]


def bitmap_picture(nodes: list[Node], refs: RefTable | None, place: Place | None) -> tuple[bytes, str]:
    """(PNG, path) of a bitmap file's image: the one its main node's image chunk
    names, else the one image its reference table names (NotReachable: why none)."""
    if place is None:
        raise NotReachable("this file is in no folder or pak of the mount, its references are not followed")
    level = refs.ancestor_level if refs is not None else 0
    step: Step = next_step(nodes[0], level) if nodes else "no body node read"
    if isinstance(step, str):
        images = image_externals(refs)
        if len(images) != 1:
            raise NotReachable(f"{step}, and the reference table names {len(images)} image files")
        step = external_link(images[0], level)
    return follow(step, level, place)
