"""Shared fixtures. Corpus tests skip when ../shared/corpus is absent, unless
GBXFS_REQUIRE_CORPUS=1 (set by .ci/run), which turns a missing corpus into a failure."""
from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("GBXFS_CORPUS", ROOT.parent / "shared" / "corpus"))
SHARED = CORPUS.parent


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


def manifest_rows() -> list[dict]:
    """Rows of MANIFEST.tsv (empty when the corpus is absent; tests using it also use `corpus`)."""
    path = CORPUS / "MANIFEST.tsv"
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))
