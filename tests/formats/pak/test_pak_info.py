"""`gbxfs info` on paks (gbxfs.cli.info_pak) and `gbxfs cat` into a pak."""
from __future__ import annotations

import hashlib
import json

from gbxfs.cli import main
from gbxfs.formats.pak.writer import PakFile, write_packs


def test_info_on_the_sample(corpus, capsys):
    assert main(["info", "--json", str(corpus / "synthetic-pak/Packs/Sample.pak")]) == 0
    s = json.loads(capsys.readouterr().out)[0]
    assert s["file_type"] == "pak" and s["version"] == 3 and s["header.md5"] == "ok"
    assert s["files"] == 11 and s["files.compressed"] == 10 and s["metadata.gbx_headers"] == 6
    assert s["roots"] == ["Sample"] and s["key.packlist_signature"] == "ok"


def test_info_without_key_and_on_a_corrupt_pak(tmp_path, capsys):
    write_packs(tmp_path, {"P": [PakFile("R/a", b"a")]})
    (tmp_path / "packlist.dat").unlink()
    assert main(["info", "--json", str(tmp_path / "P.pak")]) == 0
    assert "no packlist.dat" in json.loads(capsys.readouterr().out)[0]["error"]
    bad = tmp_path / "Bad.pak"
    bad.write_bytes(b"NadeoPak\x03\x00")
    assert main(["info", str(bad)]) == 4


def test_cat_gives_the_sample_bytes(corpus, capsysbinary):
    path = corpus / "synthetic-pak/Packs/Sample.pak/Sample/Media/Clips/Clip3.Clip.Gbx/original.gbx"
    assert main(["cat", str(path)]) == 0
    data = capsysbinary.readouterr().out
    assert hashlib.sha256(data).hexdigest() == "7562fa8accfbbec701991217a43980a5b9eda16bab9945d495b1e19c18d17e85"


def test_info_reads_a_pak_in_place_and_makes_no_record_per_file(tmp_path, capsys, monkeypatch):
    """A pak of a million files has a table of tens of MB: `info` reads the pak
    in place (not whole) and sums the compact table without a record per file."""
    from gbxfs.cli import info
    from gbxfs.formats.pak.table import FileTable
    from gbxfs.formats.pak.writer import many_files
    from gbxfs.formats.pak.writer6 import build_pack, many_pack_files

    files = many_files(3000, seed=11)
    write_packs(tmp_path, {"Big": files})
    (tmp_path / "Big.Pack.Gbx").write_bytes(build_pack(many_pack_files(3000, seed=11), version=18, header_flags=2))

    def no(*a, **kw):
        raise AssertionError("a record per file, or the whole pak in memory")
    monkeypatch.setattr(FileTable, "__getitem__", no)
    monkeypatch.setattr(FileTable, "__iter__", no)
    monkeypatch.setattr(info, "read_regular", no)
    assert main(["info", "--json", str(tmp_path / "Big.pak"), str(tmp_path / "Big.Pack.Gbx")]) == 0
    pak, pack = json.loads(capsys.readouterr().out)
    size = sum(len(f.data) for f in files)
    assert (pak["files"], pak["files.compressed"], pak["files.total_size"]) == (3000, sum(f.compress for f in files),
                                                                               size)
    assert pak["roots"] == ["Data"] and pak["header.md5"] == "ok"
    assert pak["file_size"] == (tmp_path / "Big.pak").stat().st_size
    assert (pack["files"], pack["files.public"], pack["files.need_key"], pack["files.total_size"]) == (3000, 3000, 0,
                                                                                                      size)
