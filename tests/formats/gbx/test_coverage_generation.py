"""Game generation of a GBX file: from MANIFEST notes, and inferred from the file itself
(gbxfs.formats.gbx.generation). The inference is checked against the notes, which come
from the source repositories' folder names - an independent statement of the game."""
from __future__ import annotations

import pytest
from corpusdata import manifest_rows, parsed_gbx

from gbxfs.formats.gbx import generation


@pytest.mark.parametrize("note, expected", [
    ("game≈TM1.0 (2003) (from path); body LZO-compressed", "TM 1.0"),
    ("game≈TM Sunrise eXtreme (from path); body LZO-compressed", "TM Sunrise"),
    ("game≈TM Nations ESWC (from path)", "TM Nations ESWC"),
    ("game≈ManiaPlanet 4; body LZO-compressed", "ManiaPlanet"),
    ("game≈TM2/ManiaPlanet", "ManiaPlanet"),
    ("body LZO-compressed; TMNF competition entry map", "TM Forever"),
    ("ShootMania Obstacle title pack source asset (ManiaPlanet 4 era)", "ShootMania"),
    ("body uncompressed; 4 external refs", None),
])
def test_generation_from_manifest_notes(note, expected):
    assert generation.from_note(note) == expected


@pytest.mark.corpus
def test_inferred_generation_agrees_with_the_manifest_notes(corpus):
    """Every map and replay whose note names its game, except files without header
    chunks (nothing to infer from but the body)."""
    checked = {}
    for row in manifest_rows():
        noted = generation.from_note(row["notes"])
        if row["kind"] not in ("map", "replay") or noted is None:
            continue
        g = parsed_gbx(row["path"])[1]
        if not g.header.chunks:
            continue
        assert generation.infer(g) == noted, row["path"]
        checked[noted] = checked.get(noted, 0) + 1
    # every generation of the corpus notes was exercised, not only the frequent ones
    assert set(checked) >= {"TM 1.0", "TM Sunrise", "TM Original", "TM Nations ESWC", "TM United",
                            "TM Forever", "ManiaPlanet", "TM Turbo", "TM2020"}
