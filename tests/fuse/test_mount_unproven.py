"""A real mount on entries no checksum can prove: the stored GBX entry of the
synthetic Sample.pak says `none: stored, no checksum in the format` in its
info.txt and xattr; with -o verified_only it answers EIO, compressed ones
still read."""
from __future__ import annotations

import errno
import os

import pytest

from gbxfs.formats.pak.verification import ADLER32, NONE_STORED

pytestmark = [pytest.mark.mount, pytest.mark.corpus]
CLIPS = "Sample.pak/Sample/Media/Clips"


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def test_label_then_verified_only(mounter, corpus):
    src = corpus / "synthetic-pak/Packs"
    mp = mounter.mount(src)
    clip5 = f"{mp}/{CLIPS}/Clip5.Clip.Gbx"
    os.listdir(clip5)
    assert os.getxattr(clip5, "user.pak.verification") == NONE_STORED.encode()
    assert f"verification = {NONE_STORED}" in _read(f"{clip5}/info.txt").decode().splitlines()
    assert len(_read(f"{clip5}/original.gbx")) == 709
    assert f"verification.stored = {NONE_STORED} (1 files)" in _read(f"{mp}/Sample.pak/.pak-info.txt").decode()

    strict = mounter.mount(src, "verified_only")
    with pytest.raises(OSError) as e:
        _read(f"{strict}/{CLIPS}/Clip5.Clip.Gbx/original.gbx")
    assert e.value.errno == errno.EIO
    clip4 = f"{strict}/{CLIPS}/Clip4.Clip.Gbx"
    assert _read(f"{clip4}/original.gbx")[:3] == b"GBX"
    assert os.getxattr(clip4, "user.pak.verification") == ADLER32.encode()
