"""Shared fixtures. Corpus tests skip when ../shared/corpus is absent, unless
GBXFS_REQUIRE_CORPUS=1 (set by .ci/run), which turns a missing corpus into a
failure; every test that reads the corpus goes through the `corpus` fixture.
Mount tests do the same with GBXFS_REQUIRE_FUSE (see requires.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from corpusdata import CORPUS, SHARED
from requires import require_corpus


@pytest.fixture(scope="session")
def corpus() -> Path:
    require_corpus()
    return CORPUS


@pytest.fixture(scope="session")
def shared() -> Path:
    require_corpus()
    return SHARED
