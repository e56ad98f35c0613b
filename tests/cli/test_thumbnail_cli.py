"""gbxfs thumbnail IN OUT [-s SIZE]: a PNG of a map's thumbnail, an item's icon or
a .dds texture; clear errors and exit codes otherwise."""
from __future__ import annotations

import io

import pytest
from corpusdata import CORPUS, corpus_path
from PIL import Image

from gbxfs import cli
from gbxfs.cli.exits import EXIT_BAD_INPUT, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE


@pytest.mark.corpus
def test_map_thumbnail_with_size(corpus, tmp_path):
    src = CORPUS / corpus_path("Benchmark/Tracks/A01-Race.Challenge.Gbx")
    out = tmp_path / "a.png"
    assert cli.main(["thumbnail", str(src), str(out), "-s", "100"]) == EXIT_OK
    im = Image.open(out)
    assert im.format == "PNG" and max(im.size) == 100


@pytest.mark.corpus
def test_item_icon(corpus, tmp_path):
    src = CORPUS / corpus_path("ObstacleSignsNormal/Black/Base.ObjectInfo.gbx")
    out = tmp_path / "icon.png"
    assert cli.main(["thumbnail", str(src), str(out)]) == EXIT_OK
    assert Image.open(out).size == (64, 64)


def test_dds(tmp_path):
    dds = tmp_path / "t.dds"
    buf = io.BytesIO()
    Image.new("RGBA", (32, 16), (10, 200, 30, 255)).save(buf, format="DDS", pixel_format="DXT5")
    dds.write_bytes(buf.getvalue())
    out = tmp_path / "t.png"
    assert cli.main(["thumbnail", str(dds), str(out)]) == EXIT_OK
    assert Image.open(out).size == (32, 16)


def test_errors(tmp_path, capsys):
    bad = tmp_path / "bad.dds"
    bad.write_bytes(b"DDS " + bytes(10))
    out = tmp_path / "x.png"
    assert cli.main(["thumbnail", str(bad), str(out)]) == EXIT_BAD_INPUT
    assert "bad.dds" in capsys.readouterr().err and not out.exists()
    assert cli.main(["thumbnail", str(tmp_path / "missing.Gbx"), str(out)]) == EXIT_NOT_FOUND
    assert cli.main(["thumbnail", str(bad), str(out), "-s", "0"]) == EXIT_USAGE
    assert cli.main(["thumbnail"]) == EXIT_USAGE
    assert list(tmp_path.iterdir()) == [bad]
