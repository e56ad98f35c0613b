"""gbxfs install-thumbnailer [--uninstall]: the .thumbnailer entry and the MIME
package land in $XDG_DATA_HOME with the right content, the Exec line runs as
written, and --uninstall takes both away."""
from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from corpusdata import CORPUS, corpus_path
from PIL import Image

from gbxfs import cli
from gbxfs.cli.exits import EXIT_OK, EXIT_USAGE
from gbxfs.cli.install_thumbnailer import exec_argument

NS = "{http://www.freedesktop.org/standards/shared-mime-info}"


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    """A private data home, and system data dirs that do (`with_dds`) or do not
    declare image/x-dds."""
    home = tmp_path / "data"
    system = tmp_path / "system"
    (system / "mime").mkdir(parents=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    monkeypatch.setenv("XDG_DATA_DIRS", str(system))
    return home, system / "mime" / "types"


def entry_of(home: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str
    parser.read(home / "thumbnailers" / "gbxfs.thumbnailer", encoding="utf-8")
    return parser["Thumbnailer Entry"]


def mime_types_of(home: Path) -> dict[str, ET.Element]:
    root = ET.parse(home / "mime" / "packages" / "gbxfs.xml").getroot()
    assert root.tag == f"{NS}mime-info"
    return {t.get("type"): t for t in root.findall(f"{NS}mime-type")}


def test_install_writes_entry_and_mime_package(xdg, capsys):
    home, _ = xdg
    assert cli.main(["install-thumbnailer"]) == EXIT_OK
    out = capsys.readouterr().out
    entry = entry_of(home)
    exe = entry["TryExec"]
    assert os.path.isabs(exe) and os.access(exe, os.X_OK)
    assert entry["Exec"] == f"{exe} thumbnail %i %o -s %s"
    assert entry["MimeType"].split(";") == ["application/x-gbx", "image/x-dds", ""]
    types = mime_types_of(home)
    gbx = types["application/x-gbx"]
    glob = gbx.find(f"{NS}glob")
    assert glob.get("pattern") == "*.gbx" and glob.get("case-sensitive") is None   # so .Gbx, .GBX too
    match = gbx.find(f"{NS}magic/{NS}match")
    assert (match.get("type"), match.get("offset"), match.get("value")) == ("string", "0", "GBX")
    assert "image/x-dds" in types          # the fake system declares no DDS type
    assert str(home / "thumbnailers" / "gbxfs.thumbnailer") in out


def test_dds_type_left_to_the_system_when_it_has_one(xdg):
    home, system_types = xdg
    system_types.write_text("image/png\nimage/x-dds\n", encoding="utf-8")
    assert cli.main(["install-thumbnailer"]) == EXIT_OK
    assert list(mime_types_of(home)) == ["application/x-gbx"]
    assert "image/x-dds" in entry_of(home)["MimeType"].split(";")


@pytest.mark.skipif(shutil.which("update-mime-database") is None, reason="needs update-mime-database")
def test_mime_cache_rebuilt_and_cleared(xdg):
    home, _ = xdg
    assert cli.main(["install-thumbnailer"]) == EXIT_OK
    globs = (home / "mime" / "globs2").read_text(encoding="utf-8")
    assert ":application/x-gbx:*.gbx" in globs
    assert cli.main(["install-thumbnailer", "--uninstall"]) == EXIT_OK
    assert "application/x-gbx" not in (home / "mime" / "globs2").read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("gio") is None or shutil.which("update-mime-database") is None,
                    reason="needs gio and update-mime-database")
def test_content_type_by_name_and_by_magic(xdg, tmp_path):
    home, _ = xdg
    assert cli.main(["install-thumbnailer"]) == EXIT_OK
    upper = tmp_path / "A.Map.GBX"
    upper.write_bytes(b"\0" * 32)
    unnamed = tmp_path / "noextension"
    unnamed.write_bytes(b"GBX\x06\x00BUCR" + bytes(64))

    def content_type(path: Path) -> str:
        out = subprocess.run(["gio", "info", "-a", "standard::content-type", str(path)],
                             capture_output=True, text=True, env=dict(os.environ), timeout=60).stdout
        return out.rsplit("standard::content-type:", 1)[-1].strip()

    assert content_type(upper) == "application/x-gbx"
    assert content_type(unnamed) == "application/x-gbx"


def test_uninstall_removes_both_files(xdg, capsys):
    home, _ = xdg
    assert cli.main(["install-thumbnailer"]) == EXIT_OK
    entry = home / "thumbnailers" / "gbxfs.thumbnailer"
    package = home / "mime" / "packages" / "gbxfs.xml"
    assert entry.exists() and package.exists()
    assert cli.main(["install-thumbnailer", "--uninstall"]) == EXIT_OK
    assert not entry.exists() and not package.exists()
    assert cli.main(["install-thumbnailer", "--uninstall"]) == EXIT_OK   # twice: nothing left to do
    assert "not installed" in capsys.readouterr().out
    assert cli.main(["install-thumbnailer", "--bogus"]) == EXIT_USAGE


def desktop_exec_argv(value: str) -> list[str]:
    """An Exec value's arguments, read as the desktop-entry spec says: the key
    file's escapes undone first (\\\\ is one backslash), then arguments split at
    spaces outside double quotes, where a backslash escapes " ` $ and itself."""
    text = re.sub(r"\\(.)", lambda m: {"s": " ", "n": "\n", "t": "\t", "r": "\r"}.get(m[1], m[1]), value)
    argv, word, quoted, i = [], None, False, 0
    while i < len(text):
        c = text[i]
        if quoted and c == "\\" and text[i + 1:i + 2] in ('"', "`", "$", "\\"):
            word, i = (word or "") + text[i + 1], i + 2
            continue
        if c == '"':
            quoted, word = not quoted, word or ""
        elif c == " " and not quoted:
            if word is not None:
                argv.append(word)
            word = None
        else:
            word = (word or "") + c
        i += 1
    assert not quoted, value
    return argv + ([word] if word is not None else [])


@pytest.mark.corpus
def test_exec_line_runs_as_written(corpus, xdg, tmp_path):
    home, _ = xdg
    assert cli.main(["install-thumbnailer"]) == EXIT_OK
    src = tmp_path / "A01 Race.Challenge.Gbx"          # a space, as file names have
    shutil.copyfile(CORPUS / corpus_path("Benchmark/Tracks/A01-Race.Challenge.Gbx"), src)
    out = tmp_path / "thumb.png"
    fields = {"%i": str(src), "%o": str(out), "%s": "128"}
    argv = [fields.get(word, word) for word in desktop_exec_argv(entry_of(home)["Exec"])]
    done = subprocess.run(argv, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    im = Image.open(out)
    assert im.format == "PNG" and max(im.size) == 128


@pytest.mark.parametrize("path", ["/opt/gbxfs/bin/gbxfs", "/home/a b/bin/gbxfs",
                                  '/x/"q"$HOME`y`\\z/100%/gbxfs'])
def test_exec_argument_round_trip(path):
    assert desktop_exec_argv(exec_argument(path).replace("%%", "%")) == [path]


@pytest.mark.corpus
def test_output_written_into_the_given_file(corpus, tmp_path):
    """Tumbler creates the output file, keeps it open, runs the thumbnailer and
    reads the PNG back through its own descriptor: the PNG must land in that
    very file, not in a new one renamed over it."""
    out = tmp_path / "tumbler-XXXX.png"
    with open(out, "w+b") as held:
        src = CORPUS / corpus_path("Benchmark/Tracks/A01-Race.Challenge.Gbx")
        assert cli.main(["thumbnail", str(src), str(out), "-s", "64"]) == EXIT_OK
        held.seek(0)
        im = Image.open(held)
        assert im.format == "PNG" and max(im.size) == 64
