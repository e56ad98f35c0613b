"""The `name = value` text files of a GP2 track folder: car setup, jam files,
the various-data block."""
from __future__ import annotations

from gbxfs.formats.gp2.track import Gp2Track


def _lines(pairs) -> bytes:
    return "".join(f"{k} = {v}\n" for k, v in pairs).encode("utf-8")


def render_car_setup(t: Gp2Track) -> bytes:
    note = (b"# field names follow Arg2Data; Paul Hoad's editor reads grip and brake\n"
            b"# balance from bytes 11/13 instead. raw holds all 38 bytes.\n")
    return note + _lines([("raw", t.setup.raw.hex(" ")), *t.setup.fields()])


def render_jam_files(t: Gp2Track) -> bytes:
    j = t.jams
    pairs = [("jam_files", len(j.paths)), ("count_field", j.count_field),
             ("lights_object_offset", f"0x{j.object_offset:X}")]
    pairs += [(f"path.{i}", p) for i, p in enumerate(j.paths)]
    return _lines(pairs)


def render_various(t: Gp2Track) -> bytes:
    v = t.various
    pairs = [("laps", v.laps), ("words", " ".join(map(str, v.words))),
             ("pairs", len(v.pairs)), ("terminated", "yes" if v.terminated else "no"),
             ("padding_nonzero_bytes", v.padding_nonzero)]
    pairs += [(f"pair.{i}", f"{d} {x}") for i, (d, x) in enumerate(v.pairs)]
    return _lines(pairs)
