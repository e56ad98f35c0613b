"""What a test needs from the machine, and what happens when it is missing:
a skip with the reason, or a failure when the matching GBXFS_REQUIRE_*
switch is 1 (.ci/run sets them: on CI nothing may be skipped silently)."""
from __future__ import annotations

import os
import shutil

import pytest

from corpusdata import CORPUS


def skip_or_fail(reason: str, switch: str) -> None:
    if os.environ.get(switch) == "1":
        pytest.fail(f"{reason} and {switch}=1")
    pytest.skip(reason)


def require_corpus() -> None:
    if not CORPUS.exists():
        skip_or_fail(f"{CORPUS} is absent (the shared corpus lives beside the checkout)",
                     "GBXFS_REQUIRE_CORPUS")


def fuse_unavailable() -> str | None:
    if not os.path.exists("/dev/fuse"):
        return "/dev/fuse is missing"
    if shutil.which("fusermount3") is None:
        return "fusermount3 is missing (apt install fuse3)"
    if os.geteuid() != 0 and not os.access("/dev/fuse", os.R_OK | os.W_OK):
        return "/dev/fuse is not accessible to this user"
    return None


def require_fuse() -> None:
    reason = fuse_unavailable()
    if reason:
        skip_or_fail(reason, "GBXFS_REQUIRE_FUSE")
