"""What a GP2 track folder holds, as (name, render) pairs - sans-I/O, so the
tree view only wraps them and tests can check the listing without a tree.

Raw sections are listed as sections/NN.<name>.bin; concatenated in name
order they are the original file."""
from __future__ import annotations

from collections.abc import Callable

from gbxfs.formats.gp2.render_info import render_info
from gbxfs.formats.gp2.render_tables import (
    render_cameras,
    render_ccline,
    render_commands,
    render_internal_objects,
    render_objects,
    render_sectors,
)
from gbxfs.formats.gp2.render_text import render_car_setup, render_jam_files, render_various
from gbxfs.formats.gp2.track import Gp2Track

Render = Callable[[], bytes]

ORIGINAL = "original.dat"
SECTIONS_DIR = "sections"


def folder_files(t: Gp2Track, original: bytes) -> list[tuple[str, Render]]:
    return [
        (ORIGINAL, lambda: original),
        ("info.txt", lambda: render_info(t)),
        ("objects.csv", lambda: render_objects(t)),
        ("internal_objects.csv", lambda: render_internal_objects(t)),
        ("track.csv", lambda: render_sectors(t.track)),
        ("track_commands.csv", lambda: render_commands(t.track)),
        ("ccline.csv", lambda: render_ccline(t)),
        ("car_setup.txt", lambda: render_car_setup(t)),
        ("pitlane.csv", lambda: render_sectors(t.pitlane)),
        ("pitlane_commands.csv", lambda: render_commands(t.pitlane)),
        ("cameras.csv", lambda: render_cameras(t)),
        ("various.txt", lambda: render_various(t)),
        ("jam_files.txt", lambda: render_jam_files(t)),
    ]


def section_files(t: Gp2Track) -> list[tuple[str, bytes]]:
    width = len(str(len(t.sections) - 1))
    return [(f"{i:0{width}d}.{s.name}.bin", s.data) for i, s in enumerate(t.sections)]
