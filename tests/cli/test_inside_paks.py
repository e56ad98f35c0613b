"""gbxfs info reads files inside paks as ls/cat do; gbxfs ls sorts its output."""
from __future__ import annotations

import csv

from gbxfs.cli import main
from gbxfs.formats.pak.writer import PakFile, write_packs


def test_info_of_a_gbx_inside_a_pak(corpus, capsys):
    with open(corpus / "synthetic-pak/expected.tsv", newline="") as f:
        row = next(r for r in csv.DictReader(f, delimiter="\t") if r["kind"] == "gbx")
    path = corpus / "synthetic-pak/Packs" / row["pak"] / row["path"]
    assert main(["info", str(path)]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert out.startswith(f"path: {path}\n") and "class_id: " in out and "verification: " in out


def test_info_of_a_missing_path_inside_a_pak(corpus, capsys):
    path = corpus / "synthetic-pak/Packs/Sample.pak/Nope/missing.Gbx"
    assert main(["info", str(path)]) == 3
    assert "no such file" in capsys.readouterr().err


def test_ls_sorts_what_the_archive_lists_unsorted(tmp_path, capsys):
    write_packs(tmp_path, {"X": [PakFile("A/zeta.txt", b"z"), PakFile("A/alpha.txt", b"a"),
                                 PakFile("A/Mid.txt", b"m")]})
    assert main(["ls", str(tmp_path / "X.pak/A")]) == 0
    assert capsys.readouterr().out.split() == ["Mid.txt", "alpha.txt", "zeta.txt"]
