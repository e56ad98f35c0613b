"""Collection (environment) names: ManiaPlanet and later games store a map's
collection as a number from a global table (`environment = 26`), older ones as a
name. The table is data (gbxfs/data/collections.tsv, with where each name was
proven); this module only reads it."""
from __future__ import annotations

import functools
from importlib import resources

UNASSIGNED = 0xFFFFFFFF


@functools.cache
def _table() -> dict[int, str]:
    text = resources.files("gbxfs").joinpath("data/collections.tsv").read_text(encoding="utf-8")
    rows = [ln.split("\t") for ln in text.splitlines() if ln and not ln.startswith("#")]
    return {int(i): name for i, name in rows[1:]}


def collection_name(value: object) -> str | None:
    """The name of a stored collection: a name stays itself, a known number becomes
    its name, an unknown number or anything else gives None."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        if value == UNASSIGNED:
            return "Unassigned"
        return _table().get(value)
    return None
