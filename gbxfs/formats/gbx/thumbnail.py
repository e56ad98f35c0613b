"""Upright thumbnails: maps (chunk 03043007) store their JPEG upside down.

The flip decodes the JPEG and encodes it again with the *source's own*
quantization tables and chroma subsampling (Pillow's "keep" settings), so the
re-encoded image has the quality of the original and no second, different
quantization is layered on top. A lossless DCT-domain flip would need a
jpegtran-like tool; none is a well-kept pure-Python dependency, and the loss
here is limited to one rounding pass of the same tables.
"""
from __future__ import annotations

import io
from typing import Any

from . import classdb
from .blob import BlobCursor
from .errors import GbxError

JPEG_MAGIC = b"\xff\xd8"
THUMBNAIL_CHUNK = classdb.class_id("CGameCtnChallenge") | 0x007   # 03043007
# The largest thumbnail a game writes: 1024x1024 (TM2020 maps; TMF 256x256, ManiaPlanet
# 512x512, all seen in the corpus). A flip holds the decoded image twice (about 6 MB at
# this size); a larger one is refused before anything is decoded, so eight hostile
# 4096x4096 thumbnails read at once cannot take 400 MB (README: memory).
MAX_PIXELS = 1024 * 1024


def is_jpeg(data: bytes) -> bool:
    return data[:2] == JPEG_MAGIC


def flip_jpeg(data: bytes) -> bytes:
    """The JPEG `data` flipped top to bottom, as JPEG bytes."""
    try:
        from PIL import Image, JpegImagePlugin
    except ImportError as e:  # pragma: no cover - Pillow is a declared dependency
        raise GbxError(f"Pillow is needed to flip thumbnails: {e}") from None
    if not is_jpeg(data):
        raise GbxError("thumbnail is not a JPEG (no FFD8 start marker)")
    try:
        with Image.open(io.BytesIO(data)) as im:
            if im.format != "JPEG" or not isinstance(im, JpegImagePlugin.JpegImageFile):
                raise GbxError(f"thumbnail is {im.format}, not JPEG")
            if im.width * im.height > MAX_PIXELS:
                raise GbxError(f"thumbnail of {im.width}x{im.height} pixels is larger than any game writes"
                               f" ({MAX_PIXELS} pixels at most)")
            im.load()
            flipped = im.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
            out = io.BytesIO()
            save: dict[str, Any] = {"format": "JPEG", "qtables": im.quantization}
            sampling = JpegImagePlugin.get_sampling(im) if im.mode in ("RGB", "YCbCr") else -1
            if sampling != -1:
                save["subsampling"] = sampling
            if "progressive" in im.info or "progression" in im.info:
                save["progressive"] = True
            flipped.save(out, **save)
            return out.getvalue()
    except GbxError:
        raise
    except Exception as e:  # noqa: BLE001 - Pillow signals bad data with many exception types
        raise GbxError(f"thumbnail JPEG could not be decoded: {type(e).__name__}: {e}") from None


_THUMB_OPEN, _THUMB_CLOSE = b"<Thumbnail.jpg>", b"</Thumbnail.jpg>"
_COMMENTS_OPEN, _COMMENTS_CLOSE = b"<Comments>", b"</Comments>"


def split_thumbnail_chunk(raw: bytes | memoryview) -> tuple[bytes | None, str | None]:
    """(stored JPEG, comments) of header chunk 03043007 (layout: thumbnail_parts).
    Either part may be None."""
    at, size, comments = thumbnail_parts(raw)
    return (bytes(raw[at:at + size]) if size else None), comments


def thumbnail_parts(raw: bytes | memoryview) -> tuple[int, int, str | None]:
    """(offset, size) of the stored JPEG in header chunk 03043007 (size 0: none)
    and its comments (None: none), the image skipped, not copied: a folder's
    listing needs to know it is there, not its bytes. Wiki layout: u32 version;
    if version != 0: u32 thumbSize, "<Thumbnail.jpg>", thumb, "</Thumbnail.jpg>",
    "<Comments>", u32 len + comments, "</Comments>"."""
    c = BlobCursor(raw, "chunk 03043007")
    if c.u32() == 0:
        return 0, 0, None
    size = c.count(1, c.u32())
    if c.bytes(len(_THUMB_OPEN)) != _THUMB_OPEN:
        raise GbxError("chunk 03043007: <Thumbnail.jpg> marker missing", chunk_id=THUMBNAIL_CHUNK)
    at = c.pos
    c.skip(size)
    if c.bytes(len(_THUMB_CLOSE)) != _THUMB_CLOSE:
        raise GbxError("chunk 03043007: </Thumbnail.jpg> marker missing", chunk_id=THUMBNAIL_CHUNK)
    comments = None
    if c.left:
        if c.bytes(len(_COMMENTS_OPEN)) != _COMMENTS_OPEN:
            raise GbxError("chunk 03043007: <Comments> marker missing", chunk_id=THUMBNAIL_CHUNK)
        comments = c.bytes(c.count(1)).decode("utf-8", "replace")
        if c.bytes(len(_COMMENTS_CLOSE)) != _COMMENTS_CLOSE:
            raise GbxError("chunk 03043007: </Comments> marker missing", chunk_id=THUMBNAIL_CHUNK)
    return at, size, comments
