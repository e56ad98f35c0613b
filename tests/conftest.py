"""Shared fixtures. Corpus tests skip when ../shared/corpus is absent, unless
GBXFS_REQUIRE_CORPUS=1 (set by .ci/run), which turns a missing corpus into a
failure; every test that reads the corpus goes through the `corpus` fixture.
Mount tests do the same with GBXFS_REQUIRE_FUSE (see requires.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from corpusdata import CORPUS, SHARED
from requires import require_corpus, require_fuse


@pytest.fixture(scope="session")
def corpus() -> Path:
    require_corpus()
    return CORPUS


@pytest.fixture(scope="session")
def shared() -> Path:
    require_corpus()
    return SHARED


@pytest.fixture
def mounter(tmp_path):
    """Real mounts of the test (tests/fuse/mountkit.py), unmounted at its end. Without
    FUSE the test skips, or fails when GBXFS_REQUIRE_FUSE=1 (set by .ci/run)."""
    from mountkit import Mounter
    require_fuse()
    m = Mounter(tmp_path)
    try:
        yield m
    finally:
        m.cleanup()


def pytest_collection_modifyitems(items):
    """Tests marked `long` (a large share of the suite's time each) run first:
    with scripts/test's two workers one of them starts on the long module while
    the other takes the rest, instead of one worker finishing it alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)   # stable: the rest keeps its order
