"""gbxfs extract: the synthetic sample byte-exact, skipped files, exit codes."""
from __future__ import annotations

import csv
import hashlib
import shutil
from pathlib import Path

from gbxfs.cli import main
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.writer import PakFile, write_packs

KS = b"99887766554433221100FFEEDDCCBBAA"


def files_under(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_sample_extracts_with_expected_sha256(corpus, tmp_path, capsys):
    assert main(["extract", str(corpus / "synthetic-pak/Packs"), str(tmp_path)]) == 0
    with open(corpus / "synthetic-pak/expected.tsv", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    got = files_under(tmp_path)
    assert sorted(got) == sorted(f"{r['pak']}/{r['path']}" for r in rows)
    for r in rows:
        data = got[f"{r['pak']}/{r['path']}"]
        assert len(data) == int(r["size"]) and hashlib.sha256(data).hexdigest() == r["sha256"]
    assert "Clip0.Clip.Gbx" in capsys.readouterr().out


def test_single_pak_source_and_packlist_override(tmp_path):
    files = [PakFile("A/x.txt", b"x" * 5000), PakFile("A/B/y.bin", bytes(300), compress=False),
             PakFile("C/empty", b"")]
    write_packs(tmp_path / "p", {"One": files}, key_strings={"One": KS})
    keys = tmp_path / "keys.dat"
    shutil.move(str(tmp_path / "p/packlist.dat"), keys)
    out = tmp_path / "out"
    assert main(["extract", "-q", str(tmp_path / "p/One.pak"), str(out), "--packlist", str(keys)]) == 0
    assert files_under(out) == {"One.pak/A/x.txt": b"x" * 5000, "One.pak/A/B/y.bin": bytes(300),
                                "One.pak/C/empty": b""}


def test_unverifiable_entry_skipped_with_exit_1(tmp_path, capsys):
    files = [PakFile("A/good.txt", b"good" * 50), PakFile("A/bad.txt", b"0123456789" * 500),
             PakFile("A/also_good.txt", b"fine")]
    paths = write_packs(tmp_path / "p", {"Two": files}, key_strings={"Two": KS})
    pak = paths["Two"]
    data = bytearray(pak.read_bytes())
    arc = PakArchive(lambda o, n: bytes(data[o:o + n]), len(data), derive_key(KS))
    data[arc.header.data_offset + arc.files[1].offset + 8 + 16] ^= 0x04
    pak.write_bytes(bytes(data))
    out = tmp_path / "out"
    assert main(["extract", str(tmp_path / "p"), str(out)]) == 1
    err = capsys.readouterr().err
    assert "Two.pak/A/bad.txt: skipped" in err
    # no partial or temporary file is left for the bad entry
    assert files_under(out) == {"Two.pak/A/good.txt": b"good" * 50, "Two.pak/A/also_good.txt": b"fine"}


def test_pak_without_key_is_skipped(tmp_path, capsys):
    write_packs(tmp_path, {"Three": [PakFile("A/a", b"a")]}, key_strings={"Three": KS})
    (tmp_path / "packlist.dat").unlink()
    assert main(["extract", str(tmp_path), str(tmp_path / "out")]) == 1
    assert "Three.pak: skipped: no packlist.dat" in capsys.readouterr().err


def test_exit_codes_for_bad_arguments(tmp_path):
    assert main(["extract", str(tmp_path / "missing"), str(tmp_path / "o")]) == 3
    notpak = tmp_path / "x.pak"
    notpak.write_bytes(b"hello world, not a pak")
    assert main(["extract", str(notpak), str(tmp_path / "o")]) == 4
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["extract", str(empty), str(tmp_path / "o")]) == 3
    assert main(["extract"]) == 2
