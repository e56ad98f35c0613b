"""Thumbnail flips (gbxfs/formats/gbx/thumbnail.py): upright, and refused above the
largest size a game writes (checked from the JPEG header, before decoding)."""
from __future__ import annotations

import io
import struct

import pytest
from PIL import Image

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.thumbnail import MAX_PIXELS, flip_jpeg, split_thumbnail_chunk, thumbnail_parts


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


def _chunk(jpeg: bytes, comments: bytes | None) -> bytes:
    """Header chunk 03043007's data as the wiki lays it out."""
    out = struct.pack("<II", 1, len(jpeg)) + b"<Thumbnail.jpg>" + jpeg + b"</Thumbnail.jpg>"
    if comments is not None:
        out += b"<Comments>" + struct.pack("<I", len(comments)) + comments + b"</Comments>"
    return out


@pytest.mark.parametrize("jpeg, comments", [(b"\xff\xd8jpeg", "a \u00e9 note"), (b"\xff\xd8", None), (b"", "only words")])
def test_the_parts_locate_the_image_the_split_copies(jpeg, comments):
    raw = _chunk(jpeg, None if comments is None else comments.encode())
    for given in (raw, memoryview(b"pad" + raw)[3:]):       # bytes, or a view of a larger buffer
        at, size, text = thumbnail_parts(given)
        assert bytes(given[at:at + size]) == jpeg and text == comments
        assert split_thumbnail_chunk(given) == (jpeg or None, comments)


def test_version_zero_holds_no_thumbnail():
    assert thumbnail_parts(struct.pack("<I", 0)) == (0, 0, None)
    assert split_thumbnail_chunk(struct.pack("<I", 0)) == (None, None)


@pytest.mark.parametrize("cut, marker", [(lambda r: r.replace(b"</Thumbnail.jpg>", b"</Thumbnail.jpX>"), "</Thumbnail.jpg>"),
                                         (lambda r: r.replace(b"<Comments>", b"<Commentz>"), "<Comments>")])
def test_a_missing_marker_is_an_error(cut, marker):
    with pytest.raises(GbxError, match=f"{marker} marker missing"):
        thumbnail_parts(memoryview(cut(_chunk(b"\xff\xd8jpeg", b"c"))))


@pytest.mark.parametrize("keep, left", [(2, 2), (6, 2), (20, 12)])
def test_a_cut_chunk_is_an_error_saying_what_is_missing(keep, left):
    raw = _chunk(b"\xff\xd8jpeg", b"c")[:keep]
    with pytest.raises(GbxError, match=f"need \\d+ bytes, {left} left"):
        thumbnail_parts(raw)
