"""gbxfs extract on a game folder: paks found in subfolders with the layout
kept, files already in DEST kept unless --force (identical ones skipped), and
the totals line."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gbxfs.cli import main
from gbxfs.formats.pak.writer import PakFile, write_packs

KS = b"0123456789ABCDEF0123456789ABCDEF"


def files_under(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def game(tmp_path) -> Path:
    """GAME/GameData/Packs/Main.pak and GAME/GameData/Packs/Extra/Bonus.pak, each
    with its packlist.dat beside it, and a file that is no pak."""
    g = tmp_path / "GAME"
    write_packs(g / "GameData" / "Packs", {"Main": [PakFile("M/a.txt", b"a" * 3000), PakFile("M/b.bin", bytes(70))]},
                key_strings={"Main": KS})
    write_packs(g / "GameData" / "Packs" / "Extra", {"Bonus": [PakFile("B/c.txt", b"c" * 10)]},
                key_strings={"Bonus": KS})
    (g / "readme.txt").write_text("not a pak")
    return g


def totals(err: str) -> tuple[int, int, int, int, int]:
    m = re.search(r"(\d+) files written \((\d+) bytes\)(?:, \d+ of them unverifiable \([^)]*\))?, (\d+) skipped as identical, (\d+) not overwritten, "
                  r"(\d+) failed", err.strip().splitlines()[-1])
    assert m, err
    return tuple(map(int, m.groups()))


def test_paks_in_subfolders_keep_their_layout(game, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["extract", "-q", str(game), str(out)]) == 0
    assert files_under(out) == {"GameData/Packs/Main.pak/M/a.txt": b"a" * 3000,
                                "GameData/Packs/Main.pak/M/b.bin": bytes(70),
                                "GameData/Packs/Extra/Bonus.pak/B/c.txt": b"c" * 10}
    assert totals(capsys.readouterr().err) == (3, 3080, 0, 0, 0)


def test_identical_files_are_skipped_and_different_ones_kept_without_force(game, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["extract", "-q", str(game), str(out)]) == 0
    capsys.readouterr()
    mine = out / "GameData/Packs/Main.pak/M/a.txt"
    mine.write_bytes(b"b" * 3000)                          # same size, other bytes
    shorter = out / "GameData/Packs/Main.pak/M/b.bin"
    shorter.write_bytes(b"mine")
    assert main(["extract", "-q", str(game), str(out)]) == 1
    err = capsys.readouterr().err
    assert "GameData/Packs/Main.pak/M/a.txt: not overwritten" in err
    assert "GameData/Packs/Main.pak/M/b.bin: not overwritten" in err and "--force" in err
    assert totals(err) == (0, 0, 1, 2, 0)
    assert mine.read_bytes() == b"b" * 3000 and shorter.read_bytes() == b"mine"

    same = out / "GameData/Packs/Extra/Bonus.pak/B/c.txt"
    before = same.stat().st_ino
    assert main(["extract", "-q", "--force", str(game), str(out)]) == 0
    # --force replaces what differs; the identical file is skipped, not written again
    assert totals(capsys.readouterr().err) == (2, 3070, 1, 0, 0)
    assert mine.read_bytes() == b"a" * 3000 and shorter.read_bytes() == bytes(70)
    assert same.stat().st_ino == before


def test_identical_files_are_named_when_listing(game, tmp_path, capsys):
    out = tmp_path / "out"
    main(["extract", "-q", str(game), str(out)])
    capsys.readouterr()
    assert main(["extract", str(game), str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert "GameData/Packs/Extra/Bonus.pak/B/c.txt (identical, kept)" in printed


def test_a_folder_without_paks_is_not_found(tmp_path, capsys):
    (tmp_path / "src" / "deep").mkdir(parents=True)
    assert main(["extract", str(tmp_path / "src"), str(tmp_path / "out")]) == 3
