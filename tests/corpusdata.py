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


def corpus_path(needle: str) -> str:
    """The manifest path of the corpus file whose path ends with `needle`."""
    return next(r["path"] for r in manifest_rows() if r["path"].endswith(needle))


def corpus_body(needle: str) -> tuple[bytes, dict]:
    """The decompressed body of the corpus file named by `needle` (corpus_path) and
    walk_body's keyword arguments for it."""
    return gbx_body((CORPUS / corpus_path(needle)).read_bytes())


def gbx_body(data: bytes) -> tuple[bytes, dict]:
    """The decompressed body of a GBX file's bytes and walk_body's keyword arguments
    for it (GbxError when the header or body cannot be read)."""
    from gbxfs.formats.gbx.body import read_body
    from gbxfs.formats.gbx.header import parse_header
    h = parse_header(data)
    return read_body(data, h.body_offset, h.body_compression).data, dict(
        class_id=h.raw_class_id, text=h.text, num_nodes=h.num_nodes,
        externals=h.refs.by_node_index() if h.refs else None)
