"""gbxfs extract against a hostile DEST and bad paks: it never follows links
under DEST, never opens an existing file to write, and a pak it cannot handle
is skipped with the reason while the others extract (exit 1)."""
from __future__ import annotations

import os
import stat

import pytest

from gbxfs.cli import main
from gbxfs.formats.pak.writer import PakFile, write_packs


def files_under(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink()}


@pytest.fixture
def paks(tmp_path):
    write_packs(tmp_path / "p", {"X": [PakFile("Root/sub/a.txt", b"pak bytes a"),
                                       PakFile("Root/b.txt", b"pak bytes b"),
                                       PakFile("Root/c.txt.gbxfs-part", b"named like a temp file"),
                                       PakFile("Root/c.txt", b"pak bytes c")]})
    return tmp_path / "p"


def test_a_planted_folder_link_is_replaced_not_followed(paks, tmp_path):
    dest, elsewhere = tmp_path / "dest", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (dest / "X.pak" / "Root").mkdir(parents=True)
    os.symlink(elsewhere, dest / "X.pak" / "Root" / "sub")
    assert main(["extract", "-q", str(paks), str(dest)]) == 0
    assert os.listdir(elsewhere) == []
    assert not os.path.islink(dest / "X.pak/Root/sub")
    assert (dest / "X.pak/Root/sub/a.txt").read_bytes() == b"pak bytes a"


def test_planted_file_links_are_never_written_through(paks, tmp_path):
    dest, victim = tmp_path / "dest", tmp_path / "victim"
    victim.write_bytes(b"precious")
    root = dest / "X.pak" / "Root"
    root.mkdir(parents=True)
    os.symlink(victim, root / "b.txt")                # the target itself
    os.symlink(victim, root / "b.txt.gbxfs-part")     # the old fixed temporary name
    assert main(["extract", "-q", str(paks), str(dest)]) == 0
    assert victim.read_bytes() == b"precious"
    assert not os.path.islink(root / "b.txt") and (root / "b.txt").read_bytes() == b"pak bytes b"


def test_an_entry_named_like_a_temporary_file_survives(paks, tmp_path):
    dest = tmp_path / "dest"
    assert main(["extract", "-q", str(paks), str(dest)]) == 0
    got = files_under(dest)
    assert got["X.pak/Root/c.txt"] == b"pak bytes c"
    assert got["X.pak/Root/c.txt.gbxfs-part"] == b"named like a temp file"
    assert len(got) == 4          # and no leftover temporary file


def test_a_file_in_the_way_of_a_folder_is_left_alone_and_reported(paks, tmp_path, capsys):
    dest = tmp_path / "dest"
    (dest / "X.pak" / "Root").mkdir(parents=True)
    (dest / "X.pak" / "Root" / "sub").write_bytes(b"mine")
    assert main(["extract", "-q", str(paks), str(dest)]) == 1
    assert (dest / "X.pak/Root/sub").read_bytes() == b"mine"
    assert "X.pak/Root/sub: skipped" in capsys.readouterr().err
    assert files_under(dest)["X.pak/Root/b.txt"] == b"pak bytes b"


def test_a_name_too_long_for_the_file_system_is_skipped(tmp_path, capsys):
    long_name = "n" * 300 + ".txt"
    write_packs(tmp_path / "p", {"L": [PakFile("A/" + long_name, b"too long"), PakFile("A/ok.txt", b"ok")]})
    dest = tmp_path / "dest"
    assert main(["extract", "-q", str(tmp_path / "p"), str(dest)]) == 1
    err = capsys.readouterr().err
    assert f"L.pak/A/{long_name}: skipped: File name too long" in err
    assert files_under(dest) == {"L.pak/A/ok.txt": b"ok"}


def test_deep_nesting_under_the_cap_extracts(tmp_path):
    deep = "A/" + "d/" * 200 + "f.txt"
    write_packs(tmp_path / "p", {"D": [PakFile(deep, b"deep", folder_depth=1)]})
    dest = tmp_path / "dest"
    assert main(["extract", "-q", str(tmp_path / "p"), str(dest)]) == 0
    assert (dest / "D.pak" / deep).read_bytes() == b"deep"


def test_deeper_than_the_cap_and_unreadable_paks_are_skipped_the_rest_extracts(tmp_path, capsys, monkeypatch):
    write_packs(tmp_path / "p", {"Deep": [PakFile("A/" + "d/" * 12 + "f", b"x", folder_depth=1)],
                                 "Good": [PakFile("A/fine.txt", b"fine")],
                                 "Locked": [PakFile("A/locked.txt", b"locked")]})
    monkeypatch.setattr("gbxfs.formats.pak.table.MAX_DEPTH", 10)   # where file paths are checked
    locked = tmp_path / "p" / "Locked.pak"
    real_open = os.open

    def deny(path, flags, *a, **kw):   # root reads a mode-000 file anyway: refuse like the kernel would
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *a, **kw)
    os.chmod(locked, 0)
    if os.geteuid() == 0:
        monkeypatch.setattr(os, "open", deny)
    dest = tmp_path / "dest"
    assert main(["extract", "-q", str(tmp_path / "p"), str(dest)]) == 1
    err = capsys.readouterr().err
    assert "Deep.pak: skipped:" in err and "nested" in err
    assert "Locked.pak: skipped: Permission denied" in err
    assert files_under(dest) == {"Good.pak/A/fine.txt": b"fine"}
    os.chmod(locked, stat.S_IRUSR | stat.S_IWUSR)
