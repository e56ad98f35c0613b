"""A pak entry named with thousands of bytes: through a mount its folder still
lists (every sibling), the entry under a shortened name."""
from __future__ import annotations

import os

import pytest

from gbxfs.formats.pak.writer import PakFile, write_packs

pytestmark = pytest.mark.mount


def test_a_4090_byte_name_hides_no_sibling(mounter, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    long = "N" * 4086 + ".txt"
    write_packs(src, {"X": [PakFile("A/a.txt", b"a"), PakFile(f"A/{long}", b"long"), PakFile("A/z.txt", b"z")]})
    mp = mounter.mount(src)
    names = os.listdir(f"{mp}/X.pak/A")
    assert "a.txt" in names and "z.txt" in names and len(names) == 3
    (short,) = [n for n in names if n.startswith("NNN")]
    assert len(os.fsencode(short)) <= 255
    assert open(f"{mp}/X.pak/A/{short}", "rb").read() == b"long"
    assert os.getxattr(f"{mp}/X.pak/A/{short}", "user.pak.stored_name") == long.encode()
