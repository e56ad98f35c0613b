"""The command line on entries no checksum can prove (formats/pak/verification.py):
`gbxfs info` names the label, `extract` counts what it wrote of them, and
--verified-only (ls/cat/extract; -o verified_only when mounting) refuses them."""
from __future__ import annotations

import json

import pytest

from gbxfs.cli import main
from gbxfs.cli.mount import _parser
from gbxfs.formats.pak.verification import ADLER32, NONE_STORED
from gbxfs.fuse.options import parse_options

pytestmark = pytest.mark.corpus
CLIP5 = "Sample.pak/Sample/Media/Clips/Clip5.Clip.Gbx"


def test_info_names_the_label(corpus, capsys):
    packs = corpus / "synthetic-pak/Packs"
    assert main(["info", str(packs / CLIP5)]) == 0
    assert f"verification: {NONE_STORED}" in capsys.readouterr().out.splitlines()
    assert main(["info", str(packs / CLIP5.replace("Clip5", "Clip4"))]) == 0
    assert f"verification: {ADLER32}" in capsys.readouterr().out.splitlines()
    assert main(["info", "--json", str(packs / "Sample.pak")]) == 0
    pak = json.loads(capsys.readouterr().out)[0]
    assert pak["verification.stored"] == f"{NONE_STORED} (1 files)"
    assert pak["verification.compressed"] == f"{ADLER32} when read (10 files)"


def test_extract_counts_unverifiable_entries(corpus, tmp_path, capsys):
    packs = corpus / "synthetic-pak/Packs"
    assert main(["extract", "-q", str(packs), str(tmp_path / "all")]) == 0
    err = capsys.readouterr().err
    assert "11 files written (" in err and "), 1 of them unverifiable" in err and "no checksum in the format" in err
    assert (tmp_path / "all" / CLIP5).is_file()


def test_extract_verified_only_skips_them(corpus, tmp_path, capsys):
    packs = corpus / "synthetic-pak/Packs"
    assert main(["extract", "-q", "--verified-only", str(packs), str(tmp_path / "v")]) == 1
    err = capsys.readouterr().err
    assert f"{CLIP5}: skipped: refused (verified_only): verification = {NONE_STORED}" in err
    last = err.splitlines()[-1]
    assert "10 files written (" in last and last.endswith(", 1 failed") and "unverifiable" not in last
    assert not (tmp_path / "v" / CLIP5).exists()
    assert (tmp_path / "v" / CLIP5.replace("Clip5", "Clip4")).is_file()


def test_cat_verified_only(corpus, capfdbinary):
    path = str(corpus / "synthetic-pak/Packs" / CLIP5 / "original.gbx")
    assert main(["cat", path]) == 0
    assert capfdbinary.readouterr().out[:3] == b"GBX"
    assert main(["cat", "--verified-only", path]) != 0
    out, err = capfdbinary.readouterr()
    assert out == b"" and b"verified_only" in err


def test_mount_option_and_flag():
    assert parse_options(["ro,verified_only"]).verified_only
    assert not parse_options(["ro"]).verified_only
    assert _parser().parse_args(["a", "b", "--verified-only"]).verified_only
