"""Hostile pictures in GBX headers: an icon whose WebP data is cut or claims a
huge size, raw pixels of the wrong length, and a thumbnail JPEG cut short give
GbxError (error.txt material) with bounded memory, never a picture."""
from __future__ import annotations

import io
import struct

import pytest
from memtrace import MiB, Traced
from PIL import Image
from robust_gbx import build_gbx

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.picture import ICON, MAP_THUMBNAIL, gbx_png

ITEM = classdb.class_id("CGameItemModel")
MAP = classdb.class_id("CGameCtnChallenge")
END = struct.pack("<I", 0xFACADE01)


def _webp(w: int, h: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", (w, h), (1, 2, 3, 255)).save(out, format="WEBP", lossless=True)
    return out.getvalue()


def _webp_icon(data: bytes, w: int = 64, h: int = 64) -> bytes:
    return struct.pack("<HHHI", w | 0x8000, h | 0x8000, 1, len(data)) + data


def _item(icon_chunk: bytes) -> bytes:
    return build_gbx(ITEM, END, header_chunks=[(ICON, icon_chunk)])


def test_webp_icon_decodes():
    png = Image.open(io.BytesIO(gbx_png(_item(_webp_icon(_webp(64, 64))))))
    assert png.size == (64, 64)


@pytest.mark.parametrize("keep", [0, 12, 30])
def test_cut_webp_icon(keep):
    data = _webp(64, 64)
    with pytest.raises(GbxError):
        gbx_png(_item(_webp_icon(data[:keep])))


@pytest.mark.parametrize("side", [8192, 16384])     # past our bound; past Pillow's own too
def test_webp_icon_claiming_a_huge_picture(side):
    data = bytearray(_webp(16, 16))
    # a lossless VP8L header: 14-bit width-1 and height-1 after the signature byte
    assert data[12:16] == b"VP8L"
    bits = (side - 1) | ((side - 1) << 14) | (int.from_bytes(data[21:25], "little") & ~((1 << 28) - 1))
    data[21:25] = bits.to_bytes(4, "little")
    with Traced() as t:
        with pytest.raises(GbxError, match="more than|DecompressionBomb"):
            gbx_png(_item(_webp_icon(bytes(data))))
        assert t.growth() < 4 * MiB


def test_raw_icon_shorter_than_its_size():
    chunk = struct.pack("<HH", 4, 4) + bytes(4 * 16)
    with pytest.raises(GbxError):
        gbx_png(_item(chunk[:-8]))


def test_cut_thumbnail_jpeg():
    buf = io.BytesIO()
    Image.new("RGB", (64, 64), (9, 9, 9)).save(buf, format="JPEG")
    jpeg = buf.getvalue()[:200]
    chunk = (struct.pack("<II", 1, len(jpeg)) + b"<Thumbnail.jpg>" + jpeg + b"</Thumbnail.jpg>"
             + b"<Comments>" + struct.pack("<I", 0) + b"</Comments>")
    with pytest.raises(GbxError, match="cannot decode"):
        gbx_png(build_gbx(MAP, END, header_chunks=[(MAP_THUMBNAIL, chunk)]))
