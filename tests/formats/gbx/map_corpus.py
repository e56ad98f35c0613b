"""Corpus maps, parsed once per test session (shared by the map and ghost tests).
Each entry: (manifest row, parsed Gbx, generation)."""
from __future__ import annotations

import functools

from gbxfs.formats import gbx
from gbxfs.formats.gbx import generation
from corpusdata import CORPUS, manifest_rows


@functools.lru_cache(maxsize=None)
def maps() -> tuple:
    """(manifest row, parsed Gbx, generation) for every corpus map, parsed once."""
    out = []
    for row in manifest_rows():
        if row["kind"] == "map":
            g = gbx.parse((CORPUS / row["path"]).read_bytes())
            out.append((row, g, generation.from_note(row["notes"]) or generation.infer(g)))
    return tuple(out)
