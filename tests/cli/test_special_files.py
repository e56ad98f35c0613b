"""Sources that are not regular files (FIFOs, devices) are refused at once,
never waited on or read without end; a single bad file is not mounted."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gbxfs.formats.pak.writer import PakFile, write_packs

GBXFS = [sys.executable, "-m", "gbxfs"]


def run(*args, timeout=60):
    # a hang is the bug these tests look for: the timeout turns it into a failure
    return subprocess.run([*GBXFS, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def pak_with_fifo_packlist(tmp_path):
    write_packs(tmp_path / "p", {"X": [PakFile("A/a.txt", b"a")]})
    os.unlink(tmp_path / "p/packlist.dat")
    os.mkfifo(tmp_path / "p/packlist.dat")
    return tmp_path / "p/X.pak"


def test_a_fifo_named_packlist_dat_is_not_waited_on(pak_with_fifo_packlist):
    res = run("ls", str(pak_with_fifo_packlist), timeout=30)
    assert res.returncode == 0, res.stderr
    assert "error.txt" in res.stdout.split()
    res = run("cat", f"{pak_with_fifo_packlist}/error.txt", timeout=30)
    assert "packlist.dat unreadable" in res.stdout and "not a regular file" in res.stdout


def test_extract_with_a_fifo_packlist_is_skipped(pak_with_fifo_packlist, tmp_path):
    res = run("extract", str(pak_with_fifo_packlist), str(tmp_path / "out"), timeout=30)
    assert res.returncode == 1 and "not a regular file" in res.stderr


@pytest.mark.parametrize("kind", ["fifo", "device", "device-link"])
def test_info_refuses_what_is_not_a_regular_file(tmp_path, kind):
    path = tmp_path / "x.Gbx"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = "/dev/zero"
    else:
        os.symlink("/dev/zero", path)
    res = run("info", str(path), timeout=30)
    assert res.returncode == 4 and "not a regular file" in res.stderr


def test_info_size_cap(tmp_path, monkeypatch, capsys):
    from gbxfs.cli import info
    big = tmp_path / "big.Gbx"
    big.write_bytes(b"GBX" + bytes(5000))
    monkeypatch.setattr(info, "INFO_LIMIT", 4096)
    assert info.main([str(big)]) == 4
    assert "limit" in capsys.readouterr().err


def test_ls_of_a_fifo_source_is_refused(tmp_path):
    os.mkfifo(tmp_path / "X.pak")
    res = run("ls", str(tmp_path / "X.pak"), timeout=30)
    assert res.returncode != 0 and "not a regular file" in res.stderr


@pytest.mark.parametrize("what", ["random", "empty", "no-packlist"])
def test_a_single_bad_pak_is_not_mounted(tmp_path, what):
    if what == "no-packlist":
        write_packs(tmp_path / "p", {"X": [PakFile("A/a.txt", b"a")]})
        os.unlink(tmp_path / "p/packlist.dat")
        pak = tmp_path / "p/X.pak"
    else:
        pak = tmp_path / "X.pak"
        pak.write_bytes(os.urandom(3000) if what == "random" else b"")
    (tmp_path / "mp").mkdir()
    res = run(str(pak), str(tmp_path / "mp"))
    assert res.returncode == 4, res.stderr
    assert "cannot be shown as a folder" in res.stderr


def test_a_fifo_source_is_not_mounted(tmp_path):
    os.mkfifo(tmp_path / "X.pak")
    (tmp_path / "mp").mkdir()
    res = run(str(tmp_path / "X.pak"), str(tmp_path / "mp"), timeout=30)
    assert res.returncode == 4 and "not a regular file" in res.stderr


def test_a_mount_point_that_cannot_be_made_is_not_found(tmp_path):
    # a missing mount point is made (tests/cli/test_mountpoint.py), but not its missing parents
    res = run(str(tmp_path), str(tmp_path / "nope" / "mp"))
    assert res.returncode == 3 and "does not exist and cannot be created" in res.stderr
    assert not (tmp_path / "nope").exists()
