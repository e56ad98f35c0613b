"""PNG pictures out of game images, decoded by Pillow only: DDS textures (the
DXT1/3/5 and BC4/5/7 and uncompressed layouts Pillow's DDS plugin reads), JPEG,
WebP, and raw RGBA pixel arrays.

What Pillow cannot decode (a DDS pixel format it lacks, a truncated file) raises
ImageError with the reason: never a partial or guessed picture. Sizes are checked
from the image's header before any pixel is decoded (MAX_PIXELS), so a file that
claims a huge picture costs no memory.
"""
from __future__ import annotations

import io

MAX_PIXELS = 4096 * 4096      # 64 MiB of RGBA: the largest game textures are 4096 square
DDS_MAGIC = b"DDS "
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class ImageError(Exception):
    """An image that cannot be turned into a picture, and why."""


def is_dds(data: bytes) -> bool:
    return data[:4] == DDS_MAGIC


def _dds_format(data: bytes) -> str:
    """The FourCC (or 'uncompressed') a DDS header names, for error messages."""
    if len(data) < 88:
        return "unknown (header cut short)"
    fourcc = data[84:88]
    return fourcc.decode("latin-1") if fourcc.strip(b"\0") else "uncompressed"


def _finish(im, size: int | None) -> bytes:
    from PIL import Image
    if im.mode not in ("RGB", "RGBA", "L", "LA", "P", "I;16", "1"):
        im = im.convert("RGBA" if "A" in im.getbands() else "RGB")
    if size is not None:
        if size < 1:
            raise ImageError(f"size {size}: must be at least 1")
        im = im.copy()
        im.thumbnail((size, size), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    im.save(out, format="PNG")
    return out.getvalue()


def to_png(data: bytes, *, size: int | None = None, flip: bool = False) -> bytes:
    """A PNG of an encoded image (DDS, JPEG, WebP, PNG, ...), at most `size` pixels on
    its longer side when given; `flip` turns it upside down (pictures stored bottom-up)."""
    from PIL import Image, UnidentifiedImageError
    try:
        im: Image.Image = Image.open(io.BytesIO(data))
    except UnidentifiedImageError:
        what = f"DDS ({_dds_format(data)})" if is_dds(data) else "image"
        raise ImageError(f"Pillow cannot decode this {what}") from None
    except Exception as e:  # noqa: BLE001 - Pillow reports unsupported layouts with several types
        what = f"DDS pixel format {_dds_format(data)}" if is_dds(data) else "image"
        raise ImageError(f"cannot decode the {what}: {type(e).__name__}: {e}") from None
    with im:
        w, h = im.size
        if w < 1 or h < 1 or w * h > MAX_PIXELS:
            raise ImageError(f"{im.format} image of {w}x{h} pixels: more than {MAX_PIXELS} pixels or empty")
        try:
            im.load()
        except Exception as e:  # noqa: BLE001 - the library signals bad data with many exception types
            raise ImageError(f"cannot decode the {im.format} image of {w}x{h}: {type(e).__name__}: {e}") from None
        if flip:
            im = im.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
        return _finish(im, size)


def rgba_to_png(pixels: bytes, width: int, height: int, *, size: int | None = None, flip: bool = False) -> bytes:
    """A PNG of raw 8-bit RGBA pixels, rows top first (or bottom first with `flip`)."""
    from PIL import Image
    if width < 1 or height < 1 or width * height > MAX_PIXELS:
        raise ImageError(f"raw image of {width}x{height} pixels: more than {MAX_PIXELS} pixels or empty")
    if len(pixels) != 4 * width * height:
        raise ImageError(f"raw RGBA image of {width}x{height}: {len(pixels)} bytes, expected {4 * width * height}")
    im = Image.frombytes("RGBA", (width, height), bytes(pixels))
    if flip:
        im = im.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    return _finish(im, size)
