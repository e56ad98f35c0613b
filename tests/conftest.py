"""Shared fixtures. Corpus tests skip when ../shared/corpus is absent, unless
GBXFS_REQUIRE_CORPUS=1 (set by .ci/run), which turns a missing corpus into a failure."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from corpusdata import CORPUS, ROOT, SHARED, manifest_rows  # noqa: F401 (re-exported for tests)


def _require(path: Path) -> Path:
    if not path.exists():
        msg = f"{path} is absent (the shared corpus lives beside the checkout)"
        if os.environ.get("GBXFS_REQUIRE_CORPUS") == "1":
            pytest.fail(msg + " and GBXFS_REQUIRE_CORPUS=1")
        pytest.skip(msg)
    return path


@pytest.fixture(scope="session")
def corpus() -> Path:
    return _require(CORPUS)


@pytest.fixture(scope="session")
def shared() -> Path:
    return _require(SHARED)
