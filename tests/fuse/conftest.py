"""Module-wide real-mount fixtures (the per-test `mounter` is in tests/conftest.py).
Without FUSE on this machine (no /dev/fuse, no fusermount3, or not permitted)
mount tests skip with the reason, or fail when GBXFS_REQUIRE_FUSE=1 (set by .ci/run)."""
from __future__ import annotations

import pytest
from mountkit import Mounter
from requires import require_fuse


@pytest.fixture(scope="module")
def module_mounter(tmp_path_factory):
    require_fuse()
    m = Mounter(tmp_path_factory.mktemp("mounts"))
    try:
        yield m
    finally:
        m.cleanup()
