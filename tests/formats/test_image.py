"""PNG pictures from images through Pillow's decoders: DDS layouts Pillow reads
decode to the right pixels, layouts it cannot read and cut files give
ImageError, and a header claiming a huge picture costs no memory."""
from __future__ import annotations

import io
import struct

import pytest
from memtrace import MiB, Traced
from PIL import Image

from gbxfs.formats.image import MAX_PIXELS, ImageError, rgba_to_png, to_png

DDPF_FOURCC = 0x4


def _picture(w: int = 16, h: int = 8) -> Image.Image:
    """Red on top, blue below: which way up a picture came out is visible."""
    im = Image.new("RGB", (w, h), (0, 0, 255))
    im.paste((255, 0, 0), (0, 0, w, h // 2))
    return im


def _dds(im: Image.Image, pixel_format: str | None = None) -> bytes:
    out = io.BytesIO()
    im.save(out, format="DDS", **({"pixel_format": pixel_format} if pixel_format else {}))
    return out.getvalue()


def _png(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    assert im.format == "PNG"
    return im.convert("RGB")


@pytest.mark.parametrize("fmt", [None, "DXT1", "DXT3", "DXT5"])
def test_dds_decodes_upright(fmt):
    png = _png(to_png(_dds(_picture().convert("RGBA") if fmt else _picture(), fmt)))
    assert png.size == (16, 8)
    top, bottom = png.getpixel((2, 1)), png.getpixel((2, 6))
    assert top[0] > 200 and top[2] < 50 and bottom[2] > 200 and bottom[0] < 50


def test_size_keeps_proportions_and_flip_turns_over():
    png = _png(to_png(_dds(_picture(64, 32), "DXT1"), size=16, flip=True))
    assert png.size == (16, 8)
    assert png.getpixel((2, 1))[2] > 200 and png.getpixel((2, 6))[0] > 200


def _with_fourcc(data: bytes, fourcc: bytes) -> bytes:
    flags = struct.unpack_from("<I", data, 80)[0] | DDPF_FOURCC
    return data[:80] + struct.pack("<I", flags) + fourcc + data[88:]


@pytest.mark.parametrize("fourcc", [b"ATI9", b"YUY2", b"\x71\x00\x00\x00"])
def test_dds_pixel_format_pillow_lacks_is_an_error(fourcc):
    with pytest.raises(ImageError, match="DDS"):
        to_png(_with_fourcc(_dds(_picture().convert("RGBA"), "DXT5"), fourcc))


@pytest.mark.parametrize("keep", [4, 90, 128 + 8])
def test_cut_dds_is_an_error(keep):
    with pytest.raises(ImageError):
        to_png(_dds(_picture(64, 64).convert("RGBA"), "DXT1")[:keep])


@pytest.mark.parametrize("side", [8192, 60000])     # past our bound; past Pillow's own too
def test_huge_claimed_size_is_refused_before_decoding(side):
    data = bytearray(_dds(_picture(64, 64).convert("RGBA"), "DXT1"))
    struct.pack_into("<II", data, 12, side, side)        # height, width
    with Traced() as t:
        with pytest.raises(ImageError, match="more than|DecompressionBomb"):
            to_png(bytes(data))
        assert t.growth() < 1 * MiB


def test_not_an_image():
    with pytest.raises(ImageError, match="cannot decode"):
        to_png(b"GBX\x06\x00" + bytes(100))


def test_raw_rgba_rows_and_checks():
    red, blue = b"\xff\x00\x00\xff", b"\x00\x00\xff\xff"
    pixels = red * 4 + blue * 4                          # 2x4: top rows red
    assert _png(rgba_to_png(pixels, 2, 4)).getpixel((0, 0)) == (255, 0, 0)
    assert _png(rgba_to_png(pixels, 2, 4, flip=True)).getpixel((0, 0)) == (0, 0, 255)
    with pytest.raises(ImageError, match="expected 32"):
        rgba_to_png(pixels[:-1], 2, 4)
    with pytest.raises(ImageError, match="more than"):
        rgba_to_png(b"", MAX_PIXELS, 2)
