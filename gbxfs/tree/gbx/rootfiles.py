"""The makers of a GBX folder's generated files that read its parse (refs.txt,
ghost.csv, ghost.txt, ghost.svg, inputs.csv, inputs.txt): functions of the
folder (view.GbxFolder) that every folder shares, so a listing keeps no
closure per file (tree/cached.py KeyedFile)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gbxfs.tree.gbx import inputfiles
from gbxfs.tree.gbx.ghostfiles import render_ghost_csv, render_ghost_txt
from gbxfs.tree.gbx.info import render_refs


def refs_text(folder: Any) -> bytes:
    return render_refs(folder.p.header())


# a replay's or ghost's files of its first ghost
GHOST_FILES: tuple[tuple[str, Callable[[Any], bytes]], ...] = (
    ("ghost.csv", lambda folder: render_ghost_csv(folder._first_ghost())),
    ("ghost.txt", lambda folder: render_ghost_txt(folder._first_ghost())),
    ("ghost.svg", lambda folder: inputfiles.render_ghost_svg(folder._first_ghost())),
    ("inputs.csv", lambda folder: inputfiles.render_csv(folder._first_ghost())))


def inputs_script(folder: Any) -> bytes:
    """inputs.txt (inputfiles.py), listed for TM United/Forever replays only."""
    first = folder._first_ghost()
    return inputfiles.render_script(first, inputfiles.ghost_title(first))
