"""Thumbnail flips (gbxfs/formats/gbx/thumbnail.py): upright, and refused above the
largest size a game writes (checked from the JPEG header, before decoding)."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.thumbnail import MAX_PIXELS, flip_jpeg


def _jpeg(width: int, height: int) -> bytes:
    im = Image.new("RGB", (width, height), (0, 0, 0))
    im.paste((255, 255, 255), (0, 0, width, height // 2))     # white top half
    out = io.BytesIO()
    im.save(out, format="JPEG", quality=95)
    return out.getvalue()


def test_the_largest_written_size_is_flipped_top_to_bottom():
    flipped = Image.open(io.BytesIO(flip_jpeg(_jpeg(1024, 1024))))
    assert flipped.size == (1024, 1024)
    assert flipped.getpixel((512, 10))[0] < 30 and flipped.getpixel((512, 1013))[0] > 225


@pytest.mark.parametrize("size", [(1025, 1024), (4096, 4096)])
def test_a_larger_thumbnail_is_refused(size):
    data = _jpeg(*size)
    with pytest.raises(GbxError, match="larger than any game writes"):
        flip_jpeg(data)
    assert size[0] * size[1] > MAX_PIXELS
