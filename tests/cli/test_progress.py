"""Long commands show a progress bar on a terminal and nothing in a pipe:
coverage, extract, and the first maps.csv of a big folder read with gbxfs cat.
The terminal is a pseudo-terminal given to the command as its stderr."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from gbxfs.formats.pak.writer import PakFile, write_packs

GBXFS = [sys.executable, "-m", "gbxfs"]
MAP = "gxnda+tmnf-gbx-reader/Circles of hell.Challenge.Gbx"


def on_terminal(*args: str) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, what the terminal showed) with stderr on a pty of 100 columns."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    proc = subprocess.Popen([*GBXFS, *args], stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    shown = bytearray()
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:          # EIO: every writer of the terminal is gone
            break
        if not data:
            break
        shown += data
    os.close(master)
    out = proc.stdout.read()
    return proc.wait(timeout=60), out, bytes(shown)


def in_pipe(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*GBXFS, *args], capture_output=True, timeout=120)


@pytest.fixture
def maps(corpus, tmp_path) -> Path:
    """A folder of 60 maps: big enough for gbxfs cat's bar before its maps.csv."""
    folder = tmp_path / "maps"
    folder.mkdir()
    for i in range(60):
        shutil.copy(corpus / MAP, folder / f"M{i:02}.Challenge.Gbx")
    return folder


def test_coverage_shows_progress_on_a_terminal_only(maps):
    code, out, shown = on_terminal("coverage", str(maps))
    assert code == 0 and b"60" in out
    assert b"coverage:" in shown and re.search(rb"\d+/60 ", shown) and b"\r" in shown
    piped = in_pipe("coverage", str(maps))
    assert piped.returncode == 0 and piped.stdout == out and piped.stderr == b""


def test_first_maps_csv_of_a_big_folder_shows_progress_on_a_terminal_only(maps):
    code, out, shown = on_terminal("cat", str(maps / "maps.csv"))
    assert code == 0 and len(out.splitlines()) == 61
    assert b"maps.csv: reading headers" in shown and re.search(rb"\d+/60 ", shown)
    piped = in_pipe("cat", str(maps / "maps.csv"))
    assert piped.returncode == 0 and piped.stdout == out and piped.stderr == b""


def test_extract_shows_progress_on_a_terminal_and_only_totals_in_a_pipe(tmp_path):
    write_packs(tmp_path / "Packs", {"P": [PakFile(f"D/f{i}.txt", b"x" * i) for i in range(1, 40)]},
                key_strings={"P": b"00112233445566778899AABBCCDDEEFF"})
    code, out, shown = on_terminal("extract", "-q", str(tmp_path / "Packs"), str(tmp_path / "a"))
    assert code == 0 and out == b""
    assert re.search(rb"\rextract: +\d+ files \[", shown) and b" files/s]" in shown   # the bar, not the totals
    piped = in_pipe("extract", "-q", str(tmp_path / "Packs"), str(tmp_path / "b"))
    assert piped.returncode == 0 and piped.stdout == b""
    assert piped.stderr.decode().splitlines() == [
        "gbxfs extract: 39 files written (780 bytes), 0 skipped as identical, 0 not overwritten, 0 failed"]
