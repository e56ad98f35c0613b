"""One name for one fact (docs/formats/mount.md "Field names"): the names a user
reads for the same corpus files in info.txt, ghost.txt, maps.csv, replays.csv,
.pak-info.txt, a GP2 folder's info.txt, `gbxfs info --json` and `gbxfs coverage
--json`. Each row of SYNONYMS is one fact: its first name is the one shown, the
others appear nowhere; and `gbxfs info` names each fact of a file as the file's
own info file does."""
from __future__ import annotations

import csv
import io
import json
import shutil

import pytest

from gbxfs.cli import main
from gbxfs.cli.coverage import KINDS
from gbxfs.tree.root import build_tree

DATA = "boukestam+gbx-viewer/public/data"
MAP, REPLAY, GHOST = "TestPivots.Map.Gbx", "TestPlatforms.Replay.Gbx", "Simple TECH 1.Replay.gbx"
PAK = "synthetic-pak/Packs/Sample.pak"
GP2 = "codemeyer+Arg2Data/TestData/tracks/GP2-F1CT07.DAT"

# one fact per row: the name shown first, then names it must never be shown under
SYNONYMS = [
    ("map_uid", "uid", "mapUid", "track_uid"),
    ("player", "nickname", "driver"),
    ("race_time_ms", "time_ms", "raceTime"),
    ("race_time", "time"),
    ("kind", "class"),                  # map / replay / ghost: what the GBX file is
    ("file_type", "type"),              # gbx / pak / gp2: what format the file is
    ("file_size", "size"),
    ("key.packlist", "packlist"),
    ("key.packlist_signature", "packlist_signature_ok", "packlist_signature"),
    ("header.md5", "header_md5_ok", "md5_ok"),
    ("header.folder_feed", "folder_feed"),
    ("files.compressed", "compressed"),
    ("files.total_size", "total_size"),
    ("verification.stored", "verification_stored"),
    ("verification.compressed", "verification_compressed"),
    ("metadata.gbx_headers", "gbx_headers"),
    ("metadata", "metadata_error"),
]


def _names(text: str) -> dict[str, str]:
    """name -> value of the top-level `name = value` lines of an info file."""
    return dict(line.split(" = ", 1) for line in text.splitlines() if " = " in line and not line.startswith(" "))


def _read(entry) -> str:
    return entry.read(0, entry.size()).decode()


def _info_json(capsys, *paths) -> list[dict]:
    assert main(["info", "--json", *map(str, paths)]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def shown(corpus, tmp_path_factory):
    """surface -> {name: value} for each place a user reads names."""
    out: dict[str, dict] = {}
    folder = build_tree(str(corpus / DATA)).children()
    for label, name in (("map", MAP), ("replay", REPLAY), ("ghost", GHOST)):
        kids = folder[name].children()
        out[f"{label} info.txt"] = _names(_read(kids["info.txt"]))
        if "ghost.txt" in kids:
            out[f"{label} ghost.txt"] = _names(_read(kids["ghost.txt"]))
    for index in ("maps.csv", "replays.csv"):
        table = list(csv.DictReader(io.StringIO(_read(folder[index]))))
        out[index] = {k: {r[k] for r in table} for k in table[0]}
    pak = build_tree(str(corpus / PAK)).children()
    out[".pak-info.txt"] = _names(_read(pak[".pak-info.txt"]))
    out["gp2 info.txt"] = _names(_read(build_tree(str(corpus / GP2)).children()["info.txt"]))
    some = tmp_path_factory.mktemp("coverage")
    for name in (MAP, REPLAY):
        shutil.copy(corpus / DATA / name, some / name)
    out["coverage"] = {"_dir": str(some)}
    return out


def test_no_fact_is_shown_under_two_names(corpus, shown, capsys):
    surfaces = {k: set(v) for k, v in shown.items() if k != "coverage"}
    for s in _info_json(capsys, *(corpus / DATA / n for n in (MAP, REPLAY, GHOST)), corpus / PAK, corpus / GP2):
        surfaces[f"gbxfs info {s['path'].rsplit('/', 1)[-1]}"] = set(s) | set(s.get("summary") or {})
    assert main(["coverage", "--json", shown["coverage"]["_dir"]]) == 0
    surfaces["gbxfs coverage"] = set(json.loads(capsys.readouterr().out)[0])
    for fact in SYNONYMS:
        seen = {name: sorted(k for k, names in surfaces.items() if name in names) for name in fact}
        assert not any(seen[n] for n in fact[1:]), f"{fact[0]} also shown as {seen}"


def test_gbxfs_info_names_facts_as_the_files_own_info_does(corpus, shown, capsys):
    m, r, g, pak, gp2 = _info_json(capsys, *(corpus / DATA / n for n in (MAP, REPLAY, GHOST)),
                                   corpus / PAK, corpus / GP2)
    for s, label in ((m, "map"), (r, "replay"), (g, "ghost")):
        info = shown[f"{label} info.txt"]
        assert set(s["summary"]) <= set(info), label
        # the facts info.txt shows too (it leaves out an empty body_error, status_reason, and a
        # stored_class_id that is the class_id)
        facts = {k for k, v in s.items() if v is not None and not isinstance(v, (dict, list))}
        if s["stored_class_id"] == s["class_id"]:
            facts.discard("stored_class_id")
        assert facts - {"path", "file_type"} <= set(info), label
    # a pak: every fact under .pak-info.txt's name and worded alike; the file's size as info.txt names it
    pak_info = shown[".pak-info.txt"]
    named = {k: v for k, v in pak.items() if k not in ("path", "file_type", "file_size", "roots")}
    assert set(named) <= set(pak_info)
    assert {k: v for k, v in named.items() if str(v) != pak_info[k]} == {}
    assert {k: str(v) for k, v in gp2.items() if k not in ("path", "file_type")} == shown["gp2 info.txt"]
    assert (m["file_type"], pak["file_type"], gp2["file_type"]) == ("gbx", "pak", "gp2")


def test_the_indexes_name_facts_as_info_txt_and_coverage_do(shown, capsys):
    maps, replays = shown["maps.csv"], shown["replays.csv"]
    assert set(maps) - {"file"} <= set(shown["map info.txt"])
    assert set(replays) - {"file", "kind"} <= set(shown["replay info.txt"])
    # the replays' map_uid and a map's own: one fact, one column name to join on
    assert "map_uid" in maps and "map_uid" in replays
    assert main(["coverage", "--json", shown["coverage"]["_dir"]]) == 0
    entries = json.loads(capsys.readouterr().out)
    # `kind` means what a GBX file is, wherever it is shown
    assert {e["kind"] for e in entries} | replays["kind"] <= set(KINDS)
    assert replays["kind"] >= {"replay"}
    # ghost.txt and info.txt name the run's facts alike
    both = set(shown["replay ghost.txt"]) & set(shown["replay info.txt"])
    assert {"player", "login", "race_time_ms", "map_uid", "checkpoints_ms"} <= both
