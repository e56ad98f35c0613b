"""icon.png and .directory: the pictures of a GBX folder for people and file managers.

- icon.png: an item's or block's icon (header chunk 2E001004, raw RGBA or WebP)
  as PNG, listed when the header holds that chunk; made when read (lazy_size).
  header/'s listing, which decodes the header chunks anyway, makes it too and
  puts why it cannot be made in header/error.txt; reading it then answers EIO
  with the same reason, never a wrong picture.
- image.png: a bitmap file's (.Texture.Gbx, CPlugBitmap) picture, listed when
  its reference table names one image file (.dds, .png, .tga, ...: the header
  alone tells); made when read: the image is looked up in the same mount
  (nearby.py, textures.py) and decoded by Pillow. Reading it when the image is
  not there, not readable by everyone or not decodable answers EIO with that
  reason, never a wrong picture; a table naming more than one image, or an
  image kind Pillow has no decoder for, is a line of the folder's error.txt
  and no image.png.
- .directory: the file KDE's Dolphin reads for a folder's icon
  (`[Desktop Entry]` / `Icon=./thumbnail.jpg`), in every GBX folder that lists
  thumbnail.jpg (maps, replays) or icon.png (items), so the folder shows the
  map's picture. Its content is fixed: its size is known when listed.
"""
from __future__ import annotations

import errno
from collections.abc import Callable, Hashable
from typing import Any

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.picture import ICON, icon_png
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.cached import ITEM_OVERHEAD, CachedFile, KeyedFile, KeyOwner
from gbxfs.tree.gbx.nearby import NotReachable, place_of
from gbxfs.tree.gbx.textures import bitmap_picture, image_externals
from gbxfs.tree.model import BytesFile, Entry

ICON_NAME = "icon.png"
IMAGE_NAME = "image.png"
BITMAP = classdb.class_id("CPlugBitmap")
DIRECTORY_NAME = ".directory"
FOLDER_PICTURES = ("thumbnail.jpg", ICON_NAME, IMAGE_NAME)     # the first listed is the folder's icon
# .directory's text for each picture (bytes shared by every folder that shows it)
DIRECTORY_TEXTS = tuple((n, f"[Desktop Entry]\nIcon=./{n}\n".encode()) for n in FOLDER_PICTURES)


class HeaderChunkFile(KeyedFile):
    """A file made from one header chunk (thumbnail.jpg, comments.txt), its xattrs
    (the chunk's id and offset) made when asked: a walk of thousands of maps keeps
    no dict and values of them per map."""

    __slots__ = ("_chunk_id", "_offset")

    def __init__(self, name: str, cache: ByteLRU, owner: KeyOwner, make: Callable[[Any], bytes], chunk_id: int,
                 offset: int, **kw):
        super().__init__(name, cache, owner, make, **kw)
        self._chunk_id, self._offset = chunk_id, offset

    @property
    def xattrs(self) -> dict[str, bytes]:
        return {"user.gbx.chunk_id": f"{self._chunk_id:08X}".encode(), "user.gbx.offset": str(self._offset).encode()}

    @xattrs.setter
    def xattrs(self, value: dict[str, bytes]) -> None:
        raise AttributeError(f"{self.name}: its xattrs are its chunk's, not set")


def has_icon(header) -> bool:
    return any(c.chunk_id == ICON for c in header.chunks)


def icon_entries(header, cache: ByteLRU, key: Callable[..., Hashable], decoded_header) -> list[Entry]:
    """[icon.png] when the header holds an icon chunk; `decoded_header()` gives
    the header with its chunks decoded (again, if the cache dropped it)."""
    if not has_icon(header):
        return []
    x = {"user.gbx.chunk_id": f"{ICON:08X}".encode()}
    return [CachedFile(ICON_NAME, cache, key(ICON_NAME), lambda: _icon_bytes(decoded_header()),
                       xattrs=x, lazy=True)]


def icon_problem(header, cache: ByteLRU, key: Callable[..., Hashable]) -> tuple[str, BaseException] | None:
    """For header/error.txt: why icon.png cannot be made (header already decoded),
    else None; the PNG made on the way is kept where icon.png looks for it."""
    if not has_icon(header):
        return None
    k = key(ICON_NAME)
    if cache.get(k) is not None:
        return None
    try:
        data = _png(header)
    except GbxError as e:
        return f"{ICON_NAME} (chunk {ICON:08X})", e
    cache.put(k, data, len(data) + ITEM_OVERHEAD)
    return None


def _png(header) -> bytes:
    c = next(c for c in header.chunks if c.chunk_id == ICON)
    if c.values is None and c.error is not None:
        raise GbxError(f"icon chunk not decoded: {c.error}", chunk_id=ICON)
    return icon_png(c.values)


def _icon_bytes(header) -> bytes:
    try:
        return _png(header)
    except GbxError as e:
        raise OSError(errno.EIO, f"{ICON_NAME}: {e} (see header/error.txt)") from None


def image_entries(header, p, key: Callable[..., Hashable], problems: list) -> list[Entry]:
    """[image.png] for a bitmap file whose reference table names one image file;
    `p`: the file's GbxParse (body, header and source, used when read only).
    What the header shows cannot work goes to `problems` (error.txt) instead."""
    if header.class_id != BITMAP:
        return []
    images = image_externals(header.refs)
    if not images:
        return []
    names = [e.path or e.file_name for e in images]
    if len(images) > 1:
        problems.append((IMAGE_NAME, GbxError(f"the reference table names {len(images)} images: {', '.join(names)}")))
        return []
    from PIL import Image
    Image.init()
    ext = "." + names[0].rsplit(".", 1)[-1].lower()
    if ext not in Image.registered_extensions():
        problems.append((IMAGE_NAME, GbxError(f"{names[0]}: Pillow has no decoder for {ext} images")))
        return []

    def make() -> bytes:
        h = p.header().header
        if h is None:       # the same source parsed before: cannot fail now unless it changed
            raise OSError(errno.EIO, f"{IMAGE_NAME}: the header no longer parses")
        try:
            return bitmap_picture(p.body().nodes, h.refs, place_of(p.source, p.ctx))[0]
        except NotReachable as e:
            raise OSError(errno.EIO, f"{IMAGE_NAME}: {e}") from None
    return [CachedFile(IMAGE_NAME, p.ctx.cache, key(IMAGE_NAME), make, lazy=True)]


def directory_file(entries: list[Entry]) -> Entry | None:
    """.directory pointing at the folder's picture, when one is listed."""
    names = {e.name for e in entries}
    text = next((t for n, t in DIRECTORY_TEXTS if n in names), None)
    return None if text is None else BytesFile(DIRECTORY_NAME, text)
