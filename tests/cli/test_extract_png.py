"""gbxfs extract --png: a PNG beside every .dds, decoded from the bytes written;
a .dds Pillow cannot decode is reported and gets no PNG (never a wrong picture)."""
from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from gbxfs.cli import main
from gbxfs.formats.pak.writer import PakFile, write_packs


def _dds(w: int, h: int, fmt: str = "DXT5") -> bytes:
    out = io.BytesIO()
    im = Image.new("RGBA", (w, h), (200, 10, 30, 255))
    im.paste((0, 0, 255, 255), (0, 0, w // 2, h // 2))     # a blue top-left quarter
    im.save(out, format="DDS", pixel_format=fmt)
    return out.getvalue()


def test_png_beside_each_dds(tmp_path, capsys):
    good = _dds(64, 32)
    files = [PakFile("T/a.dds", good), PakFile("T/bad.dds", good[:128] + b"\xff" * 8),
             PakFile("T/note.txt", b"not a texture")]
    write_packs(tmp_path / "p", {"Tex": files})
    out = tmp_path / "out"
    assert main(["extract", "--png", str(tmp_path / "p"), str(out)]) == 1      # bad.dds: no PNG
    err = capsys.readouterr().err
    assert "Tex.pak/T/bad.dds.png: skipped: no PNG:" in err
    got = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert got == ["Tex.pak/T/a.dds", "Tex.pak/T/a.dds.png", "Tex.pak/T/bad.dds", "Tex.pak/T/note.txt"]
    png = Image.open(out / "Tex.pak/T/a.dds.png")
    assert png.format == "PNG" and png.size == (64, 32)
    assert png.convert("RGBA").getpixel((2, 2))[2] > 200 and png.convert("RGBA").getpixel((60, 30))[0] > 150
    # a second run keeps both as identical; without --png no PNG is made
    assert main(["extract", "--png", "-q", str(tmp_path / "p"), str(out)]) == 1
    assert "0 files written (0 bytes), 4 skipped as identical" in capsys.readouterr().err
    plain = tmp_path / "plain"
    main(["extract", "-q", str(tmp_path / "p"), str(plain)])
    assert not list(Path(plain).rglob("*.png"))
