"""The picture a GBX file carries, as PNG: a map's thumbnail (header chunk
03043007, a JPEG stored upside down), an item's or block's icon (header chunk
2E001004: raw RGBA rows stored bottom first, or, when both sizes have their top
bit set, a WebP image stored upright), or for a replay the thumbnail of the map
it embeds (body chunk 03093002).

Raw icons are stored bottom row first: read top first, the corpus icons with
lettering (SM-Obstacle's ObstacleSigns "Base") show it upside down.
"""
from __future__ import annotations

from .. import image
from . import classdb
from .errors import GbxError
from .header import parse_header
from .thumbnail import split_thumbnail_chunk

MAP_THUMBNAIL = classdb.class_id("CGameCtnChallenge") | 0x007       # 03043007
ICON = classdb.class_id("CGameCtnCollector") | 0x004                # 2E001004
REPLAY = classdb.class_id("CGameCtnReplayRecord")
REPLAY_MAP = REPLAY | 0x002                                          # 03093002
WEBP_FLAG = 0x8000


def _icon_png(values: dict, size: int | None) -> bytes:
    w, h = values["iconWidth"], values["iconHeight"]
    data = values.get("iconData")
    if not data:
        raise GbxError("icon chunk 2E001004 holds no image data", chunk_id=ICON)
    if w & WEBP_FLAG and h & WEBP_FLAG:
        return image.to_png(bytes(data), size=size)
    return image.rgba_to_png(bytes(data), w, h, size=size, flip=True)


def icon_png(values: dict | None, *, size: int | None = None) -> bytes:
    """The PNG of a decoded icon chunk (2E001004); GbxError when it cannot be made."""
    if values is None:
        raise GbxError("icon chunk 2E001004 not decoded", chunk_id=ICON)
    try:
        return _icon_png(values, size)
    except image.ImageError as e:
        raise GbxError(str(e), chunk_id=ICON) from None


def _replay_map(data: bytes) -> bytes | None:
    from . import parse
    g = parse(data)
    if not g.body.nodes:
        raise GbxError(f"replay body not read: {g.body.error}")
    c = g.body.nodes[0].chunk(REPLAY_MAP)
    if c is None or not c.values or not c.values.get("map"):
        return None
    return bytes(c.values["map"])


def gbx_png(data: bytes, *, size: int | None = None, depth: int = 0) -> bytes:
    """The PNG of a GBX file's thumbnail or icon (GbxError when it has none or it
    cannot be decoded; the reason says which)."""
    from . import decode_header_chunks
    header = parse_header(data)
    decode_header_chunks(header)
    try:
        for chunk in header.chunks:
            if chunk.chunk_id == MAP_THUMBNAIL:
                jpeg, _ = split_thumbnail_chunk(bytes(chunk.raw))
                if jpeg:
                    return image.to_png(jpeg, size=size, flip=True)
            elif chunk.chunk_id == ICON:
                if chunk.values is None:
                    raise GbxError(f"icon chunk 2E001004 not decoded: {chunk.error}", chunk_id=ICON)
                return _icon_png(chunk.values, size)
    except image.ImageError as e:
        raise GbxError(str(e)) from None
    if header.class_id == REPLAY and depth == 0:
        embedded = _replay_map(data)
        if embedded is not None:
            try:
                return gbx_png(embedded, size=size, depth=1)
            except GbxError as e:
                raise GbxError(f"the map this replay embeds: {e}") from None
    raise GbxError(f"{header.class_name or f'{header.class_id:08X}'}: no thumbnail or icon in this file")
