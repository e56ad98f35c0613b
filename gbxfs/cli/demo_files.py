"""The demo Packs folder: made here, from nothing, with gbxfs's own pak writer.

    build_demo(folder) -> Path of the Packs folder

- Packs/packlist.dat + Demo.pak: DDS textures and MediaTracker clips
  (GBX files with text and fade blocks, written with an uncompressed body, as
  in real paks);
- Packs/DemoMap.Challenge.Gbx: a loose map-like GBX (LZO body) with the
  header chunks a map browser shows first: description, common info, XML,
  author and an (upside-down, as the game stores it) JPEG thumbnail.

The GBX bytes come from gbxfs/formats/gbx/writer.py (primitives, lookback
strings, the file around a body), not from the parser.
"""
from __future__ import annotations

import io
import struct
from pathlib import Path

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.writer import END, W, build_gbx

MAP, CLIP, TRACK = map(classdb.class_id, ("CGameCtnChallenge", "CGameCtnMediaClip", "CGameCtnMediaTrack"))
TEXT_BLOCK, FADE_BLOCK, EFFECT = map(classdb.class_id, ("CGameCtnMediaBlockText", "CGameCtnMediaBlockTransitionFade",
                                                       "CControlEffectSimi"))

# -- the map ---------------------------------------------------------------------------------
def thumbnail_jpeg(size: int = 256) -> bytes:
    """An upright picture: sky on top, a road below, and a label."""
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (size, size), (90, 160, 230))
    d = ImageDraw.Draw(im)
    d.rectangle([0, size * 5 // 8, size, size], fill=(60, 150, 70))
    d.polygon([(size * 3 // 8, size), (size * 5 // 8, size), (size * 9 // 16, size * 5 // 8),
               (size * 7 // 16, size * 5 // 8)], fill=(70, 70, 75))
    d.ellipse([size * 11 // 16, size // 10, size * 7 // 8, size * 3 // 10], fill=(250, 220, 80))
    d.text((size // 16, size // 16), "gbxfs demo", fill=(255, 255, 255))
    out = io.BytesIO()
    im.save(out, format="JPEG", quality=85)
    return out.getvalue()


def _stored_upside_down(jpeg: bytes) -> bytes:
    from PIL import Image

    with Image.open(io.BytesIO(jpeg)) as im:
        out = io.BytesIO()
        im.transpose(Image.Transpose.FLIP_TOP_BOTTOM).save(out, format="JPEG", quality=85)
        return out.getvalue()


MAP_UID, MAP_NAME, AUTHOR = "gbxfsDemoMapUid0000000000001", "gbxfs Demo Map", "gbxfs"
AUTHOR_TIME = 41230


def demo_map() -> bytes:
    desc = W().u8(8).bool(False).i32(AUTHOR_TIME * 3 // 2).i32(AUTHOR_TIME * 6 // 5) \
        .i32(AUTHOR_TIME * 21 // 20).i32(AUTHOR_TIME).u32(1234).bool(False).u32(0)
    common = W().u8(2).id(MAP_UID).id("Stadium").id(AUTHOR).string(MAP_NAME).u8(6) \
        .u32(0).string("").id("Day").id("Stadium").id("Nadeo")
    xml = (f'<header type="map" exever="2.11.26" exebuild="2011-02-21_17_47">'
           f'<ident uid="{MAP_UID}" name="{MAP_NAME}" author="{AUTHOR}"/>'
           f'<desc envir="Stadium" mood="Day" type="Race" nblaps="0" price="1234"/>'
           f'<times bronze="{AUTHOR_TIME * 3 // 2}" silver="{AUTHOR_TIME * 6 // 5}" '
           f'gold="{AUTHOR_TIME * 21 // 20}" authortime="{AUTHOR_TIME}" authorscore="0"/>'
           f'<deps></deps></header>')
    community = W().string(xml)
    thumb = _stored_upside_down(thumbnail_jpeg())
    thumbnail = W().u32(1).u32(len(thumb))
    thumbnail.buf += b"<Thumbnail.jpg>" + thumb + b"</Thumbnail.jpg><Comments>"
    thumbnail.string("Made by gbxfs demo: browse me as a folder.").buf += b"</Comments>"
    author = W().u32(0).u32(0).string(AUTHOR).string("gbxfs demo").string("World").string("")
    header = [(MAP | 0x002, desc.bytes()), (MAP | 0x003, common.bytes()), (MAP | 0x005, community.bytes()),
              (MAP | 0x007, thumbnail.bytes()), (MAP | 0x008, author.bytes())]
    body = W().u32(END).bytes()      # the block data is not what this demo is about
    return build_gbx(class_id=MAP, header_chunks=[(cid, data, False) for cid, data in header], body=body,
                     body_comp="C")


# -- MediaTracker clips ----------------------------------------------------------------------
def demo_clip(n: int) -> bytes:
    """A clip with one track holding a text block (with its effect) and a fade."""
    w = W()
    w.u32(CLIP | 0x00D).u32(0).u32(1).u32(1)
    w.i32(1).u32(TRACK)                                   # new node #1: the track
    w.u32(TRACK | 0x001).string(f"Track {n}").u32(0xA).u32(2)
    w.i32(2).u32(TEXT_BLOCK)                              # new node #2: a text block
    w.u32(TEXT_BLOCK | 0x001).string(f"Hello from clip {n}")
    w.i32(3).u32(EFFECT)                                  # new node #3: its effect
    w.u32(EFFECT | 0x005).u32(2)
    for t in (0.0, 2.5 + n):
        w.f32(t, 0.0, 0.1 * n, 0.0, 1.0, 1.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0)
    w.bool(True).u32(0).bool(False).bool(True).u32(END)
    w.u32(TEXT_BLOCK | 0x002).f32(1.0, 0.8, 0.2 + 0.1 * n).u32(END)
    w.i32(4).u32(FADE_BLOCK)                              # new node #4: a fade
    w.u32(FADE_BLOCK | 0x000).u32(2).f32(0.0, 0.0, 1.5, 1.0).f32(0.0, 0.0, 0.0, 1.0).u32(END)
    w.u32(0)                                              # 03078001's trailing field
    w.u32(TRACK | 0x004).bool(False).u32(0).u32(END)         # end of the track node
    w.string(f"Demo clip {n}").bool(False).bool(True).bool(False).string("").f32(0.5).i32(-1)
    w.u32(END)
    return build_gbx(class_id=CLIP, body=w.bytes(), num_nodes=5)


# -- textures --------------------------------------------------------------------------------
def demo_dds(size: int, seed: int) -> bytes:
    """An uncompressed 32-bit DDS holding a colour gradient."""
    header = struct.pack("<4s7I44x", b"DDS ", 124, 0x100F, size, size, size * 4, 0, 0)
    pixfmt = struct.pack("<8I", 32, 0x41, 0, 32, 0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000)
    caps = struct.pack("<5I", 0x1000, 0, 0, 0, 0)
    pixels = bytearray()
    for y in range(size):
        for x in range(size):
            pixels += bytes(((x * 255) // size, (y * 255) // size, (seed * 60) & 0xFF, 255))
    return header + pixfmt + caps + bytes(pixels)


def build_demo(folder: str | Path) -> Path:
    """Write the demo Packs folder into `folder`; returns its path."""
    from gbxfs.formats.pak.writer import PakFile, write_packs

    packs = Path(folder) / "Packs"
    files = [PakFile(f"Demo/Media/Textures/Sky{i}.dds", demo_dds(16 << i, i)) for i in range(3)]
    files += [PakFile(f"Demo/Media/Clips/Intro{i}.Clip.Gbx", demo_clip(i), compress=True) for i in range(3)]
    write_packs(packs, {"Demo": files}, salt=20030101)
    (packs / "DemoMap.Challenge.Gbx").write_bytes(demo_map())
    return packs
