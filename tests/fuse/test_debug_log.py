"""-d logs each FUSE request as it arrives (as fuse-zip does)."""
from __future__ import annotations

import os

import pytest

from mountkit import TIMEOUT

pytestmark = pytest.mark.mount


def test_debug_logs_each_request(mounter, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "hello.txt").write_bytes(b"hello\n")
    mp, proc = mounter.foreground(src, "-d")
    with open(os.path.join(mp, "hello.txt"), "rb") as f:
        assert f.read() == b"hello\n"
    with pytest.raises(OSError):
        os.mkdir(os.path.join(mp, "new"))   # refused by the kernel (ro), after a lookup
    proc.terminate()
    proc.wait(timeout=TIMEOUT)
    err = proc.stderr.read().decode()
    for request in ("readdir(", "lookup(1, b'new')", "open(", "read(", "release("):
        assert request in err, request
