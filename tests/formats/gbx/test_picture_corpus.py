"""Pictures of corpus GBX files: every map thumbnail comes out upright at its
stored size, every item/block icon at its stored size (raw icons turned right
way up, WebP icons as stored), a replay gives its embedded map's thumbnail, and a
file without a picture says so."""
from __future__ import annotations

import io

import pytest
from corpusdata import CORPUS, manifest_rows, parsed_gbx
from PIL import Image

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.picture import ICON, MAP_THUMBNAIL, REPLAY_MAP, gbx_png
from gbxfs.formats.gbx.thumbnail import split_thumbnail_chunk

pytestmark = pytest.mark.corpus


def _rows(kinds):
    return [r for r in manifest_rows() if r["kind"] in kinds and r["path"].lower().endswith(".gbx")]


def _header_chunk(g, cid):
    return next((c for c in g.header.chunks if c.chunk_id == cid), None)


def test_map_thumbnails_upright(corpus):
    seen = 0
    for row in _rows(("map",)):
        data, g = parsed_gbx(row["path"])
        c = _header_chunk(g, MAP_THUMBNAIL)
        jpeg = split_thumbnail_chunk(bytes(c.raw))[0] if c is not None else None
        if not jpeg:
            with pytest.raises(GbxError, match="no thumbnail or icon"):
                gbx_png(data)
            continue
        stored = Image.open(io.BytesIO(jpeg)).convert("RGB")
        png = Image.open(io.BytesIO(gbx_png(data))).convert("RGB")
        assert png.size == stored.size, row["path"]
        # the stored JPEG is upside down: its bottom row is the picture's top row
        w, h = stored.size
        top = [png.getpixel((x, 0)) for x in range(0, w, 16)]
        stored_bottom = [stored.getpixel((x, h - 1)) for x in range(0, w, 16)]
        assert all(abs(a - b) <= 24 for p, q in zip(top, stored_bottom) for a, b in zip(p, q)), row["path"]
        seen += 1
    assert seen >= 60


def test_icons_at_their_size(corpus):
    raw = webp = 0
    for row in _rows(("item", "other", "map")):
        data, g = parsed_gbx(row["path"])
        c = _header_chunk(g, ICON)
        if c is None or not c.values:
            continue
        w, h = c.values["iconWidth"] & 0x7FFF, c.values["iconHeight"] & 0x7FFF
        png = Image.open(io.BytesIO(gbx_png(data))).convert("RGBA")
        assert png.size == (w, h), row["path"]
        if c.values["iconWidth"] & 0x8000:
            webp += 1
        else:
            pixels = c.values["iconData"]
            first_stored_row = pixels[:4 * w]       # the bottom row of the picture
            assert png.crop((0, h - 1, w, h)).tobytes() == first_stored_row, row["path"]
            raw += 1
    assert raw >= 15 and webp >= 3


def test_replays_show_their_maps_thumbnail(corpus):
    seen = 0
    for row in _rows(("replay",)):
        data, g = parsed_gbx(row["path"])
        c = g.body.nodes[0].chunk(REPLAY_MAP) if g.body.nodes else None
        if c is None or not c.values or not c.values.get("map"):
            continue
        try:
            expected = gbx_png(bytes(c.values["map"]))
        except GbxError:
            with pytest.raises(GbxError):
                gbx_png(data)
            continue
        assert gbx_png(data) == expected, row["path"]
        seen += 1
    assert seen >= 5


def test_no_picture(corpus):
    row = next(r for r in _rows(("ghost",)))
    with pytest.raises(GbxError, match="CGameCtnGhost: no thumbnail or icon"):
        gbx_png((CORPUS / row["path"]).read_bytes())
