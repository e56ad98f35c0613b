"""Corpus replays and ghosts, parsed once per test session (shared by the
ghost and replay tests). Each entry: (manifest row, parsed Gbx, ghosts)."""
from __future__ import annotations

import functools
import re

from gbxfs.formats import gbx
from gbxfs.tree.gbx.ghostfiles import find_ghosts
from tests.conftest import CORPUS, manifest_rows


def generation(row: dict) -> str:
    """The game generation a MANIFEST row names (notes 'game≈...', xml title, path)."""
    text = " ".join((row["notes"], row["format"], row["path"]))
    m = re.search(r"game≈([^;(]+)", text)
    if m:
        g = m.group(1).strip()
    elif "title=TMTurbo" in text:
        g = "TM Turbo"
    elif re.search(r"title=(Trackmania|TMStadium)\b", text) and re.search(r"exebuild=20[2-9]", text):
        g = "TM2020"
    elif "TM2020" in text:
        g = "TM2020"
    elif "class 2407E000" in text or "TMNF" in text or "GbxParser/Benchmark" in text:
        g = "TM Forever"
    elif "exever=3.3.0" in text:
        g = "TM2/ManiaPlanet"
    else:
        g = "unknown"
    return g


def generation_of(row: dict, g) -> str:
    """generation(row), or from the file itself when the manifest does not say:
    a CGameCtnGhost "basic" chunk of version 5+ carries TM2020 record data."""
    gen = generation(row)
    if gen == "unknown" and g.body.nodes:
        basic = g.body.nodes[0].chunk(0x03092000)
        if basic is not None and basic.values and basic.values.get("version", 0) >= 5:
            gen = "TM2020"
    return gen


OLD_GENERATIONS = ("TM1.0", "TM Sunrise", "TM Nations ESWC", "TM United", "TM Forever")


@functools.lru_cache(maxsize=None)
def parsed() -> tuple:
    out = []
    for row in manifest_rows():
        if row["kind"] not in ("replay", "ghost"):
            continue
        g = gbx.parse((CORPUS / row["path"]).read_bytes())
        out.append((row, g, find_ghosts(g.body.nodes)))
    return tuple(out)
