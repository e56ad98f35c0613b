"""image.png of a bitmap file (.Texture.Gbx, CPlugBitmap: tree/gbx/pictures.py):
listed from the reference table alone, made when read from the image the
bitmap names in the same mount; an image that is missing or not decodable
answers EIO with the reason, never a wrong picture; what the header shows
cannot work is a line of error.txt. No corpus file holds a CPlugBitmap: the
bitmap files are written here (chunk 09011015, an external image reference)."""
from __future__ import annotations

import errno
import io
import struct

import pytest
from PIL import Image

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.writer import W, build_gbx, node_body
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree.root import build_tree

BITMAP = classdb.class_id("CPlugBitmap")


def _bitmap(*images: str, chunk: int = 0x015) -> bytes:
    """A CPlugBitmap naming the external files `images` (beside it); its image chunk
    points at the first."""
    data = W().i32(1).raw(struct.pack("<Q", 0)).f32(0.0, 1.0, 0.0).i32(0).bytes()
    return build_gbx(class_id=BITMAP, num_nodes=1 + len(images),
                     externals=[{"flags": 1, "file": name, "node": i + 1, "folder": 0} for i, name in enumerate(images)],
                     body=node_body([(BITMAP | chunk, data, False)]))


def _picture() -> Image.Image:
    im = Image.new("RGBA", (4, 4))
    im.putdata([(i * 16, 255 - i * 16, i * 7, 255) for i in range(16)])
    return im


def _encoded(im: Image.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    im.save(out, format=fmt)
    return out.getvalue()


def _folder(tmp_path, files: dict[str, bytes], name="Road.Texture.Gbx"):
    for rel, data in files.items():
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(data)
    return build_tree(str(tmp_path)).child("Media").child(name)


def _read(f) -> bytes:
    return f.read(0, f.size())


@pytest.mark.parametrize("fmt,ext", [("DDS", "dds"), ("PNG", "png"), ("TGA", "tga")])
def test_image_png_is_the_picture_the_bitmap_names(tmp_path, fmt, ext):
    im = _picture()
    d = _folder(tmp_path, {"Media/Road.Texture.Gbx": _bitmap(f"Road.{ext}"), f"Media/Road.{ext}": _encoded(im, fmt)})
    kids = d.children()
    assert "image.png" in kids and "error.txt" not in kids
    assert _read(kids[".directory"]) == b"[Desktop Entry]\nIcon=./image.png\n"
    got = Image.open(io.BytesIO(_read(kids["image.png"])))
    assert got.format == "PNG" and got.convert("RGBA").tobytes() == im.tobytes()


def test_the_image_is_found_in_the_same_pak(tmp_path):
    im = _picture()
    write_packs(tmp_path, {"Tex": [PakFile("Media/Texture/Road.Texture.Gbx", _bitmap("Road.dds")),
                                   PakFile("Media/Texture/road.DDS", _encoded(im, "DDS"))]})
    d = build_tree(str(tmp_path)).child("Tex.pak").child("Media").child("Texture").child("Road.Texture.Gbx")
    got = Image.open(io.BytesIO(_read(d.children()["image.png"])))
    assert got.convert("RGBA").tobytes() == im.tobytes()      # names match ignoring case, as in the games


def test_a_body_without_a_decoded_image_chunk_uses_the_one_image_of_the_table(tmp_path):
    """A chunk no declaration knows stops the body walk: the reference table still
    names the one image."""
    im = _picture()
    body = node_body([(BITMAP | 0xFFF, b"\0" * 4, False)])
    data = build_gbx(class_id=BITMAP, num_nodes=2, externals=[{"flags": 1, "file": "R.png", "node": 1, "folder": 0}],
                     body=body)
    d = _folder(tmp_path, {"Media/Road.Texture.Gbx": data, "Media/R.png": _encoded(im, "PNG")})
    assert Image.open(io.BytesIO(_read(d.children()["image.png"]))).convert("RGBA").tobytes() == im.tobytes()


@pytest.mark.parametrize("case", ["missing", "undecodable"])
def test_an_image_that_cannot_be_made_answers_eio_with_the_reason(tmp_path, case):
    files = {"Media/Road.Texture.Gbx": _bitmap("Road.dds")}
    if case == "undecodable":
        files["Media/Road.dds"] = (b"DDS " + struct.pack("<7I", 124, 0x1007, 4, 4, 0, 0, 0) + bytes(44)
                                   + struct.pack("<2I", 32, 4) + b"ZZZZ" + bytes(40))
    d = _folder(tmp_path, files)
    names = sorted(d.children())
    f = d.children()["image.png"]
    with pytest.raises(OSError) as e:
        f.size()
    assert e.value.errno == errno.EIO
    want = {"missing": "image.png: Media/Road.dds: not found in the mount",
            "undecodable": "image.png: Media/Road.dds: cannot decode the DDS pixel format ZZZZ"}[case]
    assert e.value.strerror.startswith(want)
    assert sorted(d.children()) == names and "error.txt" not in names


def test_a_table_naming_two_images_is_an_error_line_and_no_image(tmp_path):
    why = "the reference table names 2 images: A.dds, B.dds"
    d = _folder(tmp_path, {"Media/Road.Texture.Gbx": _bitmap("A.dds", "B.dds")})
    kids = d.children()
    assert "image.png" not in kids
    text = _read(kids["error.txt"]).decode()
    assert "what: image.png\n" in text and f"why: {why}\n" in text


def test_other_files_list_no_image_png(tmp_path):
    data = build_gbx(class_id=classdb.class_id("CPlugMaterial"), num_nodes=2,
                     externals=[{"flags": 1, "file": "A.dds", "node": 1, "folder": 0}], body=node_body([]))
    d = _folder(tmp_path, {"Media/Road.Material.Gbx": data}, name="Road.Material.Gbx")
    assert "image.png" not in d.children() and ".directory" not in d.children()
