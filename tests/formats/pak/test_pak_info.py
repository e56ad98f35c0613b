"""`gbxfs info` on paks (gbxfs.cli.info_pak) and `gbxfs cat` into a pak."""
from __future__ import annotations

import hashlib
import json

from gbxfs.cli import main
from gbxfs.formats.pak.writer import PakFile, write_packs


def test_info_on_the_sample(corpus, capsys):
    assert main(["info", "--json", str(corpus / "synthetic-pak/Packs/Sample.pak")]) == 0
    s = json.loads(capsys.readouterr().out)[0]
    assert s["kind"] == "pak" and s["version"] == 3 and s["header_md5_ok"] is True
    assert s["files"] == 11 and s["compressed"] == 10 and s["gbx_headers"] == 6
    assert s["roots"] == ["Sample"] and s["packlist_signature_ok"] is True


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
