"""Every public GP2 track decodes to the values recorded in FORMAT.md §12;
every F1GP track and every other corpus file is not GP2."""
from __future__ import annotations

import csv
import io

import pytest

from gbxfs.formats.gp2 import Gp2Error, decode, folder_files, parse, probe
from gbxfs.formats.gp2.offsets import BASE
from gbxfs.formats.gp2.render_info import render_info
from gp2_oracle import (gp1_rows, gp2_rows, manifest_rows, number_and_extra, read_corpus,
                        track_oracle)

GP2 = gp2_rows()
GP1 = gp1_rows()
ids = lambda rows: [r["path"].rsplit("/", 1)[1] for r in rows]  # noqa: E731

# FORMAT.md §1, in file order
SECTION_ORDER = ["unused", "offset_table", "object_count", "object_offsets", "internal_objects",
                 "object_definitions", "track", "ccline", "gap", "car_setup", "pitlane",
                 "cameras", "various", "jam_files", "checksum"]
# FORMAT.md §12 boundary columns -> the section that starts there
BOUNDARY_COLUMNS = {"objdefs @": "object_definitions", "track @": "track",
                    "track end / CC @": "ccline", "CC end": "gap", "setup @": "car_setup",
                    "pitlane @": "pitlane", "pit end / cameras @": "cameras",
                    "various @": "various", "jams @": "jam_files", "checksum @": "checksum"}


def _expected(row: dict) -> dict[str, str]:
    return track_oracle()[row["path"].rsplit("/", 1)[1]]


def test_manifest_and_format_notes_agree(corpus):
    assert sorted(ids(GP2)) == sorted(track_oracle())
    assert GP1, "the corpus should hold F1GP tracks"


@pytest.mark.parametrize("row", GP2, ids=ids(GP2))
def test_track_values(corpus, row):
    exp = _expected(row)
    t = decode(read_corpus(row))
    sectors, trailing = number_and_extra(exp["sectors (+cmd-only)"])
    segments, segments_70 = number_and_extra(exp["CC segs (0x70)"])
    jams, jam_field = number_and_extra(exp["jams (count field)"])
    assert t.size == int(exp["bytes"])
    assert len(t.internal_objects) == int(exp["objects"])
    assert len(t.object_definitions) == int(exp["obj defs"])
    assert t.header.size == int(exp["hdr"])
    assert len(t.track.sectors) == sectors
    assert len(t.track.trailing) == (trailing or 0)
    assert t.track.length_units == int(exp["units"])
    assert f"{t.length_m:.1f}" == exp["metres"]
    assert len(t.track.commands) == int(exp["track cmds"])
    assert len(t.ccline.segments) == segments
    assert sum(s.kind == 0x70 for s in t.ccline.segments) == segments_70
    assert len(t.pitlane.sectors) == int(exp["pit sectors"])
    assert len(t.cameras) == int(exp["cameras"])
    assert t.laps == int(exp["laps"])
    assert len(t.jams.paths) == jams
    assert t.jams.count_field == (jam_field if jam_field is not None else jams)
    assert ("ok" if t.checksum.ok else "bad") == exp["checksum"]


@pytest.mark.parametrize("row", GP2, ids=ids(GP2))
def test_section_boundaries(corpus, row):
    exp = _expected(row)
    t = decode(read_corpus(row))
    assert t.table.unknown1 == int(exp["unknown1"], 16)
    assert t.table.unknown2 == int(exp["unknown2"], 16)
    for column, name in BOUNDARY_COLUMNS.items():
        assert t.section(name).offset == int(exp[column], 16), column


@pytest.mark.parametrize("row", GP2, ids=ids(GP2))
def test_lossless_rebuild(corpus, row):
    data = read_corpus(row)
    t = decode(data)
    assert [s.name for s in t.sections] == SECTION_ORDER
    assert t.rebuild() == data
    position = 0
    for s in t.sections:
        assert s.offset == position, s.name
        position += len(s.data)


@pytest.mark.parametrize("row", GP2, ids=ids(GP2))
def test_info_txt(corpus, row):
    exp = _expected(row)
    lines = render_info(decode(read_corpus(row))).decode().splitlines()
    sectors, _ = number_and_extra(exp["sectors (+cmd-only)"])
    jams, _ = number_and_extra(exp["jams (count field)"])
    for line in [f"sectors = {sectors}", f"length_m = {exp['metres']}", f"laps = {exp['laps']}",
                 f"objects = {exp['objects']}", f"cameras = {exp['cameras']}",
                 f"jam_files = {jams}", f"checksum = {exp['checksum']}"]:
        assert line in lines


@pytest.mark.parametrize("row", GP2, ids=ids(GP2))
def test_csv_tables(corpus, row):
    exp = _expected(row)
    data = read_corpus(row)
    files = dict(folder_files(decode(data), data))
    rows = {name: list(csv.reader(io.StringIO(render().decode())))
            for name, render in files.items() if name.endswith(".csv")}
    expected_rows = {"objects.csv": int(exp["obj defs"]),
                     "track.csv": number_and_extra(exp["sectors (+cmd-only)"])[0],
                     "track_commands.csv": int(exp["track cmds"]),
                     "ccline.csv": number_and_extra(exp["CC segs (0x70)"])[0],
                     "pitlane.csv": int(exp["pit sectors"]),
                     "cameras.csv": int(exp["cameras"]),
                     "internal_objects.csv": int(exp["objects"])}
    for name, n in expected_rows.items():
        header, body = rows[name][0], rows[name][1:]
        assert header and not header[0].isdigit(), name
        assert len(body) == n, name
        assert all(len(r) == len(header) for r in body), name
    assert files["original.dat"]() == data


@pytest.mark.parametrize("row", GP2, ids=ids(GP2))
def test_format_invariants(corpus, row):
    """Facts FORMAT.md marks verified on every real track."""
    t = decode(read_corpus(row))
    table_bytes = 16 * len(t.object_definitions)
    for _, c in t.track.commands + t.pitlane.commands:
        if c.ident == 0x80:  # object placement names a 16-byte definition by offset
            assert c.args[0] % 16 == 0 and 0 <= c.args[0] < table_bytes
    assert abs(t.ccline.length_units - t.track.length_units) <= 0.06 * t.track.length_units
    assert all(o.data[:2] == b"\x02\x80" for o in t.internal_objects)
    # the jam block's u32 and unknown2 both point at internal objects
    starts = {o.offset for o in t.internal_objects}
    assert t.jams.object_offset + BASE in starts
    assert t.table.unknown2 - t.table.unknown1 - 90 + BASE in starts


@pytest.mark.parametrize("row", GP1, ids=ids(GP1))
def test_f1gp_is_not_gp2(corpus, row):
    data = read_corpus(row)
    assert parse(data) is None
    assert not probe(data)
    with pytest.raises(Gp2Error, match="F1GP"):
        decode(data)


def test_no_other_corpus_file_is_gp2(corpus):
    others = [r for r in manifest_rows() if r not in GP2]
    assert others
    for row in others:
        assert parse(read_corpus(row)) is None, row["path"]


def test_other_dat_files_are_not_gp2(corpus):
    """packlist.dat and the chunk dumps named .dat are not GP2 tracks."""
    gp2_paths = {corpus / r["path"] for r in GP2}
    others = [p for p in corpus.rglob("*") if p.suffix.lower() == ".dat" and p not in gp2_paths]
    assert any(p.name == "packlist.dat" for p in others)
    for path in others:
        assert parse(path.read_bytes()) is None, path
