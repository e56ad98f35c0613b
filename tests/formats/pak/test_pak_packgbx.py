"""ManiaPlanet .Pack.Gbx plain headers (versions 6 to 15+), built here from
the field list of docs/formats/pak.md."""
from __future__ import annotations

import struct

import pytest

from gbxfs.formats.pak import packgbx
from gbxfs.formats.pak.errors import PakError


def s(text: str) -> bytes:
    b = text.encode()
    return struct.pack("<I", len(b)) + b


def author(login: str) -> bytes:
    return struct.pack("<I", 0) + s(login) + s("Nick " + login) + s("World|Europe") + s("")


FILETIME_2015 = 130645440000000000   # 2015-01-01T00:00:00Z


def build(version: int, included: int = 1) -> bytes:
    out = b"NadeoPak" + struct.pack("<I", version) + bytes(range(32)) + struct.pack("<I", 5)
    if version < 9:
        if version >= 7:
            out += author("alice") + s("a comment") + bytes(16)
        if version >= 8:
            out += s("build 2013") + s("http://author")
        return out + b"ENCRYPTED..."
    if version >= 15:
        out += struct.pack("<I", 0x100000)
    out += author("alice") + s("maniaplanet:///:x")
    if version >= 13:
        out += s("http://download")
    out += struct.pack("<Q", FILETIME_2015) + s("a comment")
    if version >= 12:
        out += s("<pack type='title'/>") + s("TMCanyon")
    out += s("Skins") + s("build 2017") + bytes(16)
    if version >= 10:
        out += struct.pack("<I", included)
        for i in range(included):
            out += bytes([i]) * 32 + s(f"Inc{i}") + author(f"bob{i}") + s("url") + struct.pack("<Q", FILETIME_2015) + s(f"Name{i}")
            if version >= 11:
                out += struct.pack("<I", i + 1)
    return out + b"ENCRYPTED..."


@pytest.mark.parametrize("version", [6, 7, 8, 9, 10, 11, 12, 13, 15])
def test_every_version(version):
    data = build(version, included=2)
    h = packgbx.parse(data)
    assert h.version == version and h.checksum == bytes(range(32)) and h.decrypt_flags == 5
    assert data[h.header_size:] == b"ENCRYPTED..."
    if version >= 7:
        assert h.author.login == "alice" and h.comment == "a comment"
    if version >= 9:
        assert h.creation_date == FILETIME_2015 and h.usage_subdir == "Skins"
    assert (h.title_id == "TMCanyon") == (version >= 12)
    assert (h.download_url is not None) == (version >= 13)
    assert (h.header_max_size == 0x100000) == (version >= 15)
    assert len(h.included) == (2 if version >= 10 else 0)
    if version >= 10:
        assert h.included[1].name == "Inc1" and h.included[1].author.login == "bob1"
        assert h.included[1].include_depth == (2 if version >= 11 else None)
    text = packgbx.render(h)
    assert f"version = {version}\n" in text
    if version >= 9:
        assert "creation_date = 2015-01-01T00:00:00+00:00" in text


@pytest.mark.parametrize("cut", [0, 8, 20, 60, 100, 200])
def test_truncated_header_is_a_clear_error(cut):
    with pytest.raises(PakError):
        packgbx.parse(build(13)[:cut])


def test_hostile_counts():
    data = bytearray(build(10, included=0))
    at = data.index(b"ENCRYPTED") - 4
    data[at:at + 4] = struct.pack("<I", 0x7FFFFFFF)
    with pytest.raises(PakError, match="included packs"):
        packgbx.parse(bytes(data))
    with pytest.raises(PakError, match="not a ManiaPlanet pack"):
        packgbx.parse(b"NadeoPak" + struct.pack("<I", 3) + bytes(64))
