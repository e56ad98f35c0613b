"""Where the shared corpus is, and its manifest. Imported by tests as
`from corpusdata import ...` (a unique module name: `conftest` is ambiguous
when several test folders have their own conftest.py)."""
from __future__ import annotations

import csv
import functools
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("GBXFS_CORPUS", ROOT.parent / "shared" / "corpus"))
SHARED = CORPUS.parent


def manifest_rows() -> list[dict]:
    """Rows of MANIFEST.tsv (empty when the corpus is absent; tests using it also use `corpus`)."""
    path = CORPUS / "MANIFEST.tsv"
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@functools.lru_cache(maxsize=None)
def parsed_gbx(path: str):
    """(bytes, gbxfs.formats.gbx.parse result) of a corpus file, parsed once per
    test session: the map, replay and corpus-wide GBX tests share the parse."""
    from gbxfs.formats import gbx
    data = (CORPUS / path).read_bytes()
    return data, gbx.parse(data)
