"""Corpus maps, parsed once per test session (shared by the map and ghost tests).
Each entry: (manifest row, parsed Gbx, generation)."""
from __future__ import annotations

import functools

from gbxfs.formats.gbx import generation
from corpusdata import manifest_rows, parsed_gbx


@functools.lru_cache(maxsize=None)
def maps() -> tuple:
    """(manifest row, parsed Gbx, generation) for every corpus map, parsed once."""
    out = []
    for row in manifest_rows():
        if row["kind"] == "map":
            g = parsed_gbx(row["path"])[1]
            out.append((row, g, generation.from_note(row["notes"]) or generation.infer(g)))
    return tuple(out)
